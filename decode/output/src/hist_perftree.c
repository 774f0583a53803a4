/* perf 7.3's comparison of hist entries (sort.c hist_entry__cmp) over the keys whose order
 * is followed here (sym, dso, comm, srcline, srcfile), and its entry tree while samples
 * come in (hists__findnew_entry), where that comparison is not a total order.
 *
 * perf compares an inlined function's symbol by its name and, names equal, by whether its
 * holding function's range touches the other's (ends included), other symbols by their
 * ranges (_sort__sym_cmp): inlined symbols of one name in neighbouring functions are
 * equal, in functions further apart not, so equal entries can sit in the tree where a walk
 * does not meet them. perf then makes another entry (a node with its own counts and call
 * graph) and its merge by text (hists__collapse_resort) can miss it again: one "NAME
 * (inlined)  FILE:LINE" printed in several rows (10 texts in 20 rows of an `ls -lR /usr -g`
 * recording). With the sym key and a chain's inlined frames, the table's entries are
 * perf's nodes: found by walking the same tree perf walks, one tree per event as perf's
 * hists are per event. */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/symbols.h"
#include "hist_table.h"
#include "hist_rbrank.h"
#include "callgraph.h"

int64_t hist_dso_cmp(const struct hent *l, const struct hent *r)
{
	/* sort__dso_cmp(left, right) is _sort__dso_cmp(right's map, left's): no file first,
	 * then the names the other way round */
	if (!l->dso_id || !r->dso_id)
		return !l->dso_id && !r->dso_id ? 0 : !l->dso_id ? -1 : 1;
	return strcmp(r->dso ? r->dso : "", l->dso ? l->dso : "");
}

/* the range of perf's symbol for the entry: an inlined function's is its holding
 * function's (srcline.c new_inline_sym), whose symbol the inlined frame keeps in its ip
 * (callgraph_tree.c intern) */
static void sym_range(const struct hent *e, uint64_t *start, uint64_t *end)
{
	const void *id = e->sym_id;

	if (e->inlined)
		id = (const void *)(uintptr_t)((const struct cg_frame *)id)->ip;
	pmt_symbols_sym_range(id, start, end);
}

/* sort__sym_cmp(left, right), which is its collapse too */
static int64_t sym_cmp(const struct pmt_hist *h, const struct hent *l, const struct hent *r)
{
	uint64_t ls, le, rs, re;
	int64_t c;

	if (!l->sym_id && !r->sym_id)
		return (int64_t)(r->ip - l->ip);
	if (!(h->used_keys & (1u << KEY_DSO)) && (c = hist_dso_cmp(l, r)) != 0)
		return c;
	if (!l->sym_id || !r->sym_id)
		return !l->sym_id ? -1 : 1;
	if (l->sym_id == r->sym_id)
		return 0;
	sym_range(l, &ls, &le);
	sym_range(r, &rs, &re);
	if (l->inlined || r->inlined) {
		if ((c = strcmp(l->sym, r->sym)) != 0)
			return c;
		if (ls <= re && le >= rs)
			return 0;
	}
	if (ls != rs)
		return (int64_t)(rs - ls);
	return (int64_t)(re - le);
}

int64_t hist_perf_key_cmp(const struct pmt_hist *h, enum key key, const struct hent *l,
			  const struct hent *r)
{
	int64_t c;

	switch (key) {
	case KEY_SYM:
		return sym_cmp(h, l, r);
	case KEY_DSO:
		return hist_dso_cmp(l, r);
	case KEY_COMM: /* sort__comm_cmp: right's name to left's */
		if (l->comm == r->comm)
			return 0; /* one name in the pool (most entries: one command) */
		return strcmp(r->comm == UINT32_MAX ? "" : h->comms + r->comm,
			      l->comm == UINT32_MAX ? "" : h->comms + l->comm);
	default: /* srcline, srcfile before the merge: sort__srcline_cmp */
		if ((c = (int64_t)(r->ip - l->ip)) != 0)
			return c;
		return hist_dso_cmp(l, r);
	}
}

bool hist_perf_keys_known(const struct pmt_hist *h)
{
	return !(h->used_keys & ~((1u << KEY_SYM) | (1u << KEY_DSO) | (1u << KEY_COMM) | SRC_KEYS));
}

int64_t hist_perf_cmp(const void *ctx, uint32_t existing, uint32_t added)
{
	const struct pmt_hist *h = ctx;
	int64_t c = 0;

	for (unsigned i = 0; i < h->nkeys && !c; i++)
		c = hist_perf_key_cmp(h, h->keys[i], &h->e[existing], &h->e[added]);
	return c;
}

/* k in the table's next place, not yet counted in it: what the walks compare */
static int stage(struct pmt_hist *h, const struct hent *k)
{
	PMT_FORWARD_IF_ERROR(hist_room_for_entry(h));
	PMT_FORWARD_IF_ERROR(hist_rb_reserve(h->tree, h->n + 1));
	h->e[h->n] = *k;
	h->e[h->n].seq = h->seq;
	return 0;
}

int hist_tree_find_or_add(struct pmt_hist *h, struct hent *k, size_t *slot)
{
	uint32_t at;

	PMT_FORWARD_IF_ERROR(stage(h, k));
	at = hist_rb_findnew(h->tree, &h->tree_root[h->adding_slot], (uint32_t)h->n,
			     hist_perf_cmp, h);
	*slot = at;
	if (at == h->n) {
		h->seq++;
		h->n++;
	}
	return 0;
}

int hist_tree_seen(struct pmt_hist *h, const struct hent *k, const uint32_t *seen, size_t n)
{
	PMT_FORWARD_IF_ERROR(stage(h, k));
	/* perf's he_cache (iter_add_next_cumulative_entry): a frame whose entry compares
	 * equal to one the sample already counted in is skipped */
	for (size_t i = 0; i < n; i++)
		/* the srcline or srcfile key, there with the tree, compares the addresses:
		 * others differ */
		if ((!(h->used_keys & SRC_KEYS) || h->e[seen[i]].ip == k->ip) &&
		    !hist_perf_cmp(h, seen[i], (uint32_t)h->n))
			return 1;
	return 0;
}

int hist_tree_order(struct pmt_hist *h)
{
	const struct hist_rb *t = h->tree;
	uint32_t *ord = malloc((h->n ? h->n : 1) * sizeof(*ord));

	if (!ord)
		return -PMT_ENOMEM;
	/* perf's output tree takes the entries in their tree's walk, and an entry equal to
	 * one there in every sort key goes after it */
	for (unsigned ev = 0; ev < HIST_SLOTS; ev++) {
		uint32_t at = h->tree_root[ev], place = 0, from;

		/* in order by the parent links: leftmost first, then each one's successor */
		while (at && t->ch[0][at - 1])
			at = t->ch[0][at - 1];
		while (at) {
			ord[at - 1] = place++;
			if (t->ch[1][at - 1]) {
				for (at = t->ch[1][at - 1]; t->ch[0][at - 1];)
					at = t->ch[0][at - 1];
				continue;
			}
			do {
				from = at;
				at = t->parent[at - 1];
			} while (at && t->ch[1][at - 1] == from);
		}
	}
	free(h->tree_ord);
	h->tree_ord = ord;
	return 0;
}
