/* --itrace periods per perf version, over hand-built records.
 *
 * perf <= 6.17 (arm-spe.c, arm_spe__synth_instruction_sample): memory and branch samples
 * are never decimated and have period 1; only "instructions" counts records in the queue's
 * period_instructions and fires when it reaches the period, with period = that period.
 *
 * perf >= 6.18 (James Clark, "perf arm-spe: Downsample all sample types equally", in the
 * v6.18 perf-tools pull): arm_spe_sample() increments speq->sample_count for every record
 * and returns before making any sample while sample_count < synth_opts.period (a u64
 * compare), then resets it; arm_spe_prep_sample() sets sample->period = synth_opts.period
 * for every kind. itrace_do_parse_synth_opts() only fills period/period_type when 'i' or
 * 'y' is in the string, so "bM" leaves period 0 (the struct is zero-initialised): every
 * record is kept and every period is 0. With no --itrace, "Show instruction sample types by
 * default" replaces the ns default by period type instructions, period 1, and
 * itrace_synth_opts__set_default(opts, false) has instructions on, so instructions appear
 * by default. A non-instruction period makes arm_spe_process_auxtrace_info() fail with
 * "You must only use i (instructions) --itrace period with Arm SPE. e.g --itrace=i1i"; a
 * period > 1 warns. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"
#include "pmutrace/spe_decode.h"

#define EVB(b) (1ULL << PMT_SPE_EV_##b)

/* record 1, 3, 5: an N1 L1D load hit (l1d-access, tlb-access, memory);
 * record 2, 4, 6: a mispredicted branch (branch / branch-miss) */
static struct pmt_spe_record mk(int i)
{
	struct pmt_spe_record r;

	memset(&r, 0, sizeof(r));
	r.context_id = UINT64_MAX;
	r.from_ip = 0x400000 + 4 * (uint64_t)i;
	r.latency = 7;
	if (i % 2) {
		r.op = PMT_SPE_OP_F_LDST | PMT_SPE_OP_F_LD;
		r.op_class = PMT_SPE_OP_LDST;
		r.events = EVB(RETIRED) | EVB(L1D_ACCESS) | EVB(TLB_ACCESS);
		r.virt_addr = 0x1000;
	} else {
		r.op = PMT_SPE_OP_F_BRANCH;
		r.op_class = PMT_SPE_OP_BRANCH;
		r.events = EVB(RETIRED) | EVB(MISPRED);
		r.to_ip = 0x500000;
	}
	return r;
}

struct tally {
	int n, per_event[PMT_SPE_SE_COUNT];
	uint64_t periods[64];
	uint32_t events[64];
};

static void run6(const char *itrace, int compat, struct tally *t)
{
	struct pmt_spe_sampler s;
	struct pmt_spe_queue q;
	struct pmt_spe_sample out[PMT_SPE_MAX_SAMPLES_PER_RECORD];
	struct pmt_itrace it;

	memset(t, 0, sizeof(*t));
	assert_int_equal(pmt_itrace_parse(itrace, &it, NULL), 0);
	pmt_spe_sampler_init(&s, &it, compat);
	assert_int_equal(pmt_spe_queue_init(&q, 0, 1, 1, 0x410fd0c0, compat), 0);
	for (int i = 1; i <= 6; i++) {
		struct pmt_spe_record r = mk(i);
		int n = pmt_spe_sampler_run(&s, &q, &r, out);

		for (int k = 0; k < n; k++) {
			t->periods[t->n] = out[k].period;
			t->events[t->n] = out[k].event;
			t->per_event[out[k].event]++;
			t->n++;
		}
	}
	pmt_spe_queue_fini(&q);
}

static void all_periods(const struct tally *t, uint64_t p)
{
	for (int i = 0; i < t->n; i++)
		assert_int_equal(t->periods[i], p);
}

static void test_i1i(void **state)
{
	struct tally t;

	(void)state;
	/* newest: every record; loads give l1d-access, tlb-access, memory, instructions (4),
	 * branches branch, instructions (2): 3 * 4 + 3 * 2, period 1 */
	run6("bfmtaMi1i", PMT_PERF_NEWEST, &t);
	assert_int_equal(t.n, 18);
	assert_int_equal(t.per_event[PMT_SPE_SE_INSN], 6);
	all_periods(&t, 1);
	/* 6.13: the same samples, the same periods */
	run6("bfmtaMi1i", 613, &t);
	assert_int_equal(t.n, 18);
	all_periods(&t, 1);
}

static void test_i3i(void **state)
{
	struct tally t;

	(void)state;
	/* newest: sample_count reaches 3 at records 3 (a load: 4 samples) and 6 (a branch:
	 * 2 samples); all with period 3 */
	run6("bfmtaMi3i", PMT_PERF_NEWEST, &t);
	assert_int_equal(t.n, 6);
	assert_int_equal(t.per_event[PMT_SPE_SE_L1D_ACCESS], 1);
	assert_int_equal(t.per_event[PMT_SPE_SE_BRANCH], 1);
	assert_int_equal(t.per_event[PMT_SPE_SE_INSN], 2);
	all_periods(&t, 3);
	assert_int_equal(t.events[0], PMT_SPE_SE_L1D_ACCESS);
	/* 6.18 is the first version with it */
	run6("bfmtaMi3i", PMT_PERF_6_18, &t);
	assert_int_equal(t.n, 6);
	/* 6.13 and 6.1: memory and branch samples of all 6 records (3 * 3 + 3) with period 1,
	 * instructions at records 3 and 6 with period 3 */
	for (int c = 0; c < 2; c++) {
		run6("bfmtaMi3i", c ? PMT_PERF_6_1 : 613, &t);
		assert_int_equal(t.n, 14);
		assert_int_equal(t.per_event[PMT_SPE_SE_INSN], 2);
		for (int i = 0; i < t.n; i++)
			assert_int_equal(t.periods[i], t.events[i] == PMT_SPE_SE_INSN ? 3 : 1);
	}
}

static void test_default(void **state)
{
	struct tally t;
	const char *msg = NULL;
	struct pmt_itrace it;

	(void)state;
	/* newest: instructions on with period 1 -> as i1i with every kind */
	run6("", PMT_PERF_NEWEST, &t);
	assert_int_equal(t.n, 18);
	assert_int_equal(t.per_event[PMT_SPE_SE_INSN], 6);
	all_periods(&t, 1);
	pmt_itrace_default(&it);
	assert_int_equal(pmt_itrace_check(&it, PMT_PERF_NEWEST, &msg), 0);
	/* 6.13: the ns default period drops instructions: 3 * 3 + 3 */
	run6("", 613, &t);
	assert_int_equal(t.n, 12);
	assert_int_equal(t.per_event[PMT_SPE_SE_INSN], 0);
	all_periods(&t, 1);
}

static void test_no_period(void **state)
{
	struct tally t;

	(void)state;
	/* newest "bM": period 0 keeps all records; perf prints period 0 */
	run6("bM", PMT_PERF_NEWEST, &t);
	assert_int_equal(t.n, 6);
	all_periods(&t, 0);
	/* 6.13 "bM": period 1 */
	run6("bM", 613, &t);
	assert_int_equal(t.n, 6);
	all_periods(&t, 1);
}

static void test_check(void **state)
{
	struct pmt_itrace it;
	const char *msg = NULL;

	(void)state;
	assert_int_equal(pmt_itrace_parse("bi10us", &it, NULL), 0);
	assert_int_equal(pmt_itrace_check(&it, PMT_PERF_NEWEST, &msg), -PMT_EINVAL);
	assert_string_equal(msg, "You must only use i (instructions) --itrace period with Arm "
				 "SPE. e.g --itrace=i1i\n");
	/* 6.13 only warns and drops instructions (insn_rejected) */
	msg = NULL;
	assert_int_equal(pmt_itrace_check(&it, 613, &msg), 0);
	assert_true(it.insn_rejected);
	/* 'i' without a period type: 100000 ns */
	assert_int_equal(pmt_itrace_parse("i", &it, NULL), 0);
	assert_int_equal(pmt_itrace_check(&it, PMT_PERF_NEWEST, &msg), -PMT_EINVAL);
	assert_int_equal(pmt_itrace_parse("i3i", &it, NULL), 0);
	assert_int_equal(pmt_itrace_check(&it, PMT_PERF_NEWEST, &msg), 1);
	assert_string_equal(msg, "Arm SPE has a hardware-based sampling period.\n\n--itrace "
				 "periods > 1i downsample by an interval of n SPE samples rather "
				 "than n instructions.\n");
	assert_int_equal(pmt_itrace_check(&it, 617, &msg), 0);
	assert_int_equal(pmt_itrace_parse("i1i", &it, NULL), 0);
	assert_int_equal(pmt_itrace_check(&it, PMT_PERF_NEWEST, &msg), 0);
	/* no 'i': period type instructions, period 0 (no warning, no error) */
	assert_int_equal(pmt_itrace_parse("bM", &it, NULL), 0);
	assert_int_equal(it.period, 0);
	assert_int_equal(it.period_type, PMT_ITRACE_PERIOD_INSNS);
	assert_int_equal(pmt_itrace_check(&it, PMT_PERF_NEWEST, &msg), 0);
	/* PERF_ITRACE_MAX_LAST_BRANCH_SZ is 1024 */
	assert_int_equal(pmt_itrace_parse("bl1024", &it, NULL), 0);
	assert_int_equal(it.last_branch_sz, 1024);
	assert_int_equal(pmt_itrace_parse("bl1025", &it, NULL), -PMT_EPARSE);
	/* 'l' alone: PERF_ITRACE_DEFAULT_LAST_BRANCH_SZ 64 */
	assert_int_equal(pmt_itrace_parse("bl", &it, NULL), 0);
	assert_int_equal(it.last_branch_sz, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_i1i),
		cmocka_unit_test(test_i3i),
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_no_period),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
