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
};

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

#ifdef __cplusplus
}
#endif
#endif
