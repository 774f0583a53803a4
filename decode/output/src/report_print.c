/* perf report --stdio's layout of a pmt_hist: entries sorted as perf sorts them, the
 * columns' widths, the text and the CSV/JSON data (tools/perf/util/sort.c, hist.c,
 * ui/stdio/hist.c); hist_visit() for the HTML report. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"

#include "callgraph.h"
#include "hist_priv.h"
#include "hist_srcline.h"
#include "hist_table.h"
#include "hist_sort.h"

static const char *const key_headers[KEY_COUNT] = { "Symbol", "Shared Object", "Command",
						    "CPU", "Memory access", "Snoop",
						    "TLB access", "    Pid:Command",
						    "Source:Line", "Source File" };
/* perf's fixed widths of the memory columns (hists__calc_col_len) */
static const unsigned key_min_width[KEY_COUNT] = { 0, 0, 0, 0, 39, 12, 22, 0, 0, 0 };

/* perf's output order: period down; then each key's se_sort (named before unnamed, names
 * and CPUs ascending); then, for entries equal in every key, the address (the order of
 * perf's input tree, sort__sym_cmp): hist_key_order() in report_sort.c */

/* the Children columns: perf's --children with call chains */
static bool hist_children(const struct pmt_hist *h)
{
	return h->cg && h->cg->children;
}

/* an event's entries: period down (Children's, then Self's with --children), then the
 * keys' order (the rank) */
struct ranked {
	uint64_t period;
	uint64_t self;
	int64_t depth;          /* with --children: the caller first among equal periods */
	int32_t tid;
	uint32_t rank;
	bool chains;
	struct hent *e;
};

static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	/* perf's __hpp__sort_acc: entries of one thread with call graphs, by the depth of
	 * their deepest chain */
	if (a->chains && b->chains && a->tid == b->tid && a->depth != b->depth)
		return a->depth > b->depth ? -1 : 1;
	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static char *put_str(char *p, const char *s, const char *end)
{
	size_t n = strlen(s);

	if (n > (size_t)(end - p))
		n = (size_t)(end - p);
	memcpy(p, s, n);
	return p + n;
}

/* the text of one column of an entry (buf has cap >= 64 bytes); returns its length */
static int cell(const struct pmt_hist *h, const struct hent *e, enum key k, unsigned ev,
		char *buf, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	char *p = buf, *end = buf + cap - 1;

	switch (k) {
	case KEY_SYM:
		memcpy(p, e->kernel_ev & (1u << ev) ? "[k] " : "[.] ", 4);
		p += 4;
		if (!e->sym) {
			/* perf's "%-#.*llx" with 16 digits: no 0x before a zero */
			if (e->ip) {
				*p++ = '0';
				*p++ = 'x';
			}
			for (int sh = 60; sh >= 0; sh -= 4)
				*p++ = hex[(e->ip >> sh) & 15];
			break;
		}
		p = put_str(p, e->sym, end);
		if (e->inlined)
			p = put_str(p, " (inlined)", end);
		if (e->object)
			p += snprintf(p, (size_t)(end - p) + 1, "+0x%" PRIx64,
				      hent_ev_seen(h, e, ev)->objoff);
		break;
	case KEY_DSO:
		p = put_str(p, e->dso ? e->dso : "[unknown]", end);
		break;
	case KEY_COMM:
		p = put_str(p, h->comms + e->comm, end);
		break;
	case KEY_CPU:
		/* perf's "%*.*d" of width 3: a sample without a CPU is -1, "-001", wider than
		 * the column, which perf does not widen for it */
		p += snprintf(p, cap, "%.3d", (int)e->cpu);
		break;
	case KEY_PID:
		/* perf's "%7d:%-*.*s": the padding is every column's */
		p += snprintf(p, cap, "%7d:", (int)e->tid);
		p = put_str(p, h->comms + e->comm, end);
		break;
	case KEY_MEM:
		p += pmt_mem_lvl_str(hent_ev_seen(h, e, ev)->dsrc, h->compat, p,
				     (size_t)(end - p) + 1);
		break;
	case KEY_SNOOP:
		p += pmt_mem_snoop_str(hent_ev_seen(h, e, ev)->dsrc, p,
				       (size_t)(end - p) + 1);
		break;
	case KEY_TLB:
		p += pmt_mem_tlb_str(hent_ev_seen(h, e, ev)->dsrc, p, (size_t)(end - p) + 1);
		break;
	case KEY_SRCLINE:
		p = put_str(p, e->srcline, end);
		break;
	case KEY_SRCFILE:
		p = put_str(p, e->srcfile, end);
		break;
	default:
		break;
	}
	if (p > end)
		p = end;
	*p = 0;
	return (int)(p - buf);
}

/* the lines of an entry a row reads (names, flags and address, its counts' index): the
 * rows come in the period's order, scattered over the entries (~200 bytes each) */
static inline void prefetch_entry(const struct hent *e, unsigned ev)
{
	__builtin_prefetch(&e->sym);
	__builtin_prefetch(&e->nosym_first);
	__builtin_prefetch(&e->ev_at[ev]);
}

/* hists__calc_col_len: the header, the widest entry (a symbol counts without an object's
 * offset), 22 for an unresolved symbol, and 16 for the DSO column when an entry's (first)
 * sample had no symbol, whatever the keys, unless a --dsos list is given. The header's
 * and the fixed widths (n: the event's entries): */
static size_t col_base_width(const struct pmt_hist *h, size_t n, enum key k)
{
	/* the memory-access column: 24 wide in perf 6.1, 39 in 7.3 (the release between
	 * that widened it for the level numbers and hops is not pinned here) */
	size_t min = k == KEY_MEM && h->compat < 700 ? 24 : key_min_width[k];

	/* the memory columns' widths come with an entry's data source: none shown, none */
	if (!n)
		min = 0;
	return strlen(key_headers[k]) > min ? strlen(key_headers[k]) : min;
}

/* an entry's (buf: scratch of cap >= 64) */
static size_t cell_width(const struct pmt_hist *h, const struct hent *e, enum key k, unsigned ev,
			 char *buf, size_t cap)
{
	size_t l;

	if (k == KEY_CPU)
		l = 3;
	else if (k == KEY_SYM)
		l = e->sym ? strlen(e->sym) + 4 : 22;
	else if (k == KEY_COMM)
		l = e->comm_width;
	else if (k == KEY_DSO)
		l = strnlen(e->dso ? e->dso : "[unknown]", cap - 1); /* cell()'s, not made */
	else
		l = (size_t)cell(h, e, k, ev, buf, cap);
	/* hists__set_unres_dso_col_len: not with a --dsos list */
	if (k == KEY_DSO && (e->nosym_first & (1u << ev)) && l < 16 && !h->dso_list)
		l = 16;
	return l;
}

static unsigned col_width(const struct pmt_hist *h, struct hent **v, size_t n, enum key k,
			  unsigned ev)
{
	size_t w = col_base_width(h, n, k);
	char buf[4096];

	for (size_t i = 0; i < n; i++) {
		size_t l;

		if (i + 8 < n)
			prefetch_entry(v[i + 8], ev);
		l = cell_width(h, v[i], k, ev, buf, sizeof(buf));
		if (l > w)
			w = l;
	}
	return (unsigned)w;
}

/* perf 6.1 looks an entry's srcline or srcfile up when a comparison first needs it
 * (sort__srcline_cmp, sort__srcfile_cmp: after the keys before it compared equal) and
 * sizes the column by the texts looked up when each entry went into the output tree
 * (hists__calc_col_len counts only a text it has), then prints every text cut to that
 * width ("%-.*s"). An entry's insertion compares it with the entries next to it in the
 * keys' order, so a text is looked up by then when another entry has the keys before it
 * equal ("sym,srcline --no-children": a function of one line is not, "cpu-features.c"
 * for cpu-features.c:305). The column's width: */
static const struct pmt_hist *lazy_hist; /* qsort's context: the table and the keys */
static unsigned lazy_keys;               /* before the column */

static int lazy_cmp(const void *a, const void *b)
{
	const struct hent *l = *(struct hent *const *)a, *r = *(struct hent *const *)b;
	int64_t c = 0;

	for (unsigned i = 0; i < lazy_keys && !c; i++)
		c = hist_perf_key_cmp(lazy_hist, lazy_hist->keys[i], l, r);
	return c < 0 ? -1 : c > 0;
}

/* whether perf 6.1 added entry e more than once (a second sample at another address of
 * its line, or the same one): the second add's comparisons with it reach its text too, as
 * a search reaches an entry the new one would sit next to (get_common_indices' two
 * samples of cpu-features.c:332, and with Children a libc caller alone under its symbol,
 * gave perf 6.1's column those widths). The adds: its own samples, with Children also
 * those it is a caller in. */
static bool added_twice(const struct pmt_hist *h, const struct hent *e, unsigned ev)
{
	const uint32_t xi = hent_ev_at(h, e, ev);
	const struct cg_ev *cx = hist_children(h) ? cg_ev_of(h->cg, xi) : NULL;

	return cx ? cx->acc_nr >= 2 : h->ev[xi].nr >= 2;
}

static unsigned lazy_text_width(struct pmt_hist *h, struct hent **v, size_t n, unsigned col,
				unsigned ev)
{
	size_t w = col_base_width(h, n, h->keys[col]);
	struct hent **s = n ? malloc(n * sizeof(*s)) : NULL;
	char buf[4096];

	if (!s)
		return (unsigned)w; /* out of memory: the header's width, the texts cut */
	memcpy(s, v, n * sizeof(*s));
	lazy_hist = h;
	lazy_keys = col;
	qsort(s, n, sizeof(*s), lazy_cmp);
	for (size_t i = 0; i < n; i++) {
		size_t l;

		if (!(i && !lazy_cmp(&s[i - 1], &s[i])) && !(i + 1 < n && !lazy_cmp(&s[i], &s[i + 1])) &&
		    !added_twice(h, s[i], ev)) {
			/* looked up as it is printed, after every sample: a file perf 6.1 cut off
			 * by then gives no line (hist_src_count61; a libc sample of the exit
			 * handlers alone under its symbol, late in a -g recording) */
			if (h->cut61 && s[i]->dso_id &&
			    hist_src_cut61(h->src, s[i]->dso_id, s[i]->ip, &s[i]->srcline,
					   &s[i]->srcfile) < 0)
				break; /* out of memory: the line kept */
			continue;
		}
		l = (size_t)cell(h, s[i], h->keys[col], ev, buf, sizeof(buf));
		if (l > w)
			w = l;
	}
	free(s);
	return (unsigned)w;
}

/* whether column col is a text perf 6.1 looks up lazily (lazy_text_width): not a srcline
 * where the entries of a Children report take their chain node's line (-g srcline and -g
 * address: fill_callchain_info's al->srcline) */
static bool lazy_text(const struct pmt_hist *h, unsigned col)
{
	if (!h->compat || h->compat >= 602 || !col)
		return false;
	if (h->keys[col] == KEY_SRCLINE)
		return !(hist_children(h) && h->cg->key != CG_KEY_FUNCTION);
	return h->keys[col] == KEY_SRCFILE;
}

/* perf's hists__total_period(): what the percentages are of, the whole file's unless
 * --percentage relative; perf mem report's the weight's */
static uint64_t hist_total(const struct pmt_hist *h, unsigned ev)
{
	if (h->mem_mode)
		return h->relative ? h->total_weight[ev] : h->whole_weight[ev];
	return h->relative ? h->total_period[ev] : h->whole_period[ev];
}

/* perf's hists__fprintf_nr_sample_events(): the header's sample count, the same way */
static uint64_t hist_samples(const struct pmt_hist *h, unsigned ev)
{
	return h->relative ? h->nr_samples[ev] : h->whole_samples[ev];
}

/* --percent-limit leaves the entry out (perf's hist_entry__get_percent_limit: a float of
 * its share, Children's with them); the columns stay as wide as for every entry */
static bool below_limit(const struct pmt_hist *h, const struct hent *e, unsigned ev)
{
	uint32_t xi = hent_ev_at(h, e, ev);
	const struct cg_ev *cx = cg_ev_of(h->cg, xi);
	uint64_t tot = hist_total(h, ev);
	uint64_t p = h->mem_mode ? h->ev[xi].weight : h->ev[xi].period;

	if (!(h->percent_limit > 0))
		return false;
	if (hist_children(h))
		p = cx ? cx->acc_period : 0;
	return (tot ? (float)((double)p * 100.0 / (double)tot) : 0) < h->percent_limit;
}

/* widest: each key's widest entry in the event (by keys[] position), or NULL */
static void print_event(struct pmt_hist *h, struct pmt_out *out, unsigned ev, int compat,
			struct hent **v, size_t n, const unsigned *widest)
{
	unsigned width[KEY_COUNT], last = 0;
	const uint32_t elided = hist_elided(h);
	uint64_t nr = hist_samples(h, ev);
	uint64_t total = hist_total(h, ev);
	char unit = ' ';
	char buf[4096], name[128];
	/* perf report's children column: SPE's synthetic samples have it when they are the
	 * trace's only samples (checked with perf 6.1 and 7.3), samples without a callchain
	 * not */
	const bool spe_children = ev < PMT_SPE_SE_COUNT && !pmt_trace_has_own_samples(h->slots.meta);
	const bool children = spe_children || hist_children(h);

	if (nr > 1000) {
		nr /= 1000;
		unit = 'K';
	}
	if (nr > 1000) {
		nr /= 1000;
		unit = 'M';
	}
	/* perf's hists__fprintf_nr_sample_events() names the --time given */
	pmt_out_printf(out, "# Samples: %" PRIu64 "%c of event '%s'%s%s%s\n", nr, unit,
		       pmt_ev_slot_name(&h->slots, ev, compat, name, sizeof(name)),
		       h->time_slices ? " (time slices: " : "",
		       h->time_slices ? h->time_slices : "", h->time_slices ? ")" : "");
	if (h->mem_mode) {
		/* perf mem report: overhead of the weight (SPE's total latency), and samples */
		pmt_out_printf(out, "# Total weight : %" PRIu64 "\n# Sort order   : ", total);
		for (unsigned k = 0; k < h->nkeys; k++)
			pmt_out_printf(out, "%s%s", k ? "," : "", hist_key_names[h->keys[k]]);
		pmt_out_str(out, "\n#\n# Overhead       Samples");
	} else {
		pmt_out_printf(out, "# Event count (approx.): %" PRIu64 "\n#\n", total);
		pmt_out_str(out, children ? "# Children      Self" : "# Overhead");
	}
	for (unsigned i = 0; i < h->nkeys; i++) {
		if (elided & (1u << i))
			continue;
		last = i;
		if (widest) {
			size_t base = col_base_width(h, n, h->keys[i]);

			width[i] = widest[i] > base ? widest[i] : (unsigned)base;
		} else {
			width[i] = col_width(h, v, n, h->keys[i], ev);
		}
		if (lazy_text(h, i))
			width[i] = lazy_text_width(h, v, n, i, ev);
		pmt_out_printf(out, "  %-*s", width[i], key_headers[h->keys[i]]);
	}
	pmt_out_str(out, h->mem_mode ? "\n# ........  ............"
				     : children ? "\n# ........  ........" : "\n# ........");
	for (unsigned i = 0; i < h->nkeys; i++) {
		if (elided & (1u << i))
			continue;
		pmt_out_str(out, "  ");
		for (unsigned j = 0; j < width[i]; j++)
			pmt_out_char(out, '.');
	}
	pmt_out_str(out, "\n#\n");
	for (size_t i = 0; i < n; i++) {
		uint32_t xi = hent_ev_at(h, v[i], ev);
		const struct hent_ev *x = &h->ev[xi];
		const struct cg_ev *cx = cg_ev_of(h->cg, xi);
		uint64_t p = h->mem_mode ? x->weight : x->period;
		char pb[40];

		/* the entries come in the period's order, scattered in memory: their loads
		 * were most of the time printing took; an entry ahead, then its counts */
		if (i + 8 < n)
			prefetch_entry(v[i + 8], ev);
		if (i + 4 < n)
			__builtin_prefetch(&h->ev[hent_ev_at(h, v[i + 4], ev)]);
		const char *pt = pb;

		if (below_limit(h, v[i], ev))
			continue;
		if (hist_children(h)) {
			uint64_t acc = cx ? cx->acc_period : 0;
			double cpct = total ? 100.0 * (double)acc / (double)total : 0;

			/* perf 7.3 prints a Children share of 1000% or more (srcline entries
			 * merged, each caller counted per address) a space further right */
			snprintf(pb, sizeof(pb), cpct >= 999.995 ? "   %7.2f%%  %7.2f%%"
								 : "  %7.2f%%  %7.2f%%",
				 cpct, total ? 100.0 * (double)p / (double)total : 0);
		} else if (h->mem_mode) {
			double pct = total ? 100.0 * (double)p / (double)total : 0;

			snprintf(pb, sizeof(pb), "  %7.2f%%  %12u", pct, x->nr);
		} else if (p < 64 && h->pct_text[ev][p][0]) {
			pt = h->pct_text[ev][p];
		} else {
			double pct = total ? 100.0 * (double)p / (double)total : 0;

			if (children)
				snprintf(pb, sizeof(pb), "  %7.2f%%  %7.2f%%", pct, pct);
			else
				snprintf(pb, sizeof(pb), "  %7.2f%%", pct);
			/* a cached text is at most 21 bytes: "  %7.2f%%  %7.2f%%" of <= 100% */
			if (p < 64 && strlen(pb) < sizeof(h->pct_text[ev][p]))
				memcpy(h->pct_text[ev][p], pb, strlen(pb) + 1);
		}
		pmt_out_str(out, pt);
		for (unsigned c = 0; c < h->nkeys; c++) {
			if (elided & (1u << c))
				continue;
			/* perf pads every column but a symbol or source text in the last one
			 * (their "%-.*s") */
			const bool unpadded = h->keys[c] == KEY_SYM || h->keys[c] == KEY_SRCLINE ||
					      h->keys[c] == KEY_SRCFILE;
			char *at;
			int l, pad;

			/* the cell is made in the output itself: copied from a buffer, each
			 * cell's copy (rep movs of ~20 bytes) was a fifth of this function */
			pmt_out_reserve(out, sizeof(buf) + width[c] + 2);
			at = out->buf + out->len;
			at[0] = at[1] = ' ';
			l = cell(h, v[i], h->keys[c], ev, at + 2, sizeof(buf));
			if ((h->keys[c] == KEY_COMM || lazy_text(h, c)) && l > (int)width[c])
				l = (int)width[c]; /* perf's "%-*.*s", "%-.*s" */
			pad = unpadded && c == last ? 0 : (int)width[c] - l;
			if (pad > 0)
				memset(at + 2 + l, ' ', (size_t)pad);
			out->len += 2 + (size_t)l + (pad > 0 ? (size_t)pad : 0);
		}
		pmt_out_char(out, '\n');
		if (h->cg)
			cg_print(h->cg, cx, h->whole_period[ev], total,
				 h->cg->children ? (cx ? cx->acc_period : 0) : p, out);
	}
	pmt_out_str(out, "\n\n");
}

/* one entry's key values as JSON members or CSV cells */
static void put_keys(const struct pmt_hist *h, const struct hent *e, unsigned ev,
		     struct pmt_out *out, int json)
{
	char buf[4096];

	for (unsigned c = 0; c < h->nkeys; c++) {
		cell(h, e, h->keys[c], ev, buf, sizeof(buf));
		if (json) {
			pmt_out_printf(out, ",\"%s\":", hist_key_names[h->keys[c]]);
			if (h->keys[c] == KEY_CPU)
				pmt_out_printf(out, "%d", (int)e->cpu);
			else if (h->keys[c] == KEY_PID)
				pmt_out_printf(out, "%d", (int)e->tid);
			else
				pmt_out_json_str(out, h->keys[c] == KEY_SYM ? buf + 4 : buf);
			if (h->keys[c] == KEY_SYM)
				pmt_out_printf(out, ",\"kernel\":%s",
				       e->kernel_ev & (1u << ev) ? "true" : "false");
		} else if (h->keys[c] == KEY_PID) {
			pmt_out_printf(out, ",%d", (int)e->tid);
		} else {
			pmt_out_char(out, ',');
			pmt_out_csv_str(out, h->keys[c] == KEY_SYM ? buf + 4 : buf);
			if (h->keys[c] == KEY_SYM)
				pmt_out_str(out, e->kernel_ev & (1u << ev) ? ",1" : ",0");
		}
	}
}

/* An event's entry with samples there (without Children), and its period or weight */
struct flat_item {
	uint32_t e;
	uint64_t key;
};

static inline bool flat_has(const struct pmt_hist *h, const struct hent *e, unsigned ev,
			    uint64_t *key)
{
	uint32_t xi = hent_ev_at(h, e, ev);
	const struct hent_ev *x = &h->ev[xi];
	const struct cg_ev *c = cg_ev_of(h->cg, xi);

	*key = h->mem_mode ? x->weight : x->period;
	return x->nr || (c && c->acc_period);
}

/* Without Children: each event's entries with samples there, by period down, then rank
 * (rank_of: every entry's place in the keys' order). Two passes over the entries in memory
 * order (~200 bytes each) collect them all, where a pass per event read every entry again
 * (10 events, 50k entries of unresolved addresses: 5% of a symbolized report) */
static int flat_events(struct pmt_hist *h, int (*fn)(struct pmt_hist *h, unsigned ev,
						     struct hent **v, size_t n,
						     const unsigned *widest, void *ctx),
		       void *ctx, bool widths, struct hent **w, uint32_t *ord, uint32_t *tmp, uint64_t *key,
		       const uint64_t *rank_of)
{
	unsigned order[HIST_SLOTS], no = pmt_ev_slot_order(&h->slots, order);
	size_t off[HIST_SLOTS + 1] = { 0 }, at[HIST_SLOTS];
	/* the columns' widths, in this pass over the entries in memory order: a pass per
	 * column over the printed order read each entry again from anywhere in the table */
	unsigned widest[HIST_SLOTS][KEY_COUNT] = { { 0 } };
	char buf[4096];
	struct flat_item *items;
	uint64_t k;
	int rc = 0;

	for (size_t i = 0; i < h->n; i++)
		for (unsigned o = 0; o < no; o++)
			off[o + 1] += hent_ev_at(h, &h->e[i], order[o]) &&
				      flat_has(h, &h->e[i], order[o], &k);
	for (unsigned o = 0; o < no; o++) {
		off[o + 1] += off[o];
		at[o] = off[o];
	}
	items = malloc((off[no] ? off[no] : 1) * sizeof(*items));
	if (!items)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < h->n; i++)
		for (unsigned o = 0; o < no; o++)
			if (hent_ev_at(h, &h->e[i], order[o]) &&
			    flat_has(h, &h->e[i], order[o], &k)) {
				items[at[o]++] = (struct flat_item){ (uint32_t)i, k };
				for (unsigned c = 0; widths && c < h->nkeys; c++) {
					size_t l = cell_width(h, &h->e[i], h->keys[c], order[o],
							      buf, sizeof(buf));

					if (l > widest[o][c])
						widest[o][c] = (unsigned)l;
				}
			}
	for (unsigned o = 0; o < no && rc >= 0; o++) {
		const size_t m = off[o + 1] - off[o];

		/* perf prints the header of an event whose samples --pid/--tid all hid */
		if (!h->whole_samples[order[o]])
			continue;
		for (size_t j = 0; j < m; j++) {
			ord[j] = items[off[o] + j].e;
			key[ord[j]] = items[off[o] + j].key;
		}
		hist_sort_asc(ord, tmp, m, rank_of);
		hist_sort_desc(ord, tmp, m, key);
		for (size_t j = 0; j < m; j++)
			w[j] = &h->e[ord[j]];
		rc = fn(h, order[o], w, m, widths ? widest[o] : NULL, ctx);
	}
	free(items);
	return rc;
}

/* the entries of every event, sorted as perf sorts them: fn(event, sorted entries, n,
 * widest); fn returning < 0 stops. widths: the text's column widths wanted, given to fn
 * where they come cheaply (widest; else NULL) */
static int each_event(struct pmt_hist *h, int (*fn)(struct pmt_hist *h, unsigned ev,
						    struct hent **v, size_t n,
						    const unsigned *widest, void *ctx),
		      void *ctx, bool widths)
{
	const size_t n = h->n, cap = n ? n : 1;
	struct hent **w = malloc(cap * sizeof(*w));
	/* only --children compares entries (~5 MB for 120k entries: page faults) */
	struct ranked *r = hist_children(h) ? malloc(cap * sizeof(*r)) : NULL;
	uint32_t *ord = malloc(cap * sizeof(*ord)), *tmp = malloc(cap * sizeof(*tmp));
	uint32_t *byrank = malloc(cap * sizeof(*byrank));
	uint64_t *key = malloc(cap * sizeof(*key));
	int rc = 0;

	if (!w || (!r && hist_children(h)) || !ord || !tmp || !byrank || !key ||
	    hist_key_order(h, ord, tmp, key) < 0) {
		rc = -PMT_ENOMEM;
		goto out;
	}
	/* the keys' order once (strings ranked there only), then each event by period */
	if (!hist_children(h)) {
		uint64_t *rank_of = malloc(cap * sizeof(*rank_of));

		if (!rank_of) {
			rc = -PMT_ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			rank_of[ord[i]] = i;
		rc = flat_events(h, fn, ctx, widths, w, ord, tmp, key, rank_of);
		free(rank_of);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		h->e[ord[i]].rank = (uint32_t)i;
	unsigned order[HIST_SLOTS], no = pmt_ev_slot_order(&h->slots, order);

	for (unsigned k = 0; k < no && rc >= 0; k++) {
		unsigned ev = order[k];
		size_t m = 0;

		/* perf prints the header of an event whose samples --pid/--tid all hid */
		if (!h->whole_samples[ev])
			continue;
		/* in memory order (the ranks order them): the entries and their counts,
		 * made in the same order, are read in a stream */
		for (size_t i = 0; i < n; i++) {
			struct hent *e = &h->e[i];
			uint32_t xi = hent_ev_at(h, e, ev);
			const struct hent_ev *x = &h->ev[xi];
			const struct cg_ev *c = cg_ev_of(h->cg, xi);
			struct ranked *q = r ? &r[m] : NULL; /* r: only with Children */
			bool has = x->nr || (c && c->acc_period);

			if (!hist_children(h)) {
				/* period down, then rank: a stable sort by period of the
				 * entries taken in rank order */
				key[i] = h->mem_mode ? x->weight : x->period;
				byrank[e->rank] = has ? (uint32_t)i : UINT32_MAX;
				continue;
			}
			if (!has)
				continue;
			*q = (struct ranked){ .period = c ? c->acc_period : 0,
					      .self = h->mem_mode ? x->weight : x->period,
					      .rank = e->rank, .e = e,
					      .chains = h->cg->mode != CG_NONE && c,
					      .tid = c ? c->tid : 0,
					      .depth = c ? c->max_depth : 0 };
			if (h->cg->order == CG_CALLEE)
				q->depth = -q->depth;
			m++;
		}
		if (hist_children(h)) {
			qsort(r, m, sizeof(*r), cmp_ranked);
			for (size_t i = 0; i < m; i++)
				w[i] = r[i].e;
		} else {
			for (size_t i = 0; i < n; i++)
				if (byrank[i] != UINT32_MAX)
					ord[m++] = byrank[i];
			hist_sort_desc(ord, tmp, m, key);
			for (size_t i = 0; i < m; i++)
				w[i] = &h->e[ord[i]];
		}
		rc = fn(h, ev, w, m, NULL, ctx);
	}
out:
	free(w);
	free(r);
	free(ord);
	free(tmp);
	free(byrank);
	free(key);
	return rc < 0 ? rc : 0;
}

struct print_ctx {
	struct pmt_out *out;
	int compat;
	enum pmt_sink_format fmt;
	unsigned nev;
};

static int print_text(struct pmt_hist *h, unsigned ev, struct hent **v, size_t n,
		      const unsigned *widest, void *vctx)
{
	struct print_ctx *c = vctx;

	print_event(h, c->out, ev, c->compat, v, n, widest);
	return 0;
}

static int print_data(struct pmt_hist *h, unsigned ev, struct hent **v, size_t n,
		      const unsigned *widest, void *vctx)
{
	struct print_ctx *c = vctx;
	char nb[128];
	const char *name = pmt_ev_slot_name(&h->slots, ev, c->compat, nb, sizeof(nb));
	/* the text report's totals: of the whole file or, --percentage relative, of the
	 * entries shown; --mem's overhead is of the weight */
	uint64_t total = hist_total(h, ev);
	int json = c->fmt == PMT_SINK_JSONL;

	if (json) {
		pmt_out_str(c->out, c->nev++ ? ",\n{\"event\":" : "\n{\"event\":");
		pmt_out_json_str(c->out, name);
		pmt_out_printf(c->out, ",\"samples\":%" PRIu64 ",\"period\":%" PRIu64,
			       hist_samples(h, ev), h->relative ? h->total_period[ev]
								: h->whole_period[ev]);
		if (h->mem_mode)
			pmt_out_printf(c->out, ",\"weight\":%" PRIu64, total);
		pmt_out_str(c->out, ",\"entries\":[");
	}
	size_t shown = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t xi = hent_ev_at(h, v[i], ev);
		const struct hent_ev *x = &h->ev[xi];
		const struct cg_ev *cx = cg_ev_of(h->cg, xi);
		uint64_t acc = cx ? cx->acc_period : 0;
		uint64_t p = h->mem_mode ? x->weight : x->period;
		double pct = total ? 100.0 * (double)p / (double)total : 0;
		double acc_pct = total ? 100.0 * (double)acc / (double)total : 0;

		if (below_limit(h, v[i], ev))
			continue;
		if (json) {
			pmt_out_printf(c->out, "%s{\"overhead\":%.4f,\"period\":%" PRIu64
				       ",\"samples\":%u", shown++ ? ",\n " : "\n ", pct, x->period, x->nr);
			if (h->mem_mode)
				pmt_out_printf(c->out, ",\"weight\":%" PRIu64, x->weight);
			if (hist_children(h))
				pmt_out_printf(c->out, ",\"children\":%.4f,\"children_period\":%" PRIu64,
					       acc_pct, acc);
			put_keys(h, v[i], ev, c->out, 1);
			pmt_out_char(c->out, '}');
		} else {
			pmt_out_csv_str(c->out, name);
			pmt_out_printf(c->out, ",%.4f,%" PRIu64 ",%u", pct, x->period, x->nr);
			if (hist_children(h))
				pmt_out_printf(c->out, ",%.4f,%" PRIu64, acc_pct, acc);
			put_keys(h, v[i], ev, c->out, 0);
			pmt_out_char(c->out, '\n');
		}
	}
	if (json)
		pmt_out_str(c->out, "]}");
	return 0;
}

struct visit_ctx {
	size_t max_rows;
	int (*fn)(void *ctx, const struct hist_row *r);
	void *ctx;
};

static int visit_event(struct pmt_hist *h, unsigned ev, struct hent **v, size_t n,
		       const unsigned *widest, void *vctx)
{
	struct visit_ctx *c = vctx;
	char text[HIST_ROW_KEYS][1024];
	/* the text's totals: the whole file's unless --percentage relative (the samples a
	 * --comms/--dsos/--symbols list leaves out stay in them) */
	struct hist_row r = { .event = ev, .n = n, .event_samples = hist_samples(h, ev),
			      .event_period = h->relative ? h->total_period[ev]
							  : h->whole_period[ev],
			      .event_weight = h->relative ? h->total_weight[ev]
							  : h->whole_weight[ev] };

	for (size_t i = 0; i < n && i < c->max_rows; i++) {
		const struct hent_ev *x = hent_ev(h, v[i], ev);

		r.rank = i;
		r.period = x->period;
		r.weight = x->weight;
		r.samples = x->nr;
		r.kernel = (v[i]->kernel_ev & (1u << ev)) != 0;
		for (unsigned k = 0; k < h->nkeys && k < HIST_ROW_KEYS; k++) {
			cell(h, v[i], h->keys[k], ev, text[k], sizeof(text[k]));
			r.key[k] = h->keys[k] == KEY_SYM ? text[k] + 4 : text[k];
		}
		PMT_FORWARD_IF_ERROR(c->fn(c->ctx, &r));
	}
	return 0;
}

int hist_visit(struct pmt_hist *h, size_t max_rows,
	       int (*fn)(void *ctx, const struct hist_row *r), void *ctx)
{
	struct visit_ctx c = { max_rows, fn, ctx };

	PMT_FORWARD_IF_ERROR(hist_collapse(h));
	return each_event(h, visit_event, &c, false);
}

int pmt_hist_print(struct pmt_hist *h, struct pmt_out *out, int compat, uint64_t lost_samples)
{
	return pmt_hist_print_as(h, out, compat, lost_samples, PMT_SINK_TEXT);
}

int pmt_hist_print_as(struct pmt_hist *h, struct pmt_out *out, int compat,
		      uint64_t lost_samples, enum pmt_sink_format fmt)
{
	struct print_ctx c = { out, compat, fmt, 0 };
	int rc = hist_collapse(h);

	if (rc < 0)
		return rc;
	if (fmt == PMT_SINK_TEXT) {
		pmt_out_str(out, "# To display the perf.data header info, please use "
				 "--header/--header-only options.\n#\n");
		hist_elided_note(h, out);
		pmt_out_str(out, "#\n");
		pmt_out_printf(out, "# Total Lost Samples: %" PRIu64 "\n#\n", lost_samples);
		return each_event(h, print_text, &c, true);
	}
	if (fmt == PMT_SINK_JSONL) {
		pmt_out_printf(out, "{\"lost_samples\":%" PRIu64 ",\"children\":%s,\"sort\":[",
			       lost_samples, hist_children(h) ? "true" : "false");
		for (unsigned k = 0; k < h->nkeys; k++)
			pmt_out_printf(out, "%s\"%s\"", k ? "," : "", hist_key_names[h->keys[k]]);
		pmt_out_str(out, "],\"events\":[");
	} else {
		pmt_out_str(out, hist_children(h) ? "event,overhead,period,samples,children,"
						    "children_period"
						  : "event,overhead,period,samples");
		for (unsigned k = 0; k < h->nkeys; k++)
			pmt_out_printf(out, ",%s%s", hist_key_names[h->keys[k]],
				       h->keys[k] == KEY_SYM ? ",kernel" : "");
		pmt_out_char(out, '\n');
	}
	rc = each_event(h, print_data, &c, false);
	if (fmt == PMT_SINK_JSONL)
		pmt_out_str(out, "]}\n");
	return rc;
}
