/* Topdown decode. The vector is tpebs.md §4: PERF_METRICS 0x40300C085F501040 with slots
 * 1 000 000 gives retiring 250980, bad-spec 62745, fe 313725, be 372549, heavy 31372,
 * br-misp 47058, fetch-lat 188235, mem 250980 slots; retiring 0.25098. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void reference_vector(void **state)
{
	static const uint64_t want[8] = { 250980, 62745, 313725, 372549,
					  31372, 47058, 188235, 250980 };
	struct pmt_topdown t;

	assert_int_equal(pmt_topdown_decode(1000000, 0x40300C085F501040ULL, 0, 0, &t), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(t.slots_of[i], want[i]);
	/* perf's tma_* formulas: each topdown-* count over the sum of the four level-1
	 * counts (250980 + 62745 + 313725 + 372549 = 999999), i.e. bytes / 0xff up to the
	 * kernel's rounding of the counts */
	NEAR(t.retiring, 250980.0 / 999999);
	assert_true(fabs(t.retiring - 0.25098) < 5e-6);
	NEAR(t.bad_spec, 62745.0 / 999999);
	NEAR(t.fe_bound, 313725.0 / 999999);
	NEAR(t.be_bound, 372549.0 / 999999);
	NEAR(t.retiring + t.bad_spec + t.fe_bound + t.be_bound, 1.0);
	NEAR(t.heavy_ops, 31372.0 / 999999);
	NEAR(t.br_mispredict, 47058.0 / 999999);
	NEAR(t.fetch_lat, 188235.0 / 999999);
	NEAR(t.mem_bound, 250980.0 / 999999);
	/* L2 complements: max(0, parent - child) */
	NEAR(t.light_ops, (250980.0 - 31372) / 999999);
	NEAR(t.machine_clears, (62745.0 - 47058) / 999999);
	NEAR(t.fetch_bw, (313725.0 - 188235) / 999999);
	NEAR(t.core_bound, (372549.0 - 250980) / 999999);
}

/* Level-1 bytes that do not add up to 0xff (here 4 x 0xff: the "400%") still give
 * fractions that add up to 100%, as perf's formulas normalise by the level-1 sum. */
static void level1_normalised(void **state)
{
	struct pmt_topdown t;

	assert_int_equal(pmt_topdown_decode(1000000, 0xffffffffULL, 0, 0, &t), 0);
	NEAR(t.retiring, 0.25);
	NEAR(t.bad_spec, 0.25);
	NEAR(t.fe_bound, 0.25);
	NEAR(t.be_bound, 0.25);
	/* no level-1 slots at all: nothing to divide by */
	assert_int_equal(pmt_topdown_decode(1000000, 0xff00000000ULL, 0, 0, &t), -PMT_EINVAL);
}

/* Delta of two reads: a = (1000 slots, retiring byte 0xff), b = (3000 slots, retiring
 * byte 0x55 = 85, bad-spec 0xaa = 170). retiring slots a = 1000, b = 3000*85/255 = 1000;
 * so the period 1000..3000 retired nothing: 0 / 2000. Bad spec: (3000*170/255 - 0) / 2000
 * = 2000 / 2000 = 1. */
static void delta_between_reads(void **state)
{
	struct pmt_topdown t;

	assert_int_equal(pmt_topdown_decode(3000, 0xaa55, 1000, 0xff, &t), 0);
	NEAR(t.slots, 2000);
	NEAR(t.retiring, 0);
	NEAR(t.bad_spec, 1);
	NEAR(t.fe_bound, 0);
	assert_int_equal(pmt_topdown_decode(1000, 0xff, 1000, 0xff, &t), -PMT_EINVAL);
}

/* stat --topdown reads the kernel's topdown-* counts (slots * byte / 0xff), per interval as
 * deltas. Two reads of the seed's vector: slots 1e6 then 3e6 with PERF_METRICS
 * 0x40300C085F501040 both times: counts 250980/62745/313725/372549 then 3x those rounded
 * down (752941/188235/941176/1117647); the interval's deltas are 501961/125490/627451/
 * 745098, sum 2000000 (by hand), so retiring = 501961 / 2000000. */
static void from_counts(void **state)
{
	const double first[8] = { 250980, 62745, 313725, 372549 };
	const double second[8] = { 752941, 188235, 941176, 1117647 };
	double delta[8] = { 0 };
	struct pmt_topdown t, ref;

	assert_int_equal(pmt_topdown_from_counts(1e6, first, &t), 0);
	assert_int_equal(pmt_topdown_decode(1000000, 0x40300C085F501040ULL, 0, 0, &ref), 0);
	NEAR(t.retiring, ref.retiring);
	NEAR(t.bad_spec, ref.bad_spec);
	NEAR(t.fe_bound, ref.fe_bound);
	NEAR(t.be_bound, ref.be_bound);
	for (int i = 0; i < 8; i++)
		delta[i] = second[i] - first[i];
	assert_int_equal(pmt_topdown_from_counts(2e6, delta, &t), 0);
	NEAR(t.retiring, 501961.0 / 2000000);
	NEAR(t.fe_bound, 627451.0 / 2000000);
	NEAR(t.be_bound, 745098.0 / 2000000);
	NEAR(t.bad_spec, 1 - (501961.0 + 627451 + 745098) / 2000000);
	assert_int_equal(pmt_topdown_decode(3000000, 0x40300C085F501040ULL, 1000000,
					    0x40300C085F501040ULL, &ref), 0);
	NEAR(t.retiring, ref.retiring);
	/* an interval in which nothing was counted has no ratios */
	memset(delta, 0, sizeof(delta));
	assert_int_equal(pmt_topdown_from_counts(0, delta, &t), -PMT_EINVAL);
	/* but perf's formulas' values (an E core's cpu_core columns with --per-core: perf 7.3
	 * printed nan, 0.0, nan, nan): 0/0, and max(1 - NaN, 0) 0 */
	assert_true(isnan(t.retiring) && isnan(t.fe_bound) && isnan(t.be_bound));
	assert_true(t.bad_spec == 0);
	/* level 2's max(0, x) keep the NaN (perf 7.3 printed nan in all eight cpu_core
	 * columns of an E core at --td-level 2 --per-core), machine clears' too though bad
	 * speculation is 0 */
	assert_true(isnan(t.light_ops) && isnan(t.machine_clears) && isnan(t.fetch_bw) &&
		    isnan(t.core_bound));
}

/* Alder Lake's cpu_core formulas (adl-metrics.json; perf 7.3 printed 26.4 / 11.3 for these
 * counts with UOP_DROPPING 5e4 over 1e6 slots on the simulated PMU): frontend bound and
 * fetch latency less UOP_DROPPING / slots, bad speculation and machine clears the rest */
static void less_uop_dropping(void **state)
{
	const double td[8] = { 250980, 62745, 313725, 372549, 0, 20000, 200000, 0 };
	struct pmt_topdown t;

	(void)state;
	assert_int_equal(pmt_topdown_from_counts(1e6, td, &t), 0);
	assert_int_equal(pmt_topdown_less_uop_dropping(&t, 5e4), 0);
	NEAR(t.fe_bound, 313725.0 / 999999 - 0.05);
	NEAR(t.fetch_lat, 200000.0 / 999999 - 0.05);
	NEAR(t.bad_spec, 1 - (t.fe_bound + t.be_bound + t.retiring));
	NEAR(t.machine_clears, t.bad_spec - 20000.0 / 999999);
	NEAR(t.fetch_bw, t.fe_bound - t.fetch_lat);
	assert_true(fabs(100 * t.fe_bound - 26.4) < 0.05);
	assert_true(fabs(100 * t.bad_spec - 11.3) < 0.05);
	/* more dropped than the frontend bound: negative, as perf prints it */
	assert_int_equal(pmt_topdown_from_counts(1e6, td, &t), 0);
	assert_int_equal(pmt_topdown_less_uop_dropping(&t, 4e5), 0);
	assert_true(t.fe_bound < 0);
	t.slots = 0;
	assert_int_equal(pmt_topdown_less_uop_dropping(&t, 1), -PMT_EINVAL);
}

/* Lunar Lake's cpu_core bad speculation: topdown-bad-spec's share, machine clears from it;
 * without counts NaN, where max(1 - NaN, 0) gives 0 (perf 7.3 printed nan on an E core) */
static void bad_spec_counted(void **state)
{
	const double td[8] = { 250980, 62745, 313725, 372549, 0, 20000, 200000, 0 };
	const double none[8] = { 0 };
	struct pmt_topdown t;

	(void)state;
	assert_int_equal(pmt_topdown_from_counts(1e6, td, &t), 0);
	assert_int_equal(pmt_topdown_bad_spec_counted(&t, td), 0);
	NEAR(t.bad_spec, 62745.0 / 999999);
	NEAR(t.machine_clears, (62745.0 - 20000) / 999999);
	assert_int_equal(pmt_topdown_from_counts(0, none, &t), -PMT_EINVAL);
	assert_true(t.bad_spec == 0);
	assert_int_equal(pmt_topdown_bad_spec_counted(&t, none), -PMT_EINVAL);
	assert_true(isnan(t.bad_spec) && isnan(t.machine_clears));
}

static void cli_topdown(void **state)
{
	const char *bin = getenv("PMUTRACE");
	char cmd[512], line[256];
	FILE *fp;
	int found = 0;

	if (!bin) {
		skip();
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s metrics --topdown --slots 1000000 --perf-metrics "
		 "0x40300C085F501040 --csv", bin);
	fp = popen(cmd, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		if (!strcmp(line, "tma_retiring,1,25.098025,%\n"))
			found |= 1;
		if (!strcmp(line, "tma_core_bound,2,12.156912,%\n")) /* 121569/999999 */
			found |= 2;
	}
	assert_int_equal(pclose(fp), 0);
	assert_int_equal(found, 3);
}

/* stat --td-level's columns: perf 7.3's order on Granite Rapids (tests/stat/topdown_stat.sh
 * compares the printed heads), and each one's value from the reference vector by hand */
static void level_columns(void **state)
{
	const char *const *names;
	struct pmt_topdown t;

	assert_int_equal(pmt_topdown_columns(1, &names), 4);
	assert_string_equal(names[0], "tma_frontend_bound");
	assert_string_equal(names[3], "tma_backend_bound");
	assert_int_equal(pmt_topdown_columns(2, &names), 8);
	assert_string_equal(names[0], "tma_memory_bound");
	assert_string_equal(names[7], "tma_fetch_bandwidth");
	assert_int_equal(pmt_topdown_columns(0, &names), -PMT_EINVAL);
	assert_int_equal(pmt_topdown_columns(3, &names), -PMT_EINVAL);
	assert_int_equal(pmt_topdown_decode(1000000, 0x40300C085F501040ULL, 0, 0, &t), 0);
	NEAR(pmt_topdown_pct(&t, "tma_frontend_bound"), 100 * 313725.0 / 999999);
	NEAR(pmt_topdown_pct(&t, "tma_bad_speculation"), 100 * 62745.0 / 999999);
	NEAR(pmt_topdown_pct(&t, "tma_memory_bound"), 100 * 250980.0 / 999999);
	NEAR(pmt_topdown_pct(&t, "tma_core_bound"), 100 * (372549.0 - 250980) / 999999);
	NEAR(pmt_topdown_pct(&t, "tma_light_operations"), 100 * (250980.0 - 31372) / 999999);
	NEAR(pmt_topdown_pct(&t, "tma_heavy_operations"), 100 * 31372.0 / 999999);
	NEAR(pmt_topdown_pct(&t, "tma_machine_clears"), 100 * (62745.0 - 47058) / 999999);
	NEAR(pmt_topdown_pct(&t, "tma_branch_mispredicts"), 100 * 47058.0 / 999999);
	NEAR(pmt_topdown_pct(&t, "tma_fetch_latency"), 100 * 188235.0 / 999999);
	NEAR(pmt_topdown_pct(&t, "tma_fetch_bandwidth"), 100 * (313725.0 - 188235) / 999999);
	assert_true(isnan(pmt_topdown_pct(&t, "tma_retiring_x")));
}

static double atom_pct(const struct pmt_topdown_hybrid *h, const double count[PMT_TDA_NR],
		       unsigned col)
{
	struct pmt_topdown t;

	assert_int_equal(pmt_topdown_atom_eval(h, count, &t), 0);
	assert_true(h->col[col].atom);
	return pmt_topdown_pct(&t, h->col[col].name);
}

/* a hybrid part's cpu_atom level 1: perf 7.3 (Alder Lake table, the simulated PMU of
 * tests/stat/hybrid_stat.sh) read 21194 CPU_CLK_UNHALTED.CORE, 29706 TOPDOWN_RETIRING.ALL,
 * 38990 TOPDOWN_FE_BOUND.ALL and 19038 TOPDOWN_BE_BOUND.ALL and printed bad speculation
 * 17.2, retiring 28.0, frontend 36.8, backend 18.0 (%8.1f), in that column order after the
 * core's four */
static void atom_level1(void **state)
{
	const struct pmt_topdown_hybrid *h = pmt_topdown_hybrid("alderlake_hybrid", 1);
	double count[PMT_TDA_NR] = { [PMT_TDA_CYCLES] = 21194, [PMT_TDA_RETIRING] = 29706,
				     [PMT_TDA_FE_BOUND] = 38990, [PMT_TDA_BE_BOUND] = 19038 };
	struct pmt_topdown t;
	char buf[64];

	assert_non_null(h);
	assert_int_equal(h->nr_cols, 8);
	assert_string_equal(h->col[0].name, "tma_frontend_bound");
	assert_false(h->col[3].atom);
	assert_string_equal(h->col[4].name, "tma_bad_speculation");
	assert_string_equal(h->col[7].name, "tma_backend_bound");
	assert_int_equal(h->slots_per_cycle, 5);
	snprintf(buf, sizeof(buf), "%.1f %.1f %.1f %.1f", atom_pct(h, count, 4),
		 atom_pct(h, count, 5), atom_pct(h, count, 6), atom_pct(h, count, 7));
	assert_string_equal(buf, "17.2 28.0 36.8 18.0");
	/* 5 slots a cycle; bad speculation not clamped at 0 as the P-core's is */
	count[PMT_TDA_CYCLES] = 100;
	count[PMT_TDA_FE_BOUND] = 300;
	count[PMT_TDA_BE_BOUND] = 200;
	count[PMT_TDA_RETIRING] = 100;
	assert_int_equal(pmt_topdown_atom_eval(h, count, &t), 0);
	NEAR(pmt_topdown_pct(&t, "tma_bad_speculation"), -20.0);
	NEAR(pmt_topdown_pct(&t, "tma_frontend_bound"), 60.0);
	/* perf's division by 0 cycles: NaN, left to the caller */
	count[PMT_TDA_CYCLES] = 0;
	assert_int_equal(pmt_topdown_atom_eval(h, count, &t), -PMT_EINVAL);
	assert_null(pmt_topdown_hybrid("alderlake_hybrid", 3));
	assert_null(pmt_topdown_hybrid("sapphire_rapids", 1));
}

/* level 2 on the Alder Lake tree: perf 7.3 -C 8 (an atom CPU) printed machine_clears 34.0,
 * core_bound 5.6, branch_mispredicts 4.8, ifetch_latency 7.3, ifetch_bandwidth 21.7,
 * resource_bound 12.4 from the simulated PMU's rates of TOPDOWN_BAD_SPECULATION.
 * MACHINE_CLEARS 9010, TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS 1472, .MISPREDICT 1284,
 * TOPDOWN_FE_BOUND.FRONTEND_LATENCY 1934, CPU_CLK_UNHALTED.CORE 5297, .FRONTEND_BANDWIDTH
 * 5759, TOPDOWN_BE_BOUND.ALL 4758; its column order puts the atom's machine_clears before
 * the core's eight and the rest after */
static void atom_level2(void **state)
{
	const struct pmt_topdown_hybrid *h = pmt_topdown_hybrid("alderlake_hybrid", 2);
	const double count[PMT_TDA_NR] = {
		[PMT_TDA_MACHINE_CLEARS] = 9010, [PMT_TDA_ALLOC_RESTRICTIONS] = 1472,
		[PMT_TDA_MISPREDICT] = 1284, [PMT_TDA_FE_LATENCY] = 1934,
		[PMT_TDA_CYCLES] = 5297, [PMT_TDA_FE_BANDWIDTH] = 5759, [PMT_TDA_BE_BOUND] = 4758,
	};
	char buf[64];

	assert_non_null(h);
	assert_int_equal(h->nr_cols, 14);
	assert_int_equal(h->nr_events, 7);
	assert_string_equal(h->col[1].name, "tma_memory_bound");
	assert_false(h->col[1].atom);
	assert_string_equal(h->col[5].name, "tma_fetch_latency");
	assert_string_equal(h->col[8].name, "tma_branch_mispredicts");
	snprintf(buf, sizeof(buf), "%.1f %.1f %.1f %.1f %.1f %.1f", atom_pct(h, count, 0),
		 atom_pct(h, count, 9), atom_pct(h, count, 10), atom_pct(h, count, 11),
		 atom_pct(h, count, 12), atom_pct(h, count, 13));
	assert_string_equal(buf, "34.0 5.6 4.8 7.3 21.7 12.4");
}

/* Meteor Lake's Crestmont takes 6 slots a cycle and counts bad speculation
 * (TOPDOWN_BAD_SPECULATION.ALL_P), Lunar/Arrow Lake's Skymont 8 (perf 7.3's -vv formulas
 * for GenuineIntel-6-AA and 6-BD/C5); Arrow Lake-S's PMU is named lunarlake_hybrid */
static void atom_widths(void **state)
{
	const struct pmt_topdown_hybrid *mtl = pmt_topdown_hybrid("meteorlake_hybrid", 1);
	const struct pmt_topdown_hybrid *lnl = pmt_topdown_hybrid("lunarlake_hybrid", 1);
	const struct pmt_topdown_hybrid *arl = pmt_topdown_hybrid("arrowlake_h_hybrid", 2);
	const double count[PMT_TDA_NR] = { [PMT_TDA_CYCLES] = 100, [PMT_TDA_BAD_SPEC] = 60,
					   [PMT_TDA_FE_BOUND] = 300, [PMT_TDA_BE_BOUND] = 120,
					   [PMT_TDA_ALLOC_RESTRICTIONS] = 40 };
	struct pmt_topdown t;

	assert_non_null(mtl);
	assert_non_null(lnl);
	assert_non_null(arl);
	assert_int_equal(pmt_topdown_atom_eval(mtl, count, &t), 0);
	NEAR(pmt_topdown_pct(&t, "tma_bad_speculation"), 10.0);
	NEAR(pmt_topdown_pct(&t, "tma_frontend_bound"), 50.0);
	assert_int_equal(pmt_topdown_atom_eval(lnl, count, &t), 0);
	NEAR(pmt_topdown_pct(&t, "tma_bad_speculation"), 7.5);
	assert_int_equal(pmt_topdown_atom_eval(arl, count, &t), 0);
	NEAR(pmt_topdown_pct(&t, "tma_resource_bound"), 10.0);
	/* perf's first column on both: the atom's backend_bound */
	assert_true(mtl->col[0].atom);
	assert_string_equal(lnl->col[0].name, "tma_backend_bound");
	assert_string_equal(lnl->col[1].name, "tma_retiring");
	assert_false(lnl->col[1].atom);
}

/* perf's metricgroups__topdown_max_level(): the first TopdownL of each metric's groups */
static void table_max_level(void **state)
{
	static const char json[] =
		"[{\"MetricName\": \"a\", \"MetricExpr\": \"1\", \"MetricGroup\": \"Default;TopdownL2\"},"
		" {\"MetricName\": \"b\", \"MetricExpr\": \"1\", \"MetricGroup\": \"TopdownL1;TopdownL5\"},"
		" {\"MetricName\": \"c\", \"MetricExpr\": \"1\"}]";
	struct pmt_metric_set ms = { 0 }, none = { 0 };

	/* b's TopdownL5 comes after its TopdownL1: perf does not see it */
	assert_int_equal(pmt_metric_set_load_mem(&ms, json, sizeof(json) - 1, "t", NULL), 3);
	assert_int_equal(pmt_metric_set_topdown_max_level(&ms), 2);
	pmt_metric_set_fini(&ms);
	assert_int_equal(pmt_metric_set_topdown_max_level(&none), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reference_vector),
		cmocka_unit_test(delta_between_reads),
		cmocka_unit_test(level1_normalised),
		cmocka_unit_test(from_counts),
		cmocka_unit_test(less_uop_dropping),
		cmocka_unit_test(bad_spec_counted),
		cmocka_unit_test(cli_topdown),
		cmocka_unit_test(level_columns),
		cmocka_unit_test(atom_level1),
		cmocka_unit_test(atom_level2),
		cmocka_unit_test(atom_widths),
		cmocka_unit_test(table_max_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
