/* Why the kernel refused an event, and what the user can do: perf 7.3's
 * evsel__open_strerror() reasons, plus the attr field a kernel too old for it rejects
 * (perf finds those by opening probe events; here the kernel's release decides, so nothing
 * more is opened). And the one degradation perf leaves silent: PEBS retire latency on a
 * CPU without the timing capability. */
#ifndef PMT_OPEN_ERROR_H
#define PMT_OPEN_ERROR_H

#include <stdbool.h>
#include <stdint.h>

#include "pmutrace/events.h"

/* what the explanation depends on besides the event, read once (open_error_env_read) so
 * a test can set it */
struct open_error_env {
	int paranoid;           /* kernel.perf_event_paranoid; INT32_MIN unknown */
	unsigned kmajor, kminor; /* the running kernel's release; 0.0 unknown */
	uint64_t nofile;        /* RLIMIT_NOFILE soft limit; 0 unknown */
	uint64_t fds_needed;    /* events x CPUs x threads of this recording */
};

void open_error_env_read(struct open_error_env *env, uint64_t fds_needed);

/* Fill diag for a perf_event_open(e->attr, pid, cpu) that failed with errno err; returns
 * the -PMT_E* code set. The message starts with the event's name and says the reason. */
int open_error_explain(const struct pmt_evsel *e, int cpu, int pid, int err,
		       const struct open_error_env *env, struct pmt_diag *diag);

/* Fill diag for a ring's mmap refused with EPERM, the kernel's locked-memory check
 * (perf_mmap: kernel.perf_event_mlock_kb per online CPU for the user, then RLIMIT_MEMLOCK,
 * unless CAP_IPC_LOCK): what was mapped (`what`), both limits with their values, the -m
 * pages asked for and the fixes, as perf record's "Permission error mapping pages" says
 * them. Returns -PMT_EPERM. */
int mmap_error_explain(const char *what, uint32_t pages, uint32_t aux_pages,
		       struct pmt_diag *diag);

/* IA32_PERF_CAPABILITIES (MSR 0x345) bit 17, PEBS_TIMING_INFO: 1 the CPU records retire
 * latency in PEBS, 0 it does not (samples' weight var3_w would be 0), -1 unknown (no
 * readable DEV_CPU/N/msr: the msr driver, and root, are needed). dev_cpu: "/dev/cpu". */
int open_error_pebs_timing(const char *dev_cpu, int cpu);

/* Warn (pmt_warn) for each PEBS event whose samples ask for the weight struct when the
 * CPU is known not to record retire latency; returns the number of warnings. */
unsigned open_error_warn_retire_latency(const struct pmt_evlist *ev, const char *dev_cpu,
					int cpu);

#endif
