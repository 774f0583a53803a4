/* perf 7.3's stat-display.c layouts: the text columns (COUNTS_LEN 18, unit width >= 4,
 * EVNAME_LEN 32, METRIC_LEN 38, the aggregation prefix widths of aggr_header_lens[]),
 * -x SEP (CSV) and -j (JSON lines). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pmutrace/counting.h"

#define COUNTS_LEN 18
#define EVNAME_LEN 32
#define METRIC_LEN 38

static const char *aggr_key(enum pmt_aggr a)
{
	return a == PMT_AGGR_CPU ? "cpu" : a == PMT_AGGR_CORE ? "core"
				     : a == PMT_AGGR_DIE ? "die" : a == PMT_AGGR_THREAD ? "thread"
				     : a == PMT_AGGR_SOCKET ? "socket" : NULL;
}

static void header_aggr(FILE *fp, enum pmt_aggr a)
{
	fputs("#           time", fp);
	if (a == PMT_AGGR_CPU)
		fputs(" cpu   ", fp);
	else if (a == PMT_AGGR_CORE)
		fputs(" core               ctrs", fp);
	else if (a == PMT_AGGR_DIE)
		fputs(" die          ctrs", fp);
	else if (a == PMT_AGGR_SOCKET)
		fputs(" socket ctrs", fp);
	else if (a == PMT_AGGR_THREAD)
		fputs("             comm-pid    ", fp); /* perf 7.3: one space short of its row */
}

static void header(FILE *fp, enum pmt_aggr a)
{
	header_aggr(fp, a);
	fputs("             counts unit events\n", fp);
}

/* the unit's columns before the counts: CPU, or the unit and the counters event e adds up
 * in it (perf's "ctrs": a tool event has 1, on the unit's first CPU) */
static void aggr_prefix(FILE *fp, const struct pmt_stat *s, uint32_t u, uint32_t e)
{
	const struct pmt_stat_cell *c = pmt_stat_cell(s, u, e);

	switch (pmt_stat_aggr(s)) {
	case PMT_AGGR_CPU:
		fprintf(fp, "CPU%-3s ", pmt_stat_unit_name(s, u) + 3);
		break;
	case PMT_AGGR_CORE:
		fprintf(fp, "%-18s %4u ", pmt_stat_unit_name(s, u), c->ctrs);
		break;
	case PMT_AGGR_DIE:
		fprintf(fp, "%-12s %4u ", pmt_stat_unit_name(s, u), c->ctrs);
		break;
	case PMT_AGGR_SOCKET:
		fprintf(fp, "%-6s %4u ", pmt_stat_unit_name(s, u), c->ctrs);
		break;
	case PMT_AGGR_THREAD: {
		/* perf's "%*s-%-*d": the comm right-aligned in 16, the TID left in 8 */
		const char *name = pmt_stat_unit_name(s, u), *dash = strrchr(name, '-');
		int cl = dash ? (int)(dash - name) : (int)strlen(name);

		fprintf(fp, "%*s%.*s-%-8s", cl < 16 ? 16 - cl : 0, "", cl, name, dash ? dash + 1 : "");
		break;
	}
	default:
		break;
	}
}

/* perf 7.3 names a tool event after its PMU in -A's lines (tool/duration_time/) */
static const char *event_name(const struct pmt_stat *s, uint32_t e, char *buf, size_t cap)
{
	const struct pmt_count_plan *p = pmt_stat_plan(s);

	if (pmt_evsel_tool(&p->ev.ev[e]) && pmt_stat_aggr(s) == PMT_AGGR_CPU) {
		snprintf(buf, cap, "tool/%s/", p->ev.ev[e].name);
		return buf;
	}
	return pmt_count_display_name(p, e, buf, cap);
}

static size_t event_metrics(const struct pmt_stat_print_opts *po, uint32_t u, uint32_t e,
			    struct pmt_stat_metric *m, size_t cap)
{
	bool has = po->sz >= offsetof(struct pmt_stat_print_opts, metrics_ctx) +
				     sizeof(po->metrics_ctx) && po->metrics;

	return has ? po->metrics(po->metrics_ctx, u, e, m, cap) : 0;
}

/* perf's print_metric_std(): " # ", the value, the unit left in what METRIC_LEN leaves */
static void metric_text(FILE *fp, const struct pmt_stat_metric *m)
{
	int n = fprintf(fp, " # ");

	n += fprintf(fp, m->scaled ? "%8.1f" : "%8.2f", m->val);
	fprintf(fp, " %-*s", METRIC_LEN - n - 1 > 0 ? METRIC_LEN - n - 1 : 0, m->unit);
}

/* the event's metrics: the first after its name, each other on a line of its own below
 * (perf's do_new_line_std(): the unit's columns, then blanks as wide as the counts, unit
 * and name; -A's lines 8 blanks wider, perf's AGGR_NONE indent) */
static void metrics_text(FILE *fp, const struct pmt_stat *s, uint32_t u, uint32_t e, int uw,
			 const char *prefix, const struct pmt_stat_print_opts *po)
{
	struct pmt_stat_metric m[16];
	size_t n = event_metrics(po, u, e, m, sizeof(m) / sizeof(m[0]));

	if (!n) {
		fprintf(fp, "%-*s", METRIC_LEN, "");
		return;
	}
	for (size_t k = 0; k < n; k++) {
		if (k) {
			fprintf(fp, "\n%s", prefix);
			aggr_prefix(fp, s, u, e);
			fprintf(fp, "%*s", COUNTS_LEN + 1 + uw + 1 + EVNAME_LEN +
				(pmt_stat_aggr(s) == PMT_AGGR_CPU ? 8 : 0), "");
		}
		metric_text(fp, &m[k]);
	}
}

static void line_text(FILE *fp, const struct pmt_stat *s, uint32_t u, uint32_t e, int uw,
		      const char *prefix, const struct pmt_stat_print_opts *po)
{
	const struct pmt_count_plan *p = pmt_stat_plan(s);
	const struct pmt_stat_cell *c = pmt_stat_cell(s, u, e);
	char name[sizeof(p->ev.ev[e].name) + 64];
	double sc = p->scale[e];
	uint32_t runs = po->runs;

	fputs(prefix, fp);
	aggr_prefix(fp, s, u, e);
	if (c->counted)
		fprintf(fp, floor(sc) != sc ? "%*.2f " : "%*.0f ", COUNTS_LEN, c->val);
	else
		fprintf(fp, "%*s ", COUNTS_LEN, c->supported ? "<not counted>" : "<not supported>");
	fprintf(fp, "%-*s %-*s", uw, p->unit[e], EVNAME_LEN,
		event_name(s, e, name, sizeof(name)));
	metrics_text(fp, s, u, e, uw, prefix, po);
	if (runs > 1 && c->noise)
		fprintf(fp, "  ( +-%6.2f%% )", c->noise);
	if (c->run != c->ena && c->ena)
		fprintf(fp, "  (%.2f%%)", 100.0 * (double)c->run / (double)c->ena);
	fputc('\n', fp);
}

static void time_prefix(char *buf, size_t cap, const struct pmt_stat_print_opts *po,
			const char *sep)
{
	buf[0] = 0;
	if (po->interval)
		snprintf(buf, cap, po->format == PMT_STAT_CSV ? "%llu.%09llu%s" : "%6llu.%09llu%s",
			 (unsigned long long)(po->time_ns / 1000000000ull),
			 (unsigned long long)(po->time_ns % 1000000000ull),
			 po->format == PMT_STAT_CSV ? sep : " ");
}

static void csv_unit(FILE *fp, const struct pmt_stat *s, uint32_t u, uint32_t e, const char *sep)
{
	const struct pmt_stat_cell *c = pmt_stat_cell(s, u, e);

	if (pmt_stat_aggr(s) == PMT_AGGR_CPU || pmt_stat_aggr(s) == PMT_AGGR_THREAD)
		fprintf(fp, "%s%s", pmt_stat_unit_name(s, u), sep);
	else if (pmt_stat_aggr(s) != PMT_AGGR_GLOBAL)
		fprintf(fp, "%s%s%u%s", pmt_stat_unit_name(s, u), sep, c->ctrs, sep);
}

/* perf's print_metric_csv(): the value without its padding, the unit; an event's other
 * metrics on lines of their own, the count's fields left empty (new_line_csv()) */
static void metrics_csv(FILE *fp, const struct pmt_stat *s, uint32_t u, uint32_t e,
			const char *sep, const char *prefix, const struct pmt_stat_print_opts *po)
{
	struct pmt_stat_metric m[16];
	size_t n = event_metrics(po, u, e, m, sizeof(m) / sizeof(m[0]));

	if (!n) {
		fprintf(fp, "%s%s\n", sep, sep);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		if (k) {
			fprintf(fp, "%s", prefix);
			csv_unit(fp, s, u, e, sep);
			for (int f = 0; f < 4; f++)
				fputs(sep, fp);
		}
		char v[64];
		size_t d = 0;

		snprintf(v, sizeof(v), m[k].scaled ? "%.1f" : "%.2f", m[k].val);
		/* perf keeps the value's leading digits and dots: nan and a sign print empty */
		while ((v[d] >= '0' && v[d] <= '9') || v[d] == '.')
			d++;
		v[d] = 0;
		fprintf(fp, "%s%s%s%s\n", sep, v, sep, m[k].unit);
	}
}

static void line_csv(FILE *fp, const struct pmt_stat *s, uint32_t u, uint32_t e, const char *sep,
		     const char *prefix, const struct pmt_stat_print_opts *po)
{
	const struct pmt_count_plan *p = pmt_stat_plan(s);
	const struct pmt_stat_cell *c = pmt_stat_cell(s, u, e);
	char name[sizeof(p->ev.ev[e].name) + 64];
	double sc = p->scale[e];
	uint32_t runs = po->runs;

	fputs(prefix, fp);
	csv_unit(fp, s, u, e, sep);
	if (c->counted)
		fprintf(fp, floor(sc) != sc ? "%.2f%s" : "%.0f%s", c->val, sep);
	else
		fprintf(fp, "%s%s", c->supported ? "<not counted>" : "<not supported>", sep);
	fprintf(fp, "%s%s%s", p->unit[e], sep, event_name(s, e, name, sizeof(name)));
	if (runs > 1)
		fprintf(fp, "%s%.2f%%", sep, c->noise);
	fprintf(fp, "%s%llu%s%.2f", sep,
		(unsigned long long)c->run, sep,
		c->run != c->ena && c->ena ? 100.0 * (double)c->run / (double)c->ena : 100.0);
	metrics_csv(fp, s, u, e, sep, prefix, po);
}

/* a JSON line's start: its interval and its unit */
static void json_open(FILE *fp, const struct pmt_stat *s, uint32_t u,
		      const struct pmt_stat_print_opts *po)
{
	enum pmt_aggr a = pmt_stat_aggr(s);

	fputc('{', fp);
	if (po->interval)
		fprintf(fp, "\"interval\" : %llu.%09llu, ",
			(unsigned long long)(po->time_ns / 1000000000ull),
			(unsigned long long)(po->time_ns % 1000000000ull));
	if (a == PMT_AGGR_CPU)
		fprintf(fp, "\"cpu\" : \"%s\", ", pmt_stat_unit_name(s, u) + 3);
	else if (a != PMT_AGGR_GLOBAL)
		fprintf(fp, "\"%s\" : \"%s\", ", aggr_key(a), pmt_stat_unit_name(s, u));
}

/* --per-core, --per-die and --per-socket: how many CPUs' counters the unit adds up */
static void json_counters(FILE *fp, const struct pmt_stat *s, uint32_t u, uint32_t e)
{
	enum pmt_aggr a = pmt_stat_aggr(s);

	if (a != PMT_AGGR_GLOBAL && a != PMT_AGGR_CPU && a != PMT_AGGR_THREAD)
		fprintf(fp, "\"counters\" : %u, ", pmt_stat_cell(s, u, e)->ctrs);
}

/* perf's print_metric_json(): the value, its unit and threshold class; an event's other
 * metrics on lines of their own, the unit's keys (with its counters) only */
static void metrics_json(FILE *fp, const struct pmt_stat *s, uint32_t u, uint32_t e,
			 const struct pmt_stat_print_opts *po)
{
	struct pmt_stat_metric m[16];
	size_t n = event_metrics(po, u, e, m, sizeof(m) / sizeof(m[0]));

	for (size_t k = 0; k < n; k++) {
		if (k) {
			json_open(fp, s, u, po);
			json_counters(fp, s, u, e);
		}
		fprintf(fp, "%s\"metric-value\" : \"%f\", \"metric-unit\" : \"%s\"", k ? "" : ", ",
			m[k].val, m[k].unit);
		if (m[k].threshold >= 0)
			fprintf(fp, ", \"metric-threshold\" : \"%s\"", m[k].threshold ? "bad" : "good");
		fputs(k + 1 < n ? "}\n" : "", fp);
	}
	fputs("}\n", fp);
}

static void line_json(FILE *fp, const struct pmt_stat *s, uint32_t u, uint32_t e,
		      const struct pmt_stat_print_opts *po)
{
	const struct pmt_count_plan *p = pmt_stat_plan(s);
	const struct pmt_stat_cell *c = pmt_stat_cell(s, u, e);
	char name[sizeof(p->ev.ev[e].name) + 64];

	json_open(fp, s, u, po);
	json_counters(fp, s, u, e);
	if (c->counted)
		fprintf(fp, "\"counter-value\" : \"%f\", ", c->val);
	else
		fprintf(fp, "\"counter-value\" : \"%s\", ",
			c->supported ? "<not counted>" : "<not supported>");
	fprintf(fp, "\"unit\" : \"%s\", \"event\" : \"%s\", ", p->unit[e],
		event_name(s, e, name, sizeof(name)));
	if (po->runs > 1)
		fprintf(fp, "\"variance\" : %.2f, ", c->noise);
	fprintf(fp, "\"event-runtime\" : %llu, \"pcnt-running\" : %.2f", (unsigned long long)c->run,
		c->run != c->ena && c->ena ? 100.0 * (double)c->run / (double)c->ena : 100.0);
	metrics_json(fp, s, u, e, po);
}

void pmt_stat_print(FILE *fp, const struct pmt_stat *s, const struct pmt_stat_print_opts *po)
{
	const struct pmt_count_plan *p = pmt_stat_plan(s);
	const char *sep = po->sep ? po->sep : ",";
	char prefix[64] = "";
	int uw = 4;
	/* perf prints -A event by event, the other aggregations unit by unit */
	bool event_major = pmt_stat_aggr(s) == PMT_AGGR_CPU || pmt_stat_aggr(s) == PMT_AGGR_GLOBAL ||
			   pmt_stat_aggr(s) == PMT_AGGR_THREAD;
	uint32_t nu = pmt_stat_nr_units(s), ne = p->ev.nr;
	bool skip_zero = po->sz >= offsetof(struct pmt_stat_print_opts, skip_zero) +
					   sizeof(po->skip_zero) && po->skip_zero;

	for (uint32_t e = 0; e < ne; e++)
		if ((int)strlen(p->unit[e]) > uw)
			uw = (int)strlen(p->unit[e]);
	time_prefix(prefix, sizeof(prefix), po, sep);
	if (po->format == PMT_STAT_TEXT && po->interval && po->header)
		header(fp, pmt_stat_aggr(s));
	for (uint32_t i = 0; i < nu * ne; i++) {
		uint32_t u = event_major ? i % nu : i / ne, e = event_major ? i / nu : i % ne;

		/* a hybrid PMU's event has no line for a CPU of the other PMU */
		if ((skip_zero && pmt_stat_cell(s, u, e)->val == 0) || !pmt_stat_cell(s, u, e)->nr)
			continue;
		/* perf 7.3's should_skip_zero_counter(): a tool event's 0 is printed on the
		 * unit of CPU 0 alone (user_time's idle CPU or core has no line) */
		if (pmt_evsel_tool(&p->ev.ev[e]) && pmt_stat_cell(s, u, e)->val == 0 &&
		    pmt_stat_aggr(s) != PMT_AGGR_GLOBAL && pmt_stat_aggr(s) != PMT_AGGR_THREAD &&
		    !pmt_stat_unit_has_cpu(s, u, 0))
			continue;
		if (po->format == PMT_STAT_CSV)
			line_csv(fp, s, u, e, sep, prefix, po);
		else if (po->format == PMT_STAT_JSON)
			line_json(fp, s, u, e, po);
		else
			line_text(fp, s, u, e, uw, prefix, po);
	}
}

/* perf 7.3's aggr_header_lens[]: the indent of --metric-only's text header */
/* perf's metric-only -x and -j keep the value's leading digits and dots only
 * (print_metric_only_csv/json): a negative ratio (Alder Lake's frontend bound less
 * UOP_DROPPING) prints as an empty field, "none" in -j; text keeps the sign */
static const char *metric_only_digits(char buf[64], double v)
{
	size_t n = 0;

	snprintf(buf, 64, "%.1f", v);
	while ((buf[n] >= '0' && buf[n] <= '9') || buf[n] == '.')
		n++;
	buf[n] = 0;
	return buf;
}

static int aggr_header_len(enum pmt_aggr a)
{
	return a == PMT_AGGR_CPU || a == PMT_AGGR_SOCKET ? 6 : a == PMT_AGGR_DIE ? 12
	       : a == PMT_AGGR_CORE ? 18 : 0;
}

/* perf's METRIC_ONLY_LEN: a column is as wide as its head, at least this */
#define METRIC_ONLY_LEN 20

/* the event whose count of CPUs the metric-only line prints (0: the plan's first) */
static uint32_t ctrs_event(const struct pmt_stat *s, const struct pmt_stat_print_opts *po)
{
	bool has = po->sz >= offsetof(struct pmt_stat_print_opts, ctrs_event) +
				     sizeof(po->ctrs_event);

	return has && po->ctrs_event < pmt_stat_plan(s)->ev.nr ? po->ctrs_event : 0;
}

void pmt_stat_print_metric_only(FILE *fp, const struct pmt_stat *s, const char *const *heads,
				uint32_t ncol, const double *val, const uint8_t *cells,
				const struct pmt_stat_print_opts *po)
{
	const char *sep = po->sep ? po->sep : ",";
	enum pmt_aggr a = pmt_stat_aggr(s);
	uint32_t ce = ctrs_event(s, po);
	char prefix[64];

	time_prefix(prefix, sizeof(prefix), po, sep);
	if (po->header && po->format == PMT_STAT_TEXT) {
		if (po->interval)
			header_aggr(fp, a);
		else
			fprintf(fp, "%*s", aggr_header_len(a), "");
		fputc(' ', fp);
		for (uint32_t k = 0; k < ncol; k++)
			fprintf(fp, "%*s ", METRIC_ONLY_LEN, heads[k]);
		fputc('\n', fp);
	} else if (po->header && po->format == PMT_STAT_CSV) {
		if (po->interval)
			fprintf(fp, "time%s", sep);
		if (a == PMT_AGGR_CPU)
			fprintf(fp, "cpu%s", sep);
		else if (a != PMT_AGGR_GLOBAL)
			fprintf(fp, "%s%sctrs%s", aggr_key(a), sep, sep);
		for (uint32_t k = 0; k < ncol; k++)
			fprintf(fp, "%s%s", heads[k], sep);
		fputc('\n', fp);
	}
	for (uint32_t u = 0; u < pmt_stat_nr_units(s); u++) {
		const double *v = val + (size_t)u * ncol;
		const uint8_t *cell = cells ? cells + (size_t)u * ncol : NULL;
		bool first = true;
		uint32_t shown = 0;
		char num[64];

		for (uint32_t k = 0; k < ncol; k++)
			shown += !cell || cell[k] != PMT_MO_SKIP;
		/* a hybrid CPU none of whose PMU's metrics is printed (--cputype of the other
		 * PMU) has no line in perf 7.3 */
		if (ncol && !shown)
			continue;
		if (po->format == PMT_STAT_JSON) {
			json_open(fp, s, u, po);
			/* perf 7.3 counts the CPUs of a core, die or socket here too */
			json_counters(fp, s, u, ce);
			for (uint32_t k = 0; k < ncol; k++) {
				if (cell && cell[k] == PMT_MO_SKIP)
					continue;
				fprintf(fp, "%s\"%s\" : ", first ? "" : ", ", heads[k]);
				first = false;
				if (isnan(v[k]))
					fputs(cell && cell[k] == PMT_MO_RATIO ? "\"none\"" : "\"\"", fp);
				else if (*metric_only_digits(num, v[k]))
					fprintf(fp, "\"%s\"", num);
				else
					fputs("\"none\"", fp);
			}
			fputs("}\n", fp);
			continue;
		}
		fputs(prefix, fp);
		if (po->format == PMT_STAT_CSV) {
			if (a == PMT_AGGR_CPU)
				fprintf(fp, "%s%s", pmt_stat_unit_name(s, u), sep);
			else if (a != PMT_AGGR_GLOBAL)
				fprintf(fp, "%s%s%u%s", pmt_stat_unit_name(s, u), sep,
					pmt_stat_cell(s, u, ce)->ctrs, sep);
			for (uint32_t k = 0; k < ncol; k++) {
				if (cell && cell[k] == PMT_MO_SKIP)
					continue;
				if (!isnan(v[k]))
					fputs(metric_only_digits(num, v[k]), fp);
				fputs(sep, fp);
			}
			fputc('\n', fp);
			continue;
		}
		aggr_prefix(fp, s, u, ce);
		/* perf pads each value ("%8.1f") to the column's width, at least one space */
		for (uint32_t k = 0; k < ncol; k++) {
			int w = (int)strlen(heads[k]);

			if (cell && cell[k] == PMT_MO_SKIP)
				continue;
			if (w < METRIC_ONLY_LEN)
				w = METRIC_ONLY_LEN;
			if (isnan(v[k]) && !(cell && cell[k] == PMT_MO_RATIO))
				fprintf(fp, "%*s", w, "");
			else
				fprintf(fp, "%*s%8.1f", w - 8 > 1 ? w - 8 : 1, "", v[k]);
		}
		fputc('\n', fp);
	}
}
