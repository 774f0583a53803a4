/* The order perf 7.3 walks its hist entries in when it merges those of one source line
 * (hists__collapse_resort: the first of a text in the input tree's order keeps its named
 * graph, the others are merged into it). That tree is a red-black tree ordered by
 * sort__srcline_cmp, whose address part is a wrapped 64-bit difference
 * (_sort__addr_cmp: (int64_t)(right - left)): addresses more than 2^63 apart compare the
 * wrong way round, which chains through frames in no map give (0, 0x1, 0x9000000000000000
 * read off a stack without frame pointers). The order is then not total, and where an
 * entry lands depends on the tree's shape: so the tree is built here as perf builds it
 * (lib/rbtree.c's insertion, which is the textbook one), in the order perf made the
 * entries. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "hist_rbrank.h"

#define C(t, x, d) ((t)->ch[d][(x) - 1])
#define P(t, x) ((t)->parent[(x) - 1])
#define RED(t, x) ((x) && (t)->red[(x) - 1])

/* x's child on side !d takes its place, x becomes that child's d side (d = 0: a left
 * rotation) */
static void rotate(struct hist_rb *t, uint32_t *root, uint32_t x, int d)
{
	uint32_t y = C(t, x, !d), up = P(t, x);

	C(t, x, !d) = C(t, y, d);
	if (C(t, y, d))
		P(t, C(t, y, d)) = x;
	P(t, y) = up;
	if (!up)
		*root = y;
	else
		C(t, up, C(t, up, 0) == x ? 0 : 1) = y;
	C(t, y, d) = x;
	P(t, x) = y;
}

/* rb_insert_color: recolour while the uncle is red, else one or two rotations */
static void fixup(struct hist_rb *t, uint32_t *root, uint32_t z)
{
	while (RED(t, P(t, z))) {
		uint32_t p = P(t, z), g = P(t, p);
		int d = p == C(t, g, 0) ? 0 : 1; /* the parent's side */
		uint32_t u = C(t, g, !d);

		if (RED(t, u)) {
			t->red[p - 1] = t->red[u - 1] = 0;
			t->red[g - 1] = 1;
			z = g;
			continue;
		}
		if (z == C(t, p, !d)) {
			z = p;
			rotate(t, root, z, d);
			p = P(t, z);
		}
		t->red[p - 1] = 0;
		t->red[g - 1] = 1;
		rotate(t, root, g, !d);
	}
	t->red[*root - 1] = 0;
}

int hist_rb_reserve(struct hist_rb *t, size_t n)
{
	size_t cap = t->cap ? t->cap : 256;

	if (n <= t->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	for (int d = 0; d < 2; d++) {
		uint32_t *v = realloc(t->ch[d], cap * sizeof(*v));

		if (!v)
			return -PMT_ENOMEM;
		t->ch[d] = v;
	}
	{
		uint32_t *v = realloc(t->parent, cap * sizeof(*v));
		uint8_t *r;

		if (!v)
			return -PMT_ENOMEM;
		t->parent = v;
		r = realloc(t->red, cap);
		if (!r)
			return -PMT_ENOMEM;
		t->red = r;
	}
	t->cap = cap;
	return 0;
}

void hist_rb_fini(struct hist_rb *t)
{
	free(t->ch[0]);
	free(t->ch[1]);
	free(t->parent);
	free(t->red);
	memset(t, 0, sizeof(*t));
}

/* hists__findnew_entry: left while cmp(existing, new) < 0; an equal one ends the walk
 * where the caller asks for merges, as hists__collapse_insert_entry's does */
static uint32_t insert(struct hist_rb *t, uint32_t *root, uint32_t item, hist_rb_cmp cmp,
		       const void *ctx, bool merge)
{
	uint32_t z = item + 1, y = 0, x = *root;
	int64_t c = 0;

	while (x) {
		y = x;
		c = cmp(ctx, x - 1, item);
		if (!c && merge)
			return x - 1;
		x = C(t, x, c < 0 ? 0 : 1);
	}
	C(t, z, 0) = C(t, z, 1) = 0;
	P(t, z) = y;
	if (!y)
		*root = z;
	else
		C(t, y, c < 0 ? 0 : 1) = z;
	t->red[item] = 1;
	fixup(t, root, z);
	return item;
}

uint32_t hist_rb_findnew(struct hist_rb *t, uint32_t *root, uint32_t item, hist_rb_cmp cmp,
			 const void *ctx)
{
	return insert(t, root, item, cmp, ctx, true);
}

uint32_t hist_rb_prev(const struct hist_rb *t, uint32_t item)
{
	uint32_t x = item + 1, up;

	if (C(t, x, 0)) {
		for (x = C(t, x, 0); C(t, x, 1);)
			x = C(t, x, 1);
		return x;
	}
	for (up = P(t, x); up && C(t, up, 0) == x; up = P(t, x))
		x = up;
	return up;
}

int hist_rb_ranks(const uint32_t *order, size_t n, hist_rb_cmp cmp, const void *ctx,
		  uint32_t *rank, uint32_t *into)
{
	struct hist_rb t = { 0 };
	uint32_t *stack, root = 0, max = 0;
	size_t sp = 0, next = 0;
	int rc = -PMT_ENOMEM;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		max = order[i] > max ? order[i] : max;
	stack = malloc(n * sizeof(*stack));
	if (!stack || hist_rb_reserve(&t, (size_t)max + 1) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint32_t at = insert(&t, &root, order[i], cmp, ctx, into != NULL);

		if (into)
			into[order[i]] = at;
	}
	/* in order, as rb_first/rb_next walk it */
	for (uint32_t x = root; x || sp;) {
		while (x) {
			stack[sp++] = x;
			x = C(&t, x, 0);
		}
		x = stack[--sp];
		rank[x - 1] = (uint32_t)next++;
		x = C(&t, x, 1);
	}
	rc = 0;
out:
	hist_rb_fini(&t);
	free(stack);
	return rc;
}
