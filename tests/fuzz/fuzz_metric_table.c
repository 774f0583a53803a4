/* Fuzz the metric table loader (perf pmu-events JSON and Intel perfmon JSON): load, plan
 * every metric (lenient: the ones that fail are left out), bind an empty count set and
 * evaluate; perf's event order of the groups the metrics name as ungrouped, and perf's
 * --topdown columns of the groups they name (expr.y's ID maps, "if" decided). Seeds:
 * small tables, and chains, cycles and diamonds of references. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

static void quiet(enum pmt_log_level level, const char *msg, void *ctx) { }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_metric_set ms = { 0 };
	struct pmt_metric_plan *p;
	struct pmt_counts *c;

	pmt_log_set_sink(quiet, NULL);
	if (pmt_metric_set_load_mem(&ms, (const char *)data, size, "fuzz", NULL) <= 0)
		goto out;
	for (size_t i = 0; i < ms.nr && i < 8; i++) {
		char group[64], **ids;

		if (!ms.m[i].nogroup)
			continue;
		snprintf(group, sizeof(group), "%.*s", (int)strcspn(ms.m[i].nogroup, ";"),
			 ms.m[i].nogroup);
		if (pmt_metric_set_perf_events(&ms, group, &ids) >= 0)
			pmt_perf_events_free(ids);
	}
	for (size_t i = 0; i < ms.nr && i < 8; i++) {
		const struct pmt_metric **cols = calloc(ms.nr + 1, sizeof(*cols));
		struct pmt_expr_ctx ctx;
		char group[64];

		if (!ms.m[i].groups || !cols) {
			free(cols);
			continue;
		}
		pmt_expr_ctx_default(&ctx);
		ctx.smt_on = (double)(i & 1);
		snprintf(group, sizeof(group), "%.*s", (int)strcspn(ms.m[i].groups, ";"),
			 ms.m[i].groups);
		(void)pmt_metric_set_perf_topdown(&ms, group, &ctx, i & 2, cols);
		free(cols);
	}
	/* -M of several names: the first metric's name and its first group */
	if (ms.nr && ms.m[0].groups) {
		struct pmt_perf_lists pl;
		char group[64];
		const char *sel[2] = { ms.m[0].name, group };

		snprintf(group, sizeof(group), "%.*s", (int)strcspn(ms.m[0].groups, ";"),
			 ms.m[0].groups);
		if (pmt_metric_set_perf_lists(&ms, sel, 2, true, &pl) >= 0)
			pmt_perf_lists_fini(&pl);
	}
	if (pmt_metric_plan_new(&ms, NULL, 0, NULL, &p, NULL) == 0) {
		size_t n = pmt_metric_plan_nr_metrics(p);
		double *v = calloc(n + 1, sizeof(*v));
		int8_t *th = calloc(n + 1, 1);

		if (v && th && pmt_counts_new(&c) == 0) {
			pmt_counts_unit(c, NULL, NULL);
			pmt_metric_plan_bind(p, c);
			pmt_metric_plan_eval(p, c, 0, v, th);
			pmt_counts_free(c);
		}
		free(v);
		free(th);
		pmt_metric_plan_free(p);
	}
out:
	pmt_metric_set_fini(&ms);
	return 0;
}
