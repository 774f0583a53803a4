/* AUX bytes straight into a container (pmt_perf_writer_write_auxtrace_ctr, the recorder's
 * path: one or two pieces of a ring, never joined) against the long way, the bytes joined
 * and written through the perf.data writer's stream (pmt_perf_writer_write_auxtrace).
 * The independent check is that way's output: the same records in the same order, each
 * AUXTRACE padded to 8 with zeros as perf's reader expects, and the same frames, so the two
 * container files are equal byte for byte (zstd is deterministic on one thread). */
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
#include "pmutrace/perfdata.h"

#define FRAME 4096 /* small frames: several AUX records cross a frame's end */

struct out {
	char *buf;
	size_t len;
	FILE *fp, *stream;
	struct pmt_ctr_writer *ctr;
	struct pmt_perf_writer *w;
};

static void out_open(struct out *o)
{
	struct pmt_ctr_writer_opts co = { .sz = sizeof(co), .level = 1, .frame_size = FRAME,
					  .threads = 1 };
	struct pmt_perf_writer_opts wo = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = 1);
	struct pmt_diag d = PMT_DIAG_INIT;
	uint8_t attr[PMT_ATTR_SIZE_MAX];
	uint64_t id = 7;

	memset(o, 0, sizeof(*o));
	o->fp = open_memstream(&o->buf, &o->len);
	assert_non_null(o->fp);
	assert_int_equal(pmt_ctr_writer_new(o->fp, &co, &o->ctr, &d), 0);
	o->stream = pmt_perf_container_stream(o->ctr);
	assert_non_null(o->stream);
	assert_int_equal(pmt_perf_writer_new(o->stream, &wo, &o->w), 0);
	pmt_attr_init_spe(attr, 8, true);
	assert_int_equal(pmt_perf_writer_add_attr(o->w, attr, PMT_ATTR_SIZE_MAX, &id, 1, "spe"), 0);
}

static void out_close(struct out *o)
{
	struct pmt_diag d = PMT_DIAG_INIT;

	assert_int_equal(pmt_perf_writer_close(o->w), 0);
	assert_int_equal(fclose(o->stream), 0);
	assert_int_equal(pmt_ctr_writer_close(o->ctr, &d), 0);
	assert_int_equal(fclose(o->fp), 0);
}

/* a record of the data ring between AUX records: FINISHED_ROUND */
static void round_rec(struct out *o)
{
	static const uint8_t round[8] = { 68, 0, 0, 0, 0, 0, 8, 0 };

	assert_int_equal(pmt_perf_writer_write_record(o->w, round, sizeof(round)), 0);
}

static void test_pieces_as_joined(void **state)
{
	/* lengths: aligned, odd (padding), one piece, a wrap, larger than a frame, empty b */
	static const size_t alen[] = { 64, 13, 1000, 3000, 9000, 5, 4093, 0 };
	static const size_t blen[] = { 0, 27, 0, 2100, 777, 3, 1, 40 };
	enum { N = sizeof(alen) / sizeof(alen[0]) };
	struct out j, v;
	uint8_t *ring = malloc(16384), *joined = malloc(16384);
	uint64_t offset = 0;

	(void)state;
	for (size_t i = 0; i < 16384; i++)
		ring[i] = (uint8_t)(i * 131 + 7);
	out_open(&j);
	out_open(&v);
	round_rec(&j);
	round_rec(&v);
	/* the stream's way puts the metadata before the first AUX data in a frame of its own;
	 * the recorder ends that frame itself (capture_io.c's flush_frame) */
	assert_int_equal(fflush(v.stream), 0);
	assert_int_equal(pmt_ctr_flush(v.ctr), 0);
	for (unsigned i = 0; i < N; i++) {
		const uint8_t *a = ring + 16384 - alen[i], *b = ring;

		memcpy(joined, a, alen[i]);
		memcpy(joined + alen[i], b, blen[i]);
		assert_int_equal(pmt_perf_writer_write_auxtrace(j.w, joined, alen[i] + blen[i],
								offset, 100 + i, 0, 1, 2), 0);
		assert_int_equal(pmt_perf_writer_write_auxtrace_ctr(v.w, v.ctr, a, alen[i], b,
								    blen[i], offset, 100 + i, 0,
								    1, 2), 0);
		offset += alen[i] + blen[i];
		if (i % 2) {
			round_rec(&j);
			round_rec(&v);
		}
	}
	round_rec(&j);
	round_rec(&v);
	out_close(&j);
	out_close(&v);
	assert_true(j.len > 0);
	assert_int_equal(v.len, j.len);
	assert_memory_equal(v.buf, j.buf, j.len);
	free(j.buf);
	free(v.buf);
	free(ring);
	free(joined);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces_as_joined),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
