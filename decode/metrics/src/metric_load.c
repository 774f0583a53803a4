/* Metric tables: perf pmu-events metric JSON and Intel perfmon metrics JSON (via jansson). */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static const char *jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* "100%" -> 100 and "%"; "1per_sec" -> 1 and "per_sec"; "" -> 1 and "". */
static int parse_scale_unit(const char *su, double *scale, char **unit)
{
	char *end;

	*scale = 1;
	if (su && *su) {
		double d = strtod(su, &end);

		if (end != su)
			*scale = d;
		else
			end = (char *)su;
		*unit = strdup(end);
	} else {
		*unit = strdup("");
	}
	return *unit ? 0 : -PMT_ENOMEM;
}

static struct pmt_metric *new_metric(struct pmt_metric_set *ms)
{
	struct pmt_metric *m;

	if (ms->nr == ms->cap) {
		size_t cap = ms->cap ? ms->cap * 2 : 64;

		m = realloc(ms->m, cap * sizeof(*m));
		if (!m)
			return NULL;
		ms->m = m;
		ms->cap = cap;
	}
	m = &ms->m[ms->nr];
	memset(m, 0, sizeof(*m));
	return m;
}

int pmt_metric_set_add(struct pmt_metric_set *ms, const char *name, const char *expr,
		       const char *scale_unit, const char *threshold)
{
	struct pmt_metric *m;

	PMT_RETURN_IF(!name || !expr, PMT_EINVAL);
	m = new_metric(ms);
	if (!m)
		return -PMT_ENOMEM;
	m->name = strdup(name);
	m->expr = strdup(expr);
	m->scale_unit = dup_or_null(scale_unit);
	m->threshold = dup_or_null(threshold);
	if (!m->name || !m->expr || parse_scale_unit(scale_unit, &m->scale, &m->unit)) {
		ms->nr++;
		return -PMT_ENOMEM;
	}
	ms->nr++;
	return (int)ms->nr - 1;
}

static int load_perf(struct pmt_metric_set *ms, json_t *arr, const char *what,
		     struct pmt_diag *diag)
{
	size_t i, n = 0;
	json_t *o;

	json_array_foreach(arr, i, o) {
		const char *name = jstr(o, "MetricName"), *expr = jstr(o, "MetricExpr");
		struct pmt_metric *m;
		int r;

		if (!name || !expr)
			continue; /* an event, not a metric */
		r = pmt_metric_set_add(ms, name, expr, jstr(o, "ScaleUnit"),
				       jstr(o, "MetricThreshold"));
		if (r < 0)
			return r;
		m = &ms->m[r];
		m->groups = dup_or_null(jstr(o, "MetricGroup"));
		m->constraint = dup_or_null(jstr(o, "MetricConstraint"));
		m->desc = dup_or_null(jstr(o, "BriefDescription"));
		m->pmu = dup_or_null(jstr(o, "Unit"));
		m->nogroup = dup_or_null(jstr(o, "MetricgroupNoGroup"));
		n++;
	}
	if (!n)
		pmt_diag_warn(diag, -PMT_EFORMAT, what, PMT_DIAG_NO_OFFSET, 0,
			      "no MetricName/MetricExpr entries");
	return (int)n;
}

static int alias_list(json_t *arr, const char *name_key, const char *prefix, char ***alias,
		      char ***to, size_t *nr)
{
	size_t i, n = json_array_size(arr), k = 0;
	json_t *o;

	*alias = calloc(n + 1, sizeof(char *));
	*to = calloc(n + 1, sizeof(char *));
	if (!*alias || !*to)
		return -PMT_ENOMEM;
	json_array_foreach(arr, i, o) {
		const char *a = jstr(o, "Alias"), *v = jstr(o, name_key);
		size_t l;

		if (!a || !v)
			continue;
		l = strlen(prefix) + strlen(v) + 1;
		(*alias)[k] = strdup(a);
		(*to)[k] = malloc(l);
		if (!(*alias)[k] || !(*to)[k])
			return -PMT_ENOMEM;
		snprintf((*to)[k], l, "%s%s", prefix, v);
		k++;
	}
	*nr = k;
	return 0;
}

/* Intel perfmon: {"Header":..., "Metrics":[{MetricName, LegacyName, Formula, Events:[{Name,
 * Alias}], Constants:[{Name, Alias}], UnitOfMeasure, Threshold:{Formula,
 * ThresholdMetrics:[{Alias, Value}]}}]}. Aliases are kept and resolved at compile time, so
 * the formula text is never rewritten. Constants are marked with a leading '='. */
static int load_intel(struct pmt_metric_set *ms, json_t *arr, const char *what,
		      struct pmt_diag *diag)
{
	size_t i, n = 0;
	json_t *o;

	json_array_foreach(arr, i, o) {
		const char *name = jstr(o, "MetricName"), *f = jstr(o, "Formula");
		const char *grp = jstr(o, "MetricGroup"), *cat = jstr(o, "Category");
		json_t *th = json_object_get(o, "Threshold");
		struct pmt_metric *m;
		int r;

		if (!name || !f)
			continue;
		r = pmt_metric_set_add(ms, name, f, NULL, json_is_object(th) ? jstr(th, "Formula")
									      : NULL);
		if (r < 0)
			return r;
		m = &ms->m[r];
		m->intel = 1;
		free(m->unit);
		m->unit = strdup(jstr(o, "UnitOfMeasure") ? jstr(o, "UnitOfMeasure") : "");
		m->legacy_name = dup_or_null(jstr(o, "LegacyName"));
		m->base_formula = dup_or_null(jstr(o, "BaseFormula"));
		m->desc = dup_or_null(jstr(o, "BriefDescription"));
		if (grp || cat) {
			size_t l = (grp ? strlen(grp) : 0) + (cat ? strlen(cat) : 0) + 2;

			m->groups = malloc(l);
			if (m->groups)
				snprintf(m->groups, l, "%s;%s", grp ? grp : "", cat ? cat : "");
		}
		{
			json_t *ev = json_object_get(o, "Events"), *co = json_object_get(o, "Constants");
			char **a1, **t1, **a2, **t2;
			size_t n1 = 0, n2 = 0;

			r = alias_list(ev, "Name", "", &a1, &t1, &n1);
			if (!r)
				r = alias_list(co, "Name", "=", &a2, &t2, &n2);
			if (r)
				return r;
			m->alias = realloc(a1, (n1 + n2 + 1) * sizeof(char *));
			m->alias_to = realloc(t1, (n1 + n2 + 1) * sizeof(char *));
			if (!m->alias || !m->alias_to)
				return -PMT_ENOMEM;
			memcpy(m->alias + n1, a2, n2 * sizeof(char *));
			memcpy(m->alias_to + n1, t2, n2 * sizeof(char *));
			m->nr_alias = n1 + n2;
			free(a2);
			free(t2);
		}
		if (json_is_object(th) &&
		    alias_list(json_object_get(th, "ThresholdMetrics"), "Value", "", &m->talias,
			       &m->talias_to, &m->nr_talias))
			return -PMT_ENOMEM;
		n++;
	}
	if (!n)
		pmt_diag_warn(diag, -PMT_EFORMAT, what, PMT_DIAG_NO_OFFSET, 0,
			      "no metrics with MetricName and Formula");
	return (int)n;
}

int pmt_metric_set_load_mem(struct pmt_metric_set *ms, const char *json, size_t len,
			    const char *what, struct pmt_diag *diag)
{
	json_error_t jerr;
	json_t *root = json_loadb(json, len, 0, &jerr), *x;
	int rc;

	if (!root)
		return pmt_diag_set_column(diag, -PMT_EPARSE, what, (uint32_t)jerr.line, jerr.column,
					   "%s", jerr.text);
	if (json_is_array(root)) {
		rc = load_perf(ms, root, what, diag);
	} else if (json_is_array(x = json_object_get(root, "Metrics"))) {
		rc = load_intel(ms, x, what, diag);
	} else {
		rc = pmt_diag_set(diag, -PMT_EFORMAT, what, PMT_DIAG_NO_OFFSET,
				  "neither a perf metric array nor an Intel {\"Metrics\": [...]} "
				  "file");
	}
	json_decref(root);
	return rc;
}

int pmt_metric_set_load(struct pmt_metric_set *ms, const char *path, struct pmt_diag *diag)
{
	struct pmt_file_map m;
	int rc = pmt_file_map(path, &m, diag);

	if (rc < 0)
		return rc;
	rc = pmt_metric_set_load_mem(ms, (const char *)m.data, m.size, path, diag);
	pmt_file_unmap(&m);
	return rc;
}

int pmt_metric_set_find(const struct pmt_metric_set *ms, const char *name)
{
	for (size_t i = 0; i < ms->nr; i++)
		if (!strcasecmp(ms->m[i].name, name))
			return (int)i;
	return -PMT_ENOT_FOUND;
}

static void free_list(char **l, size_t n)
{
	if (!l)
		return;
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

void pmt_metric_set_fini(struct pmt_metric_set *ms)
{
	for (size_t i = 0; i < ms->nr; i++) {
		struct pmt_metric *m = &ms->m[i];

		free(m->name);
		free(m->expr);
		free(m->groups);
		free(m->scale_unit);
		free(m->threshold);
		free(m->constraint);
		free(m->desc);
		free(m->legacy_name);
		free(m->pmu);
		free(m->nogroup);
		free(m->base_formula);
		free(m->unit);
		free_list(m->alias, m->nr_alias);
		free_list(m->alias_to, m->nr_alias);
		free_list(m->talias, m->nr_talias);
		free_list(m->talias_to, m->nr_talias);
	}
	free(ms->m);
	memset(ms, 0, sizeof(*ms));
}
