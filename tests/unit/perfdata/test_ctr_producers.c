/* Several producer threads hand records to one container writer at once (the recorder's
 * rings drained on threads of their own): 4 threads, each 3000 records of its own, every
 * 7th an AUXTRACE record given in three pieces (header, AUX bytes in two parts as from a
 * ring that wrapped), some calls with two whole records, every 500th a flush. Read back,
 * whatever the interleaving: every record is there once, whole (its bytes say which thread
 * and which number it is, and the pieces are contiguous), each thread's records in the
 * order it wrote them, frames within their size, and the frame infos count the records of
 * their frame. With the writer on the caller's thread and on its compression threads. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/container.h"

#define NPROD 4
#define NREC 3000
#define FRAME (16u << 10)
#define SMALL 64          /* an unknown record type: 0x4000 | producer */
#define AUXB 1000         /* AUX bytes of an AUXTRACE record */

struct prod {
	struct pmt_ctr_writer *w;
	unsigned id;
	int rc;
};

static void fill_small(uint8_t *r, unsigned id, unsigned seq)
{
	memset(r, 0, SMALL);
	pmt_put_le32(r, 0x4000 | id);
	r[6] = SMALL;
	pmt_put_le32(r + 8, seq);
	for (unsigned k = 12; k < SMALL; k++)
		r[k] = (uint8_t)(seq * 31 + k + id);
}

static void *produce(void *arg)
{
	struct prod *p = arg;
	uint8_t r[2 * SMALL], hdr[48], aux[AUXB];

	for (unsigned seq = 0; seq < NREC && !p->rc; seq++) {
		if (seq % 7 == 3) {
			/* PERF_RECORD_AUXTRACE: size, offset (the seq), reference, idx, tid, cpu */
			struct pmt_ctr_piece v[3] = { { hdr, 48 }, { aux, 300 }, { aux + 300, AUXB - 300 } };

			memset(hdr, 0, sizeof(hdr));
			pmt_put_le32(hdr, 71);
			hdr[6] = 48;
			pmt_put_le64(hdr + 8, AUXB);
			pmt_put_le64(hdr + 16, seq);
			pmt_put_le32(hdr + 40, p->id);
			for (unsigned k = 0; k < AUXB; k++)
				aux[k] = (uint8_t)(seq + k * p->id);
			p->rc = pmt_ctr_writev(p->w, v, 3);
		} else if (seq % 5 == 1 && seq + 1 < NREC && (seq + 1) % 7 != 3) {
			fill_small(r, p->id, seq);
			fill_small(r + SMALL, p->id, seq + 1);
			p->rc = pmt_ctr_write(p->w, r, 2 * SMALL);
			seq++;
		} else {
			fill_small(r, p->id, seq);
			p->rc = pmt_ctr_write(p->w, r, SMALL);
		}
		if (!p->rc && seq % 500 == 499)
			p->rc = pmt_ctr_flush(p->w);
	}
	return NULL;
}

static uint8_t *write_all(unsigned threads, size_t *len)
{
	struct pmt_ctr_writer_opts o = PMT_OPTS_INIT(pmt_ctr_writer_opts, .level = 1,
						     .frame_size = FRAME, .threads = threads);
	struct pmt_diag d = PMT_DIAG_INIT;
	struct prod p[NPROD];
	pthread_t th[NPROD];
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	uint8_t pipe[16] = "PERFILE2";
	struct pmt_ctr_writer *w;

	assert_non_null(fp);
	assert_int_equal(pmt_ctr_writer_new(fp, &o, &w, &d), 0);
	pmt_put_le64(pipe + 8, 16);
	assert_int_equal(pmt_ctr_write(w, pipe, sizeof(pipe)), 0);
	assert_int_equal(pmt_ctr_flush(w), 0);
	for (unsigned i = 0; i < NPROD; i++) {
		p[i] = (struct prod){ w, i + 1, 0 };
		assert_int_equal(pthread_create(&th[i], NULL, produce, &p[i]), 0);
	}
	for (unsigned i = 0; i < NPROD; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(p[i].rc, 0);
	}
	assert_int_equal(pmt_ctr_writer_close(w, &d), 0);
	assert_int_equal(fclose(fp), 0);
	return (uint8_t *)buf;
}

struct counted {
	uint32_t records[4096];
	unsigned n;
};

static int note_records(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	struct counted *c = ctx;

	assert_true(c->n < 4096);
	c->records[c->n++] = fi->records;
	return 0;
}

static void check(unsigned threads)
{
	static struct counted infos;
	unsigned next[NPROD + 1] = { 0 }, frames = 0;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_reader *r;
	struct pmt_ctr_frame f;
	size_t len;
	uint8_t *buf = write_all(threads, &len);
	int rc;

	infos.n = 0;
	rc = pmt_ctr_frame_infos(buf, len, note_records, &infos);
	assert_int_equal(rc, (int)infos.n);
	assert_int_equal(pmt_ctr_reader_new(buf, len, "mem", &r, &d), 0);
	while ((rc = pmt_ctr_next(r, &f, &d)) > 0) {
		size_t at = f.index == 0 ? 16 : 0;
		uint32_t records = 0;

		assert_true(f.size <= FRAME);
		for (; at < f.size; records++) {
			const uint8_t *p = f.data + at;
			uint32_t type = pmt_le32(p), id, seq;
			size_t size = pmt_le16(p + 6);

			assert_true(at + 8 <= f.size && size >= 8);
			if (type == 71) {
				id = pmt_le32(p + 40);
				seq = (uint32_t)pmt_le64(p + 16);
				size += AUXB;
				for (unsigned k = 0; k < AUXB; k++)
					assert_int_equal(p[48 + k], (uint8_t)(seq + k * id));
			} else {
				id = type & 0xff;
				seq = pmt_le32(p + 8);
				assert_int_equal(type, 0x4000 | id);
				for (unsigned k = 12; k < SMALL; k++)
					assert_int_equal(p[k], (uint8_t)(seq * 31 + k + id));
			}
			assert_true(id >= 1 && id <= NPROD);
			assert_int_equal(seq, next[id]); /* each thread's records in its order */
			next[id]++;
			at += size;
		}
		assert_int_equal(at, f.size);
		assert_true(frames < infos.n);
		assert_int_equal(records, infos.records[frames]);
		frames++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(frames, infos.n);
	for (unsigned i = 1; i <= NPROD; i++)
		assert_int_equal(next[i], NREC);
	pmt_ctr_reader_free(r);
	free(buf);
}

static void test_one_thread_writer(void **state)
{
	(void)state;
	check(1);
}

static void test_pool_writer(void **state)
{
	(void)state;
	check(2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_thread_writer),
		cmocka_unit_test(test_pool_writer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
