/* A container's records are read in place from the decompressed frame (no copy into the
 * reader's window) until a record crosses into the next frame, which only damage or a
 * foreign writer makes: then the rest of the frame is copied and the window grows across
 * the two. The independent check is what was written: every record back, whole, in order,
 * with its bytes, for records that fill frames exactly, records split across one, two and
 * three frames, and with frames decompressed ahead on threads or not. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "pmutrace/container.h"
#include "pmutrace/perfdata.h"

#define FRAME 4096
#define NREC 600

struct out {
	char *buf;
	size_t len;
};

/* record i: a kernel record type that no kernel has (the reader passes it on as data,
 * as it must a newer kernel's), 8..248 bytes, its bytes a function of i */
static size_t make_rec(unsigned i, uint8_t *r)
{
	size_t size = 8 + 8 * (i * 7 % 31);

	memset(r, 0, 8);
	pmt_put_le32(r, 0x20 | (i % 5));
	r[6] = (uint8_t)size;
	for (size_t k = 8; k < size; k++)
		r[k] = (uint8_t)(i * 13 + k);
	return size;
}

/* records split across frames: i -> how many frames it spans (1 = whole) */
static unsigned spans(unsigned i)
{
	return i == 100 ? 2 : i == 101 ? 2 : i == 300 ? 3 : i == 450 ? 2 : 1;
}

/* a pipe-mode perf.data (perf's 16-byte header, then records) straight into the
 * container, so that where frames end is the test's choice */
static void write_all_recs(struct out *o)
{
	struct pmt_ctr_writer_opts co = { .sz = sizeof(co), .level = 1, .frame_size = FRAME,
					  .threads = 1 };
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_writer *ctr;
	uint8_t hdr[16] = "PERFILE2", r[256];
	FILE *fp;

	memset(o, 0, sizeof(*o));
	fp = open_memstream(&o->buf, &o->len);
	assert_non_null(fp);
	assert_int_equal(pmt_ctr_writer_new(fp, &co, &ctr, &d), 0);
	pmt_put_le64(hdr + 8, 16);
	assert_int_equal(pmt_ctr_write(ctr, hdr, sizeof(hdr)), 0);
	for (unsigned i = 0; i < NREC; i++) {
		size_t size = make_rec(i, r), at = 0;
		unsigned n = spans(i);

		/* a split record's pieces each end a frame */
		for (unsigned p = 0; p < n; p++) {
			size_t len = p + 1 < n ? 8 : size - at;

			assert_int_equal(pmt_ctr_write(ctr, r + at, len), 0);
			if (p + 1 < n)
				assert_int_equal(pmt_ctr_flush(ctr), 0);
			at += len;
		}
	}
	assert_int_equal(pmt_ctr_writer_close(ctr, &d), 0);
	assert_int_equal(fclose(fp), 0);
}

static void read_back(const struct out *o, unsigned threads)
{
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_source *src;
	struct pmt_trace_event ev;
	uint8_t r[256];
	unsigned i = 0;
	/* a container is read from a file (its frames are walked in the mapping) */
	char path[] = "/tmp/pmt-ctr-view-XXXXXX";
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, o->buf, o->len), (ssize_t)o->len);
	close(fd);
	rc = pmt_source_open(path, &src, &d);
	unlink(path);
	assert_int_equal(rc, 0);
	assert_int_equal(pmt_source_threads(src, threads), 0);
	while ((rc = pmt_source_next(src, &ev)) != -PMT_EEOS) {
		size_t size;

		assert_int_equal(rc, 0);
		if (ev.kind != PMT_TEV_RECORD || (ev.type & ~7u) != 0x20)
			continue; /* the writer's own records (attrs, features) */
		assert_true(i < NREC);
		size = make_rec(i, r);
		assert_int_equal(ev.type, 0x20 | (i % 5));
		assert_int_equal(ev.raw_size, size);
		assert_memory_equal(ev.raw, r, size);
		i++;
	}
	assert_int_equal(i, NREC);
	assert_int_equal(pmt_source_damage(src)->code, 0);
	pmt_source_close(src);
}

static void split_records_whole(void **state)
{
	struct out o;

	(void)state;
	write_all_recs(&o);
	read_back(&o, 0);
	read_back(&o, 2);
	free(o.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(split_records_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
