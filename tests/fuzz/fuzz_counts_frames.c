/* Fuzz the counts frames' reader (formats/container, FORMAT.md "Counts frames"): the input
 * as a container (pmt_ctr_counts_list, then every usable frame decoded), and the input as
 * one counts frame's content with its checksum made to hold, so the fuzzer reaches the
 * payload's columns instead of stopping at the checksum (once more with the values of odd
 * ids left unread, pmt_ctr_counts_want); and the data frames' records read
 * into the same columns (the fallback when columns do not decode), from each listed frame
 * and from the input as one zstd frame. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/container.h"

struct ctx {
	const uint8_t *buf;
	size_t len;
	struct pmt_ctr_counts *dec;
	volatile uint64_t sink;
};

static void use(struct ctx *c, const struct pmt_ctr_counts_frame *f)
{
	for (uint32_t i = 0; i < f->nstats; i++)
		c->sink += f->val[i] ^ f->ena[i] ^ f->run[i] ^ f->keys[f->key[i]].id;
	for (uint32_t i = 0; i < f->nrounds; i++)
		c->sink += f->round_time[i] + f->seg[i];
	for (uint32_t i = 0; i < f->ngaps; i++)
		c->sink += f->gap_at[i] ^ f->gap[i];
}

/* a reader that wants the values of even ids alone: the others' runs are passed over */
static void even_ids(const struct pmt_ctr_count_key *keys, uint32_t nkeys, uint8_t *want,
		     void *vc)
{
	(void)vc;
	for (uint32_t k = 0; k < nkeys; k++)
		want[k] = !(keys[k].id & 1);
}

static void use_even(struct ctx *c, const struct pmt_ctr_counts_frame *f)
{
	for (uint32_t i = 0; i < f->nstats; i++)
		if (!(f->keys[f->key[i]].id & 1))
			c->sink += f->val[i] ^ f->ena[i] ^ f->run[i];
}

static int each(const struct pmt_ctr_counts_ref *ref, void *vc)
{
	struct ctx *c = vc;
	struct pmt_ctr_counts_frame f;
	const char *why;

	if (!ref->damaged && pmt_ctr_counts_decode(c->dec, c->buf, c->len, ref->at, &f, &why) == 0)
		use(c, &f);
	/* the reader's fallback when the columns do not decode: the data frame's records */
	if (pmt_ctr_counts_decode_records(c->dec, c->buf, c->len, ref->offset, ref->stream_size,
					  &f, &why) == 0)
		use(c, &f);
	return 0;
}

/* the writer's checksum (counts_cols.c): FNV-1a over little-endian 64-bit words */
static uint32_t sum32(const uint8_t *p, size_t n)
{
	uint64_t h = 14695981039346656037ull;
	uint8_t tail[8] = { 0 };
	size_t i = 0;

	for (; n - i >= 8; i += 8)
		h = (h ^ pmt_le64(p + i)) * 1099511628211ull;
	if (i < n) {
		memcpy(tail, p + i, n - i);
		h = (h ^ pmt_le64(tail)) * 1099511628211ull;
	}
	return (uint32_t)(h ^ h >> 32);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c = { 0 };
	struct pmt_ctr_counts_frame f;
	const char *why;
	uint8_t *copy = malloc(size ? size : 1), *wrap = malloc(size + 12);

	if (!copy || !wrap || pmt_ctr_counts_new(&c.dec) < 0)
		goto out;
	memcpy(copy, data, size); /* exact size: overreads hit the redzone */
	c.buf = copy;
	c.len = size;
	pmt_ctr_counts_list(copy, size, each, &c);
	/* as one counts frame: skippable header, the content, its checksum */
	pmt_put_le32(wrap, 0x184D2A56u);
	pmt_put_le32(wrap + 4, (uint32_t)(size + 4));
	memcpy(wrap + 8, data, size);
	pmt_put_le32(wrap + 8 + size, sum32(wrap + 8, size));
	if (pmt_ctr_counts_decode(c.dec, wrap, size + 12, 0, &f, &why) == 0)
		use(&c, &f);
	pmt_ctr_counts_want(c.dec, even_ids, NULL);
	if (pmt_ctr_counts_decode(c.dec, wrap, size + 12, 0, &f, &why) == 0)
		use_even(&c, &f);
	pmt_ctr_counts_want(c.dec, NULL, NULL);
	/* as a data frame of records (a zstd frame; the size it should expand to in its last
	 * 4 bytes, as a frame info would give it) */
	if (size > 8 && pmt_ctr_counts_decode_records(c.dec, copy, size - 4, 0,
						      pmt_le32(copy + size - 4) % (1u << 20), &f,
						      &why) == 0)
		use(&c, &f);
out:
	pmt_ctr_counts_free(c.dec);
	free(copy);
	free(wrap);
	return 0;
}
