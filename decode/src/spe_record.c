/* SPE packets -> records, following perf's arm_spe_read_record(). */
#include <inttypes.h>
#include <pthread.h>

#include "pmutrace/decode.h"

/* Hot-path tables: per short header byte, the raw slot its payload goes to (SLOT_NONE:
 * needs the full decoder) and a second slot for the packet index. Raw payloads are turned
 * into record fields once per record (finish_raw), which keeps the per-packet work free of
 * data-dependent branches. */
enum { S_PC, S_TGT, S_VA, S_PA, S_PBT, S_TOT, S_ISSUE, S_XLAT, S_CTX, S_OP, S_EV, S_DSRC,
       S_TS, S_OPCLS, S_SINK, S_PAD, SLOT_NONE = 0xff };
struct hot {
	uint8_t a, b, len, idx; /* payload slot, index slot, packet length, packet index */
};
static struct hot hot[256];
/* payload byte mask by packet length (header byte + 0..8 payload bytes) */
static const uint64_t pl_mask[10] = { 0, 0, 0xff, 0xffff, 0, 0xffffffffULL, 0, 0, 0,
				      ~0ULL };
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;

static void slot_init(void)
{
	for (int h = 0; h < 256; h++) {
		const struct pmt_spe_packet *pr = &pmt_spe_hdr_proto[h];
		uint8_t a = SLOT_NONE, b = S_SINK;

		hot[h].a = SLOT_NONE;
		if (!pr->len)
			continue;
		switch (pr->type) {
		case PMT_SPE_PAD: a = S_PAD; break;
		case PMT_SPE_END: a = S_TS; break;
		case PMT_SPE_TIMESTAMP: a = S_TS; break;
		case PMT_SPE_ADDRESS: a = pr->index <= 4 ? (uint8_t)(S_PC + pr->index) : S_SINK; break;
		case PMT_SPE_COUNTER: a = pr->index <= 2 ? (uint8_t)(S_TOT + pr->index) : S_SINK; break;
		case PMT_SPE_CONTEXT: a = S_CTX; break;
		case PMT_SPE_OP_TYPE: /* class 3 is an error for the record decoder: slow path */
			a = pr->index == 3 ? SLOT_NONE : S_OP, b = S_OPCLS;
			break;
		case PMT_SPE_EVENTS: a = S_EV; break;
		case PMT_SPE_DATA_SOURCE: a = S_DSRC; break;
		default: a = SLOT_NONE; break;
		}
		/* only 1-byte headers: pl_mask[] assumes the payload follows at +1 */
		if (pr->ext || pr->len > 9)
			a = SLOT_NONE;
		hot[h] = (struct hot){ a, b, pr->len, pr->index };
	}
}

static void rec_reset(struct pmt_spe_record *r, uint64_t offset)
{
	memset(r, 0, sizeof(*r));
	r->context_id = UINT64_MAX;
	r->op_class = 0xff;
	r->offset = offset;
}

void pmt_spe_rec_init(struct pmt_spe_rec_decoder *d, const uint8_t *buf, size_t len,
		      uint64_t base)
{
	pthread_once(&slot_once, slot_init);
	memset(d, 0, sizeof(*d));
	pmt_spe_pkt_iter_init(&d->it, buf, len, base);
	d->it.coalesce_pad = 1; /* PADs are skipped anyway: fewer iterations */
	rec_reset(&d->cur, base);
}

void pmt_spe_rec_feed(struct pmt_spe_rec_decoder *d, const uint8_t *buf, size_t len,
		      uint64_t base)
{
	pthread_once(&slot_once, slot_init);
	pmt_spe_pkt_iter_init(&d->it, buf, len, base);
	d->it.coalesce_pad = 1;
	if (!d->cur.npackets)
		d->cur.offset = base;
}

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
		} else if ((p & 0xf8) == 0) {
			if (p & 0x1)
				op |= PMT_SPE_OP_F_COND;
			if (p & 0x2)
				op |= PMT_SPE_OP_F_FP;
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
		/* perf ORs the event bits of every EVENTS packet of a record */
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


/* Raw slots -> record fields, in packet-type order (later packets of a type win, as in
 * perf, since each slot holds the last payload). */
static void finish_raw(struct pmt_spe_record *r, const uint64_t *raw, uint32_t mask)
{
#define HAS(sl) (mask & (1u << (sl)))
	if (HAS(S_PC)) r->from_ip = pmt_spe_addr_canonical(PMT_SPE_ADDR_PC, raw[S_PC]);
	if (HAS(S_TGT)) r->to_ip = pmt_spe_addr_canonical(PMT_SPE_ADDR_TGT, raw[S_TGT]);
	if (HAS(S_VA)) r->virt_addr = pmt_spe_addr_canonical(PMT_SPE_ADDR_VA, raw[S_VA]);
	if (HAS(S_PA)) r->phys_addr = pmt_spe_addr_canonical(PMT_SPE_ADDR_PA, raw[S_PA]);
	if (HAS(S_PBT)) r->prev_br_tgt = pmt_spe_addr_canonical(PMT_SPE_ADDR_PBT, raw[S_PBT]);
	if (HAS(S_TOT)) r->latency = (uint32_t)raw[S_TOT];
	if (HAS(S_ISSUE)) r->issue_lat = (uint16_t)raw[S_ISSUE];
	if (HAS(S_XLAT)) r->xlat_lat = (uint16_t)raw[S_XLAT];
	if (HAS(S_CTX)) r->context_id = raw[S_CTX];
	if (HAS(S_OP)) {
		r->op_class = (uint8_t)raw[S_OPCLS];
		r->op_payload = (uint8_t)raw[S_OP];
		r->op = op_bits(r->op_class, r->op_payload);
	}
	if (HAS(S_EV)) r->events |= raw[S_EV]; /* OR of every EVENTS packet, see apply() */
	if (HAS(S_DSRC)) r->source = (uint16_t)raw[S_DSRC];
	if (HAS(S_TS)) {
		r->timestamp = raw[S_TS];
		r->has_ts = 1;
	}
#undef HAS
}

static void finish(struct pmt_spe_rec_decoder *d, struct pmt_spe_record *rec)
{
	*rec = d->cur;
	d->stats.records++;
	rec_reset(&d->cur, pmt_spe_pkt_iter_offset(&d->it));
}

int pmt_spe_rec_next(struct pmt_spe_rec_decoder *d, struct pmt_spe_record *rec)
{
	struct pmt_spe_record *r = &d->cur;
	struct pmt_spe_packet pkt;

	for (;;) {
		const uint8_t *buf = d->it.buf;
		size_t pos = d->it.pos, len = d->it.len;
		int rc;

		/* Hot path: short-header packets with 16 bytes to spare; see slot_init() */
		if (len - pos >= 16 && pos < len) {
			uint64_t raw[S_PAD + 1];
			uint32_t mask = 0;
			size_t end = len - 16;
			const int was_empty = !r->npackets;
			unsigned npk = 0;

			raw[S_EV] = 0;

			while (pos <= end) {
				unsigned h = buf[pos];
				struct hot e = hot[h];
				uint64_t pl;

				if (e.a >= S_PAD) {
					uint64_t w;

					if (e.a != S_PAD)
						break;
					w = pmt_le64(buf + pos);
					if (was_empty && !npk && !mask)
						r->offset = d->it.base + pos;
					pos += w ? (size_t)(__builtin_ctzll(w) >> 3) : 8;
					continue;
				}
				pl = pmt_le64(buf + pos + 1) & pl_mask[e.len];
				/* EVENTS accumulate (apply()); other slots keep the last payload */
				raw[e.a] = e.a == S_EV ? raw[S_EV] | pl : pl;
				raw[e.b] = e.idx;
				mask |= 1u << e.a | 1u << e.b;
				pos += e.len;
				npk++;
				if (e.a == S_TS) {
					if (h == 0x01)
						mask &= ~(1u << S_TS);
					r->npackets = (uint16_t)(r->npackets + npk);
					d->in_bad = 0;
					finish_raw(r, raw, mask);
					d->it.pos = pos;
					finish(d, rec);
					return 1;
				}
			}
			r->npackets = (uint16_t)(r->npackets + npk);
			if (mask) {
				d->in_bad = 0;
				finish_raw(r, raw, mask);
			}
		}
		d->it.pos = pos;

		rc = pmt_spe_pkt_next(&d->it, &pkt);
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
				rec_reset(r, next);
				return 1;
			}
			if (had)
				d->stats.records_dropped++;
			rec_reset(r, next);
			continue;
		}
		d->in_bad = 0;
		if (pkt.type == PMT_SPE_PAD || pkt.type == PMT_SPE_ALIGN_PAD) {
			if (!r->npackets)
				r->offset = pmt_spe_pkt_iter_offset(&d->it);
			continue;
		}
		if (apply(r, pkt.type, pkt.index, pkt.payload)) {
			finish(d, rec);
			return 1;
		}
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
