#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "pmutrace/common.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "dump", cmd_dump, "print every SPE packet with offset, bytes and fields" },
	{ "synth", cmd_synth, "write a synthetic SPE stream (raw or perf.data)" },
	{ "script", cmd_script, "print synthetic samples (text, --csv, --jsonl)" },
	{ "report", cmd_report, "sample counts per group and top entries" },
	{ "convert", cmd_convert, "write a trace as perf.data" },
	{ "metrics", cmd_metrics, "evaluate TMA metrics with retire latencies" },
	{ "calibrate", cmd_calibrate, "retire-latency distributions from PEBS samples" },
	{ "info", cmd_info, "what a trace holds: events, samples, frames, losses" },
	{ "record", cmd_record, "record events into a container (perf record syntax)" },
	{ "stat", cmd_stat, "count events (perf stat syntax and layouts; -o keeps the counts)" },
	{ "annotate", cmd_annotate, "hot functions' instructions with samples and latencies" },
	{ "bundle", cmd_bundle, "carry ELF files and kallsyms in a container (bundle add)" },
	{ "symbols", cmd_symbols, "list ELF files' symbols as samples are attributed to them" },
	{ "export", cmd_export, "samples into a database (sqlite)" },
	{ NULL, NULL, NULL },
};

static int usage(FILE *fp)
{
	fprintf(fp, "usage: pmutrace <command> [options]\n\ncommands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(fp, "  %-10s %s\n", c->name, c->summary);
	fprintf(fp, "\n'pmutrace help <command>' (or 'pmutrace <command> --help') shows a command's "
		    "options;\n'man pmutrace-<command>' its manual page.\n");
	fputs(pmt_cli_exit_help, fp);
	return fp == stdout ? 0 : PMT_EXIT_USAGE;
}

/* As git and perf do: a typo gets the nearest commands, an option before the command
 * (pmutrace -j1 export ...) is told where options go. */
static int unknown_command(int argc, char **argv)
{
	struct pmt_near nr;
	char near[256];

	if (argv[1][0] == '-') {
		for (int i = 2; i < argc; i++) {
			for (const struct command *c = commands; c->name; c++) {
				if (!strcmp(argv[i], c->name)) {
					fprintf(stderr, "pmutrace: '%s' is an option: options go after "
						"the command ('pmutrace %s %s ...')\n",
						argv[1], c->name, argv[1]);
					return PMT_EXIT_USAGE;
				}
			}
		}
		fprintf(stderr, "pmutrace: '%s' is not a command (options go after the command)\n",
			argv[1]);
		return usage(stderr);
	}
	pmt_near_init(&nr, argv[1], strlen(argv[1]) / 3 + 1, false);
	for (const struct command *c = commands; c->name; c++)
		pmt_near_consider(&nr, c->name);
	if (pmt_near_list(&nr, near, sizeof(near))) {
		fprintf(stderr, "pmutrace: unknown command '%s'; did you mean %s?\n", argv[1], near);
		return PMT_EXIT_USAGE;
	}
	fprintf(stderr, "pmutrace: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "help") && argc > 2) {
		/* as perf help CMD: the command's own help */
		for (const struct command *c = commands; c->name; c++) {
			if (!strcmp(argv[2], c->name)) {
				char *args[] = { argv[2], (char *)"--help", NULL };

				return c->fn(2, args);
			}
		}
		fprintf(stderr, "pmutrace: no command '%s'\n", argv[2]);
		return usage(stderr);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
		return usage(stdout);
	if (!strcmp(argv[1], "--version")) {
		printf("%s\n", pmt_version());
		return 0;
	}
	for (const struct command *c = commands; c->name; c++) {
		if (!strcmp(argv[1], c->name)) {
			int rc = c->fn(argc - 1, argv + 1);

			/* output was produced, but something was reported on the way */
			if (rc == PMT_EXIT_OK && (pmt_log_count(PMT_LOG_WARN) ||
						  pmt_log_count(PMT_LOG_ERROR)))
				rc = PMT_EXIT_DAMAGED;
			return rc;
		}
	}
	return unknown_command(argc, argv);
}
