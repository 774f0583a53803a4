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

#endif
