/* stat -M's `#` column (stat_metric_layout.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat_metric_layout.h"

/* a hybrid table has a metric of each name per PMU */
static bool same_metric(const struct pmt_metric *a, const struct pmt_metric *b)
{
	return !strcmp(a->name, b->name) &&
	       (a->pmu && b->pmu ? !strcmp(a->pmu, b->pmu) : a->pmu == b->pmu);
}

/* an opened event named as a metric's ID names it ("cpu_core@EVENT@" for cpu_core/EVENT/) */
static bool names_id(const char *ev, const char *id)
{
	for (; *ev && *id; ev++, id++)
		if (*ev != *id && !(*ev == '/' && *id == '@'))
			return false;
	return *ev == *id;
}

/* several grouped metrics: each shown on its display event in its own list's events */
static int lists_display(const struct pmt_perf_lists *pl, const uint32_t *list_first,
			 const struct pmt_count_plan *plan, const struct pmt_metric **metric,
			 int *ev)
{
	for (size_t k = 0; k < pl->nm; k++) {
		int at = pl->show[k], li = at >= 0 ? pl->list[at] : 0;

		metric[k] = pl->metric[k];
		ev[k] = -1;
		for (uint32_t e = list_first[li]; at >= 0 && e < list_first[li + 1] && ev[k] < 0;
		     e++)
			if (names_id(plan->ev.ev[e].name, pl->id[at]))
				ev[k] = (int)e;
	}
	return (int)pl->nm;
}

int stat_ml_setup(struct stat_ml *ml, const struct pmt_metric_set *ms, const char *const *sel,
		  size_t nsel, bool thresholds, struct pmt_metric_plan *mplan,
		  const struct pmt_count_plan *plan, uint32_t first,
		  const struct pmt_perf_lists *pl, const uint32_t *list_first)
{
	/* a metric chosen by two names of -M is in perf's list twice */
	size_t cap = nsel * ms->nr + 1;
	const char **names = calloc(plan->ev.nr + 1, sizeof(*names));
	const struct pmt_metric **metric = calloc(cap, sizeof(*metric));
	int n, rc = 0;

	memset(ml, 0, sizeof(*ml));
	ml->ev = calloc(cap, sizeof(*ml->ev));
	ml->plan_idx = calloc(cap, sizeof(*ml->plan_idx));
	ml->label = calloc(cap, sizeof(*ml->label));
	if (!names || !metric || !ml->ev || !ml->plan_idx || !ml->label) {
		rc = -PMT_ENOMEM;
		goto out;
	}
	/* -e's events are not the metrics': perf shows a metric on its own event */
	for (uint32_t e = 0; e < plan->ev.nr; e++)
		names[e] = e < first ? "" : plan->ev.ev[e].name;
	if (pl && pl->nm && list_first)
		n = lists_display(pl, list_first, plan, metric, ml->ev);
	else
		n = pmt_metric_set_perf_display(ms, sel, nsel, thresholds, names, plan->ev.nr,
						metric, ml->ev);
	if (n <= 0)
		goto out; /* not reproduced: pmutrace's own metric lines */
	ml->plan_nm = pmt_metric_plan_nr_metrics(mplan);
	for (int k = 0; k < n; k++) {
		size_t i = 0;

		while (i < ml->plan_nm && !same_metric(pmt_metric_plan_metric(mplan, i), metric[k]))
			i++;
		/* a metric of perf's list the plan lacks, or one no opened event carries */
		if (i == ml->plan_nm || ml->ev[k] < 0)
			goto out;
		ml->plan_idx[k] = i;
		const struct pmt_metric *m = pmt_metric_plan_metric(mplan, i);
		size_t len = strlen(m->name) + (m->unit ? strlen(m->unit) : 0) + 3;

		ml->label[k] = malloc(len);
		if (!ml->label[k]) {
			rc = -PMT_ENOMEM;
			goto out;
		}
		/* generic_metric(): a ScaleUnit's unit before the name */
		if (m->scale_unit)
			snprintf(ml->label[k], len, "%s  %s", m->unit ? m->unit : "", m->name);
		else
			snprintf(ml->label[k], len, "%s", m->name);
	}
	ml->nm = (size_t)n;
	ml->first = first;
	ml->mplan = mplan;
out:
	free(names);
	free(metric);
	if (!ml->nm)
		stat_ml_fini(ml);
	return rc;
}

struct pmt_counts *stat_metric_counts(const struct pmt_stat *st,
				      const struct pmt_count_plan *plan, uint32_t first)
{
	struct pmt_counts *c;
	bool *again = calloc(plan->ev.nr + 1, sizeof(*again));

	if (!again || pmt_counts_new(&c) < 0) {
		free(again);
		return NULL;
	}
	/* an event perf opens in several metrics' groups is one input (the first's count,
	 * not their sum) */
	for (uint32_t e = first; e < plan->ev.nr; e++)
		for (uint32_t j = first; j < e && !again[e]; j++)
			again[e] = !strcmp(plan->ev.ev[j].name, plan->ev.ev[e].name);
	for (uint32_t u = 0; u < pmt_stat_nr_units(st); u++) {
		int unit = pmt_counts_unit(c, NULL, pmt_stat_unit_name(st, u));

		for (uint32_t e = first; e < plan->ev.nr; e++)
			if (!again[e])
				pmt_counts_add(c, unit, pmt_counts_event(c, plan->ev.ev[e].name),
					       pmt_stat_metric_input(st, u, e));
	}
	free(again);
	return c;
}

void stat_ml_eval(struct stat_ml *ml, const struct pmt_stat *st, const struct pmt_count_plan *plan)
{
	struct pmt_counts *c;
	uint32_t nu = pmt_stat_nr_units(st);

	free(ml->val);
	free(ml->th);
	ml->val = calloc((size_t)nu * ml->plan_nm + 1, sizeof(*ml->val));
	ml->th = calloc((size_t)nu * ml->plan_nm + 1, sizeof(*ml->th));
	ml->nunits = ml->val && ml->th ? nu : 0;
	if (!ml->nunits || !(c = stat_metric_counts(st, plan, ml->first)))
		return;
	pmt_metric_plan_bind(ml->mplan, c);
	/* the counts' units are the stat's, added in its order */
	for (size_t u = 0; u < pmt_counts_nr_units(c) && u < nu; u++)
		pmt_metric_plan_eval(ml->mplan, c, u, ml->val + u * ml->plan_nm,
				     ml->th + u * ml->plan_nm);
	pmt_counts_free(c);
}

size_t stat_ml_metrics(void *ctx, uint32_t u, uint32_t e, struct pmt_stat_metric *out, size_t cap)
{
	const struct stat_ml *ml = ctx;
	size_t n = 0;

	if (u >= ml->nunits)
		return 0;
	/* perf adds a metric at the head of its event's list: the last one first */
	for (size_t k = ml->nm; k-- > 0 && n < cap;) {
		const struct pmt_metric *m = pmt_metric_plan_metric(ml->mplan, ml->plan_idx[k]);

		if (ml->ev[k] != (int)e)
			continue;
		out[n].val = ml->val[u * ml->plan_nm + ml->plan_idx[k]];
		out[n].threshold = ml->th[u * ml->plan_nm + ml->plan_idx[k]];
		out[n].scaled = m->scale_unit != NULL;
		out[n].unit = ml->label[k];
		n++;
	}
	return n;
}

void stat_ml_fini(struct stat_ml *ml)
{
	for (size_t k = 0; ml->label && ml->label[k]; k++)
		free(ml->label[k]);
	free(ml->label);
	free(ml->ev);
	free(ml->plan_idx);
	free(ml->val);
	free(ml->th);
	memset(ml, 0, sizeof(*ml));
}
