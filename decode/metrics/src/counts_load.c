/* Count sets from perf stat output: `-x,` CSV in every aggregation mode and `-j` JSON lines.
 *
 * CSV lines are "[time,][aggr-id,[nr,]]value,unit,event,run,pct[,metric,munit]"; which of
 * the optional leading fields are present is told apart per line: the time and the value
 * are numbers, an aggregation id (CPU3, S0-D0-C1, N0, comm-pid) is not, and the nr field
 * of --per-core/--per-socket is an integer followed by the value (never by a unit).
 */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

#define MAX_FIELDS 16

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static int is_num(const char *s, double *v)
{
	char *end;
	double d;

	if (!*s)
		return 0;
	d = strtod(s, &end);
	/* perf prints counts as digits: "nan" or "inf" is not one */
	if (*end || !isfinite(d))
		return 0;
	if (v)
		*v = d;
	return 1;
}

static int is_int(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int not_counted(const char *s)
{
	return !strncmp(s, "<not", 4);
}

static int value_field(const char *s)
{
	return is_num(s, NULL) || not_counted(s);
}

static int csv_line(struct pmt_counts *c, char *line, char sep, const char *what,
		    size_t lineno, struct pmt_diag *diag)
{
	char *f[MAX_FIELDS];
	int nf = 0, i = 0, u, e;
	const char *interval = "", *aggr = "";
	double v = NAN;
	char *p = line;

	for (;;) {
		char *q = strchr(p, sep);

		if (nf == MAX_FIELDS)
			break;
		if (q)
			*q = 0;
		f[nf++] = trim(p);
		if (!q)
			break;
		p = q + 1;
	}
	/* "value,unit,event" has a unit and a name after the value, never a number; with -I
	 * the time is followed by the value or by an aggregation id and then a number. */
	if (nf >= 4 && is_num(f[0], NULL) && (value_field(f[1]) || value_field(f[2]))) {
		interval = f[0];
		i = 1;
	}
	if (i < nf && !value_field(f[i])) {
		aggr = f[i++];
		if (i + 1 < nf && is_int(f[i]) && value_field(f[i + 1]))
			i++; /* nr of CPUs in the aggregate */
	}
	if (i + 2 >= nf || !value_field(f[i]) || !f[i + 2][0]) {
		/* a count line (value, unit, event, run time, percentage) whose value is no
		 * number is damage, not one of perf's messages or metric lines */
		for (int j = interval[0] ? 1 : 0; j + 4 < nf && j <= (interval[0] ? 3 : 2); j++) {
			if (!value_field(f[j]) && f[j + 2][0] && is_int(f[j + 3]) &&
			    is_num(f[j + 4], NULL)) {
				return pmt_diag_set_line(diag, -PMT_EPARSE, what, (uint32_t)lineno,
							 "count '%s' for %s is not a number",
							 f[j], f[j + 2]);
			}
		}
		return 1; /* not a count: a message or a continuation line perf printed */
	}
	if (!not_counted(f[i]))
		is_num(f[i], &v);
	if (v < 0)
		return pmt_diag_set_line(diag, -PMT_EPARSE, what, (uint32_t)lineno,
					 "negative count %s for %s", f[i], f[i + 2]);
	u = pmt_counts_unit(c, interval, aggr);
	if (u < 0)
		return u;
	e = pmt_counts_event(c, f[i + 2]);
	if (e < 0)
		return e;
	e = pmt_counts_add(c, u, e, v) < 0 ? -PMT_EINVAL : e;
	return e < 0 ? e : pmt_counts_sources(c, (size_t)u, (size_t)e) > 1 ? 2 : 0;
}

static const char *json_str_or_num(json_t *v, char *buf, size_t cap)
{
	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v)) {
		snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
		return buf;
	}
	if (json_is_real(v)) {
		snprintf(buf, cap, "%.9f", json_real_value(v));
		return buf;
	}
	return NULL;
}

static int json_line(struct pmt_counts *c, const char *line, const char *what, size_t lineno,
		     struct pmt_diag *diag)
{
	static const char *const aggr_keys[] = { "cpu", "core", "die", "socket", "node",
						 "thread", "cache", "cluster" };
	json_error_t jerr;
	json_t *o = json_loads(line, 0, &jerr), *cv, *ev;
	char ibuf[48], abuf[64], vbuf[48];
	const char *interval = "", *aggr = "", *val;
	double v = NAN;
	int u, e, r;

	if (!o || !json_is_object(o)) {
		/* jansson's column of the line alone, said as before: the line is the file's */
		pmt_diag_set_line(diag, -PMT_EPARSE, what, (uint32_t)lineno, "column %d: %s",
				  jerr.column, o ? "not an object" : jerr.text);
		json_decref(o);
		return -PMT_EPARSE;
	}
	ev = json_object_get(o, "event");
	cv = json_object_get(o, "counter-value");
	if (!json_is_string(ev) || !cv) {
		json_decref(o); /* metric-only or header line */
		return 0;
	}
	if (json_object_get(o, "interval")) {
		const char *s = json_str_or_num(json_object_get(o, "interval"), ibuf, sizeof(ibuf));

		interval = s ? s : "";
	}
	for (size_t k = 0; k < sizeof(aggr_keys) / sizeof(aggr_keys[0]); k++) {
		json_t *a = json_object_get(o, aggr_keys[k]);
		const char *s;

		if (!a)
			continue;
		s = json_str_or_num(a, vbuf, sizeof(vbuf));
		if (s && k == 0 && is_int(s)) {
			snprintf(abuf, sizeof(abuf), "CPU%s", s);
			aggr = abuf;
		} else if (s) {
			snprintf(abuf, sizeof(abuf), "%s", s);
			aggr = abuf;
		}
		break;
	}
	val = json_str_or_num(cv, vbuf, sizeof(vbuf));
	if (!val || (!not_counted(val) && !is_num(val, &v)) || v < 0) {
		pmt_diag_set_line(diag, -PMT_EPARSE, what, (uint32_t)lineno,
				  "bad counter-value %s for %s", val ? val : "",
				  json_string_value(ev));
		json_decref(o);
		return -PMT_EPARSE;
	}
	r = u = pmt_counts_unit(c, interval, aggr);
	if (u >= 0) {
		r = e = pmt_counts_event(c, json_string_value(ev));
		if (e >= 0)
			r = pmt_counts_add(c, u, e, v);
		if (r >= 0 && pmt_counts_sources(c, (size_t)u, (size_t)e) > 1)
			r = 2;
	}
	json_decref(o);
	return r;
}

int pmt_counts_load_mem(struct pmt_counts *c, const char *text, size_t len, const char *what,
			struct pmt_diag *diag)
{
	char *buf = malloc(len + 1), *p, *line;
	size_t lineno = 0, skipped = 0, first_skipped = 0, counted = 0, merged = 0;
	size_t first_merged = 0;
	int rc = 0, json = -1;
	char sep = ',';

	if (!buf)
		return pmt_diag_set(diag, -PMT_ENOMEM, what, PMT_DIAG_NO_OFFSET, "out of memory");
	memcpy(buf, text, len);
	buf[len] = 0;
	for (p = buf; p && rc >= 0; lineno++) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = 0;
		line = trim(p);
		p = nl ? nl + 1 : NULL;
		if (!*line || line[0] == '#')
			continue;
		if (json < 0) {
			json = line[0] == '{';
			/* perf stat -x takes any separator; take the first usual one seen */
			sep = (char)(strpbrk(line, ",;|\t") ? *strpbrk(line, ",;|\t") : ',');
		}
		rc = json ? json_line(c, line, what, lineno + 1, diag)
			  : csv_line(c, line, sep, what, lineno + 1, diag);
		if (rc == 1) {
			if (!skipped++)
				first_skipped = lineno + 1;
			rc = 0;
		} else if (rc >= 0) {
			if (rc == 2 && !merged++)
				first_merged = lineno + 1;
			counted++;
			rc = 0;
		}
	}
	free(buf);
	if (rc < 0)
		return rc;
	if (!counted && json != 1) /* json < 0: an empty file, or comments only */
		return pmt_diag_set(diag, -PMT_EFORMAT, what, PMT_DIAG_NO_OFFSET,
				    "no perf stat -x counts in it (value,unit,event lines)");
	/* summaries of many lines: the first one is named in the message, not as the line */
	if (skipped)
		pmt_diag_warn(diag, -PMT_EPARSE, what, PMT_DIAG_NO_OFFSET, 0,
			      "%zu %s skipped (first: line %zu)", skipped,
			      skipped > 1 ? "lines that are not counts" : "line that is not a count",
			      first_skipped);
	/* perf prints an event once per PMU instance with --no-merge: summed, as perf merges
	 * them, and used by source_count(); said, since a repeated line may be a mistake */
	if (merged)
		pmt_diag_warn(diag, -PMT_ECORRUPT, what, PMT_DIAG_NO_OFFSET, 0,
			      "%zu %s an event already counted for the same unit and interval, "
			      "summed (first: line %zu)", merged, merged > 1 ? "lines repeat" :
			      "line repeats", first_merged);
	return 0;
}

int pmt_counts_load(struct pmt_counts *c, const char *path, struct pmt_diag *diag)
{
	struct pmt_file_map m;
	int rc = pmt_file_map(path, &m, diag);

	if (rc < 0)
		return rc;
	rc = pmt_counts_load_mem(c, (const char *)m.data, m.size, path, diag);
	pmt_file_unmap(&m);
	return rc;
}
