/* The call graph below a report entry, as perf report --stdio prints it (ui/stdio/hist.c
 * callchain__fprintf_graph and __callchain__fprintf_graph; the sorted tree of
 * util/callchain.c sort_chain_graph_abs). perf's tree merges a run of frames without a
 * branch and where no chain ends into one node: runs are taken from the trie here. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

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

/* a child goes before another: more hit, or as much and first in its parent's
 * rb_root_in, the order the trie keeps siblings in (sort_chain_graph_abs walks that tree
 * in order and rb_insert_callchain puts equal ones after) */
static bool kid_before(const struct cg *g, uint32_t a, uint32_t b, bool by_period)
{
	return by_period && g->nodes[a].cumul > g->nodes[b].cumul;
}

/* the children of trie node n at or above min_hit, in perf's printing order, or
 * (by_period false) in its rb_root_in order */
static int kids_of(const struct cg *g, uint32_t n, uint64_t min_hit, bool by_period,
		   struct kids *k)
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
		for (j = k->n; j > 0 && kid_before(g, c, k->v[j - 1], by_period); j--)
			k->v[j] = k->v[j - 1];
		k->v[j] = c;
		k->n++;
	}
	return 0;
}

static int sorted_kids(const struct cg *g, uint32_t n, uint64_t min_hit, struct kids *k)
{
	return kids_of(g, n, min_hit, true, k);
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
		if (f->srcline) {
			pmt_out_char(o, ' ');
			pmt_out_str(o, f->srcline);
		}
		if (f->inlined)
			pmt_out_str(o, " (inlined)");
	} else if (f->ip) {
		pmt_out_printf(o, "%#" PRIx64, f->ip);
	} else {
		pmt_out_char(o, '0'); /* "%#" prints no 0x before a zero */
	}
}

/* a level's pipe in perf's int depth mask, set and tested with 1 << level: x86-64's and
 * AArch64's shifts of a 32-bit value take the count mod 32, so a level below 32 reuses
 * the bit of the level 32 above it (a pipe printed at the left margin of a deep
 * recursion's separator line, as perf 7.3 prints it) */
static uint64_t level_bit(unsigned level)
{
	return 1ULL << (level & 31);
}

/* ipchain__fprintf_graph_line */
static void graph_line(struct pmt_out *o, unsigned depth, uint64_t mask, unsigned left)
{
	margin(o, left);
	for (unsigned i = 0; i < depth; i++)
		pmt_out_str(o, mask & level_bit(i) ? "|          " : "           ");
	pmt_out_char(o, '\n');
}

/* callchain_node__fprintf_value: a node's period, count or share of total; folded
 * chains show what ends at their node, the others what passes through it */
static void node_value(const struct cg *g, uint64_t period, uint64_t count, uint64_t total,
		       struct pmt_out *o)
{
	switch (g->value) {
	case CG_PERIOD:
		pmt_out_printf(o, "%" PRIu64, period);
		break;
	case CG_COUNT:
		pmt_out_printf(o, "%u", (unsigned)count);
		break;
	default:
		pmt_out_printf(o, "%.2f%%", total ? (double)period * 100.0 / (double)total : 0.0);
		break;
	}
}

/* ipchain__fprintf_graph: the first frame of a node carries its value; frame UINT32_MAX
 * is perf's "[...]", what a fractal graph's printed children leave of their parent */
static void graph_entry(const struct cg *g, uint64_t cumul, uint64_t count, uint32_t frame,
			unsigned depth, uint64_t mask, unsigned idx, uint64_t total,
			unsigned left, struct pmt_out *o)
{
	margin(o, left);
	for (unsigned i = 0; i < depth; i++) {
		pmt_out_char(o, mask & level_bit(i) ? '|' : ' ');
		if (!idx && i == depth - 1) {
			pmt_out_str(o, "--");
			node_value(g, cumul, count, total, o);
			pmt_out_str(o, "--");
		} else {
			pmt_out_str(o, "          ");
		}
	}
	if (frame == UINT32_MAX)
		pmt_out_str(o, "[...]");
	else
		frame_name(g, frame, o);
	pmt_out_char(o, '\n');
}

/* the least period a child of trie node n is printed with: perf's min_callchain_hits of
 * the event (graph), or a share of the node's callees rounded up (fractal,
 * __sort_chain_graph_rel) */
static uint64_t kid_min(const struct cg *g, uint32_t n, uint64_t abs_min)
{
	if (g->mode != CG_FRACTAL)
		return abs_min;
	return (uint64_t)ceil((double)(g->nodes[n].cumul - g->nodes[n].hit) *
			      (g->min_percent / 100.0));
}

/* the children of trie node parent (__callchain__fprintf_graph): whether anything was
 * printed, or < 0 */
static int graph(const struct cg *g, uint32_t parent, uint64_t total, uint64_t abs_min,
		 unsigned depth, uint64_t mask, unsigned left, struct pmt_out *o)
{
	struct kids k;
	uint64_t new_mask = mask, remaining = total, cumul_count = 0;
	size_t i;

	PMT_FORWARD_IF_ERROR(sorted_kids(g, parent, kid_min(g, parent, abs_min), &k));
	for (i = 0; i < k.n; i++) {
		uint32_t c = k.v[i], end = run_end(g, c), idx = 0;
		int rc;

		remaining -= g->nodes[c].cumul;
		cumul_count += g->nodes[c].count;
		/* the last child ends its level's pipe, unless a fractal graph's remainder
		 * comes after it (perf keeps the old mask for the separator line) */
		if (i + 1 == k.n && (g->mode != CG_FRACTAL || !remaining))
			new_mask &= ~level_bit(depth - 1);
		graph_line(o, depth, mask, left);
		for (uint32_t n = c;; n = g->nodes[n].child) {
			graph_entry(g, g->nodes[c].cumul, g->nodes[c].count, g->nodes[n].frame,
				    depth, new_mask, idx++, total, left, o);
			if (n == end)
				break;
		}
		rc = graph(g, end, g->mode == CG_FRACTAL ? g->nodes[end].cumul - g->nodes[end].hit
							 : total,
			   abs_min, depth + 1, new_mask | level_bit(depth), left, o);
		if (rc < 0) {
			free(k.v);
			return rc;
		}
		if (i + 1 == g->print_limit) {
			i++;
			break;
		}
	}
	free(k.v);
	if (g->mode == CG_FRACTAL && remaining && remaining != total) {
		uint64_t rem_count = 0;

		if (g->value == CG_COUNT) {
			/* the parent's callees' chains less those printed */
			for (uint32_t c = g->nodes[parent].child; c; c = g->nodes[c].sibling)
				rem_count += g->nodes[c].count;
			rem_count -= cumul_count;
			if (!rem_count)
				return i > 0;
		}
		new_mask &= ~level_bit(depth - 1);
		graph_entry(g, remaining, rem_count, UINT32_MAX, depth, new_mask, 0, total, left, o);
		return 1;
	}
	return i > 0;
}

/* the chains that end at a node below n, in perf's sort_chain_flat order: the callees
 * (rb_root_in order) before the node, then by period (stable) */
static int flat_nodes(const struct cg *g, uint32_t n, uint64_t min_hit, struct kids *out,
		      size_t *cap)
{
	struct kids k;

	PMT_FORWARD_IF_ERROR(kids_of(g, n, 0, false, &k));
	for (size_t i = 0; i < k.n; i++) {
		int rc = flat_nodes(g, k.v[i], min_hit, out, cap);

		if (rc < 0) {
			free(k.v);
			return rc;
		}
	}
	free(k.v);
	if (g->nodes[n].hit && g->nodes[n].hit >= min_hit) {
		size_t j;

		if (out->n == *cap) {
			size_t nc = *cap ? *cap * 2 : 16;
			uint32_t *v = realloc(out->v, nc * sizeof(*v));

			if (!v)
				return -PMT_ENOMEM;
			out->v = v;
			*cap = nc;
		}
		for (j = out->n; j > 0 && g->nodes[out->v[j - 1]].hit < g->nodes[n].hit; j--)
			out->v[j] = out->v[j - 1];
		out->v[j] = n;
		out->n++;
	}
	return 0;
}

/* the frames from the root to node n, root first (its parents are found by walking down
 * again from the root: the trie keeps no parent links) */
static bool path_to(const struct cg *g, uint32_t from, uint32_t n, uint32_t *path, size_t *len,
		    size_t cap)
{
	for (uint32_t c = g->nodes[from].child; c; c = g->nodes[c].sibling) {
		if (*len >= cap)
			return false;
		path[(*len)++] = g->nodes[c].frame;
		if (c == n || path_to(g, c, n, path, len, cap))
			return true;
		(*len)--;
	}
	return false;
}

/* the frames on the longest path below n: a tree merged into another (cg_merge_unnamed)
 * can be deeper than the chains appended to it, its max_depth */
static size_t tree_depth(const struct cg *g, uint32_t n)
{
	size_t d = 0;

	for (uint32_t c = g->nodes[n].child; c; c = g->nodes[c].sibling) {
		size_t dc = tree_depth(g, c) + 1;

		d = dc > d ? dc : d;
	}
	return d;
}

/* callchain__fprintf_flat and callchain__fprintf_folded */
static void print_chains(const struct cg *g, const struct cg_ev *x, uint64_t total,
			 uint64_t min_hit, struct pmt_out *o)
{
	struct kids chains = { 0 };
	size_t cap = 0;
	const size_t depth = g->node_addrs ? tree_depth(g, x->root) : x->max_depth;
	uint32_t *path = malloc((depth + 1) * sizeof(*path));

	if (!path || flat_nodes(g, x->root, min_hit, &chains, &cap) < 0)
		goto out;
	for (size_t i = 0; i < chains.n; i++) {
		const struct cg_node *nd = &g->nodes[chains.v[i]];
		size_t len = 0;

		if (!path_to(g, x->root, chains.v[i], path, &len, depth + 1))
			break;
		if (g->mode == CG_FOLDED) {
			uint64_t ends = nd->count;

			for (uint32_t c = nd->child; c; c = g->nodes[c].sibling)
				ends -= g->nodes[c].count;
			node_value(g, nd->hit, ends, total, o);
			pmt_out_char(o, ' ');
			for (size_t f = 0; f < len; f++) {
				if (f)
					pmt_out_char(o, ';');
				frame_name(g, path[f], o);
			}
			pmt_out_char(o, '\n');
		} else {
			pmt_out_str(o, "           ");
			node_value(g, nd->cumul, nd->count, total, o);
			pmt_out_char(o, '\n');
			for (size_t f = 0; f < len; f++) {
				pmt_out_str(o, "                ");
				frame_name(g, path[f], o);
				pmt_out_char(o, '\n');
			}
			pmt_out_char(o, '\n');
		}
		if (i + 1 == g->print_limit)
			break;
	}
out:
	free(chains.v);
	free(path);
}

void cg_print(const struct cg *g, const struct cg_ev *x, uint64_t total, uint64_t shown_total,
	      uint64_t parent, struct pmt_out *o)
{
	/* perf's min_callchain_hits: hists__total_period() times the percentage, truncated */
	uint64_t min_hit = (uint64_t)((double)shown_total * (g->min_percent / 100.0));
	unsigned left = 0, lines = 0;
	bool printed = false;
	int rc;
	uint32_t from;
	struct kids k;

	if (g->mode == CG_NONE || !x || !x->root)
		return;
	if (g->mode == CG_FLAT || g->mode == CG_FOLDED) {
		print_chains(g, x, total, min_hit, o);
		return;
	}
	if (sorted_kids(g, x->root, kid_min(g, x->root, min_hit), &k) < 0)
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
				/* perf's print limit counts these lines too, and goes on with
				 * the node's callees */
				if (++lines == g->print_limit)
					break;
			}
			if (n == end)
				break;
		}
		from = end;
	}
	free(k.v);
	if (g->mode == CG_FRACTAL)
		total = parent;
	rc = graph(g, from, total, min_hit, 1, 1, left, o);
	/* a blank line after a graph, none when nothing was printed */
	if (printed || rc > 0)
		pmt_out_char(o, '\n');
}
