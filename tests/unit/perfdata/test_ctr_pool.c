/* The writer's compression threads (threads > 1: whole frames compressed on a pool, their
 * AUX bytes walked there, written in order) against the writer on the caller's thread
 * (threads 1, the reference: zstd streaming, the frame infos' walk record by record):
 * the same SPE trace gives the same data frames (bytes, sizes, stream offsets) and the
 * same frame infos field for field, but for where each frame lands in the file, which each
 * file's own frames must say. The trace is made to exercise the walk's state across
 * frames: 4 CPUs' AUX bytes cut at arbitrary lengths (records span chunks and frames), two
 * CPUs whose records end in TIMESTAMP and two in END (a chunk that starts with END is
 * untimed only when the CPU's record was left open), chunks in two pieces, chunks of PAD
 * only, sideband records between, 16 KiB frames. */
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
#define NREC 1500
#define SPE_BYTES (4u << 20)

static uint8_t *spe[NCPU];

/* SPE records by hand (Arm ARM's packet layouts): PC address (0xB0 + 8 bytes), events
 * (0x52 + 2 bytes), then TIMESTAMP (0x71 + 8 bytes) on CPUs 0 and 1, END (0x01) on 2 and
 * 3; every 5th record PAD-filled by 7 bytes */
static int setup(void **state)
{
	(void)state;
	for (unsigned c = 0; c < NCPU; c++) {
		uint8_t *p;
		uint64_t k = 0;

		p = spe[c] = calloc(1, SPE_BYTES);
		assert_non_null(p);
		for (size_t at = 0; SPE_BYTES - at >= 32; k++) {
			p[at] = 0xB0;
			pmt_put_le64(p + at + 1, 0xffff800010000000ull + 4 * (k * 2654435761u % 4096));
			p[at + 9] = 0x52;
			pmt_put_le16(p + at + 10, (uint16_t)(k * 7));
			at += 12;
			if (c < 2) {
				p[at] = 0x71;
				pmt_put_le64(p + at + 1, 1000000 * (c + 1) + 10 * k);
				at += 9;
			} else {
				p[at++] = 0x01;
			}
			if (k % 5 == 0)
				at += 7;
		}
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (unsigned c = 0; c < NCPU; c++)
		free(spe[c]);
	return 0;
}

static uint8_t *write_trace(unsigned threads, size_t *len)
{
	struct pmt_ctr_writer_opts o = PMT_OPTS_INIT(pmt_ctr_writer_opts, .level = 1,
						     .frame_size = 16u << 10, .threads = threads);
	static const uint8_t zeros[64], end_only[1] = { 0x01 };
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_writer *w;
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	uint8_t pipe[16] = "PERFILE2", hdr[48], side[40];
	size_t pos[NCPU] = { 0 };

	assert_non_null(fp);
	assert_int_equal(pmt_ctr_writer_new(fp, &o, &w, &d), 0);
	pmt_put_le64(pipe + 8, 16);
	assert_int_equal(pmt_ctr_write(w, pipe, sizeof(pipe)), 0);
	assert_int_equal(pmt_ctr_flush(w), 0);
	for (unsigned i = 0; i < NREC; i++) {
		unsigned cpu = i % NCPU;
		size_t n = 1 + (i * 7919u) % 3000u, cut = n / 3;
		const uint8_t *p = spe[cpu] + pos[cpu];
		struct pmt_ctr_piece v[3] = { { hdr, sizeof(hdr) }, { p, n }, { NULL, 0 } };
		unsigned nv = 2;

		if (i % 17 == 5) {
			v[1] = (struct pmt_ctr_piece){ zeros, sizeof(zeros) };
			n = sizeof(zeros);
		} else if (i % 19 == 7) {
			v[1] = (struct pmt_ctr_piece){ end_only, 1 };
			n = 1;
		} else {
			pos[cpu] += n;
			assert_true(pos[cpu] < SPE_BYTES);
			if (i % 13 == 3 && cut) { /* a ring that wrapped: two pieces */
				v[1].len = cut;
				v[2] = (struct pmt_ctr_piece){ p + cut, n - cut };
				nv = 3;
			}
		}
		ctr_test_auxtrace(hdr, n, pos[cpu], 0, 0, cpu);
		assert_int_equal(pmt_ctr_writev(w, v, nv), 0);
		if (i % 11 == 0) { /* PERF_RECORD_COMM-shaped sideband */
			memset(side, 0, sizeof(side));
			pmt_put_le32(side, 3);
			side[6] = sizeof(side);
			pmt_put_le32(side + 8, i);
			assert_int_equal(pmt_ctr_write(w, side, sizeof(side)), 0);
		}
	}
	assert_int_equal(pmt_ctr_writer_close(w, &d), 0);
	assert_int_equal(fclose(fp), 0);
	return (uint8_t *)buf;
}

static void test_pool_equals_one_thread(void **state)
{
	static struct ctr_test_infos want, got;
	size_t wlen, glen;
	uint8_t *wbuf = write_trace(1, &wlen);
	unsigned flags = 0, conts = 0;
	int rc;

	(void)state;
	want.n = 0;
	rc = pmt_ctr_frame_infos(wbuf, wlen, ctr_test_note_info, &want);
	assert_int_equal(rc, (int)want.n);
	assert_true(want.n > 20);
	for (unsigned i = 0; i < want.n; i++) {
		flags |= want.v[i].flags;
		conts += want.v[i].cont_mask != 0;
	}
	/* the trace is what it says: timed and untimed frames, records across frames */
	assert_true(flags & PMT_CTR_FI_TIMED);
	assert_true(flags & PMT_CTR_FI_UNTIMED);
	assert_true(flags & PMT_CTR_FI_SIDEBAND);
	assert_true(conts > 10);
	for (unsigned threads = 2; threads <= 3; threads++) {
		struct pmt_ctr_reader *rw, *rg;
		struct pmt_ctr_frame fw, fg;
		struct pmt_diag d = PMT_DIAG_INIT;
		unsigned k = 0;
		uint8_t *gbuf = write_trace(threads, &glen);
		int a, b;

		got.n = 0;
		rc = pmt_ctr_frame_infos(gbuf, glen, ctr_test_note_info, &got);
		assert_int_equal(rc, (int)got.n);
		assert_int_equal(got.n, want.n);
		assert_int_equal(pmt_ctr_reader_new(wbuf, wlen, "want", &rw, &d), 0);
		assert_int_equal(pmt_ctr_reader_new(gbuf, glen, "got", &rg, &d), 0);
		while ((a = pmt_ctr_next(rw, &fw, &d)) > 0) {
			struct pmt_ctr_frame_info x = want.v[k], y = got.v[k];

			b = pmt_ctr_next(rg, &fg, &d);
			assert_int_equal(b, 1);
			assert_int_equal(fg.index, fw.index);
			assert_int_equal(fg.size, fw.size);
			assert_memory_equal(fg.data, fw.data, fw.size);
			assert_int_equal(fg.stream_offset, fw.stream_offset);
			/* each info names its own file's frame */
			assert_int_equal(y.offset, fg.offset);
			assert_int_equal(y.size, fg.csize);
			assert_int_equal(y.index, x.index);
			assert_int_equal(y.flags, x.flags);
			assert_int_equal(y.records, x.records);
			assert_int_equal(y.auxtraces, x.auxtraces);
			assert_int_equal(y.aux_bytes, x.aux_bytes);
			assert_int_equal(y.cpu_mask, x.cpu_mask);
			assert_int_equal(y.cont_mask, x.cont_mask);
			assert_int_equal(y.ts_lo, x.ts_lo);
			assert_int_equal(y.ts_hi, x.ts_hi);
			assert_int_equal(y.cpu_lo, x.cpu_lo);
			assert_int_equal(y.cpu_hi, x.cpu_hi);
			assert_int_equal(y.stream_offset, x.stream_offset);
			assert_int_equal(y.stream_size, x.stream_size);
			assert_int_equal(y.dropped, x.dropped);
			k++;
		}
		assert_int_equal(a, 0);
		assert_int_equal(pmt_ctr_next(rg, &fg, &d), 0);
		assert_int_equal(k, want.n);
		assert_true(pmt_ctr_stats(rg)->has_index);
		pmt_ctr_reader_free(rw);
		pmt_ctr_reader_free(rg);
		free(gbuf);
	}
	free(wbuf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_equals_one_thread),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
