/* The progress line: the bytes are the streams' positions summed (a stream going back or
 * out of range counts nothing), the share and ETA only with a known size, the clock read
 * only when due, the line cleared at the end, nothing at all when off. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmutrace/common.h"

/* what the line wrote (caller frees) */
static __attribute__((noinline)) char *run(uint64_t total, int on)
{
	char *mem = NULL;
	size_t sz = 0;
	FILE *fp = open_memstream(&mem, &sz);
	struct pmt_progress p;

	assert_non_null(fp);
	assert_int_equal(pmt_progress_init(&p, on ? fp : NULL, "report", total), 0);
	assert_false(pmt_progress_due(&p, PMT_PROGRESS_EVERY - 1));
	assert_int_equal(pmt_progress_due(&p, PMT_PROGRESS_EVERY), on);
	pmt_progress_stream(&p, 0, 3000000);
	pmt_progress_stream(&p, 5, 1000000);
	pmt_progress_stream(&p, 0, 2000000);  /* back: nothing */
	pmt_progress_stream(&p, PMT_PROGRESS_STREAMS, 9000000); /* not tracked */
	pmt_progress_stream(&p, 5, 2000000);
	if (on)
		assert_int_equal(p.pos, 5000000);
	p.last = 0; /* the last line long ago: the next due check draws one */
	p.t0 -= 1000000000ull;
	pmt_progress_add(&p, PMT_PROGRESS_EVERY - 1);
	assert_int_equal(p.shown, 0);
	pmt_progress_add(&p, 1);
	assert_int_equal(p.shown, on);
	assert_false(pmt_progress_due(&p, PMT_PROGRESS_EVERY - 1));
	pmt_progress_fini(&p);
	fclose(fp);
	return mem;
}

static void test_known_size(void **state)
{
	char *out = run(20000000, 1);

	(void)state;
	/* 5 MB of 20 in about a second: 25%, ~5 MB/s, 15 MB to go at that rate */
	assert_non_null(strstr(out, "\r\033[Kreport: 5.0 MB of 20.0 MB (25%), 4096 samples, "));
	assert_non_null(strstr(out, ", ETA 3 s"));
	assert_string_equal(out + strlen(out) - 4, "\r\033[K");
	free(out);
}

static void test_unknown_size(void **state)
{
	char *out = run(0, 1);

	(void)state;
	assert_non_null(strstr(out, "\r\033[Kreport: 5.0 MB, 4096 samples, "));
	assert_null(strstr(out, "ETA"));
	free(out);
}

static void test_off(void **state)
{
	char *out = run(20000000, 0);

	(void)state;
	assert_string_equal(out, "");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_size),
		cmocka_unit_test(test_unknown_size),
		cmocka_unit_test(test_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
