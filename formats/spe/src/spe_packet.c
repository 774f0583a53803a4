/* Arm SPE packet decoder and pull iterator (arm-spe.md §1, perf's arm_spe_do_get_packet()).
 *
 * The first header byte is classified through a 256-entry table built at compile time, so a
 * packet costs one table load, one bounds check and one masked 8-byte load on the fast path.
 */
#include <string.h>

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

/* The record scan (pmt_spe_scan). Per header byte: the length of a short-header packet
 * (0: extended or bad, the full decoder's) in bits 0-3 and what it does to a record in bits
 * 4-5. One byte an entry, so the table is 256 bytes of L1 and the walk's dependency chain
 * is the header load, this load and the add. */
enum { SCAN_OPENS = 0, SCAN_END = 1, SCAN_TS = 2, SCAN_PAD = 3 };
#define SCAN_CLASS(h)                                                                \
	(KIND(h) == K_PAD ? SCAN_PAD : KIND(h) == K_END ? SCAN_END :                 \
	 KIND(h) == K_TS ? SCAN_TS : SCAN_OPENS)
#define SCAN_ENT(h) (uint8_t)(KIND(h) < K_EXT ? (1 + PSZ(h)) | SCAN_CLASS(h) << 4 : 0)
#define S4(b) SCAN_ENT(b), SCAN_ENT((b) + 1), SCAN_ENT((b) + 2), SCAN_ENT((b) + 3)
#define S16(b) S4(b), S4((b) + 4), S4((b) + 8), S4((b) + 12)
#define S64(b) S16(b), S16((b) + 16), S16((b) + 32), S16((b) + 48)

static const uint8_t scan_table[256] = { S64(0), S64(64), S64(128), S64(192) };

#define SCAN_UNKNOWN 2 /* open before the first packet that ends or opens a record */

/* The walk's position and what pmt_spe_scan says of the bytes walked */
struct scan_walk {
	size_t pos, end;        /* walks while pos < end */
	uint64_t lo, hi;
	uint8_t open;           /* 0, 1 or SCAN_UNKNOWN */
	uint8_t first, timed, untimed, stop;
};

/* One packet of the walk at pos < len - 16 (every byte it reads is in the buffer) after its
 * first event (open is 0 or 1), without a branch on the packet's kind: a record's packets
 * vary, so such a branch mispredicts per record. Returns 0 at a header the table does not
 * size (the full decoder's). */
static inline int walk_packet(const uint8_t *buf, struct scan_walk *l)
{
	uint64_t w = pmt_le64(buf + l->pos), ts = pmt_le64(buf + l->pos + 1);
	unsigned e = scan_table[w & 0xff], cls = e >> 4, len = e & 15;
	uint64_t ts_mask = -(uint64_t)(cls == SCAN_TS);
	/* zero bytes from pos, up to 7: a PAD run (0 for any other header) */
	unsigned pad = (unsigned)__builtin_ctzll(w | 1ull << 63) >> 3;

	if (__builtin_expect(!len, 0))
		return 0;
	ts &= ts_mask;
	l->lo = (ts | ~ts_mask) < l->lo ? (ts | ~ts_mask) : l->lo;
	l->hi = ts > l->hi ? ts : l->hi;
	l->timed |= (uint8_t)(ts_mask & 1);
	l->untimed |= (uint8_t)(l->open & (cls == SCAN_END)); /* a record without a timestamp */
	l->open = (uint8_t)((l->open & (cls == SCAN_PAD)) | (cls == SCAN_OPENS));
	l->pos += len > pad ? len : pad;
	return (int)e;
}

/* A record's shape: its header bytes and PAD bytes at their offsets (e: the bytes, m: which
 * bytes count), up to SCAN_TPL_MAX bytes. Bytes that match it are walked exactly as that
 * record was (a packet's length and kind depend on its header byte only, a PAD run on its
 * zero bytes), so a record of a known shape is taken in one step: 8 independent loads
 * instead of a chain of one per packet. SPE records repeat a few shapes (one per kind of
 * operation). */
#define SCAN_TPL_MAX 64
#define SCAN_TPLS 4
struct scan_tpl {
	uint64_t e[SCAN_TPL_MAX / 8], m[SCAN_TPL_MAX / 8];
	uint8_t len;            /* 0: an empty slot */
	uint8_t ts_at;          /* offset of its TIMESTAMP's payload + 1; 0: it ends in END */
	uint8_t untimed;        /* it ends in END after a packet that opens a record */
};

/* The shape of the record at p (len bytes, walked by walk_packet: no extended header; open
 * was 0 before it, its last packet ends it) */
static void tpl_learn(struct scan_tpl *t, const uint8_t *p, size_t len)
{
	uint8_t e[SCAN_TPL_MAX] = { 0 }, m[SCAN_TPL_MAX] = { 0 };
	size_t o = 0;
	unsigned opened = 0;

	while (o < len) {
		unsigned x = scan_table[p[o]], n = p[o] ? x & 15 : 1;

		e[o] = p[o];
		m[o] = 0xff;
		if (o + n == len) {
			t->ts_at = x >> 4 == SCAN_TS ? (uint8_t)(o + 2) : 0;
			t->untimed = x >> 4 == SCAN_END && opened;
		}
		opened |= p[o] && x >> 4 == SCAN_OPENS;
		o += n;
	}
	for (unsigned k = 0; k < SCAN_TPL_MAX / 8; k++) {
		t->e[k] = pmt_le64(e + 8 * k);
		t->m[k] = pmt_le64(m + 8 * k);
	}
	t->len = (uint8_t)len;
}

static inline int tpl_match(const struct scan_tpl *t, const uint8_t *p)
{
	uint64_t d = 0;

	for (unsigned k = 0; k < SCAN_TPL_MAX / 8; k++)
		d |= (pmt_le64(p + 8 * k) ^ t->e[k]) & t->m[k];
	return t->len && !d;
}

/* walk_packet's walk with records of known shapes taken whole, while pos < stop (stop + 80
 * bytes in the buffer: a shape's 64 and walk_packet's 16) */
static void walk_records(const uint8_t *buf, struct scan_walk *l, size_t stop,
			 struct scan_tpl *tpl, unsigned *next)
{
	size_t rs = l->pos;
	int clean = l->open == 0; /* rs is where a record begins */

	while (l->pos < stop) {
		unsigned e;

		if (l->open == 0) {
			const uint8_t *p = buf + l->pos;
			unsigned k;

			for (k = 0; k < SCAN_TPLS && !tpl_match(&tpl[k], p); k++)
				;
			if (k < SCAN_TPLS) {
				const struct scan_tpl *t = &tpl[k];

				if (t->ts_at) {
					uint64_t ts = pmt_le64(p + t->ts_at - 1);

					l->lo = ts < l->lo ? ts : l->lo;
					l->hi = ts > l->hi ? ts : l->hi;
					l->timed = 1;
				}
				l->untimed |= t->untimed;
				l->pos += t->len;
				continue;
			}
			rs = l->pos;
			clean = 1;
		}
		e = (unsigned)walk_packet(buf, l);
		if (!e)
			return;
		if (clean && (e >> 4 == SCAN_TS || e >> 4 == SCAN_END)) {
			if (l->pos - rs <= SCAN_TPL_MAX) {
				tpl_learn(&tpl[*next], buf + rs, l->pos - rs);
				*next = (*next + 1) % SCAN_TPLS;
			}
			clean = 0;
		}
	}
}

static void walk_event(struct scan_walk *l, unsigned cls)
{
	if (l->open == SCAN_UNKNOWN)
		l->first = cls == SCAN_END ? PMT_SPE_SCAN_END_FIRST : PMT_SPE_SCAN_OTHER_FIRST;
	else if (cls == SCAN_END)
		l->untimed |= l->open;
	l->open = cls == SCAN_OPENS;
}

/* One packet with every bound checked (the buffer's last 16 bytes, extended headers, bad
 * bytes). Sets l->stop where the walk ends (bytes the decoder resynchronises over). */
static void walk_slow(const uint8_t *p, size_t n, uint64_t offset, struct scan_walk *l)
{
	size_t pos = l->pos;
	unsigned e = scan_table[p[pos]], len = e & 15;
	struct pmt_spe_packet pkt;
	int rc;

	if (!p[pos]) {
		for (pos++; n - pos >= 8 && !pmt_le64(p + pos);)
			pos += 8;
		l->pos = pos;
		return;
	}
	if (len && len <= n - pos) {
		if (e >> 4 == SCAN_TS) {
			uint64_t ts = pmt_le64(p + pos + 1);

			l->lo = ts < l->lo ? ts : l->lo;
			l->hi = ts > l->hi ? ts : l->hi;
			l->timed = 1;
		}
		walk_event(l, e >> 4);
		l->pos = pos + len;
		return;
	}
	rc = decode_one(p + pos, n - pos, offset + pos, &pkt);
	if (rc <= 0) {
		/* cut inside a packet, or bytes the decoder resynchronises over: what it makes
		 * of them is its business, times unknown */
		walk_event(l, SCAN_OPENS);
		l->untimed = 1;
		l->stop = 1;
		return;
	}
	/* only extended headers reach here: addresses and counters open a record, an
	 * alignment pad does nothing */
	if (pkt.type != PMT_SPE_ALIGN_PAD)
		walk_event(l, SCAN_OPENS);
	l->pos = pos + (size_t)rc;
}

static void walk_run(const uint8_t *buf, size_t len, uint64_t offset, struct scan_walk *l)
{
	size_t lim = len > 16 ? len - 16 : 0, rlim = len > 80 ? len - 80 : 0;
	struct scan_tpl tpl[SCAN_TPLS] = { 0 };
	unsigned next = 0;

	while (l->pos < l->end && !l->stop) {
		if (l->open != SCAN_UNKNOWN)
			walk_records(buf, l, l->end < rlim ? l->end : rlim, tpl, &next);
		while (l->open != SCAN_UNKNOWN && l->pos < l->end && l->pos < lim &&
		       walk_packet(buf, l))
			;
		if (l->pos < l->end)
			walk_slow(buf, len, offset, l);
	}
}

int pmt_spe_scan(const uint8_t *buf, size_t len, uint64_t offset, struct pmt_spe_scan *s)
{
	struct scan_walk w = { .end = len, .lo = UINT64_MAX, .open = SCAN_UNKNOWN };

	if (!s || (!buf && len))
		return -PMT_EINVAL;
	walk_run(buf, len, offset, &w);
	memset(s, 0, sizeof(*s));
	if (w.timed) {
		s->ts_lo = w.lo;
		s->ts_hi = w.hi;
		s->timed = 1;
	}
	s->untimed = w.untimed;
	s->first = w.open == SCAN_UNKNOWN ? PMT_SPE_SCAN_NO_EVENT : w.first;
	s->open_out = w.open == SCAN_UNKNOWN ? 0 : w.open;
	return 0;
}
