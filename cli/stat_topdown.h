/* stat --topdown's columns and values, wired by cmd_stat.c: the tma_* columns of the
 * PERF_METRICS core PMU in perf 7.3's order and, on a hybrid part perf 7.3 has a built-in
 * table for (Alder/Raptor, Meteor, Lunar and Arrow Lake), both core PMUs' columns as perf 7.3
 * interleaves them. */
#ifndef PMT_CLI_STAT_TOPDOWN_H
#define PMT_CLI_STAT_TOPDOWN_H

#include <stdbool.h>
#include <stdint.h>

#include "pmutrace/counting.h"
#include "pmutrace/metrics.h"
#include "pmutrace/pmu.h"

#define STAT_TD_MAX_COLS 64

struct stat_topdown {
	bool on;                          /* --topdown */
	unsigned level;                   /* --td-level (0 until stat_td_columns: level 1) */
	int cols;
	const struct pmt_topdown_hybrid *hyb; /* a hybrid part's layout, else NULL */
	bool atom[STAT_TD_MAX_COLS];      /* a cpu_atom column */
	char atom_events[256];            /* the cpu_atom events to count ("" for none) */
	char core_events[64];             /* cpu_core's outside the slots group ("" for none) */
	const char *name[STAT_TD_MAX_COLS];  /* tma_* names */
	/* a table's column: its metric (a hybrid table has a copy per core PMU), else NULL */
	const struct pmt_metric *metric[STAT_TD_MAX_COLS];
	bool table_hybrid;                /* a table's columns of cpu_atom metrics too */
	const char *head[STAT_TD_MAX_COLS];  /* as perf heads them ("%  tma_retiring") */
	double *val;                      /* [unit][cols] */
	uint8_t *cell;                    /* [unit][cols], enum pmt_mo_cell */
};

/* The level's columns against the deepest level there is (perf's words on failure: an exit
 * status to return, else 0). atom_pmus: the PMUs when the cpu_atom columns are wanted (no
 * metric table), else NULL. */
int stat_td_columns(struct stat_topdown *td, unsigned max, const char *where,
		    const struct pmt_pmus *atom_pmus);
/* a hybrid part's columns of a PMU the plan opens nothing on (-C of the other PMU's CPUs,
 * --cputype of the other: core, atom, cpu_core, cpu_atom or NULL) left out, as perf 7.3
 * prints no metric of events it did not open */
void stat_td_drop_uncounted(struct stat_topdown *td, const struct pmt_count_plan *plan,
			    const struct pmt_pmus *pmus, const char *cputype);
/* the columns of a table's TopdownL<level> group in perf 7.3's order (any level the
 * table has; ctx: its literals, #smt_on and #has_pmem) */
int stat_td_table_columns(struct stat_topdown *td, unsigned max, const char *where,
			  const struct pmt_metric_set *ms, const struct pmt_expr_ctx *ctx);
/* the cpu_atom events to count beside the core's topdown group, NULL when none */
const char *stat_td_atom_events(const struct stat_topdown *td, const char *cputype);
/* the cpu_core events a hybrid table reads besides the topdown group (Alder Lake's
 * INT_MISC.UOP_DROPPING), opened after it as perf 7.3 opens them; NULL for none */
const char *stat_td_core_events(const struct stat_topdown *td, const char *cputype);
/* the core PMU's topdown-* events for the level, in the order perf 7.3 opens them */
const char *stat_td_core_group(const struct stat_topdown *td);
/* has the hybrid part's table metrics for --cputype's PMU (none for cpu_lowpower) */
bool stat_td_has_pmu(const struct stat_topdown *td, const char *cputype);
/* is the core PMU's topdown group counted (not with --cputype atom on a hybrid part) */
bool stat_td_counts_core(const struct stat_topdown *td, const char *cputype);
int stat_td_alloc(struct stat_topdown *td, uint32_t nr_units);
/* without a table: every unit's ratios from the topdown-* counts (topdown.txt) and the
 * cpu_atom TOPDOWN_* counts */
void stat_td_from_counts(struct stat_topdown *td, const struct pmt_stat *s,
			 const struct pmt_count_plan *plan);
/* the event whose CPUs perf's --per-core/-socket/-die lines count (ctrs): its evlist's
 * first, an event of the first column's PMU (Alder Lake's level 2 and Meteor, Lunar and
 * Arrow Lake's levels 1 and 2 begin with a cpu_atom column); the plan's first otherwise */
uint32_t stat_td_ctrs_event(const struct stat_topdown *td, const struct pmt_count_plan *plan);
void stat_td_fini(struct stat_topdown *td);
/* #SMT_on of the metric tables as perf's smt_on() reads sysfs ($SYSFS_PATH): smt/active,
 * else a core of more than one CPU in the topology */
bool stat_smt_on(void);
/* #has_pmem as perf's has_pmem() reads sysfs: firmware/acpi/tables/NFIT exists */
bool stat_has_pmem(void);

#endif
