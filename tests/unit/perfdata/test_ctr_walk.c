/* A walk over a container's frames (embedded files, frame infos) takes each data frame's
 * size from the file's index, checked against the next frame's start, and only without a
 * usable index from zstd's walk of the frame's blocks: so a bundled file after a data
 * frame zstd cannot walk is still found, and a damaged index or a cut file falls
 * back to the blocks (zstd's walk stops at the damage, as before). */
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

#define NREC 2000

/* a file before record NREC / 2 and before the last */
static void add_files(struct pmt_ctr_writer *w, unsigned i)
{
	static struct pmt_ctr_file f = { .kind = PMT_CTR_FILE_ELF };

	if (i != NREC / 2 && i != NREC - 1)
		return;
	snprintf(f.name, sizeof(f.name), "/lib/%c", i == NREC / 2 ? 'a' : 'b');
	assert_int_equal(pmt_ctr_add_file(w, &f, "payload", 7), 0);
}

/* data frames, a file, more data frames, a second file, the index and seek table */
static uint8_t *make(size_t *len)
{
	return ctr_test_make(len, NREC, 37, 11, 0, add_files);
}

static int count_file(const struct pmt_ctr_file *f, void *ctx)
{
	(void)f;
	++*(int *)ctx;
	return 0;
}

static int nfiles(const uint8_t *b, size_t len)
{
	int n = 0, rc = pmt_ctr_files(b, len, count_file, &n);

	assert_int_equal(rc, n);
	return n;
}

/* the first data frame's file offset and size (the reader's), and the index's offset
 * (the last "PMTINDEX" behind its skippable frame header) */
static void find(const uint8_t *b, size_t len, size_t *first, size_t *first_size, size_t *index)
{
	struct pmt_ctr_reader *r;
	struct pmt_ctr_frame f;
	struct pmt_diag d = PMT_DIAG_INIT;

	assert_int_equal(pmt_ctr_reader_new(b, len, "t", &r, &d), 0);
	assert_int_equal(pmt_ctr_next(r, &f, &d), 1);
	*first = f.offset;
	*first_size = f.csize;
	pmt_ctr_reader_free(r);
	*index = 0;
	for (size_t pos = len - 16; pos > 8 && !*index; pos--)
		if (!memcmp(b + pos, "PMTINDEX", 8) && pmt_le32(b + pos - 8) == 0x184D2A51u)
			*index = pos - 8;
}

static void damaged_frame_inside(void **state)
{
	size_t len, first, first_size, index;
	uint8_t *b = make(&len), *c = malloc(len);

	(void)state;
	assert_non_null(c);
	assert_int_equal(nfiles(b, len), 2);
	find(b, len, &first, &first_size, &index);
	assert_true(first_size > 64 && index > first);
	/* the first data frame overwritten after its magic: zstd can no longer walk it, the
	 * index still says where the next frame starts */
	memcpy(c, b, len);
	memset(c + first + 4, 0xff, first_size - 4);
	assert_int_equal(nfiles(c, len), 2);
	/* and without a usable index (its magic gone) the walk stops at that frame */
	c[index] ^= 0x01;
	assert_int_equal(nfiles(c, len), 0);
	/* a cut file has no seek table: the blocks are walked, the first file is found */
	assert_int_equal(nfiles(b, index), 2);
	assert_true(nfiles(b, first + first_size + 8) <= 2);
	free(c);
	free(b);
}

/* an index whose sizes lie (each frame's size off by 8) is not trusted: the next frame's
 * magic is checked, and zstd's own size is taken */
static void lying_index(void **state)
{
	size_t len, first, first_size, index;
	uint8_t *b = make(&len);

	(void)state;
	find(b, len, &first, &first_size, &index);
	for (uint32_t i = 0, n = pmt_le32(b + index + 16); i < n; i++) {
		uint8_t *e = b + index + 20 + 16 * (size_t)i;

		pmt_put_le32(e + 8, pmt_le32(e + 8) + 8);
	}
	assert_int_equal(nfiles(b, len), 2);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(damaged_frame_inside),
		cmocka_unit_test(lying_index),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
