/* SPE record assembly, data_src, itrace and sample synthesis against hand-derived values. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"
#include "pmutrace/spe_decode.h"

/* A hand-assembled N1 load record (Arm ARM packet encodings, arm-spe.md section 1):
 *   b0 + 8B  ADDRESS PC   0x80ffffc08420e068 -> NS=1 EL=0: canonical 0x00ffffc08420e068
 *   99 08 00 COUNTER TOT? no: 0x99 = COUNTER index 1 (ISSUE) = 8
 *   98 0c 00 COUNTER index 0 (TOT) = 12
 *   9a 02 00 COUNTER index 2 (XLAT) = 2
 *   49 00    OP_TYPE class 1 (LDST), payload 0 = GP load
 *   52 16 00 EVENTS 2 bytes: 0x16 = RETIRED|L1D-ACCESS|TLB-ACCESS
 *   b2 + 8B  ADDRESS VA 0x0000ffff00001000
 *   43 00    DATA_SOURCE 0 (L1D)
 *   64 d2 04 00 00 CONTEXT el1 = 1234
 *   71 + 8B  TIMESTAMP 0x1000 */
static const uint8_t rec1[] = {
	0xb0, 0x68, 0xe0, 0x20, 0x84, 0xc0, 0xff, 0xff, 0x80,
	0x99, 0x08, 0x00, 0x98, 0x0c, 0x00, 0x9a, 0x02, 0x00,
	0x49, 0x00, 0x52, 0x16, 0x00,
	0xb2, 0x00, 0x10, 0x00, 0x00, 0xff, 0xff, 0x00, 0x00,
	0x43, 0x00, 0x64, 0xd2, 0x04, 0x00, 0x00,
	0x71, 0x00, 0x10, 0, 0, 0, 0, 0, 0,
};

/* A decoder (default options) fed one buffer that starts at stream offset base. */
static struct pmt_spe_rec_decoder *decoder_over(const uint8_t *buf, size_t len, uint64_t base)
{
	struct pmt_spe_rec_decoder *d;

	assert_int_equal(pmt_spe_rec_new(NULL, &d), 0);
	pmt_spe_rec_feed(d, buf, len, base);
	return d;
}

static void test_record_fields(void **state)
{
	struct pmt_spe_rec_decoder *d = decoder_over(rec1, sizeof(rec1), 0x100), *none;
	struct pmt_spe_rec_opts bad = { .sz = offsetof(struct pmt_spe_rec_opts, reference) };
	struct pmt_spe_record r;

	/* options without their size (or too short for the fields read) are refused */
	assert_int_equal(pmt_spe_rec_new(&bad, &none), -PMT_EINVAL);
	assert_int_equal(pmt_spe_rec_next(d, &r), 1);
	assert_int_equal(r.offset, 0x100);
	assert_int_equal(r.from_ip, 0x00ffffc08420e068ULL);
	assert_int_equal(r.virt_addr, 0x0000ffff00001000ULL);
	assert_int_equal(r.latency, 12);
	assert_int_equal(r.issue_lat, 8);
	assert_int_equal(r.xlat_lat, 2);
	assert_int_equal(r.events, 0x16);
	assert_int_equal(r.context_id, 1234);
	assert_int_equal(r.timestamp, 0x1000);
	assert_true(r.op & PMT_SPE_OP_F_LDST);
	assert_true(r.op & PMT_SPE_OP_F_LD);
	assert_int_equal(pmt_spe_rec_next(d, &r), -PMT_EEOS);
	assert_int_equal(pmt_spe_rec_stats(d)->records, 1);
	assert_int_equal(pmt_spe_rec_stats(d)->bytes_skipped, 0);
	pmt_spe_rec_free(d);
}

/* N1 (MIDR 0x410fd0c0) L1 load with TLB access: 0x288100142 is what perf 6.1 prints for
 * such records (shared perf61_expected); no MIDR: 0x88000142. */
static void test_data_source_values(void **state)
{
	struct pmt_spe_record r = { 0 };

	r.op = PMT_SPE_OP_F_LDST | PMT_SPE_OP_F_LD;
	r.events = 1u << PMT_SPE_EV_L1D_ACCESS | 1u << PMT_SPE_EV_TLB_ACCESS;
	r.source = 0;
	assert_int_equal(pmt_spe_data_source(&r, 0x410fd0c0, PMT_PERF_6_1), 0x288100142ULL);
	assert_int_equal(pmt_spe_data_source(&r, 0, PMT_PERF_6_1), 0x88000142ULL);
	/* peer cluster (source 0xc): L3|HIT, LVLNUM L3, SNOOPX PEER -> 0x8688000842 */
	r.source = 0xc;
	assert_int_equal(pmt_spe_data_source(&r, 0x410fd0c0, PMT_PERF_6_1), 0x8688000842ULL);
	/* store: N1 LVL/LVLNUM/SNOOP N/A -> 0x1e88080024; no MIDR, no L1 event -> 0x88000004 */
	r.op = PMT_SPE_OP_F_LDST | PMT_SPE_OP_F_ST;
	r.events = 1u << PMT_SPE_EV_TLB_ACCESS;
	assert_int_equal(pmt_spe_data_source(&r, 0x410fd0c0, PMT_PERF_6_1), 0x1e88080024ULL);
	assert_int_equal(pmt_spe_data_source(&r, 0, PMT_PERF_6_1), 0x88000004ULL);
	/* not a load/store: 0 */
	r.op = PMT_SPE_OP_F_BRANCH;
	assert_int_equal(pmt_spe_data_source(&r, 0x410fd0c0, PMT_PERF_6_1), 0);
	/* V2 is in the list from 6.13 only: N1 table then, fallback on 6.1 */
	r.op = PMT_SPE_OP_F_LDST | PMT_SPE_OP_F_LD;
	r.events = 1u << PMT_SPE_EV_L1D_ACCESS | 1u << PMT_SPE_EV_TLB_ACCESS;
	r.source = 0;
	assert_int_equal(pmt_spe_data_source(&r, 0x410fd4f0, PMT_PERF_6_1), 0x88000142ULL);
	assert_int_equal(pmt_spe_data_source(&r, 0x410fd4f0, PMT_PERF_NEWEST), 0x288100142ULL);
}

/* Text from perf 6.1 (shared perf61_expected *.script-N1midr.txt) */
static void test_data_source_text(void **state)
{
	char buf[160];

	pmt_mem_data_src_str(0x288100142ULL, PMT_PERF_6_1, buf, sizeof(buf));
	assert_string_equal(buf, "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB Walker hit|LCK No|BLK  N/A");
	pmt_mem_data_src_str(0x1e88080024ULL, PMT_PERF_6_1, buf, sizeof(buf));
	assert_string_equal(buf, "|OP STORE|LVL N/A or N/A|SNP N/A|TLB Walker hit|LCK No|BLK  N/A");
	pmt_mem_data_src_str(0, PMT_PERF_6_1, buf, sizeof(buf));
	assert_string_equal(buf, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A");
	/* newest perf prints the level number alone when set (mem-events.c) */
	pmt_mem_lvl_str(0x288100142ULL, PMT_PERF_NEWEST, buf, sizeof(buf));
	assert_string_equal(buf, "L1 hit");
	/* truncation stays terminated */
	assert_true(pmt_mem_data_src_str(0x288100142ULL, PMT_PERF_6_1, buf, 8) <= 7);
	assert_int_equal(strlen(buf), 7);
}

/* A bad byte between two records: skipped, the partial record dropped, decoding goes on */
static void test_bad_byte_resync(void **state)
{
	uint8_t buf[sizeof(rec1) * 2 + 1];
	struct pmt_spe_rec_decoder *d;
	const struct pmt_spe_rec_stats *st;
	struct pmt_spe_record r;
	int n = 0;

	memcpy(buf, rec1, sizeof(rec1));
	/* second copy with its 10th byte (the ISSUE counter header) made invalid (0x03) */
	memcpy(buf + sizeof(rec1), rec1, sizeof(rec1));
	buf[sizeof(rec1) + 9] = 0x03;
	buf[sizeof(buf) - 1] = 0x01; /* END */
	d = decoder_over(buf, sizeof(buf), 0);
	while (pmt_spe_rec_next(d, &r) == 1)
		n++;
	st = pmt_spe_rec_stats(d);
	/* record 1; the PC packet of record 2 is dropped with the bad byte; the rest of
	 * record 2 (from offset sizeof(rec1)+10) ends at its TIMESTAMP; then a lone END */
	assert_int_equal(n, 3);
	/* 0x03 and 0x08 start no packet (arm-spe.md header table); the 0x00 after them is PAD */
	assert_int_equal(st->bytes_skipped, 2);
	assert_int_equal(st->bad_ranges, 1);
	assert_int_equal(st->records_dropped, 1);
	assert_int_equal(st->first_bad_offset, sizeof(rec1) + 9);
	pmt_spe_rec_free(d);
}

static void test_itrace(void **state)
{
	struct pmt_itrace it;
	struct pmt_diag d = PMT_DIAG_INIT;

	assert_int_equal(pmt_itrace_parse("bfmtaMi1i", &it, NULL), 0);
	assert_int_equal(it.flags, PMT_ITRACE_INSN | PMT_ITRACE_BRANCH | PMT_ITRACE_FLC |
					   PMT_ITRACE_LLC | PMT_ITRACE_TLB | PMT_ITRACE_REMOTE |
					   PMT_ITRACE_MEM);
	assert_int_equal(it.period, 1);
	assert_int_equal(it.period_type, PMT_ITRACE_PERIOD_INSNS);
	assert_int_equal(pmt_itrace_parse("i100i", &it, NULL), 0);
	assert_int_equal(it.period, 100);
	/* a time period is not usable with SPE: perf warns and drops instructions */
	assert_int_equal(pmt_itrace_parse("i10us", &it, NULL), 0);
	assert_false(it.flags & PMT_ITRACE_INSN);
	assert_true(it.insn_rejected);
	/* default: everything but instructions */
	assert_int_equal(pmt_itrace_parse("", &it, NULL), 0);
	assert_false(it.flags & PMT_ITRACE_INSN);
	assert_true(it.flags & PMT_ITRACE_MEM);
	assert_int_equal(pmt_itrace_parse("i0i", &it, NULL), -PMT_EPARSE);
	/* the problem travels in the diagnostic: the option, the offset and why */
	assert_int_equal(pmt_itrace_parse("bK", &it, &d), -PMT_EPARSE);
	assert_int_equal(d.code, -PMT_EPARSE);
	assert_string_equal(d.msg, "bad --itrace 'bK' at offset 1: unknown option letter");
}

/* --cpu on a trace whose generic events do not sample the CPU: perf's message (perf 7.3
 * script -C on such a file: "File does not contain CPU events. Remove -C option to
 * proceed."), through the diagnostic; a PMU event (SPE's type) is not asked */
static void test_filter_check(void **state)
{
	struct pmt_trace_attr attrs[2] = { { .type = 8, .sample_type = 0 },
					   { .type = 1, .sample_type = PMT_SAMPLE_TIME } };
	struct pmt_trace_meta m = { .nr_attrs = 1, .attrs = attrs };
	struct pmt_sample_filter f = { 0 };
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	assert_int_equal(pmt_sample_filter_check(&f, &m, &d), 0); /* no --cpu: nothing asked */
	assert_int_equal(pmt_sample_filter_cpus(&f, "0"), 0);
	assert_int_equal(pmt_sample_filter_check(&f, &m, &d), 0);
	assert_int_equal(d.code, 0);
	m.nr_attrs = 2;
	assert_int_equal(pmt_sample_filter_check(&f, &m, &d), -PMT_EINVAL);
	assert_int_equal(d.code, -PMT_EINVAL);
	assert_null(d.file);
	assert_string_equal(d.msg, "File does not contain CPU events. Remove -C option to proceed.");
	attrs[1].sample_type |= PMT_SAMPLE_CPU;
	d = (struct pmt_diag)PMT_DIAG_INIT;
	assert_int_equal(pmt_sample_filter_check(&f, &m, &d), 0);
	assert_int_equal(d.code, 0);
}

static void test_samples(void **state)
{
	struct pmt_spe_rec_decoder *d = decoder_over(rec1, sizeof(rec1), 0);
	struct pmt_spe_record r;
	struct pmt_spe_sampler s;
	struct pmt_spe_queue q;
	struct pmt_spe_sample out[PMT_SPE_MAX_SAMPLES_PER_RECORD];
	struct pmt_itrace it;
	int n;

	assert_int_equal(pmt_spe_rec_next(d, &r), 1);
	pmt_spe_rec_free(d);
	pmt_itrace_parse("bfmtaMi2i", &it, NULL);
	pmt_spe_sampler_init(&s, &it, PMT_PERF_6_1);
	assert_int_equal(pmt_spe_queue_init(&q, 3, 100, 100, 0x410fd0c0, PMT_PERF_6_1), 0);
	/* EVENTS 0x16: l1d-access, tlb-access, then memory (data_src != 0); instructions is
	 * decimated by 2, so only every second record makes one */
	n = pmt_spe_sampler_run(&s, &q, &r, out);
	assert_int_equal(n, 3);
	assert_int_equal(out[0].event, PMT_SPE_SE_L1D_ACCESS);
	assert_int_equal(out[1].event, PMT_SPE_SE_TLB_ACCESS);
	assert_int_equal(out[2].event, PMT_SPE_SE_MEMORY);
	assert_int_equal(out[0].ip, 0x00ffffc08420e068ULL);
	assert_int_equal(out[0].addr, 0x0000ffff00001000ULL);
	assert_int_equal(out[0].weight, 12);
	assert_int_equal(out[0].data_src, 0x288100142ULL);
	assert_int_equal(out[0].cpu, 3);
	assert_int_equal(out[0].tid, 1234); /* from CONTEXT, not timeless */
	n = pmt_spe_sampler_run(&s, &q, &r, out);
	assert_int_equal(n, 4);
	assert_int_equal(out[3].event, PMT_SPE_SE_INSN);
	assert_int_equal(out[3].period, 2);
	assert_string_equal(pmt_spe_event_name(PMT_SPE_SE_BRANCH, PMT_PERF_6_1), "branch-miss");
	assert_string_equal(pmt_spe_event_name(PMT_SPE_SE_BRANCH, PMT_PERF_NEWEST), "branch");
	pmt_spe_queue_fini(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_fields),
		cmocka_unit_test(test_data_source_values),
		cmocka_unit_test(test_data_source_text),
		cmocka_unit_test(test_bad_byte_resync),
		cmocka_unit_test(test_itrace),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_filter_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
