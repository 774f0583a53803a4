/* Synthetic Arm SPE streams shaped like Neoverse N1/V2 output, written through the packet
 * encoder. Record layout follows the real buffers (hiperf/quipper/wperf in ../shared):
 *   PC [CONTEXT] OP_TYPE EVENTS LAT-ISSUE LAT-TOT [VA LAT-XLAT [PA]] [TGT] PAD.. [DS] TS|END
 * Rates are plausible, not measured: about 8% of loads refill L1D, and the data source of a
 * load follows from its events (no refill -> L1D code 0; LLC miss -> DRAM 0xE; ...). */
#include "pmutrace/common.h"
#include "pmutrace/spe.h"

static uint64_t rnd(struct pmt_spe_synth *s)
{
	/* splitmix64: tiny, seedable, good enough for shapes */
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) */
static uint32_t below(struct pmt_spe_synth *s, uint32_t n)
{
	return (uint32_t)(((rnd(s) >> 32) * n) >> 32);
}

/* true with probability permille/1000 */
static int chance(struct pmt_spe_synth *s, uint32_t permille)
{
	return below(s, 1000) < permille;
}

void pmt_spe_synth_opts_init(struct pmt_spe_synth_opts *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
	o->seed = 1;
	o->mix = PMT_SPE_MIX_N1;
	o->timestamps = 1;
	o->record_size = 64;
	o->kernel_pct = 10;
}

int pmt_spe_synth_init(struct pmt_spe_synth *s, const struct pmt_spe_synth_opts *o)
{
	if (!s || !PMT_OPTS_HAS(o, kernel_pct) || o->mix >= PMT_SPE_MIX_COUNT)
		return -PMT_EINVAL;
	if (o->record_size && (o->record_size < 64 || o->record_size > PMT_SPE_SYNTH_RECORD_MAX))
		return -PMT_EINVAL;
	memset(s, 0, sizeof(*s));
	s->o = *o;
	if (o->mix == PMT_SPE_MIX_V2)
		s->o.pa = 1;
	s->rng = o->seed;
	s->ts = 0x00000c008104f9afULL + (rnd(s) & 0xffffff);
	s->pid = 1000 + below(s, 30000);
	return 0;
}

int pmt_spe_synth_mix_parse(const char *name, uint32_t *mix)
{
	static const char *const names[PMT_SPE_MIX_COUNT] = {
		"n1", "v2", "loads", "stores", "branches", "other", "hip12",
	};

	if (!name || !mix)
		return -PMT_EINVAL;
	for (uint32_t i = 0; i < PMT_SPE_MIX_COUNT; i++) {
		if (!strcmp(name, names[i])) {
			*mix = i;
			return 0;
		}
	}
	return -PMT_EPARSE;
}

struct rec {
	uint8_t *p;
	size_t len;
};

static void put(struct rec *r, uint8_t type, uint8_t index, uint8_t size, uint64_t payload)
{
	struct pmt_spe_packet pkt = { .type = type, .index = index, .payload_size = size,
				      .payload = payload };
	int n = pmt_spe_packet_encode(&pkt, r->p + r->len, PMT_SPE_PKT_MAX_SZ);

	/* every packet built here is valid by construction */
	if (n > 0)
		r->len += (size_t)n;
}

enum { OP_LOAD, OP_STORE, OP_BRANCH, OP_OTHER };

static int pick_op(struct pmt_spe_synth *s)
{
	uint32_t x = below(s, 100);

	switch (s->o.mix) {
	case PMT_SPE_MIX_LOADS: return OP_LOAD;
	case PMT_SPE_MIX_STORES: return OP_STORE;
	case PMT_SPE_MIX_BRANCHES: return OP_BRANCH;
	case PMT_SPE_MIX_OTHER: return OP_OTHER;
	default:
		/* a typical integer workload: 30% loads, 12% stores, 18% branches */
		return x < 30 ? OP_LOAD : x < 42 ? OP_STORE : x < 60 ? OP_BRANCH : OP_OTHER;
	}
}

/* Code addresses: user text (el0 ns=1), kernel_pct% kernel (el1 ns=1, top byte filled). */
static uint64_t pick_pc(struct pmt_spe_synth *s, int *kernel)
{
	uint64_t words;

	*kernel = chance(s, s->o.kernel_pct * 10u); /* one draw whatever the share: same seed, same stream */
	if (*kernel)
		return (0xa0ULL << 56) | 0xffffc084200000ULL | ((uint64_t)below(s, 1 << 20) << 2);
	if (!s->o.text_len)
		return (0x80ULL << 56) | 0xaaaae4a00000ULL | ((uint64_t)below(s, 1 << 18) << 2);
	words = s->o.text_len / 4 ? s->o.text_len / 4 : 1;
	if (words > UINT32_MAX)
		words = UINT32_MAX;
	return (0x80ULL << 56) | (((s->o.text_base + 3) & ~3ULL) + (uint64_t)below(s, (uint32_t)words) * 4);
}

static uint64_t pick_va(struct pmt_spe_synth *s, int kernel)
{
	if (kernel)
		return 0xffffe5ae000000ULL | (below(s, 1 << 24) & ~7u);
	if (chance(s, 300)) /* stack */
		return 0xfffff7e00000ULL | (below(s, 1 << 16) & ~7u);
	return 0xaaaae6000000ULL | (below(s, 1 << 26) & ~7u); /* heap */
}

struct mem_result {
	uint64_t ev;
	uint32_t tot, xlat;
	uint8_t ds;
};

/* The same access told in HiSilicon HIP12 codes (perf's enum arm_spe_hisi_hip_data_source):
 * each common level maps to its HIP12 code, some of them as the HITM variant, now and then
 * with the SNOOPED/HITM events that perf reads for codes that leave the snoop open, plus a
 * few codes the table does not know. */
static void hip12_source(struct pmt_spe_synth *s, struct mem_result *m)
{
	const uint64_t snooped = 1ULL << PMT_SPE_EV_DATA_SNOOPED;
	const uint64_t hitm = 1ULL << PMT_SPE_EV_CACHE_DATA_MODIFIED;
	int hot = chance(s, 250);

	switch (m->ds) {
	case 0x0: m->ds = 18; break;                      /* L1 */
	case 0x8: m->ds = hot ? 17 : 16; break;           /* L2 (HITM) */
	case 0x9: m->ds = hot ? 1 : 0; break;             /* peer CPU (HITM) */
	case 0xA: m->ds = 3; break;                       /* L3 HITM */
	case 0xB: m->ds = 2; break;                       /* L3 */
	case 0xC: m->ds = hot ? 5 : 4; break;             /* peer cluster (HITM) */
	case 0xD: m->ds = hot ? 7 : 6; break;             /* remote socket (HITM) */
	default:                                          /* memory */
		if (chance(s, 100)) {
			m->ds = 9;                        /* remote memory */
			m->ev |= 1ULL << PMT_SPE_EV_REMOTE_ACCESS;
		} else {
			m->ds = chance(s, 30) ? 13 : 8;   /* device or local memory */
		}
		break;
	}
	if (chance(s, 100))
		m->ev |= snooped | (chance(s, 500) ? hitm : 0);
	if (chance(s, 10))
		m->ds = 10 + (uint8_t)below(s, 3);       /* 10..12: not in perf's table */
}

/* Events, data source and latency of one load or store, consistent with each other. */
static void pick_mem(struct pmt_spe_synth *s, int store, struct mem_result *m)
{
	uint32_t x;

	m->ev = 1u << PMT_SPE_EV_RETIRED | 1u << PMT_SPE_EV_L1D_ACCESS | 1u << PMT_SPE_EV_TLB_ACCESS;
	m->ds = 0x0;
	m->tot = 4 + below(s, 6);
	m->xlat = 1;
	if (chance(s, 8)) { /* TLB walk */
		m->ev |= 1u << PMT_SPE_EV_TLB_WALK;
		m->xlat = 20 + below(s, 80);
	}
	if (chance(s, store ? 40 : 80)) { /* L1D refill: data came from further away */
		m->ev |= 1u << PMT_SPE_EV_L1D_REFILL;
		x = below(s, 1000);
		if (x < 600) {
			m->ds = 0x8; /* L2 */
			m->tot = 11 + below(s, 10);
		} else if (x < 630) {
			m->ds = 0x9; /* peer core */
			m->tot = 30 + below(s, 30);
		} else if (x < 690) {
			m->ds = 0xA; /* local cluster */
			m->ev |= 1u << PMT_SPE_EV_LLC_ACCESS;
			m->tot = 35 + below(s, 30);
		} else if (x < 840) {
			m->ds = 0xB; /* system cache */
			m->ev |= 1u << PMT_SPE_EV_LLC_ACCESS;
			m->tot = 40 + below(s, 40);
		} else if (x < 860) {
			m->ds = 0xC; /* peer cluster */
			m->ev |= 1u << PMT_SPE_EV_LLC_ACCESS;
			m->tot = 60 + below(s, 60);
		} else if (x < 870) {
			m->ds = 0xD; /* remote */
			m->ev |= 1u << PMT_SPE_EV_LLC_ACCESS | 1u << PMT_SPE_EV_LLC_MISS |
				 1u << PMT_SPE_EV_REMOTE_ACCESS;
			m->tot = 300 + below(s, 400);
		} else {
			m->ds = 0xE; /* DRAM */
			m->ev |= 1u << PMT_SPE_EV_LLC_ACCESS | 1u << PMT_SPE_EV_LLC_MISS;
			m->tot = 150 + below(s, 250);
		}
		if (s->o.mix == PMT_SPE_MIX_V2) {
			m->ev |= 1u << PMT_SPE_EV_L2D_ACCESS;
			if (m->ds != 0x8)
				m->ev |= 1u << PMT_SPE_EV_L2D_MISS;
		}
	}
	if (s->o.mix == PMT_SPE_MIX_HIP12)
		hip12_source(s, m);
	m->tot += m->xlat - 1;
	if (chance(s, 2))
		m->ev |= 1u << PMT_SPE_EV_ALIGNMENT;
}

int pmt_spe_synth_next_record(struct pmt_spe_synth *s, uint8_t *buf, size_t cap)
{
	struct rec r = { buf, 0 };
	uint8_t tail[PMT_SPE_PKT_MAX_SZ * 2];
	struct rec t = { tail, 0 };
	int op, kernel, v2, sve_op;
	uint64_t pc, ev = 1u << PMT_SPE_EV_RETIRED;
	uint32_t issue, tot;
	struct mem_result m = { 0 };
	uint8_t ev_size, opclass, oppay;

	if (!s || !buf || cap < PMT_SPE_SYNTH_RECORD_MAX)
		return -PMT_EINVAL;
	v2 = s->o.mix == PMT_SPE_MIX_V2;
	ev_size = v2 ? 4 : 2;
	op = pick_op(s);
	pc = pick_pc(s, &kernel);
	sve_op = s->o.sve && op != OP_BRANCH && chance(s, 250);
	issue = 1 + below(s, 8);
	tot = issue + 1 + below(s, 6);

	put(&r, PMT_SPE_ADDRESS, PMT_SPE_ADDR_PC, 8, pc);
	if (s->o.context) {
		if (chance(s, 5)) /* a context switch now and then */
			s->pid = 1000 + below(s, 30000);
		put(&r, PMT_SPE_CONTEXT, PMT_SPE_CTX_EL1, 4, kernel ? 0 : s->pid);
	}
	switch (op) {
	case OP_LOAD:
	case OP_STORE:
		pick_mem(s, op == OP_STORE, &m);
		ev = m.ev;
		tot = issue + m.tot;
		opclass = PMT_SPE_OP_LDST;
		/* GP-REG 0x00, SIMD-FP 0x04, SVE 0x08|EVLEN(128: 2<<4)|PRED; bit 0 = store */
		oppay = sve_op ? (uint8_t)(0x28 | (chance(s, 500) ? 0x04 : 0)) :
			chance(s, 150) ? 0x04 : 0x00;
		if (!sve_op && chance(s, 20))
			oppay = 0x02 | 0x04 | (chance(s, 500) ? 0x10 : 0); /* atomic, maybe acq/rel */
		oppay |= op == OP_STORE;
		if (sve_op && chance(s, 100))
			ev |= 1u << (chance(s, 500) ? PMT_SPE_EV_SVE_PARTIAL_PRED :
						      PMT_SPE_EV_SVE_EMPTY_PRED);
		break;
	case OP_BRANCH:
		opclass = PMT_SPE_OP_BRANCH;
		oppay = chance(s, 600) ? 0x01 : 0x00;          /* conditional */
		if (!oppay && chance(s, 300))
			oppay = 0x02;                           /* indirect */
		if (v2 && !(oppay & 1)) {
			uint32_t x = below(s, 10);

			if (x < 3)
				oppay |= 1u << 3;              /* CR-BL: call */
			else if (x < 6)
				oppay = 0x02 | 2u << 3;        /* CR-RET */
		}
		if ((oppay & 1) && chance(s, 400))
			ev |= 1u << PMT_SPE_EV_NOT_TAKEN;
		if (chance(s, 30))
			ev |= 1u << PMT_SPE_EV_MISPRED;
		break;
	default:
		opclass = PMT_SPE_OP_OTHER;
		/* SVE-OTHER: 0x08 | EVLEN 128 (2 << 4) | FP/PRED; plain: INSN-OTHER, some FP */
		oppay = sve_op ? (uint8_t)(0x28 | (chance(s, 500) ? 0x02 : 0) |
					   (chance(s, 500) ? 0x04 : 0))
			       : chance(s, 200) ? 0x02 : chance(s, 50) ? 0x01 : 0x00;
		if (sve_op && chance(s, 100))
			ev |= 1u << PMT_SPE_EV_SVE_PARTIAL_PRED;
		break;
	}
	if (chance(s, 3))
		ev &= ~(uint64_t)(1u << PMT_SPE_EV_RETIRED); /* speculative, not retired */
	if (ev_size == 2 && ev > 0xffff)
		ev_size = 4;
	put(&r, PMT_SPE_OP_TYPE, opclass, 1, oppay);
	put(&r, PMT_SPE_EVENTS, ev_size, ev_size, ev);
	put(&r, PMT_SPE_COUNTER, PMT_SPE_CNT_ISSUE, 2, issue);
	put(&r, PMT_SPE_COUNTER, PMT_SPE_CNT_TOT, 2, tot > 0xffff ? 0xffff : tot);
	if (op == OP_LOAD || op == OP_STORE) {
		uint64_t va = pick_va(s, kernel);

		put(&r, PMT_SPE_ADDRESS, PMT_SPE_ADDR_VA, 8, va);
		put(&r, PMT_SPE_COUNTER, PMT_SPE_CNT_XLAT, 2, m.xlat);
		if (s->o.pa)
			put(&r, PMT_SPE_ADDRESS, PMT_SPE_ADDR_PA, 8,
			    (1ULL << 63) | 0x80000000000ULL | (va & 0xfffffffffULL));
		if (op == OP_LOAD)
			put(&t, PMT_SPE_DATA_SOURCE, 0, 1, m.ds);
	} else if (op == OP_BRANCH) {
		uint64_t tgt = (ev >> PMT_SPE_EV_NOT_TAKEN) & 1 ? pc + 4 :
			       (pc & ~0xfffffULL) | ((uint64_t)below(s, 1 << 18) << 2);

		put(&r, PMT_SPE_ADDRESS, PMT_SPE_ADDR_TGT, 8, tgt);
	}
	s->ts += 200 + below(s, 3000);
	if (s->o.timestamps)
		put(&t, PMT_SPE_TIMESTAMP, 0, 8, s->ts);
	else
		put(&t, PMT_SPE_END, 0, 0, 0);
	if (s->o.record_size && r.len + t.len < s->o.record_size) {
		size_t pad = s->o.record_size - r.len - t.len;

		memset(r.p + r.len, 0, pad);
		r.len += pad;
	}
	memcpy(r.p + r.len, tail, t.len);
	r.len += t.len;
	s->records++;
	return (int)r.len;
}

int64_t pmt_spe_synth_fill(struct pmt_spe_synth *s, uint8_t *buf, size_t len)
{
	uint8_t tmp[PMT_SPE_SYNTH_RECORD_MAX];
	size_t pos = 0;

	if (!s || (!buf && len))
		return -PMT_EINVAL;
	for (;;) {
		int n;

		if (len - pos >= PMT_SPE_SYNTH_RECORD_MAX) {
			n = pmt_spe_synth_next_record(s, buf + pos, len - pos);
		} else {
			/* the last record may not fit: generate aside, keep only whole records */
			struct pmt_spe_synth save = *s;

			n = pmt_spe_synth_next_record(s, tmp, sizeof(tmp));
			if (n > 0 && (size_t)n > len - pos) {
				*s = save;
				break;
			}
			if (n > 0)
				memcpy(buf + pos, tmp, (size_t)n);
		}
		if (n < 0)
			return n;
		pos += (size_t)n;
	}
	return (int64_t)pos;
}
