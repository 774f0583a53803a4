/* report --c2c's "Shared Cache Line Distribution Pareto": for each shown cache line, its
 * (offset, code address) entries as perf c2c report --stdio prints them with its default
 * coalescing (iaddr): the share of the line's peer snoops or HITMs and of its stores, the
 * mean cycles per kind of load, the CPUs and NUMA nodes, symbol, object and source line. */
#include <stdlib.h>
#include <string.h>

#include "c2c_priv.h"

#define NODES_MAX 64
#define SRCLINE_MAX 512

/* an entry's hash key: its code address, line and offset */
static uint64_t ent_key_of(uint64_t iaddr, uint32_t line, uint8_t off)
{
	return iaddr ^ ((uint64_t)line << 6 | off) << 20;
}

static uint64_t ent_key(const struct pmt_c2c *c, uint32_t i)
{
	return ent_key_of(c->ents[i].iaddr, c->ents[i].line, c->ents[i].off);
}

struct c2c_ent *c2c_find_ent(struct pmt_c2c *c, uint32_t line, const struct pmt_spe_sample *s)
{
	uint8_t off = (uint8_t)(s->addr & 63);
	uint32_t h;
	struct c2c_ent *e;

	if ((c->nents + 1) * 2 > c->neslot &&
	    c2c_grow_slots(c, &c->eslot, &c->neslot, c->nents, ent_key) < 0)
		return NULL;
	h = c2c_hash(ent_key_of(s->ip, line, off)) & (c->neslot - 1);
	for (; c->eslot[h]; h = (h + 1) & (c->neslot - 1)) {
		e = &c->ents[c->eslot[h] - 1];
		if (e->line == line && e->off == off && e->iaddr == s->ip)
			return e;
	}
	if (c->nents == c->ecap) {
		uint32_t cap = c->ecap ? c->ecap * 2 : 1024;

		e = realloc(c->ents, cap * sizeof(*e));
		if (!e)
			return NULL;
		c->ents = e;
		c->ecap = cap;
	}
	c->eslot[h] = c->nents + 1;
	e = &c->ents[c->nents++];
	memset(e, 0, sizeof(*e));
	e->iaddr = s->ip;
	e->line = line;
	e->off = off;
	e->pid = s->pid;
	e->time = s->time;
	return e;
}

void c2c_ent_add(struct c2c_ent *e, const struct c2c_stats *st, const struct pmt_spe_sample *s)
{
	int k = st->rmt_hitm ? C2C_MEAN_RMT_HITM : st->lcl_hitm ? C2C_MEAN_LCL_HITM :
		st->rmt_peer ? C2C_MEAN_RMT_PEER : st->lcl_peer ? C2C_MEAN_LCL_PEER :
		st->load ? C2C_MEAN_LOAD : -1;

	c2c_stats_add(&e->st, st);
	if (k >= 0) {
		struct c2c_mean *m = &e->mean[k];

		m->n++;
		m->mean += ((double)s->weight - m->mean) / m->n;
	}
	if (s->cpu < C2C_CPU_WORDS * 64)
		e->cpus[s->cpu / 64] |= 1ULL << (s->cpu % 64);
}

/* ---- what an entry prints ------------------------------------------------------------ */
struct ent_text {
	char sym[300], dso[256], src[SRCLINE_MAX];
	int symlen;             /* perf's symbol column length for it (namelen + 4) */
};

static void ent_text(struct pmt_c2c *c, const struct c2c_ent *e, struct ent_text *t)
{
	struct pmt_sym_loc loc = { 0 };
	const char *file, *slash;
	unsigned line;
	uint64_t va;

	if (!c->syms || pmt_symbols_resolve(c->syms, e->pid, e->iaddr, e->time, &loc) < 0)
		memset(&loc, 0, sizeof(loc));
	if (loc.sym) {
		snprintf(t->sym, sizeof(t->sym), "[%c] %s", loc.kernel ? 'k' : '.', loc.sym);
		t->symlen = (int)strlen(loc.sym) + 4;
	} else {
		snprintf(t->sym, sizeof(t->sym), "[%c] %#.*llx", loc.kernel ? 'k' : '.', 16,
			 (unsigned long long)e->iaddr);
		t->symlen = 16 + 4 + 2; /* perf's unresolved_col_width + 6 */
	}
	snprintf(t->dso, sizeof(t->dso), "%s", loc.dso ? loc.dso_short : "[unknown]");
	/* perf's map__srcline(): FILE:LINE (the file's last part); what its addr2line says
	 * for code without a line ("??:0"); DSO[ADDR] without a symbol */
	if (!loc.dso)
		snprintf(t->src, sizeof(t->src), "??:0");
	else if (pmt_symbols_srcline(c->syms, &loc, &file, &line, &va) > 0) {
		slash = strrchr(file, '/');
		snprintf(t->src, sizeof(t->src), "%s:%u", slash ? slash + 1 : file, line);
	} else if (loc.sym)
		snprintf(t->src, sizeof(t->src), "??:0");
	else
		snprintf(t->src, sizeof(t->src), "%s[%llx]", loc.dso_short,
			 (unsigned long long)loc.map_ip);
}

/* the nodes' CPU sets from the trace's NUMA topology ("0-1;2-3") */
static unsigned parse_nodes(const char *s, uint64_t (*nodes)[C2C_CPU_WORDS])
{
	unsigned n = 0;

	while (s && *s && n < NODES_MAX) {
		memset(nodes[n], 0, sizeof(nodes[n]));
		while (*s && *s != ';') {
			char *end;
			unsigned long lo = strtoul(s, &end, 10), hi = lo;

			if (end == s)
				break;
			if (*end == '-')
				hi = strtoul(end + 1, &end, 10);
			for (unsigned long cpu = lo; cpu <= hi && cpu < C2C_CPU_WORDS * 64; cpu++)
				nodes[n][cpu / 64] |= 1ULL << (cpu % 64);
			s = *end == ',' ? end + 1 : end;
		}
		n++;
		if (*s == ';')
			s++;
		else
			break;
	}
	return n;
}

static int popcount_cpus(const uint64_t *cpus)
{
	int n = 0;

	for (int i = 0; i < C2C_CPU_WORDS; i++)
		n += __builtin_popcountll(cpus[i]);
	return n;
}

/* ---- order and header ---------------------------------------------------------------- */
static int display_g;

/* perf's resort keys: offset, then the display's counts (largest first), then the code
 * address */
static int ent_cmp(const void *a, const void *b)
{
	const struct c2c_ent *x = *(const struct c2c_ent *const *)a;
	const struct c2c_ent *y = *(const struct c2c_ent *const *)b;
	uint32_t kx[2], ky[2];

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	kx[0] = display_g == PMT_C2C_DISPLAY_LCL ? x->st.lcl_hitm : c2c_display_count(&x->st, display_g);
	ky[0] = display_g == PMT_C2C_DISPLAY_LCL ? y->st.lcl_hitm : c2c_display_count(&y->st, display_g);
	kx[1] = display_g == PMT_C2C_DISPLAY_RMT ? x->st.lcl_hitm :
		display_g == PMT_C2C_DISPLAY_LCL ? x->st.rmt_hitm : 0;
	ky[1] = display_g == PMT_C2C_DISPLAY_RMT ? y->st.lcl_hitm :
		display_g == PMT_C2C_DISPLAY_LCL ? y->st.rmt_hitm : 0;
	for (int i = 0; i < 2; i++)
		if (kx[i] != ky[i])
			return kx[i] > ky[i] ? -1 : 1;
	return x->iaddr < y->iaddr ? -1 : x->iaddr > y->iaddr;
}

/* perf's is_valid_hist_entry(): entries with stores or with the display's loads */
static bool ent_shown(const struct c2c_ent *e, int display)
{
	return e->st.store || c2c_display_count(&e->st, display);
}

struct col {
	int width;
	const char *top;   /* line 0 text, NULL = none */
	int span;          /* how many columns after it the top text covers */
	const char *low;   /* line 1 text */
};

/* perf's hists__fprintf_headers(): two lines where a spanning text is printed once, in
 * the place of the columns it covers, then a line of dots */
static void print_header(struct pmt_out *o, const struct col *cols, int n)
{
	for (int line = 0; line < 2; line++) {
		int span = 0;
		const char *text = "";

		pmt_out_str(o, "# ");
		for (int i = 0; i < n; i++) {
			if (i && !span)
				pmt_out_str(o, "  ");
			if (span) {
				span--;
			} else {
				text = line ? cols[i].low : cols[i].top;
				text = text ? text : "";
				span = line ? 0 : cols[i].span;
			}
			if (!span)
				pmt_out_printf(o, "%*s", cols[i].width, text);
		}
		pmt_out_char(o, '\n');
	}
	pmt_out_str(o, "# ");
	for (int i = 0; i < n; i++) {
		if (i)
			pmt_out_str(o, "  ");
		for (int k = 0; k < cols[i].width; k++)
			pmt_out_char(o, '.');
	}
	pmt_out_str(o, "\n#\n");
}

static void put_pct(struct pmt_out *o, uint32_t st, uint32_t tot)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%.2F%%", tot ? 100. * st / tot : 0.);
	pmt_out_printf(o, "  %7s", buf);
}

static void put_mean(struct pmt_out *o, const struct c2c_mean *m)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%6.0f", m->mean);
	pmt_out_printf(o, "  %8s", buf);
}

struct line_view {
	struct c2c_ent **ents; /* the line's entries */
	uint32_t n;
	struct ent_text *text;
	int sym_w, dso_w, src_w;
};

static void print_line(struct pmt_c2c *c, struct pmt_out *o, const struct c2c_line *l,
		       struct line_view *lv, uint64_t (*nodes)[C2C_CPU_WORDS], unsigned nnodes)
{
	bool peer = c->display == PMT_C2C_DISPLAY_PEER;
	char addr[24];

	pmt_out_str(o, "  ----------------------------------------------------------------------\n");
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)l->addr);
	pmt_out_printf(o, "  %5u  %7u  %7u  %7u  %7u  %7u  %18s\n", l->idx,
		       peer ? l->st.rmt_peer : l->st.rmt_hitm, peer ? l->st.lcl_peer : l->st.lcl_hitm,
		       l->st.st_l1hit, l->st.st_l1miss, l->st.st_na, addr);
	pmt_out_str(o, "  ----------------------------------------------------------------------\n");
	for (uint32_t i = 0; i < lv->n; i++) {
		const struct c2c_ent *e = lv->ents[i];
		const struct c2c_stats *s = &e->st;
		const struct ent_text *t = &lv->text[i];
		char off[8], ia[24], cnt[12];
		bool first = true;

		if (!ent_shown(e, c->display))
			continue;
		pmt_out_printf(o, "  %5s", "");
		put_pct(o, peer ? s->rmt_peer : s->rmt_hitm, peer ? l->st.rmt_peer : l->st.rmt_hitm);
		put_pct(o, peer ? s->lcl_peer : s->lcl_hitm, peer ? l->st.lcl_peer : l->st.lcl_hitm);
		put_pct(o, s->st_l1hit, l->st.st_l1hit);
		put_pct(o, s->st_l1miss, l->st.st_l1miss);
		put_pct(o, s->st_na, l->st.st_na);
		snprintf(off, sizeof(off), "0x%x", e->off);
		snprintf(ia, sizeof(ia), "0x%llx", (unsigned long long)e->iaddr);
		pmt_out_printf(o, "  %18s  %4s  %6u  %18s", off, "N/A", 0, ia);
		put_mean(o, &e->mean[peer ? C2C_MEAN_RMT_PEER : C2C_MEAN_RMT_HITM]);
		put_mean(o, &e->mean[peer ? C2C_MEAN_LCL_PEER : C2C_MEAN_LCL_HITM]);
		put_mean(o, &e->mean[C2C_MEAN_LOAD]);
		snprintf(cnt, sizeof(cnt), "%d", popcount_cpus(e->cpus));
		pmt_out_printf(o, "  %7u  %8s  %-*.*s  %-*.*s  ", c2c_records(s), cnt,
			       lv->sym_w, lv->sym_w, t->sym, lv->dso_w, lv->dso_w, t->dso);
		if (!(c->flags & PMT_C2C_NO_SOURCE))
			pmt_out_printf(o, "%-*.*s  ", lv->src_w, lv->src_w, t->src);
		for (unsigned k = 0; k < nnodes; k++) {
			bool any = false;

			for (int w = 0; w < C2C_CPU_WORDS; w++)
				any |= (e->cpus[w] & nodes[k][w]) != 0;
			if (!any)
				continue;
			pmt_out_printf(o, "%s%2u", first ? "" : " ", k);
			first = false;
		}
		pmt_out_char(o, '\n');
	}
}

/* the entry columns' widths of a line (perf's per-line hists: over all its entries) */
static void line_widths(struct pmt_c2c *c, struct line_view *lv)
{
	lv->sym_w = 0;
	lv->dso_w = 0;
	lv->src_w = 11; /* strlen("Source:Line") */
	for (uint32_t i = 0; i < lv->n; i++) {
		struct ent_text *t = &lv->text[i];
		int len;

		ent_text(c, lv->ents[i], t);
		if (t->symlen > lv->sym_w)
			lv->sym_w = t->symlen;
		len = (int)strlen(t->dso);
		if (len > lv->dso_w)
			lv->dso_w = len;
		len = (int)strlen(t->src);
		if (len > lv->src_w)
			lv->src_w = len;
	}
	if (c->flags & PMT_C2C_FULL_SYMBOLS)
		return;
	if (lv->sym_w > 30) /* perf's SYMBOL_WIDTH without --full-symbols */
		lv->sym_w = 30;
	if (lv->src_w > 30)
		lv->src_w = 30;
}

void c2c_print_pareto(struct pmt_c2c *c, struct pmt_out *o, struct c2c_line **v, uint32_t n)
{
	static uint64_t nodes[NODES_MAX][C2C_CPU_WORDS];
	bool peer = c->display == PMT_C2C_DISPLAY_PEER;
	unsigned nnodes = parse_nodes(c->meta ? c->meta->numa_nodes : NULL, nodes);
	uint32_t *start = calloc(c->nlines + 1, sizeof(*start));
	struct c2c_ent **byline = malloc((c->nents ? c->nents : 1) * sizeof(*byline));
	struct ent_text *text = NULL;
	uint32_t most = 0;

	if (!start || !byline)
		goto out;
	/* the entries grouped by line (a counting sort) */
	for (uint32_t i = 0; i < c->nents; i++)
		start[c->ents[i].line + 1]++;
	for (uint32_t i = 0; i < c->nlines; i++) {
		if (start[i + 1] > most)
			most = start[i + 1];
		start[i + 1] += start[i];
	}
	for (uint32_t i = 0, *fill = start; i < c->nents; i++)
		byline[fill[c->ents[i].line]++] = &c->ents[i];
	/* the fill moved each start to the next line's: move them back */
	memmove(start + 1, start, c->nlines * sizeof(*start));
	start[0] = 0;
	text = malloc((most ? most : 1) * sizeof(*text));
	if (!text)
		goto out;
	display_g = c->display;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t li = (uint32_t)(v[k] - c->lines);
		struct line_view lv = { byline + start[li], start[li + 1] - start[li], text, 0, 0, 0 };

		qsort(lv.ents, lv.n, sizeof(*lv.ents), ent_cmp);
		line_widths(c, &lv);
		if (k == 0) {
			char data[40];
			const struct col cols[] = {
				{ 5, NULL, 0, "Num" },
				{ 7, peer ? "-- Peer Snoop --" : "----- HITM -----", 1,
				  peer ? "Rmt" : "RmtHitm" },
				{ 7, NULL, 0, peer ? "Lcl" : "LclHitm" },
				{ 7, "------- Store Refs ------", 2, "L1 Hit" },
				{ 7, NULL, 0, "L1 Miss" },
				{ 7, NULL, 0, "N/A" },
				{ 18, data, 2, "Offset" },
				{ 4, NULL, 0, "Node" },
				{ 6, NULL, 0, "PA cnt" },
				{ 18, NULL, 0, "Code address" },
				{ 8, "---------- cycles ----------", 2, peer ? "rmt peer" : "rmt hitm" },
				{ 8, NULL, 0, peer ? "lcl peer" : "lcl hitm" },
				{ 8, NULL, 0, "load" },
				{ 7, "Total", 0, "records" },
				{ 8, "cpu", 0, "cnt" },
				{ lv.sym_w, NULL, 0, "Symbol" },
				{ lv.dso_w, "Shared", 0, "Object" },
				{ lv.src_w, NULL, 0, "Source:Line" },
				{ 4, NULL, 0, "Node" },
			};
			int ncols = (int)(sizeof(cols) / sizeof(cols[0]));
			struct col nosrc[sizeof(cols) / sizeof(cols[0])];

			/* perf's fill_line("Data address", 32): centred in dashes */
			snprintf(data, sizeof(data), "--------- Data address ---------");
			if (c->flags & PMT_C2C_NO_SOURCE) {
				/* the same columns without Source:Line, the one before Node */
				memcpy(nosrc, cols, sizeof(cols));
				nosrc[ncols - 2] = cols[ncols - 1];
				print_header(o, nosrc, ncols - 1);
			} else {
				print_header(o, cols, ncols);
			}
		} else {
			pmt_out_char(o, '\n');
		}
		print_line(c, o, v[k], &lv, nodes, nnodes);
	}
out:
	free(text);
	free(byline);
	free(start);
}
