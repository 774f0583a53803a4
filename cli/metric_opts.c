/* The metric options export and report --html share (metric_opts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/metrics.h"
#include "pmutrace/output.h"
#include "metric_opts.h"

int cli_push_arg(const char ***arr, size_t *n, const char *s)
{
	const char **a = realloc(*arr, (*n + 1) * sizeof(*a));

	if (!a)
		return -PMT_ENOMEM;
	a[(*n)++] = s;
	*arr = a;
	return 0;
}

int metric_opt(struct metric_opts *m, const char *cmd, int c, const char *arg)
{
	int r;

	switch (c) {
	case MOPT_METRICS: r = cli_push_arg(&m->tables, &m->ntables, arg); break;
	case MOPT_SELECT: r = cli_push_arg(&m->select, &m->nselect, arg); break;
	case MOPT_EVENTS: r = cli_push_arg(&m->retlat_tables, &m->nretlat_tables, arg); break;
	case MOPT_COUNTS: m->counts = arg; return 0;
	case MOPT_RETLAT:
		/* a statistic, or a table file (as pmutrace metrics takes it) */
		r = pmt_retlat_stat_parse(arg, &m->stat, &m->pct);
		if (r == 0)
			return 0;
		if (access(arg, F_OK) == 0)
			r = cli_push_arg(&m->retlat_tables, &m->nretlat_tables, arg);
		else if (r == -PMT_ERANGE)
			return pmt_cli_usage_fail(cmd, "--retire-latency %s: a percentile must be "
						  "above 0 and at most 100", arg);
		else
			return pmt_cli_usage_fail(cmd, "--retire-latency %s: no such file, and not "
						  "a statistic (mean, min, max, last, median, pNN)",
						  arg);
		break;
	default:
		return 1;
	}
	return r < 0 ? pmt_cli_fail(cmd, "out of memory") : 0;
}

int metric_opts_check(const struct metric_opts *m, const char *cmd)
{
	if (!m->ntables && (m->nselect || m->nretlat_tables || m->counts || m->stat))
		return pmt_cli_usage_fail(cmd, "-M, --events, --retire-latency and --counts "
					  "choose metric rows: give the tables with --metrics FILE");
	return 0;
}

int metric_opts_rows(const struct metric_opts *m, const char *cmd, const char *trace,
		     pmt_metric_row_fn fn, void *ctx)
{
	struct pmt_metric_rows_opts o = PMT_OPTS_INIT(pmt_metric_rows_opts,
		.tables = m->tables, .ntables = m->ntables, .retlat_tables = m->retlat_tables,
		.nretlat_tables = m->nretlat_tables, .select = m->select, .nselect = m->nselect,
		.stat = m->stat, .pct = m->pct, .counts = m->counts);
	struct pmt_diag d = PMT_DIAG_INIT;

	if (!m->ntables)
		return 0;
	if (!strcmp(trace, "-"))
		return pmt_cli_usage_fail(cmd, "--metrics reads the trace again: a file, not stdin");
	if (pmt_metric_rows_trace(trace, &o, fn, ctx, &d) < 0)
		return d.code ? pmt_cli_fail_diag(cmd, &d) : 1;
	return 0;
}

void metric_opts_fini(struct metric_opts *m)
{
	free(m->tables);
	free(m->retlat_tables);
	free(m->select);
}

int metric_row_to_html(const struct pmt_metric_row *r, void *ctx)
{
	char where[128];
	struct pmt_html_metric m = { .name = r->name, .unit = r->unit, .depth = r->depth,
				     .value = r->value, .retlat_measured = r->retlat_measured,
				     .retlat_default = r->retlat_default, .where = where,
				     .nr_retlat = r->nr_retlat };
	/* output does not depend on decode/metrics: its own copy of the :R inputs */
	struct pmt_html_retlat *rl = calloc(r->nr_retlat + 1, sizeof(*rl));
	int rc;

	if (!rl)
		return -PMT_ENOMEM;
	for (size_t k = 0; k < r->nr_retlat; k++)
		rl[k] = (struct pmt_html_retlat){ .event = r->retlat[k].event,
						  .measured = r->retlat[k].measured,
						  .dflt = r->retlat[k].dflt };
	m.retlat = rl;
	snprintf(where, sizeof(where), "%s%s%s", r->interval, *r->interval && *r->aggr ? " " : "",
		 r->aggr);
	rc = pmt_html_add_metric(ctx, &m);
	free(rl);
	return rc;
}
