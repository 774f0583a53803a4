/* pmutrace symbols: the symbol table of ELF files as pmutrace (and perf) use it, to see why
 * an address lands where it does. */
#include <getopt.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/symbols.h"

static int usage(FILE *fp)
{
	fprintf(fp, "usage: pmutrace symbols ELF...\n"
		    "  Lists each file's symbols as samples are attributed to them: START END NAME\n"
		    "  in the file's offset space (perf's: a sample's ip - map start + pgoff), after\n"
		    "  perf's rules (.symtab and .dynsym, functions, objects and ARM labels, zero sizes\n"
		    "  extended, aliases reduced to one, .plt entries as NAME@plt).\n");
	fputs(pmt_cli_exit_help, fp);
	return fp == stdout ? 0 : PMT_EXIT_USAGE;
}

static int print_sym(uint64_t start, uint64_t end, const char *name, void *ctx)
{
	printf("%016llx %016llx %s\n", (unsigned long long)start, (unsigned long long)end, name);
	(void)ctx;
	return 0;
}

int cmd_symbols(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, failed = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		return usage(c == 'h' ? stdout : stderr);
	if (optind == argc)
		return usage(stderr);
	for (int i = optind; i < argc; i++) {
		struct pmt_diag d = PMT_DIAG_INIT;

		if (argc - optind > 1)
			printf("%s%s:\n", i > optind ? "\n" : "", argv[i]);
		if (pmt_symbols_list_file(argv[i], print_sym, NULL, &d) < 0) {
			/* one file: an error, nothing listed; of several: the others are (2) */
			if (argc - optind == 1)
				return pmt_cli_fail_diag("symbols", &d);
			pmt_cli_warn("symbols", "%s", d.msg);
			failed++;
		}
	}
	if (fflush(stdout))
		return pmt_cli_fail("symbols", "writing the list failed");
	return failed == argc - optind ? PMT_EXIT_ERROR : 0;
}
