/* pmt_ctr_reader_threads: a container read with frames decompressed ahead on threads gives
 * what the reader without threads gives, call by call: the same frames (index, offset,
 * sizes, bytes), the same damage (return codes and messages) and the same statistics, on
 * a whole file, on damaged copies (a flipped payload bit, a flipped frame-header bit, a
 * cut), when the threads start in the middle of a read, and with a slice passing frames
 * over. The reader without threads is the reference. */
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

#define NREC 3000

static uint8_t *make(size_t *len)
{
	return ctr_test_make(len, NREC, 31, 5, 1, NULL);
}

/* One reader's answers, as text: a line per call. */
static char *trace(const uint8_t *buf, size_t len, unsigned threads, unsigned start_after)
{
	struct pmt_ctr_reader *r;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_frame f;
	char *out = NULL;
	size_t olen = 0;
	FILE *fp = open_memstream(&out, &olen);
	const struct pmt_ctr_stats *st;
	int rc;

	assert_int_equal(pmt_ctr_reader_new(buf, len, "t.pmt", &r, &d), 0);
	for (unsigned n = 0;; n++) {
		if (n == start_after)
			assert_int_equal(pmt_ctr_reader_threads(r, threads), 0);
		d = (struct pmt_diag)PMT_DIAG_INIT;
		rc = pmt_ctr_next(r, &f, &d);
		if (rc == 0)
			break;
		if (rc < 0) {
			fprintf(fp, "rc %d at %llu: %s\n", rc, (unsigned long long)d.offset, d.msg);
			continue;
		}
		uint64_t h = 1469598103934665603ull;

		for (size_t i = 0; i < f.size; i++)
			h = (h ^ f.data[i]) * 1099511628211ull;
		fprintf(fp, "frame %u at %llu: %u -> %zu, %016llx\n", f.index,
			(unsigned long long)f.offset, f.csize, f.size, (unsigned long long)h);
	}
	st = pmt_ctr_stats(r);
	fprintf(fp, "frames %u damaged %u in %llu out %llu lost %llu truncated %u skipped %u\n",
		st->frames, st->damaged, (unsigned long long)st->bytes_in,
		(unsigned long long)st->bytes_out, (unsigned long long)st->lost_bytes,
		st->truncated, st->skipped);
	pmt_ctr_reader_free(r);
	fclose(fp);
	return out;
}

static void same_as_serial(const uint8_t *buf, size_t len)
{
	char *want = trace(buf, len, 0, 0);

	for (unsigned t = 1; t <= 5; t += 2)
		for (unsigned start = 0; start <= 3; start += 3) {
			char *got = trace(buf, len, t, start);

			assert_string_equal(got, want);
			free(got);
		}
	free(want);
}

/* offset of the n-th zstd frame */
static size_t zstd_frame(const uint8_t *b, size_t len, unsigned n)
{
	for (size_t p = 0; p + 4 <= len; p++)
		if (pmt_le32(b + p) == 0xFD2FB528u && !n--)
			return p;
	fail();
	return 0;
}

static void whole_and_damaged(void **state)
{
	size_t len;
	uint8_t *buf = make(&len);
	uint8_t *copy = malloc(len);
	char *ref;

	(void)state;
	ref = trace(buf, len, 0, 0);
	assert_true(strstr(ref, "frame 20 ") != NULL); /* many frames */
	free(ref);
	same_as_serial(buf, len);
	/* a payload bit: that frame's checksum fails, the others decode */
	memcpy(copy, buf, len);
	copy[zstd_frame(buf, len, 7) + 40] ^= 0x10;
	ref = trace(copy, len, 0, 0);
	assert_true(strstr(ref, "rc ") != NULL);
	free(ref);
	same_as_serial(copy, len);
	/* a frame header bit, and a cut inside a frame */
	memcpy(copy, buf, len);
	copy[zstd_frame(buf, len, 4) + 4] ^= 0x80;
	same_as_serial(copy, len);
	same_as_serial(buf, zstd_frame(buf, len, 12) + 100);
	free(copy);
	free(buf);
}

static bool keep_odd(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	(void)ctx;
	return fi->index % 2;
}

static void sliced(void **state)
{
	size_t len;
	uint8_t *buf = make(&len);
	struct pmt_ctr_reader *r;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_frame f;
	uint64_t off[2][256];
	unsigned n[2] = { 0, 0 };

	(void)state;
	/* the same frames pass a slice with and without threads */
	for (unsigned t = 0; t < 2; t++) {
		assert_int_equal(pmt_ctr_reader_new(buf, len, "t.pmt", &r, &d), 0);
		assert_true(pmt_ctr_slice(r, keep_odd, NULL) > 5);
		assert_int_equal(pmt_ctr_reader_threads(r, 2 * t), 0);
		while (pmt_ctr_next(r, &f, &d) == 1 && n[t] < 256)
			off[t][n[t]++] = f.offset;
		assert_true(pmt_ctr_stats(r)->skipped > 5);
		pmt_ctr_reader_free(r);
	}
	assert_true(n[0] > 5);
	assert_int_equal(n[0], n[1]);
	assert_memory_equal(off[0], off[1], n[0] * sizeof(off[0][0]));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_and_damaged),
		cmocka_unit_test(sliced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
