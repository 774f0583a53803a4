/* stat -M in perf 7.3's layout, wired by cmd_stat.c: each metric printed as a `#` value on
 * the line of the event perf 7.3 displays it on (metricgroup.c's pick_display_evsel(), see
 * pmt_metric_set_perf_display()), instead of pmutrace's metric lines after the counts. */
#ifndef PMT_CLI_STAT_METRIC_LAYOUT_H
#define PMT_CLI_STAT_METRIC_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmutrace/counting.h"
#include "pmutrace/metrics.h"

struct stat_ml {
	size_t nm;        /* the metrics of perf's list, 0: the layout is off */
	int *ev;          /* [k]: the event index it is printed on, -1 none */
	size_t *plan_idx; /* [k]: the metric's index in the plan */
	char **label;     /* [k]: "%  tma_retiring" (ScaleUnit's unit, the name) or the name */
	double *val;      /* [unit * plan metrics + plan index], the last read's values */
	int8_t *th;       /* the same cells' threshold class (1 over, 0 not, -1 none) */
	uint32_t nunits;
	uint32_t first;   /* the plan's first event of the metrics (-e's come before) */
	size_t plan_nm;
	struct pmt_metric_plan *mplan; /* borrowed */
};

/* On when perf's event order and display events are reproduced for sel (see
 * pmt_metric_set_perf_display()) and every metric is displayed: 0 on or off, < 0 error.
 * The metrics read and are shown on the plan's events from first on (-e's events before
 * them are counted apart, as perf keeps them). pl: several grouped metrics' lists
 * (pmt_metric_set_perf_lists(); list_first[L] the plan's first event of list L), else
 * empty. */
int stat_ml_setup(struct stat_ml *ml, const struct pmt_metric_set *ms, const char *const *sel,
		  size_t nsel, bool thresholds, struct pmt_metric_plan *mplan,
		  const struct pmt_count_plan *plan, uint32_t first,
		  const struct pmt_perf_lists *pl, const uint32_t *list_first);
/* the counts of the plan's events from first on, each unit of st one unit of the result */
struct pmt_counts *stat_metric_counts(const struct pmt_stat *st,
				      const struct pmt_count_plan *plan, uint32_t first);
/* every unit's metric values from the counts of the last read */
void stat_ml_eval(struct stat_ml *ml, const struct pmt_stat *st, const struct pmt_count_plan *plan);
/* pmt_stat_print_opts.metrics: an event's metrics in perf's print order */
size_t stat_ml_metrics(void *ctx, uint32_t u, uint32_t e, struct pmt_stat_metric *out, size_t cap);
void stat_ml_fini(struct stat_ml *ml);

#endif
