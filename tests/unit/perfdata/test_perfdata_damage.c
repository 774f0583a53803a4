/* perf.data reader on bad input: wrong magic or version, a file truncated at every byte,
 * corrupt record sizes. Every error names the file and the offset; the reader always makes
 * progress and never reads past the data. */
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
#include "pmutrace/perfdata.h"
#include "perfdata_test_util.h"

static void quiet(enum pmt_log_level l, const char *msg, void *ctx) { }

static uint8_t *ref_bytes(size_t *len)
{
	char path[128];
	struct pmt_perf_writer_opts o = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = 0);
	struct pmt_file_map m;
	uint8_t *b;

	tmp_path(path, sizeof(path), "bad.data");
	write_reference(path, &o);
	assert_int_equal(pmt_file_map(path, &m, NULL), 0);
	b = malloc(m.size);
	assert_non_null(b);
	memcpy(b, m.data, m.size);
	*len = m.size;
	pmt_file_unmap(&m);
	return b;
}

/* Drain a source; every call must make progress: at most records + errors + 1 calls. */
static int drain(struct pmt_source *s, size_t len)
{
	struct pmt_trace_event ev;
	int errors = 0;

	for (size_t i = 0; i < len / 8 + 2; i++) {
		int rc = pmt_source_next(s, &ev);

		if (rc == -PMT_EEOS)
			return errors;
		if (rc < 0)
			errors++;
	}
	fail_msg("source did not reach the end");
	return -1;
}

static void test_bad_magic_version(void **state)
{
	size_t len;
	uint8_t *b = ref_bytes(&len);
	struct pmt_source *s;
	struct pmt_diag d = PMT_DIAG_INIT;
	char msg[256];

	pmt_log_set_sink(quiet, NULL);
	memcpy(b, "NOTPERF!", 8);
	assert_int_equal(pmt_source_open_mem(b, len, &s, &d), -PMT_EFORMAT);
	assert_null(s);
	assert_int_equal(d.code, -PMT_EFORMAT);
	assert_int_equal(d.offset, 0);
	pmt_diag_format(&d, msg, sizeof(msg));
	assert_string_equal(msg, "(memory): offset 0: not a perf.data file (no PERFILE2 magic)");
	memcpy(b, "PERFFILE", 8);
	assert_int_equal(pmt_source_open_mem(b, len, &s, &d), -PMT_EVERSION);
	memcpy(b, "PERFILE2", 8);
	b[8] = 200; /* header size from a future perf */
	assert_int_equal(pmt_source_open_mem(b, len, &s, &d), -PMT_EVERSION);
	assert_int_equal(d.offset, 8);
	b[8] = 104;
	b[16] = 5; /* attr_size nonsense */
	assert_int_equal(pmt_source_open_mem(b, len, &s, &d), -PMT_ECORRUPT);
	assert_int_equal(d.offset, 16);
	pmt_diag_format(&d, msg, sizeof(msg));
	assert_string_equal(msg, "(memory): offset 0x10: attr_size 5 is not plausible");
	b[16] = 144;
	assert_int_equal(pmt_source_open_mem(b, len, &s, NULL), 0);
	pmt_source_close(s);
	assert_int_equal(pmt_source_open_mem(b, 10, &s, &d), -PMT_EFORMAT);
	/* a missing file: the system's words and the file's name */
	assert_int_equal(pmt_source_open("/nonexistent/x.data", &s, &d), -PMT_EIO);
	pmt_diag_format(&d, msg, sizeof(msg));
	assert_string_equal(msg, "/nonexistent/x.data: No such file or directory");
	pmt_log_set_sink(NULL, NULL);
	free(b);
}

static void test_truncated_everywhere(void **state)
{
	size_t len;
	uint8_t *b = ref_bytes(&len);

	pmt_log_set_sink(quiet, NULL);
	for (size_t k = 0; k <= len; k++) {
		uint8_t *c = malloc(k ? k : 1); /* exact-size copy so ASan sees overreads */
		struct pmt_source *s;

		memcpy(c, b, k);
		if (pmt_source_open_mem(c, k, &s, NULL) == 0) {
			drain(s, k);
			pmt_source_close(s);
		}
		free(c);
	}
	pmt_log_set_sink(NULL, NULL);
	free(b);
}

/* Offset of the first record of `type` in a file-mode image. */
static size_t find_record(const uint8_t *b, uint32_t type)
{
	uint64_t off, end;

	memcpy(&off, b + 40, 8);
	memcpy(&end, b + 48, 8);
	end += off;
	while (off + 8 <= end) {
		uint32_t t;
		uint16_t sz;

		memcpy(&t, b + off, 4);
		memcpy(&sz, b + off + 6, 2);
		if (t == type)
			return (size_t)off;
		if (t == PMT_REC_AUXTRACE) {
			uint64_t p;

			memcpy(&p, b + off + 8, 8);
			off += p;
		}
		off += sz;
	}
	fail_msg("record type %u not found", type);
	return 0;
}

static void test_corrupt_sizes(void **state)
{
	size_t len, at;
	uint8_t *b = ref_bytes(&len), *c;
	struct pmt_source *s;
	struct pmt_trace_event ev;
	uint16_t sz;
	int rc;

	pmt_log_set_sink(quiet, NULL);
	c = malloc(len);
	/* 0-size record: an error at its offset, then the reader finds the next record (the
	 * MMAP2 the writer put after the COMM) and goes on; never a loop */
	memcpy(c, b, len);
	at = find_record(c, PMT_REC_COMM);
	memset(c + at + 6, 0, 2);
	assert_int_equal(pmt_source_open_mem(c, len, &s, NULL), 0);
	assert_int_equal(pmt_source_damage(s)->code, 0);
	do
		rc = pmt_source_next(s, &ev);
	while (rc == 0);
	assert_int_equal(rc, -PMT_ECORRUPT);
	assert_int_equal(pmt_source_offset(s), at);
	/* the diagnostic says what the log says, with the code and the record's offset */
	{
		const struct pmt_diag *d = pmt_source_damage(s);
		char want[128];

		assert_int_equal(d->code, -PMT_ECORRUPT);
		assert_string_equal(d->file, pmt_source_name(s));
		assert_int_equal(d->offset, at);
		snprintf(want, sizeof(want), "record at %#zx has size 0; resuming at %#zx", at,
			 find_record(b, PMT_REC_MMAP2));
		assert_string_equal(d->msg, want);
	}
	assert_int_equal(pmt_source_next(s, &ev), 0);
	assert_int_equal(ev.type, PMT_REC_MMAP2);
	assert_string_equal(ev.u.mmap.filename, "/usr/bin/spe-loop");
	assert_int_equal(pmt_source_next(s, &ev), 0);
	assert_int_equal(ev.type, PMT_REC_AUXTRACE);
	assert_int_equal(pmt_source_next(s, &ev), 0);
	assert_int_equal(ev.type, PMT_REC_SAMPLE);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_EEOS);
	pmt_source_close(s);

	/* all-zero data: one error, no record invented, no loop */
	memcpy(c, b, len);
	{
		uint64_t doff, dsz;

		memcpy(&doff, c + 40, 8);
		memcpy(&dsz, c + 48, 8);
		memset(c + doff, 0, dsz);
	}
	assert_int_equal(pmt_source_open_mem(c, len, &s, NULL), 0);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_ECORRUPT);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_EEOS);
	pmt_source_close(s);

	/* huge size running past the data */
	memcpy(c, b, len);
	sz = 0xfff8;
	memcpy(c + at + 6, &sz, 2);
	assert_int_equal(pmt_source_open_mem(c, len, &s, NULL), 0);
	do
		rc = pmt_source_next(s, &ev);
	while (rc == 0);
	assert_int_equal(rc, -PMT_ENEED_MORE);
	assert_int_equal(pmt_source_offset(s), at);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_EEOS);
	pmt_source_close(s);

	/* a SAMPLE too short for its sample_type: error, and the reader goes on */
	memcpy(c, b, len);
	at = find_record(c, PMT_REC_SAMPLE);
	memcpy(&sz, c + at + 6, 2);
	{
		/* shrink it to 16 bytes and turn the rest into a harmless record of type 99 */
		uint16_t rest = (uint16_t)(sz - 16), small = 16;
		uint32_t t99 = 99;

		memcpy(c + at + 6, &small, 2);
		memcpy(c + at + 16, &t99, 4);
		memset(c + at + 20, 0, 2);
		memcpy(c + at + 22, &rest, 2);
	}
	assert_int_equal(pmt_source_open_mem(c, len, &s, NULL), 0);
	do
		rc = pmt_source_next(s, &ev);
	while (rc == 0 && ev.type != PMT_REC_SAMPLE);
	assert_int_equal(rc, -PMT_ECORRUPT);
	assert_int_equal(pmt_source_offset(s), at);
	assert_int_equal(pmt_source_next(s, &ev), 0);
	assert_int_equal(ev.type, 99);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_EEOS);
	pmt_source_close(s);

	/* AUXTRACE announcing more bytes than the file holds: what exists is delivered */
	memcpy(c, b, len);
	at = find_record(c, PMT_REC_AUXTRACE);
	{
		uint64_t huge = 1ULL << 40;

		memcpy(c + at + 8, &huge, 8);
	}
	assert_int_equal(pmt_source_open_mem(c, len, &s, NULL), 0);
	do
		rc = pmt_source_next(s, &ev);
	while (rc == 0 && ev.type != PMT_REC_AUXTRACE);
	assert_int_equal(rc, 0);
	assert_int_equal(ev.u.auxtrace.truncated, 1);
	/* delivered, not failed: the damage is still in the diagnostic */
	assert_int_equal(pmt_source_damage(s)->code, -PMT_ENEED_MORE);
	assert_int_equal(pmt_source_damage(s)->offset, at);
	assert_non_null(strstr(pmt_source_damage(s)->msg, "bytes announced"));
	assert_true(ev.u.auxtrace.size >= 13 && ev.u.auxtrace.size < len);
	assert_memory_equal(ev.u.auxtrace.data, aux_payload, 13);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_EEOS);
	pmt_source_close(s);

	pmt_log_set_sink(NULL, NULL);
	free(c);
	free(b);
}

/* ---- files written by perf itself ------------------------------------------------------ */


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_magic_version),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_corrupt_sizes),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
