/* A recording's metric rows for outputs other than `pmutrace metrics` (export, report
 * --html): the same counts, retire latencies and evaluation, handed over row by row, with
 * each metric's place in the tree and the measured and default retire latency beside it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

struct rows_state {
	struct pmt_metric_set ms;
	struct pmt_retlat_table tab;
	struct pmt_retlat_samples smp;
	struct pmt_counts *c;
	struct pmt_counts_trace *ct;
	struct pmt_metric_plan *plan;
	size_t n;          /* selected metrics */
	size_t *order;     /* the tree, parent first: plan indexes */
	unsigned *depth;   /* per plan index */
	double *measured, *dflt; /* per plan index: its first :R input's */
	struct pmt_metric_retlat *rl; /* every :R input of every metric, metric by metric */
	size_t nr_rl, cap_rl;
	size_t *rl_first, *rl_n; /* per plan index: its inputs in rl */
	double *val;
	int8_t *th;
	const char **missing;
	uint8_t *warned;   /* per plan index: its uncounted event was named */
};

/* Is metric a in the group "<b's name>_group"? (perf's TMA tables: tma_backend_bound's
 * children carry the group tma_backend_bound_group) */
static bool child_of(const struct pmt_metric *a, const struct pmt_metric *b)
{
	size_t n = strlen(b->name);
	const char *g = a->groups;

	if (a == b || !g)
		return false;
	while (*g) {
		size_t len = strcspn(g, ";");

		if (len == n + 6 && !strncasecmp(g, b->name, n) && !strncasecmp(g + n, "_group", 6))
			return true;
		g += len + (g[len] == ';');
	}
	return false;
}

/* depth-first from each root; a metric whose parent is not selected is a root. A cycle of
 * groups (a table error) leaves its members at the end, at depth 0. */
static void tree(struct rows_state *s)
{
	size_t k = 0;
	bool *placed = calloc(s->n + 1, sizeof(*placed));
	size_t *parent = calloc(s->n + 1, sizeof(*parent)); /* index + 1, 0: root */

	if (!placed || !parent) {
		for (size_t i = 0; i < s->n; i++)
			s->order[i] = i;
		free(placed);
		free(parent);
		return;
	}
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->n && !parent[i]; j++)
			if (child_of(pmt_metric_plan_metric(s->plan, i),
				     pmt_metric_plan_metric(s->plan, j)))
				parent[i] = j + 1;
	/* the order list doubles as the stack of the walk: children go right after their
	 * parent, in table order */
	for (size_t r = 0; r < s->n; r++) {
		size_t start = k;

		if (parent[r] || placed[r])
			continue;
		s->order[k++] = r;
		placed[r] = true;
		s->depth[r] = 0;
		for (size_t at = start; at < k; at++) {
			size_t p = s->order[at], ins = at + 1;

			for (size_t i = 0; i < s->n; i++) {
				if (placed[i] || parent[i] != p + 1)
					continue;
				memmove(&s->order[ins + 1], &s->order[ins], (k - ins) * sizeof(*s->order));
				s->order[ins++] = i;
				k++;
				placed[i] = true;
				s->depth[i] = s->depth[p] + 1;
			}
		}
	}
	for (size_t i = 0; i < s->n; i++)
		if (!placed[i])
			s->order[k++] = i;
	free(placed);
	free(parent);
}

/* every :R input of metric i (a plan of that metric alone has exactly its inputs, in the
 * order the metric names them): the samples' value and the table's. 0 or -PMT_ENOMEM. */
static int retlat_of(struct rows_state *s, size_t i, const struct pmt_metric_rows_opts *o,
		     const struct pmt_expr_ctx *ctx)
{
	const struct pmt_metric *m = pmt_metric_plan_metric(s->plan, i);
	const char *name = m->name;
	struct pmt_metric_plan *one;
	int rc = 0;

	s->measured[i] = s->dflt[i] = NAN;
	s->rl_first[i] = s->nr_rl;
	if (pmt_metric_plan_new(&s->ms, &name, 1, ctx, &one, NULL) < 0)
		return 0;
	for (size_t k = 0; k < pmt_metric_plan_nr_inputs(one) && rc == 0; k++) {
		const struct pmt_metric_input *in = pmt_metric_plan_input(one, k);
		struct pmt_metric_retlat *r;
		double v;

		if (in->kind != PMT_MIN_RETLAT)
			continue;
		if (s->nr_rl == s->cap_rl) {
			size_t cap = s->cap_rl ? 2 * s->cap_rl : 16;
			void *n = realloc(s->rl, cap * sizeof(*s->rl));

			if (!n) {
				rc = -PMT_ENOMEM;
				break;
			}
			s->rl = n;
			s->cap_rl = cap;
		}
		r = &s->rl[s->nr_rl];
		*r = (struct pmt_metric_retlat){ .event = strdup(in->id), .measured = NAN,
						 .dflt = NAN };
		if (!r->event) {
			rc = -PMT_ENOMEM;
			break;
		}
		s->nr_rl++;
		if (pmt_retlat_value(&s->smp, NULL, in->id, o->stat, o->pct, &v) == 1)
			r->measured = v;
		if (pmt_retlat_value(NULL, &s->tab, in->id, o->stat, o->pct, &v) == 0)
			r->dflt = v;
	}
	s->rl_n[i] = s->nr_rl - s->rl_first[i];
	if (s->rl_n[i]) {
		s->measured[i] = s->rl[s->rl_first[i]].measured;
		s->dflt[i] = s->rl[s->rl_first[i]].dflt;
	}
	pmt_metric_plan_free(one);
	return rc;
}

static void state_fini(struct rows_state *s)
{
	free(s->order);
	free(s->depth);
	free(s->measured);
	free(s->dflt);
	for (size_t k = 0; k < s->nr_rl; k++)
		free((char *)s->rl[k].event);
	free(s->rl);
	free(s->rl_first);
	free(s->rl_n);
	free(s->val);
	free(s->th);
	free(s->missing);
	free(s->warned);
	pmt_metric_plan_free(s->plan);
	pmt_counts_trace_close(s->ct);
	pmt_counts_free(s->c);
	pmt_retlat_samples_fini(&s->smp);
	pmt_retlat_table_fini(&s->tab);
	pmt_metric_set_fini(&s->ms);
}

/* tables, counts, samples and the plan; 0 or -PMT_E* with diag set */
static int setup(struct rows_state *s, const char *trace, const struct pmt_metric_rows_opts *o,
		 const struct pmt_expr_ctx *ctx, struct pmt_diag *diag)
{
	int rc;

	for (size_t i = 0; i < o->ntables; i++)
		if ((rc = pmt_metric_set_load(&s->ms, o->tables[i], diag)) < 0)
			return rc;
	for (size_t i = 0; i < o->nretlat_tables; i++)
		if ((rc = pmt_retlat_table_load(&s->tab, o->retlat_tables[i], diag)) < 0)
			return rc;
	if ((rc = pmt_counts_new(&s->c)) < 0)
		return pmt_diag_set(diag, rc, trace, PMT_DIAG_NO_OFFSET, "out of memory");
	if (o->counts && (rc = pmt_counts_load(s->c, o->counts, diag)) < 0)
		return rc;
	if (!o->counts) {
		rc = pmt_counts_trace_open(trace, s->c, &s->ct, diag);
		if (rc < 0 && rc != -PMT_ENOT_FOUND)
			return rc;
		*diag = (struct pmt_diag)PMT_DIAG_INIT;
	}
	if (!s->ct && !pmt_counts_nr_units(s->c))
		pmt_counts_unit(s->c, NULL, NULL);
	if ((rc = pmt_retlat_samples_from_trace(&s->smp, trace, diag)) < 0)
		return rc;
	if ((rc = pmt_metric_plan_new(&s->ms, o->select, o->nselect, ctx, &s->plan, diag)) < 0) {
		if (diag) /* the selection is the table's */
			diag->file = o->ntables ? o->tables[0] : trace;
		return rc;
	}
	s->n = pmt_metric_plan_nr_metrics(s->plan);
	s->order = calloc(s->n + 1, sizeof(*s->order));
	s->depth = calloc(s->n + 1, sizeof(*s->depth));
	s->measured = calloc(s->n + 1, sizeof(*s->measured));
	s->dflt = calloc(s->n + 1, sizeof(*s->dflt));
	s->val = calloc(s->n + 1, sizeof(*s->val));
	s->th = calloc(s->n + 1, sizeof(*s->th));
	s->missing = calloc(s->n + 1, sizeof(*s->missing));
	s->warned = calloc(s->n + 1, sizeof(*s->warned));
	s->rl_first = calloc(s->n + 1, sizeof(*s->rl_first));
	s->rl_n = calloc(s->n + 1, sizeof(*s->rl_n));
	if (!s->order || !s->depth || !s->measured || !s->dflt || !s->val || !s->th ||
	    !s->missing || !s->warned || !s->rl_first || !s->rl_n)
		return pmt_diag_set(diag, -PMT_ENOMEM, trace, PMT_DIAG_NO_OFFSET, "out of memory");
	tree(s);
	for (size_t i = 0; i < s->n; i++)
		if (retlat_of(s, i, o, ctx) < 0)
			return pmt_diag_set(diag, -PMT_ENOMEM, trace, PMT_DIAG_NO_OFFSET,
					    "out of memory");
	return 0;
}

int pmt_metric_rows_trace(const char *trace, const struct pmt_metric_rows_opts *o,
			  pmt_metric_row_fn fn, void *ctx, struct pmt_diag *diag)
{
	struct rows_state s = { 0 };
	struct pmt_expr_ctx dctx;
	const struct pmt_expr_ctx *ectx;
	int rows = 0, rc;

	if (!trace || !fn || !PMT_OPTS_HAS(o, ctx))
		return pmt_diag_set(diag, -PMT_EINVAL, trace, PMT_DIAG_NO_OFFSET,
				    "invalid metric row options");
	ectx = o->ctx;
	if (!ectx) {
		pmt_expr_ctx_default(&dctx);
		ectx = &dctx;
	}
	rc = setup(&s, trace, o, ectx, diag);
	if (rc < 0)
		goto out;
	/* a recording's events that no selected metric reads are passed by, not summed */
	pmt_metric_plan_bind(s.plan, s.c);
	if (s.ct && (rc = pmt_metric_plan_only_in(s.plan, s.ct)) < 0) {
		pmt_diag_set(diag, rc, trace, PMT_DIAG_NO_OFFSET, "out of memory");
		goto out;
	}
	if (s.ct && (rc = pmt_counts_trace_next(s.ct, s.c)) < 0) {
		pmt_diag_set(diag, rc, trace, PMT_DIAG_NO_OFFSET, "cannot read the counts");
		goto out;
	}
	pmt_metric_plan_fill_retlat(s.plan, s.c, &s.smp, &s.tab, o->stat, o->pct);
	do {
		for (size_t u = 0; u < pmt_counts_nr_units(s.c); u++) {
			if (pmt_metric_plan_eval(s.plan, s.c, u, s.val, s.th) > 0)
				pmt_warn("unit %zu: a metric divided modulo by zero (value nan)", u);
			if ((rc = pmt_metric_plan_missing(s.plan, s.missing)) < 0)
				goto out;
			for (size_t k = 0; k < s.n; k++) {
				size_t i = s.order[k];
				const struct pmt_metric *m = pmt_metric_plan_metric(s.plan, i);
				struct pmt_metric_row r = {
					.interval = pmt_counts_unit_interval(s.c, u),
					.aggr = pmt_counts_unit_aggr(s.c, u),
					.pmu = m->pmu ? m->pmu : "", .name = m->name,
					.unit = m->unit ? m->unit : "", .depth = s.depth[i],
					.value = s.missing[i] ? NAN : s.val[i],
					.missing = s.missing[i],
					.threshold = s.missing[i] ? -1 : s.th[i],
					.retlat = s.rl_n[i] ? &s.rl[s.rl_first[i]] : NULL,
					.nr_retlat = s.rl_n[i],
					.retlat_measured = s.measured[i], .retlat_default = s.dflt[i],
				};

				if (s.missing[i] && !s.warned[i]) {
					pmt_warn("metric %s%s%s: event %s not counted; the metric is "
						 "not computed", r.pmu, *r.pmu ? "/" : "", m->name,
						 s.missing[i]);
					s.warned[i] = 1;
				}
				if ((rc = fn(&r, ctx)) < 0)
					goto out;
				rows++;
			}
		}
	} while (s.ct && pmt_counts_trace_next(s.ct, s.c) > 0);
	rc = rows;
out:
	state_fini(&s);
	return rc;
}
