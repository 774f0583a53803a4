/* pmutrace report: "Available samples" counts per group and the top addresses. It decodes
 * exactly as script does (the same options but the output ones), so the wiring is shared:
 * spe_decode_command() in cmd_script.c. report --c2c (perf c2c report) takes the samples as
 * a consumer of that decode, with options of its own. */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/output.h"

static const char c2c_usage[] =
	"usage: pmutrace report --c2c [-i] [FILE] [--stdio|--csv|--json] [-d tot|lcl|rmt|peer]\n"
	"         [--stats] [--show-all] [--full-symbols] [--no-source] [-c tid,pid,iaddr,dso]\n"
	"         [-N|-NN] [--double-cl] [-g|--call-graph[=...]]\n"
	"         (perf c2c report: cache lines several CPUs and threads load and store, by\n"
	"         HITM and peer snoops; -d: what lines are sorted on, default peer on arm64;\n"
	"         -c/--coalesce: what a line's offsets are told apart by, default iaddr;\n"
	"         -N/--node-info: CPUs and shares per node, twice: CPU lists; --double-cl:\n"
	"         128-byte lines, for cores that prefetch the adjacent line; -g: perf's\n"
	"         argument, checked and unused: SPE's samples have no call chains)\n";

enum { OPT_C2C = 1000, OPT_STDIO, OPT_CSV, OPT_JSON, OPT_STATS, OPT_SHOW_ALL, OPT_FULL_SYMBOLS,
       OPT_NO_SOURCE, OPT_DOUBLE_CL };

struct c2c_cmd {
	enum pmt_sink_format fmt;
	unsigned nformats;
	int display;
	unsigned flags; /* PMT_C2C_* */
	const char *coalesce;
	int node_info;
	struct pmt_c2c *c2c;
	struct pmt_out out;
	bool out_open;
};

static int c2c_opt(void *ctx, int c, const char *arg)
{
	struct c2c_cmd *k = ctx;

	switch (c) {
	case OPT_C2C: return 0;
	case OPT_STATS: k->flags |= PMT_C2C_STATS_ONLY; return 0;
	case OPT_SHOW_ALL: k->flags |= PMT_C2C_SHOW_ALL; return 0;
	case OPT_FULL_SYMBOLS: k->flags |= PMT_C2C_FULL_SYMBOLS; return 0;
	case OPT_NO_SOURCE: k->flags |= PMT_C2C_NO_SOURCE; return 0;
	case OPT_DOUBLE_CL: k->flags |= PMT_C2C_DOUBLE_CL; return 0;
	case 'N': k->node_info++; return 0;
	case 'c': {
		const char *bad;
		size_t badlen;

		if (pmt_c2c_coalesce_check(arg, &bad, &badlen) < 0)
			return pmt_cli_usage_fail("report", "unrecognized sort token: %.*s "
						  "(-c takes tid, pid, iaddr, dso)", (int)badlen, bad);
		k->coalesce = arg;
		return 0;
	}
	case OPT_STDIO: k->fmt = PMT_SINK_TEXT; break;
	case OPT_CSV: k->fmt = PMT_SINK_CSV; break;
	case OPT_JSON: k->fmt = PMT_SINK_JSONL; break;
	case 'd':
		k->display = pmt_c2c_display_parse(arg);
		if (k->display < 0)
			return pmt_cli_usage_fail("report", "failed: unknown display type: %s "
						  "(tot, lcl, rmt or peer)", arg);
		return 0;
	default: return PMT_EXIT_USAGE;
	}
	if (++k->nformats > 1)
		return pmt_cli_usage_fail("report", "one output format: --stdio, --csv or --json");
	return 0;
}

static int c2c_begin(void *ctx, const char *path, const struct pmt_trace_meta *meta, int compat,
		     struct pmt_symbols *syms)
{
	struct c2c_cmd *k = ctx;
	struct pmt_c2c_opts o = PMT_OPTS_INIT(pmt_c2c_opts, .compat = compat, .meta = meta,
					      .display = k->display, .flags = k->flags,
					      .coalesce = k->coalesce, .node_info = k->node_info);

	(void)path;
	if (pmt_c2c_new(syms, &o, &k->c2c) < 0 || pmt_out_init(&k->out, stdout, 1 << 16) < 0)
		return pmt_cli_fail("report", "out of memory");
	k->out_open = true;
	return 0;
}

static int c2c_sample(const struct pmt_spe_sample *s, void *ctx)
{
	struct c2c_cmd *k = ctx;
	int rc = pmt_c2c_add(k->c2c, s);

	return rc < 0 ? rc : 0;
}

static int c2c_end(void *ctx, int rc, const struct pmt_spe_rec_stats *st, uint32_t enabled)
{
	struct c2c_cmd *k = ctx;

	(void)st;
	(void)enabled;
	if (rc >= 0)
		rc = pmt_c2c_print(k->c2c, &k->out, k->fmt);
	if (k->out_open && pmt_out_fini(&k->out) < 0 && rc >= 0)
		rc = -PMT_EIO;
	pmt_c2c_free(k->c2c);
	return rc < 0 ? pmt_cli_fail("report", "%s", pmt_errstr(rc)) : 0;
}

/* an option anywhere before a "--": --c2c makes the command perf c2c report */
static bool has_opt(int argc, char **argv, const char *a, const char *b)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], a) || (b && !strcmp(argv[i], b)))
			return true;
	return false;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "c2c", no_argument, NULL, OPT_C2C },
		{ "stdio", no_argument, NULL, OPT_STDIO },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "display", required_argument, NULL, 'd' },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "show-all", no_argument, NULL, OPT_SHOW_ALL },
		{ "full-symbols", no_argument, NULL, OPT_FULL_SYMBOLS },
		{ "no-source", no_argument, NULL, OPT_NO_SOURCE },
		{ "coalesce", required_argument, NULL, 'c' },
		{ "node-info", no_argument, NULL, 'N' },
		{ "double-cl", no_argument, NULL, OPT_DOUBLE_CL },
		/* perf c2c report's -g: checked as perf checks it, then unused: perf draws
		 * chains in c2c only from samples that have them, which SPE's have not */
		{ "call-graph", optional_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	struct c2c_cmd k = { .fmt = PMT_SINK_TEXT, .display = -1 };
	struct spe_consumer c = {
		.usage = c2c_usage, .opts = opts, .shortopts = "d:c:Ng::", .opt = c2c_opt,
		.begin = c2c_begin, .sample = c2c_sample, .end = c2c_end, .ctx = &k,
	};

	int rc;

	if (has_opt(argc, argv, "--c2c", NULL))
		return spe_decode_consume(argc, argv, &c);
	rc = spe_decode_command(argc, argv, 1);
	if (has_opt(argc, argv, "--help", "-h"))
		fputs(c2c_usage, stdout); /* report's other form */
	return rc;
}
