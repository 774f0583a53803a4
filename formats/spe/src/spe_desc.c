/* Arm SPE packet text as `perf report -D` prints it (arm_spe_pkt_desc()): the newest decoder's
 * wording by default, Debian perf 6.1's with PMT_SPE_DESC_LEGACY61. Hand-rolled formatting
 * because dump prints one of these per packet. */
#include "pmutrace/common.h"
#include "pmutrace/spe.h"

struct sb {
	char *p;
	size_t cap, len; /* len may exceed cap: the text is then truncated */
};

static void sb_str(struct sb *b, const char *s)
{
	for (; *s; s++, b->len++)
		if (b->len + 1 < b->cap)
			b->p[b->len] = *s;
}

static void sb_u64(struct sb *b, uint64_t v, unsigned base)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n--) {
		if (b->len + 1 < b->cap)
			b->p[b->len] = tmp[n];
		b->len++;
	}
}

static void sb_i64(struct sb *b, int64_t v)
{
	if (v < 0) {
		sb_str(b, "-");
		sb_u64(b, (uint64_t)0 - (uint64_t)v, 10);
	} else {
		sb_u64(b, (uint64_t)v, 10);
	}
}

static void sb_0x(struct sb *b, uint64_t v)
{
	sb_str(b, "0x");
	sb_u64(b, v, 16);
}

static const char *const type_name[] = {
	[PMT_SPE_PAD] = "PAD",         [PMT_SPE_END] = "END",       [PMT_SPE_TIMESTAMP] = "TS",
	[PMT_SPE_ADDRESS] = "ADDR",    [PMT_SPE_COUNTER] = "LAT",   [PMT_SPE_CONTEXT] = "CONTEXT",
	[PMT_SPE_OP_TYPE] = "OP-TYPE", [PMT_SPE_EVENTS] = "EVENTS", [PMT_SPE_DATA_SOURCE] = "DATA-SOURCE",
	[PMT_SPE_ALIGN_PAD] = "PAD",
};

/* EVENTS names in perf's print order (bit order), newest decoder. */
static const struct {
	uint8_t bit;
	uint8_t in61; /* known to perf 6.1 */
	const char *name;
} ev_names[] = {
	{ 0, 1, "EXCEPTION-GEN" }, { 1, 1, "RETIRED" },        { 2, 1, "L1D-ACCESS" },
	{ 3, 1, "L1D-REFILL" },    { 4, 1, "TLB-ACCESS" },     { 5, 1, "TLB-REFILL" },
	{ 6, 1, "NOT-TAKEN" },     { 7, 1, "MISPRED" },        { 8, 1, "LLC-ACCESS" },
	{ 9, 1, "LLC-REFILL" },    { 10, 1, "REMOTE-ACCESS" }, { 11, 1, "ALIGNMENT" },
	{ 16, 0, "TXN" },          { 17, 1, "SVE-PARTIAL-PRED" }, { 18, 1, "SVE-EMPTY-PRED" },
	{ 19, 0, "L2D-ACCESS" },   { 20, 0, "L2D-MISS" },      { 21, 0, "HITM" },
	{ 22, 0, "LFB" },          { 23, 0, "SNOOPED" },       { 24, 0, "STREAMING-SVE" },
	{ 25, 0, "SMCU" },
};

static void desc_events(struct sb *b, uint64_t p, unsigned flags)
{
	int legacy = flags & PMT_SPE_DESC_LEGACY61;

	sb_str(b, "EV");
	for (size_t i = 0; i < sizeof(ev_names) / sizeof(ev_names[0]); i++) {
		uint64_t bit = 1ULL << ev_names[i].bit;

		if (legacy && !ev_names[i].in61)
			continue;
		if (p & bit) {
			sb_str(b, " ");
			sb_str(b, ev_names[i].name);
		}
		p &= ~bit;
	}
	if (legacy)
		return; /* 6.1 ignores every other bit */
	if ((flags & PMT_SPE_DESC_N1) && (p & (1ULL << 12))) {
		sb_str(b, " LATE-PREFETCH");
		p &= ~(1ULL << 12);
	}
	if (p) {
		sb_str(b, " IMPDEF:");
		for (unsigned i = 0; i < 64; i++) {
			if (!(p & (1ULL << i)))
				continue;
			sb_u64(b, i, 10);
			p &= ~(1ULL << i);
			if (p)
				sb_str(b, ",");
		}
	}
}

static void sve_evlen(struct sb *b, uint64_t p)
{
	sb_str(b, " EVLEN ");
	sb_u64(b, 32u << ((p >> 4) & 7), 10);
}

static void sve_other(struct sb *b, uint64_t p)
{
	sb_str(b, "SVE-OTHER");
	sve_evlen(b, p);
	if (p & 0x2)
		sb_str(b, " FP");
	if (p & 0x4)
		sb_str(b, " PRED");
}

static void ldst_ext(struct sb *b, uint64_t p)
{
	if (p & 0x4)
		sb_str(b, " AT");
	if (p & 0x8)
		sb_str(b, " EXCL");
	if (p & 0x10)
		sb_str(b, " AR");
}

/* Returns 0, or -1 for perf's "unknown class" raw fallback. */
static int desc_op_newest(struct sb *b, unsigned cls, uint64_t p)
{
	switch (cls) {
	case PMT_SPE_OP_OTHER:
		if ((p & 0x89) == 0x08) {
			sve_other(b, p);
		} else if ((p & 0x89) == 0x88) {
			unsigned ets = (unsigned)(((p >> 4) & 7) << 1 | ((p >> 2) & 1));

			sb_str(b, "SME-OTHER ETS ");
			sb_u64(b, 128ULL << ets, 10);
			if (p & 0x2)
				sb_str(b, " FP");
		} else if ((p & 0xF8) == 0) {
			sb_str(b, "OTHER");
			if (p & 0x4)
				sb_str(b, " ASE");
			if (p & 0x2)
				sb_str(b, " FP");
			sb_str(b, p & 0x1 ? " COND-SELECT" : " INSN-OTHER");
		}
		return 0;
	case PMT_SPE_OP_LDST:
		sb_str(b, p & 0x1 ? "ST" : "LD");
		if ((p & 0xE2) == 0x02) {
			ldst_ext(b, p);
		} else if ((p & 0xFE) == 0x04) {
			sb_str(b, " SIMD-FP");
		} else if ((p & 0xFE) == 0x00) {
			sb_str(b, " GP-REG");
		} else if ((p & 0xFE) == 0x10) {
			sb_str(b, " UNSPEC-REG");
		} else if ((p & 0xFE) == 0x30) {
			sb_str(b, " NV-SYSREG");
		} else if ((p & 0xFE) == 0x14) {
			sb_str(b, " MTE-TAG");
		} else if ((p & 0xFE) == 0x20) {
			sb_str(b, " MEMCPY");
		} else if ((p & 0xFF) == 0x25) {
			sb_str(b, " MEMSET");
		} else if ((p & 0x0A) == 0x08) {
			sb_str(b, " SVE-SME-REG");
			sve_evlen(b, p);
			if (p & 0x4)
				sb_str(b, " PRED");
			if (p & 0x80)
				sb_str(b, " SG");
		} else if ((p & 0xFA) == 0x40) {
			sb_str(b, " GCS");
			if (p & 0x4)
				sb_str(b, " COMM");
		}
		return 0;
	case PMT_SPE_OP_BRANCH: {
		unsigned cr = (unsigned)(p >> 3) & 3;

		sb_str(b, "B");
		if (p & 0x1)
			sb_str(b, " COND");
		if (p & 0x2)
			sb_str(b, " IND");
		if (p & 0x4)
			sb_str(b, " GCS");
		if (cr == 1)
			sb_str(b, " CR-BL");
		else if (cr == 2)
			sb_str(b, " CR-RET");
		else if (cr == 3)
			sb_str(b, " CR-NON-BL-RET");
		return 0;
	}
	default:
		return -1;
	}
}

/* perf 6.1 (checked against Debian's perf 6.1.187): extended LDST prints AT/EXCL/AR, then
 * an independent subclass switch on p & 0xFE that knows SIMD-FP, GP-REG, UNSPEC-REG and
 * NV-SYSREG only, then SVE fields. */
static int desc_op_61(struct sb *b, unsigned cls, uint64_t p)
{
	switch (cls) {
	case PMT_SPE_OP_OTHER:
		if ((p & 0x89) == 0x08)
			sve_other(b, p);
		else
			sb_str(b, p & 0x1 ? "OTHER COND-SELECT" : "OTHER INSN-OTHER");
		return 0;
	case PMT_SPE_OP_LDST:
		sb_str(b, p & 0x1 ? "ST" : "LD");
		if ((p & 0xE2) == 0x02)
			ldst_ext(b, p);
		switch (p & 0xFE) {
		case 0x04: sb_str(b, " SIMD-FP"); break;
		case 0x00: sb_str(b, " GP-REG"); break;
		case 0x10: sb_str(b, " UNSPEC-REG"); break;
		case 0x30: sb_str(b, " NV-SYSREG"); break;
		default: break; /* 6.1 prints no MTE-TAG, MEMCPY or MEMSET */
		}
		if ((p & 0x0A) == 0x08) {
			sve_evlen(b, p);
			if (p & 0x4)
				sb_str(b, " PRED");
			if (p & 0x80)
				sb_str(b, " SG");
		}
		return 0;
	case PMT_SPE_OP_BRANCH:
		sb_str(b, "B");
		if (p & 0x1)
			sb_str(b, " COND");
		if ((p & 0xFE) == 0x02)
			sb_str(b, " IND");
		return 0;
	default:
		return -1;
	}
}

static int desc_addr(struct sb *b, unsigned idx, uint64_t p, unsigned flags)
{
	static const char *const names[] = { "PC", "TGT", "VA", "PA", "PBT" };
	uint64_t addr = p & 0x00ffffffffffffffULL;

	if (idx == PMT_SPE_ADDR_PBT && (flags & PMT_SPE_DESC_LEGACY61))
		return -1; /* 6.1 predates PBT: raw fallback */
	switch (idx) {
	case PMT_SPE_ADDR_PC:
	case PMT_SPE_ADDR_TGT:
	case PMT_SPE_ADDR_PBT:
		sb_str(b, names[idx]);
		sb_str(b, " ");
		sb_0x(b, addr);
		sb_str(b, " el");
		sb_u64(b, (p >> 61) & 3, 10);
		sb_str(b, " ns=");
		sb_u64(b, p >> 63, 10);
		return 0;
	case PMT_SPE_ADDR_VA:
		sb_str(b, "VA ");
		sb_0x(b, p);
		return 0;
	case PMT_SPE_ADDR_PA:
		sb_str(b, "PA ");
		sb_0x(b, addr);
		sb_str(b, " ns=");
		sb_u64(b, p >> 63, 10);
		sb_str(b, " ch=");
		sb_u64(b, (p >> 62) & 1, 10);
		sb_str(b, " pat=");
		sb_u64(b, (p >> 56) & 0xf, 16);
		return 0;
	default:
		return -1;
	}
}

int pmt_spe_packet_desc_flags(const struct pmt_spe_packet *pkt, unsigned flags, char *out,
			      size_t cap)
{
	struct sb b = { out, cap, 0 };
	uint64_t p;
	int err = 0;

	if (!pkt || !out || !cap || pkt->type > PMT_SPE_ALIGN_PAD)
		return -PMT_EINVAL;
	p = pkt->payload;
	switch (pkt->type) {
	case PMT_SPE_PAD:
	case PMT_SPE_ALIGN_PAD:
	case PMT_SPE_END:
		sb_str(&b, type_name[pkt->type]);
		break;
	case PMT_SPE_TIMESTAMP:
	case PMT_SPE_DATA_SOURCE:
		/* perf prints these with %lld */
		sb_str(&b, type_name[pkt->type]);
		sb_str(&b, " ");
		sb_i64(&b, (int64_t)p);
		break;
	case PMT_SPE_EVENTS:
		desc_events(&b, p, flags);
		break;
	case PMT_SPE_OP_TYPE:
		err = flags & PMT_SPE_DESC_LEGACY61 ? desc_op_61(&b, pkt->index, p)
						    : desc_op_newest(&b, pkt->index, p);
		break;
	case PMT_SPE_ADDRESS:
		err = desc_addr(&b, pkt->index, p, flags);
		break;
	case PMT_SPE_CONTEXT:
		sb_str(&b, "CONTEXT ");
		sb_0x(&b, p);
		sb_str(&b, " el");
		sb_u64(&b, pkt->index + 1u, 10);
		break;
	case PMT_SPE_COUNTER: {
		static const char *const names[] = { "TOT", "ISSUE", "XLAT" };

		/* perf: "%s %d " with (unsigned short)payload, then the name if known */
		sb_str(&b, "LAT ");
		sb_u64(&b, p & 0xffff, 10);
		sb_str(&b, " ");
		if (pkt->index < 3)
			sb_str(&b, names[pkt->index]);
		break;
	}
	}
	if (err) {
		/* perf's raw fallback for an index it cannot name */
		b.len = 0;
		sb_str(&b, type_name[pkt->type]);
		sb_str(&b, " ");
		sb_0x(&b, p);
		sb_str(&b, " (");
		sb_u64(&b, pkt->index, 10);
		sb_str(&b, ")");
	}
	if (b.len >= cap) {
		out[cap - 1] = '\0';
		return -PMT_ERANGE;
	}
	out[b.len] = '\0';
	return (int)b.len;
}

int pmt_spe_packet_desc(const struct pmt_spe_packet *pkt, char *out, size_t cap)
{
	return pmt_spe_packet_desc_flags(pkt, 0, out, cap);
}
