/* pmutrace record: perf record's command line. This step decides and shows what would be
 * opened (--dry-run -v: every perf_event_attr in perf record -vv's layout, from the PMUs of
 * the sysfs tree in $SYSFS_PATH); the rings and the container writer come next. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/events.h"
#include "pmutrace/pmu.h"
#include "pmutrace/record.h"

static int usage(FILE *fp)
{
	fprintf(fp,
		"usage: pmutrace record [-e EVENT]... [-c PERIOD | -F FREQ] [-a | -C CPUS | -p PID |\n"
		"                       -t TID | [--per-thread] -- CMD ARGS] [-o FILE|-]\n"
		"                       [-m PAGES[,AUXPAGES]] [-S|--snapshot[=SIZE]] [--no-inherit]\n"
		"                       [--dry-run] [-v] [-q]\n"
		"  -e, --event EVENT    perf's syntax: cpu-clock, dummy:u, arm_spe_0/load_filter=1/u,\n"
		"                       arm_spe// (every arm_spe_N); terms from the PMU's format files\n"
		"  -c, --count PERIOD   sample period of every event;  -F, --freq FREQ (not for SPE)\n"
		"  -a, --all-cpus       every online CPU;  -C, --cpu LIST: those CPUs\n"
		"  -p, --pid PID / -t, --tid TID   an existing process / thread\n"
		"      --per-thread     one buffer per thread, no per-CPU events\n"
		"  -m, --mmap-pages N[,M]  data ring and AUX area sizes in pages (powers of 2)\n"
		"  -S, --snapshot[=SIZE]   AUX snapshot mode (overwrite; SIGUSR2 takes a snapshot)\n"
		"      --dry-run        open nothing; with -v print every attr that would be opened\n"
		"                       (perf record -vv's layout) for the PMUs in $SYSFS_PATH or /sys\n"
		"  -v, --verbose        more detail;  -q, --quiet: errors only\n");
	fputs(pmt_cli_exit_help, fp);
	return fp == stdout ? 0 : PMT_EXIT_USAGE;
}

static bool privileged(void)
{
	FILE *f;
	int level = 2;

	if (geteuid() == 0)
		return true;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 2;
		fclose(f);
	}
	return level <= -1;
}

/* -m N[,M]: perf takes sizes with a unit too (4M) and rounds pages up to a power of 2 */
static int parse_pages(const char *s, uint32_t *pages, uint64_t page)
{
	uint64_t v;
	char *end;

	if (!*s) {
		*pages = 0;
		return 0;
	}
	v = strtoull(s, &end, 0);
	if (end == s)
		return -1;
	if (*end) {
		if (pmt_parse_size(s, &v) < 0)
			return -1;
		v = (v + page - 1) / page;
	}
	if (!v || v > (1u << 30))
		return -1;
	*pages = (uint32_t)v;
	return 0;
}

enum { O_DRY_RUN = 256, O_PER_THREAD, O_NO_INHERIT };

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "per-thread", no_argument, NULL, O_PER_THREAD },
		{ "no-inherit", no_argument, NULL, O_NO_INHERIT },
		{ "output", required_argument, NULL, 'o' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "snapshot", optional_argument, NULL, 'S' },
		{ "dry-run", no_argument, NULL, O_DRY_RUN },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pmt_record_opts o = { .sz = sizeof(o) };
	struct pmt_pmus pmus;
	struct pmt_evlist events = { 0 };
	struct pmt_record_plan plan;
	struct pmt_diag d = PMT_DIAG_INIT;
	const char *evstr[64];
	unsigned nev = 0, targets = 0;
	int c, verbose = 0, dry_run = 0, rc;
	uint64_t v;

	o.page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	o.privileged = privileged();
	/* '+': options stop at the workload's name, as perf's */
	while ((c = getopt_long(argc, argv, "+he:c:F:aC:p:t:o:m:S::vq", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (nev == sizeof(evstr) / sizeof(evstr[0]))
				return pmt_cli_usage_fail("record", "too many -e options");
			evstr[nev++] = optarg;
			break;
		case 'c':
			if (pmt_parse_u64(optarg, &o.period) < 0 || !o.period)
				return pmt_cli_usage_fail("record", "bad value '%s' for -c (a period "
							  "> 0)", optarg);
			o.period_set = true;
			break;
		case 'F':
			if (pmt_parse_u64(optarg, &o.freq) < 0 || !o.freq)
				return pmt_cli_usage_fail("record", "bad value '%s' for -F (samples "
							  "per second > 0)", optarg);
			o.freq_set = true;
			break;
		case 'a': o.target = PMT_TARGET_SYSTEM; targets++; break;
		case 'C':
			if (pmt_cpumask_parse(optarg, &o.cpus) < 0 || !pmt_cpumask_count(&o.cpus))
				return pmt_cli_usage_fail("record", "bad value '%s' for -C (a CPU "
							  "list such as 0-3,8)", optarg);
			o.target = PMT_TARGET_CPUS;
			targets++;
			break;
		case 'p':
		case 't':
			if (pmt_parse_u64(optarg, &v) < 0 || !v || v > INT32_MAX)
				return pmt_cli_usage_fail("record", "bad value '%s' for -%c (a "
							  "process or thread id)", optarg, c);
			o.target = c == 'p' ? PMT_TARGET_PID : PMT_TARGET_TID;
			targets++;
			break;
		case O_PER_THREAD: o.per_thread = true; break;
		case O_NO_INHERIT: o.no_inherit = true; break;
		case 'o': break; /* the writer comes with the rings */
		case 'm': {
			char *comma = strchr(optarg, ',');

			if (comma)
				*comma = 0;
			if (parse_pages(optarg, &o.mmap_pages, o.page_size) < 0 ||
			    (comma && parse_pages(comma + 1, &o.aux_pages, o.page_size) < 0))
				return pmt_cli_usage_fail("record", "bad value for -m (PAGES[,AUX"
							  "PAGES], or sizes such as 4M)");
			break;
		}
		case 'S':
			o.snapshot = true;
			if (optarg && pmt_parse_size(optarg, &o.snapshot_size) < 0)
				return pmt_cli_usage_fail("record", "bad value '%s' for --snapshot "
							  "(a size in bytes)", optarg);
			break;
		case O_DRY_RUN: dry_run = 1; break;
		case 'v': verbose++; break;
		case 'q': verbose = -1; break;
		case 'h': return usage(stdout);
		default: return usage(stderr);
		}
	}
	if (targets > 1)
		return pmt_cli_usage_fail("record", "choose one of -a, -C, -p and -t");
	if (targets && optind < argc)
		return pmt_cli_usage_fail("record", "a workload (-- CMD) and -a/-C/-p/-t exclude "
					  "each other");
	if (!targets && optind >= argc)
		return pmt_cli_usage_fail("record", "nothing to record: give -- CMD ARGS, -a, -C, "
					  "-p or -t");
	if (!nev)
		evstr[nev++] = "cycles";
	rc = pmt_pmus_load(&pmus, NULL, &d);
	if (rc < 0) {
		pmt_diag_print(&d);
		return PMT_EXIT_ERROR;
	}
	for (unsigned i = 0; i < nev && rc >= 0; i++)
		rc = pmt_events_parse(&events, &pmus, evstr[i], &d);
	if (rc >= 0)
		rc = pmt_record_plan_build(&plan, &events, &pmus, &o, &d);
	else
		pmt_evlist_fini(&events);
	if (rc < 0) {
		pmt_diag_print(&d);
		pmt_pmus_fini(&pmus);
		return PMT_EXIT_USAGE;
	}
	if (verbose > 0)
		pmt_record_plan_print(stdout, &plan);
	if (!dry_run) {
		fprintf(stderr, "pmutrace record: capture is not built yet (issue 10: rings and "
				"container writer); --dry-run -v shows what it would open\n");
		rc = PMT_EXIT_ERROR;
	} else {
		rc = 0;
	}
	pmt_record_plan_fini(&plan);
	pmt_pmus_fini(&pmus);
	return rc;
}
