/* Arm SPE packet decoder and pull iterator (arm-spe.md §1, perf's arm_spe_do_get_packet()).
 *
 * The first header byte is classified through a 256-entry table built at compile time, so a
 * packet costs one table load, one bounds check and one masked 8-byte load on the fast path.
 */
#include "pmutrace/common.h"
#include "pmutrace/spe.h"

/* Table entry: bits 0-7 kind, 8-15 index, 16-23 payload size. */
enum { K_PAD, K_END, K_TS, K_ADDR, K_CNT, K_CTX, K_OP, K_EV, K_DS, K_EXT, K_BAD };

static const uint8_t kind_type[] = {
	[K_PAD] = PMT_SPE_PAD,         [K_END] = PMT_SPE_END,   [K_TS] = PMT_SPE_TIMESTAMP,
	[K_ADDR] = PMT_SPE_ADDRESS,    [K_CNT] = PMT_SPE_COUNTER, [K_CTX] = PMT_SPE_CONTEXT,
	[K_OP] = PMT_SPE_OP_TYPE,      [K_EV] = PMT_SPE_EVENTS, [K_DS] = PMT_SPE_DATA_SOURCE,
};

#define SZ(h) (1u << (((h) >> 4) & 3))
#define ENT(k, i, s) ((uint32_t)(k) | (uint32_t)(i) << 8 | (uint32_t)(s) << 16)
/* Same test order as perf; EVENTS keeps its payload size in index as perf does. */
#define CLASSIFY(h)                                                                  \
	((h) == 0x00 ? ENT(K_PAD, 0, 0) :                                            \
	 (h) == 0x01 ? ENT(K_END, 0, 0) :                                            \
	 (h) == 0x71 ? ENT(K_TS, 0, 8) :                                             \
	 ((h) & 0xCF) == 0x42 ? ENT(K_EV, SZ(h), SZ(h)) :                            \
	 ((h) & 0xCF) == 0x43 ? ENT(K_DS, 0, SZ(h)) :                                \
	 ((h) & 0xFC) == 0x64 ? ENT(K_CTX, (h) & 3, SZ(h)) :                         \
	 ((h) & 0xFC) == 0x48 ? ENT(K_OP, (h) & 3, SZ(h)) :                          \
	 ((h) & 0xFC) == 0x20 ? ENT(K_EXT, (h) & 3, 0) :                             \
	 ((h) & 0xF8) == 0xB0 ? ENT(K_ADDR, (h) & 7, SZ(h)) :                        \
	 ((h) & 0xF8) == 0x98 ? ENT(K_CNT, (h) & 7, SZ(h)) :                         \
	 ENT(K_BAD, 0, 0))
#define R4(b) CLASSIFY(b), CLASSIFY((b) + 1), CLASSIFY((b) + 2), CLASSIFY((b) + 3)
#define R16(b) R4(b), R4((b) + 4), R4((b) + 8), R4((b) + 12)
#define R64(b) R16(b), R16((b) + 16), R16((b) + 32), R16((b) + 48)

static const uint32_t hdr_table[256] = { R64(0), R64(64), R64(128), R64(192) };

/* The same classification as ready-made packets for the iterator's fast path: the packet is
 * copied whole and its `payload` field holds the mask for the payload bytes. len 0 marks
 * headers that need the slow path (extended headers, bad bytes). */
#define KIND(h) (CLASSIFY(h) & 0xff)
#define PSZ(h) ((CLASSIFY(h) >> 16) & 0xff)
#define PROTO(h)                                                                     \
	{ .type = KIND(h) < K_EXT ? KIND_TYPE(KIND(h)) : 0xff,                      \
	  .index = (uint8_t)(CLASSIFY(h) >> 8),                                      \
	  .len = KIND(h) < K_EXT ? (uint8_t)(1 + PSZ(h)) : 0,                        \
	  .payload_size = (uint8_t)PSZ(h),                                           \
	  .ext = 0,                                                                  \
	  .header = { (uint8_t)(h), 0 },                                             \
	  /* two shifts: for 8 bytes the mask is (1 << 64) - 1 without an overflow */ \
	  .payload = ((1ULL << (4 * PSZ(h))) << (4 * PSZ(h))) - 1 }
#define KIND_TYPE(k)                                                                 \
	((k) == K_PAD ? PMT_SPE_PAD : (k) == K_END ? PMT_SPE_END :                   \
	 (k) == K_TS ? PMT_SPE_TIMESTAMP : (k) == K_ADDR ? PMT_SPE_ADDRESS :         \
	 (k) == K_CNT ? PMT_SPE_COUNTER : (k) == K_CTX ? PMT_SPE_CONTEXT :           \
	 (k) == K_OP ? PMT_SPE_OP_TYPE : (k) == K_EV ? PMT_SPE_EVENTS :              \
	 PMT_SPE_DATA_SOURCE)
#define P4(b) PROTO(b), PROTO((b) + 1), PROTO((b) + 2), PROTO((b) + 3)
#define P16(b) P4(b), P4((b) + 4), P4((b) + 8), P4((b) + 12)
#define P64(b) P16(b), P16((b) + 16), P16((b) + 32), P16((b) + 48)

const struct pmt_spe_packet pmt_spe_hdr_proto[256] = { P64(0), P64(64), P64(128), P64(192) };

static const uint64_t size_mask[9] = {
	0, 0xff, 0xffff, 0, 0xffffffffULL, 0, 0, 0, ~0ULL,
};

static inline uint64_t load_payload(const uint8_t *p, size_t avail, unsigned size)
{
	/* One unaligned 8-byte load when the buffer allows it; exact bytes near the end. */
	if (avail >= 8)
		return pmt_le64(p) & size_mask[size];
	switch (size) {
	case 1: return p[0];
	case 2: return pmt_le16(p);
	case 4: return pmt_le32(p);
	case 8: return pmt_le64(p);
	default: return 0;
	}
}

static int decode_ext(const uint8_t *buf, size_t len, uint64_t offset, struct pmt_spe_packet *pkt)
{
	uint8_t h0 = buf[0], h1;
	uint32_t e;
	unsigned size, kind;

	/* perf: an extended header with no second byte is a bad packet, not a short one */
	if (len < 2)
		return -PMT_EBAD_PACKET;
	h1 = buf[1];
	pkt->ext = 1;
	pkt->header[0] = h0;
	pkt->header[1] = h1;
	if (h1 == 0x00) {
		/* Alignment pad: runs to the next 1 << (h0[3:0] + 1) boundary of the stream.
		 * perf measures it from the host buffer address; the stream offset is what the
		 * hardware meant, and equals perf's view when the AUX buffer is page aligned. */
		unsigned align = 1u << ((h0 & 0xf) + 1);
		unsigned n = align - (unsigned)(offset & (align - 1));

		if (len < n)
			return -PMT_ENEED_MORE;
		pkt->type = PMT_SPE_ALIGN_PAD;
		pkt->index = 0;
		pkt->payload_size = 0;
		pkt->payload = 0;
		pkt->len = (uint8_t)n;
		return (int)n;
	}
	if ((h1 & 0xF8) == 0xB0)
		kind = PMT_SPE_ADDRESS;
	else if ((h1 & 0xF8) == 0x98)
		kind = PMT_SPE_COUNTER;
	else
		return -PMT_EBAD_PACKET;
	size = SZ(h1);
	if (len < 2 + size)
		return -PMT_ENEED_MORE;
	e = hdr_table[h0];
	pkt->type = (uint8_t)kind;
	pkt->index = (uint8_t)(((e >> 8) & 3) << 3 | (h1 & 7));
	pkt->payload_size = (uint8_t)size;
	pkt->payload = load_payload(buf + 2, len - 2, size);
	pkt->len = (uint8_t)(2 + size);
	return 2 + (int)size;
}

static inline int decode_one(const uint8_t *buf, size_t len, uint64_t offset,
			     struct pmt_spe_packet *pkt)
{
	uint32_t e;
	unsigned kind, size;

	if (!len)
		return -PMT_ENEED_MORE;
	e = hdr_table[buf[0]];
	kind = e & 0xff;
	if (__builtin_expect(kind < K_EXT, 1)) {
		size = (e >> 16) & 0xff;
		if (__builtin_expect(len < 1 + size, 0))
			return -PMT_ENEED_MORE;
		pkt->type = kind_type[kind];
		pkt->index = (uint8_t)(e >> 8);
		pkt->len = (uint8_t)(1 + size);
		pkt->payload_size = (uint8_t)size;
		pkt->ext = 0;
		pkt->header[0] = buf[0];
		pkt->header[1] = 0;
		pkt->payload = load_payload(buf + 1, len - 1, size);
		return (int)(1 + size);
	}
	if (kind == K_EXT)
		return decode_ext(buf, len, offset, pkt);
	return -PMT_EBAD_PACKET;
}

int pmt_spe_packet_decode(const uint8_t *buf, size_t len, uint64_t offset,
			  struct pmt_spe_packet *pkt)
{
	if (!pkt || (!buf && len))
		return -PMT_EINVAL;
	return decode_one(buf, len, offset, pkt);
}

void pmt_spe_pkt_iter_init(struct pmt_spe_pkt_iter *it, const uint8_t *buf, size_t len,
			   uint64_t base)
{
	if (!it)
		return;
	it->buf = buf;
	it->len = buf ? len : 0;
	it->pos = 0;
	it->base = base;
	it->pad_base = base;
	it->coalesce_pad = 0;
}

int pmt_spe_pkt_next(struct pmt_spe_pkt_iter *it, struct pmt_spe_packet *pkt)
{
	const uint8_t *p;
	size_t left;
	int n;

	if (__builtin_expect(!it || !pkt, 0))
		return -PMT_EINVAL;
	if (it->pos >= it->len)
		return -PMT_EEOS;
	p = it->buf + it->pos;
	left = it->len - it->pos;
	n = pmt_spe_pkt_fast_(it, pkt);
	if (__builtin_expect(n > 0, 1))
		return n;
	n = decode_one(p, left, it->pad_base + it->pos, pkt);
	if (n < 0)
		return n;
	if ((pkt->type == PMT_SPE_PAD || pkt->type == PMT_SPE_ALIGN_PAD) && it->coalesce_pad) {
		/* perf -D merges a run of zero bytes into one line of at most 16 bytes; an
		 * alignment pad is a PAD to perf, so zeros after it join it too */
		size_t max = left < PMT_SPE_PKT_MAX_SZ ? left : PMT_SPE_PKT_MAX_SZ;

		while ((size_t)n < max && !p[n])
			n++;
		pkt->len = (uint8_t)n;
	}
	it->pos += (size_t)n;
	return n;
}

void pmt_spe_pkt_iter_skip(struct pmt_spe_pkt_iter *it, size_t n)
{
	if (!it)
		return;
	it->pos = n > it->len - it->pos ? it->len : it->pos + n;
}
