/* SPE DATA_SOURCE + EVENTS -> struct perf_mem_data_src, and perf script's text for it.
 * Encodings: Arm Neoverse TRMs via perf's arm-spe.c; bit layout: linux/perf_event.h. */
#include "pmutrace/spe.h"
#include "pmutrace/spe_decode.h"

/* perf_mem_data_src fields */
#define OP_NA 0x01
#define OP_LOAD 0x02
#define OP_STORE 0x04
#define LVL_NA 0x01
#define LVL_HIT 0x02
#define LVL_MISS 0x04
#define LVL_L1 0x08
#define LVL_LFB 0x10
#define LVL_L2 0x20
#define LVL_L3 0x40
#define LVL_LOC_RAM 0x80
#define LVL_REM_RAM1 0x100
#define LVL_REM_CCE1 0x400
#define LVL_REM_CCE2 0x800
#define LVL_IO 0x1000
#define SNOOP_NA 0x01
#define SNOOP_NONE 0x02
#define SNOOP_HIT 0x04
#define SNOOP_MISS 0x08
#define SNOOP_HITM 0x10
#define SNOOPX_PEER 0x02
#define TLB_HIT 0x02
#define TLB_MISS 0x04
#define TLB_WK 0x20
#define LVLNUM_L1 0x01
#define LVLNUM_L2 0x02
#define LVLNUM_L3 0x03
#define LVLNUM_IO 0x0a
#define LVLNUM_ANY_CACHE 0x0b
#define LVLNUM_LFB 0x0c
#define LVLNUM_RAM 0x0d
#define LVLNUM_NA 0x0f
#define REMOTE 0x01

struct dsrc {
	uint64_t op, lvl, snoop, lock, dtlb, lvlnum, remote, snoopx, blk, hops;
};

static uint64_t dsrc_pack(const struct dsrc *d)
{
	return d->op | d->lvl << 5 | d->snoop << 19 | d->lock << 24 | d->dtlb << 26 |
	       d->lvlnum << 33 | d->remote << 37 | d->snoopx << 38 | d->blk << 40 |
	       d->hops << 43;
}

static void dsrc_unpack(uint64_t v, struct dsrc *d)
{
	d->op = v & 0x1f;
	d->lvl = (v >> 5) & 0x3fff;
	d->snoop = (v >> 19) & 0x1f;
	d->lock = (v >> 24) & 0x3;
	d->dtlb = (v >> 26) & 0x7f;
	d->lvlnum = (v >> 33) & 0xf;
	d->remote = (v >> 37) & 0x1;
	d->snoopx = (v >> 38) & 0x3;
	d->blk = (v >> 40) & 0x7;
	d->hops = (v >> 43) & 0x7;
}

/* MIDR_ALL_VERSIONS: implementer and part number only */
#define MIDR_KEY(v) ((v) & 0xff00fff0ULL)
#define ARM_PART(p) (0x41000000ULL | ((uint64_t)(p) << 4))
struct midr_entry {
	uint64_t key;
	int since; /* first perf version (major*100+minor) that lists it */
};
static const struct midr_entry common_midrs[] = {
	{ ARM_PART(0xd0c), 601 }, /* Neoverse N1 */
	{ ARM_PART(0xd49), 601 }, /* Neoverse N2 */
	{ ARM_PART(0xd40), 601 }, /* Neoverse V1 */
	{ ARM_PART(0xd4f), 613 }, /* Neoverse V2 */
	{ ARM_PART(0xd81), 615 }, /* Cortex-A720 */
	{ ARM_PART(0xd87), 615 }, /* Cortex-A725 */
	{ ARM_PART(0xd4c), 615 }, /* Cortex-X1C */
	{ ARM_PART(0xd4e), 615 }, /* Cortex-X3 */
	{ ARM_PART(0xd85), 615 }, /* Cortex-X925 */
	{ ARM_PART(0xd89), 616 }, /* Cortex-A720AE */
};
#define MIDR_AMPERE1A (0xc0000000ULL | (0xac4ULL << 4))
/* MIDR_ALL_VERSIONS(MIDR_HISI_HIP12): implementer 0x48, part HISI_CPU_PART_HIP12 0xD06 */
#define MIDR_HISI_HIP12 (0x48000000ULL | (0xd06ULL << 4))

static int midr_is_common(uint64_t midr, int compat)
{
	for (size_t i = 0; i < sizeof(common_midrs) / sizeof(common_midrs[0]); i++)
		if (MIDR_KEY(midr) == common_midrs[i].key && compat >= common_midrs[i].since)
			return 1;
	return 0;
}

/* Neoverse/Cortex common encoding (arm_spe__synth_data_source_common) */
static void ds_common(const struct pmt_spe_record *r, unsigned source, struct dsrc *d,
		      int compat)
{
	if (r->op & PMT_SPE_OP_F_ST) {
		/* no level or source is recorded for stores */
		d->lvl = LVL_NA;
		d->lvlnum = LVLNUM_NA;
		d->snoop = SNOOP_NA;
		return;
	}
	switch (source) {
	case 0x0: /* L1D */
		d->lvl = LVL_L1 | LVL_HIT, d->lvlnum = LVLNUM_L1, d->snoop = SNOOP_NONE;
		break;
	case 0x8: /* L2 */
		d->lvl = LVL_L2 | LVL_HIT, d->lvlnum = LVLNUM_L2, d->snoop = SNOOP_NONE;
		break;
	case 0x9: /* peer core */
		d->lvl = LVL_L2 | LVL_HIT, d->lvlnum = LVLNUM_L2, d->snoopx = SNOOPX_PEER;
		break;
	case 0xa: /* local cluster: the level is unknown, but it came cache-to-cache */
	case 0xc: /* peer cluster */
		d->lvl = LVL_L3 | LVL_HIT, d->lvlnum = LVLNUM_L3, d->snoopx = SNOOPX_PEER;
		break;
	case 0xb: /* system cache, taken as L3 */
		d->lvl = LVL_L3 | LVL_HIT, d->lvlnum = LVLNUM_L3, d->snoop = SNOOP_HIT;
		break;
	case 0xd: /* remote: only the other socket is known. Early 6.x said REM_CCE1 /
		   * ANY_CACHE; the fix (in 6.1 stable too, verified on 6.1.187) says N/A. */
		d->lvl = LVL_NA;
		d->lvlnum = LVLNUM_NA;
		d->remote = REMOTE;
		d->snoopx = SNOOPX_PEER;
		break;
	case 0xe: /* DRAM */
		d->lvl = LVL_LOC_RAM | LVL_HIT, d->lvlnum = LVLNUM_RAM, d->snoop = SNOOP_NONE;
		break;
	default:
		break;
	}
}

static void ds_ampere(const struct pmt_spe_record *r, struct dsrc *d, int compat)
{
	static const int8_t map[16] = { 0x9, -1, -1, 0xb, -1, 0xd, -1, 0xe, 0x0, 0x8,
					-1, -1, -1, -1, -1, -1 };
	int c = map[r->source & 0xf];

	if (r->source > 0xf || c < 0)
		return;
	ds_common(r, (unsigned)c, d, compat);
}

#define EV(b) (1ULL << PMT_SPE_EV_##b)

/* arm_spe__synth_data_source_hisi_hip(); stores take the common store rule */
static void ds_hisi_hip(const struct pmt_spe_record *r, struct dsrc *d, int compat)
{
	if (r->op & PMT_SPE_OP_F_ST) {
		ds_common(r, r->source, d, compat);
		return;
	}
	switch (r->source) {
	case 0: /* peer CPU */
	case 1: /* peer CPU, HITM */
		d->lvl = LVL_L2 | LVL_HIT, d->lvlnum = LVLNUM_L2, d->snoopx = SNOOPX_PEER;
		if (r->source == 1)
			d->snoop = SNOOP_HITM;
		break;
	case 2: /* L3 */
	case 3: /* L3, HITM */
		d->lvl = LVL_L3 | LVL_HIT, d->lvlnum = LVLNUM_L3;
		d->snoop = r->source == 3 ? SNOOP_HITM : SNOOP_HIT;
		break;
	case 4: /* peer cluster */
	case 5: /* peer cluster, HITM */
		d->lvl = LVL_REM_CCE1 | LVL_HIT, d->lvlnum = LVLNUM_L3, d->snoopx = SNOOPX_PEER;
		if (r->source == 5)
			d->snoop = SNOOP_HITM;
		break;
	case 6: /* remote socket */
	case 7: /* remote socket, HITM */
		d->lvl = LVL_REM_CCE2, d->lvlnum = LVLNUM_ANY_CACHE, d->remote = REMOTE;
		d->snoopx = SNOOPX_PEER;
		if (r->source == 7)
			d->snoop = SNOOP_HITM;
		break;
	case 8: /* local memory */
		d->lvl = LVL_LOC_RAM | LVL_HIT, d->lvlnum = LVLNUM_RAM, d->snoop = SNOOP_NONE;
		break;
	case 9: /* remote memory */
		d->lvl = LVL_REM_RAM1 | LVL_HIT, d->lvlnum = LVLNUM_RAM, d->remote = REMOTE;
		break;
	case 13: /* non-cacheable device */
		d->lvl = LVL_IO | LVL_HIT, d->lvlnum = LVLNUM_IO, d->snoop = SNOOP_NONE;
		break;
	case 16: /* L2 */
	case 17: /* L2, HITM */
		d->lvl = LVL_L2 | LVL_HIT, d->lvlnum = LVLNUM_L2;
		d->snoop = r->source == 17 ? SNOOP_HITM : SNOOP_NONE;
		break;
	case 18: /* L1 */
		d->lvl = LVL_L1 | LVL_HIT, d->lvlnum = LVLNUM_L1, d->snoop = SNOOP_NONE;
		break;
	default:
		break;
	}
}

/* perf >= 6.18 arm_spe__synth_memory_level() ("Allow parsing both data source and
 * events", v6.18 pull): run after the MIDR table, or alone without one, it fills what is
 * still 0. Level: loads take the nearest level that hit, else the farthest miss; stores
 * the farthest level accessed (access or miss bit), hit or miss; nothing -> NA. Snoop:
 * SNOOPED (+HITM) else "None" only when the recorded caps/event_filter (v2 metadata from
 * perf 6.18 on) can report SNOOPED, else N/A.
 * REMOTE_ACCESS sets mem_remote. */
/* Loads (perf >= 6.16): the nearest level that hit, else the farthest miss */
#define CACHE_HIT(e, acc, miss) (((e) & (EV(acc) | EV(miss))) == EV(acc))
static void ds_load_ladder(uint64_t e, struct dsrc *d)
{
	if (CACHE_HIT(e, L1D_ACCESS, L1D_REFILL))
		d->lvl = LVL_L1 | LVL_HIT, d->lvlnum = LVLNUM_L1;
	else if (e & EV(RECENTLY_FETCHED))
		d->lvl = LVL_LFB | LVL_HIT, d->lvlnum = LVLNUM_LFB;
	else if (CACHE_HIT(e, L2D_ACCESS, L2D_MISS))
		d->lvl = LVL_L2 | LVL_HIT, d->lvlnum = LVLNUM_L2;
	else if (CACHE_HIT(e, LLC_ACCESS, LLC_MISS))
		d->lvl = LVL_L3 | LVL_HIT, d->lvlnum = LVLNUM_L3;
	else if (e & EV(LLC_MISS))
		d->lvl = LVL_L3 | LVL_MISS, d->lvlnum = LVLNUM_L3;
	else if (e & EV(L2D_MISS))
		d->lvl = LVL_L2 | LVL_MISS, d->lvlnum = LVLNUM_L2;
	else if (e & EV(L1D_REFILL))
		d->lvl = LVL_L1 | LVL_MISS, d->lvlnum = LVLNUM_L1;
}
#undef CACHE_HIT

static void ds_fill_from_events(const struct pmt_spe_record *r, uint64_t event_filter,
				struct dsrc *d)
{
	uint64_t e = r->events;

	if (!d->lvl && d->op == OP_LOAD) {
		ds_load_ladder(e, d);
	} else if (!d->lvl && d->op == OP_STORE) {
		if (e & (EV(LLC_ACCESS) | EV(LLC_MISS)))
			d->lvl = LVL_L3 | ((e & EV(LLC_MISS)) ? LVL_MISS : LVL_HIT),
			d->lvlnum = LVLNUM_L3;
		else if (e & (EV(L2D_ACCESS) | EV(L2D_MISS)))
			d->lvl = LVL_L2 | ((e & EV(L2D_MISS)) ? LVL_MISS : LVL_HIT),
			d->lvlnum = LVLNUM_L2;
		else if (e & (EV(L1D_ACCESS) | EV(L1D_REFILL)))
			d->lvl = LVL_L1 | ((e & EV(L1D_REFILL)) ? LVL_MISS : LVL_HIT),
			d->lvlnum = LVLNUM_L1;
	}
	if (!d->lvl)
		d->lvl = LVL_NA, d->lvlnum = LVLNUM_NA;
	if (!d->snoop) {
		if (e & EV(DATA_SNOOPED))
			d->snoop = (e & EV(CACHE_DATA_MODIFIED)) ? SNOOP_HITM : SNOOP_HIT;
		else if (event_filter & EV(DATA_SNOOPED))
			d->snoop = SNOOP_NONE; /* the CPU could have said SNOOPED and did not */
		else
			d->snoop = SNOOP_NA;
	}
	if (!d->remote && (e & EV(REMOTE_ACCESS)))
		d->remote = REMOTE;
}

/* No MIDR match, perf <= 6.15: only the EVENTS bits say anything */
static void ds_generic_old(const struct pmt_spe_record *r, struct dsrc *d)
{
	uint64_t e = r->events;

	if (e & (EV(LLC_ACCESS) | EV(LLC_MISS)))
		d->lvl = LVL_L3 | ((e & EV(LLC_MISS)) ? LVL_MISS : LVL_HIT);
	else if (e & (EV(L1D_ACCESS) | EV(L1D_REFILL)))
		d->lvl = LVL_L1 | ((e & EV(L1D_REFILL)) ? LVL_MISS : LVL_HIT);
	/* early 6.x set LVL REM_CCE1; the fix (verified on 6.1.187) sets mem_remote */
	if (e & EV(REMOTE_ACCESS))
		d->remote = REMOTE;
}

/* No MIDR match, newest perf: the nearest level that hit, else the farthest miss */
static void ds_generic_new(const struct pmt_spe_record *r, struct dsrc *d)
{
	uint64_t e = r->events;

	if (r->op & PMT_SPE_OP_F_LD) {
		ds_load_ladder(e, d);
	} else {
		if (e & EV(LLC_ACCESS))
			d->lvl = LVL_L3 | ((e & EV(LLC_MISS)) ? LVL_MISS : LVL_HIT),
			d->lvlnum = LVLNUM_L3;
		else if (e & EV(L2D_ACCESS))
			d->lvl = LVL_L2 | ((e & EV(L2D_MISS)) ? LVL_MISS : LVL_HIT),
			d->lvlnum = LVLNUM_L2;
		else if (e & EV(L1D_ACCESS))
			d->lvl = LVL_L1 | ((e & EV(L1D_REFILL)) ? LVL_MISS : LVL_HIT),
			d->lvlnum = LVLNUM_L1;
	}
	if (e & EV(DATA_SNOOPED))
		d->snoop = (e & EV(CACHE_DATA_MODIFIED)) ? SNOOP_HITM : SNOOP_HIT;
	else
		d->snoop = SNOOP_NONE;
	if (e & EV(REMOTE_ACCESS))
		d->remote = REMOTE;
}

uint64_t pmt_spe_data_source(const struct pmt_spe_record *r, uint64_t midr, int compat)
{
	return pmt_spe_data_source_caps(r, midr, 0, compat);
}

bool pmt_spe_is_mem_op(uint32_t op, int compat)
{
	/* perf 7.3 makes memory samples for OTHER-class ASE and SME-OTHER records too
	 * (diff.spe_random_bytes) */
	const uint32_t simd = PMT_SPE_OP_F_SIMD_FP | PMT_SPE_OP_F_SVE | PMT_SPE_OP_F_SME |
			      PMT_SPE_OP_F_ASE;

	if (op & PMT_SPE_OP_F_LDST)
		return true;
	if (compat < PMT_PERF_6_19 || !(op & simd))
		return false;
	/* the branch hint bits alias SIMD_FP/SVE: perf's bug, kept only when reproducing it */
	return !(op & PMT_SPE_OP_F_BRANCH) || compat < PMT_PERF_NEWEST;
}

uint64_t pmt_spe_data_source_caps(const struct pmt_spe_record *r, uint64_t midr,
				  uint64_t event_filter, int compat)
{
	struct dsrc d = { 0 };
	uint64_t key = MIDR_KEY(midr);

	if (r->op & PMT_SPE_OP_F_LD)
		d.op = OP_LOAD;
	else if (r->op & PMT_SPE_OP_F_ST)
		d.op = OP_STORE;
	else if (compat <= 601 && r->op_class == PMT_SPE_OP_OTHER &&
		 (r->op_payload & 0x89) == 0x08)
		/* perf 6.1.187 (Debian) takes SVE-OTHER operations for loads: measured with
		 * tests/diff/spe_vs_perf.sh on `synth --sve` streams */
		d.op = OP_LOAD;
	else if (compat >= PMT_PERF_6_19 && pmt_spe_is_mem_op(r->op, compat))
		d.op = OP_NA; /* a SIMD operation that is neither load nor store */
	else
		return 0;

	if (compat >= PMT_PERF_6_18) {
		/* the MIDR table (if any), then the EVENTS bits for what it left open */
		if (midr && midr_is_common(midr, compat))
			ds_common(r, r->source, &d, compat);
		else if (midr && key == MIDR_AMPERE1A)
			ds_ampere(r, &d, compat);
		else if (midr && key == MIDR_HISI_HIP12 && compat >= PMT_PERF_6_19)
			ds_hisi_hip(r, &d, compat);
		ds_fill_from_events(r, event_filter, &d);
	} else if (midr && midr_is_common(midr, compat))
		ds_common(r, r->source, &d, compat);
	else if (midr && key == MIDR_AMPERE1A && compat >= 613)
		ds_ampere(r, &d, compat);
	else if (compat <= 615)
		ds_generic_old(r, &d);
	else
		ds_generic_new(r, &d);

	if (r->events & (EV(TLB_ACCESS) | EV(TLB_WALK)))
		d.dtlb = TLB_WK | ((r->events & EV(TLB_WALK)) ? TLB_MISS : TLB_HIT);
	return dsrc_pack(&d);
}

/* ---- text, as tools/perf/util/mem-events.c ---- */

struct sbuf {
	char *p;
	size_t cap, len;
};

static void sb_put(struct sbuf *b, const char *s)
{
	while (*s) {
		if (b->len + 1 < b->cap)
			b->p[b->len] = *s;
		b->len++;
		s++;
	}
	if (b->cap)
		b->p[b->len < b->cap ? b->len : b->cap - 1] = 0;
}

static int sb_done(struct sbuf *b)
{
	return (int)(b->len < b->cap ? b->len : (b->cap ? b->cap - 1 : 0));
}

static const char *const tlb_names[] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };
static const char *const lvl_names61[] = {
	"N/A", "HIT", "MISS", "L1", "LFB", "L2", "L3", "Local RAM", "Remote RAM (1 hop)",
	"Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached",
};
static const char *const hops_names[] = { "N/A", "core, same node", "node, same socket",
					  "socket, same board", "board", NULL, NULL, NULL };
static const char *const snoop_names[] = { "N/A", "None", "Hit", "Miss", "HitM" };
static const char *const snoopx_names[] = { "Fwd", "Peer" };

static const char *lvlnum_name(unsigned n, int compat)
{
	switch (n) {
	case 0x8: return compat > 601 ? "Uncached" : NULL;
	case 0x9: return compat > 601 ? "CXL" : NULL;
	case 0xa: return compat > 601 ? "I/O" : NULL;
	case 0xb: return "Any cache";
	case 0xc: return compat > 601 ? "LFB/MAB" : "LFB";
	case 0xd: return "RAM";
	case 0xe: return "PMEM";
	case 0xf: return "N/A";
	default: return NULL;
	}
}

static void put_lvlnum(struct sbuf *b, unsigned n, int compat)
{
	const char *s = lvlnum_name(n, compat);
	char tmp[8];

	if (s) {
		sb_put(b, s);
	} else {
		snprintf(tmp, sizeof(tmp), "L%u", n);
		sb_put(b, tmp);
	}
}

static void sb_bits(struct sbuf *b, uint64_t m, const char *const *names, size_t n, int *printed)
{
	for (size_t i = 0; m && i < n; i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if ((*printed)++)
			sb_put(b, " or ");
		sb_put(b, names[i]);
	}
}

static void lvl_text(struct sbuf *b, const struct dsrc *d, int compat)
{
	const char *hm = (d->lvl & LVL_HIT) ? "hit" : (d->lvl & LVL_MISS) ? "miss" : "";
	uint64_t lvl;
	int printed = 0;
	size_t start = b->len;

	if (compat <= 601) {
		/* 6.1: level bits, then " or " the level number, then hit/miss */
		lvl = d->lvl & ~(uint64_t)(LVL_HIT | LVL_MISS);
		if (d->remote)
			sb_put(b, "Remote ");
		if (d->hops) {
			sb_put(b, hops_names[d->hops] ? hops_names[d->hops] : "");
			sb_put(b, " ");
		} else {
			sb_bits(b, lvl, lvl_names61, 14, &printed);
		}
		if (d->lvlnum) {
			if (printed++)
				sb_put(b, " or ");
			put_lvlnum(b, (unsigned)d->lvlnum, compat);
		}
		if (b->len == start)
			sb_put(b, "N/A");
		if (d->lvl & LVL_HIT)
			sb_put(b, " hit");
		if (d->lvl & LVL_MISS)
			sb_put(b, " miss");
		return;
	}
	/* newer perf: the level number wins when present */
	if (d->lvlnum && d->lvlnum != LVLNUM_NA) {
		if (d->remote)
			sb_put(b, "Remote ");
		if (d->hops && hops_names[d->hops]) {
			sb_put(b, hops_names[d->hops]);
			sb_put(b, " ");
		}
		put_lvlnum(b, (unsigned)d->lvlnum, compat);
		sb_put(b, " ");
		sb_put(b, hm);
		return;
	}
	lvl = d->lvl & ~(uint64_t)(LVL_NA | LVL_HIT | LVL_MISS);
	if (lvl) {
		static const char *const names[] = {
			"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
			"Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)",
			"Remote Cache (2 hops)", "I/O", "Uncached",
		};
		sb_bits(b, lvl, names, 14, &printed);
		sb_put(b, " ");
		sb_put(b, hm);
		return;
	}
	sb_put(b, "N/A");
}

static void snoop_text(struct sbuf *b, const struct dsrc *d)
{
	int printed = 0;

	sb_bits(b, d->snoop, snoop_names, 5, &printed);
	sb_bits(b, d->snoopx, snoopx_names, 2, &printed);
	if (!printed)
		sb_put(b, "N/A");
}

static void tlb_text(struct sbuf *b, const struct dsrc *d)
{
	int printed = 0;

	sb_bits(b, d->dtlb & ~(uint64_t)(TLB_HIT | TLB_MISS), tlb_names, 7, &printed);
	if (!printed)
		sb_put(b, "N/A");
	if (d->dtlb & TLB_HIT)
		sb_put(b, " hit");
	if (d->dtlb & TLB_MISS)
		sb_put(b, " miss");
}

static void op_text(struct sbuf *b, const struct dsrc *d)
{
	if (d->op & OP_NA)
		sb_put(b, "N/A");
	else if (d->op & OP_LOAD)
		sb_put(b, "LOAD");
	else if (d->op & OP_STORE)
		sb_put(b, "STORE");
	else if (d->op & 0x08)
		sb_put(b, "PFETCH");
	else if (d->op & 0x10)
		sb_put(b, "EXEC");
	else
		sb_put(b, "No");
}

enum part { PART_OP, PART_LVL, PART_SNOOP, PART_TLB };

static int part_str(uint64_t v, enum part part, int compat, char *out, size_t cap)
{
	struct sbuf b = { out, cap, 0 };
	struct dsrc d;

	dsrc_unpack(v, &d);
	switch (part) {
	case PART_OP: op_text(&b, &d); break;
	case PART_LVL: lvl_text(&b, &d, compat); break;
	case PART_SNOOP: snoop_text(&b, &d); break;
	case PART_TLB: tlb_text(&b, &d); break;
	}
	return sb_done(&b);
}

int pmt_mem_op_str(uint64_t v, char *out, size_t cap)
{
	return part_str(v, PART_OP, 0, out, cap);
}

int pmt_mem_lvl_str(uint64_t v, int compat, char *out, size_t cap)
{
	return part_str(v, PART_LVL, compat, out, cap);
}

int pmt_mem_snoop_str(uint64_t v, char *out, size_t cap)
{
	return part_str(v, PART_SNOOP, 0, out, cap);
}

int pmt_mem_tlb_str(uint64_t v, char *out, size_t cap)
{
	return part_str(v, PART_TLB, 0, out, cap);
}

int pmt_mem_data_src_str(uint64_t v, int compat, char *out, size_t cap)
{
	struct sbuf b = { out, cap, 0 };
	struct dsrc d;

	dsrc_unpack(v, &d);
	sb_put(&b, "|OP ");
	op_text(&b, &d);
	sb_put(&b, "|LVL ");
	lvl_text(&b, &d, compat);
	sb_put(&b, "|SNP ");
	snoop_text(&b, &d);
	sb_put(&b, "|TLB ");
	tlb_text(&b, &d);
	sb_put(&b, "|LCK ");
	sb_put(&b, (d.lock & 1) ? "N/A" : (d.lock & 2) ? "Yes" : "No");
	sb_put(&b, "|BLK ");
	if (!d.blk || (d.blk & 1)) {
		sb_put(&b, " N/A");
	} else {
		if (d.blk & 2)
			sb_put(&b, " Data");
		if (d.blk & 4)
			sb_put(&b, " Addr");
	}
	return sb_done(&b);
}
