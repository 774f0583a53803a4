/* Retire latencies for a plan's :R inputs: the policy perf's evsel__tpebs_read follows,
 * with the fallbacks a recording made elsewhere needs. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

/* perf stat --record-tpebs prints the :R value on the first CPU only (the others get 0,
 * tpebs.md §2), so the first finite non-zero value of the column stands for all units. */
static int counts_retlat(const struct pmt_counts *c, int col, double *v)
{
	for (size_t u = 0; col >= 0 && u < pmt_counts_nr_units(c); u++) {
		double x = pmt_counts_get(c, u, (size_t)col);

		if (isfinite(x) && x != 0) {
			*v = x;
			return 1;
		}
	}
	return 0;
}

void pmt_metric_plan_fill_retlat(struct pmt_metric_plan *plan, const struct pmt_counts *c,
				 const struct pmt_retlat_samples *smp,
				 const struct pmt_retlat_table *tab, enum pmt_retlat_stat stat,
				 double pct)
{
	for (size_t i = 0; i < pmt_metric_plan_nr_inputs(plan); i++) {
		struct pmt_metric_input *in = pmt_metric_plan_input(plan, i);
		double v;
		int r, seen = 0;

		if (in->kind != PMT_MIN_RETLAT)
			continue;
		/* one warning per event, however many spellings the metrics use */
		for (size_t j = 0; j < i && !seen; j++) {
			const struct pmt_metric_input *o = pmt_metric_plan_input(plan, j);

			seen = o->kind == PMT_MIN_RETLAT && !strcmp(o->key.event, in->key.event);
		}
		r = pmt_retlat_value(smp, tab, in->id, stat, pct, &v);
		if (r == 1) {
			in->value = v;
		} else if (counts_retlat(c, in->count_idx, &v)) {
			in->value = v;
			if (!seen)
				pmt_warn("no retire-latency samples for %s: using %g from the counts "
					 "file", in->key.event, v);
		} else if (r == 0) {
			in->value = v;
			if (!seen)
				pmt_warn("no retire-latency samples for %s: using the table default "
					 "%g%s", in->key.event, v,
					 stat == PMT_RETLAT_PCT || stat == PMT_RETLAT_MEDIAN ?
					 " (the table's MEAN unless it has MEDIAN/Values)" : "");
		} else {
			in->value = 0;
			if (!seen)
				pmt_warn("no retire-latency samples or table entry for %s: using 0",
					 in->key.event);
		}
		in->value_all = in->value;
		in->warned_unit = 0;
		if (pmt_retlat_value(NULL, tab, in->id, stat, pct, &v) != 0)
			v = NAN;
		in->value_default = v;
	}
}

void pmt_metric_plan_fill_retlat_sel(struct pmt_metric_plan *plan,
				     const struct pmt_retlat_sel *sel, const char *unit,
				     const struct pmt_retlat_samples *smp,
				     enum pmt_retlat_stat stat, double pct)
{
	bool interval = sel->t_until != 0;

	for (size_t i = 0; smp && i < pmt_metric_plan_nr_inputs(plan); i++) {
		struct pmt_metric_input *in = pmt_metric_plan_input(plan, i);
		bool table = interval && !isnan(in->value_default);
		double v;

		if (in->kind != PMT_MIN_RETLAT)
			continue;
		if (pmt_retlat_value_sel(smp, in->key.event, sel, stat, pct, &v) == 1) {
			in->value = v;
			continue;
		}
		in->value = table ? in->value_default : in->value_all;
		/* an event without samples at all was named by fill_retlat already */
		if (!in->warned_unit && pmt_retlat_dist_find(smp, in->key.event) >= 0)
			pmt_warn("no retire-latency samples of %s in %s %s (the first without): "
				 "using %s, %g", in->key.event, interval ? "interval" : "unit",
				 unit, table ? "the table's default" : "the value of every "
				 "unit's samples", in->value);
		in->warned_unit = 1;
	}
}

void pmt_metric_plan_fill_retlat_unit(struct pmt_metric_plan *plan, const struct pmt_counts *c,
				      size_t unit, const struct pmt_retlat_samples *smp,
				      enum pmt_retlat_stat stat, double pct)
{
	const char *ag = pmt_counts_unit_aggr(c, unit);
	int32_t cpu = -1;
	int end = 0;
	struct pmt_retlat_sel sel = { .cpus = &cpu, .nr_cpus = 1 };

	/* perf stat -A names a CPU unit "CPU3" */
	if (!smp || !ag || sscanf(ag, "CPU%d%n", &cpu, &end) != 1 || ag[end] || cpu < 0)
		return;
	pmt_metric_plan_fill_retlat_sel(plan, &sel, ag, smp, stat, pct);
}
