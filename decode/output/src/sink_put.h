/* The sinks' copy helpers, shared by the text rows (sink_samples.c) and the CSV/JSONL
 * rows (sink_rows.c): inline, since they run several times per sample. */
#ifndef PMT_SINK_PUT_H
#define PMT_SINK_PUT_H

#include <stddef.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"

/* n bytes from src in 32-byte blocks: the tails are ~100 bytes, and a fixed-size memcpy
 * compiles to a few vector moves where a variable one is a libc call */
static inline void out_blocks(struct pmt_out *o, const char *src, size_t n)
{
	char *dst;

	pmt_out_reserve(o, n + 32);
	dst = o->buf + o->len;
	for (size_t i = 0; i < n; i += 32)
		memcpy(dst + i, src + i, 32);
	o->len += n;
}

/* the op column, padded so that it is copied as one 8-byte word */
struct op_col {
	char s[8];
	size_t len;
};

static inline const struct op_col *op_col(const struct pmt_spe_sample *s)
{
	static const struct op_col cols[5] = {
		{ "LD", 2 }, { "ST", 2 }, { "BR", 2 }, { "OTHER", 5 }, { "", 0 },
	};
	uint32_t op = s->op;

	if (op & PMT_SPE_OP_F_LDST)
		return &cols[(op & PMT_SPE_OP_F_ST) ? 1 : 0];
	if (op & PMT_SPE_OP_F_BRANCH)
		return &cols[2];
	return &cols[(op & PMT_SPE_OP_F_OTHER) ? 3 : 4];
}

/* Short variable-length copies and fills in 32-byte blocks (they may write up to 31
 * bytes past n, and read src that far): gcc turns a variable memcpy or memset into rep
 * movs/stos, whose start-up cost was a fifth of the text sink. */
static inline char *put_blocks(char *p, const char *src, size_t n)
{
	for (size_t i = 0; i < n; i += 32)
		memcpy(p + i, src + i, 32);
	return p + n;
}

/* put_blocks() for the cached row tails: their length straddles 96 and 128 bytes from one
 * sample to the next, so the block count mispredicted; most fit five fixed 32-byte copies
 * (writes up to 160 bytes past p, reads src that far). */
static inline char *put_tail(char *p, const char *src, size_t n)
{
	if (n > 160)
		return put_blocks(p, src, n);
	/* five block copies in order, not one of 160 bytes: src may lie less than 160
	 * bytes before p (see write_row()) */
	for (size_t i = 0; i < 160; i += 32)
		memcpy(p + i, src + i, 32);
	return p + n;
}

#endif
