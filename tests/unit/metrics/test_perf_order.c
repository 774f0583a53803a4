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
#include <stdlib.h>
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

/* perf 7.3's stat --topdown columns (pmt_metric_set_perf_topdown): the heads perf 7.3
 * printed for `stat --topdown --td-level N -a -x,` on tests/stat/topdown_stat.sh's tree
 * (SMT on, an NFIT table: #has_pmem 1, no NMI watchdog) */
static void expect_cols(const struct pmt_metric_set *ms, const char *group,
			const struct pmt_expr_ctx *ctx, const char *const *want, int n)
{
	const struct pmt_metric **m = calloc(ms->nr + 1, sizeof(*m));

	assert_non_null(m);
	assert_int_equal(pmt_metric_set_perf_topdown(ms, group, ctx, false, m), n);
	for (int i = 0; i < n; i++)
		assert_string_equal(m[i]->name, want[i]);
	free(m);
}

static void gnr_columns(void **state)
{
	static const char *const l1[] = { "tma_frontend_bound", "tma_bad_speculation",
					  "tma_retiring", "tma_backend_bound" };
	static const char *const l2[] = {
		"tma_memory_bound", "tma_core_bound", "tma_light_operations",
		"tma_heavy_operations", "tma_machine_clears", "tma_branch_mispredicts",
		"tma_fetch_latency", "tma_fetch_bandwidth" };
	static const char *const l3[] = {
		"tma_other_light_ops", "tma_ports_utilization", "tma_divider", "tma_fp_arith",
		"tma_l3_miss_bound", "tma_cxl_mem_bound", "tma_int_operations",
		"tma_other_nukes", "tma_other_mispredicts", "tma_non_fused_branches",
		"tma_fused_instructions", "tma_ind_jump_mispredicts",
		"tma_ind_call_mispredicts", "tma_ret_mispredicts", "tma_memory_operations",
		"tma_few_uops_instructions", "tma_microcode_sequencer",
		"tma_cond_tk_mispredicts", "tma_cond_nt_mispredicts", "tma_ms",
		"tma_ms_switches", "tma_serializing_operation", "tma_mite", "tma_l3_bound",
		"tma_l2_bound", "tma_l1_bound", "tma_dsb", "tma_branch_resteers",
		"tma_store_bound", "tma_lcp", "tma_itlb_misses", "tma_icache_misses",
		"tma_dsb_switches", "tma_amx_busy" };
	struct pmt_metric_set ms = { 0 };
	struct pmt_expr_ctx ctx;

	(void)state;
	if (access(GNR, R_OK))
		skip();
	assert_true(pmt_metric_set_load(&ms, GNR, NULL) > 0);
	pmt_expr_ctx_default(&ctx);
	ctx.smt_on = 1;
	ctx.has_pmem = 1;
	expect_cols(&ms, "TopdownL1", &ctx, l1, 4);
	expect_cols(&ms, "TopdownL2", &ctx, l2, 8);
	expect_cols(&ms, "TopdownL3", &ctx, l3, 34);
	pmt_metric_set_fini(&ms);
}

/* the rule on a small table: a metric at its least-read event, an event's metrics in
 * metric-list order, a metric whose IDs another grouped metric holds on that one's group */
static void column_rule(void **state)
{
	static const char json[] =
		"[{\"MetricName\": \"big\", \"MetricExpr\": \"a + b + c\", \"MetricGroup\": \"G\"},"
		" {\"MetricName\": \"sub\", \"MetricExpr\": \"b / c\", \"MetricGroup\": \"G\"},"
		" {\"MetricName\": \"own\", \"MetricExpr\": \"d * a if #smt_on else e\","
		"  \"MetricGroup\": \"G\"}]";
	/* perf's metric list: big (3 IDs), then sub and own (2 each; own reads d and a with
	 * SMT on, not e), in reverse table order; sub's IDs are in big's group, so both are
	 * shown on big's events (a, b and c are each read by two metrics) in list order; own
	 * on d, read by it alone, in its own group after big's */
	struct pmt_metric_set ms = { 0 };
	struct pmt_expr_ctx ctx;
	const struct pmt_metric *m[4] = { 0 };
	int n;

	(void)state;
	assert_int_equal(pmt_metric_set_load_mem(&ms, json, sizeof(json) - 1, "t", NULL), 3);
	pmt_expr_ctx_default(&ctx);
	ctx.smt_on = 1;
	n = pmt_metric_set_perf_topdown(&ms, "G", &ctx, false, m);
	assert_int_equal(n, 3);
	assert_string_equal(m[0]->name, "big");
	assert_string_equal(m[1]->name, "sub");
	assert_string_equal(m[2]->name, "own");
	/* the constant condition needs its literals */
	assert_int_equal(pmt_metric_set_perf_topdown(&ms, "G", NULL, false, m),
			 -PMT_EUNSUPPORTED);
	pmt_metric_set_fini(&ms);
}

/* several grouped metrics on a hybrid table (pmt_metric_set_perf_lists): x86 perf 7.3's
 * `stat -M tma_info_thread_ipc,tma_info_core_ipc,tma_retiring -a` with its built-in Alder
 * Lake table (PERF_CPUID=GenuineIntel-6-97-0, tests/stat/metric_hybrid.sh's tree) printed
 * cpu_core's tma_retiring group (on topdown-retiring), cpu_atom's tma_retiring group
 * (TOPDOWN_RETIRING.ALL), tma_info_core_ipc's (CPU_CLK_UNHALTED.CORE again, then
 * INST_RETIRED.ANY, its `#` line) and tma_info_thread_ipc's (on cpu_core's
 * INST_RETIRED.ANY): the names' metrics spliced at the list's head, then sorted by IDs */
static void hybrid_lists(void **state)
{
	static const char *const sel[] = { "tma_info_thread_ipc", "tma_info_core_ipc",
					   "tma_retiring" };
	static const char *const want[][3] = {
		{ "tma_retiring", "cpu_core", "cpu_core@topdown-retiring@" },
		{ "tma_retiring", "cpu_atom", "cpu_atom@TOPDOWN_RETIRING.ALL@" },
		{ "tma_info_core_ipc", "cpu_atom", "cpu_atom@INST_RETIRED.ANY@" },
		{ "tma_info_thread_ipc", "cpu_core", "cpu_core@INST_RETIRED.ANY@" },
	};
	struct pmt_metric_set ms = { 0 };
	struct pmt_perf_lists pl;
	int clk = 0;

	(void)state;
	assert_true(pmt_metric_set_load(&ms, PMT_SOURCE_DIR
					"/fixtures/metrics/adl-hybrid-metrics.json", NULL) > 0);
	assert_int_equal(pmt_metric_set_perf_lists(&ms, sel, 3, true, &pl), 4);
	for (int k = 0; k < 4; k++) {
		assert_string_equal(pl.metric[k]->name, want[k][0]);
		assert_string_equal(pl.metric[k]->pmu, want[k][1]);
		assert_true(pl.show[k] >= 0);
		assert_string_equal(pl.id[pl.show[k]], want[k][2]);
		/* each its own {...}:W group, in list order */
		assert_int_equal(pl.list[pl.show[k]], k + 1);
	}
	/* cpu_atom's cycles in both of its metrics' groups */
	for (size_t i = 0; i < pl.nr_id; i++)
		clk += !strcmp(pl.id[i], "cpu_atom@CPU_CLK_UNHALTED.CORE@");
	assert_int_equal(clk, 2);
	pmt_perf_lists_fini(&pl);
	pmt_metric_set_fini(&ms);
}

/* -M G -M m (perf 7.3 joins them: "G,m"): parse_groups() adds each name's metrics, so m,
 * which both choose, is in its list twice, ungrouped through G (its MetricgroupNoGroup) in
 * the combined list and as a {...}:W group of its own through its name */
static void named_twice(void **state)
{
	static const char json[] =
		"[{\"MetricName\": \"m\", \"MetricExpr\": \"a / b\", \"MetricGroup\": \"G\","
		"  \"MetricgroupNoGroup\": \"G\"},"
		" {\"MetricName\": \"o\", \"MetricExpr\": \"c / b\", \"MetricGroup\": \"G\","
		"  \"MetricgroupNoGroup\": \"G\"}]";
	static const char *const sel[] = { "G", "m" };
	struct pmt_metric_set ms = { 0 };
	struct pmt_perf_lists pl;
	int lists[2], nm = 0;

	(void)state;
	assert_int_equal(pmt_metric_set_load_mem(&ms, json, sizeof(json) - 1, "t", NULL), 2);
	assert_int_equal(pmt_metric_set_perf_lists(&ms, sel, 2, true, &pl), 3);
	for (size_t k = 0; k < pl.nm; k++)
		if (!strcmp(pl.metric[k]->name, "m")) {
			assert_true(nm < 2 && pl.show[k] >= 0);
			lists[nm++] = pl.list[pl.show[k]];
		}
	assert_int_equal(nm, 2);
	assert_int_not_equal(lists[0], lists[1]);
	pmt_perf_lists_fini(&pl);
	/* the same name twice: twice */
	assert_int_equal(pmt_metric_set_perf_lists(&ms, (const char *const[]){ "m", "m" }, 2,
						   true, &pl), 2);
	pmt_perf_lists_fini(&pl);
	pmt_metric_set_fini(&ms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gnr_levels),
		cmocka_unit_test(refused),
		cmocka_unit_test(gnr_columns),
		cmocka_unit_test(column_rule),
		cmocka_unit_test(hybrid_lists),
		cmocka_unit_test(named_twice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
