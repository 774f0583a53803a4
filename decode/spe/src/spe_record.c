/* SPE packets -> records, following perf's arm_spe_read_record().
 *
 * Two paths give the same records and statistics. The reference path pulls packets from the
 * generic iterator one at a time and folds each into d->cur. The fused path (hot_record())
 * assembles a whole record straight from the bytes: it dispatches on the header byte through
 * a 256-entry table, loads payloads with one unaligned 8-byte load and keeps each payload in a
 * per-field slot, so the work per packet has no data-dependent branch. Most records need not
 * even be walked: a CPU writes few distinct record layouts, and a record whose header and PAD
 * bytes equal those of one of the last PMT_SPE_REC_SHAPES layouts is read field by field at
 * the layout's offsets (shape_find(), shape_record()). The fused path only ever commits a
 * complete record; anything it does not handle (extended headers, bad bytes, OP_TYPE class 3,
 * the last 16 bytes of a buffer, a record already begun by the reference path) makes it rewind
 * to the record's first packet and leave that record to the reference path, which therefore
 * alone decides every quirk (skip statistics, partial records, records split across feeds).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"
#include "pmutrace/spe_decode.h"
#include "spe_record_priv.h"


/* Payload slots of the fused path, one per record field. S_SINK takes packets that set no
 * field (ADDRESS and COUNTER indices perf ignores). The walk ORs EVENTS payloads separately,
 * a layout (at most one EVENTS packet) reads them from S_EV. */
enum { S_PC, S_TGT, S_VA, S_PA, S_PBT, S_TOT, S_ISSUE, S_XLAT, S_CTX, S_OP, S_DSRC, S_EV,
       S_SINK, S_NSLOTS };
/* What a header byte does on the fused path; K_PACKET is the only common case. */
enum { K_PACKET, K_PAD, K_TS, K_END, K_SLOW };

struct hot_ent {
	uint64_t mask;   /* payload byte mask */
	uint64_t evmask; /* ~0 for EVENTS (ORed across packets), else 0 */
	uint8_t slot;
	uint8_t kind;
};
static struct hot_ent hot[256];
/* op bits by OP_TYPE class (0..2) and payload byte, as op_bits() computes them */
static uint32_t op_table[3][256];
static pthread_once_t hot_once = PTHREAD_ONCE_INIT;

/* Bytes the fused path wants ahead of a header: a 16-byte PAD probe or header + 8-byte load. */
#define HOT_AHEAD 16

/* OP_TYPE -> op bits as the newest perf decoder sets them (arm-spe-decoder.c). */
static uint32_t op_bits(unsigned cls, unsigned p)
{
	uint32_t op = 0;

	switch (cls) {
	case PMT_SPE_OP_OTHER:
		op = PMT_SPE_OP_F_OTHER;
		if ((p & 0x89) == 0x08) {
			op |= PMT_SPE_OP_F_SVE;
			if (p & 0x4)
				op |= PMT_SPE_OP_F_PRED;
			if (p & 0x2)
				op |= PMT_SPE_OP_F_FP;
		} else if ((p & 0x89) == 0x88) {
			op |= PMT_SPE_OP_F_SME;
			if (p & 0x2)
				op |= PMT_SPE_OP_F_FP;
		} else if ((p & 0xf8) == 0) {
			if (p & 0x1)
				op |= PMT_SPE_OP_F_COND;
			if (p & 0x2)
				op |= PMT_SPE_OP_F_FP;
			if (p & 0x4)
				op |= PMT_SPE_OP_F_ASE;
		}
		break;
	case PMT_SPE_OP_LDST:
		op = PMT_SPE_OP_F_LDST | ((p & 1) ? PMT_SPE_OP_F_ST : PMT_SPE_OP_F_LD);
		if ((p & 0xe2) == 0x02) {
			if (p & 0x4)
				op |= PMT_SPE_OP_F_ATOMIC;
			if (p & 0x8)
				op |= PMT_SPE_OP_F_EXCL;
			if (p & 0x10)
				op |= PMT_SPE_OP_F_AR;
		} else if ((p & 0xfe) == 0x04) {
			op |= PMT_SPE_OP_F_SIMD_FP;
		} else if ((p & 0xfe) == 0x00) {
			op |= PMT_SPE_OP_F_GP_REG;
		} else if ((p & 0xfe) == 0x10) {
			op |= PMT_SPE_OP_F_UNSPEC_REG;
		} else if ((p & 0xfe) == 0x30) {
			op |= PMT_SPE_OP_F_NV_SYSREG;
		} else if ((p & 0xfe) == 0x14) {
			op |= PMT_SPE_OP_F_MTE_TAG;
		} else if ((p & 0xfe) == 0x20) {
			op |= PMT_SPE_OP_F_MEMCPY;
		} else if (p == 0x25) {
			op |= PMT_SPE_OP_F_MEMSET;
		} else if ((p & 0x0a) == 0x08) {
			op |= PMT_SPE_OP_F_SVE;
			if (p & 0x4)
				op |= PMT_SPE_OP_F_PRED;
			if (p & 0x80)
				op |= PMT_SPE_OP_F_SG;
		} else if ((p & 0xfa) == 0x40) {
			op |= PMT_SPE_OP_F_GCS;
		}
		break;
	case PMT_SPE_OP_BRANCH:
		op = PMT_SPE_OP_F_BRANCH;
		if (p & 0x1)
			op |= PMT_SPE_OP_F_BR_COND;
		if (p & 0x2)
			op |= PMT_SPE_OP_F_BR_INDIRECT;
		if (p & 0x4)
			op |= PMT_SPE_OP_F_BR_GCS;
		switch ((p >> 3) & 3) {
		case 1: op |= PMT_SPE_OP_F_BR_CR_BL; break;
		case 2: op |= PMT_SPE_OP_F_BR_CR_RET; break;
		case 3: op |= PMT_SPE_OP_F_BR_CR_NON_BL_RET; break;
		}
		break;
	}
	return op;
}


static void note_bad(struct pmt_spe_rec_decoder *d, uint64_t off)
{
	struct pmt_spe_rec_stats *s = &d->stats;

	if (!s->have_bad) {
		s->have_bad = 1;
		s->first_bad_offset = off;
	}
	s->bytes_skipped++;
	if (!d->in_bad)
		s->bad_ranges++;
	d->in_bad = 1;
}

/* Fold one non-PAD packet into the record; returns 1 when it ends the record. */
static inline int apply(struct pmt_spe_record *r, unsigned type, unsigned index,
			uint64_t payload)
{
	r->npackets++;
	switch (type) {
	case PMT_SPE_TIMESTAMP:
		r->timestamp = payload;
		r->has_ts = 1;
		return 1;
	case PMT_SPE_END:
		return 1;
	case PMT_SPE_ADDRESS: {
		uint64_t a = pmt_spe_addr_canonical(index, payload);

		switch (index) {
		case PMT_SPE_ADDR_PC: r->from_ip = a; break;
		case PMT_SPE_ADDR_TGT: r->to_ip = a; break;
		case PMT_SPE_ADDR_VA: r->virt_addr = a; break;
		case PMT_SPE_ADDR_PA: r->phys_addr = a; break;
		case PMT_SPE_ADDR_PBT: r->prev_br_tgt = a; break;
		}
		break;
	}
	case PMT_SPE_COUNTER:
		if (index == PMT_SPE_CNT_TOT)
			r->latency = (uint32_t)payload;
		else if (index == PMT_SPE_CNT_ISSUE)
			r->issue_lat = (uint16_t)payload;
		else if (index == PMT_SPE_CNT_XLAT)
			r->xlat_lat = (uint16_t)payload;
		break;
	case PMT_SPE_CONTEXT:
		r->context_id = payload;
		break;
	case PMT_SPE_OP_TYPE:
		r->op_class = (uint8_t)index;
		r->op_payload = (uint8_t)payload;
		r->op = op_bits(index, (unsigned)payload & 0xff);
		break;
	case PMT_SPE_EVENTS:
		/* perf 6.1 ORs the event bits of every EVENTS packet of a record; later
		 * perfs keep the last packet's (ref_step() clears them first) */
		r->events |= payload;
		break;
	case PMT_SPE_DATA_SOURCE:
		r->source = (uint16_t)payload;
		break;
	default:
		break;
	}
	return 0;
}

static void rec_reset(struct pmt_spe_rec_decoder *d, uint64_t offset)
{
	struct pmt_spe_record *r = &d->cur;

	memset(r, 0, sizeof(*r));
	r->context_id = UINT64_MAX;
	r->op_class = 0xff;
	r->offset = offset;
	d->cur_open = 0;
}


static void hot_init(void)
{
	for (unsigned h = 0; h < 256; h++) {
		const struct pmt_spe_packet *pr = &pmt_spe_hdr_proto[h];
		struct hot_ent e = { .mask = pr->payload, .slot = S_SINK, .kind = K_PACKET };

		switch (pr->len && !pr->ext ? pr->type : 0xff) {
		case PMT_SPE_PAD: e.kind = K_PAD; break;
		case PMT_SPE_END: e.kind = K_END; e.mask = 0; break;
		case PMT_SPE_TIMESTAMP: e.kind = K_TS; break;
		case PMT_SPE_ADDRESS:
			if (pr->index <= PMT_SPE_ADDR_PBT)
				e.slot = (uint8_t)(S_PC + pr->index);
			break;
		case PMT_SPE_COUNTER:
			if (pr->index <= PMT_SPE_CNT_XLAT)
				e.slot = (uint8_t)(S_TOT + pr->index);
			break;
		case PMT_SPE_CONTEXT: e.slot = S_CTX; break;
		case PMT_SPE_OP_TYPE:
			/* class 3 fails the record (see ref_step()) */
			if (pr->index == 3)
				e.kind = K_SLOW;
			e.slot = S_OP;
			break;
		case PMT_SPE_EVENTS: e.slot = S_EV; e.evmask = ~0ULL; break;
		case PMT_SPE_DATA_SOURCE: e.slot = S_DSRC; break;
		default: e.kind = K_SLOW; break;
		}
		/* hot_record() computes the length from the header's size field */
		if (e.kind == K_PACKET && pr->len != 1 + (1u << ((h >> 4) & 3)))
			e.kind = K_SLOW;
		hot[h] = e;
	}
	for (unsigned c = 0; c < 3; c++)
		for (unsigned p = 0; p < 256; p++)
			op_table[c][p] = op_bits(c, p);
}

int pmt_spe_rec_new(const struct pmt_spe_rec_opts *opts, struct pmt_spe_rec_decoder **out)
{
	struct pmt_spe_rec_decoder *d;

	if (!out || (opts && !PMT_OPTS_HAS(opts, reference)))
		return -PMT_EINVAL;
	*out = NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -PMT_ENOMEM;
	pthread_once(&hot_once, hot_init);
	rec_reset(d, 0);
	if (opts) {
		d->emit_partial = opts->emit_partial;
		d->reference = opts->reference;
		if (PMT_OPTS_HAS(opts, events_last))
			d->events_last = opts->events_last;
		if (PMT_OPTS_HAS(opts, op_or))
			d->op_or = opts->op_or;
	}
	*out = d;
	return 0;
}

void pmt_spe_rec_free(struct pmt_spe_rec_decoder *d)
{
	free(d);
}

const struct pmt_spe_rec_stats *pmt_spe_rec_stats(const struct pmt_spe_rec_decoder *d)
{
	return &d->stats;
}

void pmt_spe_rec_feed(struct pmt_spe_rec_decoder *d, const uint8_t *buf, size_t len,
		      uint64_t base)
{
	pthread_once(&hot_once, hot_init);
	pmt_spe_pkt_iter_init(&d->it, buf, len, base);
	d->it.coalesce_pad = 1; /* PADs are skipped anyway: fewer iterations */
	if (!d->cur.npackets)
		d->cur.offset = base;
}

void spe_rec_set_pad_base(struct pmt_spe_rec_decoder *d, uint64_t pad_base)
{
	d->it.pad_base = pad_base;
}

/* pmt_spe_addr_canonical() without branches, for PC, TGT and PBT: perf fills the top byte
 * for non-secure (bit 63) EL1/EL2 (bits 62:61 = 1 or 2) addresses, i.e. bits 63:61 = 5 or 6 */
static inline uint64_t canon_branch(uint64_t x)
{
	uint64_t fill = (0x60u >> (x >> 61)) & 1;

	return (x & 0x00ffffffffffffffULL) | (0 - fill) << 56;
}

/* ... and for VA: a kernel address when bits 55:52 are all set */
static inline uint64_t canon_va(uint64_t x)
{
	uint64_t a = x & 0x00ffffffffffffffULL;
	uint64_t fill = ((a >> 52) & 0xf) == 0xf;

	return a | (0 - fill) << 56;
}

/* Past a run of zero bytes starting at p, at most 16 of them; p[0..15] must be readable. */
static inline const uint8_t *skip_zeros(const uint8_t *p)
{
#ifdef PMT_HAVE_SSE2
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	unsigned zero = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128()));

	return p + __builtin_ctz(~zero); /* ~zero has bit 16 set */
#else
	uint64_t w = pmt_le64(p);

	if (w)
		return p + (__builtin_ctzll(w) >> 3);
	w = pmt_le64(p + 8);
	return p + (w ? 8 + (__builtin_ctzll(w) >> 3) : 16);
#endif
}

/* Slot values of a record without the packet: the fields' defaults (no CONTEXT = all ones). */
static const uint64_t raw_default[S_NSLOTS] = { [S_CTX] = UINT64_MAX };

/* A record assembled by the fused path, before it becomes a struct pmt_spe_record. */
struct hot_acc {
	uint64_t raw[S_NSLOTS], ev;
	unsigned op_hdr; /* header of the last OP_TYPE packet; 3 = none (class 3 never gets here) */
	unsigned nop;    /* OP_TYPE packets seen */
};

static inline void acc_init(struct hot_acc *a)
{
	memcpy(a->raw, raw_default, sizeof(a->raw));
	a->ev = 0;
	a->op_hdr = 3;
	a->nop = 0;
}

/* One body packet (not PAD, not the end packet) at p; returns its slot. */
static inline unsigned acc_packet(struct hot_acc *a, const uint8_t *p, unsigned h)
{
	const struct hot_ent *e = &hot[h];
	uint64_t pl = pmt_le64(p + 1) & e->mask;

	a->raw[e->slot] = pl;
	a->ev |= pl & e->evmask;
	return e->slot;
}

/* Completes *rec from the field values f[] (indexed by slot; f[S_EV] is not read) and
 * commits the decoder past the end packet at end_pkt. */
static inline int finish_fields(struct pmt_spe_rec_decoder *d, struct pmt_spe_record *rec,
				const uint64_t *f, uint64_t events, unsigned op_hdr,
				const uint8_t *start, const uint8_t *end_pkt, unsigned npk)
{
	const uint8_t *const buf = d->it.buf;
	const int has_ts = *end_pkt == 0x71;
	unsigned cls = op_hdr & 3;

	rec->offset = d->it.base + (uint64_t)(start - buf);
	rec->events = events;
	rec->from_ip = canon_branch(f[S_PC]);
	rec->to_ip = canon_branch(f[S_TGT]);
	rec->prev_br_tgt = canon_branch(f[S_PBT]);
	rec->virt_addr = canon_va(f[S_VA]);
	rec->phys_addr = f[S_PA] & 0x00ffffffffffffffULL;
	rec->timestamp = has_ts ? pmt_le64(end_pkt + 1) : 0;
	rec->context_id = f[S_CTX];
	rec->op = cls < 3 ? op_table[cls][f[S_OP] & 0xff] : 0;
	rec->latency = (uint32_t)f[S_TOT];
	rec->issue_lat = (uint16_t)f[S_ISSUE];
	rec->xlat_lat = (uint16_t)f[S_XLAT];
	rec->source = (uint16_t)f[S_DSRC];
	rec->op_class = (uint8_t)(cls < 3 ? cls : 0xff);
	rec->op_payload = (uint8_t)f[S_OP];
	rec->has_ts = (uint8_t)has_ts;
	rec->partial = 0;
	rec->npackets = (uint16_t)npk;

	d->it.pos = (size_t)(end_pkt + (has_ts ? 9 : 1) - buf);
	d->cur.offset = d->it.base + d->it.pos;
	d->in_bad = 0;
	d->stats.records++;
	return 1;
}

/* The first cached layout all of whose header and PAD bytes are at start, or NULL. The
 * caller guarantees 80 readable bytes. Equal header and PAD bytes make the packet walk
 * take exactly the same steps, so the layout's offsets are the record's. */
static const struct pmt_spe_rec_shape *shape_find(const struct pmt_spe_rec_decoder *d,
						  const uint8_t *start)
{
	uint64_t w0 = pmt_le64(start), w1 = pmt_le64(start + 8);

	for (unsigned s = 0; s < d->nshapes; s++) {
		const struct pmt_spe_rec_shape *sh = &d->shapes[s];
		uint64_t diff = ((w0 & sh->hmask[0]) ^ sh->hval[0]) |
				((w1 & sh->hmask[1]) ^ sh->hval[1]);

		if (diff)
			continue;
		for (unsigned i = 2; i < 8; i++)
			diff |= (pmt_le64(start + 8 * i) & sh->hmask[i]) ^ sh->hval[i];
		if (!diff)
			return sh;
	}
	return NULL;
}

/* A record in a known layout: every field is one load and mask, no walk, no branch. */
static int shape_record(struct pmt_spe_rec_decoder *d, struct pmt_spe_record *rec,
			const struct pmt_spe_rec_shape *sh, const uint8_t *start)
{
	uint64_t f[S_SINK];

	for (unsigned i = 0; i < S_SINK; i++)
		f[i] = pmt_le64(start + sh->foff[i]) & sh->fmask[i];
	f[S_CTX] |= sh->ctx_none;
	return finish_fields(d, rec, f, f[S_EV], sh->op_hdr, start, start + sh->end_off, sh->npk);
}

/* Remembers the layout of a record the packet walk just decoded (npk body packets at
 * off[]/hdr[], end packet at end_off), when it fits in a shape: at most 64 bytes and one
 * EVENTS packet (several are ORed, which a per-field load cannot do). */
static void shape_learn(struct pmt_spe_rec_decoder *d, const uint8_t *off, const uint8_t *hdr,
			unsigned npk, unsigned end_off, unsigned end_hdr, unsigned op_hdr)
{
	struct pmt_spe_rec_shape *sh;
	unsigned len = end_off + (end_hdr == 0x71 ? 9 : 1), nev = 0;
	uint8_t m[64], v[64];

	if (npk > 16 || len > 64)
		return;
	for (unsigned i = 0; i < npk; i++)
		nev += hot[hdr[i]].slot == S_EV;
	if (nev > 1)
		return;
	sh = &d->shapes[d->next_shape];
	d->next_shape = (uint8_t)((d->next_shape + 1) % PMT_SPE_REC_SHAPES);
	if (d->nshapes < PMT_SPE_REC_SHAPES)
		d->nshapes++;
	/* every byte of the record is PAD (must be 0) unless a packet covers it */
	memset(m, 0xff, len);
	memset(m + len, 0, sizeof(m) - len);
	memset(v, 0, sizeof(v));
	memset(sh->fmask, 0, sizeof(sh->fmask));
	memset(sh->foff, 0, sizeof(sh->foff));
	for (unsigned i = 0; i <= npk; i++) {
		unsigned o = i < npk ? off[i] : end_off;
		unsigned h = i < npk ? hdr[i] : end_hdr;
		unsigned n = i < npk ? 1 + (1u << ((h >> 4) & 3)) : len - end_off;

		v[o] = (uint8_t)h;
		memset(m + o + 1, 0, n - 1); /* payload: any value */
		if (i < npk && hot[h].slot < S_SINK) {
			/* in packet order: the last packet of a field wins, as in the walk */
			sh->fmask[hot[h].slot] = hot[h].mask;
			sh->foff[hot[h].slot] = (uint8_t)(o + 1);
		}
	}
	for (unsigned i = 0; i < 8; i++) {
		sh->hmask[i] = pmt_le64(m + 8 * i);
		sh->hval[i] = pmt_le64(v + 8 * i);
	}
	sh->ctx_none = sh->fmask[S_CTX] ? 0 : UINT64_MAX;
	sh->npk = (uint8_t)(npk + 1);
	sh->end_off = (uint8_t)end_off;
	sh->op_hdr = (uint8_t)op_hdr;
}

/* The packet walk of the fused path, for a record in no known layout: returns 1 with *rec
 * filled, or 0 with d->it.pos at start for the reference path. Kept out of hot_record():
 * inlined there, its perf-version checks (OP_TYPE count, last EVENTS packet) changed the
 * code GCC made for the layout path too, 3 more instructions per record (callgrind), about
 * 2% of bench_spe_decode's records-only rate. */
static __attribute__((noinline)) int hot_walk(struct pmt_spe_rec_decoder *d,
					      struct pmt_spe_record *rec, const uint8_t *start)
{
	const uint8_t *const buf = d->it.buf;
	const uint8_t *const end = buf + d->it.len - HOT_AHEAD; /* last p with 16 bytes */
	const uint8_t *p = start;
	struct hot_acc a;
	uint8_t off[32], hdr[32];
	uint32_t npk = 0;
	unsigned kind;

	acc_init(&a);
	for (;;) {
		unsigned h;

		if (__builtin_expect(p > end, 0))
			return 0;
		h = *p;
		kind = hot[h].kind;
		if (__builtin_expect(kind != K_PACKET, 0)) {
			if (kind != K_PAD)
				break;
			/* a packet count wrapped to 0 lets a PAD move the reference's offset */
			if (!(uint16_t)npk)
				return 0;
			p = skip_zeros(p);
			continue;
		}
		if (acc_packet(&a, p, h) == S_OP) {
			a.op_hdr = h;
			a.nop++;
		}
		/* the layout, for shape_learn() (only records of <= 16 packets are kept) */
		off[npk & 31] = (uint8_t)(p - start);
		hdr[npk & 31] = (uint8_t)h;
		npk++;
		/* short header: 1 + 2^size bytes; arithmetic keeps the table load off the
		 * critical path from one header to the next */
		p += 1 + (1u << ((h >> 4) & 3));
	}
	if (kind == K_SLOW) {
		d->it.pos = (size_t)(start - buf);
		return 0;
	}
	if (a.nop > 1) {
		/* one slot keeps only the last OP_TYPE payload: the reference path combines
		 * them as the perf being followed does */
		d->it.pos = (size_t)(start - buf);
		return 0;
	}
	if (p - start < 64)
		shape_learn(d, off, hdr, npk, (unsigned)(p - start), *p, a.op_hdr);
	/* raw[S_EV] holds the last EVENTS payload (0 without one), ev all of them ORed */
	return finish_fields(d, rec, a.raw, d->events_last ? a.raw[S_EV] : a.ev, a.op_hdr,
			     start, p, npk + 1);
}

/* The fused path: one whole record from a fresh start (d->cur empty). Returns 1 with *rec
 * filled, or 0 with d->it.pos at the first packet the reference path must take over from
 * (leading PADs are consumed either way, exactly as ref_step() would). */
static int hot_record(struct pmt_spe_rec_decoder *d, struct pmt_spe_record *rec)
{
	const uint8_t *const buf = d->it.buf;
	const uint8_t *const end = buf + d->it.len - HOT_AHEAD; /* last p with 16 bytes */
	const uint8_t *p = buf + d->it.pos, *start;
	const struct pmt_spe_rec_shape *sh;

	if (!*p) {
		while (p <= end && !*p)
			p = skip_zeros(p);
		/* the reference path: PADs of an empty record move its offset past them */
		d->it.pos = (size_t)(p - buf);
		d->cur.offset = d->it.base + d->it.pos;
		d->in_bad = 0;
	}
	start = p;
	/* the hardware prefetcher alone leaves the stream's loads waiting on memory */
	__builtin_prefetch((const void *)((uintptr_t)start + 1024));
	/* a layout covers at most 64 bytes, and its loads read 8 bytes from offsets <= 64 */
	if (start + 64 <= end && (sh = shape_find(d, start)))
		return shape_record(d, rec, sh, start);
	return hot_walk(d, rec, start);
}

static void finish(struct pmt_spe_rec_decoder *d, struct pmt_spe_record *rec)
{
	*rec = d->cur;
	d->stats.records++;
	rec_reset(d, pmt_spe_pkt_iter_offset(&d->it));
}

/* perf 6.1's record.op: a load bit (loads and SVE-OTHER) and a store bit */
static bool load_op_601(const struct pmt_spe_record *r)
{
	return (r->op & PMT_SPE_OP_F_LD) ||
	       (r->op_class == PMT_SPE_OP_OTHER && (r->op_payload & 0x89) == 0x08);
}

static bool memory_op_601(const struct pmt_spe_record *r)
{
	return load_op_601(r) || (r->op & PMT_SPE_OP_F_ST);
}

/* The reference path: one packet from the generic iterator. Returns 1 with a record, 0 to
 * go on, -PMT_EEOS at the end of the buffer. */
static int ref_step(struct pmt_spe_rec_decoder *d, struct pmt_spe_record *rec)
{
	struct pmt_spe_record *r = &d->cur;
	struct pmt_spe_packet pkt;
	struct pmt_spe_record prev;
	int rc = pmt_spe_pkt_next(&d->it, &pkt);

	if (rc == -PMT_EEOS)
		return -PMT_EEOS;
	if (rc > 0 && pkt.type == PMT_SPE_OP_TYPE && pkt.index == 3) {
		/* OP_TYPE class 3 is reserved: perf's record decoder fails the record
		 * ("Get packet error!") after consuming the packet, so the next record
		 * starts right after it (verified on perf 6.1.187) */
		rc = -PMT_EBAD_PACKET;
		for (int i = 0; i < pkt.len; i++)
			note_bad(d, pmt_spe_pkt_iter_offset(&d->it) - pkt.len + (uint64_t)i);
	} else if (rc < 0) {
		note_bad(d, pmt_spe_pkt_iter_offset(&d->it));
		pmt_spe_pkt_iter_skip(&d->it, 1);
	}
	if (rc < 0) {
		/* perf: abandon the record, restart mid-stream */
		uint64_t next = pmt_spe_pkt_iter_offset(&d->it);
		int had = r->npackets;

		if (d->emit_partial) {
			*rec = *r;
			rec->partial = 1;
			rec_reset(d, next);
			return 1;
		}
		if (had)
			d->stats.records_dropped++;
		rec_reset(d, next);
		return 0;
	}
	d->in_bad = 0;
	if (pkt.type == PMT_SPE_PAD || pkt.type == PMT_SPE_ALIGN_PAD) {
		if (!r->npackets)
			r->offset = pmt_spe_pkt_iter_offset(&d->it);
		return 0;
	}
	d->cur_open = 1;
	if (d->events_last && pkt.type == PMT_SPE_EVENTS)
		r->events = 0;
	prev = *r;
	if (apply(r, pkt.type, pkt.index, pkt.payload)) {
		finish(d, rec);
		return 1;
	}
	if (pkt.type != PMT_SPE_OP_TYPE)
		return 0;
	if (d->op_or) {
		r->op |= prev.op;
	} else if (memory_op_601(&prev)) {
		/* perf 6.1 ORs a load bit (loads, SVE-OTHER) or a store bit into record.op
		 * and nothing else: a later branch or other OP_TYPE packet leaves it, and a
		 * record can be both (perf then shows a load with a store's data source;
		 * measured on 6.1.187) */
		uint32_t ldst = (prev.op & PMT_SPE_OP_F_ST) |
				(load_op_601(&prev) ? PMT_SPE_OP_F_LD : 0);

		if (!memory_op_601(r)) {
			r->op = prev.op;
			r->op_class = prev.op_class;
			r->op_payload = prev.op_payload;
		} else if (load_op_601(r)) {
			ldst |= PMT_SPE_OP_F_LD;
		}
		r->op |= ldst;
	}
	return 0;
}

int pmt_spe_rec_next(struct pmt_spe_rec_decoder *d, struct pmt_spe_record *rec)
{
	for (;;) {
		int rc;

		if (!d->reference && !d->cur_open && d->it.pos < d->it.len &&
		    d->it.len - d->it.pos >= HOT_AHEAD && hot_record(d, rec))
			return 1;
		rc = ref_step(d, rec);
		if (rc)
			return rc;
	}
}

int pmt_spe_rec_stats_str(const struct pmt_spe_rec_stats *s, char *out, size_t cap)
{
	if (!cap)
		return 0;
	if (!s->have_bad) {
		out[0] = 0;
		return 0;
	}
	return snprintf(out, cap,
			"%" PRIu64 " bytes skipped in %" PRIu64 " ranges, %" PRIu64
			" partial records dropped, first bad byte at AUX stream offset 0x%" PRIx64,
			s->bytes_skipped, s->bad_ranges, s->records_dropped,
			s->first_bad_offset);
}

void pmt_spe_rec_stats_add(struct pmt_spe_rec_stats *to, const struct pmt_spe_rec_stats *from)
{
	to->records += from->records;
	to->bytes_skipped += from->bytes_skipped;
	to->bad_ranges += from->bad_ranges;
	to->records_dropped += from->records_dropped;
	if (from->have_bad && (!to->have_bad || from->first_bad_offset < to->first_bad_offset)) {
		to->have_bad = 1;
		to->first_bad_offset = from->first_bad_offset;
	}
}
