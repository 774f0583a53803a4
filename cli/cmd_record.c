/* pmutrace record: perf record's command line into a pmutrace container. --dry-run -v
 * shows what would be opened (every event's attributes in perf record -vv's layout, from the
 * PMUs of the sysfs tree in $SYSFS_PATH) and opens nothing. */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/container.h"
#include "pmutrace/counting.h"
#include "pmutrace/events.h"
#include "pmutrace/metrics.h"
#include "pmutrace/pmu.h"
#include "pmutrace/record.h"

static int usage(FILE *fp)
{
	fprintf(fp,
		"usage: pmutrace record [-e EVENT]... [--tpebs -M METRIC --metrics FILE]\n"
		"                       [-c PERIOD | -F FREQ] [-W] [-d] [-P] [-g] [-a | -C CPUS | -p PID |\n"
		"                       -t TID | [--per-thread] -- CMD ARGS] [-o FILE|-]\n"
		"                       [-m PAGES[,AUXPAGES]] [-S|--snapshot[=[e]SIZE]] [--no-inherit]\n"
		"                       [-o FILE|-] [-z LEVEL] [--duration SEC] [--dry-run] [-v] [-q]\n"
		"  -e, --event EVENT    perf's syntax: cpu-clock, dummy:u, arm_spe_0/load_filter=1/u,\n"
		"                       arm_spe// (every arm_spe_N); terms from the PMU's format files\n"
		"      --pfm-events EVS libpfm4 event strings (INST_RETIRED:u,{A,B}), as perf's\n"
		"  -c, --count PERIOD   sample period of every event;  -F, --freq FREQ (not for SPE)\n"
		"  -W, --weight         sample the weight (x86: WEIGHT_STRUCT, the PEBS retire\n"
		"                       latency in var3_w; give the event :p, :pp or :ppp)\n"
		"  -d, --data           data address and source;  -P, --period: period in samples\n"
		"      --phys-data, --data-page-size, --code-page-size, --sample-cpu,\n"
		"      --sample-identifier  more fields\n"
		"  -g, --call-graph fp|dwarf[,SIZE]  the call chain in every sample: frame\n"
		"                       pointers (-g), or the user registers and SIZE bytes of\n"
		"                       user stack (default 8192) that script/report unwind\n"
		"  -k, --clockid CLOCK  the events' clock (mono, raw, real, boot, tai or a number)\n"
		"                       and its clock data, which script -F tod dates samples by\n"
		"      --tpebs -M METRIC[,GROUP] --metrics FILE  sample every retire-latency\n"
		"                       (EVENT:R) event of those metrics with PEBS (as perf stat\n"
		"                       --record-tpebs does) and count their other events, for\n"
		"                       pmutrace calibrate/metrics TRACE\n"
		"      --count-events EVENTS  count these events (perf stat's syntax, groups too)\n"
		"                       on the recording's target, kept as perf stat record's\n"
		"                       records beside the samples; repeatable\n"
		"      --count-interval MS  a round of counts every MS ms (default: one at the end)\n"
		"      --count-per-cpu  the counts shown per CPU (-a, -C), as perf stat -A\n"
		"  -a, --all-cpus       every online CPU;  -C, --cpu LIST: those CPUs\n"
		"  -p, --pid PID / -t, --tid TID   an existing process / thread\n"
		"      --per-thread     one buffer per thread, no per-CPU events\n"
		"  -m, --mmap-pages N[,M]  data ring and AUX area sizes in pages (powers of 2)\n"
		"  -S, --snapshot[=[e]SIZE] AUX snapshot mode (overwrite; SIGUSR2 takes a snapshot)\n"
		"  -o, --output FILE    the container (default perf.data; an existing file is kept\n"
		"                       as FILE.old); - writes it to stdout\n"
		"  -z, --compression-level N  zstd level (default 1)\n"
		"      --writer-policy block|drop|lower  when compression cannot keep up: wait\n"
		"                       for it (default), drop AUX data, or lower the zstd level\n"
		"                       of the next frames; counted in the summary and by info\n"
		"      --writer-backlog SIZE  bytes waiting for compression before the policy\n"
		"                       acts (default: a frame per thread)\n"
		"      --bundle[=symbols|full]  carry the mapped executables' symbol and line tables\n"
		"                       (symbols, the default) or whole files (full, for annotate)\n"
		"                       and /proc/kallsyms in the container, so it decodes on any\n"
		"                       machine;  --no-bundle: nothing\n"
		"      --events FILE    named events from a JSON table (perf pmu-events or Intel\n"
		"                       perfmon; a folder: every *.json); repeatable. Default:\n"
		"                       $PMUTRACE_EVENTS_PATH, else $XDG_DATA_HOME/pmutrace/events\n"
		"      --cputype TYPE   hybrid: events without a PMU open on core PMU cpu_TYPE\n"
		"                       (core, atom, Arrow Lake-H's lowpower) only\n"
		"      --duration SEC   stop after SEC seconds (also SIGINT, SIGTERM, workload exit)\n"
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

enum { O_DRY_RUN = 256, O_PER_THREAD, O_NO_INHERIT, O_DURATION, O_BUNDLE, O_NO_BUNDLE,
       O_CPUTYPE, O_EVENTS, O_PFM_EVENTS, O_TPEBS, O_METRICS, O_PHYS_DATA,
       O_DATA_PAGE_SIZE, O_CODE_PAGE_SIZE, O_SAMPLE_CPU, O_COUNT_EVENTS, O_COUNT_INTERVAL,
       O_SAMPLE_IDENTIFIER, O_COUNT_PER_CPU, O_CALL_GRAPH, O_WRITER_POLICY, O_WRITER_BACKLOG };

#define MAX_EVENT_OPTS 64

/* --tpebs -M METRIC[,GROUP] --metrics FILE: the metrics' :R events to sample (perf's tpebs
 * record child: -W, each event with p for R) appended to the -e list; the metrics' other
 * events go to ev->counted. Returns 0 or an exit status. */
static int tpebs_events(const char *table, const char *select, const char *core_pmu,
			struct pmt_metric_events *ev, const char **evstr, unsigned *nev)
{
	struct pmt_metric_set ms = { 0 };
	struct pmt_metric_plan *plan = NULL;
	struct pmt_expr_ctx ctx;
	const char *names[64];
	size_t nsel = 0;
	struct pmt_diag diag = PMT_DIAG_INIT;
	char list[512];
	int rc;

	snprintf(list, sizeof(list), "%s", select);
	for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
		if (nsel < sizeof(names) / sizeof(names[0]))
			names[nsel++] = tok;
	if (!nsel)
		return pmt_cli_usage_fail("record", "-M: name a metric or metric group");
	if (pmt_metric_set_load(&ms, table, &diag) < 0) {
		pmt_diag_print(&diag);
		pmt_metric_set_fini(&ms);
		return pmt_cli_fail("record", "--metrics %s: the metric table does not load (perf "
				    "pmu-events or Intel perfmon metric JSON)", table);
	}
	pmt_expr_ctx_default(&ctx);
	rc = pmt_metric_plan_new(&ms, names, nsel, &ctx, &plan, &diag);
	if (rc < 0) {
		pmt_metric_set_fini(&ms);
		return pmt_cli_usage_fail("record", "-M: %s (in %s)", diag.msg, table);
	}
	rc = pmt_metric_plan_events(plan, core_pmu, ev);
	pmt_metric_plan_free(plan);
	pmt_metric_set_fini(&ms);
	if (rc < 0)
		return pmt_cli_fail("record", "--tpebs: metric event '%s' cannot be written as an "
				    "event to open", ev->bad);
	if (!ev->nr_sampled) {
		pmt_metric_events_fini(ev);
		return pmt_cli_usage_fail("record", "--tpebs: no metric of -M %s uses a retire "
					  "latency (an EVENT:R term): nothing to sample", select);
	}
	for (size_t i = 0; i < ev->nr_sampled; i++) {
		if (*nev == MAX_EVENT_OPTS) {
			pmt_metric_events_fini(ev);
			return pmt_cli_usage_fail("record", "too many events (at most %d)",
						  MAX_EVENT_OPTS);
		}
		evstr[(*nev)++] = ev->sampled[i];
	}
	return 0;
}

/* --count-events and --tpebs's counted events: counted as perf stat counts them, on the
 * recording's own target (the workload's threads from its exec, -p's tasks, the CPUs) */
static int count_plan(struct pmt_count_plan *cplan, struct pmt_evlist *events,
		      const struct pmt_pmus *pmus, const struct pmt_record_opts *o,
		      struct pmt_diag *d)
{
	static const enum pmt_count_target target[] = {
		[PMT_TARGET_WORKLOAD] = PMT_COUNT_WORKLOAD, [PMT_TARGET_SYSTEM] = PMT_COUNT_SYSTEM,
		[PMT_TARGET_CPUS] = PMT_COUNT_CPUS, [PMT_TARGET_PID] = PMT_COUNT_PID,
		[PMT_TARGET_TID] = PMT_COUNT_TID,
	};
	/* perf stat's attrs (sample_type IDENTIFIER): a record's first attr says where
	 * every record's id is, so the counting attrs' sample_type changes nothing */
	struct pmt_count_opts co = { .sz = sizeof(co), .target = target[o->target],
				     .cpus = o->cpus, .no_inherit = o->no_inherit };

	return pmt_count_plan_build(cplan, events, pmus, &co, d);
}

static volatile int stop_requested, snapshot_requested;
static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_requested = 1;
	stop_signal = sig;
}

/* perf record's message for a workload that did not exec, naming the events as given */
static void exec_failed(const char *const *evstr, unsigned nev, const char *prog, int err)
{
	fprintf(stderr, "Failed to collect '");
	for (unsigned i = 0; i < nev; i++)
		fprintf(stderr, "%s%s", i ? "," : "", evstr[i]);
	fprintf(stderr, "' for the '%s' workload: %s\n", prog, strerror(err));
}

/* perf record's status with a workload, once the file is complete: the signal that killed
 * the workload, or else the one that stopped the recording, is raised again (the shell
 * sees 128+N, perf's record__sig_exit); a workload's non-zero exit status is the
 * recorder's. A workload that died of the SIGTERM sent at the end of --duration ended as
 * asked. Without a workload a stop signal is how -a, -C, -p and -t recordings end: 0 or 2
 * as any complete recording (perf: 128+N there too). */
static int exit_as_perf(int rc, const struct pmt_record_stats *st, bool workload)
{
	int sig = workload ? stop_signal : 0, ws = st->workload_status;

	if (ws != -1 && WIFSIGNALED(ws) &&
	    !(st->workload_terminated && !sig && WTERMSIG(ws) == SIGTERM))
		sig = WTERMSIG(ws);
	if (sig) {
		fflush(stdout);
		fflush(stderr);
		signal(sig, SIG_DFL);
		raise(sig);
		return 128 + sig; /* a signal whose default is not to terminate */
	}
	if (ws != -1 && WIFEXITED(ws) && WEXITSTATUS(ws))
		return WEXITSTATUS(ws);
	return rc;
}

static void on_snapshot(int sig)
{
	(void)sig;
	snapshot_requested = 1;
}

static void summary(const char *out, const struct pmt_record_stats *st, int verbose)
{
	double mb = (double)(st->bytes + st->aux_bytes) / 1e6;
	uint64_t lost = st->lost + st->lost_samples;

	if (verbose < 0)
		return;
	fprintf(stderr, "[ pmutrace record: %.3f MB captured in %.2f s (%llu records, %llu "
			"samples, %.3f MB AUX) into %s",
		mb, (double)st->wall_ns / 1e9, (unsigned long long)st->records,
		(unsigned long long)st->samples, (double)st->aux_bytes / 1e6, out);
	if (st->snapshots)
		fprintf(stderr, ", %u snapshots", st->snapshots);
	if (st->out_bytes)
		fprintf(stderr, " (%.3f MB, ratio %.2f)", (double)st->out_bytes / 1e6,
			st->out_bytes ? mb * 1e6 / (double)st->out_bytes : 0.0);
	fprintf(stderr, " ]\n");
	if (verbose > 0 && st->drain_cpu_ns)
		fprintf(stderr, "[ drain thread: %.3f CPU s, %.0f MB/s of AUX before compression ]\n",
			(double)st->drain_cpu_ns / 1e9,
			(double)st->aux_bytes / 1e6 / ((double)st->drain_cpu_ns / 1e9));
	if (st->bundle_files || st->bundle_skipped || st->bundle_kallsyms_hidden)
		fprintf(stderr, "[ bundled: %u files, %.3f MB before compression%s%s%s ]\n",
			st->bundle_files, (double)st->bundle_bytes / 1e6,
			st->bundle_source_bytes > st->bundle_bytes ? " (their symbol and line "
								      "tables)" : "",
			st->bundle_skipped ? "; some mapped files could not be read" : "",
			st->bundle_kallsyms_hidden ? "; kallsyms left out: kptr_restrict hides "
						     "its addresses (run as root or set "
						     "kernel.kptr_restrict=0)" : "");
	if (st->writer_waits || st->writer_dropped || st->writer_lowered_frames)
		fprintf(stderr, "[ compression fell behind: %llu records waited (%.3f s), %llu "
				"AUXTRACE records dropped (%llu bytes), %u frames below level %d "
				"(lowest %d, raised back %u times) ]\n",
			(unsigned long long)st->writer_waits, (double)st->writer_wait_ns / 1e9,
			(unsigned long long)st->writer_dropped,
			(unsigned long long)st->writer_dropped_bytes, st->writer_lowered_frames,
			st->writer_level, st->writer_level_min, st->writer_raised);
	if (lost || st->aux_truncated || st->aux_collision) {
		fprintf(stderr, "[ lost: %llu samples (LOST %llu, LOST_SAMPLES %llu), AUX: %llu "
				"truncated, %llu partial, %llu collisions; per ring:",
			(unsigned long long)lost, (unsigned long long)st->lost,
			(unsigned long long)st->lost_samples,
			(unsigned long long)st->aux_truncated,
			(unsigned long long)st->aux_partial,
			(unsigned long long)st->aux_collision);
		for (uint32_t s = 0; s < st->slots; s++)
			if (st->lost_per_slot && st->lost_per_slot[s])
				fprintf(stderr, " %s%d=%llu", st->slot_cpu[s] < 0 ? "ring" : "cpu",
					st->slot_cpu[s] < 0 ? (int)s : st->slot_cpu[s],
					(unsigned long long)st->lost_per_slot[s]);
		fprintf(stderr, " ]\n");
	}
}

/* more events than counters: the kernel time-shares them, and says so in the times */
static void multiplex_note(const struct pmt_record_plan *plan, const struct pmt_record_stats *st)
{
	uint32_t s = st->least_running_slot;

	if (!st->multiplexed || s >= st->slots || st->least_running_event >= plan->ev.nr)
		return;
	fprintf(stderr, "[ multiplexed: %s ran %.1f%% of its enabled time on %s %d (%u of %u "
			"rings): more events than counters; its samples cover that share ]\n",
		plan->ev.ev[st->least_running_event].name, 100.0 * st->least_running,
		st->slot_cpu[s] < 0 ? "ring" : "CPU", st->slot_cpu[s] < 0 ? (int)s : st->slot_cpu[s],
		st->multiplexed, st->slots);
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "pfm-events", required_argument, NULL, O_PFM_EVENTS },
		{ "count", required_argument, NULL, 'c' },
		{ "freq", required_argument, NULL, 'F' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "per-thread", no_argument, NULL, O_PER_THREAD },
		{ "no-inherit", no_argument, NULL, O_NO_INHERIT },
		{ "weight", no_argument, NULL, 'W' },
		{ "data", no_argument, NULL, 'd' },
		{ "period", no_argument, NULL, 'P' },
		{ "phys-data", no_argument, NULL, O_PHYS_DATA },
		{ "call-graph", required_argument, NULL, O_CALL_GRAPH },
		{ "data-page-size", no_argument, NULL, O_DATA_PAGE_SIZE },
		{ "code-page-size", no_argument, NULL, O_CODE_PAGE_SIZE },
		{ "sample-cpu", no_argument, NULL, O_SAMPLE_CPU },
		{ "sample-identifier", no_argument, NULL, O_SAMPLE_IDENTIFIER },
		{ "clockid", required_argument, NULL, 'k' },
		{ "tpebs", no_argument, NULL, O_TPEBS },
		{ "metrics", required_argument, NULL, O_METRICS },
		{ "metric", required_argument, NULL, 'M' },
		{ "count-events", required_argument, NULL, O_COUNT_EVENTS },
		{ "count-interval", required_argument, NULL, O_COUNT_INTERVAL },
		{ "count-per-cpu", no_argument, NULL, O_COUNT_PER_CPU },
		{ "output", required_argument, NULL, 'o' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "snapshot", optional_argument, NULL, 'S' },
		{ "dry-run", no_argument, NULL, O_DRY_RUN },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "compression-level", required_argument, NULL, 'z' },
		{ "writer-policy", required_argument, NULL, O_WRITER_POLICY },
		{ "writer-backlog", required_argument, NULL, O_WRITER_BACKLOG },
		{ "bundle", optional_argument, NULL, O_BUNDLE },
		{ "no-bundle", no_argument, NULL, O_NO_BUNDLE },
		{ "cputype", required_argument, NULL, O_CPUTYPE },
		{ "events", required_argument, NULL, O_EVENTS },
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
	const char *evstr[MAX_EVENT_OPTS], *metric_table = NULL, *tables[16];
	bool pfm[MAX_EVENT_OPTS] = { false }; /* evstr[i] is a --pfm-events string: -e order kept */
	const char *metric_select = NULL;
	bool tpebs = false;
	struct pmt_metric_events tev = { 0 };
	unsigned ntables = 0;
	struct pmt_events_opts eo = { .sz = sizeof(eo) };
	struct pmt_event_table *table = NULL;
	unsigned nev = 0, targets = 0, ncount = 0;
	const char *countstr[MAX_EVENT_OPTS];
	struct pmt_evlist cevents = { 0 };
	struct pmt_count_plan cplan = { 0 };
	bool table_failed;
	int c, verbose = 0, dry_run = 0, rc;
	uint64_t v;
	const char *out = "perf.data";
	/* a recording decodes anywhere unless told otherwise: its symbols travel with it */
	struct pmt_record_run_opts ro = { .sz = sizeof(ro), .bundle = true };
	struct pmt_record_stats st;
	double secs;

	o.page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	o.privileged = privileged();
	/* '+': options stop at the workload's name, as perf's */
	while ((c = getopt_long(argc, argv, "+he:c:F:aC:p:t:o:m:S::vqz:WM:dPgk:", opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (nev == MAX_EVENT_OPTS)
				return pmt_cli_usage_fail("record", "too many -e options");
			evstr[nev++] = optarg;
			break;
		case O_PFM_EVENTS:
			if (nev == MAX_EVENT_OPTS)
				return pmt_cli_usage_fail("record", "too many -e options");
			pfm[nev] = true;
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
			ro.pid = (int32_t)v;
			targets++;
			break;
		case O_PER_THREAD: o.per_thread = true; break;
		case O_NO_INHERIT: o.no_inherit = true; break;
		case 'W': o.sample_weight = true; break;
		case 'd': o.sample_addr = true; break;
		case 'P': o.sample_period = true; break;
		case O_PHYS_DATA: o.sample_phys_addr = true; break;
		case 'g': o.callchain = true; break;
		case O_CALL_GRAPH:
			/* perf's record modes but lbr, whose call stacks pmutrace cannot
			 * read yet, so it records only what it can decode */
			if (pmt_record_parse_call_graph(optarg, &o.dwarf_stack_size, &d) < 0)
				return pmt_cli_usage_fail("record", "%s", d.msg);
			o.callchain = true;
			break;
		case O_DATA_PAGE_SIZE: o.sample_data_page_size = true; break;
		case O_CODE_PAGE_SIZE: o.sample_code_page_size = true; break;
		case O_SAMPLE_CPU: o.sample_cpu = true; break;
		case O_SAMPLE_IDENTIFIER: o.sample_identifier = true; break;
		case 'k':
			if (pmt_record_parse_clockid(optarg, &o.clockid, &d) < 0)
				return pmt_cli_usage_fail("record", "%s", d.msg);
			o.use_clockid = true;
			break;
		case O_TPEBS: tpebs = true; break;
		case O_METRICS: metric_table = optarg; break;
		case 'M': metric_select = optarg; break;
		case O_COUNT_EVENTS:
			if (ncount == MAX_EVENT_OPTS)
				return pmt_cli_usage_fail("record", "too many --count-events options");
			countstr[ncount++] = optarg;
			break;
		case O_COUNT_PER_CPU: ro.counts_per_cpu = true; break;
		case O_COUNT_INTERVAL:
			/* perf stat -I's floor */
			if (pmt_parse_u64(optarg, &ro.counts_interval_ms) < 0 ||
			    ro.counts_interval_ms < 10)
				return pmt_cli_usage_fail("record", "bad value '%s' for "
							  "--count-interval (milliseconds, at "
							  "least 10)", optarg);
			break;
		case 'o': out = optarg; break;
		case 'z':
			if (pmt_parse_u64(optarg, &v) < 0 || v < 1 || v > 22)
				return pmt_cli_usage_fail("record", "bad value '%s' for -z (zstd "
							  "level 1-22)", optarg);
			ro.level = (int)v;
			break;
		case O_WRITER_POLICY:
			if (!strcmp(optarg, "block"))
				ro.writer_policy = PMT_CTR_BACKLOG_BLOCK;
			else if (!strcmp(optarg, "drop"))
				ro.writer_policy = PMT_CTR_BACKLOG_DROP;
			else if (!strcmp(optarg, "lower"))
				ro.writer_policy = PMT_CTR_BACKLOG_LOWER;
			else
				return pmt_cli_usage_fail("record", "bad value '%s' for "
							  "--writer-policy (block, drop or lower)",
							  optarg);
			break;
		case O_WRITER_BACKLOG:
			if (pmt_parse_size(optarg, &v) < 0 || v < (64u << 10) || v > (1u << 30))
				return pmt_cli_usage_fail("record", "bad value '%s' for "
							  "--writer-backlog (64k..1G)", optarg);
			ro.writer_backlog = (uint32_t)v;
			break;
		case O_DURATION:
			if (pmt_parse_double(optarg, &secs) < 0 || !(secs > 0) || secs > 1e9)
				return pmt_cli_usage_fail("record", "bad value '%s' for --duration "
							  "(seconds > 0)", optarg);
			ro.duration_ns = (uint64_t)(secs * 1e9);
			break;
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
			/* perf's 'e' (a snapshot at exit) is what pmutrace always takes */
			if (optarg && *(optarg + (*optarg == 'e')) &&
			    pmt_parse_size(optarg + (*optarg == 'e'), &o.snapshot_size) < 0)
				return pmt_cli_usage_fail("record", "bad value '%s' for --snapshot "
							  "(e and/or a size in bytes)", optarg);
			break;
		case O_DRY_RUN: dry_run = 1; break;
		case O_BUNDLE:
			if (optarg && strcmp(optarg, "full") && strcmp(optarg, "symbols"))
				return pmt_cli_usage_fail("record", "--bundle=%s: want symbols or "
							  "full (or --no-bundle)", optarg);
			ro.bundle = true;
			ro.bundle_full = optarg && !strcmp(optarg, "full");
			break;
		case O_NO_BUNDLE: ro.bundle = false; break;
		case O_CPUTYPE: eo.cputype = optarg; break;
		case O_EVENTS:
			if (ntables == sizeof(tables) / sizeof(tables[0]))
				return pmt_cli_usage_fail("record", "too many --events files");
			tables[ntables++] = optarg;
			break;
		case 'v': verbose++; break;
		case 'q': verbose = -1; break;
		case 'h': return usage(stdout);
		default: return usage(stderr);
		}
	}
	if (targets > 1)
		return pmt_cli_usage_fail("record", "choose one of -a, -C, -p and -t");
	/* -a/-C with a workload: the CPUs are recorded while it runs, as perf does */
	if ((o.target == PMT_TARGET_PID || o.target == PMT_TARGET_TID) && optind < argc)
		return pmt_cli_usage_fail("record", "a workload (-- CMD) and -p/-t exclude "
					  "each other");
	if (!targets && optind >= argc)
		return pmt_cli_usage_fail("record", "nothing to record: give -- CMD ARGS, -a, -C, "
					  "-p or -t");
	if (tpebs != (metric_select && metric_table))
		return pmt_cli_usage_fail("record", "--tpebs takes -M METRIC[,GROUP] and --metrics "
					  "FILE, and they need --tpebs");

	rc = pmt_pmus_load(&pmus, NULL, &d);
	if (rc < 0) {
		pmt_diag_print(&d);
		pmt_metric_events_fini(&tev);
		return PMT_EXIT_ERROR;
	}
	pmt_pmus_probe_extended_type(&pmus);
	if (tpebs && !pmt_pmus_nr_core(&pmus)) {
		pmt_pmus_fini(&pmus);
		return pmt_cli_fail("record", "--tpebs: no CPU core PMU (cpu, cpu_core) in "
				    "%s/bus/event_source/devices: retire latencies come from Intel "
				    "PEBS, which this machine (or VM) does not expose", pmt_sysfs_root());
	}
	if (tpebs) {
		/* on hybrid parts perf's tpebs samples the P-cores' PMU only (tpebs.md) */
		rc = tpebs_events(metric_table, metric_select,
				  pmt_pmus_find(&pmus, "cpu_core") ? "cpu_core" : NULL, &tev, evstr,
				  &nev);
		if (rc) {
			pmt_pmus_fini(&pmus);
			return rc;
		}
		/* the retire latency is only in WEIGHT_STRUCT's var3_w (perf's child runs -W) */
		o.sample_weight = true;
	}
	if (!nev)
		evstr[nev++] = "cycles";
	for (unsigned i = 0; i < ntables && rc >= 0; i++)
		rc = pmt_event_table_load(&table, tables[i], &d);
	if (rc >= 0 && !ntables)
		rc = pmt_event_table_load_default(&table, &d);
	table_failed = rc < 0; /* a file that does not read: an error, not a usage error */
	eo.table = table;
	for (unsigned i = 0; i < nev && rc >= 0; i++)
		rc = pfm[i] ? pmt_events_parse_pfm(&events, &pmus, evstr[i], &d)
			    : pmt_events_parse_opts(&events, &pmus, evstr[i], &eo, &d);
	for (unsigned i = 0; i < ncount && rc >= 0; i++)
		rc = pmt_events_parse_opts(&cevents, &pmus, countstr[i], &eo, &d);
	for (size_t i = 0; i < tev.nr_counted && rc >= 0; i++)
		rc = pmt_events_parse_opts(&cevents, &pmus, tev.counted[i], &eo, &d);
	pmt_event_table_free(table);
	if (events.regrouped && verbose >= 0)
		fprintf(stderr, "pmutrace record: events were regrouped to match PMUs (a group "
				"opens on one PMU; one group per PMU now)\n");
	/* the counting events' attrs sit beside the sampled ones: perf and pmutrace find a
	 * record's event by its id, as when several events are sampled */
	if (cevents.nr)
		o.sample_id = true;
	if (rc >= 0)
		rc = pmt_record_plan_build(&plan, &events, &pmus, &o, &d);
	else
		pmt_evlist_fini(&events);
	if (rc >= 0 && cevents.nr) {
		rc = count_plan(&cplan, &cevents, &pmus, &o, &d);
		if (rc < 0)
			pmt_record_plan_fini(&plan);
		else
			ro.counts = &cplan;
	}
	pmt_evlist_fini(&cevents);
	if (rc < 0) {
		pmt_diag_print(&d);
		pmt_pmus_fini(&pmus);
		pmt_metric_events_fini(&tev);
		return table_failed ? PMT_EXIT_ERROR : PMT_EXIT_USAGE;
	}
	if (verbose > 0) {
		pmt_record_plan_print(stdout, &plan);
		/* the counting events as perf stat -vv prints them, after a line that says so */
		if (ro.counts) {
			int32_t tid = o.target == PMT_TARGET_PID || o.target == PMT_TARGET_TID
					      ? ro.pid : 0;

			printf("counting events (perf stat -vv's layout):\n");
			pmt_count_plan_print(stdout, &cplan, &tid, 1);
		}
	}
	if (dry_run) {
		rc = 0;
	} else {
		struct sigaction sa = { .sa_handler = on_stop }, su = { .sa_handler = on_snapshot };

		/* no SA_RESTART: poll returns and the loop sees the flag */
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigaction(SIGUSR2, &su, NULL); /* snapshot mode: take one, as perf */
		ro.snapshot = &snapshot_requested;
		signal(SIGPIPE, SIG_IGN);
		ro.out = out;
		ro.argv = argv + optind;
		ro.stop = &stop_requested;
		ro.progress = verbose >= 0 && isatty(2);
		ro.argc_cmdline = argc;
		ro.argv_cmdline = (const char *const *)argv;
		rc = pmt_record_run(&plan, &o, &ro, &st, &d);
		if (rc < 0 && st.workload_exec_errno) {
			exec_failed(evstr, nev, ro.argv[0], st.workload_exec_errno);
			rc = PMT_EXIT_ERROR;
		} else if (rc < 0) {
			pmt_diag_print(&d);
			rc = PMT_EXIT_ERROR;
		} else {
			summary(out, &st, verbose);
			if (verbose >= 0)
				multiplex_note(&plan, &st);
			if (verbose > 0 && ro.counts)
				fprintf(stderr, "[ counts: %u events, %u rounds ]\n", cplan.ev.nr,
					st.count_rounds);
			/* data loss is never silent: the recording is complete but not whole */
			rc = st.lost || st.lost_samples || st.aux_truncated || st.writer_dropped
				     ? PMT_EXIT_DAMAGED : PMT_EXIT_OK;
			rc = exit_as_perf(rc, &st, ro.argv && ro.argv[0]);
		}
		pmt_record_stats_fini(&st);
	}
	pmt_record_plan_fini(&plan);
	pmt_count_plan_fini(&cplan);
	pmt_pmus_fini(&pmus);
	pmt_metric_events_fini(&tev);
	return rc;
}
