/* pmutrace record/events: perf 7.3's event syntax into perf_event_attrs.
 *   NAME[:MODS]                    software and hardware events (cpu-clock, cycles, ...),
 *                                  cache events (L1-dcache-load-misses, LLC-loads, ...),
 *                                  a PMU's sysfs events/ alias (slots, topdown-retiring),
 *                                  a named event of a loaded table (inst_retired.any)
 *   rHEX[:MODS]                    a raw event (PERF_TYPE_RAW)
 *   PMU/TERM=VALUE,FLAG,ALIAS,.../[MODS]  terms through the PMU's format files, its
 *                                  events/ aliases, perf's own terms config..config4,
 *                                  period, freq, name
 *   {EVENT,EVENT,...}[:MODS]       a group; the modifiers apply to every member
 * A PMU name without its _N suffix ("arm_spe//") opens the event on every PMU that has it,
 * and an event without a PMU opens on every core PMU that has it (cpu_core and cpu_atom of
 * a hybrid machine), as perf does. Modifiers: u k h (privilege levels), p pp ppp P
 * (precise_ip), G H (guest/host only), I (exclude idle), D (pinned), e (exclusive),
 * S (leader sampling), R (retire latency: WEIGHT_STRUCT samples), b (accepted, no effect
 * on attrs), W (groups: weak). */
#ifndef PMUTRACE_EVENTS_H
#define PMUTRACE_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "pmutrace/common.h"
#include "pmutrace/perf_abi.h"
#include "pmutrace/pmu.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmt_evsel {
	char name[160];             /* as perf names it: the string given for this PMU */
	const struct pmt_pmu *pmu;  /* NULL for generic events */
	struct pmt_perf_attr attr;
	uint64_t config_set[5];     /* bits of config..config4 a term set explicitly */
	bool period_set, freq_set;  /* a period= or freq= term */
	bool excl_mods;             /* u/k/h given */
	bool tracking;              /* carries the sideband (mmap, comm, task, ...) */
	bool added;                 /* made by the recorder (a tracking dummy), not by -e */
	/* Groups ({a,b}): every member names its leader's index in the list; an event outside
	 * a group is its own leader with nr_members 1. Indices stay valid only while the list
	 * is not reordered (pmt_evlist_to_front fixes them up). */
	uint32_t leader;
	uint32_t nr_members;        /* leader only: the group's size, itself included */
	bool sample_read;           /* :S, leader sampling: members read, not sampled */
	bool retire_lat;            /* :R, the retire latency in var3_w of WEIGHT_STRUCT */
	bool weak_group;            /* :W on the group: split it when it does not fit */
	bool topdown;               /* slots or topdown-* of a PERF_METRICS PMU: in a group
	                             * led by slots, as perf's x86 code puts them */
	bool named;                 /* a name= term: perf stat prints that name as it is */
};
/* perf 7.3's tool PMU: its attr type (perf prints it in -vv; nothing is opened) and the
 * config of duration_time, which pmutrace stat counts as the wall-clock nanoseconds since
 * the counters were enabled */
#define PMT_TOOL_PMU_TYPE 0xfffffffeu
#define PMT_TOOL_DURATION_TIME 1
/* user_time and system_time: CPU time in ns, per CPU (-a, -C) or per thread */
#define PMT_TOOL_USER_TIME 2
#define PMT_TOOL_SYSTEM_TIME 3
static inline bool pmt_evsel_tool(const struct pmt_evsel *e)
{
	return e->attr.type == PMT_TOOL_PMU_TYPE;
}
static inline bool pmt_evsel_tool_cpu_time(const struct pmt_evsel *e)
{
	return pmt_evsel_tool(e) && (e->attr.config == PMT_TOOL_USER_TIME ||
				     e->attr.config == PMT_TOOL_SYSTEM_TIME);
}
struct pmt_evlist {
	struct pmt_evsel *ev;
	uint32_t nr, cap;
	/* a group written with events of several PMUs (a hybrid event in a group) was split
	 * into one group per PMU; perf says "WARNING: events were regrouped to match PMUs" */
	bool regrouped;
	/* groups a tool event (duration_time) left, one "  anon group { a, b }" line each, for
	 * perf stat's "WARNING: grouped events cpus do not match." */
	char cpus_warning[256];
};

/* Named events loaded from JSON tables: perf's pmu-events JSON (EventCode, UMask, ...
 * per event, as in tools/perf/pmu-events/arch) or Intel's perfmon JSON ({"Events": [...]}).
 * Opaque: a name index. */
struct pmt_event_table;
/* Add the events of FILE (a JSON array or perfmon object) or of every *.json in a folder
 * to *t (created when NULL). Errors name the file and what is wrong. */
PMT_API int pmt_event_table_load(struct pmt_event_table **t, const char *path,
				 struct pmt_diag *diag);
/* Load every table found in the search path: $PMUTRACE_EVENTS_PATH (folders separated by
 * ':'), else $XDG_DATA_HOME/pmutrace/events (~/.local/share/pmutrace/events); a missing
 * folder is no error. Returns the number of files loaded. */
PMT_API int pmt_event_table_load_default(struct pmt_event_table **t, struct pmt_diag *diag);
PMT_API void pmt_event_table_free(struct pmt_event_table *t);
/* the number of events in the table */
PMT_API uint32_t pmt_event_table_size(const struct pmt_event_table *t);

struct pmt_events_opts {
	size_t sz;                            /* sizeof(struct pmt_events_opts) */
	const struct pmt_event_table *table;  /* named events, or NULL */
	const char *cputype;                  /* hybrid: "core"/"atom" (or a PMU name):
	                                       * events without a PMU open only there */
};

/* perf_event_open a cycles event with the first core PMU's type in config[63:32] (pid 0,
 * cpu -1, closed at once) when there is more than one core PMU, and set
 * pmus->extended_type from the result, as perf_pmus__supports_extended_type does */
PMT_API void pmt_pmus_probe_extended_type(struct pmt_pmus *pmus);

/* Append the events of a -e string ("a,b/x=1/u") to l. Errors name the event and, for an
 * unknown term, list the valid ones; an unknown PMU lists those that exist. */
PMT_API int pmt_events_parse(struct pmt_evlist *l, const struct pmt_pmus *pmus, const char *str,
			     struct pmt_diag *diag);
/* the same with a table of named events and --cputype (o may be NULL) */
PMT_API int pmt_events_parse_opts(struct pmt_evlist *l, const struct pmt_pmus *pmus,
				  const char *str, const struct pmt_events_opts *o,
				  struct pmt_diag *diag);
/* Append the events of a --pfm-events string, encoded by libpfm4 as perf's --pfm-events
 * does (tools/perf/util/pfm.c): comma-separated libpfm4 event strings
 * ("INST_RETIRED:ANY_P:u", "knl::OFFCORE_RESPONSE_0:ANY_RFO:DDR_NEAR"), groups in {}; each
 * at user and kernel level unless its own u/k modifiers say otherwise. LIBPFM_FORCE_PMU and
 * LIBPFM_VERBOSE work as in libpfm4. An event libpfm4 refuses fails with libpfm4's message
 * naming that event; a period= or freq= modifier wins over -c and -F, as in perf. */
PMT_API int pmt_events_parse_pfm(struct pmt_evlist *l, const struct pmt_pmus *pmus,
				 const char *str, struct pmt_diag *diag);
/* one more event built by the caller; returns it, or NULL without memory */
PMT_API struct pmt_evsel *pmt_evlist_add(struct pmt_evlist *l);
/* move event i to the front (perf's evlist__to_front) */
PMT_API void pmt_evlist_to_front(struct pmt_evlist *l, uint32_t i);
/* drop event i (its group goes on without it; later indices move down by one) */
PMT_API void pmt_evlist_remove(struct pmt_evlist *l, uint32_t i);
PMT_API void pmt_evlist_fini(struct pmt_evlist *l);
/* Set a format term the user did not set (perf's evsel__set_config_if_unset); no-op when
 * the PMU has no such format. */
PMT_API void pmt_evsel_set_config_if_unset(struct pmt_evsel *e, const char *term,
					   uint64_t value);
/* the value of config[word] bits of format `term`, true when the PMU has it set */
PMT_API bool pmt_evsel_term_set(const struct pmt_evsel *e, const char *term);

#ifdef __cplusplus
}
#endif
#endif
