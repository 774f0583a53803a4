/* pmutrace decode/metrics: the metric rows of a recording (pmutrace/metrics.h includes it;
 * a header of its own to keep that one under the house's size). */
#ifndef PMUTRACE_METRIC_ROWS_H
#define PMUTRACE_METRIC_ROWS_H

#include "pmutrace/metrics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rows `pmutrace metrics TRACE` prints, for outputs that show them elsewhere (export's
 * databases, report --html): the counts of the trace (its STAT records, round by round) or
 * of a perf stat file, the retire latencies of its samples, the tables' defaults. */
struct pmt_metric_rows_opts {
	size_t sz;                      /* sizeof(struct pmt_metric_rows_opts) */
	const char *const *tables;      /* metric tables (perf or Intel JSON), ntables of them */
	size_t ntables;
	const char *const *retlat_tables; /* retire-latency tables, nretlat_tables of them */
	size_t nretlat_tables;
	const char *const *select;      /* metric or group names; nselect 0: every metric */
	size_t nselect;
	enum pmt_retlat_stat stat;      /* the samples' statistic an :R input takes */
	double pct;                     /* with PMT_RETLAT_PCT */
	const char *counts;             /* perf stat -x/-j output; NULL: the trace's counts */
	const struct pmt_expr_ctx *ctx; /* NULL: pmt_expr_ctx_default() */
};
struct pmt_metric_retlat {
	const char *event;              /* the input as the metric names it ("EV:R"), normalised */
	double measured, dflt;
};
struct pmt_metric_row {
	const char *interval, *aggr;    /* the counts' unit ("" for a whole-run total) */
	const char *pmu;                /* hybrid tables' PMU, else "" */
	const char *name, *unit;
	/* the tree: a metric in the group "P_group" of a selected metric P is P's child
	 * (perf's TMA tables), rows come parent first */
	unsigned depth;
	double value;                   /* ScaleUnit applied; NAN when not computed */
	const char *missing;            /* the event the counts lack (value NAN), or NULL */
	int8_t threshold;               /* 1 over, 0 not, -1 none */
	/* the retire latency (cycles) of each :R input of the metric, in the order of its
	 * inputs: from the trace's samples (NAN: none sampled) and the tables' default (NAN:
	 * no entry); the value was computed with the first of the two there is (then a
	 * counts file's, then 0). retlat_measured/_default repeat retlat[0] (NAN: none). */
	const struct pmt_metric_retlat *retlat;
	size_t nr_retlat;
	double retlat_measured, retlat_default;
};
typedef int (*pmt_metric_row_fn)(const struct pmt_metric_row *row, void *ctx);
/* fn for every row, unit by unit, round by round; fn's negative value stops. Returns the
 * rows or -PMT_E* with diag set (a table or the trace that cannot be read). Substitutions
 * and uncounted events are logged as warnings, as `pmutrace metrics` logs them. */
PMT_API int pmt_metric_rows_trace(const char *trace, const struct pmt_metric_rows_opts *o,
				  pmt_metric_row_fn fn, void *ctx, struct pmt_diag *diag);

#ifdef __cplusplus
}
#endif
#endif
