/* pmutrace stat: perf stat's command line. Counts printed in perf 7.3's layouts (text on
 * stderr as perf does, -x SEP, -j), metrics computed live from them (-M), and -o FILE
 * keeps the counts in a container as perf stat record's records. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/counting.h"
#include "pmutrace/events.h"
#include "pmutrace/metrics.h"
#include "pmutrace/pmu.h"
#include "stat_metrics.h"

static int usage(FILE *fp)
{
	fprintf(fp,
		"usage: pmutrace stat [-e EVENT]... [-a | -C CPUS | -p PID | -t TID | -- CMD ARGS]\n"
		"                     [-A | --per-core | --per-die | --per-socket | --per-thread]\n"
		"                     [-I MS]\n"
		"                     [-x SEP | -j] [-M METRIC --metrics FILE]\n"
		"                     [--topdown [--td-level N]] [--retire-latency TABLE]\n"
		"                     [--events FILE] [--cputype core|atom|lowpower] [-o FILE]\n"
		"                     [--no-inherit]\n"
		"                     [--dry-run] [-v]\n"
		"  -e, --event EVENT    perf's syntax (default: task-clock, context-switches,\n"
		"                       cpu-migrations, page-faults)\n"
		"  -a, --all-cpus       every online CPU;  -C, --cpu LIST: those CPUs\n"
		"  -p, --pid PID / -t, --tid TID   an existing process (its threads) / thread\n"
		"  -A, --no-aggr        one line per CPU;  --per-core, --per-die, --per-socket: per\n"
		"                       core, die or socket\n"
		"                       (devices/system/cpu/cpuN/topology)\n"
		"      --per-thread     one line per thread (COMM-TID) of -p, -t or -a (every\n"
		"                       thread in /proc; lines of 0 left out)\n"
		"  -I, --interval-print MS   print (and record) the counts of every MS milliseconds\n"
		"  -x, --field-separator SEP perf stat's CSV columns;  -j, --json-output: JSON lines\n"
		"  -M, --metrics-select NAME[,NAME]  metrics (or groups) computed from the counts, with\n"
		"      --metrics FILE   perf pmu-events or Intel perfmon metric JSON\n"
		"      --events FILE    named events from a JSON table (default: the search path\n"
		"                       $PMUTRACE_EVENTS_PATH, else $XDG_DATA_HOME/pmutrace/events)\n"
		"  -o, --output FILE    also keep the counts in a container (perf stat record's\n"
		"                       records: zstd -dc FILE | perf stat report -i -)\n"
		"  -i, --no-inherit     children of the workload are not counted\n"
		"      --dry-run        open nothing; with -v print every attr (perf stat -vv)\n"
		"      --topdown        topdown level 1 (tma_* percentages): with --metrics, the\n"
		"                       table's TopdownL1 group as perf opens it; without, the\n"
		"                       slots + topdown-* group of a PERF_METRICS PMU\n"
		"      --td-level N     --topdown's level (0 or 1: level 1; 2 and deeper with a\n"
		"                       table, as deep as its TopdownLN groups go)\n"
		"      --retire-latency TABLE  the :R events' values (-e, -M, --topdown): the\n"
		"                       table's mean, rounded, as perf stat takes its own table's\n"
		"                       (Intel *_retire_latency.json, pmu-tools *-retlat.json or\n"
		"                       events with RetirementLatencyMean; without: 0), on the\n"
		"                       first CPU alone as perf 7.3 counts it\n"
		"      --cputype TYPE   hybrid: events without a PMU (and --topdown's) on core PMU\n"
		"                       cpu_TYPE (core, atom, Arrow Lake-H's lowpower) only\n"
		"The counts go to stderr, as perf stat's do.\n");
	fputs(pmt_cli_exit_help, fp);
	return fp == stdout ? 0 : PMT_EXIT_USAGE;
}

enum { O_DRY_RUN = 256, O_PER_CORE, O_PER_SOCKET, O_METRICS, O_TOPDOWN, O_PER_DIE, O_EVENTS,
       O_PER_THREAD, O_TD_LEVEL, O_CPUTYPE, O_RETLAT };

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void on_child(int sig)
{
	(void)sig;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}


static const struct pmt_count_value *get_value(void *ctx, uint32_t e, uint32_t ci, uint32_t ti)
{
	return pmt_counter_value(ctx, e, ci, ti);
}

/* one read of every counter into the aggregation, what failed to read marked */
static int read_update(struct run *r, bool interval)
{
	if (pmt_counter_read(r->ctr) < 0)
		return -1;
	for (uint32_t e = 0; e < r->plan.ev.nr; e++)
		pmt_stat_set_unread(r->stat, e, pmt_counter_unread(r->ctr, e));
	pmt_stat_update(r->stat, get_value, r->ctr, interval);
	return 0;
}

static int read_and_print(struct run *r, uint64_t t, bool final, bool *first)
{
	if (read_update(r, r->interval_ms != 0) < 0)
		return pmt_cli_fail("stat", "reading the counters failed");
	/* perf 7.3 fails -I's reads of a tool event on a CPU /proc/stat lacks (its final
	 * read counts 0 there) */
	for (uint32_t e = 0; r->interval_ms && e < r->plan.ev.nr; e++)
		if (pmt_counter_tool_cpu_absent(r->ctr, e))
			pmt_stat_not_counted(r->stat, e);
	if (r->file && pmt_stat_file_round(r->file, t, final) < 0)
		return pmt_cli_fail("stat", "writing the counts to the container failed");
	r->po.time_ns = t;
	r->po.header = *first;
	*first = false;
	if (r->td.on) {
		print_topdown(r);
		return 0;
	}
	print_counts_metrics(r);
	return 0;
}

static void banner(struct run *r, const struct pmt_count_opts *o, char **argv, int argc,
		   int32_t pid)
{
	fputs("\n Performance counter stats for ", r->out);
	if (o->target == PMT_COUNT_SYSTEM || o->target == PMT_COUNT_ALL_THREADS) {
		fputs("'system wide'", r->out);
	} else if (o->target == PMT_COUNT_CPUS) {
		/* perf prints -C's list as given ("0-3") */
		fprintf(r->out, "'CPU(s) %s'", r->cpu_list);
	} else if (o->target == PMT_COUNT_PID) {
		fprintf(r->out, "process id '%d'", (int)pid);
	} else if (o->target == PMT_COUNT_TID) {
		fprintf(r->out, "thread id '%d'", (int)pid);
	} else {
		fputc('\'', r->out);
		for (int i = 0; i < argc; i++)
			fprintf(r->out, "%s%s", i ? " " : "", argv[i]);
		fputc('\'', r->out);
	}
	if (r->runs > 1)
		fprintf(r->out, " (%u runs)", r->runs);
	fputs(":\n\n", r->out);
}

/* -r N: every run read and added; the last one prints the runs' means and noise */
static int end_of_run(struct run *r, const struct pmt_count_opts *o, char **argv, int argc,
		      int32_t pid, uint64_t ns)
{
	if (read_update(r, false) < 0)
		return pmt_cli_fail("stat", "reading the counters failed");
	pmt_stat_add_run(r->stat);
	pmt_run_stats_add(&r->elapsed, (double)ns / 1e9);
	if (r->run + 1 < r->runs && !stop_requested)
		return 0;
	pmt_stat_end_runs(r->stat);
	r->po.runs = r->runs;
	r->po.header = true;
	if (r->po.format == PMT_STAT_TEXT)
		banner(r, o, argv, argc, pid);
	if (r->td.on) {
		print_topdown(r);
	} else {
		print_counts_metrics(r);
	}
	if (r->po.format == PMT_STAT_TEXT) {
		double sd = pmt_run_stats_stddev(&r->elapsed);

		fprintf(r->out, "\n %17.9f +- %.9f seconds time elapsed", r->elapsed.mean, sd);
		if (r->elapsed.mean && sd)
			fprintf(r->out, "  ( +-%6.2f%% )", pmt_run_stats_noise_pct(&r->elapsed));
		fputs("\n\n", r->out);
	}
	return 0;
}

/* The threads of -p, -t and --per-thread -a, listed once before the workload is forked (the
 * workload is not one of them) and kept for every run of -r, as the aggregation's threads
 * are the first run's; -v prints the opens of these. A workload's thread is its fork's. */
static int list_threads(struct run *r, const struct pmt_count_opts *o, int32_t pid)
{
	struct pmt_diag d = PMT_DIAG_INIT;

	if (o->target == PMT_COUNT_ALL_THREADS)
		r->nthreads = pmt_count_all_threads(&r->threads, &d);
	else if (o->target == PMT_COUNT_PID)
		r->nthreads = pmt_count_task_threads(pid, &r->threads, &d);
	else if (o->target == PMT_COUNT_TID || o->target == PMT_COUNT_WORKLOAD) {
		r->threads = malloc(sizeof(*r->threads));
		if (!r->threads)
			return PMT_EXIT_ERROR;
		/* a workload's pid is 0 until count() forks it (--dry-run forks none) */
		r->threads[0] = o->target == PMT_COUNT_TID ? pid : 0;
		r->nthreads = 1;
	}
	return r->nthreads < 0 ? pmt_cli_fail_diag("stat", &d) : 0;
}

static int count(struct run *r, const struct pmt_count_opts *o, char **argv, int argc,
		 int32_t pid, int cli_argc, char **cli_argv, const char *outpath)
{
	struct pmt_diag d = PMT_DIAG_INIT;
	struct sigaction sa = { .sa_handler = on_signal }, sc = { .sa_handler = on_child };
	uint64_t t0, next, t;
	int status = 0, rc = PMT_EXIT_OK;
	bool first = true, running;
	struct rusage ru = { 0 };

	r->wl.pid = -1;
	if (argc > 0 && pmt_workload_prepare(&r->wl, argv, &d) < 0)
		return pmt_cli_fail_diag("stat", &d);
	if (o->target == PMT_COUNT_WORKLOAD) {
		if (!r->threads)
			r->threads = malloc(sizeof(*r->threads));
		if (!r->threads)
			return PMT_EXIT_ERROR;
		r->threads[0] = r->wl.pid;
		r->nthreads = 1;
	}
	if (pmt_counter_open_weak(&r->plan, r->threads, (uint32_t)r->nthreads, true, &r->ctr,
				  &d) < 0) {
		if (argc > 0)
			pmt_workload_abort(&r->wl);
		return pmt_cli_fail_diag("stat", &d);
	}
	pmt_counter_set_earlier_runs(r->ctr, r->run);
	/* -r: one aggregation over every run, the counters opened afresh for each */
	if (!r->stat) {
		if (pmt_stat_new(&r->plan, pmt_counter_nr_threads(r->ctr), r->aggr, NULL,
				 &r->stat) < 0)
			return PMT_EXIT_ERROR;
		if (stat_td_alloc(&r->td, pmt_stat_nr_units(r->stat)) < 0)
			return PMT_EXIT_ERROR;
		pmt_stat_set_threads(r->stat, r->threads, (uint32_t)r->nthreads);
	}
	for (uint32_t e = 0; e < r->plan.ev.nr; e++)
		pmt_stat_set_supported(r->stat, e, pmt_counter_supported(r->ctr, e));
	if (outpath &&
	    pmt_stat_file_open(outpath, &r->plan, r->ctr, r->threads, r->aggr, r->interval_ms,
			       cli_argc, (const char *const *)cli_argv, &r->file, &d) < 0) {
		if (argc > 0)
			pmt_workload_abort(&r->wl);
		return pmt_cli_fail_diag("stat", &d);
	}
	/* no SA_RESTART: the sleep returns and the loop sees the flag; the workload gets
	 * the terminal's SIGINT itself, as under perf */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGCHLD, &sc, NULL);
	t0 = now_ns();
	/* a workload's own counters start at its exec (enable_on_exec); CPUs now */
	if (o->target != PMT_COUNT_WORKLOAD && pmt_counter_enable(r->ctr, true) < 0) {
		if (argc > 0)
			pmt_workload_abort(&r->wl);
		rc = pmt_cli_fail("stat", "enabling the counters failed");
		goto out;
	}
	if (argc > 0 && pmt_workload_start(&r->wl, argv[0], &d) < 0) {
		rc = pmt_cli_fail_diag("stat", &d);
		goto out;
	}
	next = t0 + r->interval_ms * 1000000ull;
	running = true;
	while (running) {
		uint64_t wait = 1000000000ull;
		struct timespec ts;

		if (argc > 0 && wait4(r->wl.pid, &status, WNOHANG, &ru) > 0) {
			r->wl.pid = -1;
			running = false;
		}
		if (stop_requested)
			running = false;
		t = now_ns();
		if (r->interval_ms && running && t >= next) {
			if (read_and_print(r, t - t0, false, &first))
				goto out_err;
			next += r->interval_ms * 1000000ull;
		}
		/* woken early by SIGCHLD (the workload ended) or SIGINT */
		if (r->interval_ms)
			wait = next > t ? next - t : 0;
		ts.tv_sec = (time_t)(wait / 1000000000ull);
		ts.tv_nsec = (long)(wait % 1000000000ull);
		if (running && wait)
			nanosleep(&ts, NULL);
	}
	t = now_ns();
	if (r->interval_ms) {
		/* perf's last interval: the time to the end, no summary */
		if (read_and_print(r, t - t0, true, &first))
			goto out_err;
	} else if (r->runs > 1) {
		if (end_of_run(r, o, argv, argc, pid, t - t0))
			goto out_err;
	} else {
		if (r->po.format == PMT_STAT_TEXT)
			banner(r, o, argv, argc, pid);
		if (read_and_print(r, t - t0, true, &first))
			goto out_err;
		if (r->po.format == PMT_STAT_TEXT) {
			fprintf(r->out, "\n %17.9f seconds time elapsed\n\n", (double)(t - t0) / 1e9);
			if (o->target == PMT_COUNT_WORKLOAD)
				fprintf(r->out, " %17.9f seconds user\n %17.9f seconds sys\n\n\n",
					(double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
					(double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
		}
	}
	goto out;
out_err:
	rc = PMT_EXIT_ERROR;
out:
	if (argc > 0 && r->wl.pid > 0) {
		kill(r->wl.pid, SIGTERM);
		waitpid(r->wl.pid, &status, 0);
	}
	if (r->file && pmt_stat_file_close(r->file, rc == PMT_EXIT_OK, &d) < 0)
		rc = pmt_cli_fail_diag("stat", &d);
	r->file = NULL;
	if (rc == PMT_EXIT_OK && argc > 0 && WIFEXITED(status) &&
	    WEXITSTATUS(status))
		rc = WEXITSTATUS(status); /* perf stat returns the workload's status */
	return rc;
}

int cmd_stat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "no-aggr", no_argument, NULL, 'A' },
		{ "per-core", no_argument, NULL, O_PER_CORE },
		{ "per-socket", no_argument, NULL, O_PER_SOCKET },
		{ "per-die", no_argument, NULL, O_PER_DIE },
		{ "per-thread", no_argument, NULL, O_PER_THREAD },
		{ "repeat", required_argument, NULL, 'r' },
		{ "events", required_argument, NULL, O_EVENTS },
		{ "interval-print", required_argument, NULL, 'I' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json-output", no_argument, NULL, 'j' },
		{ "metrics-select", required_argument, NULL, 'M' },
		{ "metrics", required_argument, NULL, O_METRICS },
		{ "output", required_argument, NULL, 'o' },
		{ "no-inherit", no_argument, NULL, 'i' },
		{ "dry-run", no_argument, NULL, O_DRY_RUN },
		{ "topdown", no_argument, NULL, O_TOPDOWN },
		{ "td-level", required_argument, NULL, O_TD_LEVEL },
		{ "cputype", required_argument, NULL, O_CPUTYPE },
		{ "retire-latency", required_argument, NULL, O_RETLAT },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pmt_count_opts o = PMT_OPTS_INIT(pmt_count_opts);
	struct run r = { .po = PMT_OPTS_INIT(pmt_stat_print_opts), .out = stderr };
	struct pmt_events_opts eo = PMT_OPTS_INIT(pmt_events_opts);
	struct pmt_event_table *table = NULL;
	const char *events_file = NULL;
	struct pmt_pmus pmus;
	struct pmt_evlist events = { 0 };
	struct pmt_diag d = PMT_DIAG_INIT;
	const char *evstr[64], *outpath = NULL;
	unsigned nev = 0, targets = 0, aggrs = 0, aggr_set = 0;
	static const enum pmt_aggr aggr_order[] = { PMT_AGGR_CPU, PMT_AGGR_CORE, PMT_AGGR_DIE,
						    PMT_AGGR_SOCKET };
	int c, verbose = 0, dry_run = 0, rc;
	bool nev_given = false;
	int32_t pid = 0;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "+he:aC:p:t:AI:x:jM:o:ivr:", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (nev == sizeof(evstr) / sizeof(evstr[0]))
				return pmt_cli_usage_fail("stat", "too many -e options");
			evstr[nev++] = optarg;
			break;
		case 'a':
			/* perf takes -a twice ("-a --per-core -a") */
			targets += o.target != PMT_COUNT_SYSTEM;
			o.target = PMT_COUNT_SYSTEM;
			break;
		case 'C':
			if (pmt_cpumask_parse(optarg, &o.cpus) < 0 || !pmt_cpumask_count(&o.cpus))
				return pmt_cli_usage_fail("stat", "bad value '%s' for -C (a CPU list "
							  "such as 0-3,8)", optarg);
			o.target = PMT_COUNT_CPUS;
			r.cpu_list = optarg;
			targets++;
			break;
		case 'p':
		case 't':
			if (pmt_parse_u64(optarg, &v) < 0 || !v || v > INT32_MAX)
				return pmt_cli_usage_fail("stat", "bad value '%s' for -%c (a process "
							  "or thread id)", optarg, c);
			o.target = c == 'p' ? PMT_COUNT_PID : PMT_COUNT_TID;
			pid = (int32_t)v;
			targets++;
			break;
		/* perf 7.3's opt_aggr_mode_to_aggr_mode(): of -A, --per-core, --per-die and
		 * --per-socket the first of these wins, whatever their order */
		case 'A': aggr_set |= 1u << PMT_AGGR_CPU; break;
		case O_PER_CORE: aggr_set |= 1u << PMT_AGGR_CORE; break;
		case O_PER_SOCKET: aggr_set |= 1u << PMT_AGGR_SOCKET; break;
		case O_PER_DIE: aggr_set |= 1u << PMT_AGGR_DIE; break;
		case O_PER_THREAD: r.aggr = PMT_AGGR_THREAD; aggrs = 1; break;
		case 'r':
			if (pmt_parse_u64(optarg, &v) < 0 || !v || v > 1000000)
				return pmt_cli_usage_fail("stat", "bad value '%s' for -r (a number "
							  "of runs, at least 1)", optarg);
			r.runs = (uint32_t)v;
			break;
		case O_EVENTS: events_file = optarg; break;
		case 'I':
			/* perf's floor: shorter intervals cost more than they show */
			if (pmt_parse_u64(optarg, &r.interval_ms) < 0 || r.interval_ms < 10)
				return pmt_cli_usage_fail("stat", "bad value '%s' for -I (milliseconds, "
							  "at least 10)", optarg);
			break;
		case 'x':
			r.po.format = PMT_STAT_CSV;
			r.po.sep = optarg;
			break;
		case 'j': r.po.format = PMT_STAT_JSON; break;
		case 'M': /* perf's -M takes a comma-separated list (argv is ours to cut) */
			for (char *sv, *m = strtok_r(optarg, ",", &sv); m; m = strtok_r(NULL, ",", &sv)) {
				if (r.nsel == sizeof(r.sel) / sizeof(r.sel[0]))
					return pmt_cli_usage_fail("stat", "too many metrics in -M");
				r.sel[r.nsel++] = m;
			}
			break;
		case O_METRICS: r.metrics_file = optarg; break;
		case 'o': outpath = optarg; o.record_pipe = true; break;
		case 'i': o.no_inherit = true; break;
		case O_DRY_RUN: dry_run = 1; break;
		case O_TOPDOWN: r.td.on = true; break;
		case O_CPUTYPE: eo.cputype = optarg; break;
		case O_RETLAT: r.retlat_file = optarg; break;
		case O_TD_LEVEL: {
			/* perf's OPT_UINTEGER: a sign refused, strtol's digits; "" is 0 */
			char *end;
			long lv = strtol(optarg, &end, 10);

			if (optarg[0] == '-')
				return pmt_cli_usage_fail("stat", "option `td-level' expects an "
							  "unsigned numerical value");
			if (*end)
				return pmt_cli_usage_fail("stat", "option `td-level' expects a "
							  "numerical value");
			r.td.level = lv > 99 ? 99 : (unsigned)lv;
			break;
		}
		case 'v': verbose++; break;
		case 'h': return usage(stdout);
		default: return usage(stderr);
		}
	}
	if (targets > 1)
		return pmt_cli_usage_fail("stat", "choose one of -a, -C, -p and -t");
	for (size_t k = 0; k < sizeof(aggr_order) / sizeof(aggr_order[0]); k++)
		if (aggr_set & 1u << aggr_order[k]) {
			r.aggr = aggr_order[k];
			aggrs++;
			break;
		}
	if (aggrs > 1)
		return pmt_cli_usage_fail("stat", "--per-thread goes with none of -A, --per-core, "
					  "--per-die and --per-socket");
	/* perf 7.3: --per-thread alone counts every thread of the system, as with -a; with a
	 * workload or -C and no -a it is refused, in perf's words. A workload's own threads
	 * cannot be told apart: an inherited counter adds its children into the parent's. */
	if (r.aggr == PMT_AGGR_THREAD && !targets && optind >= argc) {
		o.target = PMT_COUNT_SYSTEM;
		targets++;
	}
	if (r.aggr == PMT_AGGR_THREAD && o.target != PMT_COUNT_PID &&
	    o.target != PMT_COUNT_TID && o.target != PMT_COUNT_SYSTEM)
		return pmt_cli_usage_fail("stat", "The --per-thread option is only available when "
					  "monitoring via -p -t -a options or only --per-thread.");
	/* per thread system-wide: each thread of /proc counted on its own (cpu -1) */
	if (r.aggr == PMT_AGGR_THREAD && o.target == PMT_COUNT_SYSTEM) {
		o.target = PMT_COUNT_ALL_THREADS;
		r.po.skip_zero = true;
	}
	if (r.runs > 1 && (outpath || r.interval_ms))
		return pmt_cli_usage_fail("stat", "-r cannot be used with %s (one recording and "
					  "one series of intervals per run)",
					  outpath ? "-o" : "-I");
	if (r.runs > 1 && optind >= argc)
		return pmt_cli_usage_fail("stat", "-r needs a workload (-- CMD ARGS) to repeat");
	if (r.td.on && (nev || r.nsel))
		return pmt_cli_usage_fail("stat", "--topdown chooses its own events: no -e or -M "
					  "with it");
	/* with -a, -C, -p or -t a workload only sets how long they are counted (perf's way) */
	if (!targets && optind >= argc)
		return pmt_cli_usage_fail("stat", "nothing to count: give -- CMD ARGS, -a, -C, -p "
					  "or -t");
	r.po.interval = r.interval_ms != 0;
	/* -v: perf's pr_debug lines (--topdown's event order, a weak group split) */
	if (verbose > 0 && pmt_log_get_level() < PMT_LOG_DEBUG)
		pmt_log_set_level(PMT_LOG_DEBUG);
	rc = setup_metrics(&r);
	if (rc)
		goto done_early;
	rc = events_file ? pmt_event_table_load(&table, events_file, &d)
			 : pmt_event_table_load_default(&table, &d);
	if (rc < 0) {
		rc = pmt_cli_fail_diag("stat", &d);
		goto done_early;
	}
	eo.table = table;
	rc = pmt_pmus_load(&pmus, NULL, &d);
	if (rc < 0) {
		pmt_diag_print(&d);
		rc = PMT_EXIT_ERROR;
		goto done_early;
	}
	pmt_pmus_probe_extended_type(&pmus);
	nev_given = nev != 0;
	if (!nev && r.mplan) {
		rc = metric_events(&r, &events, &pmus, &eo, &d);
	} else {
		/* without a table: level 2 where the PMU lists its topdown-* events */
		if (r.td.on) {
			struct pmt_evlist l2 = { 0 };
			struct pmt_diag ignored = PMT_DIAG_INIT;
			struct pmt_events_opts any = PMT_OPTS_INIT(pmt_events_opts, .table = table);
			unsigned max = pmt_events_parse_opts(&l2, &pmus, "topdown-heavy-ops,"
							     "topdown-br-mispredict,topdown-fetch-lat,"
							     "topdown-mem-bound", &any, &ignored) < 0 ? 1 : 2;

			pmt_evlist_fini(&l2);
			rc = stat_td_columns(&r.td, max, pmus.root, &pmus);
			/* --cputype of a core PMU perf 7.3's hybrid tables have no metric for
			 * (Arrow Lake-H's cpu_lowpower): its words */
			if (!rc && !stat_td_has_pmu(&r.td, eo.cputype))
				rc = pmt_cli_fail("stat", "Cannot find metric or group `TopdownL%u'",
						  r.td.level);
			if (rc) {
				pmt_pmus_fini(&pmus);
				goto done_early;
			}
		}
		/* --cputype atom: the core PMU's topdown group is not counted */
		bool td_core_group = r.td.on && !nev && stat_td_counts_core(&r.td, eo.cputype);

		if (!nev && !(r.td.on && !stat_td_counts_core(&r.td, eo.cputype)))
			evstr[nev++] = r.td.on ? stat_td_core_group(&r.td)
					       : "task-clock,context-switches,cpu-migrations,"
						 "page-faults";
		/* after the slots group, as perf 7.3 opens them */
		if (td_core_group && stat_td_core_events(&r.td, eo.cputype))
			evstr[nev++] = stat_td_core_events(&r.td, eo.cputype);
		if (r.td.on && stat_td_atom_events(&r.td, eo.cputype))
			evstr[nev++] = stat_td_atom_events(&r.td, eo.cputype);
		rc = 0;
		for (unsigned i = 0; i < nev && rc >= 0; i++)
			rc = pmt_events_parse_opts(&events, &pmus, evstr[i], &eo, &d);
		/* perf 7.3's parse_events() words for -e (not for the events it picks itself) */
		if (rc >= 0 && nev_given && events.regrouped)
			fputs("WARNING: events were regrouped to match PMUs\n", stderr);
		if (rc >= 0 && nev_given && events.cpus_warning[0])
			fprintf(stderr, "WARNING: grouped events cpus do not match.\nEvents with CPUs "
				"not matching the leader will be removed from the group.\n%s",
				events.cpus_warning);
		/* -e with -M: the metrics' events after -e's, as perf 7.3 adds them */
		r.metric_first = events.nr;
		if (rc >= 0 && r.mplan)
			rc = metric_events(&r, &events, &pmus, &eo, &d);
		if (rc < 0 && r.td.on)
			pmt_diag_set(&d, rc, NULL, PMT_DIAG_NO_OFFSET,
				     "Topdown requested but the topdown events aren't present (a PMU "
				     "with slots and topdown-* in %s/bus/event_source/devices/*/"
				     "events; or give --metrics FILE with a TopdownL1 group)",
				     pmus.root);
	}
	/* -a or -C with a workload: the workload runs, the CPUs are counted (perf's way) */
	if (rc >= 0)
		rc = pmt_count_plan_build(&r.plan, &events, &pmus, &o, &d);
	else
		pmt_evlist_fini(&events);
	if (rc < 0) {
		pmt_diag_print(&d);
		pmt_pmus_fini(&pmus);
		rc = PMT_EXIT_USAGE;
		goto done_early;
	}
	stat_td_drop_uncounted(&r.td, &r.plan, &pmus, eo.cputype);
	rc = stat_retlat_values(&r);
	if (!rc && r.mplan && ml_layout_wanted(&r) &&
	    stat_ml_setup(&r.ml, &r.ms, r.sel, r.nsel, ml_thresholds(&r), r.mplan, &r.plan,
			  r.metric_first, &r.pl, r.list_first) < 0)
		rc = pmt_cli_fail("stat", "out of memory");
	/* perf 7.3's words when the metric group has no event on these CPUs */
	if (rc)
		;
	else if (r.td.on && !r.td.cols)
		rc = pmt_cli_fail("stat", "No supported events found.\nTopdownL%u", r.td.level);
	else
		rc = verbose > 0 || !dry_run ? list_threads(&r, &o, pid) : PMT_EXIT_OK;
	if (verbose > 0 && rc == PMT_EXIT_OK)
		pmt_count_plan_print(stdout, &r.plan, r.threads, (uint32_t)r.nthreads);
	if (!dry_run && rc == PMT_EXIT_OK) {
		if (!r.runs)
			r.runs = 1;
		for (r.run = 0; r.run < r.runs && rc == PMT_EXIT_OK && !stop_requested; r.run++) {
			rc = count(&r, &o, argv + optind, argc - optind, pid, argc, argv, outpath);
			pmt_counter_free(r.ctr);
			r.ctr = NULL;
		}
	}
	pmt_stat_free(r.stat);
	pmt_counter_free(r.ctr);
	free(r.threads);
	pmt_count_plan_fini(&r.plan);
	pmt_pmus_fini(&pmus);
done_early:
	stat_td_fini(&r.td);
	stat_ml_fini(&r.ml);
	pmt_perf_lists_fini(&r.pl);
	free(r.list_first);
	pmt_event_table_free(table);
	pmt_metric_plan_free(r.mplan);
	pmt_metric_set_fini(&r.ms);
	return rc;
}
