/* script's, report's and export's command lines: options, usage, and their checks. */
#include <ctype.h>
#include <getopt.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/perfdata.h"
#include "pmutrace/symbols.h"
#include "pmutrace/metrics.h"
#include "decode_opts.h"

static int parse_compat(const char *s, int *out);

int decode_perf_compat(const char *cmd, const char *arg, int *out)
{
	if (parse_compat(arg, out))
		return pmt_cli_usage_fail(cmd, "bad --perf-compat '%s': a perf release X.Y, which "
					  "means the model of the nearest earlier one of 6.1 6.13 "
					  "6.15 6.16 6.18 6.19 7.3, or newest", arg);
	return 0;
}

static int parse_compat(const char *s, int *out)
{
	unsigned maj, min;
	int n = 0;
	const char *z;

	if (!strcmp(s, "newest")) {
		*out = PMT_PERF_NEWEST;
		return 0;
	}
	if (!isdigit((unsigned char)s[0]) || sscanf(s, "%u.%u%n", &maj, &min, &n) != 2 ||
	    maj > 98 || min > 99)
		return -PMT_EPARSE;
	/* X.Y, or a stable release X.Y.Z (perf 7.3.4): its Z changes no rule */
	z = s + n;
	if (*z && (*z != '.' || !z[1] || strspn(z + 1, "0123456789") != strlen(z + 1)))
		return -PMT_EPARSE;
	*out = (int)(maj * 100 + min);
	return 0;
}

enum { OPT_ITRACE = 256, OPT_CSV, OPT_JSONL, OPT_RAW, OPT_MIDR, OPT_CPU, OPT_TID, OPT_COMPAT,
       OPT_PID, OPT_TIME,
       OPT_STDIO, OPT_JSON, OPT_TOP, OPT_TIMED, OPT_FIELDS, OPT_SYMFS, OPT_SORT,
       OPT_KALLSYMS, OPT_MEM, OPT_DEBUGINFOD, OPT_NO_DEBUGINFOD, OPT_NO_DEMANGLE, OPT_HTML,
       OPT_PROGRESS, OPT_NO_PROGRESS, OPT_CHILDREN, OPT_NO_CHILDREN, OPT_PERCENT_LIMIT,
       OPT_MAX_STACK, OPT_INLINE, OPT_NO_INLINE, OPT_PERCENTAGE };

/* Each command takes only its own options: an option of the other is a usage error, not
 * silently ignored (report has no --csv, script no --json yet). */
#define COMMON_OPTS                                                                      \
	{ "itrace", optional_argument, NULL, OPT_ITRACE },                               \
	{ "raw", no_argument, NULL, OPT_RAW },                                           \
	{ "midr", required_argument, NULL, OPT_MIDR },                                   \
	{ "cpu", required_argument, NULL, OPT_CPU },                                     \
	{ "tid", required_argument, NULL, OPT_TID },                                     \
	{ "pid", required_argument, NULL, OPT_PID },                                     \
	{ "time", required_argument, NULL, OPT_TIME },                                   \
	{ "perf-compat", required_argument, NULL, OPT_COMPAT },                          \
	{ "input", required_argument, NULL, 'i' },                                       \
	{ "symfs", required_argument, NULL, OPT_SYMFS },                                 \
	{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },                           \
	{ "vmlinux", required_argument, NULL, 'k' },                                     \
	{ "debuginfod", optional_argument, NULL, OPT_DEBUGINFOD },                       \
	{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },                       \
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },                           \
	{ "progress", no_argument, NULL, OPT_PROGRESS },                                 \
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },                           \
	{ "verbose", no_argument, NULL, 'v' },                                           \
	{ "help", no_argument, NULL, 'h' }
static const struct option script_opts[] = {
	COMMON_OPTS,
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "jsonl", no_argument, NULL, OPT_JSONL },
	{ "json", no_argument, NULL, OPT_JSON }, /* named, or getopt takes it for --jsonl */
	{ "raw-timed", no_argument, NULL, OPT_TIMED },
	{ "fields", required_argument, NULL, 'F' },
	{ "hide-call-graph", no_argument, NULL, 'G' },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "jobs", required_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};
static const struct option report_opts[] = {
	COMMON_OPTS,
	{ "stdio", no_argument, NULL, OPT_STDIO },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "sort", required_argument, NULL, 's' },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "mem", no_argument, NULL, OPT_MEM },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "jobs", required_argument, NULL, 'j' },
	{ "call-graph", optional_argument, NULL, 'g' },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "inverted", no_argument, NULL, 'G' },
	{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
	{ "percentage", required_argument, NULL, OPT_PERCENTAGE },
	{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "comms", required_argument, NULL, 'c' },
	{ "dsos", required_argument, NULL, 'd' },
	{ "symbols", required_argument, NULL, 'S' },
	METRIC_LONG_OPTS,
	{ NULL, 0, NULL, 0 },
};

/* perf's strlist refuses a name given twice ("problems parsing comm list", then an empty
 * report): a usage error here, naming it; NULL when every name is given once */
static const char *list_repeat(const char *list, size_t *len)
{
	/* the words between commas; an empty one after the last comma is none */
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		size_t n = strcspn(p, ",");

		for (const char *q = strchr(p, ','); q && q[1]; q = strchr(q + 1, ','))
			if (strcspn(q + 1, ",") == n && !strncmp(q + 1, p, n)) {
				*len = n;
				return p;
			}
	}
	return NULL;
}

/* a bad -g: the problem, then perf report's usage error (exit status 129): its usage line,
 * and -g's help unless the argument came after --call-graph= (perf prints none then) */
static int callgraph_check(const char *cmd, bool c2c, const char *spec, bool long_eq)
{
	struct pmt_diag d = PMT_DIAG_INIT;
	int rc = pmt_hist_callgraph_check(spec, &d);

	if (rc >= 0)
		return 0;
	pmt_cli_usage_fail(cmd, "%s", d.msg);
	if (rc == -PMT_EPARSE)
		fprintf(stderr, "\n Usage: pmutrace %s%s\n\n", cmd,
			c2c ? " --c2c" : " [<options>]");
	if (rc == -PMT_EPARSE && !long_eq)
		fprintf(stderr, "    -g, --call-graph <print_type,threshold[,print_limit],order,sort_key"
			"[,branch],value>\n"
			"                          Display call graph (stack chain/backtrace):\n\n"
			"\t\t\t\tprint_type:\tcall graph printing style "
			"(graph|flat|fractal|folded|none)\n"
			"\t\t\t\tthreshold:\tminimum call graph inclusion threshold (<percent>)\n"
			"\t\t\t\tprint_limit:\tmaximum number of call graph entry (<number>)\n"
			"\t\t\t\torder:\t\tcall graph order (caller|callee)\n"
			"\t\t\t\tsort_key:\tcall graph sort key (function|address)\n"
			"\t\t\t\tbranch:\t\tinclude last branch info to call graph (branch)\n"
			"\t\t\t\tvalue:\t\tcall graph value (percent|period|count)\n\n"
			"\t\t\t\tDefault: graph,0.5,caller,function,percent\n");
	return PMT_EXIT_USAGE;
}

static void usage(const char *cmd, FILE *fp)
{
	if (!strcmp(cmd, "script"))
		fprintf(fp, "usage: pmutrace script [-i] [FILE] [--itrace[=OPTS]] [-v] [--csv|--jsonl|-F LIST]\n"
			    "         [--cpu LIST] [--pid LIST] [--tid LIST] [--time START,STOP|A%%-B%%]\n"
			    "         [--raw [--midr X] [--cpu N] [--tid T] [--raw-timed]]\n"
			    "         [--perf-compat=VER|newest]  (VER e.g. 6.1, 6.13, 6.15, 6.18, 7.3)\n"
			    "         [--symfs DIR] [-G|--hide-call-graph] [--inline|--no-inline]\n"
			    "  -F, --fields LIST: perf script's fields, printed as perf prints them:\n"
			    "  comm pid tid cpu misc tod time period event flags addr data_src weight ip sym\n"
			    "  symoff dso dsoff srcline srccode insnlen phys_addr brstack brstacksym\n"
			    "  brstackoff\n"
			    "  (tod: perf record -k's clock data; sym, symoff, dso, dsoff,\n"
			    "  srcline follow ip, as in perf); insn callindent ipc iregs synth vcpu machine_pid\n"
			    "  trace print nothing on SPE samples, as in perf.\n"
			    "  --no-inline: call chains without the functions inlined at their entries\n"
			    "  (text, --csv, --jsonl); --inline (default, as perf 7.3): with them.\n"
			    "  -j, --jobs N: threads (default: the online CPUs; 1: one): rows written on\n"
			    "  their own thread, a container's frames decompressed ahead; same output.\n");
	else if (!strcmp(cmd, "report"))
		fprintf(fp, "usage: pmutrace report [-i] [FILE] [--stdio|--json] [--itrace[=OPTS]] [-v] [--top N]\n"
			    "         [-s|--sort sym,dso,comm,cpu,pid,mem,snoop,tlb [--csv] [--symfs DIR]] [--mem]\n"
			    "         (--sort: perf report --sort; --mem: perf mem report)\n"
			    "         [--children|--no-children] [-g|--call-graph[=TYPE,0.5[,LIMIT],ORDER,KEY,VALUE]]\n"
			    "         (TYPE graph|flat|fractal|folded|none, ORDER caller|callee, KEY function,\n"
			    "          VALUE percent|period|count, as perf report -g)\n"
			    "         [-G|--inverted]  (call chains: perf report's Children and call graphs)\n"
			    "         [--inline|--no-inline]  (the functions inlined in the chains, perf\n"
			    "          7.3's default, or none)\n"
			    "         [--html OUT.html]  (one self-contained page with charts)\n"
			    "         [--metrics FILE [-M NAME|GROUP]... [--events FILE] [--counts FILE]\n"
			    "          [--retire-latency STAT|TABLE]]  (--html: the metric tree)\n"
			    "         [--cpu LIST] [--pid LIST] [--tid LIST] [--time START,STOP|A%%-B%%]\n"
			    "         [-c|--comms LIST] [-d|--dsos LIST] [-S|--symbols LIST]  (only the\n"
			    "          samples of these commands, files and symbols, as perf report)\n"
			    "         [--percentage relative|absolute]  (of the entries shown or the file)\n"
			    "         [--raw [--midr X] [--cpu N] [--tid T]] [--perf-compat=VER]\n"
			    "         [-j|--jobs N]  (threads, default the online CPUs; same report)\n");
	fprintf(fp, "  FILE (or -i FILE; default ./perf.data, as perf) is perf.data (AUXTRACE chunks,\n"
		    "  per-CPU queues) or with --raw SPE bytes; - is stdin.\n"
		    "  --itrace letters as perf: i[N]i b f m t a M l[N]; default: all but\n"
		    "  instructions (perf <= 6.17) or all with i1i (perf >= 6.18, newest).\n"
		    "  l (perf >= 6.15): branch stack of branch/instruction samples (brstack).\n"
		    "  c, r: branch samples as b (perf's SPE decoder). x w p o e d g G L s q Z A T\n"
		    "  I y: other decoders' letters, accepted and ignored; -v, --verbose names them.\n"
		    "  Bare --itrace is the default, as in perf.\n"

		    "  --perf-compat reproduces that perf version's names, rules and quirks.\n"
		    "  --cpu, --pid, --tid LIST (0-3,7) and --time (perf's START,STOP in seconds,\n"
		    "  either side open, or slices of the trace A%%-B%%,...) keep only those samples;\n"
		    "  with --raw, --cpu N and --tid T are the buffer's CPU and thread.\n"
		    "  --symfs DIR: the traced files under DIR; also perf's build-id cache\n"
		    "  ($HOME/.debug), /usr/lib/debug and .gnu_debuglink, by build-id.\n"
		    "  --kallsyms FILE: the kernel's symbols (/proc/kallsyms of the recording machine).\n"
		    "  -k, --vmlinux FILE: the kernel's symbols from its ELF file, used only when its\n"
		    "  build-id is the recording's kernel's (--kallsyms wins when both are given).\n"
		    "  --debuginfod[=URLS]: servers asked by build-id for files found nowhere else\n"
		    "  (default and without URLS: $DEBUGINFOD_URLS); --no-debuginfod: none.\n"
		    "  --no-demangle: C++ symbol names as the files spell them.\n"
		    "  --progress, --no-progress: a progress line on stderr (default: when stderr\n"
		    "  is a terminal).\n"
		    "  -v, --verbose: a container's data frames read and passed over (--cpu and\n"
		    "  --time read only the frames that can hold those samples).\n");
	fputs(pmt_cli_exit_help, fp);
}

static void print_usage(const struct script_opts *so, FILE *fp)
{
	if (so->consumer)
		fputs(so->consumer->usage, fp);
	usage(so->cmd, fp);
}

int decode_parse_args(struct script_opts *so, int argc, char **argv,
		      const struct spe_consumer *cons)
{
	static const struct option common_opts[] = { COMMON_OPTS };
	struct option merged[sizeof(common_opts) / sizeof(common_opts[0]) + 16];
	const struct option *opts = strcmp(argv[0], "script") ? report_opts : script_opts;
	char shortopts[40] = "hvi:";
	struct pmt_diag d = PMT_DIAG_INIT;
	uint64_t v;
	int c, rc, verbose = 0;
	unsigned formats = 0;
	const char *itrace = NULL, *msg = NULL;

	memset(so, 0, sizeof(*so));
	so->run.sz = sizeof(so->run);
	so->children = -1;
	so->cmd = argv[0];
	so->consumer = cons;
	so->run.compat = PMT_PERF_NEWEST;
	so->run.tid = -1;
	so->top = 10;
	so->progress = -1;
	so->jobs = pmt_cli_jobs_default();
	if (cons) {
		/* the decode options, then the consumer's own (at most 15) */
		size_t n = sizeof(common_opts) / sizeof(common_opts[0]);

		memcpy(merged, common_opts, sizeof(common_opts));
		for (size_t i = 0; cons->opts[i].name && n < sizeof(merged) / sizeof(merged[0]) - 1; i++)
			merged[n++] = cons->opts[i];
		memset(&merged[n], 0, sizeof(merged[n]));
		opts = merged;
		snprintf(shortopts, sizeof(shortopts), "hvi:k:%s", cons->shortopts);
	} else {
		strcpy(shortopts, strcmp(so->cmd, "script") ? "hvi:k:s:M:j:g::Gc:d:S:" : "hvi:k:F:Gj:");
	}
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		/* two output formats: the last would win and the other be ignored */
		if (c == OPT_CSV || c == OPT_JSONL || c == OPT_STDIO || c == OPT_JSON) {
			formats |= c == OPT_CSV ? 1u : c == OPT_JSONL ? 2u : c == OPT_STDIO ? 4u : 8u;
			if (formats & (formats - 1))
				return pmt_cli_usage_fail(so->cmd, "one output format: --stdio, --csv, "
							  "--json or --jsonl");
		}
		/* report's --comms, --dsos, --symbols (report --c2c's -c and -d are its own) */
		if (!cons && (c == 'c' || c == 'd' || c == 'S')) {
			const char *what = c == 'c' ? "comm" : c == 'd' ? "dso" : "symbol";
			const char *dup;
			size_t n;

			*(c == 'c' ? &so->comms : c == 'd' ? &so->dsos : &so->symbols) = optarg;
			if ((dup = list_repeat(optarg, &n)))
				return pmt_cli_usage_fail(so->cmd, "problems parsing %s list: '%.*s' "
							  "is given twice", what, (int)n, dup);
			continue;
		}
		switch (c) {
		case OPT_ITRACE: itrace = optarg; break; /* bare: perf's default, as none */
		case 'v': verbose = so->verbose = 1; break;
		case OPT_CSV: so->fmt = PMT_SINK_CSV; break;
		case OPT_JSONL: so->fmt = PMT_SINK_JSONL; break;
		case OPT_RAW: so->raw = 1; break;
		case OPT_TIMED: so->run.raw_timed = 1; break;
		case OPT_STDIO: so->json = 0; break;
		case OPT_JSON:
			if (!strcmp(so->cmd, "script"))
				return pmt_cli_usage_fail(so->cmd, "--json: script writes JSON lines "
							  "(--jsonl), one sample per line");
			so->json = 1;
			break;
		case OPT_MIDR:
			if (pmt_parse_u64(optarg, &so->run.midr))
				return pmt_cli_usage_fail(so->cmd, "bad --midr '%s'", optarg);
			break;
		case OPT_CPU: so->cpus = optarg; break;
		case OPT_TID: so->tids = optarg; break;
		case OPT_PID: so->pids = optarg; break;
		case OPT_TIME: so->time = optarg; break;
		case OPT_TOP:
			if (pmt_parse_u64(optarg, &v) || v > 1000000)
				return pmt_cli_usage_fail(so->cmd, "bad --top '%s'", optarg);
			so->top = (unsigned)v;
			so->top_given = 1;
			break;
		case OPT_COMPAT:
			if ((rc = decode_perf_compat(so->cmd, optarg, &so->run.compat)))
				return rc;
			break;
		case 'i': so->path = optarg; break;
		case OPT_SYMFS: so->symfs = optarg; break;
		case OPT_KALLSYMS: so->kallsyms = optarg; break;
		case 'k': so->vmlinux = optarg; break;
		case OPT_DEBUGINFOD: so->debuginfod = optarg; break;
		case OPT_NO_DEBUGINFOD: so->debuginfod = ""; break;
		case OPT_NO_DEMANGLE: so->no_demangle = 1; break;
		case OPT_INLINE: so->no_inline = 0; break;
		case OPT_NO_INLINE: so->no_inline = 1; break;
		case 's': so->sort = optarg; break;
		case OPT_MEM: so->mem = 1; break;
		case OPT_HTML: so->html = optarg; break;
		case OPT_PROGRESS: so->progress = 1; break;
		case OPT_NO_PROGRESS: so->progress = 0; break;
		case 'G':
			/* script's --hide-call-graph, report's --inverted */
			so->hide_callchain = 1;
			so->inverted = 1;
			break;
		case 'g':
			/* perf's -g takes the next word unless it is an option or there is
			 * none (parse-options' PARSE_OPT_LASTARG_DEFAULT) */
			so->callgraph = optarg ? optarg : "";
			if (!optarg && optind < argc && argv[optind][0] != '-')
				so->callgraph = argv[optind++];
			so->percent_limit_after_g = 0;
			if ((rc = callgraph_check(so->cmd, cons != NULL, so->callgraph,
						  optarg && !strncmp(argv[optind - 1], "--", 2))))
				return rc;
			break;
		case OPT_PERCENT_LIMIT:
			/* perf's strtof, unchecked: a bad number is 0 */
			so->percent_limit = strtof(optarg, NULL);
			so->percent_limit_after_g = 1;
			break;
		case OPT_PERCENTAGE:
			/* perf's parse_filter_percentage(): the whole word, else its usage
			 * error, with the option's help unless the value came after '=' */
			if (!strcmp(optarg, "relative") || !strcmp(optarg, "absolute")) {
				so->percentage_relative = optarg[0] == 'r';
				break;
			}
			pmt_cli_usage_fail(so->cmd, "--percentage: '%s' is neither relative nor "
					   "absolute", optarg);
			fprintf(stderr, "\n Usage: pmutrace %s [<options>]\n\n", so->cmd);
			if (strncmp(argv[optind - 1], "--", 2))
				fprintf(stderr, "        --percentage <relative|absolute>\n"
					"                          how to display percentage of "
					"filtered entries\n");
			return PMT_EXIT_USAGE;
		case OPT_MAX_STACK: {
			char *end;
			long n = strtol(optarg, &end, 0);

			if (end == optarg || *end)
				return pmt_cli_usage_fail(so->cmd, "option `max-stack' expects a "
							  "numerical value (%s)", optarg);
			/* perf takes a negative or zero depth as no entry at all */
			so->max_stack = n > 0 ? (uint32_t)(n < INT32_MAX ? n : INT32_MAX) : 0;
			so->max_stack_given = 1;
			break;
		}
		case OPT_CHILDREN: so->children = 1; break;
		case OPT_NO_CHILDREN: so->children = 0; break;
		case 'j':
			if (pmt_cli_jobs(so->cmd, optarg, &so->jobs))
				return PMT_EXIT_USAGE;
			break;
		case 'F':
			if (pmt_spe_fields_parse(optarg, &so->fields, &d))
				return pmt_cli_usage_fail(so->cmd, "%s", d.msg);
			break;
		case 'h':
			print_usage(so, stdout);
			return -1;
		default:
			/* report's metric options (script's table has none of them) */
			if (!cons && (rc = metric_opt(&so->metrics, so->cmd, c, optarg)) != 1) {
				if (rc)
					return rc;
				break;
			}
			if (cons && c != '?' && c != ':') {
				rc = cons->opt(cons->ctx, c, optarg);
				if (rc)
					return rc;
				break;
			}
			print_usage(so, stderr);
			return PMT_EXIT_USAGE;
		}
	}
	if (so->html && (so->sort || so->mem || so->json || so->fmt != PMT_SINK_TEXT))
		return pmt_cli_usage_fail(so->cmd, "--html writes its own tables: no --sort, --mem, "
					  "--csv or --json with it");
	if ((rc = metric_opts_check(&so->metrics, so->cmd)))
		return rc;
	if (so->metrics.ntables && !so->html)
		return pmt_cli_usage_fail(so->cmd, "--metrics: the metric tree is a part of the "
					  "--html page; give --html OUT.html");
	if (so->mem && !so->sort)
		so->sort = "mem,sym,dso,snoop,tlb";
	if (strcmp(so->cmd, "script") && so->fmt == PMT_SINK_CSV && !so->sort)
		return pmt_cli_usage_fail(so->cmd, "--csv writes the --sort table: give --sort");
	if (so->fields && so->fmt != PMT_SINK_TEXT)
		return pmt_cli_usage_fail(so->cmd, "-F selects text fields; --csv and --jsonl "
					  "write every column");
	if (so->raw) {
		/* a raw buffer has no CPU or thread of its own: --cpu N and --tid T give them */
		if (so->cpus && (pmt_parse_u64(so->cpus, &v) || v >= PMT_MAX_CPUS))
			return pmt_cli_usage_fail(so->cmd, "bad --cpu '%s' (one CPU with --raw)",
						  so->cpus);
		so->run.cpu = so->cpus ? (uint32_t)v : 0;
		if (so->tids && (pmt_parse_u64(so->tids, &v) || v > INT32_MAX))
			return pmt_cli_usage_fail(so->cmd, "bad --tid '%s' (one thread with --raw)",
						  so->tids);
		if (so->tids)
			so->run.tid = (int32_t)v;
		so->cpus = so->tids = NULL;
	}
	if ((so->cpus && pmt_sample_filter_cpus(&so->filter, so->cpus) < 0) ||
	    (so->tids && pmt_sample_filter_tids(&so->filter, so->tids) < 0) ||
	    (so->pids && pmt_sample_filter_pids(&so->filter, so->pids) < 0))
		return pmt_cli_usage_fail(so->cmd, "bad --cpu/--pid/--tid list (want e.g. 0-3,7)");
	if (so->time && pmt_sample_filter_time(&so->filter, so->time) < 0)
		return pmt_cli_usage_fail(so->cmd, "bad --time '%s' (perf's START,STOP in "
					  "seconds, or A%%-B%%[,C%%-D%%])", so->time);
	/* read only when a sample needs them: a name that is wrong would go unnoticed */
	if (so->kallsyms && access(so->kallsyms, R_OK))
		return pmt_cli_fail(so->cmd, "--kallsyms %s: %s", so->kallsyms, strerror(errno));
	if (so->symfs && access(so->symfs, X_OK))
		return pmt_cli_fail(so->cmd, "--symfs %s: %s", so->symfs, strerror(errno));
	so->path = pmt_cli_input(so->path, argc, argv, optind);
	if (!so->path) {
		print_usage(so, stderr);
		return PMT_EXIT_USAGE;
	}
	if (pmt_itrace_parse(itrace ? itrace : "", &so->run.itrace, &d))
		return pmt_cli_usage_fail(so->cmd, "%s", d.msg);
	if (verbose && so->run.itrace.ignored[0])
		/* perf takes every decoder's letters and each decoder uses its own */
		fprintf(stderr, "--itrace letters for other decoders, ignored by Arm SPE: %s\n",
			so->run.itrace.ignored);
	rc = pmt_itrace_check(&so->run.itrace, so->run.compat, &msg);
	if (rc < 0) /* perf >= 6.18 refuses to decode at all; its text without the newline */
		return pmt_cli_fail(so->cmd, "%.*s", (int)strlen(msg) - 1, msg);
	if (rc > 0)
		fputs(msg, stderr);
	else if (so->run.compat < PMT_PERF_6_18 && so->run.itrace.insn_rejected && itrace &&
		 strchr(itrace, 'i'))
		fprintf(stderr, "Only instruction-based sampling period is currently supported "
				"by Arm SPE.\n");
	return 0;
}
