/* The command lines of script, report and export (their shared decode, cmd_script.c):
 * what they parse into. */
#ifndef PMT_CLI_DECODE_OPTS_H
#define PMT_CLI_DECODE_OPTS_H

#include <stdio.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"
#include "metric_opts.h"

struct script_opts {
	const char *cmd;
	const char *path;
	struct pmt_spe_run_opts run;
	enum pmt_sink_format fmt;
	int raw;
	int json;
	unsigned top;
	int top_given;
	int compat_given;
	uint32_t fields; /* script -F: PMT_FIELD_* */
	int hide_callchain; /* script -G */
	int no_inline;      /* script, report --no-inline: chains without inlined functions */
	const char *callgraph; /* report -g/--call-graph's argument ("": perf's default) */
	int children;       /* report --children 1, --no-children 0, -1 perf's default */
	int inverted;       /* report -G/--inverted */
	float percent_limit; /* report --percent-limit (0: none) */
	int percent_limit_after_g; /* it came after -g (its threshold wins over -g's) */
	int percentage_relative; /* report --percentage relative (else perf's absolute) */
	uint32_t max_stack; /* report --max-stack, when given */
	int max_stack_given;
	const char *symfs, *kallsyms, *vmlinux;
	const char *debuginfod; /* NULL: $DEBUGINFOD_URLS; "": --no-debuginfod */
	int no_demangle;
	const char *sort; /* report --sort keys */
	const char *comms, *dsos, *symbols; /* report -c, -d, -S: perf's lists, or NULL */
	int mem;          /* report --mem: perf mem report */
	const char *html; /* report --html OUT */
	int progress;     /* -1: on a terminal, 0: never, 1: always */
	int verbose;      /* -v: how many container frames were read and passed over */
	unsigned jobs;    /* -j N: threads (1: all on this one) */
	const char *cpus, *tids, *pids, *time; /* perf.data: filters; raw: --cpu, --tid describe */
	struct pmt_sample_filter filter;
	const struct spe_consumer *consumer; /* export: its options, and it takes the samples */
	struct metric_opts metrics; /* report --html: the recording's metric tree */
};

/* --perf-compat ARG into *out (PMT_PERF_* levels, X.Y as X * 100 + Y): 0, or the usage
 * error's exit status after its message */
int decode_perf_compat(const char *cmd, const char *arg, int *out);
/* argv of script or report (argv[0] names which), or of an export with its consumer's own
 * options: 0 to go on, -1 after --help, else the exit status of a usage error */
int decode_parse_args(struct script_opts *so, int argc, char **argv,
		      const struct spe_consumer *cons);

#endif
