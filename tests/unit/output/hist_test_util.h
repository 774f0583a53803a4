/* A report's table built from hand-made call chains, for the hist tests. Include after
 * <cmocka.h>. */
#ifndef PMT_TEST_HIST_UTIL_H
#define PMT_TEST_HIST_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "pmutrace/output.h"

/* the attrs of a perf record -g of cpu-clock:u: one event with chains */
static const struct pmt_trace_attr hist_test_attr = {
	.sample_type = PMT_SAMPLE_IP | PMT_SAMPLE_TID | PMT_SAMPLE_TIME | PMT_SAMPLE_CALLCHAIN,
	.name = "cpu-clock:u"
};

/* one cpu-clock sample of thread pid at ip called from caller, callee first as perf.data
 * has it */
static __attribute__((unused)) void hist_test_add_call(struct pmt_hist *h, uint32_t pid,
							 uint64_t ip, uint64_t caller,
							 uint64_t time)
{
	struct {
		struct pmt_callchain c;
		uint64_t ips[2];
	} chain = { { 2 }, { ip, caller } };
	struct pmt_spe_sample smp = { .event = PMT_EV_ATTR(0), .pid = pid, .tid = pid,
				      .time = time, .ip = ip, .period = 1000,
				      .callchain = &chain.c };

	assert_int_equal(pmt_hist_add(h, &smp), 0);
}

/* h's report as perf 7.3 prints it, in a malloc'd string (caller frees). Not inlined: gcc
 * 12 then takes open_memstream()'s buffer for a pointer into this frame. */
static __attribute__((noinline, unused)) char *hist_test_print(struct pmt_hist *h)
{
	struct pmt_out out;
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	assert_non_null(fp);
	assert_int_equal(pmt_out_init(&out, fp, 4096), 0);
	assert_int_equal(pmt_hist_print(h, &out, PMT_PERF_NEWEST, 0), 0);
	assert_int_equal(pmt_out_fini(&out), 0);
	fclose(fp);
	return text;
}

#endif
