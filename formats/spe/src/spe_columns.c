/* SPE bytes <-> columns (spe.h). Headers go to one column and every payload to the column
 * of its kind: PC and data addresses as zigzag varint deltas from the previous one of the
 * chunk, timestamps as deltas, counters and other payloads as they are, PAD runs as their
 * length. A chunk starts with its decoded length in the meta column; the bytes after that
 * point are in the raw column. Reading checks every column bound: damaged columns give
 * -PMT_ECORRUPT, never a read past them. */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/spe.h"

static inline int put(struct pmt_spe_col *c, const void *p, size_t n)
{
	return pmt_buf_append(&c->buf, p, n);
}

static inline int put_uvarint(struct pmt_spe_col *c, uint64_t z)
{
	uint8_t *b;

	if (pmt_buf_reserve(&c->buf, 10) < 0)
		return -PMT_ENOMEM;
	b = c->buf.data + c->buf.len;
	while (z > 0x7f) {
		*b++ = (uint8_t)(z | 0x80);
		z >>= 7;
	}
	*b++ = (uint8_t)z;
	c->buf.len = (size_t)(b - c->buf.data);
	return 0;
}

static inline int put_delta(struct pmt_spe_col *c, uint64_t v, uint64_t *prev)
{
	int64_t d = (int64_t)(v - *prev);

	*prev = v;
	return put_uvarint(c, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
}

int pmt_spe_columns_put(struct pmt_spe_columns *c, const uint8_t *buf, size_t len)
{
	struct pmt_spe_pkt_iter it;
	struct pmt_spe_packet pk;
	uint64_t prev_pc = 0, prev_va = 0, prev_ts = 0;
	size_t meta_at;
	uint8_t slot[10];
	int rc = 0;

	/* the decoded length goes first; reserve the widest varint and fill it in after */
	meta_at = c->col[PMT_SPE_COL_META].buf.len;
	memset(slot, 0x80, 9);
	slot[9] = 0;
	if (put(&c->col[PMT_SPE_COL_META], slot, 10) < 0)
		return -PMT_ENOMEM;
	pmt_spe_pkt_iter_init(&it, buf, len, 0);
	while (rc == 0 && pmt_spe_pkt_next_inline(&it, &pk) > 0) {
		const uint8_t *raw = buf + it.pos - pk.len;
		size_t hl = pk.ext ? 2 : 1;

		rc = put(&c->col[PMT_SPE_COL_HDR], raw, hl);
		if (rc)
			break;
		switch (pk.type) {
		case PMT_SPE_PAD: {
			/* records padded to their size: one header and the run's length */
			size_t end = it.pos;

			while (end < len && buf[end] == 0)
				end++;
			rc = put_uvarint(&c->col[PMT_SPE_COL_PAD], end - it.pos + 1);
			pmt_spe_pkt_iter_skip(&it, end - it.pos);
			break;
		}
		case PMT_SPE_ALIGN_PAD:
			rc = put(&c->col[PMT_SPE_COL_OTHER], raw + hl, pk.len - hl);
			break;
		case PMT_SPE_ADDRESS:
			if (pk.index == PMT_SPE_ADDR_PC)
				rc = put_delta(&c->col[PMT_SPE_COL_PC], pk.payload, &prev_pc);
			else if (pk.index == PMT_SPE_ADDR_VA)
				rc = put_delta(&c->col[PMT_SPE_COL_VA], pk.payload, &prev_va);
			else
				rc = put(&c->col[PMT_SPE_COL_ADDR], raw + hl, pk.payload_size);
			break;
		case PMT_SPE_TIMESTAMP:
			rc = put_delta(&c->col[PMT_SPE_COL_TS], pk.payload, &prev_ts);
			break;
		case PMT_SPE_COUNTER:
			rc = put(&c->col[PMT_SPE_COL_CNT], raw + hl, pk.payload_size);
			break;
		default:
			rc = put(&c->col[PMT_SPE_COL_OTHER], raw + hl, pk.payload_size);
			break;
		}
	}
	if (rc)
		return rc;
	{
		/* the decoded length, as a 10-byte varint in the reserved slot */
		uint64_t v = it.pos;
		uint8_t *m = c->col[PMT_SPE_COL_META].buf.data + meta_at;

		for (int i = 0; i < 9; i++, v >>= 7)
			m[i] = (uint8_t)(v | 0x80);
		m[9] = (uint8_t)(v & 0x7f);
	}
	return put(&c->col[PMT_SPE_COL_RAW], buf + it.pos, len - it.pos);
}

static inline int get(struct pmt_spe_col *c, void *p, size_t n)
{
	if (n > c->buf.len - c->rd)
		return -PMT_ECORRUPT;
	if (n) /* an empty column has no buffer at all */
		memcpy(p, c->buf.data + c->rd, n);
	c->rd += n;
	return 0;
}

static inline int get_uvarint(struct pmt_spe_col *c, uint64_t *v)
{
	uint64_t z = 0;

	for (unsigned sh = 0; sh < 70; sh += 7) {
		uint8_t b;

		if (c->rd >= c->buf.len)
			return -PMT_ECORRUPT;
		b = c->buf.data[c->rd++];
		z |= sh < 64 ? (uint64_t)(b & 0x7f) << sh : 0;
		if (!(b & 0x80)) {
			*v = z;
			return 0;
		}
	}
	return -PMT_ECORRUPT;
}

static inline int get_delta(struct pmt_spe_col *c, uint64_t *prev, uint8_t *out)
{
	uint64_t z;

	if (get_uvarint(c, &z) < 0)
		return -PMT_ECORRUPT;
	*prev += (uint64_t)((int64_t)(z >> 1) ^ -(int64_t)(z & 1));
	memcpy(out, prev, 8);
	return 0;
}

int pmt_spe_columns_get(struct pmt_spe_columns *c, uint8_t *out, size_t len)
{
	uint64_t prev_pc = 0, prev_va = 0, prev_ts = 0, decoded;
	struct pmt_spe_col *hdr = &c->col[PMT_SPE_COL_HDR];
	size_t o = 0;

	if (get_uvarint(&c->col[PMT_SPE_COL_META], &decoded) < 0 || decoded > len)
		return -PMT_ECORRUPT;
	while (o < decoded) {
		uint8_t scratch[PMT_SPE_PKT_MAX_SZ + 8] = { 0 };
		struct pmt_spe_packet pk;
		size_t hl, room = decoded - o;
		int rc;

		if (hdr->rd >= hdr->buf.len)
			return -PMT_ECORRUPT;
		scratch[0] = hdr->buf.data[hdr->rd];
		if (hdr->rd + 1 < hdr->buf.len)
			scratch[1] = hdr->buf.data[hdr->rd + 1];
		/* the header alone says the packet's kind and size (payload bytes are zero) */
		if (pmt_spe_packet_decode(scratch, sizeof(scratch), o, &pk) <= 0)
			return -PMT_ECORRUPT;
		hl = pk.ext ? 2 : 1;
		if (pk.type != PMT_SPE_PAD && pk.len > room)
			return -PMT_ECORRUPT;
		if (get(hdr, out + o, hl) < 0)
			return -PMT_ECORRUPT;
		switch (pk.type) {
		case PMT_SPE_PAD: {
			uint64_t run;

			if (get_uvarint(&c->col[PMT_SPE_COL_PAD], &run) < 0 || !run || run > room)
				return -PMT_ECORRUPT;
			memset(out + o, 0, run);
			o += run;
			continue;
		}
		case PMT_SPE_ALIGN_PAD:
			rc = get(&c->col[PMT_SPE_COL_OTHER], out + o + hl, pk.len - hl);
			break;
		case PMT_SPE_ADDRESS:
			rc = pk.index == PMT_SPE_ADDR_PC
				     ? get_delta(&c->col[PMT_SPE_COL_PC], &prev_pc, out + o + hl)
			     : pk.index == PMT_SPE_ADDR_VA
				     ? get_delta(&c->col[PMT_SPE_COL_VA], &prev_va, out + o + hl)
				     : get(&c->col[PMT_SPE_COL_ADDR], out + o + hl, pk.payload_size);
			break;
		case PMT_SPE_TIMESTAMP:
			rc = get_delta(&c->col[PMT_SPE_COL_TS], &prev_ts, out + o + hl);
			break;
		case PMT_SPE_COUNTER:
			rc = get(&c->col[PMT_SPE_COL_CNT], out + o + hl, pk.payload_size);
			break;
		default:
			rc = get(&c->col[PMT_SPE_COL_OTHER], out + o + hl, pk.payload_size);
			break;
		}
		if (rc < 0)
			return rc;
		o += pk.len;
	}
	return get(&c->col[PMT_SPE_COL_RAW], out + o, len - o);
}

void pmt_spe_columns_reset(struct pmt_spe_columns *c)
{
	for (int i = 0; i < PMT_SPE_COLS; i++)
		c->col[i].buf.len = c->col[i].rd = 0;
}

void pmt_spe_columns_fini(struct pmt_spe_columns *c)
{
	for (int i = 0; i < PMT_SPE_COLS; i++)
		pmt_buf_fini(&c->col[i].buf);
	memset(c, 0, sizeof(*c));
}
