/* The HTML report's page: one file with inline CSS and SVG drawn here, no script and
 * nothing fetched (a browser offline, or a mail attachment, shows all of it). Numbers are
 * printed and kept in data-* attributes, so a test reads them back without rendering. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/perf_abi.h"
#include "pmutrace/output.h"

#include "hist_priv.h"
#include "html_priv.h"

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;"
	"color:#222;background:#fff;padding:0 1em}\n"
	"h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;border-bottom:1px solid #ccc;"
	"margin-top:1.6em}h3{font-size:1em;margin:.8em 0 .3em}\n"
	"table{border-collapse:collapse;margin:.4em 0}td,th{padding:2px 10px;text-align:left;"
	"border-bottom:1px solid #eee}td.n,th.n{text-align:right;font-variant-numeric:"
	"tabular-nums}\n"
	".meta{color:#555;font-size:.9em}.meta code{word-break:break-all}\n"
	"nav a{margin-right:1em}svg{display:block;width:100%;height:auto;margin:.3em 0}\n"
	"svg text{font:11px monospace;fill:#222}svg text.dso{fill:#777}svg text.ax{fill:#555}\n"
	".bar{fill:#4a7fb5}.bar.k{fill:#b5694a}.mem{fill:#5a9e6f}.tlb{fill:#8e6fb5}"
	".lat{fill:#c9913a}.cpu{fill:#4a7fb5;stroke:none}.loss{fill:#d62728;opacity:.75}"
	".grid{stroke:#ddd}\n"
	".mbar{fill:#2f8f8f}.mtrack{fill:#eef2f2}.rlm{fill:#d9822b}.rld{fill:#999}"
	".mlink{stroke:#aaa;fill:none}svg text.mgroup{font-weight:bold}\n"
	"details{margin:.3em 0}summary{cursor:pointer;font-weight:600}\n"
	".warn{color:#a00}.note{color:#555;font-style:italic}\n";

/* s as HTML text or attribute value; at most max bytes (0: all) cut at a character
 * boundary, with an ellipsis. Control bytes become U+FFFD: no markup can break out. */
static void esc(struct pmt_out *o, const char *s, size_t max)
{
	size_t n = strlen(s), cut = n;

	if (max && n > max) {
		cut = max;
		while (cut && ((unsigned char)s[cut] & 0xc0) == 0x80)
			cut--;
	}
	for (size_t i = 0; i < cut; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '&': pmt_out_str(o, "&amp;"); break;
		case '<': pmt_out_str(o, "&lt;"); break;
		case '>': pmt_out_str(o, "&gt;"); break;
		case '"': pmt_out_str(o, "&quot;"); break;
		case '\'': pmt_out_str(o, "&#39;"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				pmt_out_str(o, "&#xfffd;");
			else
				pmt_out_char(o, (char)c);
		}
	}
	if (cut < n)
		pmt_out_str(o, "&#8230;");
}

void html_esc(struct pmt_out *o, const char *s, size_t max)
{
	esc(o, s, max);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void head(struct pmt_html *h, struct pmt_out *o)
{
	const struct pmt_trace_meta *m = h->meta;

	pmt_out_str(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
		       "<title>pmutrace report: ");
	esc(o, h->title, 0);
	pmt_out_printf(o, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
	pmt_out_str(o, "<h1>pmutrace report</h1>\n<p class=\"meta\">Trace <code>");
	esc(o, h->title, 0);
	pmt_out_str(o, "</code>");
	if (m) {
		const char *what[] = { "host", m->hostname, "kernel", m->osrelease, "arch", m->arch,
				       "perf", m->version, "CPU", m->cpuid, "command", m->cmdline };

		for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i += 2) {
			if (!what[i + 1])
				continue;
			pmt_out_printf(o, " &middot; %s <code>", what[i]);
			esc(o, what[i + 1], 300);
			pmt_out_str(o, "</code>");
		}
	}
	pmt_out_printf(o, " &middot; %s</p>\n<nav><a href=\"#available\">Samples</a>"
		       "<a href=\"#symbols\">Top symbols</a><a href=\"#latency\">Latency</a>"
		       "<a href=\"#memory\">Data source and TLB</a><a href=\"#timeline\">Timeline</a>"
		       "<a href=\"#metrics\">Metrics</a></nav>\n", pmt_version());
}

static void available(struct pmt_html *h, struct pmt_out *o, const struct pmt_spe_rec_stats *st,
		      uint32_t enabled)
{
	char line[256];

	pmt_out_str(o, "<section id=\"available\">\n<h2>Available samples</h2>\n"
		       "<table><tr><th class=\"n\">Samples</th><th>Event</th>"
		       "<th class=\"n\">Period</th></tr>\n");
	for (unsigned ev = 0; ev < PMT_SPE_SE_COUNT; ev++) {
		const char *name = pmt_spe_event_name(ev, h->compat);

		if (!(enabled & (1u << ev)) && !h->count[ev])
			continue;
		pmt_out_str(o, "<tr class=\"avail\" data-event=\"");
		esc(o, name, 0);
		pmt_out_printf(o, "\" data-samples=\"%" PRIu64 "\" data-period=\"%" PRIu64 "\">"
			       "<td class=\"n\">%" PRIu64 "</td><td>", h->count[ev], h->period[ev],
			       h->count[ev]);
		esc(o, name, 0);
		pmt_out_printf(o, "</td><td class=\"n\">%" PRIu64 "</td></tr>\n", h->period[ev]);
	}
	pmt_out_printf(o, "</table>\n<p>%" PRIu64 " SPE records decoded.", h->records);
	if (st && pmt_spe_rec_stats_str(st, line, sizeof(line)) > 0) {
		pmt_out_str(o, " <span class=\"warn\">Damaged AUX data: ");
		esc(o, line, 0);
		pmt_out_str(o, "</span>");
	}
	pmt_out_str(o, "</p>\n</section>\n");
}

/* a horizontal bar chart of hist rows: one SVG per event */
#define ROW_H 18
#define BAR_X 470
#define BAR_W 380
struct bars {
	struct pmt_out *o;
	struct pmt_html *h;
	const char *kind;     /* "sym", "mem", "tlb": the row's class and data-key */
	int only_event;       /* -1: every event */
	int open_event;       /* its chart starts unfolded (instructions too) */
	size_t max_rows;
	uint64_t max_period;
};

static int bar_row(void *ctx, const struct hist_row *r)
{
	struct bars *b = ctx;
	struct pmt_out *o = b->o;
	const char *name = pmt_spe_event_name(r->event, b->h->compat);
	size_t shown = r->n < b->max_rows ? r->n : b->max_rows;
	bool sym = !strcmp(b->kind, "sym");
	double w;

	if (b->only_event >= 0 && r->event != (unsigned)b->only_event)
		return 0;
	if (r->rank == 0) {
		b->max_period = r->period ? r->period : 1;
		if (sym) {
			pmt_out_str(o, "<details");
			if ((int)r->event == b->open_event || r->event == PMT_SPE_SE_INSN)
				pmt_out_str(o, " open");
			pmt_out_printf(o, " data-event=\"%s\" data-samples=\"%" PRIu64 "\" data-entries="
				       "\"%zu\"><summary>%s: %" PRIu64 " sample%s, %zu entr%s</summary>\n",
				       name, r->event_samples, r->n, name, r->event_samples,
				       r->event_samples == 1 ? "" : "s", r->n, r->n == 1 ? "y" : "ies");
		}
		pmt_out_printf(o, "<svg class=\"chart %s\" data-event=\"%s\" viewBox=\"0 0 1000 %zu\" "
			       "role=\"img\" aria-label=\"%s %s\">\n", b->kind, name,
			       shown * ROW_H + 4, b->kind, name);
	}
	w = (double)BAR_W * (double)r->period / (double)b->max_period;
	pmt_out_printf(o, "<g class=\"row %s\" data-event=\"%s\" data-samples=\"%" PRIu64 "\" "
		       "data-period=\"%" PRIu64 "\"", b->kind, name, r->samples, r->period);
	if (sym) {
		pmt_out_str(o, " data-sym=\"");
		esc(o, r->key[0], 0);
		pmt_out_str(o, "\" data-dso=\"");
		esc(o, r->key[1], 0);
		pmt_out_printf(o, "\" data-kernel=\"%d\"", r->kernel);
	} else {
		pmt_out_printf(o, " data-%s=\"", b->kind);
		esc(o, r->key[0], 0);
		pmt_out_char(o, '"');
	}
	pmt_out_printf(o, "><title>%.2f%% (%" PRIu64 " samples)", pct(r->period, r->event_period),
		       r->samples);
	pmt_out_str(o, "</title>\n<text x=\"4\" y=\"");
	pmt_out_u64(o, r->rank * ROW_H + 14);
	pmt_out_str(o, "\">");
	if (sym) {
		pmt_out_str(o, r->kernel ? "[k] " : "[.] ");
		esc(o, r->key[0], 44);
		pmt_out_str(o, "<tspan class=\"dso\"> ");
		esc(o, r->key[1], 16);
		pmt_out_str(o, "</tspan>");
	} else {
		esc(o, r->key[0], 60);
	}
	pmt_out_printf(o, "</text><rect class=\"%s%s\" x=\"%d\" y=\"%zu\" width=\"%.1f\" "
		       "height=\"%d\"/><text x=\"%.1f\" y=\"%zu\">%.2f%% %" PRIu64 "</text></g>\n",
		       sym ? "bar" : b->kind, sym && r->kernel ? " k" : "", BAR_X,
		       r->rank * ROW_H + 3, w < 1 ? 1.0 : w, ROW_H - 4, BAR_X + (w < 1 ? 1.0 : w) + 6,
		       r->rank * ROW_H + 14, pct(r->period, r->event_period), r->samples);
	if (r->rank + 1 == shown)
		pmt_out_str(o, sym ? "</svg>\n</details>\n" : "</svg>\n");
	return 0;
}

/* the event the page's single-event charts show: memory when sampled, else the largest */
static int main_event(const struct pmt_html *h)
{
	int best = -1;

	if (h->count[PMT_SPE_SE_MEMORY])
		return PMT_SPE_SE_MEMORY;
	for (int ev = 0; ev < PMT_SPE_SE_COUNT; ev++)
		if (h->count[ev] && (best < 0 || h->count[ev] > h->count[best]))
			best = ev;
	return best;
}

static int symbols(struct pmt_html *h, struct pmt_out *o)
{
	struct bars b = { o, h, "sym", -1, main_event(h), h->top, 0 };

	pmt_out_printf(o, "<section id=\"symbols\">\n<h2>Top symbols</h2>\n<p class=\"note\">"
		       "Per event, the %u entries of <code>report --sort sym,dso</code> with the "
		       "largest period: overhead and samples.</p>\n", h->top);
	PMT_FORWARD_IF_ERROR(hist_visit(h->sym, h->top, bar_row, &b));
	pmt_out_str(o, "</section>\n");
	return 0;
}

static void latency_chart(struct pmt_html *h, struct pmt_out *o, int kind)
{
	static const char *const names[LAT_KINDS] = { "total", "issue", "translation" };
	const uint64_t *c = h->lat[kind];
	unsigned last = 0;
	uint64_t max = 1;
	double bw;

	for (unsigned i = 0; i < LAT_BUCKETS; i++) {
		if (c[i])
			last = i;
		if (c[i] > max)
			max = c[i];
	}
	bw = 900.0 / (last + 1);
	pmt_out_printf(o, "<h3>%s latency (cycles)</h3>\n<svg class=\"chart lat\" data-kind=\"%s\" "
		       "viewBox=\"0 0 1000 190\" role=\"img\" aria-label=\"%s latency\">\n"
		       "<line class=\"grid\" x1=\"60\" y1=\"160\" x2=\"960\" y2=\"160\"/>"
		       "<text class=\"ax\" x=\"4\" y=\"14\">%" PRIu64 "</text>"
		       "<text class=\"ax\" x=\"4\" y=\"160\">0</text>\n",
		       names[kind], names[kind], names[kind], max);
	for (unsigned i = 0; i <= last; i++) {
		uint64_t lo = i ? 1ULL << (i - 1) : 0, hi = i ? (1ULL << i) - 1 : 0;
		double hgt = 150.0 * (double)c[i] / (double)max;
		double x = 60 + i * bw;

		pmt_out_printf(o, "<g class=\"bucket\" data-lo=\"%" PRIu64 "\" data-hi=\"%" PRIu64
			       "\" data-count=\"%" PRIu64 "\"><title>%" PRIu64 "-%" PRIu64 ": %" PRIu64
			       " records</title><rect class=\"lat\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			       "height=\"%.1f\"/><text class=\"ax\" x=\"%.1f\" y=\"176\">%" PRIu64
			       "</text></g>\n", lo, hi, c[i], lo, hi, c[i], x + 1, 160 - hgt,
			       bw > 3 ? bw - 2 : bw, hgt, x + 1, lo);
	}
	pmt_out_str(o, "</svg>\n");
}

static void latency(struct pmt_html *h, struct pmt_out *o)
{
	pmt_out_printf(o, "<section id=\"latency\">\n<h2>Latency</h2>\n<p class=\"note\">SPE "
		       "records (%" PRIu64 ") per latency, in power-of-two buckets (the label is "
		       "the bucket's lowest value).</p>\n", h->records);
	for (int k = 0; k < LAT_KINDS; k++)
		latency_chart(h, o, k);
	pmt_out_str(o, "</section>\n");
}

static int memory(struct pmt_html *h, struct pmt_out *o)
{
	int ev = main_event(h);
	struct bars b = { o, h, "mem", ev, ev, 64, 0 };

	pmt_out_str(o, "<section id=\"memory\">\n<h2>Data source and TLB</h2>\n");
	if (ev < 0) {
		pmt_out_str(o, "<p class=\"note\">No samples.</p>\n</section>\n");
		return 0;
	}
	pmt_out_printf(o, "<p class=\"note\">Samples of event <b>%s</b> by memory level "
		       "(<code>report --sort mem</code>) and by TLB access (<code>--sort tlb"
		       "</code>).</p>\n<h3>Memory access</h3>\n",
		       pmt_spe_event_name((unsigned)ev, h->compat));
	PMT_FORWARD_IF_ERROR(hist_visit(h->mem, 64, bar_row, &b));
	pmt_out_str(o, "<h3>TLB access</h3>\n");
	b.kind = "tlb";
	PMT_FORWARD_IF_ERROR(hist_visit(h->tlb, 64, bar_row, &b));
	pmt_out_str(o, "</section>\n");
	return 0;
}

static const char *loss_name(const struct loss *l, char *buf, size_t cap)
{
	if (l->kind == LOSS_LOST)
		return "LOST";
	if (l->kind == LOSS_LOST_SAMPLES)
		return "LOST_SAMPLES";
	snprintf(buf, cap, "AUX%s%s%s", l->flags & PMT_AUX_FLAG_TRUNCATED ? " truncated" : "",
		 l->flags & PMT_AUX_FLAG_PARTIAL ? " partial" : "",
		 l->flags & PMT_AUX_FLAG_COLLISION ? " collision" : "");
	return buf;
}

#define TL_X 70
#define TL_W 900
#define TL_ROW 26
static void timeline(struct pmt_html *h, struct pmt_out *o)
{
	uint32_t rows = 0, row = 0, cols = h->hi_bin + 1;
	double colw = (double)TL_W / cols;
	uint64_t span = (uint64_t)cols * (h->width ? h->width : 1);

	for (uint32_t c = 0; c < h->ncpus; c++)
		rows += h->cpu[c] != NULL;
	pmt_out_printf(o, "<section id=\"timeline\">\n<h2>Timeline</h2>\n<p class=\"note\">SPE "
		       "records per CPU over time (%u columns of %.6f s), and the losses the trace "
		       "records in red: AUX data truncated, partial or collided (until the CPU's "
		       "next sample), LOST and LOST_SAMPLES records.</p>\n<table><tr><th>Loss</th>"
		       "<th class=\"n\">Count</th></tr>\n", cols, (double)h->width / 1e9);
	pmt_out_printf(o, "<tr data-loss=\"aux-truncated\" data-count=\"%" PRIu64 "\"><td>AUX "
		       "truncated</td><td class=\"n\">%" PRIu64 "</td></tr>\n"
		       "<tr data-loss=\"aux-partial\" data-count=\"%" PRIu64 "\"><td>AUX partial"
		       "</td><td class=\"n\">%" PRIu64 "</td></tr>\n"
		       "<tr data-loss=\"aux-collision\" data-count=\"%" PRIu64 "\"><td>AUX collision"
		       "</td><td class=\"n\">%" PRIu64 "</td></tr>\n"
		       "<tr data-loss=\"lost\" data-count=\"%" PRIu64 "\"><td>LOST (records)</td>"
		       "<td class=\"n\">%" PRIu64 "</td></tr>\n"
		       "<tr data-loss=\"lost-samples\" data-count=\"%" PRIu64 "\"><td>LOST_SAMPLES"
		       "</td><td class=\"n\">%" PRIu64 "</td></tr>\n</table>\n",
		       h->aux_truncated, h->aux_truncated, h->aux_partial, h->aux_partial,
		       h->aux_collision, h->aux_collision, h->lost_records, h->lost_records,
		       h->lost_samples, h->lost_samples);
	if (h->loss_dropped)
		pmt_out_printf(o, "<p class=\"note\">%" PRIu64 " more losses are counted above but "
			       "not drawn.</p>\n", h->loss_dropped);
	pmt_out_printf(o, "<svg class=\"chart timeline\" viewBox=\"0 0 1000 %u\" role=\"img\" "
		       "aria-label=\"per-CPU timeline\">\n", rows * TL_ROW + 24);
	for (uint32_t c = 0; c < h->ncpus; c++) {
		const uint64_t *b = h->cpu[c] ? h->cpu[c]->bins : NULL;
		uint64_t max = 1;
		unsigned y0 = row * TL_ROW + TL_ROW - 2;

		if (!b)
			continue;
		for (uint32_t i = 0; i < cols; i++)
			if (b[i] > max)
				max = b[i];
		pmt_out_printf(o, "<g class=\"cpurow\" data-cpu=\"%u\" data-records=\"%" PRIu64
			       "\"><title>CPU %u: %" PRIu64 " records, at most %" PRIu64 " per column"
			       "</title><text class=\"ax\" x=\"4\" y=\"%u\">CPU %u</text><path "
			       "class=\"cpu\" d=\"M%d %u", c, h->cpu[c]->records, c, h->cpu[c]->records,
			       max, y0 - 6, c, TL_X, y0);
		for (uint32_t i = 0; i < cols; i++) {
			double v = (TL_ROW - 4) * (double)b[i] / (double)max;

			pmt_out_printf(o, "V%.1fH%.1f", y0 - v, TL_X + (i + 1) * colw);
		}
		pmt_out_printf(o, "V%uZ\"/></g>\n", y0);
		row++;
	}
	for (size_t i = 0; i < h->nloss; i++) {
		const struct loss *l = &h->loss[i];
		char buf[64];
		uint32_t r = 0;
		bool on_row = l->cpu < h->ncpus && h->cpu[l->cpu];
		double x0, x1;

		/* the loss's row: its CPU's, or the whole height when the CPU is not known */
		if (on_row)
			for (uint32_t c = 0; c < l->cpu; c++)
				r += h->cpu[c] != NULL;
		/* nothing decoded before: at the end; nothing after: lost until the end */
		x0 = !l->has_start ? TL_W : l->start < h->t0 ? 0
		     : (double)(l->start - h->t0) / (double)span * TL_W;
		x1 = l->end == UINT64_MAX ? TL_W : l->end < h->t0 ? x0
		     : (double)(l->end - h->t0) / (double)span * TL_W;
		if (x0 > TL_W)
			x0 = TL_W;
		if (x1 > TL_W)
			x1 = TL_W;
		if (x1 < x0)
			x1 = x0;
		pmt_out_printf(o, "<rect class=\"loss\" data-kind=\"%s\" data-cpu=\"%d\"",
			       loss_name(l, buf, sizeof(buf)), l->cpu == UINT32_MAX ? -1 : (int)l->cpu);
		if (l->kind == LOSS_AUX)
			pmt_out_printf(o, " data-stream-end=\"%" PRIu64 "\"", l->stream_end);
		if (l->has_start)
			pmt_out_printf(o, " data-start=\"%" PRIu64 "\"", l->start);
		if (l->end != UINT64_MAX)
			pmt_out_printf(o, " data-end=\"%" PRIu64 "\"", l->end);
		pmt_out_printf(o, " x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"%u\"><title>%s on "
			       "CPU %d at %.6f s: ", TL_X + x0, on_row ? r * TL_ROW + 2 : 0,
			       x1 - x0 < 2 ? 2.0 : x1 - x0, on_row ? TL_ROW - 4 : rows * TL_ROW,
			       loss_name(l, buf, sizeof(buf)), l->cpu == UINT32_MAX ? -1 : (int)l->cpu,
			       l->has_start && l->start >= h->t0 ? (double)(l->start - h->t0) / 1e9
								 : 0.0);
		if (l->kind == LOSS_AUX)
			pmt_out_printf(o, "data stops at AUX offset %#" PRIx64, l->stream_end);
		else
			pmt_out_printf(o, "%" PRIu64 " %s lost", l->amount,
				       l->kind == LOSS_LOST ? "records" : "samples");
		pmt_out_str(o, "</title></rect>\n");
	}
	pmt_out_printf(o, "<text class=\"ax\" x=\"%d\" y=\"%u\">0 s</text><text class=\"ax\" "
		       "x=\"%d\" y=\"%u\" text-anchor=\"end\">%.6f s</text>\n</svg>\n</section>\n",
		       TL_X, rows * TL_ROW + 16, TL_X + TL_W, rows * TL_ROW + 16,
		       (double)span / 1e9);
}

int html_write_page(struct pmt_html *h, struct pmt_out *o, const struct pmt_spe_rec_stats *st,
		    uint32_t enabled)
{
	head(h, o);
	available(h, o, st, enabled);
	PMT_FORWARD_IF_ERROR(symbols(h, o));
	latency(h, o);
	PMT_FORWARD_IF_ERROR(memory(h, o));
	timeline(h, o);
	html_metrics(h, o);
	pmt_out_printf(o, "<p class=\"meta\">Written by %s.</p>\n</body>\n</html>\n",
		       pmt_version());
	return o->err;
}
