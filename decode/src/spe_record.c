/* SPE packets -> records, following perf's arm_spe_read_record(). */
#include <inttypes.h>

#include "pmutrace/decode.h"

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
	memset(d, 0, sizeof(*d));
	pmt_spe_pkt_iter_init(&d->it, buf, len, base);
	rec_reset(&d->cur, base);
}

void pmt_spe_rec_feed(struct pmt_spe_rec_decoder *d, const uint8_t *buf, size_t len,
		      uint64_t base)
{
	pmt_spe_pkt_iter_init(&d->it, buf, len, base);
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

int pmt_spe_rec_next(struct pmt_spe_rec_decoder *d, struct pmt_spe_record *rec)
{
	struct pmt_spe_record *r = &d->cur;
	struct pmt_spe_packet pkt;

	for (;;) {
		int rc = pmt_spe_pkt_next(&d->it, &pkt);

		if (rc == -PMT_EEOS)
			return -PMT_EEOS;
		if (rc < 0) {
			/* perf: skip one byte, abandon the record, restart mid-stream */
			uint64_t off = pmt_spe_pkt_iter_offset(&d->it);
			int had = r->npackets;

			note_bad(d, off);
			pmt_spe_pkt_iter_skip(&d->it, 1);
			if (d->emit_partial) {
				*rec = *r;
				rec->partial = 1;
				rec_reset(r, off + 1);
				return 1;
			}
			if (had)
				d->stats.records_dropped++;
			rec_reset(r, off + 1);
			continue;
		}
		d->in_bad = 0;
		if (pkt.type == PMT_SPE_PAD || pkt.type == PMT_SPE_ALIGN_PAD) {
			if (!r->npackets)
				r->offset = pmt_spe_pkt_iter_offset(&d->it);
			continue;
		}
		r->npackets++;
		switch (pkt.type) {
		case PMT_SPE_TIMESTAMP:
			r->timestamp = pkt.payload;
			r->has_ts = 1;
			/* fall through */
		case PMT_SPE_END:
			*rec = *r;
			d->stats.records++;
			rec_reset(r, pmt_spe_pkt_iter_offset(&d->it));
			return 1;
		case PMT_SPE_ADDRESS: {
			uint64_t a = pmt_spe_addr_canonical(pkt.index, pkt.payload);

			switch (pkt.index) {
			case PMT_SPE_ADDR_PC: r->from_ip = a; break;
			case PMT_SPE_ADDR_TGT: r->to_ip = a; break;
			case PMT_SPE_ADDR_VA: r->virt_addr = a; break;
			case PMT_SPE_ADDR_PA: r->phys_addr = a; break;
			case PMT_SPE_ADDR_PBT: r->prev_br_tgt = a; break;
			}
			break;
		}
		case PMT_SPE_COUNTER:
			if (pkt.index == PMT_SPE_CNT_TOT)
				r->latency = (uint32_t)pkt.payload;
			else if (pkt.index == PMT_SPE_CNT_ISSUE)
				r->issue_lat = (uint16_t)pkt.payload;
			else if (pkt.index == PMT_SPE_CNT_XLAT)
				r->xlat_lat = (uint16_t)pkt.payload;
			break;
		case PMT_SPE_CONTEXT:
			r->context_id = pkt.payload;
			break;
		case PMT_SPE_OP_TYPE:
			r->op_class = pkt.index;
			r->op_payload = (uint8_t)pkt.payload;
			r->op = op_bits(pkt.index, (unsigned)pkt.payload & 0xff);
			break;
		case PMT_SPE_EVENTS:
			r->events = pkt.payload;
			break;
		case PMT_SPE_DATA_SOURCE:
			r->source = (uint16_t)pkt.payload;
			break;
		default:
			break;
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
			" partial records dropped, first bad byte at offset 0x%" PRIx64,
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
