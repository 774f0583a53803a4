/* A metric plan's inputs bound to a count set, and its metrics evaluated per aggregation
 * unit without allocating (the slots and taints metric_plan.c laid out). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "counts_priv.h"
#include "expr_priv.h"
#include "metric_plan_priv.h"
#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

/* Intel perfmon tables name the PERF_METRICS fields as events; perf stat counts them as the
 * topdown-* events (perf's pmu-events converter maps them the same way). Their
 * TOPDOWN.SLOTS:perf_metrics is the slots count the fields are read with: perf stat names
 * it TOPDOWN.SLOTS (a metric's event) or slots (the topdown group's leader). Returns the
 * count of the first name the counts hold, or -1. */
static int perf_metrics_alias(const struct pmt_counts *c, const char *id)
{
	static const char *const map[][2] = {
		{ "PERF_METRICS.RETIRING", "topdown-retiring" },
		{ "PERF_METRICS.BAD_SPECULATION", "topdown-bad-spec" },
		{ "PERF_METRICS.FRONTEND_BOUND", "topdown-fe-bound" },
		{ "PERF_METRICS.BACKEND_BOUND", "topdown-be-bound" },
		{ "PERF_METRICS.HEAVY_OPERATIONS", "topdown-heavy-ops" },
		{ "PERF_METRICS.BRANCH_MISPREDICTS", "topdown-br-mispredict" },
		{ "PERF_METRICS.FETCH_LATENCY", "topdown-fetch-lat" },
		{ "PERF_METRICS.MEMORY_BOUND", "topdown-mem-bound" },
		{ "TOPDOWN.SLOTS:perf_metrics", "TOPDOWN.SLOTS" },
		{ "TOPDOWN.SLOTS:perf_metrics", "slots" },
		{ "TOPDOWN.SLOTS", "slots" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		int idx;

		if (strcasecmp(id, map[i][0]))
			continue;
		idx = pmt_counts_find(c, map[i][1]);
		if (idx >= 0)
			return idx;
	}
	return -1;
}

/* A hybrid metric's event that the counts name without a PMU (tool events, msr/tsc, counts
 * of a non-hybrid machine), but never the other core PMU's count of it. */
static int unqualified_count(const struct pmt_counts *c, const struct pmt_event_key *key)
{
	char plain[sizeof(key->event) + sizeof(key->mods) + 2];
	int idx;

	if (!hybrid_core_pmu(key->pmu))
		return -1;
	snprintf(plain, sizeof(plain), "%s%s%s", key->event, key->mods[0] ? ":" : "", key->mods);
	idx = pmt_counts_find(c, plain);
	if (idx < 0 || (c->events[idx].key.pmu[0] && strcmp(c->events[idx].key.pmu, key->pmu)))
		return -1;
	return idx;
}

int pmt_metric_plan_bind(struct pmt_metric_plan *p, const struct pmt_counts *c)
{
	int bound = 0;

	for (size_t i = 0; i < p->nr_in; i++) {
		p->in[i].count_idx = c ? pmt_counts_find(c, p->in[i].id) : -1;
		if (c && p->in[i].count_idx < 0)
			p->in[i].count_idx = perf_metrics_alias(c, p->in[i].id);
		if (c && p->in[i].count_idx < 0)
			p->in[i].count_idx = unqualified_count(c, &p->in[i].key);
		if (p->in[i].count_idx < 0)
			p->in[i].count_idx = -1;
		else
			bound++;
	}
	return bound;
}

/* An input's value in a unit of the counts (row: its values, src: its line counts; NULL
 * without counts). */
static inline double input_value(const struct pmt_metric_input *in, const double *row,
				 const uint32_t *src)
{
	int ci = row ? in->count_idx : -1;

	switch (in->kind) {
	case PMT_MIN_COUNT: return ci >= 0 ? row[ci] : NAN;
	case PMT_MIN_SOURCES: return ci >= 0 ? (double)src[ci] : NAN;
	case PMT_MIN_HAS_EVENT: return ci >= 0;
	case PMT_MIN_DURATION: return ci >= 0 ? row[ci] * in->scale : NAN;
	default: /* RETLAT: one value for every unit */
		return !isnan(in->value) ? in->value : ci >= 0 ? row[ci] : 0;
	}
}

int pmt_metric_plan_eval(struct pmt_metric_plan *p, const struct pmt_counts *c, size_t unit,
			 double *values, int8_t *thresh)
{
	double *s = p->slots;
	const double *row = c && unit < c->nr_units ? c->val + unit * c->ecap : NULL;
	const uint32_t *src = row ? c->src + unit * c->ecap : NULL;
	int failed = 0;

	for (size_t i = 0; i < p->nr_in; i++)
		s[i] = input_value(&p->in[i], row, src);
	for (size_t k = 0; k < p->nr_pm; k++) {
		double v;

		if (pmt_expr_eval(p->pm[k].expr, s, &v) < 0)
			failed++;
		s[p->nr_in + k] = v;
	}
	for (size_t i = 0; i < p->nr_sel; i++) {
		const struct plan_metric *pm = &p->pm[p->sel[i]];
		double v = s[p->nr_in + p->sel[i]];

		if (values)
			values[i] = v * p->ms->m[pm->set_idx].scale;
		if (thresh) {
			double t;

			thresh[i] = -1;
			if (pm->thresh && pmt_expr_eval(pm->thresh, s, &t) == 0 && !isnan(t))
				thresh[i] = fpclassify(t) != FP_ZERO;
		}
	}
	return failed;
}

/* The slots each metric reads, once per plan: a metric none of whose slots is missing
 * has no missing event, without the evaluation that carries taints (a tenth of the GNR
 * bench went to carrying them through metrics that read no missing event). */
static int index_refs(struct pmt_metric_plan *p)
{
	size_t n = 0;

	for (size_t k = 0; k < p->nr_pm; k++)
		n += (size_t)p->pm[k].expr->nr_ops;
	p->ref_slot = malloc((n + 1) * sizeof(*p->ref_slot));
	p->ref_off = malloc((p->nr_pm + 1) * sizeof(*p->ref_off));
	p->ref_select = calloc(p->nr_pm + 1, 1);
	if (!p->ref_slot || !p->ref_off || !p->ref_select) {
		free(p->ref_slot);
		free(p->ref_off);
		free(p->ref_select);
		p->ref_slot = NULL;
		p->ref_off = NULL;
		p->ref_select = NULL;
		return -PMT_ENOMEM;
	}
	n = 0;
	for (size_t k = 0; k < p->nr_pm; k++) {
		const struct pmt_expr *e = p->pm[k].expr;

		p->ref_off[k] = n;
		for (int i = 0; i < e->nr_ops; i++) {
			if (e->ops[i].op == EOP_SLOT)
				p->ref_slot[n++] = e->ops[i].slot;
			p->ref_select[k] |= e->ops[i].op == EOP_SELECT;
		}
	}
	p->ref_off[p->nr_pm] = n;
	return 0;
}

/* The first missing slot (its taint) that plan metric k reads, in the order its code reads
 * them. Without a select that is the evaluator's taint: an operation takes its left
 * operand's taint, else its right one's, and postfix code reads the left operand's slots
 * first; with a select the values decide which branch counts (expr_taint). */
static uint32_t first_missing_read(const struct pmt_metric_plan *p, size_t k)
{
	for (size_t r = p->ref_off[k]; r < p->ref_off[k + 1]; r++)
		if (p->taint[p->ref_slot[r]])
			return p->taint[p->ref_slot[r]];
	return 0;
}

/* room for n units in the column slots and the column stack */
static int columns_alloc(struct pmt_metric_plan *p, size_t n)
{
	size_t depth = 0;

	if (n <= p->col_cap)
		return 0;
	for (size_t k = 0; k < p->nr_pm; k++) {
		if ((size_t)p->pm[k].expr->max_depth > depth)
			depth = (size_t)p->pm[k].expr->max_depth;
		if (p->pm[k].thresh && (size_t)p->pm[k].thresh->max_depth > depth)
			depth = (size_t)p->pm[k].thresh->max_depth;
	}
	free(p->col_slots);
	free(p->col_stack);
	free(p->col_failed);
	free(p->col_out);
	p->col_slots = malloc((p->nr_in + p->nr_pm + 1) * n * sizeof(*p->col_slots));
	p->col_stack = malloc((depth + 2) * n * sizeof(*p->col_stack));
	p->col_failed = malloc(n);
	p->col_out = malloc(n * sizeof(*p->col_out));
	p->col_cap = p->col_slots && p->col_stack && p->col_failed && p->col_out ? n : 0;
	return p->col_cap ? 0 : -PMT_ENOMEM;
}

int pmt_metric_plan_eval_units(struct pmt_metric_plan *p, const struct pmt_counts *c,
			       size_t unit, size_t n, double *values, int8_t *thresh, int *failed)
{
	double *s;

	if (!n)
		return 0;
	if (columns_alloc(p, n) < 0)
		return -PMT_ENOMEM;
	s = p->col_slots;
	p->col_n = n;
	for (size_t k = 0; k < n; k++) {
		size_t u = unit + k;
		const double *row = c && u < c->nr_units ? c->val + u * c->ecap : NULL;
		const uint32_t *src = row ? c->src + u * c->ecap : NULL;

		failed[k] = 0;
		for (size_t i = 0; i < p->nr_in; i++)
			s[i * n + k] = input_value(&p->in[i], row, src);
	}
	for (size_t m = 0; m < p->nr_pm; m++) {
		memset(p->col_failed, 0, n);
		if (expr_eval_columns(p->pm[m].expr, s, n, p->col_stack, s + (p->nr_in + m) * n,
				      p->col_failed) < 0)
			return -PMT_EINTERNAL;
		for (size_t k = 0; k < n; k++)
			failed[k] += p->col_failed[k];
	}
	for (size_t i = 0; i < p->nr_sel; i++) {
		const struct plan_metric *pm = &p->pm[p->sel[i]];
		const double *v = s + (p->nr_in + p->sel[i]) * n;
		double scale = p->ms->m[pm->set_idx].scale;

		for (size_t k = 0; k < n; k++)
			if (values)
				values[k * p->nr_sel + i] = v[k] * scale;
		if (!thresh)
			continue;
		if (!pm->thresh) {
			for (size_t k = 0; k < n; k++)
				thresh[k * p->nr_sel + i] = -1;
			continue;
		}
		memset(p->col_failed, 0, n);
		if (expr_eval_columns(pm->thresh, s, n, p->col_stack, p->col_out,
				      p->col_failed) < 0)
			return -PMT_EINTERNAL;
		for (size_t k = 0; k < n; k++) {
			double t = p->col_out[k];

			thresh[k * p->nr_sel + i] = p->col_failed[k] || isnan(t) ? -1
						    : fpclassify(t) != FP_ZERO;
		}
	}
	return 0;
}

/* pmt_metric_plan_missing over the slots at s[i * stride] (the column layout's unit, or
 * the plan's own slots with stride 1); a select's taint needs the values in p->slots:
 * a one-unit block is stride 1 too, but its values are in the column slots */
static int missing_strided(struct pmt_metric_plan *p, const double *s, size_t stride,
			   const char **missing)
{
	bool copied = s == p->slots;
	int n = 0;

	if (!p->taint)
		p->taint = calloc(p->nr_in + p->nr_pm + 1, sizeof(*p->taint));
	if (!p->taint || (!p->ref_off && index_refs(p) < 0))
		return -PMT_ENOMEM;
	for (size_t i = 0; i < p->nr_in; i++) {
		uint8_t kind = p->in[i].kind;

		/* retire latencies fall back to defaults and has_event() answers for itself */
		p->taint[i] = (kind == PMT_MIN_COUNT || kind == PMT_MIN_DURATION ||
			       kind == PMT_MIN_SOURCES) && isnan(s[i * stride]) ? (uint32_t)i + 1 : 0;
	}
	for (size_t k = 0; k < p->nr_pm; k++) {
		uint32_t t = first_missing_read(p, k);

		if (t && p->ref_select[k]) {
			/* the unit's slots, once, only when a select reads a missing one */
			for (size_t i = 0; !copied && i < p->nr_in + p->nr_pm; i++)
				p->slots[i] = s[i * stride];
			copied = true;
			t = expr_taint(p->pm[k].expr, p->slots, p->taint);
		}
		p->taint[p->nr_in + k] = t;
	}
	for (size_t i = 0; i < p->nr_sel; i++) {
		uint32_t t = p->taint[p->nr_in + p->sel[i]];

		missing[i] = t ? p->in[t - 1].id : NULL;
		n += t != 0;
	}
	return n;
}

int pmt_metric_plan_missing_at(struct pmt_metric_plan *p, size_t k, const char **missing)
{
	if (k >= p->col_n)
		return -PMT_EINVAL;
	return missing_strided(p, p->col_slots + k, p->col_n, missing);
}

int pmt_metric_plan_missing(struct pmt_metric_plan *p, const char **missing)
{
	return missing_strided(p, p->slots, 1, missing);
}
