/* pmt_ctr_frame_pin: a pinned frame's bytes stay as they were while the reader goes on
 * (without threads, with threads decompressing ahead, and when the threads change in the
 * middle of a read), and pinning changes nothing the reader gives: every frame hashes as
 * in a read without pins. Frames are held several at a time, some by two pins, released
 * oldest first, as the SPE session releases AUX chunks. The reference is a plain read. */
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
#define MAXF 512
#define HOLD 6 /* frames pinned at once */

static uint64_t hash(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

struct held {
	struct pmt_ctr_pin *pin;
	const uint8_t *data;
	size_t size;
	uint64_t h;
	unsigned refs;
};

static void release(struct pmt_ctr_reader *r, struct held *h)
{
	/* the bytes are those the frame had when it was read */
	assert_int_equal(hash(h->data, h->size), h->h);
	while (h->refs--)
		pmt_ctr_frame_unpin(r, h->pin);
}

static unsigned plain(const uint8_t *buf, size_t len, uint64_t *want)
{
	struct pmt_ctr_reader *r;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_frame f;
	unsigned n = 0;

	assert_int_equal(pmt_ctr_reader_new(buf, len, "t.pmt", &r, &d), 0);
	assert_null(pmt_ctr_frame_pin(r)); /* no frame yet */
	while (pmt_ctr_next(r, &f, &d) == 1 && n < MAXF)
		want[n++] = hash(f.data, f.size);
	pmt_ctr_reader_free(r);
	return n;
}

static void pinned_read(const uint8_t *buf, size_t len, unsigned threads, unsigned switch_at,
			const uint64_t *want, unsigned nwant)
{
	struct pmt_ctr_reader *r;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_frame f;
	struct held h[HOLD];
	unsigned n = 0, nh = 0, pinned = 0;

	assert_int_equal(pmt_ctr_reader_new(buf, len, "t.pmt", &r, &d), 0);
	assert_int_equal(pmt_ctr_reader_threads(r, threads), 0);
	while (pmt_ctr_next(r, &f, &d) == 1) {
		assert_true(n < nwant);
		assert_int_equal(hash(f.data, f.size), want[n]);
		if (n % 3 != 1) {
			if (nh == HOLD) {
				release(r, &h[0]);
				memmove(h, h + 1, (HOLD - 1) * sizeof(h[0]));
				nh--;
			}
			h[nh] = (struct held){ pmt_ctr_frame_pin(r), f.data, f.size, want[n], 1 };
			assert_non_null(h[nh].pin);
			if (n % 3 == 0) {
				/* a second chunk of the same frame: the same pin, counted */
				assert_ptr_equal(pmt_ctr_frame_pin(r), h[nh].pin);
				h[nh].refs++;
			}
			nh++;
			pinned++;
		}
		if (n == switch_at) /* the threads go, with the frame held: pins keep theirs */
			assert_int_equal(pmt_ctr_reader_threads(r, threads ? 0 : 2), 0);
		n++;
	}
	assert_int_equal(n, nwant);
	assert_true(pinned > 20);
	assert_null(pmt_ctr_frame_pin(r)); /* at the end no frame is held */
	for (unsigned i = 0; i < nh; i++)
		release(r, &h[i]);
	pmt_ctr_reader_free(r);
}

static void pins_hold(void **state)
{
	size_t len;
	/* 2 writer threads: frames that state their size, expanded into buffers of that size */
	uint8_t *buf = ctr_test_make(&len, NREC, 31, 5, 2, NULL);
	uint64_t want[MAXF];
	unsigned n = plain(buf, len, want);

	(void)state;
	assert_true(n > 30 && n < MAXF);
	for (unsigned t = 0; t <= 3; t++)
		pinned_read(buf, len, t, UINT32_MAX, want, n);
	/* threads started and stopped while frames are pinned, the held one too */
	pinned_read(buf, len, 0, 9, want, n);
	pinned_read(buf, len, 1, 9, want, n);
	pinned_read(buf, len, 3, 10, want, n);
	free(buf);
}

/* One writer thread streams its frames without their size: the 4 KiB frames are expanded
 * into a buffer of a frame's default size, which a pin would hold for a few bytes; the
 * caller is told to copy instead. */
static void pins_refused(void **state)
{
	size_t len;
	uint8_t *buf = ctr_test_make(&len, NREC, 31, 5, 1, NULL);
	struct pmt_ctr_reader *r;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_frame f;
	unsigned n = 0;

	(void)state;
	assert_int_equal(pmt_ctr_reader_new(buf, len, "t.pmt", &r, &d), 0);
	while (pmt_ctr_next(r, &f, &d) == 1) {
		assert_true(f.size <= 8192);
		assert_null(pmt_ctr_frame_pin(r));
		n++;
	}
	assert_true(n > 30);
	pmt_ctr_reader_free(r);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pins_hold),
		cmocka_unit_test(pins_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
