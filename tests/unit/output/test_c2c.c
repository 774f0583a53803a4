/* report --c2c's counting: data sources classified as perf's c2c_decode_stats() does
 * (tools/perf/util/mem-events.c), read back from the JSON document. The expected counts are
 * worked out by hand from that function for each data_src below. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "pmutrace/output.h"
#include "pmutrace/perf_abi.h"

#define LOAD(lvl) ((uint64_t)PMT_MEM_OP_LOAD | (uint64_t)(lvl) << PMT_MEM_LVL_SHIFT)
#define PEER ((uint64_t)PMT_MEM_SNOOPX_PEER << PMT_MEM_SNOOPX_SHIFT)
/* N1 data sources as perf's arm-spe.c fills them (Neoverse common encoding) */
#define DS_L1 LOAD(PMT_MEM_LVL_L1 | PMT_MEM_LVL_HIT)
#define DS_PEER_CORE (LOAD(PMT_MEM_LVL_L2 | PMT_MEM_LVL_HIT) | PEER)
#define DS_PEER_CLUSTER (LOAD(PMT_MEM_LVL_L3 | PMT_MEM_LVL_HIT) | PEER)
#define DS_REMOTE (LOAD(PMT_MEM_LVL_REM_CCE1) | 1ULL << PMT_MEM_REMOTE_SHIFT | PEER)
#define DS_DRAM LOAD(PMT_MEM_LVL_LOC_RAM | PMT_MEM_LVL_HIT)
#define DS_HITM (LOAD(PMT_MEM_LVL_L3 | PMT_MEM_LVL_HIT) | \
		 (uint64_t)PMT_MEM_SNOOP_HITM << PMT_MEM_SNOOP_SHIFT)
#define DS_L2_HITM (LOAD(PMT_MEM_LVL_L2 | PMT_MEM_LVL_HIT) | \
		   (uint64_t)PMT_MEM_SNOOP_HITM << PMT_MEM_SNOOP_SHIFT) /* HIP12's code 17 */
#define DS_STORE_NA ((uint64_t)PMT_MEM_OP_STORE | (uint64_t)PMT_MEM_LVL_NA << PMT_MEM_LVL_SHIFT)

static json_t *run(int display, const char *arch, int compat)
{
	/* line 0x1000: peer and remote loads from CPUs 0 and 2 and a store; line 0x2000: L1
	 * hits and DRAM only (not shared); line 0x3000: one HITM; line 0x4000: a HITM in L2;
	 * one sample without data address (a load "no mapping") and one branch sample (not
	 * counted) */
	static const struct { uint32_t cpu; uint64_t addr, dsrc, weight; } in[] = {
		{ 0, 0x1000, DS_PEER_CORE, 40 }, { 2, 0x1008, DS_PEER_CORE, 50 },
		{ 2, 0x1000, DS_REMOTE, 400 }, { 0, 0x1010, DS_PEER_CLUSTER, 90 },
		{ 1, 0x1000, DS_STORE_NA, 0 }, { 0, 0x2000, DS_L1, 4 }, { 1, 0x2008, DS_DRAM, 200 },
		{ 3, 0x3000, DS_HITM, 80 }, { 0, 0, DS_L1, 4 }, { 1, 0x4000, DS_L2_HITM, 60 },
	};
	struct pmt_trace_meta meta = { .arch = arch };
	struct pmt_c2c_opts o = PMT_OPTS_INIT(pmt_c2c_opts, .meta = &meta, .display = display,
					      .compat = compat);
	struct pmt_c2c *c;
	struct pmt_out out;
	char *mem = NULL;
	size_t sz = 0;
	FILE *fp = open_memstream(&mem, &sz);
	json_error_t err;
	json_t *j;

	assert_non_null(fp);
	assert_int_equal(pmt_c2c_new(NULL, &o, &c), 0);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct pmt_spe_sample s = { .event = PMT_SPE_SE_MEMORY, .cpu = in[i].cpu,
					    .pid = 7, .tid = 7, .ip = 0x400000 + i * 4,
					    .addr = in[i].addr, .data_src = in[i].dsrc,
					    .weight = in[i].weight };

		assert_int_equal(pmt_c2c_add(c, &s), 1);
	}
	{
		struct pmt_spe_sample b = { .event = PMT_SPE_SE_BRANCH, .addr = 0x1000 };

		assert_int_equal(pmt_c2c_add(c, &b), 0);
	}
	assert_int_equal(pmt_out_init(&out, fp, 4096), 0);
	assert_int_equal(pmt_c2c_print(c, &out, PMT_SINK_JSONL), 0);
	assert_int_equal(pmt_out_fini(&out), 0);
	fclose(fp);
	pmt_c2c_free(c);
	j = json_loads(mem, 0, &err);
	if (!j)
		fail_msg("bad JSON at %d: %s\n%s", err.position, err.text, mem);
	free(mem);
	return j;
}

static long num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v))
		fail_msg("no integer %s", k);
	return (long)json_integer_value(v);
}

static void test_decode_stats(void **state)
{
	json_t *j = run(-1, "aarch64", PMT_PERF_NEWEST), *t = json_object_get(j, "total");

	(void)state;
	assert_string_equal(json_string_value(json_object_get(j, "display")), "peer");
	assert_int_equal(num(t, "nr_entries"), 10);
	assert_int_equal(num(t, "load"), 9);
	assert_int_equal(num(t, "store"), 1);
	assert_int_equal(num(t, "st_na"), 1);
	assert_int_equal(num(t, "ld_noadrs"), 1);
	assert_int_equal(num(t, "ld_l1hit"), 1);       /* the one with an address */
	assert_int_equal(num(t, "ld_l2hit"), 2);       /* peer core: L2 hit and local peer */
	assert_int_equal(num(t, "lcl_peer"), 3);       /* 2 peer core + 1 peer cluster (L3) */
	assert_int_equal(num(t, "ld_llchit"), 1);      /* peer cluster: L3 without HITM */
	assert_int_equal(num(t, "rmt_peer"), 1);       /* remote: REM_CCE1 + remote bit + peer */
	assert_int_equal(num(t, "rmt_hit"), 1);
	/* the remote bit counts as remote DRAM only with LVL_HIT, which perf's Neoverse
	 * "remote" lacks */
	assert_int_equal(num(t, "rmt_dram"), 0);
	assert_int_equal(num(t, "ld_excl"), 1);        /* local DRAM, snoop not HIT */
	assert_int_equal(num(t, "lcl_dram"), 1);
	/* L3 HITM, and (perf 7.3, not 6.1) the L2 one */
	assert_int_equal(num(t, "lcl_hitm"), 2);
	assert_int_equal(num(t, "tot_hitm"), 2);
	assert_int_equal(num(t, "tot_peer"), 4);
	/* no address spaces: every sample with an address and a known op is "no map" */
	assert_int_equal(num(t, "nomap"), 9);
	/* shared: 0x1000 (peers), 0x3000 and 0x4000 (HITM), not 0x2000 */
	assert_int_equal(num(j, "shared_lines"), 3);
	assert_int_equal(json_array_size(json_object_get(j, "cachelines")), 1);
	{
		json_t *l = json_array_get(json_object_get(j, "cachelines"), 0);

		assert_string_equal(json_string_value(json_object_get(l, "cacheline")), "0x1000");
		assert_int_equal(num(l, "tot_peer"), 4);
		assert_int_equal(num(l, "tot_stores"), 1);
		/* records: llc misses (rmt hit 1) + hits (l2 2 + llc 1) + stores 1 */
		assert_int_equal(num(l, "tot_recs"), 5);
	}
	json_decref(j);
}

static void test_display(void **state)
{
	json_t *j = run(-1, "x86_64", PMT_PERF_NEWEST), *l;

	(void)state;
	/* perf's default off arm64: total HITMs; 0x3000 and 0x4000 have one each (equal
	 * counts: by address) */
	assert_string_equal(json_string_value(json_object_get(j, "display")), "tot");
	assert_int_equal(json_array_size(json_object_get(j, "cachelines")), 2);
	l = json_array_get(json_object_get(j, "cachelines"), 0);
	assert_string_equal(json_string_value(json_object_get(l, "cacheline")), "0x3000");
	json_decref(j);
	/* perf 6.1: an L2 HITM is an L2 hit, so 0x4000 is not shared */
	j = run(-1, "x86_64", PMT_PERF_6_1);
	assert_int_equal(num(json_object_get(j, "total"), "ld_l2hit"), 3);
	assert_int_equal(num(j, "shared_lines"), 2);
	assert_int_equal(json_array_size(json_object_get(j, "cachelines")), 1);
	json_decref(j);
	j = run(PMT_C2C_DISPLAY_RMT, "aarch64", PMT_PERF_NEWEST);
	assert_int_equal(json_array_size(json_object_get(j, "cachelines")), 0);
	json_decref(j);
	assert_int_equal(pmt_c2c_display_parse("peer"), PMT_C2C_DISPLAY_PEER);
	assert_int_equal(pmt_c2c_display_parse("lcl"), PMT_C2C_DISPLAY_LCL);
	assert_int_equal(pmt_c2c_display_parse("hitm"), -PMT_EPARSE);
}

static void test_opts(void **state)
{
	struct pmt_c2c_opts o = { 0 };
	struct pmt_c2c *c;

	(void)state;
	assert_int_equal(pmt_c2c_new(NULL, &o, &c), -PMT_EINVAL); /* no sz */
	o = PMT_OPTS_INIT(pmt_c2c_opts, .display = 9);
	assert_int_equal(pmt_c2c_new(NULL, &o, &c), -PMT_EINVAL);
	pmt_c2c_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_stats),
		cmocka_unit_test(test_display),
		cmocka_unit_test(test_opts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
