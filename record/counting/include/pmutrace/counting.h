/* pmutrace record/counting: counting events as perf 7.3's `perf stat` opens, reads, scales,
 * aggregates and prints them (builtin-stat.c, util/stat.c, util/stat-display.c), and the
 * counts kept as `perf stat record` keeps them (STAT_CONFIG, THREAD_MAP, CPU_MAP,
 * EVENT_UPDATE, STAT, STAT_ROUND records), so `zstd -dc FILE | perf stat report -i -` reads
 * a container. Three steps, each usable alone:
 *   plan    parsed events -> attrs (read_format, disabled/enable_on_exec, inherit), CPUs
 *   counter open per CPU or per thread with group leaders, enable, read (group reads)
 *   stat    reads -> per-interval deltas, multiplex scaling, aggregation units, perf's
 *           text/CSV layouts, and the STAT records of a recording
 * Counting groups next to sampling events (record --count-events, TPEBS): record/session
 * opens a plan built from the counting events on the recording's target, adds its attrs
 * with pmt_stat_add_attrs() after the recording's own (kernel ids: they do not collide),
 * writes pmt_stat_write_header() before the first read and pmt_stat_write_round() per
 * read on the recording's perf writer. */
#ifndef PMUTRACE_COUNTING_H
#define PMUTRACE_COUNTING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pmutrace/common.h"
#include "pmutrace/events.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/pmu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- plan ------------------------------------------------------------------------------ */
enum pmt_count_target {
	PMT_COUNT_WORKLOAD = 0, /* -- CMD: enabled on exec, children inherit */
	PMT_COUNT_SYSTEM,       /* -a: every online CPU */
	PMT_COUNT_CPUS,         /* -C LIST */
	PMT_COUNT_PID,          /* -p PID: each of its threads */
	PMT_COUNT_TID,          /* -t TID */
	PMT_COUNT_ALL_THREADS,  /* --per-thread -a: every thread in /proc, each on its own */
};
struct pmt_count_opts {
	size_t sz;                 /* sizeof(struct pmt_count_opts) */
	enum pmt_count_target target;
	struct pmt_cpumask cpus;   /* -C */
	bool no_inherit;           /* -i / --no-inherit */
	bool record_pipe;          /* -o: counts into a recording (a pipe-mode perf.data, where
				    * perf stat record leaves sample_type 0) */
};
struct pmt_count_plan {
	struct pmt_evlist ev;      /* the events, group members after their leader */
	bool per_cpu;              /* opened per CPU (pid -1), else per thread (cpu -1) */
	uint32_t nr_cpus;
	int32_t *cpu;              /* [nr_cpus] the CPU numbers (per thread: one entry, -1) */
	double *scale;             /* [ev.nr] perf's event scale (1e-6 for the clocks) */
	const char **unit;         /* [ev.nr] "msec" for the clocks, "" for the others */
	bool skip_gone_threads;    /* -p, --per-thread -a: a thread that ended before its open
				    * is left out (perf's ignore_missing_thread), not an error */
	bool hybrid;               /* several core PMUs: the printed counts name the PMU of
				    * each of their events (pmt_count_display_name) */
	uint64_t *retlat;          /* [ev.nr] each :R event's value (0 until the caller sets
				    * it): perf 7.3's stat without --record-tpebs opens nothing
				    * for one and reads its table's mean, rounded, on the first
				    * CPU (or thread) alone; its other counters never run */
};
/* Take the parsed events (moved into plan->ev) and configure them as perf stat does:
 * read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING (|ID|GROUP in a group), sample_type
 * IDENTIFIER, disabled on leaders, enable_on_exec for a workload, inherit unless
 * no_inherit. Errors name the option. */
PMT_API int pmt_count_plan_build(struct pmt_count_plan *plan, struct pmt_evlist *events,
				 const struct pmt_pmus *pmus, const struct pmt_count_opts *o,
				 struct pmt_diag *diag);
PMT_API void pmt_count_plan_fini(struct pmt_count_plan *plan);
/* the attrs in perf stat -vv's layout, one per event and CPU as perf opens them, each
 * followed by an open line per thread (threads: the pids the kernel is given, 0 for a
 * workload not yet forked; ignored per CPU, where the pid is -1) */
PMT_API void pmt_count_plan_print(FILE *fp, const struct pmt_count_plan *plan,
				  const int32_t *threads, uint32_t nr_threads);
/* the name perf 7.3's stat prints for event e: on a hybrid machine a core PMU's event is
 * named after its PMU (its evsel__uniquify_counter: "cpu_core/topdown-retiring/",
 * "cpu_core/cycles/u" for cycles:u) unless it has the PMU's name already or a name= term;
 * buf holds the result when it differs from the evsel's name */
PMT_API const char *pmt_count_display_name(const struct pmt_count_plan *plan, uint32_t e,
					   char *buf, size_t cap);
/* perf's scale of an event: 1e-6 and "msec" for cpu-clock and task-clock */
PMT_API double pmt_count_scale(const struct pmt_evsel *e, const char **unit);

/* ---- counter: the open file descriptors ---------------------------------------------- */
struct pmt_count_value {
	uint64_t val, ena, run;    /* PERF_FORMAT_TOTAL_TIME_ENABLED/RUNNING */
};
struct pmt_counter;
/* tool event e's (duration_time's) id in pmt_counter_id() and the records is
 * PMT_TOOL_COUNT_ID + e, on its first CPU and thread: the kernel gives it none, as nothing
 * is opened for it */
#define PMT_TOOL_COUNT_ID 0x7000000000000000ull
/* Open every event on every CPU of the plan (threads: NULL/0 when per CPU) or every thread
 * (per thread), group members with their leader's fd. Events stay disabled until
 * pmt_counter_enable() (or the workload's exec: enable_on_exec). An event the kernel does
 * not support is kept as "<not supported>" (perf's way) when `keep_unsupported`;
 * otherwise its error names the event, CPU and cause. */
PMT_API int pmt_counter_open(const struct pmt_count_plan *plan, const int32_t *threads,
			     uint32_t nr_threads, bool keep_unsupported, struct pmt_counter **out,
			     struct pmt_diag *diag);
/* The same with perf stat's weak groups ({a,b}:W): a member the kernel refuses (EINVAL,
 * EBADF: the group cannot be scheduled together) splits its group in the plan, every
 * member then opened and read on its own, and the open starts again; logged at debug level
 * with perf's "Weak group for LEADER/N failed". */
PMT_API int pmt_counter_open_weak(struct pmt_count_plan *plan, const int32_t *threads,
				  uint32_t nr_threads, bool keep_unsupported,
				  struct pmt_counter **out, struct pmt_diag *diag);
PMT_API int pmt_counter_enable(struct pmt_counter *c, bool on);
/* Read every counter (a group with one read of its leader). Values are cumulative. */
PMT_API int pmt_counter_read(struct pmt_counter *c);
/* -r N: the runs before this counter's. perf 7.3 keeps its tool events' (duration_time)
 * and :R events' counts between runs, so their enabled and running times count every run's
 * read so far (run N prints N); their values stay the run's own. */
PMT_API void pmt_counter_set_earlier_runs(struct pmt_counter *c, uint32_t runs);
PMT_API uint32_t pmt_counter_nr_threads(const struct pmt_counter *c);
/* value and kernel id of event e on cpu index ci, thread index ti; supported() is false
 * for an event that could not be opened */
PMT_API const struct pmt_count_value *pmt_counter_value(const struct pmt_counter *c, uint32_t e,
							uint32_t ci, uint32_t ti);
PMT_API uint64_t pmt_counter_id(const struct pmt_counter *c, uint32_t e, uint32_t ci,
				uint32_t ti);
PMT_API bool pmt_counter_supported(const struct pmt_counter *c, uint32_t e);
/* user_time or system_time event e had, at the last read, a CPU /proc/stat has no line for
 * (a fake sysfs tree listing CPUs the host lacks). Its value there is a counted 0, as perf
 * 7.3's read at the end of a run gives it (the total's run time counts that CPU); perf's
 * reads at -I's intervals fail on it instead, which pmt_stat_not_counted() reproduces. */
PMT_API bool pmt_counter_tool_cpu_absent(const struct pmt_counter *c, uint32_t e);
/* a read of event e failed in the last pmt_counter_read (its values read 0) */
PMT_API bool pmt_counter_unread(const struct pmt_counter *c, uint32_t e);
PMT_API void pmt_counter_free(struct pmt_counter *c);

/* ---- stat: scaling, aggregation, printing ---------------------------------------------- */
enum pmt_aggr {
	PMT_AGGR_GLOBAL = 0, /* one total (perf stat's default) */
	PMT_AGGR_CPU,        /* -A / --no-aggr */
	PMT_AGGR_CORE,       /* --per-core: S<socket>-D<die>-C<core> */
	PMT_AGGR_SOCKET,     /* --per-socket: S<socket> */
	PMT_AGGR_DIE,        /* --per-die: S<socket>-D<die> */
	PMT_AGGR_THREAD,     /* --per-thread: COMM-TID per counted thread */
};
/* where each CPU sits (devices/system/cpu/cpuN/topology under the sysfs root) */
struct pmt_cpu_topo {
	int32_t socket, die, core;
};
/* Read the topology of `nr` CPUs (NULL root: pmt_sysfs_root()); a CPU without the files
 * is socket 0, die 0, core = its number. */
PMT_API int pmt_cpu_topo_load(const char *root, const int32_t *cpus, uint32_t nr,
			      struct pmt_cpu_topo *out);

/* One counter's read, scaled as perf_counts_values__scale() does: val * ena / run when
 * run < ena; 0 with `counted` false when it never ran. pct = 100 * run / ena. */
struct pmt_stat_cell {
	double val;          /* scaled count, perf's scale (msec) applied */
	uint64_t ena, run;
	uint32_t nr;         /* counters summed: the unit's CPUs the event is opened on */
	uint32_t ctrs;       /* perf's "ctrs" column: nr, or 0 when a read of the event
			      * failed (perf 7.3's read_counters() leaves such an event out
			      * of its aggregation) */
	bool counted, supported;
	double noise;        /* -r: the relative stddev of the mean, in % (perf's "+- x%") */
};
struct pmt_stat;
/* aggregation over a plan's events with the CPUs' topology (NULL: read from sysfs); the
 * thread count is the counter's */
PMT_API int pmt_stat_new(const struct pmt_count_plan *plan, uint32_t nr_threads,
			 enum pmt_aggr aggr, const struct pmt_cpu_topo *topo, struct pmt_stat **out);
/* Give one read of every counter (values[e][ci][ti] as pmt_counter_value returns them, or
 * a recording's STAT values); a delta against the previous read when interval is set.
 * Returns 0 or -PMT_EINVAL. */
typedef const struct pmt_count_value *(*pmt_count_get_fn)(void *ctx, uint32_t e, uint32_t ci,
							  uint32_t ti);
PMT_API int pmt_stat_update(struct pmt_stat *s, pmt_count_get_fn get, void *ctx, bool interval);
PMT_API void pmt_stat_set_supported(struct pmt_stat *s, uint32_t e, bool supported);
/* perf 7.3's read_counters() after a failed read of event e: the event is not processed, so
 * every unit prints it <not counted> this round */
PMT_API void pmt_stat_not_counted(struct pmt_stat *s, uint32_t e);
/* before an update: a read of event e failed (pmt_counter_unread), so its cells' ctrs is
 * 0 in that update */
PMT_API void pmt_stat_set_unread(struct pmt_stat *s, uint32_t e, bool unread);
/* --per-thread: name the thread units as perf does (COMM-TID, comm from /proc) */
PMT_API void pmt_stat_set_threads(struct pmt_stat *s, const int32_t *tids, uint32_t nr);
/* -r N: add the last update as one run; pmt_stat_end_runs() then gives the total's cells
 * perf's mean of the runs (truncated to an integer, as perf's u64) and its noise, while
 * other aggregations keep the last run (perf keeps run statistics for the total only). */
PMT_API int pmt_stat_add_run(struct pmt_stat *s);
PMT_API void pmt_stat_end_runs(struct pmt_stat *s);
/* perf's running statistics (util/stat.c update_stats, stddev_stats: the stddev of the
 * mean, rel_stddev_stats: that in % of the mean) */
struct pmt_run_stats {
	double n, mean, m2;
};
PMT_API void pmt_run_stats_add(struct pmt_run_stats *r, double x);
PMT_API double pmt_run_stats_stddev(const struct pmt_run_stats *r);
PMT_API double pmt_run_stats_noise_pct(const struct pmt_run_stats *r);
PMT_API uint32_t pmt_stat_nr_units(const struct pmt_stat *s);
/* unit u (of -A, --per-core, ...; not of threads) holds that CPU */
PMT_API bool pmt_stat_unit_has_cpu(const struct pmt_stat *s, uint32_t u, int32_t cpu);
/* the unit's name as perf prints it ("CPU3", "S0-D0-C1", "S0", "" for the total) */
PMT_API const char *pmt_stat_unit_name(const struct pmt_stat *s, uint32_t u);
PMT_API const struct pmt_stat_cell *pmt_stat_cell(const struct pmt_stat *s, uint32_t u,
						  uint32_t e);
/* The value perf 7.3's metrics read for event e on unit u: the cell's count, NaN when not
 * counted; a tool event's (duration_time) the count of the unit that has it, on every
 * unit, every CPU, core or socket, as perf's metrics read a tool event. */
PMT_API double pmt_stat_metric_input(const struct pmt_stat *s, uint32_t u, uint32_t e);
PMT_API enum pmt_aggr pmt_stat_aggr(const struct pmt_stat *s);
PMT_API const struct pmt_count_plan *pmt_stat_plan(const struct pmt_stat *s);
PMT_API void pmt_stat_free(struct pmt_stat *s);

enum pmt_stat_format { PMT_STAT_TEXT = 0, PMT_STAT_CSV, PMT_STAT_JSON };
/* a metric printed on an event's line, as perf's generic_metric() formats it */
struct pmt_stat_metric {
	double val;        /* scaled by the metric's ScaleUnit */
	const char *unit;  /* "%  tma_retiring" (ScaleUnit's unit, two spaces, the name) or the
			    * name alone */
	bool scaled;       /* a ScaleUnit: "%8.1f", else "%8.2f" */
	int8_t threshold;  /* -j's "metric-threshold": 1 "bad", 0 "good", -1 none */
};
struct pmt_stat_print_opts {
	size_t sz;                 /* sizeof(struct pmt_stat_print_opts) */
	enum pmt_stat_format format;
	const char *sep;           /* -x SEP */
	bool interval;             /* -I: time column */
	uint64_t time_ns;          /* -I: time since start */
	bool header;               /* -I text: print the "#  time ..." header */
	uint32_t runs;             /* -r N: the cells carry the runs' noise */
	bool skip_zero;            /* --per-thread -a: a unit's line is left out when its count
				    * is 0 (perf's should_skip_zero_counter) */
	/* -M in perf's layout (text's `#` column, -x's and -j's metric fields): the
	 * metrics event e of unit u carries, in print order, into out[cap]; returns how many */
	size_t (*metrics)(void *ctx, uint32_t u, uint32_t e, struct pmt_stat_metric *out,
			  size_t cap);
	void *metrics_ctx;
	/* the metric-only layout's ctrs (-j "counters") of a core, die or socket: the CPUs
	 * of the unit that count this event (perf prints its evlist's first event's, which
	 * on a hybrid part is the first column's PMU's: 0 on a core of the other PMU) */
	uint32_t ctrs_event;
};
/* The counts of every unit and event in perf stat's layout (perf 7.3). */
PMT_API void pmt_stat_print(FILE *fp, const struct pmt_stat *s, const struct pmt_stat_print_opts *po);
/* how pmt_stat_print_metric_only reads a cell of val[] */
enum pmt_mo_cell {
	PMT_MO_VALUE = 0,  /* a value; NAN: an empty cell */
	PMT_MO_SKIP,       /* not this unit's: a hybrid PMU's metric on a CPU of the other PMU
			    * (perf 7.3 leaves it out of the line, the others move left) */
	PMT_MO_RATIO,      /* a metric perf computed: NAN printed as perf prints a NaN ratio
			    * (text "nan", CSV empty, JSON "none") */
};
/* perf stat --metric-only's layout (--topdown's): a line per unit, a column per metric
 * headed heads[k] as perf names it ("%  tma_retiring"), val[u * ncol + k] read as
 * cells[u * ncol + k] says (cells NULL: every cell PMT_MO_VALUE); po->header prints the
 * heads first. */
PMT_API void pmt_stat_print_metric_only(FILE *fp, const struct pmt_stat *s,
					const char *const *heads, uint32_t ncol,
					const double *val, const uint8_t *cells,
					const struct pmt_stat_print_opts *po);

/* ---- the counts in a recording (perf stat record's records) ---------------------------- */
/* a HEADER_ATTR per event with the counters' ids (every CPU and thread opened), added
 * before the writer's first record; a recording adds them after its own */
PMT_API int pmt_stat_add_attrs(struct pmt_perf_writer *w, const struct pmt_count_plan *plan,
			       const struct pmt_counter *c);
/* HEADER_ATTRs are the caller's (pmt_perf_writer_add_attr with pmt_counter_id() ids, one
 * per CPU and thread, before any record); this writes EVENT_UPDATE (unit, scale, name,
 * cpus), THREAD_MAP, CPU_MAP and STAT_CONFIG (aggregation mode and interval as perf 7.3
 * numbers them). */
PMT_API int pmt_stat_write_header(struct pmt_perf_writer *w, const struct pmt_count_plan *plan,
				  const struct pmt_counter *c, const int32_t *threads,
				  enum pmt_aggr aggr, uint64_t interval_ms);
/* STAT for every counter (cumulative values, as perf writes them) and a STAT_ROUND:
 * `final` for the last one of a non-interval run; time_ns since the start. */
PMT_API int pmt_stat_write_round(struct pmt_perf_writer *w, const struct pmt_count_plan *plan,
				 const struct pmt_counter *c, uint64_t time_ns, bool final);

/* The CPU topology of the sysfs tree at root (pmt_sysfs_root()) as perf record and perf stat
 * record write it in HEADER_CPU_TOPOLOGY: ids for CPUs 0..nr_cpus-1 (NRCPUS' available
 * count). metrics TRACE aggregates per core, die and socket by it. */
PMT_API int pmt_cpu_topology_read(const char *root, uint32_t nr_cpus, struct pmt_cpu_topology *t);
/* NRCPUS and HEADER_CPU_TOPOLOGY of this machine (sysfs at pmt_sysfs_root()), the CPUs
 * counted in `avail` at least (a fake sysfs tree may list more than the host has). */
PMT_API int pmt_stat_set_topology(struct pmt_perf_writer *w, uint32_t online, uint32_t avail);

/* The counts of one run into a container of their own (-o FILE): the attrs with the
 * counters' ids, pmt_stat_write_header(), then one round per read; written beside the
 * target and renamed into place at pmt_stat_file_close(commit). */
struct pmt_stat_file;
PMT_API int pmt_stat_file_open(const char *path, const struct pmt_count_plan *plan,
			       const struct pmt_counter *c, const int32_t *threads,
			       enum pmt_aggr aggr, uint64_t interval_ms, int argc,
			       const char *const *argv, struct pmt_stat_file **out,
			       struct pmt_diag *diag);
PMT_API int pmt_stat_file_round(struct pmt_stat_file *f, uint64_t time_ns, bool final);
/* commit false: remove the file (an error happened); returns 0 or the first error */
PMT_API int pmt_stat_file_close(struct pmt_stat_file *f, bool commit, struct pmt_diag *diag);
/* the threads of process pid (/proc/PID/task), malloc'd into *out: their count or an error */
PMT_API int pmt_count_task_threads(int32_t pid, int32_t **out, struct pmt_diag *diag);
/* every thread of the system as perf stat --per-thread -a lists them
 * (thread_map__new_all_cpus): the processes of /proc in its order, each one's tasks in
 * theirs; a process gone while listed is passed over */
PMT_API int pmt_count_all_threads(int32_t **out, struct pmt_diag *diag);

/* ---- a workload started as perf's evlist__prepare_workload() does ---------------------
 * forked and held before exec until started, so its counters (enable_on_exec) see only the
 * program itself */
struct pmt_workload {
	int32_t pid;
	int go_fd, err_fd;
	int exec_errno;                /* pmt_workload_start: why exec failed, else 0 */
};
PMT_API int pmt_workload_prepare(struct pmt_workload *w, char *const *argv,
				 struct pmt_diag *diag);
/* let it exec; an exec failure is an error naming the program (its errno in exec_errno) */
PMT_API int pmt_workload_start(struct pmt_workload *w, const char *name, struct pmt_diag *diag);
/* kill a workload that was prepared but not started */
PMT_API void pmt_workload_abort(struct pmt_workload *w);

#ifdef __cplusplus
}
#endif
#endif
