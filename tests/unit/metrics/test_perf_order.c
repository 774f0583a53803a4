/* The order in which perf 7.3's stat --topdown parses a metric group's events
 * (pmt_metric_set_perf_events). The expected lists are what x86 perf 7.3 printed as its
 * "found event" lines under `perf stat -vv --topdown [--td-level 2] -a` with
 * PERF_CPUID=GenuineIntel-6-AD-0 on tests/oracles/fake_intel_sysfs.sh's gnr tree: its
 * built-in Granite Rapids TopdownL1/L2 metrics, which the shared gnr-metrics.json has too
 * (tests/oracles/stat_attrs.sh compares the attrs that follow, in order, live). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

#define GNR PMT_SHARED_DIR "/data/tpebs/gnr-metrics.json"

static void expect(const struct pmt_metric_set *ms, const char *group, const char *const *want,
		   int n)
{
	char **ids;

	assert_int_equal(pmt_metric_set_perf_events(ms, group, &ids), n);
	for (int i = 0; i < n; i++)
		assert_string_equal(ids[i], want[i]);
	assert_null(ids[n]);
	pmt_perf_events_free(ids);
}

static void gnr_levels(void **state)
{
	static const char *const l1[] = { "topdown-retiring", "TOPDOWN.SLOTS",
					  "topdown-fe-bound", "INT_MISC.UOP_DROPPING",
					  "topdown-be-bound", "topdown-bad-spec" };
	static const char *const l2[] = { "topdown-retiring", "TOPDOWN.SLOTS",
					  "topdown-fe-bound", "topdown-mem-bound",
					  "INT_MISC.UOP_DROPPING", "topdown-be-bound",
					  "topdown-heavy-ops", "topdown-br-mispredict",
					  "topdown-fetch-lat", "topdown-bad-spec" };
	struct pmt_metric_set ms = { 0 };
	char **ids;

	(void)state;
	if (access(GNR, R_OK))
		skip();
	assert_true(pmt_metric_set_load(&ms, GNR, NULL) > 0);
	expect(&ms, "TopdownL1", l1, 6);
	expect(&ms, "topdownl2", l2, 10); /* perf matches groups case-insensitively */
	/* TopdownL3's metrics put their events in weak groups of their own */
	assert_int_equal(pmt_metric_set_perf_events(&ms, "TopdownL3", &ids), -PMT_EUNSUPPORTED);
	assert_null(ids);
	pmt_metric_set_fini(&ms);
}

/* what the reproduction does not cover is refused, not guessed */
static void refused(void **state)
{
	static const char json[] =
		"[{\"MetricName\": \"a\", \"MetricExpr\": \"x / y\", \"MetricGroup\": \"G;H\","
		"  \"MetricgroupNoGroup\": \"G\"},"
		" {\"MetricName\": \"b\", \"MetricExpr\": \"x if #smt_on else y\","
		"  \"MetricGroup\": \"I\", \"MetricgroupNoGroup\": \"I\"},"
		" {\"MetricName\": \"c\", \"MetricExpr\": \"z\", \"MetricGroup\": \"J\","
		"  \"MetricgroupNoGroup\": \"J\"}]";
	static const char *const g[] = { "x", "y" };
	static const char *const j[] = { "z" };
	struct pmt_metric_set ms = { 0 };
	char **ids;

	(void)state;
	assert_int_equal(pmt_metric_set_load_mem(&ms, json, sizeof(json) - 1, "t", NULL), 3);
	expect(&ms, "G", g, 2);
	expect(&ms, "J", j, 1);
	/* a's events are grouped for H */
	assert_int_equal(pmt_metric_set_perf_events(&ms, "H", &ids), -PMT_EUNSUPPORTED);
	/* perf keeps one branch's IDs when the condition is a constant */
	assert_int_equal(pmt_metric_set_perf_events(&ms, "I", &ids), -PMT_EUNSUPPORTED);
	assert_int_equal(pmt_metric_set_perf_events(&ms, "K", &ids), -PMT_ENOT_FOUND);
	pmt_metric_set_fini(&ms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gnr_levels),
		cmocka_unit_test(refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
