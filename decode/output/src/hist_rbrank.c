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
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "hist_rbrank.h"

struct rb {
	uint32_t *ch[2], *parent; /* children (left, right) and parent: index + 1; 0: none */
	uint8_t *red;
	uint32_t root;
};

#define C(t, x, d) ((t)->ch[d][(x) - 1])
#define P(t, x) ((t)->parent[(x) - 1])
#define RED(t, x) ((x) && (t)->red[(x) - 1])

/* x's child on side !d takes its place, x becomes that child's d side (d = 0: a left
 * rotation) */
static void rotate(struct rb *t, uint32_t x, int d)
{
	uint32_t y = C(t, x, !d), up = P(t, x);

	C(t, x, !d) = C(t, y, d);
	if (C(t, y, d))
		P(t, C(t, y, d)) = x;
	P(t, y) = up;
	if (!up)
		t->root = y;
	else
		C(t, up, C(t, up, 0) == x ? 0 : 1) = y;
	C(t, y, d) = x;
	P(t, x) = y;
}

/* rb_insert_color: recolour while the uncle is red, else one or two rotations */
static void fixup(struct rb *t, uint32_t z)
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
			rotate(t, z, d);
			p = P(t, z);
		}
		t->red[p - 1] = 0;
		t->red[g - 1] = 1;
		rotate(t, g, !d);
	}
	t->red[t->root - 1] = 0;
}

int hist_rb_ranks(const uint32_t *order, size_t n, hist_rb_cmp cmp, const void *ctx,
		  uint32_t *rank, uint32_t *into)
{
	struct rb t = { 0 };
	uint32_t *stack;
	size_t sp = 0, next = 0;
	int rc = -PMT_ENOMEM;

	if (!n)
		return 0;
	t.ch[0] = calloc(n, sizeof(*t.ch[0]));
	t.ch[1] = calloc(n, sizeof(*t.ch[1]));
	t.parent = calloc(n, sizeof(*t.parent));
	t.red = calloc(n, 1);
	stack = malloc(n * sizeof(*stack));
	if (!t.ch[0] || !t.ch[1] || !t.parent || !t.red || !stack)
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint32_t z = (uint32_t)i + 1, y = 0, x = t.root;
		int64_t c = 0;

		/* hists__findnew_entry: left while cmp(existing, new) < 0; an equal one
		 * ends the walk where the caller asks for merges (into), as
		 * hists__collapse_insert_entry's does */
		while (x) {
			y = x;
			c = cmp(ctx, order[x - 1], order[i]);
			if (!c && into)
				break;
			x = C(&t, x, c < 0 ? 0 : 1);
		}
		if (into) {
			into[order[i]] = x ? order[x - 1] : order[i];
			if (x)
				continue;
		}
		P(&t, z) = y;
		if (!y)
			t.root = z;
		else
			C(&t, y, c < 0 ? 0 : 1) = z;
		t.red[i] = 1;
		fixup(&t, z);
	}
	/* in order, as rb_first/rb_next walk it */
	for (uint32_t x = t.root; x || sp;) {
		while (x) {
			stack[sp++] = x;
			x = C(&t, x, 0);
		}
		x = stack[--sp];
		rank[order[x - 1]] = (uint32_t)next++;
		x = C(&t, x, 1);
	}
	rc = 0;
out:
	free(t.ch[0]);
	free(t.ch[1]);
	free(t.parent);
	free(t.red);
	free(stack);
	return rc;
}
