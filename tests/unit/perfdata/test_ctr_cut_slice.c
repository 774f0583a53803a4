/* A slice (pmt_ctr_slice) of a container cut short, as a killed recording leaves it (no
 * index, no seek table): the frames before the cut are walked by their headers and sliced
 * by their infos as in the whole file, instead of the whole file being read. 4 CPUs' AUX
 * chunks of whole SPE records (PC, TIMESTAMP), 16 chunks of a CPU at a time, 16 KiB frames; the slice keeps the
 * frames with CPU 0. Cut inside a data frame, between a frame and its info (the frame has
 * lost its info: it is read, with the frames before it of every CPU), and inside an info.
 * Each time: frames are passed over, every frame read is the whole file's frame at that
 * offset, byte for byte, at its stream offset; every frame with CPU 0 before the cut is
 * read; the read ends with the cut reported (or, cut between frames, without the index). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/container.h"

#include "ctr_test_util.h"

#define NCPU 4
#define NCHUNK 400
#define PER_CHUNK 100 /* SPE records of 18 bytes */
#define RUN 16        /* chunks of one CPU in a row: two frames or so */

static uint8_t *make(size_t *len)
{
	struct pmt_ctr_writer_opts o = PMT_OPTS_INIT(pmt_ctr_writer_opts, .level = 1,
						     .frame_size = 16u << 10, .threads = 1);
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_writer *w;
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	uint8_t pipe[16] = "PERFILE2", rec[48 + PER_CHUNK * 18];

	assert_non_null(fp);
	assert_int_equal(pmt_ctr_writer_new(fp, &o, &w, &d), 0);
	pmt_put_le64(pipe + 8, 16);
	assert_int_equal(pmt_ctr_write(w, pipe, sizeof(pipe)), 0);
	assert_int_equal(pmt_ctr_flush(w), 0);
	for (unsigned i = 0; i < NCHUNK; i++) {
		uint8_t *p = rec + 48;

		/* PERF_RECORD_AUXTRACE: type 71, size 48, AUX size, offset, ..., cpu */
		memset(rec, 0, 48);
		pmt_put_le32(rec, 71);
		rec[6] = 48;
		pmt_put_le64(rec + 8, PER_CHUNK * 18);
		pmt_put_le64(rec + 16, (uint64_t)i * PER_CHUNK * 18);
		pmt_put_le32(rec + 40, (i / RUN) % NCPU);
		for (unsigned k = 0; k < PER_CHUNK; k++, p += 18) {
			p[0] = 0xB0; /* PC address packet */
			pmt_put_le64(p + 1, 0xffff800010000000ull + 4 * ((i * 131 + k * 7) % 8192));
			p[9] = 0x71; /* TIMESTAMP */
			pmt_put_le64(p + 10, 1000000 + (uint64_t)i * PER_CHUNK + k);
		}
		assert_int_equal(pmt_ctr_write(w, rec, sizeof(rec)), 0);
	}
	assert_int_equal(pmt_ctr_writer_close(w, &d), 0);
	assert_int_equal(fclose(fp), 0);
	return (uint8_t *)buf;
}

static bool keep_cpu0(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	(void)ctx;
	return fi->cpu_mask & 1;
}

/* The whole file's frame at offset, or NULL */
static const struct pmt_ctr_frame_info *info_at(const struct ctr_test_infos *in, uint64_t offset)
{
	for (unsigned i = 0; i < in->n; i++)
		if (in->v[i].offset == offset)
			return &in->v[i];
	return NULL;
}

static void check_cut(const uint8_t *whole, size_t wlen, const struct ctr_test_infos *in, size_t cut,
		      uint64_t must_read)
{
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_reader *r, *ref;
	struct pmt_ctr_frame f, g;
	unsigned cpu0_read = 0, cpu0_before = 0, read_must = 0;
	int rc;

	for (unsigned i = 0; i < in->n; i++)
		cpu0_before += (in->v[i].cpu_mask & 1) && in->v[i].offset + in->v[i].size <= cut;
	assert_int_equal(pmt_ctr_reader_new(whole, cut, "cut", &r, &d), 0);
	rc = pmt_ctr_slice(r, keep_cpu0, NULL);
	assert_true(rc > 10); /* before: 0, the whole file read */
	while ((rc = pmt_ctr_next(r, &f, &d)) > 0) {
		const struct pmt_ctr_frame_info *fi = info_at(in, f.offset);
		bool found = false;

		assert_non_null(fi);
		assert_int_equal(f.stream_offset, fi->stream_offset);
		cpu0_read += (fi->cpu_mask & 1) != 0;
		read_must += f.offset == must_read;
		/* the same bytes as the whole file's frame there */
		assert_int_equal(pmt_ctr_reader_new(whole, wlen, "whole", &ref, &d), 0);
		while (pmt_ctr_next(ref, &g, &d) > 0) {
			if (g.offset != f.offset)
				continue;
			assert_int_equal(g.size, f.size);
			assert_memory_equal(g.data, f.data, f.size);
			found = true;
			break;
		}
		pmt_ctr_reader_free(ref);
		assert_true(found);
	}
	if (must_read) { /* cut between frames: nothing is cut short, the end is missing */
		assert_int_equal(rc, 0);
		assert_false(pmt_ctr_stats(r)->has_index);
	} else {
		assert_int_equal(rc, -PMT_ENEED_MORE);
		assert_true(pmt_ctr_stats(r)->truncated);
	}
	assert_int_equal(cpu0_read, cpu0_before);
	if (must_read)
		assert_int_equal(read_must, 1);
	pmt_ctr_reader_free(r);
}

static void test_cut_slices(void **state)
{
	static struct ctr_test_infos in;
	size_t len;
	uint8_t *buf = make(&len);
	const struct pmt_ctr_frame_info *mid, *last_cpu1 = NULL;
	int rc;

	(void)state;
	in.n = 0;
	rc = pmt_ctr_frame_infos(buf, len, ctr_test_note_info, &in);
	assert_int_equal(rc, (int)in.n);
	assert_true(in.n > 40);
	mid = &in.v[in.n * 2 / 3];
	/* a frame without CPU 0 (the one that loses its info to the cut is read all the
	 * same) */
	for (unsigned i = in.n / 2; i < in.n && !last_cpu1; i++)
		if (!(in.v[i].cpu_mask & 1))
			last_cpu1 = &in.v[i];
	/* the whole file slices as the cut ones are checked against */
	check_cut(buf, len, &in, mid->offset + mid->size / 2, 0);
	if (last_cpu1)
		check_cut(buf, len, &in, last_cpu1->offset + last_cpu1->size, last_cpu1->offset);
	check_cut(buf, len, &in, mid->offset + mid->size + 20, 0);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_slices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
