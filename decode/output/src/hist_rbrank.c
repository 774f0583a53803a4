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
	uint32_t *left, *right, *parent; /* node index + 1; 0: none */
	uint8_t *red;
	uint32_t root;
};

#define L(t, x) ((t)->left[(x) - 1])
#define R(t, x) ((t)->right[(x) - 1])
#define P(t, x) ((t)->parent[(x) - 1])
#define RED(t, x) ((x) && (t)->red[(x) - 1])

static void set_child(struct rb *t, uint32_t parent, uint32_t old, uint32_t node)
{
	if (!parent)
		t->root = node;
	else if (L(t, parent) == old)
		L(t, parent) = node;
	else
		R(t, parent) = node;
}

static void rotate_left(struct rb *t, uint32_t x)
{
	uint32_t y = R(t, x);

	R(t, x) = L(t, y);
	if (L(t, y))
		P(t, L(t, y)) = x;
	P(t, y) = P(t, x);
	set_child(t, P(t, x), x, y);
	L(t, y) = x;
	P(t, x) = y;
}

static void rotate_right(struct rb *t, uint32_t x)
{
	uint32_t y = L(t, x);

	L(t, x) = R(t, y);
	if (R(t, y))
		P(t, R(t, y)) = x;
	P(t, y) = P(t, x);
	set_child(t, P(t, x), x, y);
	R(t, y) = x;
	P(t, x) = y;
}

/* rb_insert_color: recolour while the uncle is red, else one or two rotations */
static void fixup(struct rb *t, uint32_t z)
{
	while (RED(t, P(t, z))) {
		uint32_t p = P(t, z), g = P(t, p);

		if (p == L(t, g)) {
			uint32_t u = R(t, g);

			if (RED(t, u)) {
				t->red[p - 1] = t->red[u - 1] = 0;
				t->red[g - 1] = 1;
				z = g;
				continue;
			}
			if (z == R(t, p)) {
				z = p;
				rotate_left(t, z);
				p = P(t, z);
			}
			t->red[p - 1] = 0;
			t->red[g - 1] = 1;
			rotate_right(t, g);
		} else {
			uint32_t u = L(t, g);

			if (RED(t, u)) {
				t->red[p - 1] = t->red[u - 1] = 0;
				t->red[g - 1] = 1;
				z = g;
				continue;
			}
			if (z == L(t, p)) {
				z = p;
				rotate_right(t, z);
				p = P(t, z);
			}
			t->red[p - 1] = 0;
			t->red[g - 1] = 1;
			rotate_left(t, g);
		}
	}
	t->red[t->root - 1] = 0;
}

int hist_rb_ranks(const uint32_t *order, size_t n, hist_rb_cmp cmp, const void *ctx,
		  uint32_t *rank)
{
	struct rb t = { 0 };
	uint32_t *stack;
	size_t sp = 0, next = 0;
	int rc = -PMT_ENOMEM;

	if (!n)
		return 0;
	t.left = calloc(n, sizeof(*t.left));
	t.right = calloc(n, sizeof(*t.right));
	t.parent = calloc(n, sizeof(*t.parent));
	t.red = calloc(n, 1);
	stack = malloc(n * sizeof(*stack));
	if (!t.left || !t.right || !t.parent || !t.red || !stack)
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint32_t z = (uint32_t)i + 1, y = 0, x = t.root;
		int64_t c = 0;

		/* hists__findnew_entry: left while cmp(existing, new) < 0; the entries
		 * given are distinct, so no walk ends on an equal one */
		while (x) {
			y = x;
			c = cmp(ctx, order[x - 1], order[i]);
			x = c < 0 ? L(&t, x) : R(&t, x);
		}
		P(&t, z) = y;
		if (!y)
			t.root = z;
		else if (c < 0)
			L(&t, y) = z;
		else
			R(&t, y) = z;
		t.red[i] = 1;
		fixup(&t, z);
	}
	/* in order, as rb_first/rb_next walk it */
	for (uint32_t x = t.root; x || sp;) {
		while (x) {
			stack[sp++] = x;
			x = L(&t, x);
		}
		x = stack[--sp];
		rank[order[x - 1]] = (uint32_t)next++;
		x = R(&t, x);
	}
	rc = 0;
out:
	free(t.left);
	free(t.right);
	free(t.parent);
	free(t.red);
	free(stack);
	return rc;
}
