/* Retire latency: per-event distributions from PEBS samples, default tables, the value a
 * metric's :R term gets, and the calibration file writers. */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/metrics.h"

#define NBINS 65536

/* Distributions and tables are keyed by the bare event name ("mem_load_retired.l3_hit"):
 * samples carry "cpu_core/MEM_LOAD_RETIRED.L3_HIT/p", metrics "...L3_HIT:R", tables the
 * upper-case name. */
static void bare_name(const char *name, char *out, size_t cap)
{
	struct pmt_event_key k;

	if (pmt_event_key_parse(name, &k) < 0) {
		out[0] = 0;
		return;
	}
	snprintf(out, cap, "%s", k.event);
}

int pmt_retlat_stat_parse(const char *s, enum pmt_retlat_stat *stat, double *pct)
{
	static const char *const names[] = { "mean", "min", "max", "last", "median" };
	char *end;

	*pct = 0;
	for (int i = 0; i < 5; i++) {
		if (!strcasecmp(s, names[i])) {
			*stat = (enum pmt_retlat_stat)i;
			return 0;
		}
	}
	if ((s[0] == 'p' || s[0] == 'P') && s[1]) {
		double p = strtod(s + 1, &end);

		if (end != s + 1 && !*end) {
			if (!(p > 0 && p <= 100))
				return -PMT_ERANGE;
			*stat = PMT_RETLAT_PCT;
			*pct = p;
			return 0;
		}
	}
	return -PMT_EPARSE;
}

int pmt_retlat_dist_find(const struct pmt_retlat_samples *s, const char *event)
{
	char bare[128];

	bare_name(event, bare, sizeof(bare));
	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->ev[i].name, bare))
			return (int)i;
	return -PMT_ENOT_FOUND;
}

int pmt_retlat_samples_add(struct pmt_retlat_samples *s, const char *event, uint16_t lat)
{
	int i = pmt_retlat_dist_find(s, event);
	struct pmt_retlat_dist *d;

	if (i < 0) {
		if (s->nr == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 8;
			struct pmt_retlat_dist *n = realloc(s->ev, cap * sizeof(*n));

			if (!n)
				return -PMT_ENOMEM;
			s->ev = n;
			s->cap = cap;
		}
		d = &s->ev[s->nr];
		memset(d, 0, sizeof(*d));
		bare_name(event, d->name, sizeof(d->name));
		PMT_RETURN_IF(!d->name[0], PMT_EINVAL);
		d->hist = calloc(NBINS, sizeof(*d->hist));
		if (!d->hist)
			return -PMT_ENOMEM;
		i = (int)s->nr++;
	}
	d = &s->ev[i];
	if (d->hist[lat] != UINT32_MAX)
		d->hist[lat]++;
	d->count++;
	d->last = lat;
	s->nr_samples++;
	return 0;
}

void pmt_retlat_samples_fini(struct pmt_retlat_samples *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free(s->ev[i].hist);
		for (size_t k = 0; k < s->ev[i].nr_cpu; k++) {
			free(s->ev[i].per_cpu[k].v);
			free(s->ev[i].per_cpu[k].t);
		}
		free(s->ev[i].per_cpu);
	}
	free(s->ev);
	memset(s, 0, sizeof(*s));
}

static bool any_weight_struct(const struct pmt_trace_meta *m)
{
	for (uint32_t a = 0; a < m->nr_attrs; a++)
		if (m->attrs[a].sample_type & PMT_SAMPLE_WEIGHT_STRUCT)
			return true;
	return false;
}

int pmt_retlat_samples_from_trace(struct pmt_retlat_samples *s, const char *path,
				  struct pmt_diag *diag)
{
	struct pmt_source *src;
	struct pmt_trace_event ev;
	uint64_t used = 0;
	int rc = pmt_source_open(path, &src, diag);

	if (rc < 0)
		return rc;
	/* only an attr with WEIGHT_STRUCT has samples this takes: a trace of counts alone (perf
	 * stat record's, pmutrace stat -o's) is not read through a second time for none */
	if (!any_weight_struct(pmt_source_meta(src))) {
		pmt_source_close(src);
		return 0;
	}
	for (;;) {
		const struct pmt_sample *smp;

		rc = pmt_source_next(src, &ev);
		if (rc == -PMT_EEOS) {
			rc = 0;
			break;
		}
		if (rc < 0) {
			/* the source skipped the bad record; keep the samples we can read */
			pmt_diag_warn(diag, rc, path, pmt_source_offset(src), 0, "%s",
				      pmt_errstr(rc));
			if (rc == -PMT_ENOMEM || rc == -PMT_EIO)
				break;
			continue;
		}
		if (ev.kind != PMT_TEV_RECORD || ev.type != PMT_REC_SAMPLE)
			continue;
		smp = &ev.u.sample;
		if (!(smp->sample_type & PMT_SAMPLE_WEIGHT_STRUCT) || !smp->attr || !smp->attr->name) {
			s->nr_skipped++;
			continue;
		}
		rc = smp->sample_type & PMT_SAMPLE_CPU
			     ? pmt_retlat_samples_add_at(s, smp->attr->name, (int32_t)smp->cpu,
							 smp->sample_type & PMT_SAMPLE_TIME
								 ? smp->time : 0,
							 (uint16_t)(smp->weight >> 48))
			     : pmt_retlat_samples_add(s, smp->attr->name,
						      (uint16_t)(smp->weight >> 48));
		if (rc < 0)
			break;
		used++;
	}
	pmt_source_close(src);
	return rc < 0 ? rc : (int)(used > INT32_MAX ? INT32_MAX : used);
}

/* Value of the sample with 0-based rank r in sorted order, over bins [lo, NBINS). */
static double rank_value(const struct pmt_retlat_dist *d, uint64_t r, unsigned lo)
{
	uint64_t cum = 0;

	for (unsigned v = lo; v < NBINS; v++) {
		cum += d->hist[v];
		if (cum > r)
			return v;
	}
	return NAN;
}

double pmt_retlat_dist_pct(const struct pmt_retlat_dist *d, double p)
{
	uint64_t idx;

	if (!d->count)
		return NAN;
	/* the value at sorted index floor(p/100 * count): p50 is pmu-tools genretlat's MEDIAN
	 * (sorted[count // 2]), p100 the maximum */
	idx = (uint64_t)floor(p / 100.0 * (double)d->count);
	if (idx >= d->count)
		idx = d->count - 1;
	return rank_value(d, idx, 0);
}

void pmt_retlat_dist_stats(const struct pmt_retlat_dist *d, struct pmt_retlat_stats *st)
{
	double sum = 0;
	uint64_t best = 0, nz_best = 0;

	memset(st, 0, sizeof(*st));
	st->min = st->max = st->mean = st->median = st->mode = NAN;
	st->p90 = st->p99 = st->min_nz = st->nz_mean = st->nz_median = st->nz_mode = NAN;
	st->last = d->last;
	st->count = d->count;
	if (!d->count)
		return;
	for (unsigned v = 0; v < NBINS; v++) {
		uint64_t n = d->hist[v];

		if (!n)
			continue;
		st->buckets++;
		if (isnan(st->min))
			st->min = v;
		st->max = v;
		sum += (double)v * (double)n;
		if (n > best) { /* ties keep the smaller value */
			best = n;
			st->mode = v;
		}
		if (v) {
			if (isnan(st->min_nz))
				st->min_nz = v;
			st->nz_count += n;
			if (n > nz_best) {
				nz_best = n;
				st->nz_mode = v;
			}
		}
	}
	st->mode_count = best;
	st->nz_mode_count = nz_best;
	st->mean = sum / (double)d->count;
	st->median = rank_value(d, d->count / 2, 0);
	st->p90 = pmt_retlat_dist_pct(d, 90);
	st->p99 = pmt_retlat_dist_pct(d, 99);
	if (st->nz_count) {
		st->nz_mean = sum / (double)st->nz_count;
		st->nz_median = rank_value(d, st->nz_count / 2, 1);
	}
}

/* ---- tables ---- */

static double num_or_nan(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_string(v)) {
		char *end;
		double d = strtod(json_string_value(v), &end);

		if (end != json_string_value(v) && !*end)
			return d;
	}
	return NAN;
}

static struct pmt_retlat_entry *table_add(struct pmt_retlat_table *t, const char *name)
{
	struct pmt_retlat_entry *e;
	int i = pmt_retlat_table_find(t, name);

	if (i >= 0)
		return &t->e[i]; /* a later file overrides */
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 32;

		e = realloc(t->e, cap * sizeof(*e));
		if (!e)
			return NULL;
		t->e = e;
		t->cap = cap;
	}
	e = &t->e[t->nr++];
	memset(e, 0, sizeof(*e));
	bare_name(name, e->name, sizeof(e->name));
	return e;
}

static int load_event_list(struct pmt_retlat_table *t, json_t *arr)
{
	size_t i, added = 0;
	json_t *ev;

	json_array_foreach(arr, i, ev) {
		json_t *n = json_object_get(ev, "EventName");
		struct pmt_retlat_entry *e;

		if (!json_is_string(n) || !json_object_get(ev, "RetirementLatencyMean"))
			continue;
		e = table_add(t, json_string_value(n));
		if (!e)
			return -PMT_ENOMEM;
		e->mean = num_or_nan(ev, "RetirementLatencyMean");
		e->min = num_or_nan(ev, "RetirementLatencyMin");
		e->max = num_or_nan(ev, "RetirementLatencyMax");
		e->median = NAN;
		added++;
	}
	return (int)added;
}

static int load_data(struct pmt_retlat_table *t, json_t *data, const char *path,
		     struct pmt_diag *diag)
{
	const char *name;
	json_t *v;
	int added = 0;

	json_object_foreach(data, name, v) {
		struct pmt_retlat_entry *e;
		json_t *vals;

		if (!json_is_object(v))
			continue;
		e = table_add(t, name);
		if (!e)
			return -PMT_ENOMEM;
		e->mean = num_or_nan(v, "MEAN");
		e->min = num_or_nan(v, "MIN");
		e->max = num_or_nan(v, "MAX");
		e->median = num_or_nan(v, "MEDIAN");
		e->count = json_is_integer(json_object_get(v, "COUNT"))
				   ? (uint64_t)json_integer_value(json_object_get(v, "COUNT")) : 0;
		if (isnan(e->mean))
			return pmt_diag_set(diag, -PMT_EFORMAT, path, PMT_DIAG_NO_OFFSET,
					    "event %s has no MEAN", name);
		vals = json_object_get(v, "Values");
		{
			/* genretlat writes the histogram as "Values[N]": count keys beside the
			 * statistics; an older pmutrace wrote a nested "Values": {"N": count} */
			const char *key;
			json_t *cnt;

			json_object_foreach(v, key, cnt) {
				char *end;
				long l;

				if (strncmp(key, "Values[", 7) || !json_is_integer(cnt))
					continue;
				l = strtol(key + 7, &end, 10);
				if (*end != ']' || l < 0 || l >= NBINS)
					continue;
				if (!e->values) {
					e->values = calloc(NBINS, sizeof(*e->values));
					if (!e->values)
						return -PMT_ENOMEM;
				}
				e->values[l] = (uint32_t)json_integer_value(cnt);
			}
		}
		if (json_is_object(vals)) {
			const char *lat;
			json_t *cnt;

			free(e->values);
			e->values = calloc(NBINS, sizeof(*e->values));
			if (!e->values)
				return -PMT_ENOMEM;
			json_object_foreach(vals, lat, cnt) {
				long l = strtol(lat, NULL, 10);

				if (l >= 0 && l < NBINS && json_is_integer(cnt))
					e->values[l] = (uint32_t)json_integer_value(cnt);
			}
		}
		added++;
	}
	return added;
}

static int table_from_json(struct pmt_retlat_table *t, json_t *root, const char *name,
			   struct pmt_diag *diag)
{
	json_t *x;
	int rc;

	if (json_is_array(root))
		rc = load_event_list(t, root);
	else if (json_is_array(x = json_object_get(root, "Events")))
		rc = load_event_list(t, x);
	else if (json_is_object(x = json_object_get(root, "Data")))
		rc = load_data(t, x, name, diag);
	else
		rc = pmt_diag_set(diag, -PMT_EFORMAT, name, PMT_DIAG_NO_OFFSET,
				  "not a retire-latency table (event list, Intel Data or "
				  "pmu-tools Data object)");
	json_decref(root);
	return rc;
}

int pmt_retlat_table_load(struct pmt_retlat_table *t, const char *path, struct pmt_diag *diag)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);

	/* a file that does not open has no line: "unable to open X: No such file ..." */
	if (!root && jerr.line < 0)
		return pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET, "%s", jerr.text);
	if (!root)
		return pmt_diag_set_column(diag, -PMT_EPARSE, path, (uint32_t)jerr.line,
					   jerr.column, "%s", jerr.text);
	return table_from_json(t, root, path, diag);
}

int pmt_retlat_table_load_mem(struct pmt_retlat_table *t, const char *json, size_t len,
			      const char *name, struct pmt_diag *diag)
{
	json_error_t jerr;
	json_t *root = json_loadb(json, len, 0, &jerr);

	if (!root)
		return pmt_diag_set_column(diag, -PMT_EPARSE, name, (uint32_t)jerr.line,
					   jerr.column, "%s", jerr.text);
	return table_from_json(t, root, name, diag);
}

void pmt_retlat_table_fini(struct pmt_retlat_table *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->e[i].values);
	free(t->e);
	memset(t, 0, sizeof(*t));
}

int pmt_retlat_table_find(const struct pmt_retlat_table *t, const char *event)
{
	char bare[128];

	bare_name(event, bare, sizeof(bare));
	for (size_t i = 0; i < t->nr; i++)
		if (!strcmp(t->e[i].name, bare))
			return (int)i;
	return -PMT_ENOT_FOUND;
}

int pmt_retlat_value(const struct pmt_retlat_samples *s, const struct pmt_retlat_table *t,
		     const char *event, enum pmt_retlat_stat stat, double pct, double *out)
{
	int i = s ? pmt_retlat_dist_find(s, event) : -1;

	if (i >= 0 && s->ev[i].count) {
		struct pmt_retlat_stats st;

		pmt_retlat_dist_stats(&s->ev[i], &st);
		switch (stat) {
		case PMT_RETLAT_MEAN: *out = rint(st.mean); break;
		case PMT_RETLAT_MIN: *out = st.min; break;
		case PMT_RETLAT_MAX: *out = st.max; break;
		case PMT_RETLAT_LAST: *out = st.last; break;
		case PMT_RETLAT_MEDIAN: *out = st.median; break;
		case PMT_RETLAT_PCT: *out = pmt_retlat_dist_pct(&s->ev[i], pct); break;
		}
		return 1;
	}
	i = t ? pmt_retlat_table_find(t, event) : -1;
	if (i >= 0) {
		const struct pmt_retlat_entry *e = &t->e[i];
		double v = e->mean;

		if (stat == PMT_RETLAT_MIN && !isnan(e->min))
			v = e->min;
		else if (stat == PMT_RETLAT_MAX && !isnan(e->max))
			v = e->max;
		else if (stat == PMT_RETLAT_MEDIAN && !isnan(e->median))
			v = e->median;
		else if (stat == PMT_RETLAT_PCT && e->values) {
			struct pmt_retlat_dist d = { .hist = e->values };

			for (unsigned k = 0; k < NBINS; k++)
				d.count += e->values[k];
			if (d.count)
				v = pmt_retlat_dist_pct(&d, pct);
		}
		*out = rint(v);
		return 0;
	}
	*out = 0;
	return -PMT_ENOT_FOUND;
}

/* ---- writers ---- */

static void upper(char *dst, size_t cap, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < cap; i++)
		dst[i] = (char)toupper((unsigned char)s[i]);
	dst[i] = 0;
}

static json_t *num(double v)
{
	if (isnan(v))
		return json_null();
	if (v == floor(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	return json_real(v);
}

int pmt_retlat_write(const struct pmt_retlat_samples *s, enum pmt_retlat_format fmt, int full,
		     FILE *fp)
{
	json_t *root = json_object(), *data = json_object();
	int rc = 0;

	if (!root || !data) {
		json_decref(root);
		json_decref(data);
		return -PMT_ENOMEM;
	}
	if (fmt == PMT_RETLAT_FMT_INTEL) {
		json_t *plat = json_object();

		json_object_set_new(plat, "Tool", json_string("pmutrace calibrate"));
		json_object_set_new(root, "Platform", plat);
	}
	json_object_set_new(root, "Data", data);
	for (size_t i = 0; i < s->nr; i++) {
		const struct pmt_retlat_dist *d = &s->ev[i];
		struct pmt_retlat_stats st;
		json_t *o = json_object();
		char name[128];

		if (!d->count)
			continue;
		pmt_retlat_dist_stats(d, &st);
		upper(name, sizeof(name), d->name);
		json_object_set_new(o, "MIN", num(st.min));
		json_object_set_new(o, "MAX", num(st.max));
		json_object_set_new(o, "MEAN", json_real(round(st.mean * 100) / 100));
		if (fmt == PMT_RETLAT_FMT_PMU_TOOLS) {
			json_object_set_new(o, "COUNT", json_integer((json_int_t)st.count));
			json_object_set_new(o, "MEDIAN", num(st.median));
			json_object_set_new(o, "MODE", num(st.mode));
			json_object_set_new(o, "MODE_COUNT", json_integer((json_int_t)st.mode_count));
			json_object_set_new(o, "NZ_MEDIAN", num(isnan(st.nz_median) ? 0 : st.nz_median));
			json_object_set_new(o, "NZ_MODE", num(isnan(st.nz_mode) ? 0 : st.nz_mode));
			json_object_set_new(o, "NZ_MODE_COUNT",
					    json_integer((json_int_t)st.nz_mode_count));
			json_object_set_new(o, "MIN_NZ", num(isnan(st.min_nz) ? 0 : st.min_nz));
			json_object_set_new(o, "NZ_COUNT", json_integer((json_int_t)st.nz_count));
			json_object_set_new(o, "NZ_MEAN", json_real(isnan(st.nz_mean) ? 0 :
								     round(st.nz_mean * 100) / 100));
			json_object_set_new(o, "P90", num(st.p90));
			json_object_set_new(o, "P99", num(st.p99));
			json_object_set_new(o, "BUCKETS", json_integer((json_int_t)st.buckets));
			if (full) {
				/* genretlat's layout, which its --merge reads: "Values[N]": count */
				for (unsigned v = 0; v < NBINS; v++) {
					char k[24];

					if (!d->hist[v])
						continue;
					snprintf(k, sizeof(k), "Values[%u]", v);
					json_object_set_new(o, k, json_integer(d->hist[v]));
				}
			}
		}
		json_object_set_new(data, name, o);
	}
	/* 15 digits: MEAN rounded to 2 places prints as 45.04, not 45.039999999999999 */
	if (json_dumpf(root, fp, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(15)) ||
	    fputc('\n', fp) == EOF)
		rc = -PMT_EIO;
	json_decref(root);
	return rc;
}
