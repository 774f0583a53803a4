/* The metric options of export and report --html (a recording's metric rows, as `pmutrace
 * metrics TRACE` computes them): --metrics FILE, -M NAME|GROUP, --events FILE,
 * --retire-latency STAT|TABLE, --counts FILE. */
#ifndef PMT_CLI_METRIC_OPTS_H
#define PMT_CLI_METRIC_OPTS_H

#include <getopt.h>

#include "pmutrace/metrics.h"

enum { MOPT_SELECT = 'M', MOPT_METRICS = 1100, MOPT_EVENTS, MOPT_RETLAT, MOPT_COUNTS };
#define METRIC_LONG_OPTS                                                         \
	{ "metrics", required_argument, NULL, MOPT_METRICS },                    \
	{ "metric", required_argument, NULL, MOPT_SELECT },                      \
	{ "events", required_argument, NULL, MOPT_EVENTS },                      \
	{ "retire-latency", required_argument, NULL, MOPT_RETLAT },              \
	{ "counts", required_argument, NULL, MOPT_COUNTS }
#define METRIC_USAGE                                                                        \
	"  --metrics FILE (with -M NAME|GROUP, --events FILE, --retire-latency STAT|TABLE,\n"  \
	"      --counts FILE, as pmutrace metrics takes them): the recording's metric rows\n"   \
	"      (its STAT records or --counts, retire latencies from its samples, measured\n"   \
	"      beside the tables' default)\n"

struct metric_opts {
	const char **tables, **retlat_tables, **select;
	size_t ntables, nretlat_tables, nselect;
	enum pmt_retlat_stat stat;
	double pct;
	const char *counts;
};
/* c, one of the MOPT_* codes: 0 taken, 1 not a metric option, or an exit status */
int metric_opt(struct metric_opts *m, const char *cmd, int c, const char *arg);
/* any metric option without --metrics is a usage error: the exit status, else 0 */
int metric_opts_check(const struct metric_opts *m, const char *cmd);
/* fn for every metric row of trace (nothing without --metrics): 0 or an exit status */
int metric_opts_rows(const struct metric_opts *m, const char *cmd, const char *trace,
		     pmt_metric_row_fn fn, void *ctx);
void metric_opts_fini(struct metric_opts *m);
/* pmt_metric_row_fn for report --html: the row into the page's tree (ctx: struct pmt_html) */
int metric_row_to_html(const struct pmt_metric_row *r, void *ctx);
/* s appended to the growing array *arr of *n: 0 or -PMT_ENOMEM */
int cli_push_arg(const char ***arr, size_t *n, const char *s);

#endif
