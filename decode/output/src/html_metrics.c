/* The HTML report's metric tree (counting and TPEBS recordings) as one SVG chart: each
 * metric a row under its parent with a connector, its value as a bar, and under a metric
 * computed with retire latencies one line per :R event with the latency measured in the
 * trace beside the default of the tables. Numbers are printed on the chart and kept in
 * data-* attributes (html_write.c says why). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"

#include "html_priv.h"

#define MT_X 8          /* a top-level metric's name */
#define MT_INDENT 18    /* per tree level */
#define MT_BAR_X 430
#define MT_BAR_W 330
#define MT_VAL_X (MT_BAR_X + MT_BAR_W + 8)
#define MT_ROW 20
#define MT_RL_ROW 16
#define MT_LEGEND 24
#define MT_DEPTH_MAX 16 /* deeper rows are drawn at this depth (TMA stops at 6) */

static bool same_where(const struct html_metric *a, const struct html_metric *b)
{
	return !strcmp(a->where, b->where);
}

static bool has_retlat(const struct html_metric *m)
{
	return m->nrl || !isnan(m->measured) || !isnan(m->dflt);
}

/* a metric's :R lines: one per event, or one unnamed when only the pair is known */
static size_t retlat_lines(const struct html_metric *m)
{
	return m->nrl ? m->nrl : has_retlat(m);
}

/* A value's share of the bar: a percentage of 100; any other unit against the largest
 * magnitude of that unit on the page (cs/msec and GHz share no scale; one CPU's or
 * interval's value is seen against the others'). */
static double bar_share(const struct html_metric *all, size_t n, size_t i)
{
	const struct html_metric *m = &all[i];
	double max = 0;

	if (isnan(m->value) || m->value <= 0)
		return 0;
	if (!strcmp(m->unit, "%"))
		return m->value >= 100 ? 1 : m->value / 100;
	for (size_t k = 0; k < n; k++)
		if (!strcmp(all[k].unit, m->unit) && !isnan(all[k].value) &&
		    fabs(all[k].value) > max)
			max = fabs(all[k].value);
	return max > 0 ? m->value / max : 0;
}

static void retlat_attrs(struct pmt_out *o, double measured, double dflt)
{
	if (!isnan(measured))
		pmt_out_printf(o, " data-retlat-measured=\"%.6g\"", measured);
	if (!isnan(dflt))
		pmt_out_printf(o, " data-retlat-default=\"%.6g\"", dflt);
}

static void latency_text(struct pmt_out *o, double v)
{
	if (isnan(v))
		pmt_out_str(o, "-");
	else
		pmt_out_printf(o, "%.1f", v);
}

/* one :R event's line: two bars on the page's latency scale, measured over default */
static void retlat_line(struct pmt_out *o, const struct html_metric *m, const char *event,
			double measured, double dflt, unsigned depth, double max, unsigned y)
{
	unsigned x = MT_X + MT_INDENT * (depth + 1);
	double wm = isnan(measured) ? 0 : MT_BAR_W * measured / max;
	double wd = isnan(dflt) ? 0 : MT_BAR_W * dflt / max;

	pmt_out_str(o, "<g class=\"mretlat\" data-metric=\"");
	html_esc(o, m->name, 0);
	pmt_out_str(o, "\" data-event=\"");
	html_esc(o, event, 0);
	pmt_out_char(o, '"');
	retlat_attrs(o, measured, dflt);
	pmt_out_str(o, "><title>");
	html_esc(o, *event ? event : m->name, 0);
	pmt_out_str(o, " retire latency (cycles): measured ");
	latency_text(o, measured);
	pmt_out_str(o, ", default ");
	latency_text(o, dflt);
	pmt_out_str(o, isnan(measured) ? " (the value uses the default)" : "");
	pmt_out_printf(o, "</title><text class=\"ax\" x=\"%u\" y=\"%u\">", x, y + 12);
	html_esc(o, *event ? event : "retire latency", 44);
	pmt_out_printf(o, "</text><rect class=\"rlm\" x=\"%d\" y=\"%u\" width=\"%.1f\" "
		       "height=\"6\"/><rect class=\"rld\" x=\"%d\" y=\"%u\" width=\"%.1f\" "
		       "height=\"6\"/><text class=\"mrl\" x=\"%d\" y=\"%u\">measured ",
		       MT_BAR_X, y + 1, wm, MT_BAR_X, y + 8, wd, MT_VAL_X, y + 12);
	latency_text(o, measured);
	pmt_out_str(o, " / default ");
	latency_text(o, dflt);
	pmt_out_str(o, "</text></g>\n");
}

/* a metric's row; parent_y: the middle of its parent's row (0: a top-level metric) */
static void node(struct pmt_out *o, const struct html_metric *m, unsigned depth,
		 double share, unsigned y, unsigned parent_y)
{
	unsigned x = MT_X + MT_INDENT * depth;
	int max_name = 58 - 3 * (int)depth;

	pmt_out_str(o, "<g class=\"mnode\" data-name=\"");
	html_esc(o, m->name, 0);
	pmt_out_printf(o, "\" data-value=\"%.6g\" data-depth=\"%u\" data-unit=\"", m->value,
		       m->depth);
	html_esc(o, m->unit, 0);
	pmt_out_str(o, "\" data-where=\"");
	html_esc(o, m->where, 0);
	pmt_out_char(o, '"');
	retlat_attrs(o, m->measured, m->dflt);
	pmt_out_str(o, "><title>");
	html_esc(o, m->name, 0);
	pmt_out_printf(o, " = %.6g ", m->value);
	html_esc(o, m->unit, 0);
	if (*m->where) {
		pmt_out_str(o, " (");
		html_esc(o, m->where, 0);
		pmt_out_char(o, ')');
	}
	pmt_out_str(o, "</title>");
	if (parent_y)
		pmt_out_printf(o, "<path class=\"mlink\" d=\"M%u %uV%uH%u\"/>",
			       x - MT_INDENT + 4, parent_y + 17, y + 10, x - 2);
	pmt_out_printf(o, "<text x=\"%u\" y=\"%u\">", x, y + 14);
	html_esc(o, m->name, (size_t)(max_name < 12 ? 12 : max_name));
	pmt_out_str(o, "</text>");
	if (!strcmp(m->unit, "%"))
		pmt_out_printf(o, "<rect class=\"mtrack\" x=\"%d\" y=\"%u\" width=\"%d\" "
			       "height=\"12\"/>", MT_BAR_X, y + 4, MT_BAR_W);
	pmt_out_printf(o, "<rect class=\"mbar\" x=\"%d\" y=\"%u\" width=\"%.1f\" height=\"12\"/>"
		       "<text class=\"mval\" x=\"%d\" y=\"%u\">", MT_BAR_X, y + 4,
		       MT_BAR_W * share, MT_VAL_X, y + 14);
	/* NAN: an event of the expression was not counted (pmutrace metrics' words) */
	if (isnan(m->value)) {
		pmt_out_str(o, "&lt;not counted&gt;");
	} else {
		pmt_out_printf(o, "%.6g ", m->value);
		html_esc(o, m->unit, 0);
	}
	pmt_out_str(o, "</text></g>\n");
}

void html_metrics(struct pmt_html *h, struct pmt_out *o)
{
	const struct html_metric *all = h->metric;
	unsigned height = MT_LEGEND, y = MT_LEGEND;
	unsigned parent_y[MT_DEPTH_MAX + 1];
	double max_rl = 0;

	pmt_out_str(o, "<section id=\"metrics\">\n<h2>Metrics</h2>\n");
	if (!h->nmetric) {
		pmt_out_str(o, "<p class=\"note\" id=\"metrics-none\" data-metrics=\"0\">This trace "
			       "carries no counter values or retire latencies (TPEBS): no metric "
			       "rows.</p>\n</section>\n");
		return;
	}
	for (size_t i = 0; i < h->nmetric; i++) {
		const struct html_metric *m = &all[i];

		height += MT_ROW + MT_RL_ROW * (unsigned)retlat_lines(m);
		if (!i || !same_where(m, &all[i - 1]))
			height += *m->where ? MT_ROW : 0;
		for (size_t k = 0; k < m->nrl; k++)
			max_rl = fmax(max_rl, fmax(isnan(m->rl[k].measured) ? 0 : m->rl[k].measured,
						   isnan(m->rl[k].dflt) ? 0 : m->rl[k].dflt));
		max_rl = fmax(max_rl, fmax(isnan(m->measured) ? 0 : m->measured,
					   isnan(m->dflt) ? 0 : m->dflt));
	}
	pmt_out_str(o, "<p class=\"note\">Each metric under the one whose group it belongs to; "
		       "the bar is a percentage of 100, or for other units the value against the "
		       "largest of its unit on the page.");
	/* the latency legend only where a metric has latencies (a counting recording's have
	 * none) */
	if (max_rl > 0)
		pmt_out_printf(o, " A metric computed with retire latencies (TPEBS) has a line "
			       "per <code>:R</code> event: the latency measured in this trace and "
			       "the default of the event tables, in cycles, on one scale (%.1f "
			       "cycles full width).", max_rl);
	pmt_out_printf(o, "</p>\n<svg class=\"chart mtree\" data-metrics=\"%zu\" viewBox=\"0 0 "
		       "1000 %u\" role=\"img\" aria-label=\"metric tree\">\n", h->nmetric,
		       height + 4);
	if (max_rl > 0)
		pmt_out_printf(o, "<rect class=\"rlm\" x=\"%d\" y=\"6\" width=\"14\" height=\"6\"/>"
			       "<text class=\"ax\" x=\"%d\" y=\"13\">retire latency measured"
			       "</text><rect class=\"rld\" x=\"%d\" y=\"6\" width=\"14\" "
			       "height=\"6\"/><text class=\"ax\" x=\"%d\" y=\"13\">default</text>\n",
			       MT_BAR_X, MT_BAR_X + 20, MT_BAR_X + 190, MT_BAR_X + 210);
	else
		max_rl = 1;
	for (size_t first = 0, end; first < h->nmetric; first = end) {
		for (end = first + 1; end < h->nmetric && same_where(&all[end], &all[first]); end++)
			;
		memset(parent_y, 0, sizeof(parent_y));
		if (*all[first].where) {
			pmt_out_printf(o, "<text class=\"mgroup\" x=\"4\" y=\"%u\">", y + 14);
			html_esc(o, all[first].where, 0);
			pmt_out_str(o, "</text>\n");
			y += MT_ROW;
		}
		for (size_t i = first; i < end; i++) {
			const struct html_metric *m = &all[i];
			unsigned d = m->depth > MT_DEPTH_MAX ? MT_DEPTH_MAX : m->depth;

			/* a row deeper than the one before it (a table that skips a level)
			 * hangs from the last row drawn */
			node(o, m, d, bar_share(all, h->nmetric, i), y, d ? parent_y[d - 1] : 0);
			for (unsigned k = d; k <= MT_DEPTH_MAX; k++)
				parent_y[k] = y;
			y += MT_ROW;
			for (size_t k = 0; k < m->nrl; k++, y += MT_RL_ROW)
				retlat_line(o, m, m->rl[k].event, m->rl[k].measured, m->rl[k].dflt, d,
					    max_rl, y);
			if (!m->nrl && has_retlat(m)) {
				retlat_line(o, m, "", m->measured, m->dflt, d, max_rl, y);
				y += MT_RL_ROW;
			}
		}
	}
	pmt_out_str(o, "</svg>\n</section>\n");
}
