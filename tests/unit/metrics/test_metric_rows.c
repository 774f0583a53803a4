/* pmt_metric_rows_trace: a recording's metric rows with their tree and retire latencies.
 * The trace is written here (three LOCK_LOADS samples, retire latencies 10, 20 and 33:
 * mean 21, rint 21), the counts are a perf stat -x, file, the default comes from the
 * event JSON fixture (RetirementLatencyMean 63.76 -> 64). Expected values by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pmutrace/common.h"
#include "pmutrace/perf_abi.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/metrics.h"

#define EVJ PMT_SOURCE_DIR "/fixtures/events/gnr_tpebs.json"

static char dir[64], trace[96], table[96], counts[96];

/* parent first in the tree although the table lists the child first: tma_lock_latency is
 * in tma_memory_bound_group */
static const char metrics_json[] =
	"[{\"MetricName\": \"tma_lock_latency\", \"MetricGroup\": \"tma_memory_bound_group\","
	"  \"MetricExpr\": \"MEM_INST_RETIRED.LOCK_LOADS * MEM_INST_RETIRED.LOCK_LOADS:R / "
	"CPU_CLK_UNHALTED.THREAD\", \"ScaleUnit\": \"100%\"},"
	" {\"MetricName\": \"tma_memory_bound\", \"MetricGroup\": \"TopdownL2\","
	"  \"MetricExpr\": \"CPU_CLK_UNHALTED.THREAD / 4e9\", \"ScaleUnit\": \"100%\"},"
	" {\"MetricName\": \"cs_rate\", \"MetricGroup\": \"Software\","
	"  \"MetricExpr\": \"context\\\\-switches / CPU_CLK_UNHALTED.THREAD\"}]";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	static const uint16_t lat[] = { 10, 20, 33 };
	struct pmt_perf_writer *w;
	struct pmt_perf_attr a = { 0 };
	uint64_t id = 100;

	(void)state;
	strcpy(dir, "/tmp/pmt_mrows_XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(trace, sizeof(trace), "%s/t.data", dir);
	snprintf(table, sizeof(table), "%s/m.json", dir);
	snprintf(counts, sizeof(counts), "%s/c.csv", dir);
	write_file(table, metrics_json);
	write_file(counts, "1000000,,MEM_INST_RETIRED.LOCK_LOADS,1000000,100.00,,\n"
			   "2000000000,,CPU_CLK_UNHALTED.THREAD,1000000,100.00,,\n");
	if (pmt_perf_writer_open(trace, NULL, &w))
		return -1;
	a.type = 4;
	a.config = 0x21d0;
	a.sample_period = 100007;
	a.sample_type = PMT_SAMPLE_IDENTIFIER | PMT_SAMPLE_IP | PMT_SAMPLE_TID | PMT_SAMPLE_TIME |
			PMT_SAMPLE_WEIGHT_STRUCT;
	/* an attr of at most PMT_ATTR_SIZE_MAX bytes: what a trace keeps of one */
	if (pmt_perf_writer_add_attr(w, &a, PMT_ATTR_SIZE_MAX, &id, 1,
				      "MEM_INST_RETIRED.LOCK_LOADS:p"))
		return -1;
	for (size_t i = 0; i < 3; i++) {
		struct pmt_sample s = { .id = 100, .pid = 1, .tid = 1, .ip = 0x401000,
					.time = 1000 + i, .weight = (uint64_t)lat[i] << 48 };

		if (pmt_perf_writer_write_sample(w, &s))
			return -1;
	}
	return pmt_perf_writer_close(w);
}

static int teardown(void **state)
{
	(void)state;
	unlink(trace);
	unlink(table);
	unlink(counts);
	rmdir(dir);
	return 0;
}

struct got {
	int n, stop_after;
	char name[4][64];
	unsigned depth[4];
	double value[4], measured[4], dflt[4];
	bool missing[4];
};

static int take(const struct pmt_metric_row *r, void *ctx)
{
	struct got *g = ctx;

	if (g->n == g->stop_after)
		return -PMT_ERANGE;
	if (g->n < 4) {
		snprintf(g->name[g->n], sizeof(g->name[0]), "%s", r->name);
		g->depth[g->n] = r->depth;
		g->value[g->n] = r->value;
		g->measured[g->n] = r->retlat_measured;
		g->dflt[g->n] = r->retlat_default;
		g->missing[g->n] = r->missing != NULL;
	}
	g->n++;
	return 0;
}

static void rows_tree_and_latencies(void **state)
{
	const char *tables[] = { table }, *rt[] = { EVJ };
	struct pmt_metric_rows_opts o = PMT_OPTS_INIT(pmt_metric_rows_opts, .tables = tables,
		.ntables = 1, .retlat_tables = rt, .nretlat_tables = 1, .counts = counts);
	struct got g = { .stop_after = -1 };
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	assert_int_equal(pmt_metric_rows_trace(trace, &o, take, &g, &d), 3);
	assert_int_equal(g.n, 3);
	/* the table's order but the child under its parent */
	assert_string_equal(g.name[0], "tma_memory_bound");
	assert_string_equal(g.name[1], "tma_lock_latency");
	assert_string_equal(g.name[2], "cs_rate");
	assert_int_equal(g.depth[0], 0);
	assert_int_equal(g.depth[1], 1);
	assert_int_equal(g.depth[2], 0);
	/* 100 * 2e9 / 4e9 = 50 %; 100 * 1e6 * 21 / 2e9 = 1.05 % */
	assert_true(fabs(g.value[0] - 50) < 1e-9);
	assert_true(fabs(g.value[1] - 1.05) < 1e-9);
	assert_true(g.measured[1] == 21 && g.dflt[1] == 64);
	assert_true(isnan(g.measured[0]) && isnan(g.dflt[0]));
	/* context-switches is not in the counts: not computed */
	assert_true(g.missing[2] && isnan(g.value[2]));
	assert_false(g.missing[0] || g.missing[1]);
}

static void rows_statistic_max(void **state)
{
	const char *tables[] = { table }, *rt[] = { EVJ }, *sel[] = { "tma_lock_latency" };
	struct pmt_metric_rows_opts o = PMT_OPTS_INIT(pmt_metric_rows_opts, .tables = tables,
		.ntables = 1, .retlat_tables = rt, .nretlat_tables = 1, .counts = counts,
		.select = sel, .nselect = 1, .stat = PMT_RETLAT_MAX);
	struct got g = { .stop_after = -1 };
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	/* the max of the samples (33) is measured; the table's RetirementLatencyMax the
	 * default (5156 in the fixture) */
	assert_int_equal(pmt_metric_rows_trace(trace, &o, take, &g, &d), 1);
	assert_true(g.measured[0] == 33 && g.dflt[0] == 5156);
	assert_true(fabs(g.value[0] - 100 * 1e6 * 33 / 2e9) < 1e-9);
}

static void rows_stop_and_errors(void **state)
{
	const char *tables[] = { table }, *bad[] = { "/nonexistent/m.json" };
	struct pmt_metric_rows_opts o = PMT_OPTS_INIT(pmt_metric_rows_opts, .tables = tables,
		.ntables = 1, .counts = counts);
	struct got g = { .stop_after = 1 };
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	assert_int_equal(pmt_metric_rows_trace(trace, &o, take, &g, &d), -PMT_ERANGE);
	assert_int_equal(g.n, 1);
	o.tables = bad;
	g = (struct got){ .stop_after = -1 };
	assert_true(pmt_metric_rows_trace(trace, &o, take, &g, &d) < 0);
	assert_string_equal(d.file, "/nonexistent/m.json");
	assert_int_equal(g.n, 0);
	assert_int_equal(pmt_metric_rows_trace(trace, NULL, take, &g, &d), -PMT_EINVAL);
}

/* A metric with two :R events: each has its own measured and default latency, in the
 * order the metric names them. LOCK_LOADS is sampled (mean of 10, 20, 33 = 21; default
 * rint(63.76) = 64); L3_HIT has no samples (NAN) and its default rint(57.64) = 58 (the event
 * JSON fixture), which the value then uses: 21 + 58 = 79. */
struct got_rl {
	int n;
	size_t nr;
	char event[2][64];
	double measured[2], dflt[2], value, first_measured;
};

static int take_rl(const struct pmt_metric_row *r, void *ctx)
{
	struct got_rl *g = ctx;

	g->n++;
	g->nr = r->nr_retlat;
	g->value = r->value;
	g->first_measured = r->retlat_measured;
	for (size_t k = 0; k < r->nr_retlat && k < 2; k++) {
		snprintf(g->event[k], sizeof(g->event[k]), "%s", r->retlat[k].event);
		g->measured[k] = r->retlat[k].measured;
		g->dflt[k] = r->retlat[k].dflt;
	}
	return 0;
}

static void rows_every_retlat_event(void **state)
{
	char two[128];
	const char *tables[] = { two }, *rt[] = { EVJ };
	struct pmt_metric_rows_opts o = PMT_OPTS_INIT(pmt_metric_rows_opts, .tables = tables,
		.ntables = 1, .retlat_tables = rt, .nretlat_tables = 1, .counts = counts);
	struct got_rl g = { 0 };
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	snprintf(two, sizeof(two), "%s/two.json", dir);
	write_file(two, "[{\"MetricName\": \"two_r\", \"MetricExpr\": "
			"\"MEM_INST_RETIRED.LOCK_LOADS:R + MEM_LOAD_RETIRED.L3_HIT:R\"}]");
	assert_int_equal(pmt_metric_rows_trace(trace, &o, take_rl, &g, &d), 1);
	unlink(two);
	assert_int_equal(g.nr, 2);
	assert_string_equal(g.event[0], "MEM_INST_RETIRED.LOCK_LOADS:R");
	assert_string_equal(g.event[1], "MEM_LOAD_RETIRED.L3_HIT:R");
	assert_true(g.measured[0] == 21 && g.dflt[0] == 64);
	assert_true(isnan(g.measured[1]) && g.dflt[1] == 58);
	assert_true(g.first_measured == 21);
	assert_true(fabs(g.value - 79) < 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_tree_and_latencies),
		cmocka_unit_test(rows_statistic_max),
		cmocka_unit_test(rows_stop_and_errors),
		cmocka_unit_test(rows_every_retlat_event),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
