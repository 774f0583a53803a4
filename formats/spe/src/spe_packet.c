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
#define SCAN_LANES 4     /* walks interleaved in one loop (below) */
#define SCAN_LANE_MIN 4096 /* a buffer below this is walked in one lane */
#define SCAN_SYNC 16     /* bytes a lane walks from its guessed start before it counts */

/* A walk over part of a buffer, with what pmt_spe_scan says of those bytes */
struct scan_lane {
	size_t pos, end;        /* walks while pos < end */
	uint64_t lo, hi;
	uint8_t open;           /* 0, 1 or SCAN_UNKNOWN */
	uint8_t first, timed, untimed, stop;
};

/* One packet of a lane at pos < len - 16 (every byte it reads is in the buffer) after its
 * first event (open is 0 or 1), without a branch on the packet's kind: a record's packets
 * vary, so such a branch mispredicts per record. Returns 0 at a header the table does not
 * size (the full decoder's). */
static inline int lane_fast(const uint8_t *buf, struct scan_lane *l)
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
	return 1;
}

static void lane_event(struct scan_lane *l, unsigned cls)
{
	if (l->open == SCAN_UNKNOWN)
		l->first = cls == SCAN_END ? PMT_SPE_SCAN_END_FIRST : PMT_SPE_SCAN_OTHER_FIRST;
	else if (cls == SCAN_END)
		l->untimed |= l->open;
	l->open = cls == SCAN_OPENS;
}

/* One packet with every bound checked (the buffer's last 16 bytes, extended headers, bad
 * bytes). Sets l->stop where the walk ends (bytes the decoder resynchronises over). */
static void lane_slow(const uint8_t *p, size_t n, uint64_t offset, struct scan_lane *l)
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
		lane_event(l, e >> 4);
		l->pos = pos + len;
		return;
	}
	rc = decode_one(p + pos, n - pos, offset + pos, &pkt);
	if (rc <= 0) {
		/* cut inside a packet, or bytes the decoder resynchronises over: what it makes
		 * of them is its business, times unknown */
		lane_event(l, SCAN_OPENS);
		l->untimed = 1;
		l->stop = 1;
		return;
	}
	/* only extended headers reach here: addresses and counters open a record, an
	 * alignment pad does nothing */
	if (pkt.type != PMT_SPE_ALIGN_PAD)
		lane_event(l, SCAN_OPENS);
	l->pos = pos + (size_t)rc;
}

static void lane_run(const uint8_t *buf, size_t len, uint64_t offset, struct scan_lane *l)
{
	size_t lim = len > 16 ? len - 16 : 0;

	while (l->pos < l->end && !l->stop) {
		while (l->open != SCAN_UNKNOWN && l->pos < l->end && l->pos < lim &&
		       lane_fast(buf, l))
			;
		if (l->pos < l->end)
			lane_slow(buf, len, offset, l);
	}
}

/* A lane after the lanes before it (acc), as a reader joins a CPU's buffers */
static void lane_join(struct scan_lane *acc, const struct scan_lane *l)
{
	if (l->timed) {
		acc->lo = l->lo < acc->lo ? l->lo : acc->lo;
		acc->hi = l->hi > acc->hi ? l->hi : acc->hi;
		acc->timed = 1;
	}
	acc->untimed |= l->untimed;
	acc->stop = l->stop;
	if (l->open == SCAN_UNKNOWN)
		return;
	if (acc->open == SCAN_UNKNOWN)
		acc->first = l->first;
	else if (l->first == PMT_SPE_SCAN_END_FIRST)
		acc->untimed |= acc->open;
	acc->open = l->open;
}

/* Lanes start at guessed offsets: the walks are independent, so the CPU overlaps their
 * loads (one walk is a chain of dependent loads, header then table). A lane walks
 * SCAN_SYNC bytes before it counts, which on SPE bytes lands it on packet boundaries;
 * the lane before it must end exactly where it began counting, or its guess was wrong and
 * the lane before walks on over its bytes. So the result is the one-lane walk's, always. */
int pmt_spe_scan(const uint8_t *buf, size_t len, uint64_t offset, struct pmt_spe_scan *s)
{
	struct scan_lane l[SCAN_LANES], acc;
	size_t lim = len > 16 ? len - 16 : 0;
	unsigned nl = len >= SCAN_LANE_MIN ? SCAN_LANES : 1, k;
	int in_step = 1;

	if (!s || (!buf && len))
		return -PMT_EINVAL;
	for (k = 0; k < nl; k++) {
		size_t at = len / nl * k;

		l[k] = (struct scan_lane){ .pos = at, .end = len, .lo = UINT64_MAX,
					   .open = SCAN_UNKNOWN };
		/* the guess's first packets, uncounted; a header the table does not size
		 * leaves the bytes to the lane before */
		while (k && l[k].pos < at + SCAN_SYNC) {
			unsigned e = scan_table[buf[l[k].pos]];

			if (!(e & 15)) {
				l[k].stop = 1;
				break;
			}
			l[k].pos += e & 15;
		}
		if (k && l[k].stop) {
			nl = k;
			break;
		}
		if (k)
			l[k - 1].end = l[k].pos;
	}
	/* in step while every lane is in its bytes and away from the buffer's end */
	for (k = 0; k < nl; k++) {
		/* to the first event (the lockstep walk takes lanes after it) */
		while (l[k].open == SCAN_UNKNOWN && !l[k].stop && l[k].pos < l[k].end)
			lane_slow(buf, len, offset, &l[k]);
		in_step &= l[k].open != SCAN_UNKNOWN && !l[k].stop;
	}
	if (nl == SCAN_LANES && in_step) {
		/* locals, not the array: kept in registers, the pos chains stay apart */
		struct scan_lane a = l[0], b = l[1], c = l[2], d = l[3];
		size_t ea = a.end < lim ? a.end : lim, eb = b.end < lim ? b.end : lim;
		size_t ec = c.end < lim ? c.end : lim, ed = d.end < lim ? d.end : lim;

		while (a.pos < ea && b.pos < eb && c.pos < ec && d.pos < ed) {
			int go = lane_fast(buf, &a);

			go &= lane_fast(buf, &b);
			go &= lane_fast(buf, &c);
			go &= lane_fast(buf, &d);
			if (!go)
				break;
		}
		l[0] = a;
		l[1] = b;
		l[2] = c;
		l[3] = d;
	}
	acc = (struct scan_lane){ .lo = UINT64_MAX, .open = SCAN_UNKNOWN };
	for (k = 0; k < nl; k++) {
		lane_run(buf, len, offset, &l[k]);
		/* landed past where the next lane began counting: it guessed wrong, so this
		 * lane walks its bytes too */
		while (!l[k].stop && k + 1 < nl && l[k].pos != l[k].end) {
			l[k].end = l[k + 1].end;
			l[k + 1] = l[k];
			k++;
			lane_run(buf, len, offset, &l[k]);
		}
		lane_join(&acc, &l[k]);
		if (acc.stop)
			break;
	}
	memset(s, 0, sizeof(*s));
	if (acc.timed) {
		s->ts_lo = acc.lo;
		s->ts_hi = acc.hi;
		s->timed = 1;
	}
	s->untimed = acc.untimed;
	s->first = acc.open == SCAN_UNKNOWN ? PMT_SPE_SCAN_NO_EVENT : acc.first;
	s->open_out = acc.open == SCAN_UNKNOWN ? 0 : acc.open;
	return 0;
}
