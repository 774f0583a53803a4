/* Expression engine: one test per operator and rule of perf's expr.l/expr.y (tpebs.md §2).
 * Expected values are hand-derived from the grammar and the semantics listed there. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

static const char *const names[] = { "a", "b", "z", "n", "EV.X:R", "cpu_core@ev,x@R", "ev-1",
				     "x1e" };
static const double vals[] = { 6, 4, 0, NAN, 64, 7, 11, 13 };

static struct pmt_expr_ctx ctx(void)
{
	struct pmt_expr_ctx c;

	pmt_expr_ctx_default(&c);
	c.smt_on = 1;
	c.num_cpus = 16;
	c.system_tsc_freq = 2.5e9;
	c.runtime = 3;
	return c;
}

static double ev(const char *text)
{
	struct pmt_expr_ctx c = ctx();
	struct pmt_expr_error err;
	double v = -12345;
	int r = pmt_expr_eval_str(text, 0, &c, names, vals, sizeof(vals) / sizeof(vals[0]), &v,
				  &err);

	if (r < 0)
		fail_msg("'%s': %s (column %d: %s)", text, pmt_errstr(r), err.column, err.msg);
	return v;
}

static int ev_err(const char *text, unsigned flags, struct pmt_expr_error *err)
{
	struct pmt_expr_ctx c = ctx();
	double v;

	return pmt_expr_eval_str(text, flags, &c, names, vals, sizeof(vals) / sizeof(vals[0]), &v,
				 err);
}

#define EQ(text, want) assert_true(ev(text) == (want))
#define IS_NAN(text) assert_true(isnan(ev(text)))

static void numbers(void **state)
{
	EQ("42", 42);
	EQ("1.5", 1.5);
	EQ(".5", 0.5);
	EQ("2.", 2);
	EQ("1e3", 1000);
	EQ("25e-1", 2.5);
	/* no e+: "1e+3" lexes as the ID "1e" (longer than the number "1"), unknown -> NaN */
	IS_NAN("1e+3");
	/* no hex: the symbol rule matches all of "0x10" (longer than the number "0") -> ID */
	IS_NAN("0x10");
	IS_NAN("NaN");
}

static void arithmetic_and_precedence(void **state)
{
	EQ("a + b", 10);
	EQ("a - b", 2);
	EQ("a * b", 24);
	EQ("a / b", 1.5);
	EQ("2 + 3 * 4", 14);        /* * over + */
	EQ("(2 + 3) * 4", 20);
	EQ("10 - 4 - 3", 3);        /* left associative */
	EQ("24 / 4 / 2", 3);
	EQ("-a * b", -24);          /* unary minus binds tightest */
	EQ("- -a", 6);
	EQ("2 * -3", -6);
	EQ("1 + 2 < 4", 1);         /* + over < */
	EQ("1 < 2 + 0", 1);
	EQ("0 & 1 | 1", 1);         /* & over | */
	EQ("1 | 0 & 0", 1);
	EQ("1 ^ 1 & 0", 1);         /* & over ^: 1 ^ (1 & 0) */
	EQ("1 | 1 ^ 1", 1);         /* ^ over |: 1 | (1 ^ 1) */
	EQ("3 < 4 & 5 > 4", 1);     /* comparisons over & */
}

static void comparisons(void **state)
{
	EQ("a < b", 0);
	EQ("a > b", 1);
	EQ("b < a", 1);
	EQ("a > a", 0);
	IS_NAN("n < 1");
	IS_NAN("1 > n");
}

static void logical_ops_on_doubles(void **state)
{
	EQ("0.5 | 0", 1);  /* logical, not (long)0.5 | 0 = 0 */
	EQ("0.5 & 0.25", 1);
	EQ("0 | 0", 0);
	EQ("z & 1", 0);
	EQ("1 ^ 0", 1);
	EQ("2 ^ 3", 0);
	IS_NAN("n ^ 1");
}

/* perf 7.3's expr.y: a finite side of '|' or '&' that settles the result gives it whatever
 * the other side is (1 | x = 1, 0 & x = 0); one that does not (0 | x, nonzero & x) gives
 * the other side unchanged; two sides that are not finite (is_const: isfinite) give NaN.
 * '^' needs both sides finite. 1e308 * 10 is +inf (a / 0 is NaN here). */
static void logical_ops_on_nan(void **state)
{
	EQ("n | 1", 1);
	EQ("1 | n", 1);
	EQ("n & 0", 0);
	EQ("z & n", 0);
	IS_NAN("n | 0");
	IS_NAN("z | n");
	IS_NAN("n & 1");
	IS_NAN("a & n");
	IS_NAN("n | n");
	IS_NAN("n & n");
	IS_NAN("1 ^ n");
	EQ("n > 0.2 & z > 0.1", 0); /* tma_lock_latency's threshold on a CPU without :R */
	IS_NAN("n > 0.2 & a > 0.1");
	EQ("(1e308 * 10 | 0) > 1", 1); /* inf is not finite: 0 | inf gives inf */
	EQ("1e308 * 10 & 0", 0);
	IS_NAN("1e308 * 10 & 1e308 * 10");
	IS_NAN("1e308 * 10 ^ 1");
}

static void nan_propagation(void **state)
{
	IS_NAN("n + 1");
	IS_NAN("1 - n");
	IS_NAN("n * 0");
	IS_NAN("n / 2");
	IS_NAN("-n");
	IS_NAN("unknown_event + 1"); /* unknown ID -> NaN */
}

static void division_by_zero(void **state)
{
	IS_NAN("a / 0");   /* NaN, not an error */
	IS_NAN("a / z");
	IS_NAN("0 / 0");
	EQ("z / a", 0);
}

static void modulo(void **state)
{
	struct pmt_expr_error err;

	EQ("7 % 4", 3);
	EQ("7.9 % 4.2", 3);  /* (long)7.9 % (long)4.2 = 7 % 4 */
	EQ("-7 % 4", -3);    /* C remainder */
	EQ("2 * 7 % 4", 2);  /* same level as *, left to right: (2*7) % 4 */
	IS_NAN("n % 2");
	assert_int_equal(ev_err("a % 0", 0, &err), -PMT_EDIV_ZERO);
	assert_int_equal(ev_err("a % z", 0, &err), -PMT_EDIV_ZERO);
	/* (long)0.5 == 0: perf would trap on the integer division; an error here */
	assert_int_equal(ev_err("a % 0.5", 0, &err), -PMT_EDIV_ZERO);
	/* beyond LONG_MAX the (long) cast is undefined; fmod keeps it defined:
	 * 1e300 = 2^996.6..., an even integer, so 1e300 % 2 = 0 and % 7 is finite */
	EQ("1e300 % 2", 0);
	assert_true(isfinite(ev("1e300 % 7")));
	/* both branches are evaluated, as in perf's bison actions: the untaken %0 aborts too */
	assert_int_equal(ev_err("1 if 1 else a % z", 0, &err), -PMT_EDIV_ZERO);
}

static void if_else(void **state)
{
	EQ("a if 1 else b", 6);
	EQ("a if 0 else b", 4);
	EQ("a if z else b", 4);
	EQ("a if -0.0 else b", 4);   /* false only for +-0.0 */
	EQ("a if n else b", 6);      /* NaN is true */
	EQ("a if 0.001 else b", 6);
	/* right nested: A if C1 else (B if C2 else D) */
	EQ("1 if 0 else 2 if 0 else 3", 3);
	EQ("1 if 0 else 2 if 1 else 3", 2);
	EQ("1 if 1 else 2 if 0 else 3", 1);
	/* IF has the lowest precedence: the branches take whole expressions */
	EQ("1 + 2 if 3 < 4 else 5 * 6", 3);
	EQ("1 + 2 if 3 > 4 else 5 * 6", 30);
	EQ("(a if 0 else b) * 2", 8);
	/* a ternary inside min() must be parenthesised */
	assert_int_equal(ev_err("min(1, 2 if 1 else 3)", 0, NULL), -PMT_EPARSE);
	EQ("min(1, (2 if 1 else 3))", 1);
	/* the guard the TMA metrics use: fallback when X:R is 0 */
	EQ("min(a * EV.X:R, a * 7) if 0 < EV.X:R else a * 7", 42);
}

static void functions(void **state)
{
	EQ("min(a, b)", 4);
	EQ("max(a, b)", 6);
	EQ("min(a - 10, b)", -4);
	/* C semantics with NaN: a<b?a:b is false with NaN, so the second argument wins */
	IS_NAN("min(1, n)");
	EQ("min(n, 1)", 1);
	IS_NAN("max(1, n)");
	EQ("max(n, 1)", 1);
	EQ("d_ratio(a, b)", 1.5);
	EQ("d_ratio(a, 0)", 0);
	EQ("d_ratio(a, z)", 0);
	/* keywords only match whole symbols */
	IS_NAN("min_x + 0");
	IS_NAN("ifx");
}

static void source_count_has_event(void **state)
{
	EQ("source_count(a)", 1);
	IS_NAN("source_count(missing)");
	EQ("has_event(a)", 1);
	EQ("has_event(missing)", 0);
	assert_int_equal(ev_err("has_event(1)", 0, NULL), -PMT_EPARSE);
}

static void strcmp_cpuid(void **state)
{
	struct pmt_expr_ctx c = ctx();
	double v;

	c.cpuid = "GenuineIntel-6-AD";
	assert_int_equal(pmt_expr_eval_str("strcmp_cpuid_str(GenuineIntel\\-6\\-AD)", 0, &c,
					   NULL, NULL, 0, &v, NULL), 0);
	assert_true(v == 1);
	assert_int_equal(pmt_expr_eval_str("strcmp_cpuid_str(GenuineIntel\\-6\\-A.)", 0, &c,
					   NULL, NULL, 0, &v, NULL), 0);
	assert_true(v == 1); /* a regex, as x86's strcmp_cpuid_str */
	assert_int_equal(pmt_expr_eval_str("strcmp_cpuid_str(GenuineIntel\\-6\\-8F)", 0, &c,
					   NULL, NULL, 0, &v, NULL), 0);
	assert_true(v == 0);
	c.cpuid = NULL;
	assert_int_equal(pmt_expr_eval_str("strcmp_cpuid_str(GenuineIntel\\-6\\-AD)", 0, &c,
					   NULL, NULL, 0, &v, NULL), 0);
	assert_true(isnan(v));
	/* perf's tests/expr.c: "strcmp_cpuid_str(0x0)" is 0 (no match) with the machine's own
	 * cpuid, which the default context carries as perf does */
	pmt_expr_ctx_default(&c);
	assert_non_null(c.cpuid);
	assert_int_equal(pmt_expr_eval_str("strcmp_cpuid_str(0x0)", 0, &c, NULL, NULL, 0, &v,
					   NULL), 0);
	assert_true(v == 0);
}

static void literals(void **state)
{
	struct pmt_expr_error err;

	EQ("#smt_on", 1);
	EQ("#SMT_on", 1);           /* strcasecmp */
	EQ("#num_cpus * 2", 32);
	EQ("#SYSTEM_TSC_FREQ / 1e9", 2.5);
	EQ("4 if #smt_on else 2", 4);
	assert_int_equal(ev_err("#no_such_literal", 0, &err), -PMT_EPARSE);
	assert_non_null(strstr(err.msg, "no_such_literal"));
	assert_int_equal(err.column, 1);
}

static void identifiers(void **state)
{
	EQ("EV.X:R", 64);             /* ':' is part of an ID */
	EQ("cpu_core@ev\\,x@R", 7);   /* '\,' escape, '@' kept */
	EQ("ev\\-1", 11);             /* '\-' escape */
	IS_NAN("ev - 1 - 1 + ev\\-2"); /* 'ev' and 'ev-2' unknown */
	IS_NAN("x?e");                /* '?' -> runtime 3: "x3e", unknown here */
}

static void runtime_param(void **state)
{
	static const char *const n[] = { "x3e" };
	static const double v[] = { 5 };
	struct pmt_expr_ctx c = ctx();
	double out;

	assert_int_equal(pmt_expr_eval_str("x?e * 2", 0, &c, n, v, 1, &out, NULL), 0);
	assert_true(out == 10);
}

static void ignored_characters_and_errors(void **state)
{
	struct pmt_expr_error err;

	EQ("a $ + b", 10);      /* perf's lexer drops characters no rule matches */
	EQ("a > = b", 1);       /* so a stray '=' vanishes: "a > b" */
	EQ("a >= b", 1);
	EQ("b >= b", 0);        /* perf text: ">=" is ">" */
	assert_int_equal(ev_err("a +", 0, &err), -PMT_EPARSE);
	assert_int_equal(err.column, 4);
	assert_int_equal(ev_err("(a + b", 0, &err), -PMT_EPARSE);
	assert_non_null(strstr(err.msg, "')'"));
	assert_int_equal(ev_err("a b", 0, &err), -PMT_EPARSE);
	assert_int_equal(err.column, 3);
	assert_int_equal(ev_err("", 0, &err), -PMT_EPARSE);
	assert_int_equal(ev_err("min(a)", 0, &err), -PMT_EPARSE);
	assert_int_equal(ev_err("a if b", 0, &err), -PMT_EPARSE);
	assert_non_null(strstr(err.msg, "else"));
}

static void intel_mode(void **state)
{
	struct pmt_expr_ctx c = ctx();
	double v;

	/* Intel formulas spell >= as "> =" and mean it */
	assert_int_equal(pmt_expr_eval_str("b > = b", PMT_EXPR_INTEL, &c, names, vals, 8, &v, NULL), 0);
	assert_true(v == 1);
	assert_int_equal(pmt_expr_eval_str("a < = b", PMT_EXPR_INTEL, &c, names, vals, 8, &v, NULL), 0);
	assert_true(v == 0);
	assert_int_equal(pmt_expr_eval_str("a == 6", PMT_EXPR_INTEL, &c, names, vals, 8, &v, NULL), 0);
	assert_true(v == 1);
	/* "[0]" instance subscripts are dropped */
	assert_int_equal(pmt_expr_eval_str("(b / a[0]) * 3", PMT_EXPR_INTEL, &c, names, vals, 8, &v,
					   NULL), 0);
	assert_true(v == 2);
}

static void deep_nesting_is_rejected(void **state)
{
	static char buf[40000];
	size_t n = 0;

	/* 1+(1+(1+...)): postfix keeps every left operand on the stack */
	for (int i = 0; i < 600; i++) {
		memcpy(buf + n, "1+(", 3);
		n += 3;
	}
	buf[n++] = '1';
	memset(buf + n, ')', 600);
	buf[n + 600] = 0;
	assert_int_equal(ev_err(buf, 0, NULL), -PMT_ERANGE);
	/* parenthesis nesting alone must not exhaust the C stack either */
	memset(buf, '(', 20000);
	buf[20000] = 0;
	assert_int_equal(ev_err(buf, 0, NULL), -PMT_ERANGE);
	memset(buf, '-', 20000);
	strcpy(buf + 20000, "1");
	assert_int_equal(ev_err(buf, 0, NULL), -PMT_ERANGE);
}

static void compile_once_eval_many(void **state)
{
	struct pmt_expr *e;
	double slots[2] = { 0, 0 }, v;
	struct pmt_expr_ctx c = ctx();

	assert_int_equal(pmt_expr_compile("a * 2 + b", 0, &c, NULL, NULL, &e, NULL), 0);
	/* no resolver: every ID is an unknown (NaN) constant */
	assert_int_equal(pmt_expr_eval(e, slots, &v), 0);
	assert_true(isnan(v));
	assert_int_equal(pmt_expr_nr_slots(e), 0);
	pmt_expr_free(e);
}

/* The cases of perf's own parser test (tools/perf/tests/expr.c, test__expr) with its
 * expected values; FOO = 1, BAR = 2. */
static void perf_test_expr_cases(void **state)
{
	static const struct {
		const char *text;
		double want;
	} cases[] = {
		{ "1+1", 2 }, { "FOO+BAR", 3 }, { "(BAR/2)%2", 1 }, { "1 - -4", 5 },
		{ "(FOO-1)*2 + (BAR/2)%2 - -4", 5 }, { "1-1 | 1", 1 }, { "1-1 & 1", 0 },
		{ "min(1,2) + 1", 2 }, { "max(1,2) + 1", 3 }, { "1+1 if 3*4 else 0", 2 },
		{ "100 if 1 else 200 if 1 else 300", 100 }, { "100 if 0 else 200 if 1 else 300", 200 },
		{ "100 if 1 else 200 if 0 else 300", 100 }, { "100 if 0 else 200 if 0 else 300", 300 },
		{ "1.1 + 2.1", 3.2 }, { ".1 + 2.", 2.1 }, { "d_ratio(1, 2)", 0.5 },
		{ "d_ratio(2.5, 0)", 0 }, { "1.1 < 2.2", 1 }, { "2.2 > 1.1", 1 }, { "1.1 < 1.1", 0 },
		{ "2.2 > 2.2", 0 }, { "2.2 < 1.1", 0 }, { "1.1 > 2.2", 0 },
		{ "1.1e10 < 1.1e100", 1 }, { "1.1e2 > 1.1e-2", 1 },
	};
	static const char *const n[] = { "FOO", "BAR" };
	static const double v[] = { 1, 2 };
	struct pmt_expr_ctx c = ctx();
	double out;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (pmt_expr_eval_str(cases[i].text, 0, &c, n, v, 2, &out, NULL) < 0 ||
		    !(fabs(out - cases[i].want) < 1e-12))
			fail_msg("'%s' = %g, perf expects %g", cases[i].text, out, cases[i].want);
	}
	/* "FOO/0" parses and gives NaN; "BAR/" is a missing operand */
	assert_int_equal(pmt_expr_eval_str("FOO/0", 0, &c, n, v, 2, &out, NULL), 0);
	assert_true(isnan(out));
	assert_int_equal(pmt_expr_eval_str("BAR/", 0, &c, n, v, 2, &out, NULL), -PMT_EPARSE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers),
		cmocka_unit_test(arithmetic_and_precedence),
		cmocka_unit_test(comparisons),
		cmocka_unit_test(logical_ops_on_doubles),
		cmocka_unit_test(logical_ops_on_nan),
		cmocka_unit_test(nan_propagation),
		cmocka_unit_test(division_by_zero),
		cmocka_unit_test(modulo),
		cmocka_unit_test(if_else),
		cmocka_unit_test(functions),
		cmocka_unit_test(source_count_has_event),
		cmocka_unit_test(strcmp_cpuid),
		cmocka_unit_test(literals),
		cmocka_unit_test(identifiers),
		cmocka_unit_test(runtime_param),
		cmocka_unit_test(ignored_characters_and_errors),
		cmocka_unit_test(intel_mode),
		cmocka_unit_test(deep_nesting_is_rejected),
		cmocka_unit_test(compile_once_eval_many),
		cmocka_unit_test(perf_test_expr_cases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
