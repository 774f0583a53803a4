/* Data sources of perf >= 6.18, hand-derived: HiSilicon HIP12 per code (newest perf's
 * arm_spe__synth_data_source_hisi_hip() followed by perf 6.18's
 * arm_spe__synth_memory_level()), then that pass after the Neoverse table and alone.
 *
 * Bit layout of struct perf_mem_data_src (/usr/include/linux/perf_event.h): op << 0,
 * lvl << 5, snoop << 19, dtlb << 26, lvlnum << 33, remote << 37, snoopx << 38.
 * Values used: OP LOAD 0x02, STORE 0x04; LVL NA 0x01, HIT 0x02, L1 0x08, L2 0x20, L3 0x40,
 * LOC_RAM 0x80, REM_RAM1 0x100, REM_CCE1 0x400, REM_CCE2 0x800, IO 0x1000; SNOOP NA 0x01,
 * NONE 0x02, HIT 0x04, HITM 0x10; SNOOPX PEER 0x02; LVLNUM L1 1, L2 2, L3 3, IO 0xa,
 * ANY_CACHE 0xb, RAM 0xd, NA 0xf; REMOTE 1; TLB HIT 0x02, MISS 0x04, WK 0x20.
 *
 * perf rules (SOURCE-COMMIT 08dbfad3 of tools/perf/util/arm-spe.c): the HIP table sets lvl,
 * lvlnum and for some codes snoop/snoopx/remote; then the memory-level pass fills what is
 * still 0: lvl from the EVENTS ladder (else NA/NA), snoop from SNOOPED(+HITM) else NA
 * (no event_filter metadata), remote from REMOTE_ACCESS. Stores take the common store
 * rule (LVL NA, LVLNUM NA, SNOOP NA). No EVENTS bit is set below unless stated. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pmutrace/spe_decode.h"
#include "spe_test_util.h"

#define HIP12_MIDR 0x480fd060ULL

#define LOAD (PMT_SPE_OP_F_LDST | PMT_SPE_OP_F_LD)
#define STORE (PMT_SPE_OP_F_LDST | PMT_SPE_OP_F_ST)
#define EVB(b) (1ULL << PMT_SPE_EV_##b)

static const struct {
	uint16_t code;
	uint64_t want;
} loads[] = {
	/* 0 peer CPU: L2|HIT 0x22, LVLNUM L2, SNOOPX PEER; snoop open -> NA:
	 * 0x2 | 0x22<<5 (0x440) | 1<<19 | 2<<33 | 2<<38 */
	{ 0, 0x8400080442ULL },
	/* 1 peer CPU HITM: as 0 with SNOOP HITM 0x10<<19 = 0x800000 */
	{ 1, 0x8400800442ULL },
	/* 2 L3: L3|HIT 0x42<<5 = 0x840, SNOOP HIT 4<<19, LVLNUM 3<<33 */
	{ 2, 0x600200842ULL },
	/* 3 L3 HITM: SNOOP HITM */
	{ 3, 0x600800842ULL },
	/* 4 peer cluster: REM_CCE1|HIT 0x402<<5 = 0x8040, LVLNUM L3, SNOOPX PEER, snoop NA */
	{ 4, 0x8600088042ULL },
	/* 5 peer cluster HITM */
	{ 5, 0x8600808042ULL },
	/* 6 remote socket: REM_CCE2 0x800<<5 = 0x10000 (no HIT), LVLNUM ANY_CACHE 0xb<<33,
	 * REMOTE 1<<37, SNOOPX PEER, snoop NA */
	{ 6, 0xb600090002ULL },
	/* 7 remote socket HITM */
	{ 7, 0xb600810002ULL },
	/* 8 local memory: LOC_RAM|HIT 0x82<<5 = 0x1040, SNOOP NONE 2<<19, LVLNUM RAM 0xd<<33 */
	{ 8, 0x1a00101042ULL },
	/* 9 remote memory: REM_RAM1|HIT 0x102<<5 = 0x2040, LVLNUM RAM, REMOTE, snoop NA */
	{ 9, 0x3a00082042ULL },
	/* 13 NC device: IO|HIT 0x1002<<5 = 0x20040, SNOOP NONE, LVLNUM IO 0xa<<33 */
	{ 13, 0x1400120042ULL },
	/* 16 L2: L2|HIT, SNOOP NONE, LVLNUM L2 */
	{ 16, 0x400100442ULL },
	/* 17 L2 HITM */
	{ 17, 0x400800442ULL },
	/* 18 L1: L1|HIT 0x0a<<5 = 0x140, SNOOP NONE, LVLNUM L1 */
	{ 18, 0x200100142ULL },
};

static void test_hisi_loads(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
		struct pmt_spe_record r = test_ldst_record(LOAD, loads[i].code, 0);

		assert_int_equal(pmt_spe_data_source(&r, HIP12_MIDR, PMT_PERF_NEWEST), loads[i].want);
		assert_int_equal(pmt_spe_data_source(&r, HIP12_MIDR, PMT_PERF_6_19), loads[i].want);
		/* MIDR_ALL_VERSIONS: variant 1, revision 3 match too */
		assert_int_equal(pmt_spe_data_source(&r, 0x481fd063ULL, PMT_PERF_NEWEST),
				 loads[i].want);
	}
}

/* perf <= 6.18 has no HIP table. 6.18: the events pass alone, and with no EVENTS bit it
 * says LVL NA, LVLNUM NA, SNOOP NA: 0x2 | 1<<5 | 1<<19 | 0xf<<33. 6.16/6.17: the fallback
 * of those versions (no level, snoop NONE): 0x2 | 2<<19. */
static void test_hisi_before_619(void **state)
{
	struct pmt_spe_record r = test_ldst_record(LOAD, 16, 0);

	(void)state;
	assert_int_equal(pmt_spe_data_source(&r, HIP12_MIDR, PMT_PERF_6_18), 0x1e00080022ULL);
	assert_int_equal(pmt_spe_data_source(&r, HIP12_MIDR, 617), 0x100002ULL);
	assert_int_not_equal(pmt_spe_data_source(&r, HIP12_MIDR, 613), 0x400100442ULL);
}

static void test_hisi_stores(void **state)
{
	(void)state;
	for (uint16_t code = 0; code <= 18; code++) {
		/* STORE 0x4 | LVL NA 1<<5 | SNOOP NA 1<<19 | LVLNUM NA 0xf<<33, whatever the code */
		struct pmt_spe_record r = test_ldst_record(STORE, code, 0);

		assert_int_equal(pmt_spe_data_source(&r, HIP12_MIDR, PMT_PERF_NEWEST),
				 0x1e00080024ULL);
		/* REMOTE_ACCESS fills mem_remote afterwards: + 1<<37 */
		r.events = EVB(REMOTE_ACCESS);
		assert_int_equal(pmt_spe_data_source(&r, HIP12_MIDR, PMT_PERF_NEWEST),
				 0x3e00080024ULL);
	}
}

static void test_hisi_events(void **state)
{
	struct pmt_spe_record r;

	(void)state;
	/* peer CPU leaves snoop open: SNOOPED + HITM events make it HITM (0x10<<19) */
	r = test_ldst_record(LOAD, 0, EVB(DATA_SNOOPED) | EVB(CACHE_DATA_MODIFIED));
	assert_int_equal(pmt_spe_data_source(&r, HIP12_MIDR, PMT_PERF_NEWEST), 0x8400800442ULL);
	/* SNOOPED alone: HIT 4<<19 */
	r = test_ldst_record(LOAD, 4, EVB(DATA_SNOOPED));
	assert_int_equal(pmt_spe_data_source(&r, HIP12_MIDR, PMT_PERF_NEWEST), 0x8600208042ULL);
	/* the table sets snoop for L1: the events do not override it */
	r = test_ldst_record(LOAD, 18, EVB(DATA_SNOOPED));
	assert_int_equal(pmt_spe_data_source(&r, HIP12_MIDR, PMT_PERF_NEWEST), 0x200100142ULL);
	/* code 10 is not in the table: L1D access without refill -> L1|HIT, LVLNUM L1 from the
	 * load ladder, snoop NA: 0x2 | 0xa<<5 | 1<<19 | 1<<33 */
	r = test_ldst_record(LOAD, 10, EVB(L1D_ACCESS));
	assert_int_equal(pmt_spe_data_source(&r, HIP12_MIDR, PMT_PERF_NEWEST), 0x200080142ULL);
	/* nothing known at all: LVL NA, LVLNUM NA, SNOOP NA */
	r = test_ldst_record(LOAD, 10, 0);
	assert_int_equal(pmt_spe_data_source(&r, HIP12_MIDR, PMT_PERF_NEWEST), 0x1e00080022ULL);
	/* TLB walk: dtlb WK|MISS 0x24<<26 = 0x90000000 on top of the L1 value */
	r = test_ldst_record(LOAD, 18, EVB(TLB_ACCESS) | EVB(TLB_WALK));
	assert_int_equal(pmt_spe_data_source(&r, HIP12_MIDR, PMT_PERF_NEWEST), 0x290100142ULL);
}

/* perf script's mem_lvl/snoop words for three of them (perf_mem__lvl_scnprintf with
 * lvlnum, perf_mem__snp_scnprintf) */
static void test_hisi_text(void **state)
{
	char buf[96];

	(void)state;
	pmt_mem_lvl_str(0x3a00082042ULL, PMT_PERF_NEWEST, buf, sizeof(buf));
	assert_string_equal(buf, "Remote RAM hit");
	pmt_mem_lvl_str(0x1400120042ULL, PMT_PERF_NEWEST, buf, sizeof(buf));
	assert_string_equal(buf, "I/O hit");
	pmt_mem_snoop_str(0x8400800442ULL, buf, sizeof(buf));
	assert_string_equal(buf, "HitM or Peer");
}

/* perf 6.18's pass for the other tables and without one ("perf arm_spe: Allow parsing both
 * data source and events", "Refine memory level filling", v6.18 pull): load ladder L1 hit >
 * LFB > L2 hit > LLC hit > LLC miss > L2 miss > L1 miss; stores: LLC, L2, L1 level (access or
 * miss bit), hit or miss; snoop from SNOOPED/HITM else N/A; mem_remote from REMOTE_ACCESS. */
#define N1 0x410fd0c0ULL

static uint64_t ds(uint32_t op, uint16_t source, uint64_t events, uint64_t midr, int compat)
{
	struct pmt_spe_record r = test_ldst_record(op, source, events);

	return pmt_spe_data_source(&r, midr, compat);
}

static void test_common_table(void **state)
{
	(void)state;
	/* N1 peer core 0x9: L2|HIT (0x22<<5), LVLNUM L2 (2<<33), SNOOPX PEER (2<<38); the pass
	 * adds SNOOP NA (1<<19); 6.17 leaves snoop 0 */
	assert_int_equal(ds(LOAD, 0x9, 0, N1, PMT_PERF_NEWEST), 0x8400080442ULL);
	assert_int_equal(ds(LOAD, 0x9, 0, N1, 617), 0x8400000442ULL);
	/* ... SNOOPED: SNOOP HIT 4<<19 */
	assert_int_equal(ds(LOAD, 0x9, EVB(DATA_SNOOPED), N1, PMT_PERF_6_18), 0x8400200442ULL);
	/* L1D 0x0 keeps its SNOOP NONE; REMOTE_ACCESS adds mem_remote 1<<37 from 6.18 on */
	assert_int_equal(ds(LOAD, 0x0, EVB(REMOTE_ACCESS), N1, PMT_PERF_NEWEST), 0x2200100142ULL);
	assert_int_equal(ds(LOAD, 0x0, EVB(REMOTE_ACCESS), N1, 617), 0x200100142ULL);
	/* a code the table lacks: the load ladder, L2 access without miss -> L2|HIT, LVLNUM L2 */
	assert_int_equal(ds(LOAD, 0x3, EVB(L1D_ACCESS) | EVB(L1D_REFILL) | EVB(L2D_ACCESS), N1,
			    PMT_PERF_NEWEST), 0x400080442ULL);
	/* stores: LVL NA, LVLNUM NA, SNOOP NA from the table, untouched by the pass */
	assert_int_equal(ds(STORE, 0x8, 0, N1, PMT_PERF_NEWEST), 0x1e00080024ULL);
}

static void test_no_midr(void **state)
{
	(void)state;
	/* L1 refill, LLC access without miss: L3|HIT (0x42<<5), LVLNUM L3 (3<<33); snoop NA
	 * from 6.18, NONE (2<<19) in 6.16/6.17 */
	assert_int_equal(ds(LOAD, 0, EVB(L1D_ACCESS) | EVB(L1D_REFILL) | EVB(LLC_ACCESS), 0,
			    PMT_PERF_NEWEST), 0x600080842ULL);
	assert_int_equal(ds(LOAD, 0, EVB(L1D_ACCESS) | EVB(L1D_REFILL) | EVB(LLC_ACCESS), 0,
			    617), 0x600100842ULL);
	/* a store with LLC-MISS alone is at the LLC level: L3|MISS (0x44<<5) */
	assert_int_equal(ds(STORE, 0, EVB(LLC_MISS), 0, PMT_PERF_NEWEST), 0x600080884ULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hisi_loads),
		cmocka_unit_test(test_hisi_before_619),
		cmocka_unit_test(test_hisi_stores),
		cmocka_unit_test(test_hisi_events),
		cmocka_unit_test(test_hisi_text),
		cmocka_unit_test(test_common_table),
		cmocka_unit_test(test_no_midr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
