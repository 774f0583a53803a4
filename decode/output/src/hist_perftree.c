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
 * hists are per event.
 *
 * Every new entry is placed by perf's walk, but the walks of the others were a quarter
 * of a -g report's time, and most cannot miss: the keys perf compares before sym (comm, dso)
 * keep groups of entries apart in the tree's order, and in a group without an inlined
 * frame, whose addresses and symbols fit in half the address space, perf's comparison is
 * a total order whose equal entries are the index's: there the index's entry is the one
 * any walk meets. In the other (dirty) groups a key walks, or takes its last walk's entry
 * while no node was made since (equal keys compare alike: the same walk). */
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
	if (l->dso_id == r->dso_id)
		return 0; /* one file, one name (most comparisons: a group's entries) */
	if (!l->dso_id || !r->dso_id)
		return !l->dso_id ? -1 : 1;
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
	h->e[h->n].ev_slot = (uint8_t)h->adding_slot;
	return 0;
}

/* perf's wrapped differences of addresses are an order while the addresses fit in an arc
 * shorter than half the address space (the kernel's and a process's do; the odd values
 * a frame-pointer walk reads off a stack need not): arc_take widens the arc to a, the
 * shorter way, false when it no longer fits (then no arc does) */
static bool arc_take(struct hist_arc *arc, uint64_t a)
{
	uint64_t up, down;

	if (!arc->any) {
		*arc = (struct hist_arc){ .lo = a, .len = 0, .any = 1 };
		return true;
	}
	if (a - arc->lo <= arc->len)
		return true;
	up = a - arc->lo;              /* the end moved to a */
	down = arc->lo + arc->len - a; /* the start moved to a */
	if (up < down)
		arc->len = up;
	else {
		arc->lo = a;
		arc->len = down;
	}
	return arc->len < (1ULL << 63);
}

/* whether perf's comparison stays a total order in a group with e in it: an inlined
 * frame's symbol is equal to the neighbours of its name only; without the dso key, an
 * address without a symbol is compared by address before its file, other symbols after
 * it; addresses far apart wrap around */
static bool keeps_total(const struct pmt_hist *h, struct hist_group *g, const struct hent *e)
{
	uint64_t start, end;

	if (e->inlined)
		return false;
	if (!e->sym_id)
		return (h->used_keys & (1u << KEY_DSO)) && arc_take(&g->nosym, e->ip);
	pmt_symbols_sym_range(e->sym_id, &start, &end);
	return arc_take(&g->sym, start) && arc_take(&g->sym, end);
}

static uint64_t fnv_str(uint64_t v, const char *s)
{
	for (; *s; s++)
		v = (v ^ (uint8_t)*s) * 0x100000001b3ULL;
	return (v ^ 0xff) * 0x100000001b3ULL;
}

/* the keys before sym, by what perf compares (names, not the index's pointers) */
static uint64_t prefix_hash(const struct pmt_hist *h, const struct hent *e)
{
	uint64_t v = 0xcbf29ce484222325ULL;

	for (unsigned i = 0; i < h->nkeys && h->keys[i] != KEY_SYM; i++)
		if (h->keys[i] == KEY_COMM)
			v = fnv_str(v, e->comm == UINT32_MAX ? "" : h->comms + e->comm);
		else /* dso */
			v = e->dso_id ? fnv_str(v, e->dso ? e->dso : "") : v * 31 + 1;
	return v;
}

static bool prefix_equal(const struct pmt_hist *h, const struct hent *a, const struct hent *b)
{
	for (unsigned i = 0; i < h->nkeys && h->keys[i] != KEY_SYM; i++)
		if (hist_perf_key_cmp(h, h->keys[i], a, b))
			return false;
	return true;
}

/* the new entry at's group, made when it is the first of one; then whether it leaves the
 * group's order total */
static int group_take(struct pmt_hist *h, uint32_t at)
{
	struct hent *e = &h->e[at];
	const uint32_t hi = (uint32_t)(prefix_hash(h, e) >> 32);
	struct hist_group *g;
	size_t j;

	if ((h->ngroups + 1) * 4 > h->group_cap * 3)
		PMT_FORWARD_IF_ERROR(hist_slots_grow(&h->group_idx, &h->group_cap, 64));
	for (j = hi & (h->group_cap - 1); h->group_idx[j].at; j = (j + 1) & (h->group_cap - 1))
		if (h->group_idx[j].hash_hi == hi &&
		    prefix_equal(h, &h->e[h->groups[h->group_idx[j].at - 1].first], e))
			break;
	if (!h->group_idx[j].at) {
		if (h->ngroups == h->groups_cap) {
			size_t cap = h->groups_cap ? h->groups_cap * 2 : 16;
			struct hist_group *v = realloc(h->groups, cap * sizeof(*v));

			if (!v)
				return -PMT_ENOMEM;
			h->groups = v;
			h->groups_cap = cap;
		}
		h->groups[h->ngroups] = (struct hist_group){ .first = at };
		h->group_idx[j] = (struct hslot){ hi, (uint32_t)++h->ngroups };
	}
	e->group = h->group_idx[j].at - 1;
	g = &h->groups[e->group];
	if (!g->dirty && !keeps_total(h, g, e))
		g->dirty = 1;
	return 0;
}

void hist_tree_groups_free(struct pmt_hist *h)
{
	free(h->groups);
	free(h->group_idx);
	free(h->walks);
	h->groups = NULL;
	h->group_idx = NULL;
	h->walks = NULL;
	h->ngroups = h->groups_cap = h->group_cap = h->walks_cap = 0;
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
		h->tree_ver++;
		if (h->tree_cached)
			return group_take(h, at);
	}
	return 0;
}

int hist_tree_seen(struct pmt_hist *h, const struct hent *k, const uint32_t *seen, size_t n,
		   uint32_t group)
{
	PMT_FORWARD_IF_ERROR(stage(h, k));
	/* perf's he_cache (iter_add_next_cumulative_entry): a frame whose entry compares
	 * equal to one the sample already counted in is skipped */
	for (size_t i = 0; i < n; i++)
		/* the srcline or srcfile key, there with the tree, compares the addresses:
		 * others differ; so do other groups' entries */
		if ((!(h->used_keys & SRC_KEYS) || h->e[seen[i]].ip == k->ip) &&
		    (group == UINT32_MAX || h->e[seen[i]].group == group) &&
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
