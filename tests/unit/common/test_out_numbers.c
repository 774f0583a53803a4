/* common's number writers (inline pmt_fmt_* under pmt_out_*) against snprintf. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "pmutrace/common.h"

static void check(uint64_t v)
{
	char *mem = NULL, want[96];
	size_t sz = 0;
	FILE *fp = open_memstream(&mem, &sz);
	struct pmt_out o;

	assert_non_null(fp);
	assert_int_equal(pmt_out_init(&o, fp, 4096), 0);
	pmt_out_u64(&o, v);
	pmt_out_char(&o, ' ');
	pmt_out_i64(&o, (int64_t)v);
	pmt_out_char(&o, ' ');
	pmt_out_hex(&o, v);
	pmt_out_char(&o, ' ');
	pmt_out_0x(&o, v);
	assert_int_equal(pmt_out_fini(&o), 0);
	fclose(fp);
	snprintf(want, sizeof(want), "%llu %lld %llx 0x%llx", (unsigned long long)v,
		 (long long)(int64_t)v, (unsigned long long)v, (unsigned long long)v);
	assert_string_equal(mem, want);
	free(mem);
	/* the raw writers under them return the end of what they wrote */
	{
		char buf[96], *p = buf;

		p = pmt_fmt_u64(p, v);
		*p++ = ' ';
		p = pmt_fmt_i64(p, (int64_t)v);
		*p++ = ' ';
		p = pmt_fmt_hex(p, v);
		*p++ = ' ';
		p = pmt_fmt_0x(p, v);
		*p = 0;
		assert_string_equal(buf, want);
	}
}

static void test_numbers(void **state)
{
	uint64_t p = 1;

	(void)state;
	check(0);
	check(UINT64_MAX);
	check(0x0123456789abcdefULL);
	check(0xfedcba9876543210ULL);
	check(0xa0b0c0d0ULL);
	check((uint64_t)INT64_MIN);
	/* every digit-count boundary: 10^k - 1, 10^k, 10^k + 1, and 2^k - 1, 2^k */
	for (int k = 0; k < 20; k++, p *= 10) {
		check(p - 1);
		check(p);
		check(p + 1);
	}
	for (int k = 0; k < 64; k++) {
		check((1ULL << k) - 1);
		check(1ULL << k);
	}
}

/* a buffer nearly full: the writers flush before writing, nothing is lost */
static void test_flush_edge(void **state)
{
	char *mem = NULL;
	size_t sz = 0;
	FILE *fp = open_memstream(&mem, &sz);
	struct pmt_out o;

	(void)state;
	assert_non_null(fp);
	assert_int_equal(pmt_out_init(&o, fp, 4096), 0);
	for (int i = 0; i < 4090; i++)
		pmt_out_char(&o, 'x');
	pmt_out_u64(&o, 12345678901234567890ULL);
	pmt_out_0x(&o, 0xdeadbeefcafef00dULL);
	assert_int_equal(pmt_out_fini(&o), 0);
	fclose(fp);
	assert_int_equal(sz, 4090 + 20 + 18);
	assert_memory_equal(mem + 4090, "123456789012345678900xdeadbeefcafef00d", 38);
	free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_flush_edge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
