/* Issue 9's damage tests on one container of ~60 data frames (4 KiB frames with their
 * infos, index, writer stats and seek table): cut at every frame boundary (data frames,
 * infos, index, seek table) and at 400 pseudo-random offsets; every bit of the file header,
 * of a data frame's header, of the index and of the seek table flipped in turn; one bit of
 * each data frame's payload. The invariant each time: every frame the reader gives is the
 * whole file's frame at that file offset, byte for byte and at its stream offset; a frame
 * not given was reported (its file offset in the message); a cut at a boundary reports
 * nothing and keeps every frame before it, a cut inside a frame reports it cut short; a
 * flip in the index or seek table costs no data frame (also in a slice, which walks the
 * frames by the index's sizes); a flip in the header's version is refused by its version,
 * in its magic as no container. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/container.h"

#include "ctr_test_util.h"

#define NREC 2000
#define MAXF 256

struct frame_rec {
	uint64_t offset, stream_offset;
	size_t size;
	uint32_t csize;
	uint64_t sum;
};

struct result {
	struct frame_rec f[MAXF];
	unsigned n;
	uint64_t err_at[MAXF];  /* file offsets the errors named */
	unsigned nerr;
	int last_rc;
	struct pmt_ctr_stats st;
};

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static bool keep_odd(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	(void)ctx;
	return fi->index % 2;
}

/* Everything a reader gives of buf[0..len), sliced when slice is set; -1 when it does not
 * open (rc in last_rc) */
static unsigned read_threads; /* decompress-ahead threads of the reads (0: none) */

static int read_all(const uint8_t *buf, size_t len, bool slice, struct result *res)
{
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_reader *r;
	struct pmt_ctr_frame f;
	int rc;

	memset(res, 0, sizeof(*res));
	rc = pmt_ctr_reader_new(buf, len, "t", &r, &d);
	if (rc < 0) {
		res->last_rc = rc;
		return -1;
	}
	if (slice)
		assert_true(pmt_ctr_slice(r, keep_odd, NULL) >= 0);
	if (read_threads)
		assert_int_equal(pmt_ctr_reader_threads(r, read_threads), 0);
	for (unsigned calls = 0; calls <= len; calls++) {
		d = (struct pmt_diag)PMT_DIAG_INIT;
		rc = pmt_ctr_next(r, &f, &d);
		if (rc == 0)
			break;
		res->last_rc = rc;
		if (rc < 0) {
			assert_true(res->nerr < MAXF);
			assert_int_equal(d.code, rc);
			res->err_at[res->nerr++] = d.offset;
			continue;
		}
		assert_true(res->n < MAXF);
		res->f[res->n++] = (struct frame_rec){ f.offset, f.stream_offset, f.size, f.csize,
						       fnv(f.data, f.size) };
	}
	res->st = *pmt_ctr_stats(r);
	pmt_ctr_reader_free(r);
	return 0;
}

static const struct frame_rec *frame_at(const struct result *w, uint64_t offset)
{
	for (unsigned i = 0; i < w->n; i++)
		if (w->f[i].offset == offset)
			return &w->f[i];
	return NULL;
}

static bool reported(const struct result *r, uint64_t offset)
{
	for (unsigned i = 0; i < r->nerr; i++)
		if (r->err_at[i] == offset)
			return true;
	return false;
}

/* every frame given is the whole file's at that offset */
static void given_are_whole(const struct result *whole, const struct result *got)
{
	for (unsigned i = 0; i < got->n; i++) {
		const struct frame_rec *w = frame_at(whole, got->f[i].offset);

		assert_non_null(w);
		assert_int_equal(got->f[i].size, w->size);
		assert_int_equal(got->f[i].sum, w->sum);
		assert_int_equal(got->f[i].stream_offset, w->stream_offset);
	}
}

/* the same frames as the whole file, in the same order */
static void same_frames(const struct result *whole, const struct result *got)
{
	assert_int_equal(got->n, whole->n);
	given_are_whole(whole, got);
	for (unsigned i = 0; i < got->n; i++)
		assert_int_equal(got->f[i].offset, whole->f[i].offset);
}

struct fixture {
	uint8_t *buf, *copy;
	size_t len;
	struct result whole, whole_slice;
	uint64_t starts[4 * MAXF]; /* every frame's file offset, then len */
	uint32_t magic[4 * MAXF];
	unsigned nstarts;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	size_t at = 0;

	assert_non_null(fx);
	fx->buf = ctr_test_make(&fx->len, NREC, 7, 13, 1, NULL);
	fx->copy = malloc(fx->len);
	assert_non_null(fx->copy);
	assert_int_equal(read_all(fx->buf, fx->len, false, &fx->whole), 0);
	assert_int_equal(fx->whole.nerr, 0);
	assert_true(fx->whole.n > 40);
	assert_true(fx->whole.st.has_index);
	assert_int_equal(read_all(fx->buf, fx->len, true, &fx->whole_slice), 0);
	assert_true(fx->whole_slice.n < fx->whole.n);
	/* the frames: skippable ones by their size, data frames by the reader's csize */
	while (at < fx->len) {
		uint32_t m = pmt_le32(fx->buf + at);
		const struct frame_rec *f;

		assert_true(fx->nstarts < 4 * MAXF);
		fx->magic[fx->nstarts] = m;
		fx->starts[fx->nstarts++] = at;
		if ((m & 0xFFFFFFF0u) == 0x184D2A50u) {
			at += 8 + (size_t)pmt_le32(fx->buf + at + 4);
			continue;
		}
		f = frame_at(&fx->whole, at);
		assert_non_null(f);
		at += f->csize;
	}
	assert_int_equal(at, fx->len);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	free(fx->buf);
	free(fx->copy);
	free(fx);
	return 0;
}

/* The data frames wholly before cut */
static unsigned whole_before(const struct fixture *fx, size_t cut)
{
	unsigned n = 0;

	for (unsigned i = 0; i < fx->whole.n; i++)
		n += fx->whole.f[i].offset + fx->whole.f[i].csize <= cut;
	return n;
}

static void check_cut(const struct fixture *fx, size_t cut, bool boundary)
{
	struct result got;
	unsigned n = whole_before(fx, cut);

	assert_int_equal(read_all(fx->buf, cut, false, &got), 0);
	given_are_whole(&fx->whole, &got);
	assert_int_equal(got.n, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(got.f[i].offset, fx->whole.f[i].offset);
	assert_false(got.st.has_index && cut < fx->len);
	if (boundary) {
		assert_int_equal(got.nerr, 0);
		assert_false(got.st.truncated);
	} else {
		assert_true(got.st.truncated);
		assert_int_equal(got.last_rc, -PMT_ENEED_MORE);
		assert_int_equal(got.nerr, 1);
	}
}

static void test_cut_every_boundary(void **state)
{
	struct fixture *fx = *state;
	unsigned data = 0;

	/* from the first frame after the header on (a cut inside the header is no container) */
	for (unsigned i = 1; i < fx->nstarts; i++) {
		check_cut(fx, (size_t)fx->starts[i], true);
		data += fx->magic[i] == 0xFD2FB528u;
	}
	check_cut(fx, fx->len, true);
	assert_int_equal(data, fx->whole.n);
}

static void test_cut_random(void **state)
{
	struct fixture *fx = *state;
	size_t first = (size_t)fx->starts[1];
	uint64_t x = 88172645463325252ull;
	unsigned inside = 0;

	for (unsigned k = 0; k < 400; k++) {
		size_t cut;
		bool boundary = false;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		cut = first + (size_t)(x % (fx->len - first));
		for (unsigned i = 0; i < fx->nstarts; i++)
			boundary |= fx->starts[i] == cut;
		inside += !boundary;
		check_cut(fx, cut, boundary);
	}
	assert_true(inside > 300);
}

static void flip(struct fixture *fx, size_t byte, unsigned bit)
{
	memcpy(fx->copy, fx->buf, fx->len);
	fx->copy[byte] ^= (uint8_t)(1u << bit);
}

/* The header frame: its magic, size, "PMTRACE", version, flags and writer */
static void test_flip_header(void **state)
{
	struct fixture *fx = *state;
	size_t hlen = (size_t)fx->starts[1];
	unsigned refused = 0, version = 0, read = 0;

	for (size_t b = 0; b < hlen; b++) {
		for (unsigned bit = 0; bit < 8; bit++) {
			struct result got;

			flip(fx, b, bit);
			if (read_all(fx->copy, fx->len, false, &got) < 0) {
				/* refused: the magic, the frame's size or the version */
				assert_true(b < 20);
				if (b >= 16) {
					assert_int_equal(got.last_rc, -PMT_EVERSION);
					version++;
				} else if (b < 4 || b >= 8) {
					assert_int_equal(got.last_rc, -PMT_EFORMAT);
				}
				refused++;
				continue;
			}
			assert_true(b >= 4);
			given_are_whole(&fx->whole, &got);
			if (b >= 20) { /* flags, writer: every frame */
				same_frames(&fx->whole, &got);
				assert_int_equal(got.nerr, 0);
				read++;
			}
		}
	}
	assert_int_equal(version, 32);
	assert_true(refused >= 32 + 32 + 64);
	assert_int_equal(read, 8 * (hlen - 20));
}

/* Every bit of the first 8 bytes (magic, frame header) of every 4th data frame; a flipped
 * bit there could make the frame's size, from its block headers, run over the frames after
 * it (11 frames lost unreported before the reader checked that a frame starts there) */
static void flip_frame_headers(struct fixture *fx)
{
	unsigned lost = 0;

	for (unsigned k = 0; k < fx->whole.n; k += 4) {
		uint64_t at = fx->whole.f[k].offset;

		for (size_t b = 0; b < 8; b++) {
			for (unsigned bit = 0; bit < 8; bit++) {
				struct result got;

				flip(fx, (size_t)at + b, bit);
				assert_int_equal(read_all(fx->copy, fx->len, false, &got), 0);
				given_are_whole(&fx->whole, &got);
				for (unsigned i = 0; i < fx->whole.n; i++)
					if (i != k)
						assert_non_null(frame_at(&got, fx->whole.f[i].offset));
				if (!frame_at(&got, at)) {
					assert_true(reported(&got, at));
					lost++;
				}
			}
		}
	}
	assert_true(lost > 0);
}

static void test_flip_frame_header(void **state)
{
	read_threads = 0;
	flip_frame_headers(*state);
	/* the frames decompressed ahead on threads, which walk the frames on their own */
	read_threads = 2;
	flip_frame_headers(*state);
	read_threads = 0;
}

/* One bit in the middle of each data frame's payload */
static void test_flip_payload(void **state)
{
	struct fixture *fx = *state;
	unsigned lost = 0;

	for (unsigned k = 0; k < fx->whole.n; k++) {
		const struct frame_rec *w = &fx->whole.f[k];
		struct result got;

		flip(fx, (size_t)(w->offset + w->csize / 2), k % 8);
		assert_int_equal(read_all(fx->copy, fx->len, false, &got), 0);
		given_are_whole(&fx->whole, &got);
		assert_true(got.n >= fx->whole.n - 1);
		if (!frame_at(&got, w->offset)) {
			assert_true(reported(&got, w->offset));
			assert_int_equal(got.st.damaged, 1);
			lost++;
		}
	}
	assert_true(lost > fx->whole.n / 2);
}

/* Every bit of a skippable frame of this magic: no data frame lost, read whole or sliced */
static void flip_every_bit_of(struct fixture *fx, uint32_t magic)
{
	unsigned idx = fx->nstarts;

	for (unsigned i = 0; i < fx->nstarts; i++)
		if (fx->magic[i] == magic)
			idx = i;
	assert_true(idx < fx->nstarts);
	for (size_t b = (size_t)fx->starts[idx];
	     b < (idx + 1 < fx->nstarts ? (size_t)fx->starts[idx + 1] : fx->len); b++) {
		for (unsigned bit = 0; bit < 8; bit++) {
			struct result got;

			flip(fx, b, bit);
			assert_int_equal(read_all(fx->copy, fx->len, false, &got), 0);
			same_frames(&fx->whole, &got);
			assert_int_equal(read_all(fx->copy, fx->len, true, &got), 0);
			same_frames(&fx->whole_slice, &got);
		}
	}
}

/* (before the slice's walk went on past pmutrace's own damaged frames, a flip in the
 * index's or the seek table's magic or size made a slice read the whole file) */
static void test_flip_index(void **state)
{
	flip_every_bit_of(*state, 0x184D2A51u);
}

static void test_flip_seek_table(void **state)
{
	flip_every_bit_of(*state, 0x184D2A5Eu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_every_boundary),
		cmocka_unit_test(test_cut_random),
		cmocka_unit_test(test_flip_header),
		cmocka_unit_test(test_flip_frame_header),
		cmocka_unit_test(test_flip_payload),
		cmocka_unit_test(test_flip_index),
		cmocka_unit_test(test_flip_seek_table),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
