/* pmutrace export FORMAT TRACE -o FILE: the samples of a trace, decoded as script decodes them
 * (spe_decode_consume: the same options), into a database (SQLite) or a profile (pprof). */
#include <stdlib.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/export.h"
#include "metric_opts.h"

static const char export_usage[] =
	"usage: pmutrace export sqlite [-i] [FILE] -o OUT.db [--no-index] [--sqlite-api]\n"
	"         [--itrace=OPTS] [--perf-compat=VER] [--symfs DIR]\n"
	"         [--cpu LIST] [--pid LIST] [--tid LIST] [--time START,STOP|A%-B%]\n"
	"         [--raw [--midr X] [--cpu N] [--tid T]]\n"
	"       pmutrace export pprof [-i] [FILE] -o OUT.pb.gz [same decode options]\n"
	"       pmutrace export postgresql [-i] [FILE] --db CONNINFO [--no-index]\n"
	"         [same decode options]\n"
	"  Writes the samples script --csv prints into a new SQLite database OUT.db (tables\n"
	"  samples, events, threads, comms, dsos, symbols, branch_entries, runs, aux_loss,\n"
	"  aux_loss_ranges, metrics; decode/export/SCHEMA.md).\n"
	"  pprof writes Google's profile.proto, gzip'd: samples aggregated by location, event,\n"
	"  data source, cpu, pid and tid, with sample types samples, total_latency,\n"
	"  issue_latency and translation_latency; functions, lines and mappings (build-ids).\n"
	"  postgresql adds the trace as a new run (runs.id) to the database CONNINFO names\n"
	"  (libpq: \"dbname=D host=H\" or postgresql://...); the tables (SQLite's with a\n"
	"  run_id) are created when missing; the run is committed when complete.\n"
	"  --db CONNINFO: the PostgreSQL database (postgresql only).\n"
	"  -o, --output OUT: the database or profile; written beside OUT and renamed when\n"
	"      complete (pprof: - writes stdout).\n"
	"  --no-index: no indexes on samples (sqlite; for files merged and indexed later).\n"
	"  --sqlite-api: samples and indexes through SQLite's INSERTs, not written as its\n"
	"      b-tree pages (sqlite; slower: for comparison).\n"
	METRIC_USAGE
	"      into the metrics table (sqlite, postgresql).\n"
	"  Formats: sqlite, pprof, postgresql.\n";

enum { OPT_NO_INDEX = 1000, OPT_DB, OPT_SQLITE_API };

enum export_format { FMT_SQLITE, FMT_PPROF, FMT_POSTGRESQL };
static const char *const format_names[] = { "sqlite", "pprof", "postgresql" };

struct export_ctx {
	enum export_format fmt;
	const char *output;
	const char *conninfo; /* --db */
	bool no_index;
	bool sqlite_api;
	char *command; /* runs.command */
	const char *trace; /* as begin() got it: the metric rows read it again */
	struct metric_opts metrics;
	struct pmt_out_file of;
	struct pmt_export *x;
	int sample_failed; /* the database refused a sample: that stopped the decode */
};

static int export_opt(void *ctx, int c, const char *arg)
{
	struct export_ctx *e = ctx;
	int rc = metric_opt(&e->metrics, "export", c, arg);

	if (rc != 1)
		return rc;
	if (c == OPT_NO_INDEX)
		e->no_index = true;
	else if (c == OPT_SQLITE_API)
		e->sqlite_api = true;
	else if (c == OPT_DB)
		e->conninfo = arg;
	else if (c == 'o')
		e->output = arg;
	else
		return PMT_EXIT_USAGE;
	return 0;
}

static int export_begin(void *ctx, const char *path, const struct pmt_trace_meta *meta,
			int compat, struct pmt_symbols *syms)
{
	struct export_ctx *e = ctx;
	struct pmt_export_opts o = PMT_OPTS_INIT(pmt_export_opts, .trace_path = path,
						 .command = e->command, .meta = meta,
						 .compat = compat, .no_index = e->no_index,
						 .symbols = syms, .sqlite_api = e->sqlite_api);
	struct pmt_diag d = PMT_DIAG_INIT;
	const char *inputs[] = { path };
	int rc;

	e->trace = path;
	if ((rc = metric_opts_check(&e->metrics, "export")))
		return rc;

	if (e->fmt == FMT_POSTGRESQL) {
		if (e->output)
			return pmt_cli_usage_fail("export", "-o: postgresql writes to the "
						  "database --db names");
		if (!e->conninfo)
			return pmt_cli_usage_fail("export", "no database: --db CONNINFO names it");
		if (pmt_export_postgresql_new(e->conninfo, &o, &e->x, &d) < 0)
			return pmt_cli_fail_diag("export", &d);
		return 0;
	}
	if (e->conninfo)
		return pmt_cli_usage_fail("export", "--db: only postgresql takes a database "
					  "connection");
	if (!e->output)
		return pmt_cli_usage_fail("export", "no output: %s",
					  e->fmt == FMT_SQLITE ? "-o FILE.db names the database"
							       : "-o FILE.pb.gz names the profile");
	if (!strcmp(e->output, "-") && e->fmt == FMT_SQLITE)
		return pmt_cli_usage_fail("export", "-o -: a database is a file, not a stream");
	if (pmt_out_file_open(&e->of, e->output, inputs, 1, &d) < 0)
		return pmt_cli_fail_diag("export", &d);
	if (!e->of.tmp && e->fmt == FMT_SQLITE) {
		pmt_out_file_abort(&e->of);
		return pmt_cli_usage_fail("export", "-o %s: a database needs a regular file",
					  e->output);
	}
	if (e->fmt == FMT_PPROF)
		rc = pmt_export_pprof_new(e->of.tmp ? e->of.tmp : "-", &o, &e->x, &d);
	else
		rc = pmt_export_sqlite_new(e->of.tmp, &o, &e->x, &d);
	if (rc < 0) {
		pmt_out_file_abort(&e->of);
		d.file = e->output;
		return pmt_cli_fail_diag("export", &d);
	}
	return 0;
}

static int export_sample(const struct pmt_spe_sample *s, void *ctx)
{
	struct export_ctx *e = ctx;
	int rc = pmt_export_sample(e->x, s);

	e->sample_failed |= rc < 0;
	return rc;
}

static int export_event(void *ctx, const struct pmt_trace_event *ev)
{
	struct export_ctx *e = ctx;

	/* --time A%-B% reads the trace once for its span before begin(): no export yet */
	return e->x ? pmt_export_event(e->x, ev) : 0;
}

static int export_metric(const struct pmt_metric_row *r, void *ctx)
{
	struct export_ctx *e = ctx;
	struct pmt_export_metric m = {
		.interval = r->interval, .aggr = r->aggr, .pmu = r->pmu, .name = r->name,
		.unit = r->unit, .depth = r->depth, .value = r->value, .missing = r->missing,
		.threshold = r->threshold, .retlat_measured = r->retlat_measured,
		.retlat_default = r->retlat_default, .nr_retlat = r->nr_retlat,
	};
	/* export does not depend on decode/metrics: its own copy of the :R inputs (a metric
	 * row, not a sample: no hot path) */
	struct pmt_export_retlat *rl = calloc(m.nr_retlat + 1, sizeof(*rl));
	int rc;

	if (!rl)
		return -PMT_ENOMEM;
	for (size_t k = 0; k < m.nr_retlat; k++)
		rl[k] = (struct pmt_export_retlat){ .event = r->retlat[k].event,
						    .measured = r->retlat[k].measured,
						    .dflt = r->retlat[k].dflt };
	m.retlat = rl;
	rc = pmt_export_metric(e->x, &m);
	free(rl);

	e->sample_failed |= rc < 0;
	return rc;
}

static int export_end(void *ctx, int rc, const struct pmt_spe_rec_stats *st, uint32_t enabled)
{
	struct export_ctx *e = ctx;
	struct pmt_diag d = PMT_DIAG_INIT;
	int64_t n;

	/* the metric rows before the finish: the databases commit them with the samples */
	if (rc >= 0 && e->x && e->metrics.ntables) {
		int mrc = metric_opts_rows(&e->metrics, "export", e->trace, export_metric, e);

		if (mrc && !e->sample_failed) {
			pmt_export_free(e->x);
			e->x = NULL;
			if (e->fmt != FMT_POSTGRESQL)
				pmt_out_file_abort(&e->of);
			return mrc;
		}
	}
	/* a sample the database refused stops the decode: finish() names the reason */
	n = rc < 0 && !e->sample_failed ? rc : pmt_export_finish(e->x, st, enabled, &d);
	pmt_export_free(e->x);
	e->x = NULL;
	if (n < 0) {
		if (e->fmt != FMT_POSTGRESQL)
			pmt_out_file_abort(&e->of);
		if (!d.code)
			return pmt_cli_fail("export", "%s", pmt_errstr((int)n));
		d.file = e->output;
		return pmt_cli_fail_diag("export", &d);
	}
	if (e->fmt != FMT_POSTGRESQL && pmt_out_file_commit(&e->of, &d) < 0)
		return pmt_cli_fail_diag("export", &d);
	return 0;
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "no-index", no_argument, NULL, OPT_NO_INDEX },
		{ "sqlite-api", no_argument, NULL, OPT_SQLITE_API },
		{ "db", required_argument, NULL, OPT_DB },
		METRIC_LONG_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct export_ctx e = { 0 };
	struct spe_consumer c = {
		.usage = export_usage, .opts = opts, .shortopts = "o:M:", .opt = export_opt,
		.begin = export_begin, .sample = export_sample, .event = export_event,
		.end = export_end, .ctx = &e,
	};
	size_t len = 0;
	char **args;
	int rc;

	if (argc < 2 || (argv[1][0] == '-' && argv[1][1])) {
		/* --help before any format: the shared decode help with export's usage */
		if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
			char *help[] = { argv[0], (char *)"--help", NULL };

			return spe_decode_consume(2, help, &c);
		}
		fputs(export_usage, stderr);
		return pmt_cli_usage_fail("export", "the format comes first: pmutrace export "
					  "sqlite TRACE -o FILE.db");
	}
	while (e.fmt < sizeof(format_names) / sizeof(format_names[0]) &&
	       strcmp(argv[1], format_names[e.fmt]))
		e.fmt++;
	if (e.fmt == sizeof(format_names) / sizeof(format_names[0])) {
		fputs(export_usage, stderr);
		return pmt_cli_usage_fail("export", "unknown format '%s' (formats: sqlite, pprof, "
					  "postgresql)",
					  argv[1]);
	}
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1 + sizeof("--db=CONNINFO"); /* room for the stand-in */
	args = malloc((size_t)argc * sizeof(*args));
	e.command = malloc(len + sizeof("pmutrace "));
	if (!args || !e.command) {
		free(args);
		free(e.command);
		return pmt_cli_fail("export", "out of memory");
	}
	strcpy(e.command, "pmutrace");
	/* runs.command: the connection string may hold a password, so it is left out */
	for (int i = 0; i < argc; i++)
		strcat(strcat(e.command, " "), i && !strcmp(argv[i - 1], "--db") ? "CONNINFO"
					       : !strncmp(argv[i], "--db=", 5) ? "--db=CONNINFO"
					       : argv[i]);
	/* "export" stays the command name in messages; the format is consumed */
	args[0] = argv[0];
	for (int i = 2; i < argc; i++)
		args[i - 1] = argv[i];
	args[argc - 1] = NULL;
	rc = spe_decode_consume(argc - 1, args, &c);
	free(args);
	free(e.command);
	metric_opts_fini(&e.metrics);
	return rc;
}
