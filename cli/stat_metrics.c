/* stat -M: the metric table, the events it opens and its metric output (stat_metrics.h) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stat_metrics.h"

/* does the unit count any event of that PMU (a hybrid part's cpu_core, cpu_atom) */
static bool unit_has_pmu(const struct run *r, size_t u, const char *pmu)
{
	for (uint32_t e = 0; e < r->plan.ev.nr; e++) {
		const struct pmt_evsel *ev = &r->plan.ev.ev[e];

		if (ev->pmu && !strcmp(ev->pmu->name, pmu) &&
		    pmt_stat_cell(r->stat, (uint32_t)u, e)->nr)
			return true;
	}
	return false;
}

/* the metrics of -M over this read's units, after the counts */
void print_metrics(struct run *r)
{
	struct pmt_counts *c;
	size_t nm;
	double *val;
	int8_t *th;
	const char **missing;

	if (!r->mplan || !(c = stat_metric_counts(r->stat, &r->plan, r->metric_first)))
		return;
	nm = pmt_metric_plan_nr_metrics(r->mplan);
	val = calloc(nm + 1, sizeof(*val));
	th = calloc(nm + 1, sizeof(*th));
	missing = calloc(nm + 1, sizeof(*missing));
	pmt_metric_plan_bind(r->mplan, c);
	bool per_cpu = pmt_stat_aggr(r->stat) == PMT_AGGR_CPU;

	for (size_t u = 0; val && th && missing && u < pmt_counts_nr_units(c); u++) {
		pmt_metric_plan_eval(r->mplan, c, u, val, th);
		pmt_metric_plan_missing(r->mplan, missing);
		for (size_t i = 0; r->td.on && i < nm; i++) {
			const struct pmt_metric *m = pmt_metric_plan_metric(r->mplan, i);

			/* a hybrid table's copies of a metric: each its PMU's column */
			for (int k = 0; k < r->td.cols; k++)
				if (m == r->td.metric[k]) {
					size_t at = u * (size_t)r->td.cols + k;

					r->td.val[at] = missing[i] ? NAN : val[i];
					/* a metric computed as NaN (an :R event read on
					 * another CPU: nan there) is printed as perf's */
					r->td.cell[at] = missing[i] ? PMT_MO_VALUE : PMT_MO_RATIO;
					/* a hybrid PMU's events unread: perf's NaN ratio
					 * (its metric reads 0 counts there), as -M prints */
					if (m->pmu && missing[i])
						r->td.cell[at] = PMT_MO_RATIO;
					/* a unit with none of its PMU's CPUs: -A's CPU of the
					 * other PMU has no cell for it, as perf's line; a core
					 * (--per-core) the metric's value without counts */
					if (m->pmu && !unit_has_pmu(r, u, m->pmu) && per_cpu)
						r->td.cell[at] = PMT_MO_SKIP;
					else if (m->pmu && !unit_has_pmu(r, u, m->pmu))
						r->td.val[at] = isnan(val[i]) ? NAN : val[i];
				}
		}
		for (size_t i = 0; !r->td.on && i < nm; i++) {
			const struct pmt_metric *m = pmt_metric_plan_metric(r->mplan, i);
			const char *ag = pmt_counts_unit_aggr(c, u);
			char name[256];

			/* a hybrid table's copies of a metric, one per core PMU, told apart */
			snprintf(name, sizeof(name), m->pmu ? "%s (%s)" : "%s", m->name, m->pmu);
			if (r->po.format == PMT_STAT_CSV)
				fprintf(r->out, "%s%s%s%s%.6g%s%s\n", ag, *ag ? r->po.sep : "", name,
					r->po.sep, missing[i] ? NAN : val[i], r->po.sep,
					m->unit ? m->unit : "");
			else if (r->po.format == PMT_STAT_JSON)
				/* perf's metric-only keys, the unit (if any) by pmutrace's "aggr" */
				fprintf(r->out, "{%s%s%s\"metric-value\" : \"%f\", "
					"\"metric-unit\" : \"%s%s%s\"}\n", *ag ? "\"aggr\" : \"" : "",
					ag, *ag ? "\", " : "", missing[i] ? NAN : val[i],
					m->unit ? m->unit : "", m->unit ? "  " : "", name);
			else if (missing[i])
				fprintf(r->out, "%-8s %18s %-s (%s not counted)\n", ag,
					"<not counted>", name, missing[i]);
			else
				fprintf(r->out, "%-8s %18.2f %-10s %s\n", ag, val[i],
					m->unit ? m->unit : "", name);
		}
	}
	free(val);
	free(th);
	free(missing);
	pmt_counts_free(c);
}

void print_topdown(struct run *r)
{
	if (r->mplan)
		print_metrics(r);
	else
		stat_td_from_counts(&r->td, r->stat, &r->plan);
	r->po.ctrs_event = stat_td_ctrs_event(&r->td, &r->plan);
	pmt_stat_print_metric_only(r->out, r->stat, r->td.head, (uint32_t)r->td.cols, r->td.val,
				   r->td.cell, &r->po);
}

/* the counts with -M's metrics: in perf's `#` column where reproduced, else after them */
void print_counts_metrics(struct run *r)
{
	if (r->ml.nm) {
		stat_ml_eval(&r->ml, r->stat, &r->plan);
		r->po.metrics = stat_ml_metrics;
		r->po.metrics_ctx = &r->ml;
	}
	pmt_stat_print(r->out, r->stat, &r->po);
	if (!r->ml.nm)
		print_metrics(r);
}

/* perf stat without --record-tpebs: each :R event is its table's mean, rounded
 * (evsel__tpebs_read()), counted on the first CPU alone; an event the table lacks is 0 */
int stat_retlat_values(struct run *r)
{
	struct pmt_retlat_table tab = { 0 };
	struct pmt_diag diag = PMT_DIAG_INIT;

	if (!r->retlat_file)
		return 0;
	if (pmt_retlat_table_load(&tab, r->retlat_file, &diag) < 0) {
		pmt_retlat_table_fini(&tab);
		return pmt_cli_fail_diag("stat", &diag);
	}
	for (uint32_t e = 0; e < r->plan.ev.nr; e++) {
		double v;

		if (r->plan.ev.ev[e].retire_lat &&
		    pmt_retlat_value(NULL, &tab, r->plan.ev.ev[e].name, PMT_RETLAT_MEAN, 0, &v) >= 0)
			r->plan.retlat[e] = (uint64_t)rint(v);
	}
	pmt_retlat_table_fini(&tab);
	return 0;
}

int setup_metrics(struct run *r)
{
	struct pmt_expr_ctx ctx;
	struct pmt_diag diag = PMT_DIAG_INIT;
	static char group[16];

	if (!r->nsel && !(r->td.on && r->metrics_file))
		return 0;
	if (!r->metrics_file)
		return pmt_cli_usage_fail("stat", "-M needs --metrics FILE (a perf pmu-events or "
					  "Intel perfmon metric table)");
	if (pmt_metric_set_load(&r->ms, r->metrics_file, &diag) < 0) {
		pmt_diag_print(&diag);
		return PMT_EXIT_ERROR;
	}
	pmt_expr_ctx_default(&ctx);
	ctx.smt_on = stat_smt_on();
	ctx.has_pmem = stat_has_pmem();
	/* perf reads #num_cpus_online from its sysfs (SYSFS_PATH's tree when replaying) */
	if (pmt_sysfs_cpus_online(NULL))
		ctx.num_cpus_online = pmt_sysfs_cpus_online(NULL);
	/* perf's --topdown is its table's TopdownL<level> group */
	if (r->td.on) {
		int rc = stat_td_table_columns(&r->td, pmt_metric_set_topdown_max_level(&r->ms),
					       r->metrics_file, &r->ms, &ctx);

		if (rc)
			return rc;
		snprintf(group, sizeof(group), "TopdownL%u", r->td.level);
		r->sel[r->nsel++] = group;
	}
	if (pmt_metric_plan_new(&r->ms, r->sel, r->nsel, &ctx, &r->mplan, &diag) < 0)
		return pmt_cli_fail_diag("stat", &diag);
	return 0;
}

/* the plan's count inputs named id (all for NULL) not listed yet, appended to list */
/* perf 7.3's tool events user_time and system_time: opened after the others (add_tools) */
static bool cpu_time(const char *id)
{
	return !strcasecmp(id, "user_time") || !strcasecmp(id, "system_time");
}

size_t add_inputs(struct run *r, const char *id, bool *done, char *list, size_t n)
{
	for (size_t i = 0; i < pmt_metric_plan_nr_inputs(r->mplan); i++) {
		struct pmt_metric_input *in = pmt_metric_plan_input(r->mplan, i);

		/* a threshold's own event where perf's order names it */
		/* an :R event is opened too, read on the first CPU (stat_retlat_values) */
		if (done[i] || (in->kind != PMT_MIN_COUNT && in->kind != PMT_MIN_RETLAT) ||
		    (in->threshold_only && !id) || (!id && cpu_time(in->id)) ||
		    (id && strcasecmp(in->id, id)))
			continue;
		done[i] = true;
		n += (size_t)sprintf(list + n, "%s", n && list[n - 1] != '{' ? "," : "");
		/* a hybrid table's "cpu_atom@EVENT@" is perf's event cpu_atom/EVENT/ */
		for (const char *c = in->id; *c; c++)
			list[n++] = *c == '@' ? '/' : *c;
		list[n] = 0;
	}
	return n;
}

/* perf's metricgroup__build_event_string(): the tool events the metrics read after their
 * other events, outside their groups, in its tool PMU's order (duration_time, user_time,
 * system_time), whatever order the formulas name them in */
static size_t add_tools(struct run *r, bool *done, char *list, size_t n)
{
	if (pmt_metric_plan_reads_duration(r->mplan))
		n += (size_t)sprintf(list + n, "%sduration_time", n ? "," : "");
	n = add_inputs(r, "user_time", done, list, n);
	return add_inputs(r, "system_time", done, list, n);
}

/* the PMU an ID names ("cpu_core@...@"), as a length of id; 0 for none */
static size_t id_pmu_len(const char *id)
{
	const char *at = strchr(id, '@');

	return at ? (size_t)(at - id) : 0;
}

/* perf opens a grouped metric's events as one {...}:W group per metric: on a hybrid
 * table one metric per PMU, so a new group where the PMU changes */
static size_t next_group(const char *const *order, size_t k, char *list, size_t n)
{
	size_t pl = id_pmu_len(order[k]);

	if (k && pl == id_pmu_len(order[k - 1]) && !strncmp(order[k], order[k - 1], pl))
		return n;
	return n + (size_t)sprintf(list + n, "%s{", k ? "}:W," : "");
}

/* -M's `#` layout: perf 7.3's text, -x and -j, in every aggregation (where stat_ml_setup()
 * finds perf's order not reproduced, pmutrace's metric lines instead) */
bool ml_layout_wanted(const struct run *r)
{
	return r->nsel && !r->td.on;
}

/* perf stat sets metric_no_threshold for -x: no threshold events, no classes */
bool ml_thresholds(const struct run *r)
{
	return r->po.format != PMT_STAT_CSV;
}

/* several grouped metrics: perf's lists, each parsed on its own as perf parses each (a
 * grouped metric's a {...}:W group), an event in every list that reads it; the plan's
 * inputs in none of them after (ungrouped) */
static int metric_lists(struct run *r, struct pmt_evlist *ev, const struct pmt_pmus *pmus,
			const struct pmt_events_opts *eo, struct pmt_diag *d, char *buf, bool *done)
{
	size_t ni = pmt_metric_plan_nr_inputs(r->mplan);
	bool *ldone = calloc(ni + 1, sizeof(*ldone));
	int rc = ldone ? 0 : -PMT_ENOMEM;

	/* [L]: list L's first event in the plan, [L + 1] its end */
	r->list_first = calloc(r->pl.nm + 2, sizeof(*r->list_first));
	if (!r->list_first)
		rc = -PMT_ENOMEM;

	for (size_t i = 0; rc >= 0 && i <= r->pl.nr_id; i++) {
		size_t n = 0;
		int li = i < r->pl.nr_id ? r->pl.list[i] : -1;

		/* the first event of a list: the previous list's string parsed */
		if (i && (i == r->pl.nr_id || li != r->pl.list[i - 1])) {
			size_t len = strlen(buf);

			if (r->pl.list[i - 1] > 0)
				strcpy(buf + len, "}:W");
			r->list_first[r->pl.list[i - 1]] = ev->nr;
			rc = pmt_events_parse_opts(ev, pmus, buf, eo, d);
			for (size_t k = 0; k < ni; k++)
				done[k] |= ldone[k];
		}
		if (i == r->pl.nr_id || rc < 0)
			break;
		if (!i || li != r->pl.list[i - 1]) {
			memset(ldone, 0, ni * sizeof(*ldone));
			buf[0] = 0;
			if (li > 0)
				strcpy(buf, "{");
		}
		n = strlen(buf);
		add_inputs(r, r->pl.id[i], ldone, buf, n);
	}
	if (rc >= 0)
		r->list_first[r->pl.nr_id ? r->pl.list[r->pl.nr_id - 1] + 1 : 0] = ev->nr;
	free(ldone);
	return rc;
}

/* -M: the events the metrics read, as perf stat -M opens them (after -e's, apart from
 * them); --topdown's in the order perf 7.3 parses them (its hashed ID list), which its
 * attrs follow */
int metric_events(struct run *r, struct pmt_evlist *ev, const struct pmt_pmus *pmus,
			 const struct pmt_events_opts *eo, struct pmt_diag *d)
{
	size_t len = 1, n = 0, ni = pmt_metric_plan_nr_inputs(r->mplan);
	char *list, **order = NULL, group[16];
	bool *done = calloc(ni + 1, sizeof(*done)), grouped = false;
	int rc;

	for (size_t i = 0; i < ni; i++)
		len += strlen(pmt_metric_plan_input(r->mplan, i)->id) + 1;
	len += 5 * (ni + 1) + sizeof(",duration_time"); /* groups' braces, :W, commas */
	list = malloc(len);
	snprintf(group, sizeof(group), "TopdownL%u", r->td.level);
	/* where perf's order is not reproduced (grouped metrics): the plan's */
	if (r->td.on && pmt_metric_set_perf_events(&r->ms, group, &order) < 0)
		order = NULL;
	/* -M: perf 7.3 also opens the events of the metrics' thresholds, but for -x */
	if (!r->td.on && ml_layout_wanted(r) && list && done &&
	    pmt_metric_set_perf_events_sel(&r->ms, r->sel, r->nsel, ml_thresholds(r), &order,
					   &grouped) == -PMT_EUNSUPPORTED &&
	    pmt_metric_set_perf_lists(&r->ms, r->sel, r->nsel, ml_thresholds(r), &r->pl) > 0) {
		/* several grouped metrics: perf's lists */
		rc = metric_lists(r, ev, pmus, eo, d, list, done);
		list[0] = 0;
		if (rc >= 0)
			n = add_tools(r, done, list, add_inputs(r, NULL, done, list, 0));
		if (rc >= 0 && n)
			rc = pmt_events_parse_opts(ev, pmus, list, eo, d);
		free(done);
		free(list);
		return rc;
	}
	/* one list, parsed at once: the topdown-* events and TOPDOWN.SLOTS of TopdownL1 form
	 * one group led by slots, as perf's parse of its metric events groups them */
	for (size_t k = 0; list && done && order && order[k]; k++) {
		pmt_debug("found event %s", order[k]); /* perf's words at -vv */
		if (grouped)
			n = next_group((const char *const *)order, k, list, n);
		n = add_inputs(r, order[k], done, list, n);
	}
	if (grouped && order && order[0] && list)
		n += (size_t)sprintf(list + n, "}:W");
	if (list && done)
		n = add_inputs(r, NULL, done, list, n);
	/* the tool events after the others (nothing reaches the kernel) */
	if (list && done)
		n = add_tools(r, done, list, n);
	rc = !list || !done ? -PMT_ENOMEM : n ? pmt_events_parse_opts(ev, pmus, list, eo, d) : 0;
	pmt_perf_events_free(order);
	free(done);
	free(list);
	return rc;
}
