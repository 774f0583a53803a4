/* pmutrace record/events: perf's event syntax into perf_event_attrs.
 *   NAME[:MODS]                    generic events (cycles, cpu-clock, dummy, ...)
 *   PMU/TERM=VALUE,FLAG,.../[MODS] any sysfs PMU: terms through its format files, plus
 *                                  perf's own terms config..config4, period, freq, name
 * A PMU name without its _N suffix ("arm_spe//") opens the event on every PMU that has it,
 * as perf does. Modifiers: u k h (privilege levels), p pp ppp (precise_ip), I (exclude
 * idle), D (pinned). */
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
};
struct pmt_evlist {
	struct pmt_evsel *ev;
	uint32_t nr, cap;
};

/* Append the events of a -e string ("a,b/x=1/u") to l. Errors name the event and, for an
 * unknown term, list the valid ones; an unknown PMU lists those that exist. */
PMT_API int pmt_events_parse(struct pmt_evlist *l, const struct pmt_pmus *pmus, const char *str,
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
