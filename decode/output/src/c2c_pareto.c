/* report --c2c's "Shared Cache Line Distribution Pareto": for each shown cache line, its
 * (offset, code address) entries as perf c2c report --stdio prints them with its default
 * coalescing (iaddr): the share of the line's peer snoops or HITMs and of its stores, the
 * mean cycles per kind of load, the CPUs and NUMA nodes, symbol, object and source line. */
#include <stdlib.h>
#include <string.h>

#include "c2c_priv.h"

#define NODES_MAX 64
#define SRCLINE_MAX 512

static const char *const key_names[C2C_NKEYS] = { "tid", "pid", "iaddr", "dso" };

static int key_of(const char *t, size_t n)
{
	for (int k = 0; k < C2C_NKEYS; k++)
		if (strlen(key_names[k]) == n && !strncmp(t, key_names[k], n))
			return k;
	return -1;
}

int pmt_c2c_coalesce_check(const char *s, const char **bad, size_t *badlen)
{
	while (s && *s) {
		size_t n = strcspn(s, ",");

		if (n && key_of(s, n) < 0) {
			*bad = s;
			*badlen = n;
			return -PMT_EPARSE;
		}
		s += n + (s[n] == ',');
	}
	return 0;
}

int c2c_set_coalesce(struct pmt_c2c *c, const char *list)
{
	const char *bad;
	size_t badlen;

	if (pmt_c2c_coalesce_check(list, &bad, &badlen) < 0)
		return -PMT_EPARSE;
	c->coalesce = list;
	for (const char *s = list; *s;) {
		size_t n = strcspn(s, ",");
		int k = n ? key_of(s, n) : -1;

		/* a key given twice sorts where it came first */
		if (k >= 0 && !(c->keymask & 1u << k)) {
			c->keys[c->nkeys++] = (uint8_t)k;
			c->keymask |= 1u << k;
		}
		s += n + (s[n] == ',');
	}
	return 0;
}

static bool has_key(const struct pmt_c2c *c, int k)
{
	return c->keymask & 1u << k;
}

/* an entry's hash key: its line, offset and the -c keys' values */
static uint64_t ent_key_of(const struct pmt_c2c *c, uint64_t iaddr, int32_t tid, int32_t pid,
			   const void *dso, uint32_t line, uint8_t off)
{
	uint64_t k = ((uint64_t)line << 7 | off) << 20;

	if (has_key(c, C2C_KEY_IADDR))
		k ^= iaddr;
	if (has_key(c, C2C_KEY_TID))
		k ^= (uint64_t)(uint32_t)tid * 0x9e3779b97f4a7c15ULL;
	if (has_key(c, C2C_KEY_PID))
		k ^= (uint64_t)(uint32_t)pid << 40;
	if (has_key(c, C2C_KEY_DSO))
		k ^= (uint64_t)(uintptr_t)dso;
	return k;
}

static uint64_t ent_key(const struct pmt_c2c *c, uint32_t i)
{
	const struct c2c_ent *e = &c->ents[i];

	return ent_key_of(c, e->iaddr, e->tid, e->pid, e->dso_id, e->line, e->off);
}

static bool ent_is(const struct pmt_c2c *c, const struct c2c_ent *e, uint32_t line, uint8_t off,
		   const struct pmt_spe_sample *s, const void *dso)
{
	return e->line == line && e->off == off &&
	       (!has_key(c, C2C_KEY_IADDR) || e->iaddr == s->ip) &&
	       (!has_key(c, C2C_KEY_TID) || e->tid == s->tid) &&
	       (!has_key(c, C2C_KEY_PID) || e->pid == s->pid) &&
	       (!has_key(c, C2C_KEY_DSO) || e->dso_id == dso);
}

struct c2c_ent *c2c_find_ent(struct pmt_c2c *c, uint32_t line, const struct pmt_spe_sample *s)
{
	uint8_t off = (uint8_t)(s->addr & ((1u << c->cl_shift) - 1));
	struct pmt_sym_loc loc = { 0 };
	uint32_t h;
	struct c2c_ent *e;

	/* the file of the code address: perf's dso sort key (by file, not by symbol) */
	if (has_key(c, C2C_KEY_DSO) && c->syms &&
	    pmt_symbols_resolve(c->syms, s->pid, s->ip, s->time, &loc) < 0)
		memset(&loc, 0, sizeof(loc));
	if ((c->nents + 1) * 2 > c->neslot &&
	    c2c_grow_slots(c, &c->eslot, &c->neslot, c->nents, ent_key) < 0)
		return NULL;
	h = c2c_hash(ent_key_of(c, s->ip, s->tid, s->pid, loc.dso_id, line, off)) & (c->neslot - 1);
	for (; c->eslot[h]; h = (h + 1) & (c->neslot - 1)) {
		e = &c->ents[c->eslot[h] - 1];
		if (ent_is(c, e, line, off, s, loc.dso_id))
			return e;
	}
	if (c->nents == c->ecap) {
		uint32_t cap = c->ecap ? c->ecap * 2 : 1024;

		e = realloc(c->ents, cap * sizeof(*e));
		if (!e)
			return NULL;
		c->ents = e;
		if (c->node_info == 1 && c->nnodes) {
			uint32_t *nc = realloc(c->node_cnt, (size_t)cap * c->nnodes * 2 * sizeof(*nc));

			if (!nc)
				return NULL;
			memset(nc + (size_t)c->ecap * c->nnodes * 2, 0,
			       (size_t)(cap - c->ecap) * c->nnodes * 2 * sizeof(*nc));
			c->node_cnt = nc;
		}
		c->ecap = cap;
	}
	c->eslot[h] = c->nents + 1;
	e = &c->ents[c->nents++];
	memset(e, 0, sizeof(*e));
	e->iaddr = s->ip;
	e->line = line;
	e->off = off;
	e->pid = s->pid;
	e->tid = s->tid;
	e->dso_id = loc.dso_id;
	e->dso_name = loc.dso ? loc.dso_short : NULL;
	e->time = s->time;
	e->map_pid = s->pid;
	e->map_time = s->time;
	return e;
}

/* the count the display sorts on, as perf's node_entry() shares it out per node */
static uint32_t node_display_count(const struct c2c_stats *s, int display)
{
	return display == PMT_C2C_DISPLAY_PEER ? s->tot_peer :
	       display == PMT_C2C_DISPLAY_LCL ? s->lcl_hitm :
	       display == PMT_C2C_DISPLAY_RMT ? s->rmt_hitm : s->tot_hitm;
}

void c2c_ent_add(struct pmt_c2c *c, struct c2c_ent *e, const struct c2c_stats *st,
		 const struct pmt_spe_sample *s)
{
	int k = st->rmt_hitm ? C2C_MEAN_RMT_HITM : st->lcl_hitm ? C2C_MEAN_LCL_HITM :
		st->rmt_peer ? C2C_MEAN_RMT_PEER : st->lcl_peer ? C2C_MEAN_LCL_PEER :
		st->load ? C2C_MEAN_LOAD : -1;

	c2c_stats_add(&e->st, st);
	/* perf 7.3 names the entry by its last sample's map, 6.1 by its first (the release
	 * between that changed it is not known here: only those two are checked) */
	if (c->compat > PMT_PERF_6_1) {
		e->map_pid = s->pid;
		e->map_time = s->time;
	}
	if (k >= 0) {
		struct c2c_mean *m = &e->mean[k];

		m->n++;
		m->mean += ((double)s->weight - m->mean) / m->n;
	}
	if (s->cpu < C2C_CPU_WORDS * 64) {
		e->cpus[s->cpu / 64] |= 1ULL << (s->cpu % 64);
		if (c->node_cnt && c->cpu_node[s->cpu] != 0xff) {
			uint32_t *nc = c->node_cnt + ((size_t)(e - c->ents) * c->nnodes +
						      c->cpu_node[s->cpu]) * 2;

			nc[0] += node_display_count(st, c->display);
			nc[1] += st->store;
		}
	}
}

/* ---- what an entry prints ------------------------------------------------------------ */
struct ent_text {
	char sym[300], dso[256], src[SRCLINE_MAX];
	int symlen;             /* perf's symbol column length for it (namelen + 4) */
	const char *comm;       /* the thread's (tid key) */
};

static void ent_text(struct pmt_c2c *c, const struct c2c_ent *e, struct ent_text *t)
{
	struct pmt_sym_loc loc = { 0 };
	const char *file, *slash;
	unsigned line;
	uint64_t va;

	t->comm = c->syms ? pmt_symbols_comm(c->syms, e->tid, 0) : NULL;
	if (!c->syms || pmt_symbols_resolve(c->syms, e->map_pid, e->iaddr, e->map_time, &loc) < 0)
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
	 * for code without a line (the STT_FILE before the function, "crtstuff.c:0", or
	 * "??:0"); DSO[ADDR] without a symbol */
	if (!loc.dso)
		snprintf(t->src, sizeof(t->src), "??:0");
	else if (pmt_symbols_srcline_perf(c->syms, &loc, &file, &line, &va) > 0) {
		slash = file ? strrchr(file, '/') : NULL;
		if (!file)
			file = "??";
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

int c2c_set_nodes(struct pmt_c2c *c)
{
	memset(c->cpu_node, 0xff, sizeof(c->cpu_node));
	if (!c->meta || !c->meta->numa_nodes)
		return 0;
	c->node_cpus = calloc(NODES_MAX, sizeof(*c->node_cpus));
	if (!c->node_cpus)
		return -PMT_ENOMEM;
	c->nnodes = parse_nodes(c->meta->numa_nodes, c->node_cpus);
	for (unsigned k = c->nnodes; k-- > 0;)
		for (unsigned cpu = 0; cpu < C2C_CPU_WORDS * 64; cpu++)
			if (c->node_cpus[k][cpu / 64] >> (cpu % 64) & 1)
				c->cpu_node[cpu] = (uint8_t)k;
	return 0;
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
static const struct pmt_c2c *cmp_c;

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
	/* ties keep the order of perf's entry tree, sorted by the -c keys in their order:
	 * code addresses and threads rising (sort__iaddr_cmp, sort__thread_cmp), processes
	 * falling (c2c's pid_cmp subtracts the other way), files by name, none last */
	for (unsigned i = 0; i < cmp_c->nkeys; i++) {
		int r = 0;

		switch (cmp_c->keys[i]) {
		case C2C_KEY_IADDR: r = (x->iaddr > y->iaddr) - (x->iaddr < y->iaddr); break;
		case C2C_KEY_TID: r = (x->tid > y->tid) - (x->tid < y->tid); break;
		case C2C_KEY_PID: r = (x->pid < y->pid) - (x->pid > y->pid); break;
		case C2C_KEY_DSO:
			r = !x->dso_name || !y->dso_name ? !x->dso_name - !y->dso_name
							 : strcmp(x->dso_name, y->dso_name);
			break;
		}
		if (r)
			return r;
	}
	return 0;
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
	int sym_w, dso_w, src_w, thr_w;
};

/* perf's node_entry(): the nodes whose CPUs the entry's samples ran on; with -N each
 * one's CPU count and share of the display's loads and of the stores, with -NN its CPUs */
static void put_nodes(struct pmt_c2c *c, struct pmt_out *o, const struct c2c_ent *e)
{
	bool first = true;

	for (unsigned k = 0; k < c->nnodes; k++) {
		uint64_t set[C2C_CPU_WORDS];
		bool any = false;

		for (int w = 0; w < C2C_CPU_WORDS; w++) {
			set[w] = e->cpus[w] & c->node_cpus[k][w];
			any |= set[w] != 0;
		}
		if (!any) {
			if (c->node_info == 1)
				pmt_out_printf(o, "%21s", " ");
			continue;
		}
		if (!first)
			pmt_out_char(o, ' ');
		first = false;
		if (c->node_info == 1) {
			const uint32_t *nc = c->node_cnt + ((size_t)(e - c->ents) * c->nnodes + k) * 2;
			uint32_t tot = node_display_count(&e->st, c->display);

			pmt_out_printf(o, "%2u{%2d ", k, popcount_cpus(set));
			if (tot)
				pmt_out_printf(o, "%5.1f%% ", 100. * nc[0] / tot);
			else
				pmt_out_printf(o, "%6s ", "n/a");
			if (e->st.store)
				pmt_out_printf(o, "%5.1f%%}", 100. * nc[1] / e->st.store);
			else
				pmt_out_printf(o, "%6s}", "n/a");
		} else if (c->node_info == 2) {
			/* the kernel's bitmap list: "0-1,3" */
			const char *sep = "";

			pmt_out_printf(o, "%2u{", k);
			for (unsigned cpu = 0; cpu < C2C_CPU_WORDS * 64; cpu++) {
				unsigned end = cpu;

				if (!(set[cpu / 64] >> (cpu % 64) & 1))
					continue;
				while (end + 1 < C2C_CPU_WORDS * 64 && set[(end + 1) / 64] >> ((end + 1) % 64) & 1)
					end++;
				if (end > cpu)
					pmt_out_printf(o, "%s%u-%u", sep, cpu, end);
				else
					pmt_out_printf(o, "%s%u", sep, cpu);
				sep = ",";
				cpu = end;
			}
			pmt_out_char(o, '}');
		} else {
			pmt_out_printf(o, "%2u", k);
		}
	}
}

static void print_line(struct pmt_c2c *c, struct pmt_out *o, const struct c2c_line *l,
		       struct line_view *lv)
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

		if (!ent_shown(e, c->display))
			continue;
		pmt_out_printf(o, "  %5s", "");
		put_pct(o, peer ? s->rmt_peer : s->rmt_hitm, peer ? l->st.rmt_peer : l->st.rmt_hitm);
		put_pct(o, peer ? s->lcl_peer : s->lcl_hitm, peer ? l->st.lcl_peer : l->st.lcl_hitm);
		put_pct(o, s->st_l1hit, l->st.st_l1hit);
		put_pct(o, s->st_l1miss, l->st.st_l1miss);
		put_pct(o, s->st_na, l->st.st_na);
		snprintf(off, sizeof(off), "0x%x", e->off);
		pmt_out_printf(o, "  %18s  %4s  %6u", off, "N/A", 0);
		if (has_key(c, C2C_KEY_PID))
			pmt_out_printf(o, "  %7d", e->pid);
		if (has_key(c, C2C_KEY_TID)) {
			/* perf's thread column: TID:COMM in the width of the longest comm + 8 */
			char dflt[16];
			int w = lv->thr_w > 7 ? lv->thr_w - 8 : 0;

			snprintf(dflt, sizeof(dflt), ":%d", e->tid);
			pmt_out_printf(o, "  %7d:%-*.*s", e->tid, w, w, t->comm ? t->comm : dflt);
		}
		if (has_key(c, C2C_KEY_IADDR)) {
			snprintf(ia, sizeof(ia), "0x%llx", (unsigned long long)e->iaddr);
			pmt_out_printf(o, "  %18s", ia);
		}
		put_mean(o, &e->mean[peer ? C2C_MEAN_RMT_PEER : C2C_MEAN_RMT_HITM]);
		put_mean(o, &e->mean[peer ? C2C_MEAN_LCL_PEER : C2C_MEAN_LCL_HITM]);
		put_mean(o, &e->mean[C2C_MEAN_LOAD]);
		snprintf(cnt, sizeof(cnt), "%d", popcount_cpus(e->cpus));
		pmt_out_printf(o, "  %7u  %8s  ", c2c_records(s), cnt);
		if (has_key(c, C2C_KEY_IADDR))
			pmt_out_printf(o, "%-*.*s  ", lv->sym_w, lv->sym_w, t->sym);
		if (has_key(c, C2C_KEY_IADDR) || has_key(c, C2C_KEY_DSO))
			pmt_out_printf(o, "%-*.*s  ", lv->dso_w, lv->dso_w, t->dso);
		if (has_key(c, C2C_KEY_IADDR) && !(c->flags & PMT_C2C_NO_SOURCE))
			pmt_out_printf(o, "%-*.*s  ", lv->src_w, lv->src_w, t->src);
		put_nodes(c, o, e);
		pmt_out_char(o, '\n');
	}
}

/* the entry columns' widths of a line (perf's per-line hists: over all its entries) */
static void line_widths(struct pmt_c2c *c, struct line_view *lv)
{
	lv->sym_w = 0;
	lv->dso_w = 0;
	lv->src_w = 11; /* strlen("Source:Line") */
	lv->thr_w = 0;
	for (uint32_t i = 0; i < lv->n; i++) {
		struct ent_text *t = &lv->text[i];
		int len;

		ent_text(c, lv->ents[i], t);
		/* perf's HISTC_THREAD: the longest comm + 8 (a thread without one is ":TID") */
		len = t->comm ? (int)strlen(t->comm) : snprintf(NULL, 0, ":%d", lv->ents[i]->tid);
		if (len + 8 > lv->thr_w)
			lv->thr_w = len + 8;
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

/* perf's setup_coalesce() output list: the -c keys choose the entry columns */
static int pareto_columns(const struct pmt_c2c *c, const struct line_view *lv, const char *data,
			  struct col *cols)
{
	bool peer = c->display == PMT_C2C_DISPLAY_PEER;
	static const char *const node_head[2][3] = {
		{ "Node", "Node{cpus %hitms %stores}", "Node{cpu list}" },
		{ "Node", "Node{cpus %peers %stores}", "Node{cpu list}" },
	};
	int n = 0;

	cols[n++] = (struct col){ 5, NULL, 0, "Num" };
	cols[n++] = (struct col){ 7, peer ? "-- Peer Snoop --" : "----- HITM -----", 1,
				  peer ? "Rmt" : "RmtHitm" };
	cols[n++] = (struct col){ 7, NULL, 0, peer ? "Lcl" : "LclHitm" };
	cols[n++] = (struct col){ 7, "------- Store Refs ------", 2, "L1 Hit" };
	cols[n++] = (struct col){ 7, NULL, 0, "L1 Miss" };
	cols[n++] = (struct col){ 7, NULL, 0, "N/A" };
	cols[n++] = (struct col){ 18, data, 2, "Offset" };
	cols[n++] = (struct col){ 4, NULL, 0, "Node" };
	cols[n++] = (struct col){ 6, NULL, 0, "PA cnt" };
	if (has_key(c, C2C_KEY_PID))
		cols[n++] = (struct col){ 7, NULL, 0, "Pid" };
	if (has_key(c, C2C_KEY_TID))
		cols[n++] = (struct col){ lv->thr_w, NULL, 0, "Tid" };
	if (has_key(c, C2C_KEY_IADDR))
		cols[n++] = (struct col){ 18, NULL, 0, "Code address" };
	cols[n++] = (struct col){ 8, "---------- cycles ----------", 2, peer ? "rmt peer" : "rmt hitm" };
	cols[n++] = (struct col){ 8, NULL, 0, peer ? "lcl peer" : "lcl hitm" };
	cols[n++] = (struct col){ 8, NULL, 0, "load" };
	cols[n++] = (struct col){ 7, "Total", 0, "records" };
	cols[n++] = (struct col){ 8, "cpu", 0, "cnt" };
	if (has_key(c, C2C_KEY_IADDR))
		cols[n++] = (struct col){ lv->sym_w, NULL, 0, "Symbol" };
	if (has_key(c, C2C_KEY_IADDR) || has_key(c, C2C_KEY_DSO))
		cols[n++] = (struct col){ lv->dso_w, "Shared", 0, "Object" };
	if (has_key(c, C2C_KEY_IADDR) && !(c->flags & PMT_C2C_NO_SOURCE))
		cols[n++] = (struct col){ lv->src_w, NULL, 0, "Source:Line" };
	cols[n++] = (struct col){ 4, NULL, 0, node_head[peer][c->node_info] };
	return n;
}

void c2c_print_pareto(struct pmt_c2c *c, struct pmt_out *o, struct c2c_line **v, uint32_t n)
{
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
	cmp_c = c;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t li = (uint32_t)(v[k] - c->lines);
		struct line_view lv = { byline + start[li], start[li + 1] - start[li], text, 0, 0, 0, 0 };

		qsort(lv.ents, lv.n, sizeof(*lv.ents), ent_cmp);
		line_widths(c, &lv);
		if (k == 0) {
			struct col cols[24];
			/* perf's fill_line("Data address", 32): centred in dashes */
			static const char data[] = "--------- Data address ---------";

			print_header(o, cols, pareto_columns(c, &lv, data, cols));
		} else {
			pmt_out_char(o, '\n');
		}
		print_line(c, o, v[k], &lv);
	}
out:
	free(text);
	free(byline);
	free(start);
}
