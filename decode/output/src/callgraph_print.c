/* The call graph below a report entry, as perf report --stdio prints it (ui/stdio/hist.c
 * callchain__fprintf_graph and __callchain__fprintf_graph; the sorted tree of
 * util/callchain.c sort_chain_graph_abs). perf's tree merges a run of frames without a
 * branch and where no chain ends into one node: runs are taken from the trie here. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "callgraph.h"

/* the last trie node of the perf node that starts at n */
static uint32_t run_end(const struct cg *g, uint32_t n)
{
	while (!g->nodes[n].hit && g->nodes[n].child && !g->nodes[g->nodes[n].child].sibling)
		n = g->nodes[n].child;
	return n;
}

struct kids {
	uint32_t *v;
	size_t n;
};

/* perf's match_chain() of two frames (util/callchain.c): inlined functions by name, other
 * symbols by file and start, frames without one by file and address; the file's order is
 * its object's address in memory, taken here as the order of the pmt_symbols' files */
static int frame_cmp(const struct cg *g, uint32_t a, uint32_t b)
{
	const struct cg_frame *x = cg_frame(g, a), *y = cg_frame(g, b);
	uint64_t u, v;

	if (x->loc.sym && y->loc.sym && (x->inlined || y->inlined)) {
		int c = strcmp(x->loc.sym, y->loc.sym);

		if (c)
			return c;
	}
	if ((uintptr_t)x->loc.dso_id != (uintptr_t)y->loc.dso_id)
		return (uintptr_t)x->loc.dso_id < (uintptr_t)y->loc.dso_id ? -1 : 1;
	u = x->loc.sym && y->loc.sym ? x->loc.sym_start : x->ip;
	v = x->loc.sym && y->loc.sym ? y->loc.sym_start : y->ip;
	return u < v ? -1 : u > v;
}

/* a child goes before another: more hit, or as much and perf's insertion order (its
 * rb_root_in walked in order, which puts a greater frame first, then
 * rb_insert_callchain's equal ones after) */
static bool kid_before(const struct cg *g, uint32_t a, uint32_t b)
{
	if (g->nodes[a].cumul != g->nodes[b].cumul)
		return g->nodes[a].cumul > g->nodes[b].cumul;
	return frame_cmp(g, g->nodes[a].frame, g->nodes[b].frame) > 0;
}

/* the children of trie node n at or above min_hit, in perf's printing order */
static int sorted_kids(const struct cg *g, uint32_t n, uint64_t min_hit, struct kids *k)
{
	size_t cap = 0;

	k->n = 0;
	k->v = NULL;
	for (uint32_t c = g->nodes[n].child; c; c = g->nodes[c].sibling)
		cap++;
	if (!cap)
		return 0;
	k->v = malloc(cap * sizeof(*k->v));
	if (!k->v)
		return -PMT_ENOMEM;
	for (uint32_t c = g->nodes[n].child; c; c = g->nodes[c].sibling) {
		size_t j;

		if (g->nodes[c].cumul < min_hit)
			continue;
		for (j = k->n; j > 0 && kid_before(g, c, k->v[j - 1]); j--)
			k->v[j] = k->v[j - 1];
		k->v[j] = c;
		k->n++;
	}
	return 0;
}

static void margin(struct pmt_out *o, unsigned left)
{
	pmt_out_str(o, "            ");
	for (unsigned i = 0; i < left; i++)
		pmt_out_char(o, ' ');
}

static void frame_name(const struct cg *g, uint32_t frame, struct pmt_out *o)
{
	const struct cg_frame *f = cg_frame(g, frame);

	if (f->loc.sym) {
		pmt_out_str(o, f->loc.sym);
		if (f->inlined)
			pmt_out_str(o, " (inlined)");
	} else if (f->ip) {
		pmt_out_printf(o, "%#" PRIx64, f->ip);
	} else {
		pmt_out_char(o, '0'); /* "%#" prints no 0x before a zero */
	}
}

/* ipchain__fprintf_graph_line */
static void graph_line(struct pmt_out *o, unsigned depth, uint64_t mask, unsigned left)
{
	margin(o, left);
	for (unsigned i = 0; i < depth; i++)
		pmt_out_str(o, mask & (1ULL << i) ? "|          " : "           ");
	pmt_out_char(o, '\n');
}

/* ipchain__fprintf_graph: the first frame of a node carries its percentage */
static void graph_entry(const struct cg *g, uint64_t cumul, uint32_t frame, unsigned depth,
			uint64_t mask, unsigned idx, uint64_t total, unsigned left,
			struct pmt_out *o)
{
	margin(o, left);
	for (unsigned i = 0; i < depth; i++) {
		pmt_out_char(o, mask & (1ULL << i) ? '|' : ' ');
		if (!idx && i == depth - 1)
			pmt_out_printf(o, "--%.2f%%--",
				       total ? (double)cumul * 100.0 / (double)total : 0.0);
		else
			pmt_out_str(o, "          ");
	}
	frame_name(g, frame, o);
	pmt_out_char(o, '\n');
}

/* the children of trie node parent: how many were printed, or < 0 */
static int graph(const struct cg *g, uint32_t parent, uint64_t total, uint64_t min_hit,
		 unsigned depth, uint64_t mask, unsigned left, struct pmt_out *o)
{
	struct kids k;
	uint64_t new_mask = mask;

	PMT_FORWARD_IF_ERROR(sorted_kids(g, parent, min_hit, &k));
	for (size_t i = 0; i < k.n; i++) {
		uint32_t c = k.v[i], end = run_end(g, c), idx = 0;
		int rc;

		/* the last child ends its level's pipe (perf keeps the old mask for the
		 * separator line) */
		if (i + 1 == k.n)
			new_mask &= ~(1ULL << (depth - 1));
		graph_line(o, depth, mask, left);
		for (uint32_t n = c;; n = g->nodes[n].child) {
			graph_entry(g, g->nodes[c].cumul, g->nodes[n].frame, depth, new_mask, idx++,
				    total, left, o);
			if (n == end)
				break;
		}
		rc = graph(g, end, total, min_hit, depth + 1, new_mask | (1ULL << depth), left, o);
		if (rc < 0) {
			free(k.v);
			return rc;
		}
	}
	free(k.v);
	return (int)k.n;
}

void cg_print(const struct cg *g, const struct cg_ev *x, uint64_t total, uint64_t parent,
	      struct pmt_out *o)
{
	/* perf's min_callchain_hits: the event's period times the percentage, truncated */
	uint64_t min_hit = (uint64_t)((double)total * (g->min_percent / 100.0));
	unsigned left = 0;
	bool printed = false;
	int rc;
	uint32_t from;
	struct kids k;

	if (g->mode != CG_GRAPH || !x || !x->root)
		return;
	if (sorted_kids(g, x->root, min_hit, &k) < 0)
		return;
	from = x->root;
	/* one chain that holds all of the entry's period: no percentage, perf's "---" */
	if (k.n == 1 && g->nodes[k.v[0]].cumul == parent) {
		uint32_t c = k.v[0], end = run_end(g, c), idx = 0;

		for (uint32_t n = c;; n = g->nodes[n].child) {
			/* sorted by symbol first, the entry is the chain's first frame: not
			 * printed twice */
			if (!(idx++ == 0 && g->skip_first_sym)) {
				if (!printed) {
					margin(o, left);
					pmt_out_str(o, "|\n");
					margin(o, left);
					pmt_out_str(o, "---");
					left += 3;
					printed = true;
				} else {
					margin(o, left);
				}
				frame_name(g, g->nodes[n].frame, o);
				pmt_out_char(o, '\n');
			}
			if (n == end)
				break;
		}
		from = end;
	}
	free(k.v);
	rc = graph(g, from, total, min_hit, 1, 1, left, o);
	/* a blank line after a graph, none when nothing was printed */
	if (printed || rc > 0)
		pmt_out_char(o, '\n');
}
