/* The container writer's policy when compression cannot keep up (pmt_ctr_writer_opts.backlog)
 * with a model compressor that takes 32 KiB per record handed over
 * (PMT_CTR_TEST_COMPRESS_RATE), so that what each policy does is known exactly: 32 AUXTRACE
 * records of 64 KiB (header and AUX bytes), a bound of 256 KiB, 512 KiB frames (8 records;
 * zstd ends a frame with everything compressed, so the backlog starts at 0 in each).
 *
 * By hand, in each frame: before record k the backlog is 64 + 32 (k - 2) KiB after the
 * model's 32 KiB, so the 8th record (224 + 64 > 256) is the first that does not fit.
 *  - block: it waits one step (224 - 32 + 64 = 256 fits): 4 waits in 4 frames, all written;
 *  - drop: it is dropped and the next one fits (192 + 64), so a frame holds records 1-7 and
 *    9 of its run: drops are records 8, 17 and 26; the 4th frame (28-32) has none: 3 drops,
 *    196608 bytes, 29 records in the file, one drop in each of the first 3 frame infos;
 *  - lower (level 3): frame 1 passes the bound at level 3 (no wait), frame 2 is at level 2
 *    and passes it, frames 3 and 4 at level 1, where the 8th record waits as in block: 3
 *    frames below level 3, lowest 1, 2 waits.
 * Each is read back: the records in the frames, the stats frame at the end and the frame
 * infos' counts.
 *
 * lower goes back up, with hysteresis: 16 records of 64 KiB (frames 1 and 2 pass the bound:
 * level 3, 2, then 1); 44 of 44 KiB (11 a frame, frames 3-6: the backlog before record k
 * is 12 (k - 1) + 44 KiB, 164 KiB at the 11th: under the bound, over its half, so no
 * step either way); then 640 of 8 KiB (3 fill frame 6, then 64 a frame; the backlog stays
 * at 8 + 8 KiB): frames 7-10 at level 1, PMT_CTR_RAISE_AFTER (4) calm frames, so frames
 * 11-14 at level 2, 4 more, frames 15-16 at level 3: 2 raises, 13 frames below level 3,
 * no waits. */
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

#define NREC 32
#define REC (64u << 10)
#define AUX (REC - 48)

struct expect {
	uint32_t policy;
	uint64_t waits, dropped, dropped_bytes;
	uint32_t lowered_frames;
	int level_min;
	uint32_t frame_drops[5]; /* frame infos: the header's frame, then 4 (or 5) data frames */
};

/* A writer with the model compressor (32 KiB a record), the pipe header in a frame of its
 * own */
static struct pmt_ctr_writer *model_writer(const struct pmt_ctr_writer_opts *o, FILE *fp)
{
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_writer *w;
	uint8_t pipe[16] = "PERFILE2";

	assert_non_null(fp);
	setenv("PMT_CTR_TEST_COMPRESS_RATE", "32768", 1);
	assert_int_equal(pmt_ctr_writer_new(fp, o, &w, &d), 0);
	unsetenv("PMT_CTR_TEST_COMPRESS_RATE");
	pmt_put_le64(pipe + 8, 16);
	assert_int_equal(pmt_ctr_write(w, pipe, sizeof(pipe)), 0);
	assert_int_equal(pmt_ctr_flush(w), 0);
	return w;
}

static uint8_t *record(uint32_t policy, size_t *len, struct pmt_ctr_writer_stats *ws)
{
	struct pmt_ctr_writer_opts o = { .sz = sizeof(o), .level = 3, .frame_size = 512u << 10,
					 .threads = 1, .backlog = (uint8_t)policy,
					 .backlog_max = 256u << 10 };
	static uint8_t aux[AUX];
	struct pmt_diag d = PMT_DIAG_INIT;
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	struct pmt_ctr_writer *w = model_writer(&o, fp);
	uint8_t hdr[48];

	for (unsigned i = 0; i < NREC; i++) {
		struct pmt_ctr_piece v[2] = { { hdr, sizeof(hdr) }, { aux, sizeof(aux) } };

		/* PERF_RECORD_AUXTRACE: type 71, size 48, then size, offset, reference, idx,
		 * tid, cpu */
		memset(hdr, 0, sizeof(hdr));
		pmt_put_le32(hdr, 71);
		hdr[6] = 48;
		pmt_put_le64(hdr + 8, AUX);
		pmt_put_le64(hdr + 16, (uint64_t)i * AUX);
		assert_int_equal(pmt_ctr_writev(w, v, 2), 0);
	}
	pmt_ctr_writer_stats(w, ws);
	assert_int_equal(pmt_ctr_writer_close(w, &d), 0);
	assert_int_equal(fclose(fp), 0);
	return (uint8_t *)buf;
}

struct drops {
	uint32_t n;
	uint32_t per_frame[8];
};

static int note_drops(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	struct drops *d = ctx;

	if (d->n < 8)
		d->per_frame[d->n] = fi->dropped;
	d->n++;
	return 0;
}

static void check(const struct expect *e)
{
	struct pmt_ctr_writer_stats ws;
	struct pmt_ctr_reader *r;
	struct pmt_ctr_frame f;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct drops dr = { 0 };
	const struct pmt_ctr_stats *st;
	size_t len;
	uint8_t *buf = record(e->policy, &len, &ws);
	uint64_t records = 0, offset_next = 0;
	int rc;

	assert_int_equal(ws.policy, e->policy);
	assert_int_equal(ws.level, 3);
	assert_int_equal(ws.waits, e->waits);
	assert_int_equal(ws.wait_ns, 0); /* the model does not sleep */
	assert_int_equal(ws.dropped, e->dropped);
	assert_int_equal(ws.dropped_bytes, e->dropped_bytes);
	assert_int_equal(ws.lowered_frames, e->lowered_frames);
	assert_int_equal(ws.level_min, e->level_min);

	assert_int_equal(pmt_ctr_reader_new(buf, len, "mem", &r, &d), 0);
	while ((rc = pmt_ctr_next(r, &f, &d)) > 0) {
		size_t at = f.index == 0 ? 16 : 0;

		/* the records are whole and their AUX offsets grow: drops are whole records */
		for (; at + 48 <= f.size; at += 48 + AUX) {
			uint64_t off = pmt_le64(f.data + at + 16);

			assert_int_equal(pmt_le32(f.data + at), 71);
			assert_true(off >= offset_next);
			offset_next = off + AUX;
			records++;
		}
		assert_int_equal(at, f.size);
	}
	assert_int_equal(rc, 0);
	assert_int_equal(records, NREC - e->dropped);
	st = pmt_ctr_stats(r);
	assert_true(st->has_writer_stats);
	assert_memory_equal(&st->writer_stats, &ws, sizeof(ws));
	assert_int_equal(st->dropped_in_frames, e->dropped);
	pmt_ctr_reader_free(r);
	rc = pmt_ctr_frame_infos(buf, len, note_drops, &dr);
	assert_int_equal(rc, (int)dr.n);
	assert_int_equal(dr.n, 5); /* the header's frame and 4 data frames */
	for (unsigned i = 0; i < 5 && i < dr.n; i++)
		assert_int_equal(dr.per_frame[i], e->frame_drops[i]);
	free(buf);
}

static void test_block(void **state)
{
	static const struct expect e = { .policy = PMT_CTR_BACKLOG_BLOCK, .waits = 4,
					 .level_min = 3 };

	(void)state;
	check(&e);
}

static void test_drop(void **state)
{
	static const struct expect e = { .policy = PMT_CTR_BACKLOG_DROP, .dropped = 3,
					 .dropped_bytes = 3 * REC, .level_min = 3,
					 .frame_drops = { 0, 1, 1, 1, 0 } };

	(void)state;
	check(&e);
}

static void test_lower(void **state)
{
	static const struct expect e = { .policy = PMT_CTR_BACKLOG_LOWER, .waits = 2,
					 .lowered_frames = 3, .level_min = 1 };

	(void)state;
	check(&e);
}

static void test_lower_raises_back(void **state)
{
	struct pmt_ctr_writer_opts o = PMT_OPTS_INIT(pmt_ctr_writer_opts, .level = 3,
						     .frame_size = 512u << 10, .threads = 1,
						     .backlog = PMT_CTR_BACKLOG_LOWER,
						     .backlog_max = 256u << 10);
	static uint8_t aux[AUX];
	struct pmt_ctr_writer_stats ws;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct drops dr = { 0 };
	char *buf = NULL;
	size_t len;
	FILE *fp = open_memstream(&buf, &len);
	struct pmt_ctr_writer *w = model_writer(&o, fp);
	uint8_t hdr[48];
	int rc;

	(void)state;
	for (unsigned i = 0; i < 16 + 44 + 640; i++) {
		size_t n = i < 16 ? AUX : i < 16 + 44 ? (44u << 10) - 48 : (8u << 10) - 48;
		struct pmt_ctr_piece v[2] = { { hdr, sizeof(hdr) }, { aux, n } };

		memset(hdr, 0, sizeof(hdr));
		pmt_put_le32(hdr, 71);
		hdr[6] = 48;
		pmt_put_le64(hdr + 8, n);
		assert_int_equal(pmt_ctr_writev(w, v, 2), 0);
	}
	pmt_ctr_writer_stats(w, &ws);
	assert_int_equal(pmt_ctr_writer_close(w, &d), 0);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(ws.raised, 2);
	assert_int_equal(ws.lowered_frames, 13);
	assert_int_equal(ws.level_min, 1);
	assert_int_equal(ws.waits, 0);
	rc = pmt_ctr_frame_infos(buf, len, note_drops, &dr);
	assert_int_equal(rc, 17); /* the header's frame and 16 data frames */
	{
		/* the file keeps the count */
		struct pmt_ctr_reader *r;
		struct pmt_ctr_frame f;

		assert_int_equal(pmt_ctr_reader_new(buf, len, "mem", &r, &d), 0);
		while (pmt_ctr_next(r, &f, &d) > 0)
			;
		assert_true(pmt_ctr_stats(r)->has_writer_stats);
		assert_int_equal(pmt_ctr_stats(r)->writer_stats.raised, 2);
		pmt_ctr_reader_free(r);
	}
	free(buf);
}

/* without the model, on one thread (compression on the caller's thread): never behind */
static void test_one_thread(void **state)
{
	struct pmt_ctr_writer_opts o = { .sz = sizeof(o), .threads = 1,
					 .backlog = PMT_CTR_BACKLOG_DROP, .backlog_max = 1 };
	struct pmt_ctr_writer_stats ws;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_writer *w;
	char *buf = NULL;
	size_t len;
	FILE *fp = open_memstream(&buf, &len);
	uint8_t rec[64] = { 0 };

	(void)state;
	assert_int_equal(pmt_ctr_writer_new(fp, &o, &w, &d), 0);
	rec[6] = sizeof(rec);
	for (int i = 0; i < 100; i++)
		assert_int_equal(pmt_ctr_write(w, rec, sizeof(rec)), 0);
	pmt_ctr_writer_stats(w, &ws);
	assert_int_equal(ws.dropped + ws.waits, 0);
	assert_int_equal(pmt_ctr_writer_close(w, &d), 0);
	fclose(fp);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block),
		cmocka_unit_test(test_drop),
		cmocka_unit_test(test_lower),
		cmocka_unit_test(test_lower_raises_back),
		cmocka_unit_test(test_one_thread),
	};

	unsetenv("PMT_CTR_TEST_COMPRESS_RATE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
