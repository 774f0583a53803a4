/* The metric plan's state, shared by its compiler (metric_plan.c) and its binding and
 * evaluation (metric_eval.c). */
#ifndef PMT_METRIC_PLAN_PRIV_H
#define PMT_METRIC_PLAN_PRIV_H

#include <stdbool.h>
#include <string.h>

#include "pmutrace/metrics.h"

#define METRIC_REF (1u << 30) /* slot tag for metric references until relocation */
#define ST_NONE (-1)
#define ST_BUSY (-2)
#define ST_FAILED (-3) /* ST_FAILED - k: failed because of problem k */
/* perf refuses metrics nested deeper than this (RECURSION_ID_MAX in metricgroup.c) */
#define METRIC_MAX_NESTING 1000

struct plan_problem {
	char *msg;      /* "metric m: ..." as first reported */
	int rc;
	size_t users;   /* metrics left out because of it, the one it is in included */
};

struct plan_metric {
	size_t set_idx;
	struct pmt_expr *expr;
	struct pmt_expr *thresh;
	/* metrics in its longest chain of references, itself included, and the next one of
	 * that chain (plan index, -1 at its end): nesting is a property of the metric, not of
	 * the order metrics happen to be compiled in */
	size_t height;
	int deepest;
};

struct pmt_metric_plan {
	const struct pmt_metric_set *ms;
	struct pmt_expr_ctx ctx;
	struct plan_metric *pm;
	size_t nr_pm, cap_pm;
	int *state;                 /* per set metric: plan index, ST_NONE or ST_BUSY */
	size_t *sel;                /* selected: plan indexes */
	size_t nr_sel;
	struct pmt_metric_input *in;
	size_t nr_in, cap_in;
	double *slots;
	uint32_t *taint;            /* per slot: first missing input + 1 (pmt_metric_plan_missing) */
	char err[sizeof(((struct pmt_diag *)0)->msg)]; /* the problem being compiled */
	/* per plan metric k: the slots its expression reads, ref_slot[ref_off[k], ref_off[k+1]) */
	uint32_t *ref_slot;
	size_t *ref_off;
	uint8_t *ref_select;        /* [plan metric] its expression has a select */
	/* pmt_metric_plan_eval_units: slot s of unit k at col_slots[s * col_n + k] */
	double *col_slots, *col_stack, *col_out;
	uint8_t *col_failed;
	size_t col_n, col_cap;
	int cur_metric;             /* set index being compiled, for resolver context */
	size_t *stack;              /* set indexes of the metrics being compiled, outermost first */
	size_t depth;
	size_t sub_height;          /* of the metric being compiled: its deepest reference */
	int sub_deepest;
	/* metrics whose compiling waits for a deeper one, compiled first from a stack of its
	 * own (C recursion stays under METRIC_MAX_NESTING); deeper: the one to compile */
	size_t *roots, nr_roots, cap_roots;
	bool deeper;
	size_t deeper_idx;
	int cause;                  /* problem a failing reference brought along, or -1 */
	struct plan_problem *prob;
	size_t nr_prob, cap_prob;
	int *hash;                  /* open addressing over lower-case names: set index + 1 */
	size_t hash_mask;
	int lenient;                /* every metric selected: skip the ones that fail */
	int in_threshold;
};

/* the core PMUs of a hybrid part, whose metrics count their own events */
static inline int hybrid_core_pmu(const char *pmu)
{
	return pmu && (!strcmp(pmu, "cpu_core") || !strcmp(pmu, "cpu_atom"));
}

#endif
