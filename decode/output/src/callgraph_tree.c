/* The frames of the samples' call chains and each report entry's chain tree, as perf report
 * builds them (util/machine.c add_callchain_ip and append_inlines, util/callchain.c
 * callchain_append). Frames are resolved once per sample and interned, so that a tree
 * compares indexes; trees are tries in one node pool. No allocation per sample: the pools
 * and buffers grow by doubling. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "callgraph.h"

/* PERF_CONTEXT_MAX: entries at or above it mark where kernel, user or guest frames begin;
 * perf report takes the hypervisor's, the kernel's and the user's (add_callchain_ip) */
#define CONTEXT_MAX ((uint64_t)-4095)
#define CONTEXT_HV ((uint64_t)-32)
#define CONTEXT_KERNEL ((uint64_t)-128)
#define CONTEXT_USER ((uint64_t)-512)
#define INLINE_MAX 64
/* perf report's --max-stack default (PERF_MAX_STACK_DEPTH): the chain's first entries */
#define MAX_STACK 127

int cg_new(struct cg **out)
{
	struct cg *g = calloc(1, sizeof(*g));

	if (!g)
		return -PMT_ENOMEM;
	g->mode = CG_GRAPH;
	g->order = CG_CALLER;
	g->min_percent = 0.5;
	g->max_stack = MAX_STACK;
	g->nnodes = 1; /* node 0: "none" */
	*out = g;
	return 0;
}

void cg_free(struct cg *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nblocks; i++)
		free(g->blocks[i]);
	free(g->blocks);
	free(g->tab);
	free(g->nodes);
	free(g->ev);
	free(g->ipc);
	free(g->ipc_frames);
	free(g->cur);
	free(g->seen);
	free(g->cur_addr);
	free(g->cur_src);
	free(g->ipc_srcs);
	free(g->node_ip);
	hist_rb_fini(&g->kid_rb);
	for (size_t i = 0; i < g->nstrs; i++)
		free(g->strs[i]);
	free(g->strs);
	free(g->strs_tab);
	free(g);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t nc = *cap ? *cap : 256;
	void *n;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	n = realloc(*p, nc * elem);
	if (!n)
		return -PMT_ENOMEM;
	memset((char *)n + *cap * elem, 0, (nc - *cap) * elem);
	*p = n;
	*cap = nc;
	return 0;
}

struct cg_ev *cg_ev_at(struct cg *g, uint32_t i)
{
	if (grow((void **)&g->ev, &g->ev_cap, (size_t)i + 1, sizeof(*g->ev)) < 0)
		return NULL;
	return &g->ev[i];
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* perf's match_chain() with the function key: the same symbol of the same file; an
 * inlined function by its name (in the same function here); no symbol: the address. The
 * address key tells every address apart too, the srcline key every source line. */
static bool same_frame(const struct cg *g, const struct cg_frame *f, const struct pmt_sym_loc *loc,
		       const void *base, uint64_t ip, bool inlined, const char *srcline)
{
	if (f->inlined != inlined || !f->loc.sym != !loc->sym || f->loc.dso_id != loc->dso_id)
		return false;
	if (g->key == CG_KEY_ADDRESS && f->addr != ip)
		return false;
	if (f->srcline != srcline) /* the texts are kept once each */
		return false;
	if (inlined)
		return f->ip == (uint64_t)(uintptr_t)base && !strcmp(f->loc.sym, loc->sym);
	if (loc->sym)
		return f->loc.sym_id == loc->sym_id && f->loc.kernel == loc->kernel;
	return f->ip == ip;
}

static int tab_rehash(struct cg *g)
{
	size_t nc = g->tab_cap ? g->tab_cap * 2 : 4096;
	uint32_t *t = calloc(nc, sizeof(*t));

	if (!t)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < g->nframes; i++) {
		struct cg_frame *f = cg_frame(g, (uint32_t)i);
		size_t j = f->hash & (nc - 1);

		f->next = t[j];
		t[j] = (uint32_t)i + 1;
	}
	free(g->tab);
	g->tab = t;
	g->tab_cap = nc;
	return 0;
}

/* the frame's index, added on first sight. An inlined frame keeps its function's symbol
 * (base) in ip: frames of different functions stay apart. entry: the report entry an
 * inlined frame counts in (NULL: its own; a source line's frame: its function's) */
static int intern(struct cg *g, const struct pmt_sym_loc *loc, uint64_t ip, bool inlined,
		  const void *base, const char *srcline, const void *entry, uint32_t *out)
{
	uint64_t h;
	struct cg_frame *f;
	size_t j;

	if (inlined)
		h = mix(mix(1, (uintptr_t)base), str_hash(loc->sym));
	else if (loc->sym)
		h = mix(mix(2, (uintptr_t)loc->sym_id), (uintptr_t)loc->dso_id + loc->kernel);
	else
		h = mix(mix(3, (uintptr_t)loc->dso_id), ip);
	if (g->key == CG_KEY_ADDRESS)
		h = mix(h, ip);
	if (srcline)
		h = mix(h, (uintptr_t)srcline);
	if (g->nframes * 2 >= g->tab_cap)
		PMT_FORWARD_IF_ERROR(tab_rehash(g));
	j = h & (g->tab_cap - 1);
	for (uint32_t i = g->tab[j]; i; i = cg_frame(g, i - 1)->next) {
		f = cg_frame(g, i - 1);
		if (f->hash == h && same_frame(g, f, loc, base, ip, inlined, srcline)) {
			*out = i - 1;
			return 0;
		}
	}
	if (g->nframes == g->nblocks * CG_FRAME_BLOCK) {
		struct cg_frame **b = realloc(g->blocks, (g->nblocks + 1) * sizeof(*b));

		if (!b)
			return -PMT_ENOMEM;
		g->blocks = b;
		b[g->nblocks] = calloc(CG_FRAME_BLOCK, sizeof(**b));
		if (!b[g->nblocks])
			return -PMT_ENOMEM;
		g->nblocks++;
	}
	f = cg_frame(g, (uint32_t)g->nframes);
	f->loc = *loc;
	f->ip = inlined ? (uint64_t)(uintptr_t)base : ip;
	f->hash = h;
	f->inlined = inlined;
	f->addr = ip;
	f->srcline = srcline;
	if (inlined) {
		/* the entry of an inlined function: its own identity, not its caller's */
		f->loc.sym_id = entry ? entry : f;
		f->loc.sym_type = 2; /* STT_FUNC: no object offset */
	}
	f->next = g->tab[j];
	g->tab[j] = (uint32_t)g->nframes + 1;
	*out = (uint32_t)g->nframes++;
	return 0;
}

static int push(struct cg *g, size_t *n, uint32_t frame, uint64_t addr, const char *src)
{
	PMT_FORWARD_IF_ERROR(grow((void **)&g->cur, &g->cur_cap, *n + 1, sizeof(*g->cur)));
	PMT_FORWARD_IF_ERROR(grow((void **)&g->cur_addr, &g->cur_addr_cap, *n + 1,
				  sizeof(*g->cur_addr)));
	if (g->want_src) {
		PMT_FORWARD_IF_ERROR(grow((void **)&g->cur_src, &g->cur_aux_cap, *n + 1,
					  sizeof(*g->cur_src)));
		g->cur_src[*n] = src;
	}
	g->cur_addr[*n] = addr;
	g->cur[(*n)++] = frame;
	return 0;
}

/* a frame of the address's list kept, with its line from perf's inline list (want_src) */
static int keep_frame(struct cg *g, uint32_t id, const char *src)
{
	PMT_FORWARD_IF_ERROR(grow((void **)&g->ipc_frames, &g->ipc_frames_cap,
				  g->ipc_frames_n + 1, sizeof(*g->ipc_frames)));
	if (g->want_src) {
		PMT_FORWARD_IF_ERROR(grow((void **)&g->ipc_srcs, &g->ipc_srcs_cap,
					  g->ipc_frames_n + 1, sizeof(*g->ipc_srcs)));
		g->ipc_srcs[g->ipc_frames_n] = src;
	}
	g->ipc_frames[g->ipc_frames_n++] = id;
	return 0;
}

static size_t ipc_slot(uint64_t ip, int32_t pid, size_t cap)
{
	return (size_t)mix(mix(0, ip), (uint32_t)pid) & (cap - 1);
}

static int ipc_grow(struct cg *g)
{
	size_t nc = g->ipc_cap ? g->ipc_cap * 2 : 4096;
	struct cg_ipent *t = calloc(nc, sizeof(*t));

	if (!t)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < g->ipc_cap; i++) {
		size_t j;

		if (!g->ipc[i].used)
			continue;
		for (j = ipc_slot(g->ipc[i].ip, g->ipc[i].pid, nc); t[j].used; j = (j + 1) & (nc - 1))
			;
		t[j] = g->ipc[i];
	}
	free(g->ipc);
	g->ipc = t;
	g->ipc_cap = nc;
	return 0;
}

/* a text the frames point to, kept until the graph is freed */
__attribute__((format(printf, 3, 4)))
static int keep_text(struct cg *g, const char **out, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	uint64_t h;
	size_t j;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* once each: a text's pointer is its identity (the srcline key's tree compares them) */
	if (g->nstrs * 2 >= g->strs_tab_cap) {
		size_t nc = g->strs_tab_cap ? g->strs_tab_cap * 2 : 1024;
		uint32_t *t = calloc(nc, sizeof(*t));

		if (!t)
			return -PMT_ENOMEM;
		for (size_t i = 0; i < g->nstrs; i++) {
			for (j = str_hash(g->strs[i]) & (nc - 1); t[j]; j = (j + 1) & (nc - 1))
				;
			t[j] = (uint32_t)i + 1;
		}
		free(g->strs_tab);
		g->strs_tab = t;
		g->strs_tab_cap = nc;
	}
	h = str_hash(buf);
	for (j = h & (g->strs_tab_cap - 1); g->strs_tab[j]; j = (j + 1) & (g->strs_tab_cap - 1))
		if (!strcmp(g->strs[g->strs_tab[j] - 1], buf)) {
			*out = g->strs[g->strs_tab[j] - 1];
			return 0;
		}
	PMT_FORWARD_IF_ERROR(grow((void **)&g->strs, &g->strs_cap, g->nstrs + 1, sizeof(*g->strs)));
	g->strs[g->nstrs] = strdup(buf);
	if (!g->strs[g->nstrs])
		return -PMT_ENOMEM;
	g->strs_tab[j] = (uint32_t)g->nstrs + 1;
	*out = g->strs[g->nstrs++];
	return 0;
}

/* perf's srcline_from_fileline: the file's last component, a colon, the line */
static int srcline_text(struct cg *g, const char *file, unsigned line, const char **out)
{
	const char *slash;

	*out = NULL;
	if (!file)
		return 0;
	slash = strrchr(file, '/');
	return keep_text(g, out, "%s:%u", slash ? slash + 1 : file, line);
}

/* a function frame's source line (perf's callchain_srcline and get_srcline): the line its
 * inlined callee is called from (outer), or the address's line; where addr2line finds
 * nothing either the srcline key has "??:0" and the address key the offset in the symbol
 * ("+N") or the file and address ("libc.so.6[2724a]"), no line when the address has no
 * file */
static int frame_srcline(struct cg *g, struct pmt_symbols *syms, const struct pmt_sym_loc *loc,
			 uint64_t ip, const struct pmt_inline_frame *outer, const char **out)
{
	const char *file;
	unsigned line;
	uint64_t vaddr;
	int rc;

	*out = NULL;
	if (!loc->dso)
		return 0;
	if (outer)
		return srcline_text(g, outer->file, outer->line, out);
	/* where the line table has no row perf asks addr2line, which may name the file of the
	 * STT_FILE symbol before the function with line 0 (":0" for an empty name) or none:
	 * its "??" is still an answer, so "??:0" under the address key too (perf 7.3 on
	 * _start of a program whose crt1.o has no line table), not the offset */
	rc = pmt_symbols_srcline_perf(syms, loc, &file, &line, &vaddr);
	if (rc == 1 || rc == 2)
		return srcline_text(g, file ? file : "??", line, out);
	/* perf 6.1 had no text for an unknown line (its frames then compare by function) */
	if (g->key == CG_KEY_SRCLINE)
		return g->compat >= 602 ? keep_text(g, out, "??:0") : 0;
	/* perf's ip - sym->start: the offset in the symbol, in decimal */
	if (loc->sym)
		return keep_text(g, out, "+%" PRIu64, loc->symoff);
	return keep_text(g, out, "%s[%" PRIx64 "]", loc->dso_short ? loc->dso_short : "",
			 loc->map_ip);
}

/* the frames of ip in process pid, innermost first, resolved on first sight. The maps
 * of a process are taken as they stand when an address is first seen (an address
 * mapped to another file later in the same process is not seen again). */
static int ip_frames(struct cg *g, struct pmt_symbols *syms, const struct pmt_spe_sample *s,
		     uint64_t ip, const struct cg_ipent **out)
{
	struct pmt_inline_frame fr[INLINE_MAX];
	struct pmt_sym_loc loc;
	struct cg_ipent *e;
	const char *sl = NULL, *isrc = NULL;
	uint32_t id;
	int ni = 0, rc;
	size_t j;

	if (g->ipc_n * 2 >= g->ipc_cap)
		PMT_FORWARD_IF_ERROR(ipc_grow(g));
	for (j = ipc_slot(ip, s->pid, g->ipc_cap); g->ipc[j].used; j = (j + 1) & (g->ipc_cap - 1))
		if (g->ipc[j].ip == ip && g->ipc[j].pid == s->pid) {
			*out = &g->ipc[j];
			return 0;
		}
	e = &g->ipc[j];
	*e = (struct cg_ipent){ .ip = ip, .pid = s->pid, .used = 1,
				.off = (uint32_t)g->ipc_frames_n };
	g->ipc_n++;
	memset(&loc, 0, sizeof(loc));
	pmt_symbols_resolve(syms, s->pid, ip, s->time, &loc);
	/* perf 7.3 adds the functions inlined at the address, innermost first
	 * (append_inlines) unless --no-inline; perf 6.1's report only to the frames its
	 * unwinder gave, each frame not by the symbol's name an inlined one (sink_chain_inlines) */
	if (!g->no_inline && loc.sym && loc.dso &&
	    (g->compat >= 602 || (s->user_unwound && !loc.kernel))) {
		ni = pmt_symbols_inlines(syms, &loc, fr, INLINE_MAX);
		for (int k = 0; g->compat < 602 && k < ni; k++)
			fr[k].inlined = !fr[k].func || strcmp(fr[k].func, loc.sym);
	}
	/* the holding function is the entry itself, unless perf names it as an inlined one
	 * (a clone), and so is an inner frame by the symbol's name (pmt_inline_frame) */
	for (int k = 0; k + 1 < ni || (k + 1 == ni && fr[k].inlined); k++) {
		struct pmt_sym_loc il = loc;
		uint32_t entry = 0;

		/* perf's inline list gives each of its frames a line: the innermost the
		 * address's, the others the line of their call */
		if (g->want_src)
			PMT_FORWARD_IF_ERROR(srcline_text(g, fr[k].file, fr[k].line, &isrc));
		if (!fr[k].inlined) {
			if (g->key != CG_KEY_FUNCTION)
				PMT_FORWARD_IF_ERROR(frame_srcline(g, syms, &loc, ip, &fr[k], &sl));
			PMT_FORWARD_IF_ERROR(intern(g, &loc, ip, false, NULL, sl, NULL, &id));
			goto push;
		}
		il.sym = fr[k].func ? fr[k].func : "??";
		if (g->key != CG_KEY_FUNCTION) {
			enum cg_key key = g->key;

			/* the function's entry: its frame with the function key (no address,
			 * no line), as perf's hist entries merge inlined symbols by name */
			g->key = CG_KEY_FUNCTION;
			rc = intern(g, &il, ip, true, loc.sym_id, NULL, NULL, &entry);
			g->key = key;
			PMT_FORWARD_IF_ERROR(rc);
			PMT_FORWARD_IF_ERROR(srcline_text(g, fr[k].file, fr[k].line, &sl));
		}
		PMT_FORWARD_IF_ERROR(intern(g, &il, ip, true, loc.sym_id, sl,
					    sl ? cg_frame(g, entry) : NULL, &id));
push:
		PMT_FORWARD_IF_ERROR(keep_frame(g, id, isrc));
	}
	if (ni && fr[ni - 1].inlined)
		goto done;
	if (g->key != CG_KEY_FUNCTION)
		PMT_FORWARD_IF_ERROR(frame_srcline(g, syms, &loc, ip, ni > 1 ? &fr[ni - 1] : NULL,
						   &sl));
	PMT_FORWARD_IF_ERROR(intern(g, &loc, ip, false, NULL, sl, NULL, &id));
	/* the function's line in the list: where it calls the inlined function, or without
	 * one the address's own (no list, no line: its entry looks the address up) */
	isrc = NULL;
	if (g->want_src && ni >= 1)
		PMT_FORWARD_IF_ERROR(srcline_text(g, fr[ni - 1].file, fr[ni - 1].line, &isrc));
	PMT_FORWARD_IF_ERROR(keep_frame(g, id, isrc));
done:
	e->n = (uint32_t)(g->ipc_frames_n - e->off);
	*out = e;
	return 0;
}

int cg_resolve(struct cg *g, struct pmt_symbols *syms, const struct pmt_spe_sample *s)
{
	const struct pmt_callchain *cc = s->callchain;
	size_t n = 0, skip = 0, taken = 0;

	/* perf walks a caller-ordered chain from its outer end: --max-stack keeps the
	 * outermost entries then, the innermost with the callee order; markers count not */
	if (g->order == CG_CALLER && cc && cc->nr > g->max_stack) {
		size_t entries = 0;

		for (uint64_t i = 0; i < cc->nr; i++)
			entries += cc->ips[i] < CONTEXT_MAX;
		skip = entries > g->max_stack ? entries - g->max_stack : 0;
	}
	for (uint64_t i = 0; cc && i < cc->nr && taken < g->max_stack; i++) {
		uint64_t ip = cc->ips[i];
		const struct cg_ipent *e;

		if (ip < CONTEXT_MAX && skip) {
			skip--;
			continue;
		}
		if (ip >= CONTEXT_MAX) {
			/* any other context: perf takes the chain for corrupt and drops it
			 * whole, the sample stays */
			if (ip != CONTEXT_HV && ip != CONTEXT_KERNEL && ip != CONTEXT_USER)
				return 0;
			continue;
		}
		taken++;
		PMT_FORWARD_IF_ERROR(ip_frames(g, syms, s, ip, &e));
		for (uint32_t k = 0; k < e->n; k++)
			PMT_FORWARD_IF_ERROR(push(g, &n, g->ipc_frames[e->off + k], ip,
						  g->want_src ? g->ipc_srcs[e->off + k] : NULL));
	}
	if (g->order == CG_CALLER)
		for (size_t i = 0; i < n / 2; i++) {
			uint32_t t = g->cur[i];
			uint64_t a = g->cur_addr[i];

			g->cur[i] = g->cur[n - 1 - i];
			g->cur[n - 1 - i] = t;
			g->cur_addr[i] = g->cur_addr[n - 1 - i];
			g->cur_addr[n - 1 - i] = a;
			if (g->want_src) {
				const char *sr = g->cur_src[i];

				g->cur_src[i] = g->cur_src[n - 1 - i];
				g->cur_src[n - 1 - i] = sr;
			}
		}
	return (int)n;
}

static int new_node(struct cg *g, uint32_t frame, uint64_t ip, uint32_t *out)
{
	PMT_FORWARD_IF_ERROR(grow((void **)&g->nodes, &g->node_cap, g->nnodes + 1,
				  sizeof(*g->nodes)));
	PMT_FORWARD_IF_ERROR(grow((void **)&g->node_ip, &g->node_ip_cap, g->nnodes + 1,
				  sizeof(*g->node_ip)));
	PMT_FORWARD_IF_ERROR(hist_rb_reserve(&g->kid_rb, g->nnodes + 1));
	g->node_ip[g->nnodes] = ip;
	g->nodes[g->nnodes] = (struct cg_node){ .frame = frame };
	*out = (uint32_t)g->nnodes++;
	return 0;
}

/* perf's match_chain(new, existing) (util/callchain.c) with the tree's key, as the side
 * of existing's node in its parent's red-black tree the new frame goes to (< 0: left,
 * existing is the lesser; 0: the same node). With the function key an inlined function
 * is told apart by its name alone and others by file and start, frames without a symbol
 * by file and address: not a total order once inlined frames mix with others, so where a
 * frame lands (and whether it meets its equal) depends on the tree's shape, which is
 * why the children are kept in perf's tree and not looked up by equality. The file's
 * order is its dso object's address in perf's memory (pmt_sym_loc.dso_order). */
static int frame_vs(const struct cg *g, uint32_t existing, uint32_t fr, uint64_t ip)
{
	const struct cg_frame *x = cg_frame(g, g->nodes[existing].frame);
	const struct cg_frame *y = cg_frame(g, fr);
	uint64_t u = g->node_ip[existing], v = ip;

	/* match_chain_strings: a frame without a line is the greater; neither has one:
	 * the function key's rule */
	if (g->key == CG_KEY_SRCLINE && (x->srcline || y->srcline)) {
		int c = !x->srcline ? 1 : !y->srcline ? -1 : strcmp(x->srcline, y->srcline);

		return c < 0 ? -1 : c > 0;
	}
	if (g->key != CG_KEY_ADDRESS && x->loc.sym && y->loc.sym) {
		if (x->inlined || y->inlined) {
			int c = x == y ? 0 : strcmp(x->loc.sym, y->loc.sym);

			return c < 0 ? -1 : c > 0;
		}
		u = x->loc.sym_start;
		v = y->loc.sym_start;
	}
	/* match_chain_dso_addresses */
	if (x->loc.dso_order != y->loc.dso_order)
		return x->loc.dso_order < y->loc.dso_order ? -1 : 1;
	return u < v ? -1 : u > v;
}

static int64_t chain_cmp(const void *ctx, uint32_t existing, uint32_t added)
{
	const struct cg *g = ctx;

	return frame_vs(g, existing, g->nodes[added].frame, g->node_ip[added]);
}

/* the child of node at that holds frame fr at address ip, added when perf's walk of the
 * parent's tree meets none (append_chain_children); siblings are kept in the tree's
 * order, a new one beside its neighbour there */
static int child_for(struct cg *g, uint32_t at, uint32_t fr, uint64_t ip, uint32_t *out)
{
	uint32_t c, prev;

	for (uint32_t x = g->nodes[at].kids; x;) {
		int d = frame_vs(g, x - 1, fr, ip);

		if (!d) {
			*out = x - 1;
			return 0;
		}
		x = g->kid_rb.ch[d < 0 ? 0 : 1][x - 1];
	}
	PMT_FORWARD_IF_ERROR(new_node(g, fr, ip, &c));
	/* the walk again, now linking c where it ended */
	(void)hist_rb_findnew(&g->kid_rb, &g->nodes[at].kids, c, chain_cmp, g);
	prev = hist_rb_prev(&g->kid_rb, c);
	if (prev) {
		g->nodes[c].sibling = g->nodes[prev - 1].sibling;
		g->nodes[prev - 1].sibling = c;
	} else {
		g->nodes[c].sibling = g->nodes[at].child;
		g->nodes[at].child = c;
	}
	*out = c;
	return 0;
}

/* perf's append_chain_children(): a run of frames without a branch is one node of perf's
 * and a run of trie nodes here, each with one child, whose tree of one node takes a
 * frame that is not its equal to a new side (perf's split_add_child) */
static int append_path(struct cg *g, struct cg_ev *x, const uint32_t *fr, const uint64_t *addrs,
		       size_t n, uint64_t period)
{
	uint32_t at;

	if (!x->root)
		PMT_FORWARD_IF_ERROR(new_node(g, UINT32_MAX, 0, &x->root));
	at = x->root;
	g->nodes[at].cumul += period;
	g->nodes[at].count++;
	for (size_t i = 0; i < n; i++) {
		PMT_FORWARD_IF_ERROR(child_for(g, at, fr[i], addrs[i], &at));
		g->nodes[at].cumul += period;
		g->nodes[at].count++;
	}
	g->nodes[at].hit += period;
	return 0;
}

int cg_append(struct cg *g, struct cg_ev *x, const uint32_t *fr, const uint64_t *addrs,
	      size_t n, uint64_t period)
{
	/* perf's callchain_append() takes no empty chain */
	if (!n)
		return 0;
	if ((size_t)x->max_depth < n)
		x->max_depth = (uint32_t)n;
	return append_path(g, x, fr, addrs, n, period);
}

/* the frame of fr's file and address without a symbol */
static int unnamed_frame(struct cg *g, uint32_t fr, uint64_t ip, uint32_t *out)
{
	struct pmt_sym_loc loc = cg_frame(g, fr)->loc;

	loc.sym = NULL;
	loc.sym_id = NULL;
	/* the line stays (merge_chain_branch passes it on): the srcline key matches by it */
	return intern(g, &loc, ip, false, NULL, cg_frame(g, fr)->srcline, NULL, out);
}

struct merge_path {
	uint32_t *fr;
	uint64_t *ip;
	size_t cap;
};

/* perf's merge_chain_branch(): src node n's frame onto the path, the path appended with
 * the chains that end there, then each child's */
static int merge_branch(struct cg *g, struct cg_ev *dst, uint32_t n, struct merge_path *p,
			size_t depth)
{
	size_t cap = p->cap;

	PMT_FORWARD_IF_ERROR(grow((void **)&p->fr, &cap, depth + 1, sizeof(*p->fr)));
	cap = p->cap;
	PMT_FORWARD_IF_ERROR(grow((void **)&p->ip, &cap, depth + 1, sizeof(*p->ip)));
	p->cap = cap;
	p->ip[depth] = g->node_ip[n];
	PMT_FORWARD_IF_ERROR(unnamed_frame(g, g->nodes[n].frame, p->ip[depth], &p->fr[depth]));
	if (g->nodes[n].hit)
		PMT_FORWARD_IF_ERROR(append_path(g, dst, p->fr, p->ip, depth + 1,
						 g->nodes[n].hit));
	for (uint32_t c = g->nodes[n].child; c; c = g->nodes[c].sibling)
		PMT_FORWARD_IF_ERROR(merge_branch(g, dst, c, p, depth + 1));
	return 0;
}

int cg_merge_unnamed(struct cg *g, struct cg_ev *dst, const struct cg_ev *src)
{
	struct merge_path p = { 0 };
	int rc = 0;

	if (!src->root || !g->node_addrs)
		return 0;
	for (uint32_t c = g->nodes[src->root].child; c && rc >= 0; c = g->nodes[c].sibling)
		rc = merge_branch(g, dst, c, &p, 0);
	free(p.fr);
	free(p.ip);
	return rc;
}

/* a word of -g: perf takes any prefix of a name (util/callchain.c strncmp with the
 * word's length), the first table that has it winning */
static bool word_is(const char *tok, const char *name)
{
	return !strncmp(tok, name, strlen(tok));
}

/* perf's tables in the order it tries them: print type, order, key, value */
static const struct {
	const char *name;
	enum { W_MODE, W_ORDER, W_KEY, W_BRANCH, W_VALUE } kind;
	int v;
} cg_words[] = {
	{ "graph", W_MODE, CG_GRAPH },     { "flat", W_MODE, CG_FLAT },
	{ "fractal", W_MODE, CG_FRACTAL }, { "folded", W_MODE, CG_FOLDED },
	{ "caller", W_ORDER, CG_CALLER },  { "callee", W_ORDER, CG_CALLEE },
	{ "function", W_KEY, CG_KEY_FUNCTION }, { "address", W_KEY, CG_KEY_ADDRESS },
	{ "srcline", W_KEY, CG_KEY_SRCLINE },   { "branch", W_BRANCH, 0 },
	{ "percent", W_VALUE, CG_PERCENT }, { "period", W_VALUE, CG_PERIOD },
	{ "count", W_VALUE, CG_COUNT },
};

static bool cg_word_set(struct cg *g, const char *tok, bool *order_given)
{
	for (size_t i = 0; i < sizeof(cg_words) / sizeof(cg_words[0]); i++) {
		if (!word_is(tok, cg_words[i].name))
			continue;
		switch (cg_words[i].kind) {
		case W_MODE: g->mode = (enum cg_mode)cg_words[i].v; break;
		case W_ORDER:
			g->order = (enum cg_order)cg_words[i].v;
			*order_given = true;
			break;
		case W_KEY: g->key = (enum cg_key)cg_words[i].v; break;
		case W_BRANCH: g->branch = true; break;
		case W_VALUE: g->value = (enum cg_value)cg_words[i].v; break;
		}
		return true;
	}
	return false;
}

/* perf report's -g argument (util/callchain.c __parse_callchain_report_opt): print type,
 * order, key and value words in any order, comma separated, and numbers: the threshold,
 * then the print limit (a later one replaces it); a word that is none (or its prefix)
 * ends it with no graph */
int cg_parse(struct cg *g, const char *spec, bool *order_given, struct pmt_diag *diag)
{
	char tok[64];
	unsigned numbers = 0;

	while (spec && *spec) {
		size_t n = strcspn(spec, ",");
		char *end;

		if (!n) { /* strtok_r: no empty words */
			spec++;
			continue;
		}
		if (n >= sizeof(tok))
			return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
					    "-g: '%.16s...' is no print type, order, key, value "
					    "or number", spec);
		memcpy(tok, spec, n);
		tok[n] = 0;
		spec += n;
		if (word_is(tok, "none")) {
			g->mode = CG_NONE;
			return 0;
		}
		if (cg_word_set(g, tok, order_given))
			continue;
		/* perf reads a number's leading part and ignores the rest ("0.5x" is 0.5);
		 * nothing readable is an error */
		if (numbers++ == 0) {
			double v = strtod(tok, &end);

			if (end == tok)
				goto bad;
			g->min_percent = v;
			g->threshold_given = true;
		} else {
			unsigned long v = strtoul(tok, &end, 0);

			if (end == tok)
				goto bad;
			g->print_limit = (uint32_t)v;
		}
	}
	return 0;
bad:
	return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
			    "-g: '%s' is no print type, order, key, value or number (perf's "
			    "print_type,threshold[,print_limit],order,sort_key[,branch],value)",
			    tok);
}
