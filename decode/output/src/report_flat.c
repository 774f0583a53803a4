/* perf report's entries without Children: each event's with samples there, sorted as perf
 * sorts them, to a callback, and with -j the text of the later events made on a second
 * thread (hist_flat.h) */
#define _GNU_SOURCE /* fopencookie */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"

#include "callgraph.h"
#include "hist_flat.h"
#include "hist_grow.h"
#include "hist_sort.h"

/* rows of a text report from which its later events are printed on a second thread
 * (flat_split): below, the thread's start and the copy of its text cost about what it
 * saves */
#define FLAT_SPLIT_ROWS 20000

struct flat_item {
	uint32_t e;
	uint64_t key;
};

static inline bool flat_has(const struct pmt_hist *h, const struct hent *e, unsigned ev,
			    uint64_t *key)
{
	uint32_t xi = hent_ev_at(h, e, ev);
	const struct hent_ev *x = &h->ev[xi];
	const struct cg_ev *c = cg_ev_of(h->cg, xi);

	*key = h->mem_mode ? x->weight : x->period;
	return x->nr || (c && c->acc_period);
}

/* the events [from, to) of flat_events' collected items, sorted and handed to fn with
 * scratch of their own (w, ord, tmp: an entry each; key: by entry) */
struct flat_run {
	struct pmt_hist *h;
	hist_event_fn fn;
	void *ctx;
	const struct flat_item *items;
	const size_t *off;
	const unsigned *order;
	const unsigned (*widest)[KEY_COUNT]; /* NULL: no widths */
	const uint64_t *rank_of;
	struct hent **w;
	uint32_t *ord, *tmp;
	uint64_t *key;
	unsigned from, to;
	int rc;
};

static int flat_range(struct flat_run *r)
{
	struct pmt_hist *h = r->h;
	int rc = 0;

	for (unsigned o = r->from; o < r->to && rc >= 0; o++) {
		const size_t m = r->off[o + 1] - r->off[o];
		const struct flat_item *it = r->items + r->off[o];

		/* perf prints the header of an event whose samples --pid/--tid all hid */
		if (!h->whole_samples[r->order[o]])
			continue;
		for (size_t j = 0; j < m; j++) {
			r->ord[j] = it[j].e;
			r->key[r->ord[j]] = it[j].key;
		}
		hist_sort_asc(r->ord, r->tmp, m, r->rank_of);
		hist_sort_desc(r->ord, r->tmp, m, r->key);
		for (size_t j = 0; j < m; j++)
			r->w[j] = &h->e[r->ord[j]];
		rc = r->fn(h, r->order[o], r->w, m, r->widest ? r->widest[o] : NULL, r->ctx);
	}
	return rc;
}

struct text_ctx {
	struct pmt_out *out;
	int compat;
};

static int print_text(struct pmt_hist *h, unsigned ev, struct hent **v, size_t n,
		      const unsigned *widest, void *vctx)
{
	const struct text_ctx *c = vctx;

	hist_print_event(h, c->out, ev, c->compat, v, n, widest);
	return 0;
}

/* the second thread's text: open_memstream zero-filled each page of its buffer before the
 * copy into it (4,400 page faults more than one thread, on the bench's 129k rows); this
 * grows as the report's tables do (hist_grow.h: 2 MB pages past 256 KB) */
struct text_mem {
	char *p;
	size_t len, cap;
};

static ssize_t text_mem_write(void *cookie, const char *buf, size_t n)
{
	struct text_mem *m = cookie;

	while (m->cap - m->len < n) {
		char *q = hist_grow_table(m->p, &m->cap, 1);

		if (!q)
			return -1;
		m->p = q;
	}
	memcpy(m->p + m->len, buf, n);
	m->len += n;
	return (ssize_t)n;
}

static void *flat_thread(void *arg)
{
	struct flat_run *r = arg;

	r->rc = flat_range(r);
	return NULL;
}

/* With -j: the text of the later events made on a second thread, into memory, while this
 * one sorts and prints the first ones; the bytes are the same. Only the plain text (no call
 * graphs, whose printing keeps state): 0 when done, 1 when not taken (then the caller
 * prints them all). */
static int flat_split(struct flat_run *r, struct pmt_out *out, int compat)
{
	struct pmt_hist *h = r->h;
	const size_t n = h->n ? h->n : 1, rows = r->off[r->to];
	struct flat_run b = *r;
	struct text_ctx tc = { NULL, compat };
	struct pmt_out bout;
	struct text_mem mem = { NULL, 0, 64 << 10 };
	cookie_io_functions_t io = { .write = text_mem_write };
	FILE *fp;
	pthread_t th;
	unsigned split = r->from;
	int rc;

	/* a thread costs more than the sorting and printing of a small table saves */
	if (h->jobs < 2 || h->cg || rows < FLAT_SPLIT_ROWS)
		return 1;
	while (split < r->to && r->off[split + 1] * 2 <= rows)
		split++;
	if (split == r->from || split == r->to)
		return 1;
	b.w = malloc(n * sizeof(*b.w));
	b.ord = malloc(n * sizeof(*b.ord));
	b.tmp = malloc(n * sizeof(*b.tmp));
	b.key = malloc(n * sizeof(*b.key));
	mem.p = malloc(mem.cap);
	fp = b.w && b.ord && b.tmp && b.key && mem.p ? fopencookie(&mem, "w", io) : NULL;
	if (fp && pmt_out_init(&bout, fp, 1 << 16) < 0) {
		fclose(fp);
		fp = NULL;
	}
	rc = 1;
	if (fp) {
		tc.out = &bout;
		b.fn = print_text;
		b.ctx = &tc;
		b.from = split;
		if (pthread_create(&th, NULL, flat_thread, &b) == 0) {
			r->to = split;
			rc = flat_range(r);
			pthread_join(th, NULL);
			if (pmt_out_fini(&bout) < 0 && rc >= 0)
				rc = -PMT_EIO;
			if (rc >= 0 && b.rc < 0)
				rc = b.rc;
			if (fclose(fp) != 0 && rc >= 0)
				rc = -PMT_ENOMEM;
			/* written after what this thread printed, not copied into its buffer:
			 * growing that to the size of the text faulted ~1,100 pages more */
			if (rc >= 0 && pmt_out_flush(out) >= 0 && mem.len &&
			    fwrite(mem.p, 1, mem.len, out->fp) != mem.len)
				out->err = -PMT_EIO;
		} else {
			pmt_out_fini(&bout);
			fclose(fp);
		}
	}
	free(mem.p);
	free(b.w);
	free(b.ord);
	free(b.tmp);
	free(b.key);
	return rc;
}

/* Without Children: each event's entries with samples there, by period down, then rank
 * (rank_of: every entry's place in the keys' order). Two passes over the entries in memory
 * order (~200 bytes each) collect them all, where a pass per event read every entry again
 * (10 events, 50k entries of unresolved addresses: 5% of a symbolized report) */
int hist_flat_events(struct pmt_hist *h, hist_event_fn fn, void *ctx, bool widths,
		     struct hent **w, uint32_t *ord, uint32_t *tmp, uint64_t *key,
		     const uint64_t *rank_of, struct pmt_out *text, int compat)
{
	unsigned order[HIST_SLOTS], no = pmt_ev_slot_order(&h->slots, order);
	size_t off[HIST_SLOTS + 1] = { 0 }, at[HIST_SLOTS];
	/* the columns' widths, in this pass over the entries in memory order: a pass per
	 * column over the printed order read each entry again from anywhere in the table */
	unsigned widest[HIST_SLOTS][KEY_COUNT] = { { 0 } };
	char buf[4096];
	struct flat_item *items;
	struct flat_run r;
	uint64_t k;
	int rc;

	for (size_t i = 0; i < h->n; i++)
		for (unsigned o = 0; o < no; o++)
			off[o + 1] += hent_ev_at(h, &h->e[i], order[o]) &&
				      flat_has(h, &h->e[i], order[o], &k);
	for (unsigned o = 0; o < no; o++) {
		off[o + 1] += off[o];
		at[o] = off[o];
	}
	items = malloc((off[no] ? off[no] : 1) * sizeof(*items));
	if (!items)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < h->n; i++)
		for (unsigned o = 0; o < no; o++)
			if (hent_ev_at(h, &h->e[i], order[o]) &&
			    flat_has(h, &h->e[i], order[o], &k)) {
				items[at[o]++] = (struct flat_item){ (uint32_t)i, k };
				for (unsigned c = 0; widths && c < h->nkeys; c++) {
					size_t l = hist_cell_width(h, &h->e[i], h->keys[c], order[o],
							      buf, sizeof(buf));

					if (l > widest[o][c])
						widest[o][c] = (unsigned)l;
				}
			}
	r = (struct flat_run){ .h = h, .fn = fn, .ctx = ctx, .items = items, .off = off,
			       .order = order,
			       .widest = widths ? (const unsigned (*)[KEY_COUNT])widest : NULL,
			       .rank_of = rank_of, .w = w, .ord = ord, .tmp = tmp, .key = key,
			       .from = 0, .to = no };
	rc = text ? flat_split(&r, text, compat) : 1;
	if (rc == 1)
		rc = flat_range(&r);
	free(items);
	return rc;
}

