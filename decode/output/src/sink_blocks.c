/* A sink's rows made in blocks on several threads (pmt_sink_blocks): CSV and JSONL rows
 * depend on their sample alone (the sink's caches only save work), so each slot has a
 * copy of the sink writing into a buffer of its own, and the buffers go to the sink's
 * output in block order. Text rows are padded to the widest field seen so far: not them. */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "sink_priv.h"

struct pmt_sink_blocks {
	struct pmt_spe_sink *k;
	unsigned n;
	/* Each slot on cache lines of its own: two threads make the rows of neighbouring
	 * slots at once, and one's out.len, written at every row, shared a line with the
	 * next slot's sink fields read at every row. */
	struct slot {
		_Alignas(64) struct pmt_spe_sink k; /* the sink's copy: its caches, writing into out */
		struct pmt_out out;    /* in memory (fp NULL): grows to a block's rows */
	} *slot;
};

int pmt_sink_blocks_new(struct pmt_spe_sink *k, unsigned nslots, struct pmt_sink_blocks **out)
{
	struct pmt_sink_blocks *b;

	*out = NULL;
	if (!k || !nslots || (k->fmt != PMT_SINK_CSV && k->fmt != PMT_SINK_JSONL) ||
	    k->callchain_col)
		return -PMT_EUNSUPPORTED;
	b = calloc(1, sizeof(*b));
	/* sizeof(struct slot) is a multiple of its alignment, as aligned_alloc wants */
	if (!b || !(b->slot = aligned_alloc(_Alignof(struct slot), nslots * sizeof(*b->slot)))) {
		free(b);
		return -PMT_ENOMEM;
	}
	memset(b->slot, 0, nslots * sizeof(*b->slot));
	b->k = k;
	b->n = nslots;
	for (unsigned i = 0; i < nslots; i++) {
		b->slot[i].k = *k;
		b->slot[i].k.out = &b->slot[i].out;
		b->slot[i].k.tail_valid = 0;
	}
	*out = b;
	return 0;
}

void pmt_sink_blocks_free(struct pmt_sink_blocks *b)
{
	if (!b)
		return;
	for (unsigned i = 0; i < b->n; i++)
		free(b->slot[i].out.buf);
	free(b->slot);
	free(b);
}

int pmt_sink_blocks_rows(struct pmt_sink_blocks *b, unsigned slot,
			 const struct pmt_spe_sample *s, size_t n)
{
	struct slot *sl;

	if (slot >= b->n)
		return -PMT_EINVAL;
	sl = &b->slot[slot];
	for (size_t i = 0; i < n; i++)
		sink_write_row(&sl->k, &s[i], sl->k.fmt == PMT_SINK_JSONL);
	return 0;
}

int pmt_sink_blocks_out(struct pmt_sink_blocks *b, unsigned slot)
{
	struct pmt_out *o = b->k->out;
	struct slot *sl;

	if (slot >= b->n)
		return -PMT_EINVAL;
	sl = &b->slot[slot];
	/* what the sink holds goes first; its cached tail is then gone, as after a flush */
	if (o->len && !o->err && fwrite(o->buf, 1, o->len, o->fp) != o->len)
		o->err = -PMT_EIO;
	o->len = 0;
	b->k->tail_valid = 0;
	if (sl->out.len && !o->err && fwrite(sl->out.buf, 1, sl->out.len, o->fp) != sl->out.len)
		o->err = -PMT_EIO;
	/* the slot's next block starts empty; its cached tail is gone with these rows */
	sl->out.len = 0;
	sl->k.tail_valid = 0;
	return 0;
}
