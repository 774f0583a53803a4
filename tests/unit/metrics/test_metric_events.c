/* pmt_metric_plan_events: the events record --tpebs opens for metrics, written as perf's
 * metricgroup and intel-tpebs.c write them (tpebs.md section 2: "EV:R" is sampled as
 * "EV:p", "pmu@terms@R" as "pmu/terms/p"; counted IDs as they are, pmu@..@ as pmu/../);
 * and the near names of an unknown metric. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmutrace/metrics.h"

static struct pmt_metric_plan *plan_of(struct pmt_metric_set *ms, const char *sel,
					  struct pmt_diag *d)
{
	struct pmt_expr_ctx ctx;
	struct pmt_metric_plan *p = NULL;
	const char *s[1] = { sel };

	pmt_expr_ctx_default(&ctx);
	if (pmt_metric_plan_new(ms, s, 1, &ctx, &p, d) < 0)
		return NULL;
	return p;
}

/* the plan of metric `sel` gives exactly these sampled and counted events (NULL-ended) */
static void expect_events(struct pmt_metric_set *ms, const char *sel, const char *core_pmu,
			  const char *const *sampled, const char *const *counted)
{
	struct pmt_metric_events ev;
	struct pmt_metric_plan *p;
	struct pmt_diag d = PMT_DIAG_INIT;
	size_t n;

	p = plan_of(ms, sel, &d);
	assert_non_null(p);
	assert_int_equal(pmt_metric_plan_events(p, core_pmu, &ev), 0);
	for (n = 0; sampled[n]; n++)
		assert_string_equal(ev.sampled[n], sampled[n]);
	assert_int_equal(ev.nr_sampled, n);
	for (n = 0; counted[n]; n++)
		assert_string_equal(ev.counted[n], counted[n]);
	assert_int_equal(ev.nr_counted, n);
	pmt_metric_events_fini(&ev);
	pmt_metric_plan_free(p);
}

static void tpebs_events_are_perfs_strings(void **state)
{
	struct pmt_metric_set ms = { 0 };

	(void)state;
	assert_true(pmt_metric_set_add(&ms, "tma_lock_latency",
				       "MEM_INST_RETIRED.LOCK_LOADS * MEM_INST_RETIRED.LOCK_LOADS:R"
				       " / tma_info_thread_clks", "100%", NULL) >= 0);
	assert_true(pmt_metric_set_add(&ms, "tma_info_thread_clks", "CPU_CLK_UNHALTED.THREAD",
				       NULL, NULL) >= 0);
	assert_true(pmt_metric_set_add(&ms, "raw_r",
				       "cpu@event\\=0xd0\\,umask\\=0x21@R * cpu_core@mem_load_retired"
				       ".l2_hit@R / (tma_info_thread_clks * duration_time)", NULL,
				       NULL) >= 0);
	expect_events(&ms, "tma_lock_latency", NULL,
		      (const char *[]){ "MEM_INST_RETIRED.LOCK_LOADS:p", NULL },
		      (const char *[]){ "MEM_INST_RETIRED.LOCK_LOADS", "CPU_CLK_UNHALTED.THREAD",
					NULL });
	/* duration_time is a tool event: nothing to open */
	expect_events(&ms, "raw_r", NULL,
		      (const char *[]){ "cpu/event=0xd0,umask=0x21/p",
					"cpu_core/mem_load_retired.l2_hit/p", NULL },
		      (const char *[]){ "CPU_CLK_UNHALTED.THREAD", NULL });
	/* hybrid: perf's tpebs samples cpu_core only; an event with a PMU keeps it */
	expect_events(&ms, "raw_r", "cpu_core",
		      (const char *[]){ "cpu/event=0xd0,umask=0x21/p",
					"cpu_core/mem_load_retired.l2_hit/p", NULL },
		      (const char *[]){ "CPU_CLK_UNHALTED.THREAD", NULL });
	expect_events(&ms, "tma_lock_latency", "cpu_core",
		      (const char *[]){ "cpu_core/MEM_INST_RETIRED.LOCK_LOADS/p", NULL },
		      (const char *[]){ "MEM_INST_RETIRED.LOCK_LOADS", "CPU_CLK_UNHALTED.THREAD",
					NULL });
	pmt_metric_set_fini(&ms);
}

static void unknown_metric_names_near_ones(void **state)
{
	struct pmt_metric_set ms = { 0 };
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	assert_true(pmt_metric_set_add(&ms, "tma_lock_latency", "1", NULL, NULL) >= 0);
	assert_true(pmt_metric_set_add(&ms, "tma_split_loads", "1", NULL, NULL) >= 0);
	assert_true(pmt_metric_set_add(&ms, "tma_split_stores", "1", NULL, NULL) >= 0);
	assert_true(pmt_metric_set_add(&ms, "ipc", "1", NULL, NULL) >= 0);
	assert_null(plan_of(&ms, "tma_split_load", &d));
	assert_string_equal(d.msg, "no metric or metric group named 'tma_split_load'; near names: "
				 "tma_split_loads");
	assert_null(plan_of(&ms, "tma_split_stors", &d));
	assert_string_equal(d.msg, "no metric or metric group named 'tma_split_stors'; near names: "
				 "tma_split_stores, tma_split_loads");
	assert_null(plan_of(&ms, "LOCK", &d));
	assert_string_equal(d.msg, "no metric or metric group named 'LOCK'; near names: "
				 "tma_lock_latency");
	assert_null(plan_of(&ms, "zzzzzzzzzzzzzzzzzzzz", &d));
	assert_string_equal(d.msg, "no metric or metric group named 'zzzzzzzzzzzzzzzzzzzz'");
	pmt_metric_set_fini(&ms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tpebs_events_are_perfs_strings),
		cmocka_unit_test(unknown_metric_names_near_ones),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
