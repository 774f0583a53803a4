/* --itrace=l branch stacks (perf >= 6.15) and how the sinks print them.
 *
 * Expected values hand-derived from perf's arm_spe__prep_branch_stack() (arm-spe.c at
 * 08dbfad3): have_tgt = the record is a branch (sample flags have PERF_IP_FLAG_BRANCH);
 * have_pbt = last_branch_sz >= have_tgt + 1 && prev_br_tgt != 0. Entry 0 (TGT): from =
 * from_ip, to = to_ip; type CALL/COND_CALL for CR_BL, else RET/COND_RET for CR_RET or
 * INDIRECT, else UNCOND/COND for CR_NON_BL_RET, else UNKNOWN/COND; MISPRED event ->
 * mispred, otherwise predicted; NOT_TAKEN -> not_taken; TXN -> in_tx; cycles =
 * min(latency, 0xffff). Entry 1 (PBT): to = prev_br_tgt, everything else 0 (UNKNOWN). It
 * is prepared when branch or instruction samples are made, and attached to those only.
 *
 * perf script -F brstack (builtin-script.c perf_sample__fprintf_brstack, print_bstack_flags,
 * bstack_event_str; util/branch.c get_branch_type): per entry " 0x%lx" from, "/0x%lx" to,
 * then "/%s/%c/%c/%d/%s/%s " with events ("-" if none of mispred/predicted/not_taken,
 * else P or M, then N if not taken), in_tx X/-, abort A/-, cycles, type name ("" for
 * UNKNOWN), spec ("-"). PERF_BR_*: COND 1, UNCOND 2, CALL 4, RET 6, COND_CALL 9,
 * COND_RET 10 (linux/perf_event.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>

#include "pmutrace/spe.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"
#include "spe_test_util.h"
#include "sink_render.h"

#define EVB(b) (1ULL << PMT_SPE_EV_##b)

static struct pmt_spe_record branch(uint32_t brop, uint64_t events, uint64_t pbt)
{
	struct pmt_spe_record r;

	memset(&r, 0, sizeof(r));
	r.context_id = UINT64_MAX;
	r.op = PMT_SPE_OP_F_BRANCH | brop;
	r.op_class = PMT_SPE_OP_BRANCH;
	r.events = EVB(RETIRED) | events;
	r.from_ip = 0x1000;
	r.to_ip = 0x1004;
	r.latency = 11;
	r.prev_br_tgt = pbt;
	return r;
}

struct run {
	struct pmt_spe_sampler s;
	struct pmt_spe_queue q;
	struct pmt_spe_sample out[PMT_SPE_MAX_SAMPLES_PER_RECORD];
	int n;
};

static void run1(struct run *x, const char *itrace, int compat, const struct pmt_spe_record *r)
{
	struct pmt_itrace it;

	assert_int_equal(pmt_itrace_parse(itrace, &it, NULL), 0);
	pmt_spe_sampler_init(&x->s, &it, compat);
	assert_int_equal(pmt_spe_queue_init(&x->q, 0, 1, 1, 0x410fd0c0, compat), 0);
	x->n = pmt_spe_sampler_run(&x->s, &x->q, r, x->out);
	/* the samples' branch stack is the queue's own array, not the decoder's */
	pmt_spe_queue_fini(&x->q);
}

static const char *str(const struct pmt_spe_sample *s, char *buf, size_t cap)
{
	assert_non_null(s->brstack);
	pmt_spe_brstack_str(s->brstack, " ", buf, cap);
	return buf;
}

static void test_tgt_and_pbt(void **state)
{
	struct pmt_spe_record r = branch(PMT_SPE_OP_F_BR_COND, EVB(NOT_TAKEN), 0x800);
	struct run x;
	char buf[256];
	const struct pmt_branch_entry *e;

	(void)state;
	run1(&x, "bl", PMT_PERF_NEWEST, &r);
	assert_int_equal(x.n, 1);
	assert_int_equal(x.out[0].brstack->nr, 2);
	e = &x.out[0].brstack->e[0];
	assert_int_equal(e->from, 0x1000);
	assert_int_equal(e->to, 0x1004);
	assert_int_equal(e->type, 1); /* PERF_BR_COND */
	assert_int_equal(e->flags, PMT_BRF_PREDICTED | PMT_BRF_NOT_TAKEN);
	assert_int_equal(e->cycles, 11);
	e = &x.out[0].brstack->e[1];
	assert_int_equal(e->from, 0);
	assert_int_equal(e->to, 0x800);
	assert_int_equal(e->type, 0);
	assert_int_equal(e->flags, 0);
	/* the PBT entry prints like the BOLT docs' "0x0/0xffff8000807216ac/-/-/-/0//-" */
	assert_string_equal(str(&x.out[0], buf, sizeof(buf)),
			    "0x1000/0x1004/PN/-/-/11/COND/- 0x0/0x800/-/-/-/0//-");
	/* l1: room for the TGT only (1 >= 1 + 1 is false) */
	run1(&x, "bl1", PMT_PERF_NEWEST, &r);
	assert_int_equal(x.out[0].brstack->nr, 1);
	/* no PBT recorded: TGT only */
	r.prev_br_tgt = 0;
	run1(&x, "bl", PMT_PERF_NEWEST, &r);
	assert_string_equal(str(&x.out[0], buf, sizeof(buf)), "0x1000/0x1004/PN/-/-/11/COND/-");
}

static void test_types(void **state)
{
	static const struct {
		uint32_t op;
		uint64_t ev;
		const char *want;
	} cases[] = {
		/* mispredicted return: M, RET */
		{ PMT_SPE_OP_F_BR_INDIRECT | PMT_SPE_OP_F_BR_CR_RET, EVB(MISPRED),
		  "0x1000/0x1004/M/-/-/11/RET/-" },
		/* an indirect branch without link is a RET for perf too */
		{ PMT_SPE_OP_F_BR_INDIRECT, 0, "0x1000/0x1004/P/-/-/11/RET/-" },
		{ PMT_SPE_OP_F_BR_CR_BL, 0, "0x1000/0x1004/P/-/-/11/CALL/-" },
		{ PMT_SPE_OP_F_BR_CR_BL | PMT_SPE_OP_F_BR_COND, 0,
		  "0x1000/0x1004/P/-/-/11/COND_CALL/-" },
		{ PMT_SPE_OP_F_BR_CR_RET | PMT_SPE_OP_F_BR_COND, EVB(MISPRED) | EVB(NOT_TAKEN),
		  "0x1000/0x1004/MN/-/-/11/COND_RET/-" },
		{ PMT_SPE_OP_F_BR_CR_NON_BL_RET, 0, "0x1000/0x1004/P/-/-/11/UNCOND/-" },
		/* a plain direct branch has no type: "" */
		{ 0, 0, "0x1000/0x1004/P/-/-/11//-" },
		/* in a transaction: X */
		{ 0, EVB(TXN), "0x1000/0x1004/P/X/-/11//-" },
	};
	char buf[128];
	struct run x;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pmt_spe_record r = branch(cases[i].op, cases[i].ev, 0);

		run1(&x, "bl", PMT_PERF_NEWEST, &r);
		assert_int_equal(x.n, 1);
		assert_string_equal(str(&x.out[0], buf, sizeof(buf)), cases[i].want);
	}
}

static void test_cycles_and_kinds(void **state)
{
	struct pmt_spe_record r = branch(0, 0, 0x800);
	struct run x;

	(void)state;
	r.latency = 70000; /* cycles saturate at 0xffff */
	run1(&x, "bMi1il", PMT_PERF_NEWEST, &r);
	/* branch then instructions; both carry the stack */
	assert_int_equal(x.n, 2);
	assert_int_equal(x.out[0].event, PMT_SPE_SE_BRANCH);
	assert_int_equal(x.out[1].event, PMT_SPE_SE_INSN);
	assert_ptr_equal(x.out[0].brstack, x.out[1].brstack);
	assert_int_equal(x.out[0].brstack->e[0].cycles, 0xffff);

	/* a load: memory sample without a stack, the instruction sample with the PBT only */
	memset(&r, 0, sizeof(r));
	r.context_id = UINT64_MAX;
	r.op = PMT_SPE_OP_F_LDST | PMT_SPE_OP_F_LD;
	r.op_class = PMT_SPE_OP_LDST;
	r.prev_br_tgt = 0x800;
	run1(&x, "Mi1il1", PMT_PERF_NEWEST, &r);
	assert_int_equal(x.n, 2);
	assert_int_equal(x.out[0].event, PMT_SPE_SE_MEMORY);
	assert_null(x.out[0].brstack);
	assert_int_equal(x.out[1].brstack->nr, 1);
	assert_int_equal(x.out[1].brstack->e[0].to, 0x800);
	assert_int_equal(x.out[1].brstack->e[0].from, 0);
	/* and without a PBT: an empty stack (perf prints nothing) */
	r.prev_br_tgt = 0;
	run1(&x, "Mi1il", PMT_PERF_NEWEST, &r);
	assert_int_equal(x.out[1].brstack->nr, 0);

	/* before 6.15 'l' does nothing for SPE */
	r = branch(0, 0, 0x800);
	run1(&x, "bl", 614, &r);
	assert_int_equal(x.n, 1);
	assert_null(x.out[0].brstack);
	run1(&x, "bl", PMT_PERF_6_15, &r);
	assert_non_null(x.out[0].brstack);
	/* without 'l' no stack */
	run1(&x, "b", PMT_PERF_NEWEST, &r);
	assert_null(x.out[0].brstack);
}

static void test_sinks(void **state)
{
	struct pmt_spe_record r = branch(PMT_SPE_OP_F_BR_COND, EVB(NOT_TAKEN), 0x800);
	struct run x;
	char *txt;
	json_t *j, *bs;
	json_error_t err;
	const char *line2;

	(void)state;
	run1(&x, "bMi1il", PMT_PERF_NEWEST, &r);
	assert_int_equal(x.n, 2);

	/* CSV: a brstack column, entries separated by one space */
	txt = test_render(PMT_SINK_CSV, PMT_PERF_NEWEST, x.out, x.n, 1, 1);
	assert_non_null(strstr(txt, ",offset,brstack\n"));
	assert_non_null(strstr(txt, ",0x1000/0x1004/PN/-/-/11/COND/- 0x0/0x800/-/-/-/0//-\n"));
	free(txt);

	/* text: perf's " 0xF/0xT/.../- " per entry at the end of the line */
	txt = test_render(PMT_SINK_TEXT, PMT_PERF_NEWEST, x.out, 1, 1, 1);
	assert_non_null(strstr(txt, " 0x1000/0x1004/PN/-/-/11/COND/-  0x0/0x800/-/-/-/0//- \n"));
	free(txt);

	/* JSONL, read back with jansson */
	txt = test_render(PMT_SINK_JSONL, PMT_PERF_NEWEST, x.out, x.n, 1, 1);
	line2 = strchr(txt, '\n');
	assert_non_null(line2);
	j = json_loadb(txt, (size_t)(line2 - txt), 0, &err);
	assert_non_null(j);
	bs = json_object_get(j, "brstack");
	assert_true(json_is_array(bs));
	assert_int_equal(json_array_size(bs), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(bs, 0), "from")),
			    "0x1000");
	assert_string_equal(json_string_value(json_object_get(json_array_get(bs, 0), "to")),
			    "0x1004");
	assert_true(json_is_true(json_object_get(json_array_get(bs, 0), "predicted")));
	assert_true(json_is_false(json_object_get(json_array_get(bs, 0), "mispred")));
	assert_true(json_is_true(json_object_get(json_array_get(bs, 0), "not_taken")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(bs, 0), "cycles")), 11);
	assert_string_equal(json_string_value(json_object_get(json_array_get(bs, 0), "type")),
			    "COND");
	assert_string_equal(json_string_value(json_object_get(json_array_get(bs, 1), "to")),
			    "0x800");
	assert_string_equal(json_string_value(json_object_get(json_array_get(bs, 1), "type")),
			    "N/A");
	json_decref(j);
	free(txt);
}

/* -F flags: perf 7.3's sample_flags_to_name() (builtin-script.c) worked by hand: the name,
 * "/miss,not_taken/", and "(x)" in a transaction printed "%*s" with width 21 less the
 * length of the last piece written ("jcc": 3, so 18; after "/": 1, so 20). The names
 * without a transaction are also checked against perf 7.3 by diff.spe_fields73. */
static void test_sample_flags(void **state)
{
	const uint32_t br = PMT_IP_FLAG_BRANCH;
	char out[PMT_SAMPLE_FLAGS_MAX];

	(void)state;
	assert_int_equal(pmt_sample_flags_str(0, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	pmt_sample_flags_str(br | PMT_IP_FLAG_CONDITIONAL | PMT_IP_FLAG_NOT_TAKEN |
			     PMT_IP_FLAG_BRANCH_MISS, out, sizeof(out));
	assert_string_equal(out, "jcc/miss,not_taken/");
	pmt_sample_flags_str(br | PMT_IP_FLAG_RETURN | PMT_IP_FLAG_BRANCH_MISS, out, sizeof(out));
	assert_string_equal(out, "return/miss/");
	pmt_sample_flags_str(br | PMT_IP_FLAG_CALL, out, sizeof(out));
	assert_string_equal(out, "call");
	pmt_sample_flags_str(br | PMT_IP_FLAG_CONDITIONAL | PMT_IP_FLAG_IN_TX, out, sizeof(out));
	assert_string_equal(out, "jcc               (x)"); /* 3 + 18 */
	pmt_sample_flags_str(br | PMT_IP_FLAG_BRANCH_MISS | PMT_IP_FLAG_IN_TX, out, sizeof(out));
	assert_string_equal(out, "jmp/miss/                 (x)"); /* 9 + 20 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tgt_and_pbt),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_cycles_and_kinds),
		cmocka_unit_test(test_sinks),
		cmocka_unit_test(test_sample_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
