/* stat's run state and its -M metrics (stat_metrics.c), shared with cmd_stat.c: the metric
 * table, the events perf stat -M opens for it, and the metric lines or columns it prints. */
#ifndef PMT_CLI_STAT_METRICS_H
#define PMT_CLI_STAT_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmutrace/common.h"
#include "pmutrace/counting.h"
#include "pmutrace/events.h"
#include "pmutrace/metrics.h"
#include "pmutrace/pmu.h"
#include "stat_metric_layout.h"
#include "stat_topdown.h"

struct run {
	struct pmt_count_plan plan;
	struct pmt_counter *ctr;
	struct pmt_stat *stat;
	struct pmt_stat_file *file;
	struct pmt_workload wl;
	int32_t *threads;
	int nthreads;
	enum pmt_aggr aggr;
	uint64_t interval_ms;
	struct pmt_stat_print_opts po;
	FILE *out;
	/* -M */
	struct pmt_metric_set ms;
	struct pmt_metric_plan *mplan;
	const char *sel[64];
	size_t nsel;
	const char *metrics_file;
	const char *retlat_file;        /* --retire-latency */
	struct stat_topdown td;         /* --topdown */
	struct stat_ml ml;              /* -M's metrics in perf's `#` column */
	uint32_t metric_first;          /* the first event -M opened (after -e's) */
	/* several grouped metrics: perf's lists and each list's first event in the plan */
	struct pmt_perf_lists pl;
	uint32_t *list_first;
	const char *cpu_list;           /* -C */
	/* -r N */
	uint32_t runs, run;
	struct pmt_run_stats elapsed;
};

void print_metrics(struct run *r);
void print_topdown(struct run *r);
void print_counts_metrics(struct run *r);
int setup_metrics(struct run *r);
int stat_retlat_values(struct run *r);
size_t add_inputs(struct run *r, const char *id, bool *done, char *list, size_t n);
bool ml_layout_wanted(const struct run *r);
bool ml_thresholds(const struct run *r);
int metric_events(struct run *r, struct pmt_evlist *ev, const struct pmt_pmus *pmus,
		  const struct pmt_events_opts *eo, struct pmt_diag *d);

#endif
