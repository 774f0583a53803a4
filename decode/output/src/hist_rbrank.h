/* perf's red-black tree order of hist entries under a comparator that need not be a total
 * order (hist_rbrank.c). Private to decode/output. */
#ifndef PMT_OUTPUT_HIST_RBRANK_H
#define PMT_OUTPUT_HIST_RBRANK_H

#include <stddef.h>
#include <stdint.h>

/* perf's hist_entry__cmp(existing, new): < 0 sends new to the left */
typedef int64_t (*hist_rb_cmp)(const void *ctx, uint32_t existing, uint32_t added);

/* order[0..n): items (< the size of rank) in insertion order, inserted one by one into a
 * red-black tree as lib/rbtree.c does; rank[item] = its place in the tree's in-order walk.
 * into NULL: the items are distinct; else an item that compares equal to one in the tree
 * is merged into it (into[item] = that one, its rank left as it was), and into[item] =
 * item for those inserted. 0 or -PMT_ENOMEM. */
int hist_rb_ranks(const uint32_t *order, size_t n, hist_rb_cmp cmp, const void *ctx,
		  uint32_t *rank, uint32_t *into);

/* A tree grown one item at a time (perf's entry tree while samples come in): its nodes
 * are the caller's items, numbered from 0; roots are the caller's (0: an empty tree), so
 * one hist_rb can hold several trees of distinct items. */
struct hist_rb {
	uint32_t *ch[2], *parent; /* children (left, right) and parent: item + 1; 0: none */
	uint8_t *red;
	size_t cap;
};
/* room for the items below n: 0 or -PMT_ENOMEM */
int hist_rb_reserve(struct hist_rb *t, size_t n);
void hist_rb_fini(struct hist_rb *t);
/* the item of the tree at *root that compares equal to item (the first the walk meets),
 * or item itself, then linked in (hists__findnew_entry) */
uint32_t hist_rb_findnew(struct hist_rb *t, uint32_t *root, uint32_t item, hist_rb_cmp cmp,
			 const void *ctx);
/* the item before item in the in-order walk of its tree, + 1; 0: it is the first */
uint32_t hist_rb_prev(const struct hist_rb *t, uint32_t item);

#endif
