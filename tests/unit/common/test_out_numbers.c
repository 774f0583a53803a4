/* common's number writers (inline pmt_fmt_* under pmt_out_*) against snprintf. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"

/* a writer into memory: the text is *mem after fclose() */
static FILE *out_open(struct pmt_out *o, char **mem, size_t *sz)
{
	FILE *fp = open_memstream(mem, sz);

	assert_non_null(fp);
	assert_int_equal(pmt_out_init(o, fp, 4096), 0);
	return fp;
}

static void check(uint64_t v)
{
	char *mem = NULL, want[96];
	size_t sz = 0;
	struct pmt_out o;
	FILE *fp = out_open(&o, &mem, &sz);

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

/* pmt_out_double(v, prec) prints what printf's "%.*f" prints, byte for byte: its own
 * digits where it has them, printf's elsewhere (large values, prec > 9). */
static void check_double(double v, int prec)
{
	char *mem = NULL, want[400];
	size_t sz = 0;
	struct pmt_out o;
	FILE *fp = out_open(&o, &mem, &sz);

	pmt_out_double(&o, v, prec);
	assert_int_equal(pmt_out_fini(&o), 0);
	fclose(fp);
	if (isnan(v))
		snprintf(want, sizeof(want), "nan");
	else if (isinf(v))
		snprintf(want, sizeof(want), "%s", v < 0 ? "-inf" : "inf");
	else
		snprintf(want, sizeof(want), "%.*f", prec, v);
	if (strcmp(mem, want))
		fail_msg("%a with precision %d: \"%s\", printf \"%s\"", v, prec, mem, want);
	free(mem);
}

static double from_bits(uint64_t b)
{
	double d;

	memcpy(&d, &b, sizeof(d));
	return d;
}

static void test_doubles(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (int prec = 0; prec <= 11; prec++) {
		const double fixed[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.375,
					 1e-7, -1e-9, 5e-7, 4.9999999e-7, 0.0078125, 123.456,
					 1e6, 999999.9999995, 1.8446744073709552e19, 1.8e13,
					 1.8446744073709552e13, 1e300, -1e300, 4.9e-324,
					 2.2250738585072014e-308, NAN, INFINITY, -INFINITY };

		for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			check_double(fixed[i], prec);
		/* exact ties at every decimal place: k / 2^n rounds half to even */
		for (int n = 1; n < 40; n++)
			for (uint64_t k = 1; k < 64; k += 2)
				check_double(ldexp((double)k, -n), prec);
		/* around where the digits stop fitting 64 bits: 2^64 / 10^prec */
		for (int d = -3; d <= 3; d++)
			check_double(nextafter(ldexp(1.0, 64) / pow(10, prec), 0) + d, prec);
	}
	for (int i = 0; i < 200000; i++) {
		uint64_t r;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		r = seed ^ seed >> 29;
		/* any bits at all, then values of metric size (1e-9 .. 1e15), either sign */
		check_double(from_bits(r), (int)(r % 10));
		check_double(ldexp((double)(r >> 11), (int)(r % 80) - 83) * (r & 1 ? -1 : 1),
			     i & 1 ? 6 : 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_flush_edge),
		cmocka_unit_test(test_doubles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
