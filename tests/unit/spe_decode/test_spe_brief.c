/* pmt_spe_sampler_brief() describes the samples pmt_spe_sampler_run() makes of the same
 * record: the same events in the same order, the fields they share, the same queue state
 * after (the --itrace periods, the thread a CONTEXT packet names). Checked record by record
 * over synthetic traces of every op mix, with and without CONTEXT packets, at the perf
 * versions whose sample rules differ (6.1's memory samples by data source, 6.12's branch
 * misses, 6.18's decimation of whole records) and --itrace periods 1 and 3. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"
#include "pmutrace/spe_decode.h"

static uint8_t buf[64 * 4000];
static uint32_t events_seen; /* every event's samples were compared */

static int compare(unsigned mix, bool context, const char *itrace, int compat)
{
	struct pmt_spe_synth_opts so;
	struct pmt_spe_synth sy;
	struct pmt_spe_rec_decoder *dec;
	struct pmt_spe_sampler s_run, s_brief;
	struct pmt_spe_queue q_run, q_brief;
	struct pmt_spe_sample out[PMT_SPE_MAX_SAMPLES_PER_RECORD];
	struct pmt_spe_record r;
	struct pmt_itrace it;
	int64_t len;
	int records = 0, samples = 0;

	pmt_spe_synth_opts_init(&so);
	so.seed = 11 + mix;
	so.mix = mix;
	so.context = context;
	assert_int_equal(pmt_spe_synth_init(&sy, &so), 0);
	len = pmt_spe_synth_fill(&sy, buf, sizeof(buf));
	assert_true(len > 0);
	assert_int_equal(pmt_itrace_parse(itrace, &it, NULL), 0);
	pmt_spe_sampler_init(&s_run, &it, compat);
	pmt_spe_sampler_init(&s_brief, &it, compat);
	assert_int_equal(pmt_spe_queue_init(&q_run, 0, 7, 7, 0x410fd0c0, compat), 0);
	assert_int_equal(pmt_spe_queue_init(&q_brief, 0, 7, 7, 0x410fd0c0, compat), 0);
	assert_int_equal(pmt_spe_rec_new(NULL, &dec), 0);
	pmt_spe_rec_feed(dec, buf, (size_t)len, 0);
	while (pmt_spe_rec_next(dec, &r) == 1) {
		struct pmt_spe_brief b;
		int n = pmt_spe_sampler_run(&s_run, &q_run, &r, out);
		int nb = pmt_spe_sampler_brief(&s_brief, &q_brief, &r, &b);
		uint32_t events = b.events;

		records++;
		samples += n;
		assert_int_equal(nb, n);
		assert_int_equal(b.n, (uint32_t)n);
		for (int i = 0; i < n; i++) {
			const struct pmt_spe_sample *x = &out[i];

			/* the lowest bit left is the next sample's event */
			assert_true(events != 0);
			assert_int_equal(x->event, (uint32_t)__builtin_ctz(events));
			events_seen |= 1u << x->event;
			events &= events - 1;
			assert_int_equal(x->cpu, b.cpu);
			assert_int_equal(x->pid, b.pid);
			assert_int_equal(x->tid, b.tid);
			assert_int_equal(x->time, b.time);
			assert_int_equal(x->ip, b.ip);
			assert_int_equal(x->weight, b.weight);
			assert_int_equal(x->period,
					 x->event == PMT_SPE_SE_INSN ? b.insn_period : b.period);
			assert_ptr_equal(x->rec, b.rec);
		}
		assert_int_equal(events, 0);
		assert_int_equal(q_brief.insn_count, q_run.insn_count);
		assert_int_equal(q_brief.tid, q_run.tid);
	}
	assert_true(records > 3000);
	pmt_spe_rec_free(dec);
	pmt_spe_queue_fini(&q_run);
	pmt_spe_queue_fini(&q_brief);
	return samples;
}

static void every_mix_and_version(void **state)
{
	static const int compat[] = { 601, 612, 613, 617, PMT_PERF_6_18, PMT_PERF_NEWEST };
	static const char *const itrace[] = { "bfmtaMi1i", "bfmtaMi3i", "bM", "i2i" };

	long samples = 0;

	(void)state;
	events_seen = 0;
	for (unsigned mix = 0; mix < PMT_SPE_MIX_COUNT; mix++)
		for (size_t c = 0; c < sizeof(compat) / sizeof(compat[0]); c++)
			for (size_t i = 0; i < sizeof(itrace) / sizeof(itrace[0]); i++)
				samples += compare(mix, (mix & 1) != 0, itrace[i], compat[c]);
	assert_true(samples > 500000);
	assert_int_equal(events_seen, (1u << PMT_SPE_SE_COUNT) - 1);
}

/* no --itrace: perf >= 6.18 turns instructions on by default, period 1 */
static void defaults(void **state)
{
	(void)state;
	assert_true(compare(PMT_SPE_MIX_N1, true, "", PMT_PERF_NEWEST) > 4000);
	assert_true(compare(PMT_SPE_MIX_V2, false, "", 612) > 4000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_mix_and_version),
		cmocka_unit_test(defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
