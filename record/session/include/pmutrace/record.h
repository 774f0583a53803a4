/* pmutrace record/session: what `pmutrace record` opens, decided as perf 7.3's record does
 * (builtin-record.c, evsel__config, evlist__config, and arm64's arm-spe.c for SPE), so a
 * kernel sees the same attrs from both; then (next) the rings and the container. */
#ifndef PMUTRACE_RECORD_H
#define PMUTRACE_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pmutrace/common.h"
#include "pmutrace/events.h"
#include "pmutrace/pmu.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmt_count_plan; /* pmutrace/counting.h */

enum pmt_record_target {
	PMT_TARGET_WORKLOAD = 0, /* -- CMD: started by the recorder, enabled on exec */
	PMT_TARGET_SYSTEM,       /* -a */
	PMT_TARGET_CPUS,         /* -C LIST */
	PMT_TARGET_PID,          /* -p PID: its threads, children inherit */
	PMT_TARGET_TID,          /* -t TID: that thread only */
};

struct pmt_record_opts {
	size_t sz;                 /* sizeof(struct pmt_record_opts) */
	enum pmt_record_target target;
	struct pmt_cpumask cpus;   /* -C */
	bool per_thread;           /* --per-thread: one mmap per thread, no CPU */
	bool no_inherit;
	bool period_set;           /* -c */
	uint64_t period;
	bool freq_set;             /* -F */
	uint64_t freq;
	uint32_t mmap_pages;       /* -m N; 0: perf's default */
	uint32_t aux_pages;        /* -m ,N; 0: perf's default */
	bool snapshot;             /* -S / --snapshot */
	uint64_t snapshot_size;    /* 0: the AUX buffer's size */
	bool privileged;           /* perf_event_paranoid -1 or CAP_PERFMON: bigger defaults */
	uint32_t page_size;        /* 0: the host's */
	bool sample_weight;        /* -W: the sample's weight (on x86 WEIGHT_STRUCT, whose
				    * var3_w is the retire latency; elsewhere WEIGHT) */
	bool sample_addr;          /* -d: data address and source (PEBS memory events) */
	bool sample_period;        /* -P: the period in every sample */
	bool sample_phys_addr;     /* --phys-data */
	bool sample_data_page_size, sample_code_page_size; /* --data/code-page-size */
	bool sample_cpu;           /* --sample-cpu */
	bool callchain;            /* -g, --call-graph fp: the kernel's frame-pointer call chain
				    * in every sample */
	bool sample_identifier;    /* --sample-identifier: every sample's id at a fixed place
				    * (PERF_SAMPLE_IDENTIFIER) */
	bool sample_id;            /* an id in every sample even with one event (as perf gives
				    * several): counting events' attrs sit beside the samples */
	bool use_clockid;          /* -k/--clockid: every event's times from this clock, and
				    * the clock data perf script -F tod needs */
	int32_t clockid;
	/* --call-graph dwarf[,SIZE] (with callchain): the user registers and this many bytes
	 * of the user stack in every sample, for the decoder to unwind (perf's
	 * CALLCHAIN_DWARF); 0: frame pointers. pmt_record_parse_call_graph() checks it */
	uint32_t dwarf_stack_size;
};

/* perf record's --call-graph value: "fp", "dwarf" or "dwarf,SIZE" (SIZE rounded up to a
 * multiple of 8, 1..65528, as perf's callchain parser). *dwarf_size is 0 for fp, else the
 * stack size. 0, or -PMT_EINVAL with diag in perf's words ("lbr" is refused: pmutrace
 * cannot read LBR call stacks yet). */
PMT_API int pmt_record_parse_call_graph(const char *s, uint32_t *dwarf_size,
					struct pmt_diag *diag);

/* perf record's -k/--clockid value: a number, or a name (mono, monotonic, raw,
 * monotonic_raw, real, realtime, boot, boottime, tai, each also as CLOCK_NAME, any
 * case) into a clock id. 0, or -PMT_EINVAL with diag naming the value and the names. */
PMT_API int pmt_record_parse_clockid(const char *s, int32_t *clockid, struct pmt_diag *diag);

struct pmt_record_plan {
	struct pmt_evlist ev;      /* in perf's order: AUX events first, tracking last */
	bool per_cpu;              /* events per CPU (else one per thread, cpu -1) */
	struct pmt_cpumask cpus;   /* the CPUs opened on when per_cpu */
	bool full_auxtrace;        /* an AUX event (SPE) is recorded */
	uint32_t mmap_pages, aux_pages;
	uint64_t snapshot_size;
};

/* Build the plan from parsed events (moved into plan->ev; events is left empty). Errors
 * name the option or event and what to do instead. */
PMT_API int pmt_record_plan_build(struct pmt_record_plan *plan, struct pmt_evlist *events,
				  const struct pmt_pmus *pmus, const struct pmt_record_opts *o,
				  struct pmt_diag *diag);
PMT_API void pmt_record_plan_fini(struct pmt_record_plan *plan);
/* every attr in perf record -vv's layout, each between perf's dashed lines */
PMT_API void pmt_record_plan_print(FILE *fp, const struct pmt_record_plan *plan);

/* ---- capture: open, map, drain into a container ---------------------------------- */
struct pmt_record_run_opts {
	size_t sz;                     /* sizeof(struct pmt_record_run_opts) */
	const char *out;               /* container path; "-" = stdout */
	char *const *argv;             /* the workload (PMT_TARGET_WORKLOAD) */
	int32_t pid;                   /* -p / -t */
	int level;                     /* zstd level (0: the container's default) */
	uint64_t duration_ns;          /* 0: until the workload ends or a stop */
	volatile int *stop;            /* set by a signal handler: finish and close */
	volatile int *snapshot;        /* snapshot mode: set (SIGUSR2) to take one; cleared */
	bool progress;                 /* a status line on stderr (a terminal) */
	int argc_cmdline;              /* the recorder's own command line, for CMDLINE */
	const char *const *argv_cmdline;
	bool bundle;                   /* --bundle: carry the mapped files and kallsyms */
	bool bundle_full;              /* --bundle=full: whole files; else (--bundle=symbols)
					* their symbol and line tables only */
	/* counting events recorded beside the samples (record --count-events, the counted
	 * events of --tpebs's metrics): a plan of record/counting built with the
	 * recording's target, opened on its CPUs or threads and kept as perf stat
	 * record's records in the same stream; NULL: none */
	const struct pmt_count_plan *counts;
	uint64_t counts_interval_ms;   /* a round of counts every N ms; 0: one at the end */
	bool counts_per_cpu;           /* readers show the counts per CPU (perf stat -A's
					* aggregation in STAT_CONFIG), else their total */
	/* when compression cannot keep up (enum pmt_ctr_backlog: 0 block, 1 drop the AUX
	 * data, 2 lower the level) and past how many bytes waiting for it (0: 2 MiB) */
	uint8_t writer_policy;
	uint32_t writer_backlog;
};
#define PMT_RECORD_MAX_SLOTS 4096
struct pmt_record_stats {
	uint64_t records, samples, bytes;   /* data-ring records and bytes copied */
	uint64_t aux_bytes;                 /* AUX bytes copied */
	uint64_t lost;                      /* samples the kernel said it dropped (LOST) */
	uint64_t lost_samples;              /* LOST_SAMPLES */
	uint64_t aux_truncated, aux_partial, aux_collision;
	uint64_t out_bytes;                 /* the container's size */
	uint32_t snapshots;                 /* snapshot mode: snapshots taken */
	uint64_t wall_ns;
	int workload_status;                /* waitpid status of the workload, -1 none */
	uint32_t slots;                     /* rings: CPUs, or threads with --per-thread */
	uint64_t *lost_per_slot;            /* [slots]: LOST + truncated AUX per ring */
	uint32_t bundle_files;              /* --bundle: files carried, their bytes */
	uint64_t bundle_bytes;
	uint32_t bundle_skipped;            /* mapped files that could not be read */
	uint8_t bundle_kallsyms_hidden;     /* kptr_restrict: kallsyms not carried */
	int32_t *slot_cpu;                  /* [slots]: the CPU, -1 for a thread's ring */
	uint64_t bundle_source_bytes;       /* the carried files' own sizes (bundle_bytes is
					     * what went in: less with --bundle=symbols) */
	/* rings whose owner (the slot's first open event) the kernel multiplexed:
	 * time_running < time_enabled in its user page; the least running share, its ring
	 * and the plan's index of that ring's event */
	uint32_t multiplexed;
	double least_running;
	uint32_t least_running_slot, least_running_event;
	uint32_t count_rounds;              /* rounds of counts written (run opts' counts) */
	uint32_t count_unsupported;         /* counting events the kernel refused everywhere */
	/* CPU time of the recorder's own thread from the start to the last drain: rings, the
	 * records' encoding and the container's input side (zstd's workers compress) */
	uint64_t drain_cpu_ns;
	/* the workload could not be exec'd (the run fails): its errno, for perf's message */
	int workload_exec_errno;
	/* the recording stopped (*stop, --duration) while the workload ran: it was sent a
	 * SIGTERM, as perf record does, and the file finished once it was gone */
	bool workload_terminated;
	/* what the writer's policy did when compression could not keep up (run opts'
	 * writer_policy): records that waited and how long, AUXTRACE records dropped and
	 * their bytes, frames compressed below the asked level and the lowest level, steps
	 * back up */
	uint64_t writer_waits, writer_wait_ns, writer_dropped, writer_dropped_bytes;
	uint32_t writer_lowered_frames, writer_raised;
	int writer_level, writer_level_min;
};
/* Record the plan until the workload exits, duration_ns passes or *stop is set; the
 * container is complete and indexed whenever this returns (also after a stop). A workload
 * still running at a stop gets a SIGTERM and is waited for (a second signal: SIGKILL). */
PMT_API int pmt_record_run(const struct pmt_record_plan *plan, const struct pmt_record_opts *o,
			   const struct pmt_record_run_opts *ro, struct pmt_record_stats *st,
			   struct pmt_diag *diag);
PMT_API void pmt_record_stats_fini(struct pmt_record_stats *st);

#ifdef __cplusplus
}
#endif
#endif
