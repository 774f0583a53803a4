/* perf 7.3's metric list and ID maps, reproduced (metric_perf_order.c), shared with the
 * --topdown column order (metric_perf_topdown.c). */
#ifndef PMT_METRICS_PERF_ORDER_PRIV_H
#define PMT_METRICS_PERF_ORDER_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "pmutrace/metrics.h"

/* libbpf's hashmap: buckets of singly linked entries, 2^bits buckets, grown (bits + 1, at
 * least 2) before an insert that would fill it past 3/4; entries are moved to the new
 * buckets in walk order, each pushed at its bucket's head. Deletion never shrinks. */
struct phm {
	char **key;
	int *next;
	int *head;
	size_t nr, cap_entries, sz;
	unsigned bits;
};

int phm_find(const struct phm *m, const char *k);
int phm_add(struct phm *m, const char *k);
/* hashmap__for_each_entry: the live entries, bucket by bucket */
size_t phm_walk(const struct phm *m, const char **out);
void phm_fini(struct phm *m);

struct root {
	struct phm ids;
	const char **refs; /* metrics already resolved into ids */
	size_t nr_refs;
	size_t count;      /* IDs but tool events: perf's sort key */
	const char *name;
	const char *pmu;   /* a hybrid table's Unit, NULL elsewhere */
	const struct pmt_metric *m;
	bool grouped;      /* not in a MetricgroupNoGroup of the selection: a {...}:W group */
};

/* perf's metric_list for a selection: the root metrics with their IDs, sorted as
 * metricgroup.c's parse_groups() sorts them */
struct roots {
	struct root *r;
	size_t nm;
	bool grouped;      /* perf parses the one metric's IDs as a {...}:W group */
	const char **walk; /* room for any map's walk */
};

/* roots_build's flags: several grouped metrics allowed (their lists are not reproduced by
 * pmt_metric_set_perf_events_sel), each grouped or not by its MetricConstraint too; the
 * NMI watchdog holds a counter (perf's sysctl__nmi_watchdog_enabled()) */
enum { PO_MANY_GROUPS = 1, PO_NMI_WATCHDOG = 2 };
/* ctx: the literals (#smt_on, #has_pmem, ...) an "if" of constant condition is decided
 * by, keeping one branch's IDs as perf's expr.y does; NULL refuses such a metric */
int roots_build(const struct pmt_metric_set *ms, const char *const *sel, size_t nsel,
		bool thresholds, const struct pmt_expr_ctx *ctx, unsigned flags,
		struct roots *rs);
void roots_fini(struct roots *rs);
/* expr__find_ids() of expr into m (metric_perf_ids.c). -PMT_EUNSUPPORTED where perf's
 * IDs depend on values this does not know: a constant "if" condition without ctx (the
 * literals it is decided by), '?' (the runtime parameter), a tool value. */
int perf_add_ids(struct phm *m, const char *expr, const struct pmt_expr_ctx *ctx);
/* perf 7.3's tool PMU events: counted by perf itself, never in a metric's event group */
bool tool_event(const char *id);
/* an opened event in a metric's IDs (a hybrid table's "pmu@EVENT@" for pmu/EVENT/) */
int find_event(const struct phm *ids, const char *ev);
/* count_uses(): how many of the metrics read an event */
size_t uses(const struct roots *rs, const char *ev);

#endif
