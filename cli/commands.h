/* Subcommand entry points; argv[0] is the subcommand name. Return the process exit code. */
#ifndef PMUTRACE_CLI_COMMANDS_H
#define PMUTRACE_CLI_COMMANDS_H

#include <getopt.h>
#include <stdio.h>

#include "pmutrace/spe_decode.h"
#include "pmutrace/symbols.h"

int cmd_dump(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_symbols(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_bundle(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* script and report: decode a trace into samples (report: into counts). */
int spe_decode_command(int argc, char **argv, int is_report);

/* A command that decodes a trace exactly as script does (script's decode options: --itrace,
 * --perf-compat, --raw, the filters) and takes the samples itself (export). */
struct spe_consumer {
	const char *usage;          /* its usage lines, printed before the shared option text */
	const struct option *opts;  /* its own long options, { NULL } ended; vals 'a'..'z' but
				     * h and i, or >= 1000 */
	const char *shortopts;      /* its short options, e.g. "o:" */
	int (*opt)(void *ctx, int c, const char *arg); /* one of them: 0 or an exit status */
	/* the trace is open (meta NULL for --raw): open the output; 0 or an exit status.
	 * syms: the trace's address spaces and comms, fed while decoding (--symfs) */
	int (*begin)(void *ctx, const char *path, const struct pmt_trace_meta *meta, int compat,
		     struct pmt_symbols *syms);
	pmt_spe_sample_fn sample;   /* every sample the filters keep, with ctx */
	/* every sideband record (MMAP, COMM, ...) before the symbols take it; NULL: none */
	int (*event)(void *ctx, const struct pmt_trace_event *ev);
	/* decoding ended with rc (< 0: failed): finish or remove the output; the exit status */
	int (*end)(void *ctx, int rc, const struct pmt_spe_rec_stats *st, uint32_t enabled);
	void *ctx;
};
int spe_decode_consume(int argc, char **argv, const struct spe_consumer *c);

#endif
