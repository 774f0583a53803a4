/* perf >= 6.18 snoop rule with the recorded caps/event_filter (ARM_SPE_CAP_EVENT_FILTER of
 * the v2 per-CPU metadata), hand-derived from newest perf's arm_spe__synth_memory_level():
 * a load or store whose snoop is still 0 after the MIDR table gets HIT/HITM from the SNOOPED
 * (bit 23) and HITM (bit 21) events, else SNOOP_NONE when the CPU's event_filter has bit 23
 * (it could have reported SNOOPED), else SNOOP_NA.
 *
 * perf_mem_data_src bits (/usr/include/linux/perf_event.h): op << 0 (LOAD 0x02, STORE 0x04),
 * lvl << 5 (HIT 0x02, L1 0x08, NA 0x01), snoop << 19 (NA 0x01, NONE 0x02), lvlnum << 33
 * (L1 1, NA 0xf). An L1D_ACCESS-only load or store: lvl L1|HIT = 0x0a -> 0x140, lvlnum L1 ->
 * 0x200000000. So load = 0x200000142 + snoop, store = 0x200000144 + snoop, with
 * snoop NONE = 0x100000 and NA = 0x80000. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pmutrace/spe.h"
#include "pmutrace/spe_decode.h"
#include "spe_test_util.h"

#define SNOOPED_CAP (1ULL << 23)
#define NONE 0x100000ULL
#define NA 0x80000ULL

#define LOAD (PMT_SPE_OP_F_LDST | PMT_SPE_OP_F_LD)
#define STORE (PMT_SPE_OP_F_LDST | PMT_SPE_OP_F_ST)
#define L1D_ACCESS (1ULL << PMT_SPE_EV_L1D_ACCESS)

static void unknown_midr_uses_caps(void **state)
{
	struct pmt_spe_record ld = test_ldst_record(LOAD, 0, L1D_ACCESS);
	struct pmt_spe_record st = test_ldst_record(STORE, 0, L1D_ACCESS);

	(void)state;
	assert_int_equal(pmt_spe_data_source_caps(&ld, 0, SNOOPED_CAP, PMT_PERF_NEWEST),
			 0x200000142ULL + NONE);
	assert_int_equal(pmt_spe_data_source_caps(&ld, 0, 0, PMT_PERF_NEWEST),
			 0x200000142ULL + NA);
	assert_int_equal(pmt_spe_data_source_caps(&st, 0, SNOOPED_CAP, PMT_PERF_6_18),
			 0x200000144ULL + NONE);
	assert_int_equal(pmt_spe_data_source_caps(&st, 0, ~SNOOPED_CAP, PMT_PERF_6_18),
			 0x200000144ULL + NA);
	/* the old entry point is "no caps recorded" */
	assert_int_equal(pmt_spe_data_source(&ld, 0, PMT_PERF_NEWEST), 0x200000142ULL + NA);
}

static void table_values_and_older_perf_ignore_caps(void **state)
{
	struct pmt_spe_record ld = test_ldst_record(LOAD, 0, L1D_ACCESS);
	struct pmt_spe_record st = test_ldst_record(STORE, 0, L1D_ACCESS);

	(void)state;
	/* Neoverse N1 code 0 (L1D) sets snoop NONE itself; its store rule sets NA itself */
	ld.source = 0;
	assert_int_equal(pmt_spe_data_source_caps(&ld, 0x410fd0c0, 0, PMT_PERF_NEWEST),
			 pmt_spe_data_source_caps(&ld, 0x410fd0c0, SNOOPED_CAP, PMT_PERF_NEWEST));
	assert_int_equal(pmt_spe_data_source_caps(&st, 0x410fd0c0, SNOOPED_CAP, PMT_PERF_NEWEST),
			 pmt_spe_data_source(&st, 0x410fd0c0, PMT_PERF_NEWEST));
	/* perf 6.16/6.17 without a MIDR match always said NONE */
	assert_int_equal(pmt_spe_data_source_caps(&ld, 0, 0, 617), 0x200000142ULL + NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unknown_midr_uses_caps),
		cmocka_unit_test(table_values_and_older_perf_ignore_caps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
