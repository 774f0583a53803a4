/* record/events' own pieces: built-in names, near-name suggestions, named-event tables */
#ifndef PMT_EVENTS_PRIV_H
#define PMT_EVENTS_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmutrace/events.h"

/* a software or hardware event name (cycles, cpu-clock, ...): its type and config */
bool pmt_legacy_find(const char *name, size_t n, uint32_t *type, uint64_t *config);
/* a hardware cache event name (L1-dcache-load-misses, ...): its PERF_TYPE_HW_CACHE config */
bool pmt_cache_find(const char *name, size_t n, uint64_t *config);
/* "; did you mean a, b?" (or "") for an unknown name: the nearest built-in, cache, PMU,
 * sysfs alias and table names, and terms_of's format terms when given */
void pmt_events_suggest(const char *want, const struct pmt_pmus *pmus,
			const struct pmt_event_table *table, const struct pmt_pmu *terms_of,
			char *out, size_t cap);

/* a named event of a table: the PMU it is for (NULL: every core PMU) and its terms in
 * perf's syntax for that PMU's format files ("event=0xc0,umask=0x1") */
struct pmt_table_event {
	const char *name, *pmu, *terms;
};
/* the event `name` of the table for `pmu` (an event without a PMU is every core PMU's) */
const struct pmt_table_event *pmt_event_table_find(const struct pmt_event_table *t,
						   const char *name, size_t n,
						   const struct pmt_pmu *pmu);
const char *pmt_event_table_name(const struct pmt_event_table *t, uint32_t i);
/* one JSON file's events; default_pmu is the PMU of events without a Unit (NULL: every
 * core PMU) */
int pmt_event_table_load_json(struct pmt_event_table *t, const char *path,
			      const char *default_pmu, struct pmt_diag *diag);
/* a perfmon tree (dir/mapfile.csv): the event files of the CPU in $PERF_CPUID or
 * /proc/cpuinfo; the number of files loaded */
int pmt_event_table_load_mapfile(struct pmt_event_table *t, const char *dir,
				 struct pmt_diag *diag);

/* After parsing one string (its events from `first` on, groups as written): perf's
 * parse_events__sort_events_and_fix_groups. A topdown-* event gets its slots leader, events
 * that must be grouped (topdown) are, and a group is split where its events' PMUs differ
 * (a hybrid event in a group opens once per core PMU: one group each). */
int pmt_events_fix_groups(struct pmt_evlist *l, uint32_t first, const struct pmt_pmus *pmus,
			  struct pmt_diag *diag);
/* slots (of a PERF_METRICS PMU), the topdown group's leader */
bool pmt_evsel_is_slots(const struct pmt_evsel *e);
/* a new event at index `at` (later events and their leader indices move up by one) */
struct pmt_evsel *pmt_evlist_insert(struct pmt_evlist *l, uint32_t at);
/* config, config1 .. config4 of an attr by number */
uint64_t *pmt_evsel_config_word(struct pmt_perf_attr *a, unsigned w);

#endif
