/* pmt_metric_plan_eval_units (every formula over a block of units at once) gives, unit by
 * unit, what pmt_metric_plan_eval gives (checked against perf's expr.y semantics in
 * unit.expr and unit.metric): values bit for bit (or both NaN), thresholds, "%" by 0
 * failures, and the events pmt_metric_plan_missing_at names. Counts are drawn at random
 * with zeros, NaN ("not counted") and events the counts lack. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

static uint64_t seed = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return seed >> 17;
}

/* one count: mostly plain numbers, sometimes 0, NaN or a fraction */
static double draw(void)
{
	switch (rnd() % 10) {
	case 0: return 0;
	case 1: return NAN;
	case 2: return (double)(rnd() % 1000) / 7;
	default: return (double)(rnd() % 100000000);
	}
}

static bool same(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0;
}

static void check_set(const struct pmt_metric_set *ms, size_t nunits)
{
	struct pmt_expr_ctx ctx;
	struct pmt_metric_plan *plan;
	struct pmt_counts *c;
	struct pmt_diag d = PMT_DIAG_INIT;
	size_t nm, skipped = 0;

	pmt_expr_ctx_default(&ctx);
	assert_int_equal(pmt_metric_plan_new(ms, NULL, 0, &ctx, &plan, &d), 0);
	assert_int_equal(pmt_counts_new(&c), 0);
	for (size_t u = 0; u < nunits; u++) {
		char ag[16];

		snprintf(ag, sizeof(ag), "CPU%zu", u);
		assert_int_equal(pmt_counts_unit(c, "1.0", ag), (int)u);
	}
	/* every event but each seventh, so some metrics lack one in every unit */
	for (size_t i = 0; i < pmt_metric_plan_nr_inputs(plan); i++) {
		struct pmt_metric_input *in = pmt_metric_plan_input(plan, i);
		int e;

		if (in->kind != PMT_MIN_COUNT || ++skipped % 7 == 0)
			continue;
		e = pmt_counts_event(c, in->id);
		assert_true(e >= 0);
		for (size_t u = 0; u < nunits; u++)
			if (rnd() % 16)
				assert_int_equal(pmt_counts_add(c, (int)u, e, draw()), 0);
	}
	pmt_metric_plan_bind(plan, c);
	pmt_metric_plan_fill_retlat(plan, c, NULL, NULL, PMT_RETLAT_MEAN, 0);
	nm = pmt_metric_plan_nr_metrics(plan);
	{
		double *cv = calloc(nm * nunits + 1, sizeof(*cv)), *v = calloc(nm + 1, sizeof(*v));
		int8_t *ct = calloc(nm * nunits + 1, 1), *t = calloc(nm + 1, 1);
		int *failed = calloc(nunits, sizeof(*failed));
		const char **cm = calloc(nm + 1, sizeof(*cm)), **m = calloc(nm + 1, sizeof(*m));

		assert_true(cv && v && ct && t && failed && cm && m);
		assert_int_equal(pmt_metric_plan_eval_units(plan, c, 0, nunits, cv, ct, failed), 0);
		for (size_t u = 0; u < nunits; u++) {
			int f = pmt_metric_plan_eval(plan, c, u, v, t);
			int nmiss = pmt_metric_plan_missing(plan, m);

			assert_int_equal(failed[u], f);
			assert_int_equal(pmt_metric_plan_missing_at(plan, u, cm), nmiss);
			for (size_t i = 0; i < nm; i++) {
				if (!same(cv[u * nm + i], v[i]))
					fail_msg("unit %zu, %s: %a in columns, %a alone", u,
						 pmt_metric_plan_metric(plan, i)->name, cv[u * nm + i],
						 v[i]);
				assert_int_equal(ct[u * nm + i], t[i]);
				assert_ptr_equal(cm[i], m[i]);
			}
		}
		/* a block of one unit, with another unit's values left in the plan's own slots:
		 * a select's taint must read this unit's (a whole table without counts is one
		 * unit, and its "<not counted>" rows once followed whatever the slots held) */
		for (size_t u = 0; u < nunits; u++) {
			int nmiss;

			pmt_metric_plan_eval(plan, c, u, v, t);
			nmiss = pmt_metric_plan_missing(plan, m);
			pmt_metric_plan_eval(plan, c, (u + 1) % nunits, v, t);
			assert_int_equal(pmt_metric_plan_eval_units(plan, c, u, 1, cv, ct, failed), 0);
			assert_int_equal(pmt_metric_plan_missing_at(plan, 0, cm), nmiss);
			for (size_t i = 0; i < nm; i++)
				assert_ptr_equal(cm[i], m[i]);
		}
		free(cv);
		free(v);
		free(ct);
		free(t);
		free(failed);
		free(cm);
		free(m);
	}
	pmt_counts_free(c);
	pmt_metric_plan_free(plan);
}

/* every operation of the language, "%" by 0 and selects on a missing event included */
static void operations(void **state)
{
	struct pmt_metric_set ms = { 0 };

	(void)state;
	assert_true(pmt_metric_set_add(&ms, "arith", "(a + b) * c - a / b", "1", "arith > 2") >= 0);
	assert_true(pmt_metric_set_add(&ms, "mod", "a % b + c % 3", "100%", NULL) >= 0);
	assert_true(pmt_metric_set_add(&ms, "logic", "(a | b) + (a & c) * 2 + (b ^ c) * 4",
				       "1", "logic < 3 & logic >= 1") >= 0);
	assert_true(pmt_metric_set_add(&ms, "cmp", "(a < b) + (a > c) + (a == b) + (b <= c)",
				       "1", NULL) >= 0);
	assert_true(pmt_metric_set_add(&ms, "sel", "a if b else -c", "1", "sel > 0") >= 0);
	assert_true(pmt_metric_set_add(&ms, "guard", "0 if missing_ev else a", "1", NULL) >= 0);
	assert_true(pmt_metric_set_add(&ms, "fn", "min(a, b) + max(b, c) + d_ratio(a, c)", "1",
				       NULL) >= 0);
	assert_true(pmt_metric_set_add(&ms, "nested", "arith + sel * 2", "1", "nested > 1") >= 0);
	for (int i = 0; i < 20; i++)
		check_set(&ms, 1 + rnd() % 70);
	pmt_metric_set_fini(&ms);
}

/* What each unit misses, worked out by hand: a select counts only the branch it takes
 * (the missing check evaluates such metrics with the unit's values), a metric without one
 * misses every event it reads; unit by unit and in columns alike. */
static void guarded_missing(void **state)
{
	static const double a_of[] = { 0, 5, 0, 7 };
	/* per unit: g1, g2, plain missing "missing_ev" (1) or nothing (0) */
	static const int want[4][3] = { { 0, 1, 1 }, { 1, 0, 1 }, { 0, 1, 1 }, { 1, 0, 1 } };
	struct pmt_metric_set ms = { 0 };
	struct pmt_expr_ctx ctx;
	struct pmt_metric_plan *plan;
	struct pmt_counts *c;
	struct pmt_diag d = PMT_DIAG_INIT;
	double v[3 * 4];
	int8_t t[3 * 4];
	int failed[4], ea, eb;
	const char *m[3];

	(void)state;
	assert_true(pmt_metric_set_add(&ms, "g1", "missing_ev if a > 0 else b", "1", NULL) >= 0);
	assert_true(pmt_metric_set_add(&ms, "g2", "b if a > 0 else missing_ev", "1", NULL) >= 0);
	assert_true(pmt_metric_set_add(&ms, "plain", "b + missing_ev * a", "1", NULL) >= 0);
	pmt_expr_ctx_default(&ctx);
	assert_int_equal(pmt_metric_plan_new(&ms, NULL, 0, &ctx, &plan, &d), 0);
	assert_int_equal(pmt_counts_new(&c), 0);
	ea = pmt_counts_event(c, "a");
	eb = pmt_counts_event(c, "b");
	for (int u = 0; u < 4; u++) {
		char ag[16];

		snprintf(ag, sizeof(ag), "CPU%d", u);
		assert_int_equal(pmt_counts_unit(c, "1.0", ag), u);
		assert_int_equal(pmt_counts_add(c, u, ea, a_of[u]), 0);
		assert_int_equal(pmt_counts_add(c, u, eb, 100), 0);
	}
	pmt_metric_plan_bind(plan, c);
	assert_int_equal(pmt_metric_plan_eval_units(plan, c, 0, 4, v, t, failed), 0);
	for (int u = 0; u < 4; u++) {
		int n = want[u][0] + want[u][1] + want[u][2];

		assert_int_equal(pmt_metric_plan_missing_at(plan, (size_t)u, m), n);
		for (int i = 0; i < 3; i++)
			assert_true(want[u][i] ? m[i] && !strcmp(m[i], "missing_ev") : !m[i]);
	}
	for (int u = 0; u < 4; u++) {
		int n = want[u][0] + want[u][1] + want[u][2];

		pmt_metric_plan_eval(plan, c, (size_t)u, v, t);
		assert_int_equal(pmt_metric_plan_missing(plan, m), n);
		for (int i = 0; i < 3; i++)
			assert_true(want[u][i] ? m[i] && !strcmp(m[i], "missing_ev") : !m[i]);
	}
	pmt_counts_free(c);
	pmt_metric_plan_free(plan);
	pmt_metric_set_fini(&ms);
}

/* the repository's tables, and the GNR table of the shared data when it is there */
static void tables(void **state)
{
	static const char *const files[] = {
		PMT_SOURCE_DIR "/fixtures/metrics/tiny-metrics.json",
		PMT_SOURCE_DIR "/fixtures/metrics/tiny-intel-metrics.json",
		PMT_SOURCE_DIR "/fixtures/metrics/hybrid-metrics.json",
		PMT_SOURCE_DIR "/fixtures/metrics/tpebs-raw-metrics.json",
		PMT_SHARED_DIR "/data/tpebs/gnr-metrics.json",
		PMT_SHARED_DIR "/data/tpebs/GNR_metrics_graniterapids_metrics.json",
	};

	(void)state;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct pmt_metric_set ms = { 0 };

		if (access(files[f], R_OK) != 0)
			continue;
		assert_true(pmt_metric_set_load(&ms, files[f], NULL) > 0);
		check_set(&ms, 64);
		check_set(&ms, 5);
		pmt_metric_set_fini(&ms);
	}
}

static void quiet(enum pmt_log_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)msg;
	(void)ctx;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(operations),
		cmocka_unit_test(guarded_missing),
		cmocka_unit_test(tables),
	};

	pmt_log_set_sink(quiet, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
