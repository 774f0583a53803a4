/* record/counting: perf stat's attrs, its scaling and aggregation arithmetic (util/stat.c:
 * perf_counts_values__scale per counter, then sums per unit; expected values worked out by
 * hand below), its printed layouts, and a group of software events read from the kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "pmutrace/counting.h"

static void fake_pmus(struct pmt_pmus *p, unsigned ncpus)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->root, "/nonexistent");
	for (unsigned c = 0; c < ncpus; c++)
		p->online.bits[c / 64] |= 1ull << (c % 64);
}

static struct pmt_evsel *sw(struct pmt_evlist *l, const char *name, uint64_t config)
{
	struct pmt_evsel *e = pmt_evlist_add(l);

	assert_non_null(e);
	e->attr.type = PMT_TYPE_SOFTWARE;
	e->attr.config = config;
	snprintf(e->name, sizeof(e->name), "%s", name);
	return e;
}

/* {task-clock,page-faults} as a group, then context-switches alone */
static void group_list(struct pmt_evlist *l)
{
	memset(l, 0, sizeof(*l));
	sw(l, "task-clock", PMT_SW_TASK_CLOCK);
	sw(l, "page-faults", PMT_SW_PAGE_FAULTS);
	sw(l, "context-switches", PMT_SW_CONTEXT_SWITCHES);
	l->ev[0].leader = 0;
	l->ev[0].nr_members = 2;
	l->ev[1].leader = 0;
	l->ev[2].leader = 2;
	l->ev[2].nr_members = 1;
}

static void test_plan_attrs(void **state)
{
	struct pmt_pmus pmus;
	struct pmt_evlist l;
	struct pmt_count_plan p;
	struct pmt_count_opts o = { .sz = sizeof(o), .target = PMT_COUNT_WORKLOAD };
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	fake_pmus(&pmus, 4);
	group_list(&l);
	l.ev[0].attr.sample_period = 4000; /* what a record parse leaves: cleared */
	l.ev[0].attr.flags |= PMT_ATTR_FLAG_FREQ;
	assert_int_equal(pmt_count_plan_build(&p, &l, &pmus, &o, &d), 0);
	assert_false(p.per_cpu);
	assert_int_equal(p.nr_cpus, 1);
	assert_int_equal(p.cpu[0], -1);
	/* create_perf_stat_counter(): ID|GROUP for group members, leaders disabled and
	 * enabled on exec, everything inherited, IDENTIFIER */
	assert_int_equal(p.ev.ev[0].attr.read_format, PMT_READ_TOTAL_ENABLED |
			 PMT_READ_TOTAL_RUNNING | PMT_READ_ID | PMT_READ_GROUP);
	assert_int_equal(p.ev.ev[1].attr.read_format, p.ev.ev[0].attr.read_format);
	assert_int_equal(p.ev.ev[2].attr.read_format,
			 PMT_READ_TOTAL_ENABLED | PMT_READ_TOTAL_RUNNING);
	assert_int_equal(p.ev.ev[0].attr.flags, PMT_ATTR_FLAG_DISABLED | PMT_ATTR_FLAG_INHERIT |
			 PMT_ATTR_FLAG_ENABLE_ON_EXEC);
	assert_int_equal(p.ev.ev[1].attr.flags, PMT_ATTR_FLAG_INHERIT);
	assert_int_equal(p.ev.ev[0].attr.sample_period, 0);
	assert_int_equal(p.ev.ev[0].attr.sample_type, PMT_SAMPLE_IDENTIFIER);
	assert_true(p.scale[0] == 1e-6 && !strcmp(p.unit[0], "msec"));
	assert_true(p.scale[1] == 1.0 && !strcmp(p.unit[1], ""));
	pmt_count_plan_fini(&p);

	group_list(&l);
	o = (struct pmt_count_opts){ .sz = sizeof(o), .target = PMT_COUNT_CPUS, .no_inherit = true,
				     .record_pipe = true };
	assert_int_equal(pmt_cpumask_parse("1,3", &o.cpus), 0);
	assert_int_equal(pmt_count_plan_build(&p, &l, &pmus, &o, &d), 0);
	assert_true(p.per_cpu);
	assert_int_equal(p.nr_cpus, 2);
	assert_int_equal(p.cpu[1], 3);
	assert_int_equal(p.ev.ev[0].attr.flags, PMT_ATTR_FLAG_DISABLED);
	assert_int_equal(p.ev.ev[0].attr.sample_type, 0); /* perf stat record to a pipe */
	pmt_count_plan_fini(&p);

	group_list(&l);
	assert_int_equal(pmt_cpumask_parse("7", &o.cpus), 0);
	assert_int_equal(pmt_count_plan_build(&p, &l, &pmus, &o, &d), -PMT_EINVAL);
	assert_non_null(strstr(d.msg, "CPU 7 is not online"));
	pmt_evlist_fini(&l); /* a refused plan leaves the events with the caller */
}

/* values[e][cpu] of one read, for the fake counter */
struct fake {
	struct pmt_count_value v[2][4];
};

static const struct fake four_cpus = { .v = {
	/* page-faults: multiplexed at half, at 2/3, never ran, always ran */
	{ { 1000, 200, 100 }, { 333, 300, 200 }, { 77, 50, 0 }, { 10, 50, 50 } },
	/* task-clock (ns): ran throughout */
	{ { 2000000, 2000000, 2000000 }, { 1500000, 1500000, 1500000 }, { 0, 0, 0 },
	  { 500000, 500000, 500000 } } } };

static const struct pmt_count_value *fake_get(void *ctx, uint32_t e, uint32_t ci, uint32_t ti)
{
	struct fake *f = ctx;

	(void)ti;
	return &f->v[e][ci];
}

static void plan4(struct pmt_count_plan *p)
{
	struct pmt_pmus pmus;
	struct pmt_evlist l = { 0 };
	struct pmt_count_opts o = { .sz = sizeof(o), .target = PMT_COUNT_SYSTEM };
	struct pmt_diag d = PMT_DIAG_INIT;

	fake_pmus(&pmus, 4);
	sw(&l, "page-faults", PMT_SW_PAGE_FAULTS)->leader = 0;
	sw(&l, "task-clock", PMT_SW_TASK_CLOCK)->leader = 1;
	l.ev[0].nr_members = l.ev[1].nr_members = 1;
	assert_int_equal(pmt_count_plan_build(p, &l, &pmus, &o, &d), 0);
}

static void test_scaling(void **state)
{
	/* CPUs 0,1 are core 0 and CPUs 2,3 core 1 of socket 0 */
	static const struct pmt_cpu_topo topo[4] = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 1 },
						     { 0, 0, 1 } };
	struct pmt_count_plan p;
	struct pmt_stat *s;
	struct fake f = four_cpus;
	const struct pmt_stat_cell *c;

	(void)state;
	plan4(&p);
	assert_int_equal(pmt_stat_new(&p, 1, PMT_AGGR_CORE, topo, &s), 0);
	assert_int_equal(pmt_stat_update(s, fake_get, &f, false), 0);
	assert_int_equal(pmt_stat_nr_units(s), 2);
	assert_string_equal(pmt_stat_unit_name(s, 0), "S0-D0-C0");
	assert_string_equal(pmt_stat_unit_name(s, 1), "S0-D0-C1");
	/* core 0: 1000 x 200/100 = 2000, plus (u64)(333 x 300/200 = 499.5) = 499 */
	c = pmt_stat_cell(s, 0, 0);
	assert_true(c->val == 2499.0);
	assert_int_equal(c->ena, 500);
	assert_int_equal(c->run, 300);
	assert_int_equal(c->nr, 2);
	assert_true(c->counted);
	/* core 1: a CPU of it never ran, so the core is not counted (perf's
	 * evsel__count_has_error(); perf 7.3's --per-core of an :R event, stat.retlat73) */
	c = pmt_stat_cell(s, 1, 0);
	assert_true(c->val == 0.0);
	assert_int_equal(c->ena, 0);
	assert_int_equal(c->run, 0);
	assert_false(c->counted);
	/* task-clock in msec: 3.5 ms on core 0 */
	c = pmt_stat_cell(s, 0, 1);
	assert_true(c->val > 3.4999999 && c->val < 3.5000001);
	assert_int_equal(c->ctrs, 2);
	/* a read of page-faults failed: perf 7.3 prints its ctrs 0, the CPUs opened stay */
	pmt_stat_set_unread(s, 0, true);
	assert_int_equal(pmt_stat_update(s, fake_get, &f, false), 0);
	assert_int_equal(pmt_stat_cell(s, 0, 0)->ctrs, 0);
	assert_int_equal(pmt_stat_cell(s, 0, 0)->nr, 2);
	assert_int_equal(pmt_stat_cell(s, 0, 1)->ctrs, 2);
	pmt_stat_set_unread(s, 0, false);
	assert_int_equal(pmt_stat_update(s, fake_get, &f, false), 0);
	assert_int_equal(pmt_stat_cell(s, 0, 0)->ctrs, 2);
	pmt_stat_free(s);

	/* interval: the second read's deltas; CPU 2 still never ran: not counted there */
	assert_int_equal(pmt_stat_new(&p, 1, PMT_AGGR_CPU, topo, &s), 0);
	assert_int_equal(pmt_stat_update(s, fake_get, &f, true), 0);
	f.v[0][0] = (struct pmt_count_value){ 1600, 400, 200 }; /* +600 in 200/100: 1200 */
	f.v[0][3] = (struct pmt_count_value){ 10, 100, 100 };   /* +0 */
	assert_int_equal(pmt_stat_update(s, fake_get, &f, true), 0);
	assert_int_equal(pmt_stat_nr_units(s), 4);
	assert_string_equal(pmt_stat_unit_name(s, 3), "CPU3");
	assert_true(pmt_stat_cell(s, 0, 0)->val == 1200.0);
	assert_false(pmt_stat_cell(s, 2, 0)->counted);
	assert_true(pmt_stat_cell(s, 3, 0)->counted && pmt_stat_cell(s, 3, 0)->val == 0.0);
	assert_false(pmt_stat_cell(s, 1, 0)->counted); /* CPU 1 did not move: 0 run */
	pmt_stat_free(s);
	pmt_count_plan_fini(&p);
}

/* perf 7.3's columns for a multiplexed total, -x and -j (stat-display.c) */
static void test_print(void **state)
{
	struct pmt_count_plan p;
	struct pmt_stat *s;
	struct fake f = four_cpus;
	struct pmt_stat_print_opts po = { .sz = sizeof(po) };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	plan4(&p);
	assert_int_equal(pmt_stat_new(&p, 1, PMT_AGGR_GLOBAL, NULL, &s), 0);
	assert_int_equal(pmt_stat_update(s, fake_get, &f, false), 0);
	fp = open_memstream(&buf, &len);
	pmt_stat_print(fp, s, &po);
	po.format = PMT_STAT_CSV;
	po.sep = ";";
	pmt_stat_print(fp, s, &po);
	po.format = PMT_STAT_JSON;
	pmt_stat_print(fp, s, &po);
	fclose(fp);
	/* run 350 of enabled 600: 58.33% */
	assert_string_equal(buf,
		"              2509      page-faults                                                           "
		"  (58.33%)\n"
		"              4.00 msec task-clock                                                            \n"
		"2509;;page-faults;350;58.33;;\n"
		"4.00;msec;task-clock;4000000;100.00;;\n"
		"{\"counter-value\" : \"2509.000000\", \"unit\" : \"\", \"event\" : \"page-faults\", "
		"\"event-runtime\" : 350, \"pcnt-running\" : 58.33}\n"
		"{\"counter-value\" : \"4.000000\", \"unit\" : \"msec\", \"event\" : \"task-clock\", "
		"\"event-runtime\" : 4000000, \"pcnt-running\" : 100.00}\n");
	free(buf);
	pmt_stat_free(s);
	pmt_count_plan_fini(&p);
}

/* The kernel's group read: one enabled/running pair for the group, members found by id */
static void test_group_read_kernel(void **state)
{
	struct pmt_pmus pmus;
	struct pmt_evlist l;
	struct pmt_count_plan p;
	struct pmt_count_opts o = { .sz = sizeof(o), .target = PMT_COUNT_TID };
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_counter *c;
	const int32_t self = 0;
	const struct pmt_count_value *tc, *pf, *cs;
	volatile char *mem;
	int rc;

	(void)state;
	fake_pmus(&pmus, 1);
	group_list(&l);
	assert_int_equal(pmt_count_plan_build(&p, &l, &pmus, &o, &d), 0);
	rc = pmt_counter_open(&p, &self, 1, false, &c, &d);
	if (rc == -PMT_EPERM) {
		pmt_count_plan_fini(&p);
		skip(); /* perf_event_paranoid forbids even self-counting here */
	}
	assert_int_equal(rc, 0);
	assert_int_equal(pmt_counter_enable(c, true), 0);
	mem = malloc(64 << 20);
	assert_non_null(mem);
	for (size_t i = 0; i < (64u << 20); i += 4096)
		mem[i] = 1; /* 16k first touches: page faults */
	assert_int_equal(pmt_counter_enable(c, false), 0);
	assert_int_equal(pmt_counter_read(c), 0);
	tc = pmt_counter_value(c, 0, 0, 0);
	pf = pmt_counter_value(c, 1, 0, 0);
	cs = pmt_counter_value(c, 2, 0, 0);
	assert_true(pmt_counter_id(c, 0, 0, 0) != pmt_counter_id(c, 1, 0, 0));
	assert_true(tc->val > 0 && tc->ena > 0);
	assert_true(pf->val >= 1000); /* malloc of 64 MiB is mmap'd: at least most pages */
	/* one read of the leader carries the group's times */
	assert_int_equal(pf->ena, tc->ena);
	assert_int_equal(pf->run, tc->run);
	assert_true(cs->ena > 0);
	free((void *)mem);
	pmt_counter_free(c);
	pmt_count_plan_fini(&p);
}

/* -r: perf's util/stat.c statistics. Runs of 10, 12 and 17 page faults: mean 13, sample
 * variance ((9 + 1 + 16) / 2) = 13, stddev of the mean sqrt(13 / 3) = 2.0817, noise
 * 100 * 2.0817 / 13 = 16.01% (by hand); the printed count is the mean as an integer. */
static void test_runs(void **state)
{
	struct pmt_count_plan p;
	struct pmt_stat *s;
	struct fake f = four_cpus;
	struct pmt_run_stats r = { 0 };
	static const uint64_t pf[3] = { 10, 12, 17 };
	const struct pmt_stat_cell *c;

	(void)state;
	pmt_run_stats_add(&r, 10);
	assert_true(pmt_run_stats_stddev(&r) == 0); /* one run: no spread */
	pmt_run_stats_add(&r, 12);
	pmt_run_stats_add(&r, 17);
	assert_true(fabs(r.mean - 13) < 1e-12);
	assert_true(fabs(pmt_run_stats_stddev(&r) - sqrt(13.0 / 3)) < 1e-12);
	assert_true(fabs(pmt_run_stats_noise_pct(&r) - 100 * sqrt(13.0 / 3) / 13) < 1e-12);
	plan4(&p);
	assert_int_equal(pmt_stat_new(&p, 1, PMT_AGGR_GLOBAL, NULL, &s), 0);
	for (int i = 0; i < 3; i++) {
		/* CPU 3 alone counts page faults; task-clock 1, 2, 3 ms on CPU 0 */
		memset(&f, 0, sizeof(f));
		f.v[0][3] = (struct pmt_count_value){ pf[i], 50, 50 };
		f.v[1][0] = (struct pmt_count_value){ 1000000 * (uint64_t)(i + 1), 5, 5 };
		assert_int_equal(pmt_stat_update(s, fake_get, &f, false), 0);
		assert_int_equal(pmt_stat_add_run(s), 0);
	}
	pmt_stat_end_runs(s);
	c = pmt_stat_cell(s, 0, 0);
	assert_true(c->val == 13.0);
	assert_true(fabs(c->noise - 16.012815) < 1e-6);
	/* task-clock: mean 2e6 ns -> 2.00 msec; stddev of the mean sqrt(1e12 / 3) = 577350 */
	c = pmt_stat_cell(s, 0, 1);
	assert_true(fabs(c->val - 2.0) < 1e-9);
	assert_true(fabs(c->noise - 100 * 577350.2691896 / 2e6) < 1e-6);
	pmt_stat_free(s);
	pmt_count_plan_fini(&p);
}

/* A weak group the kernel refuses as a group (a pinned member: EINVAL) is split and both
 * counted; the same group without W keeps the member unsupported. */
static void test_weak_group_kernel(void **state)
{
	struct pmt_pmus pmus;
	struct pmt_evlist l = { 0 };
	struct pmt_count_plan p;
	struct pmt_count_opts o = PMT_OPTS_INIT(pmt_count_opts, .target = PMT_COUNT_TID);
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_counter *c;
	const int32_t self = 0;
	int rc;

	(void)state;
	for (int weak = 1; weak >= 0; weak--) {
		fake_pmus(&pmus, 1);
		memset(&l, 0, sizeof(l));
		sw(&l, "task-clock", PMT_SW_TASK_CLOCK)->leader = 0;
		sw(&l, "page-faults:D", PMT_SW_PAGE_FAULTS)->leader = 0;
		l.ev[0].nr_members = 2;
		l.ev[1].attr.flags |= PMT_ATTR_FLAG_PINNED;
		l.ev[0].weak_group = l.ev[1].weak_group = weak;
		assert_int_equal(pmt_count_plan_build(&p, &l, &pmus, &o, &d), 0);
		rc = pmt_counter_open_weak(&p, &self, 1, true, &c, &d);
		if (rc == -PMT_EPERM) {
			pmt_count_plan_fini(&p);
			skip();
		}
		assert_int_equal(rc, 0);
		assert_true(pmt_counter_supported(c, 0));
		assert_int_equal(pmt_counter_supported(c, 1), weak);
		/* split: each its own leader, read alone, disabled until enabled */
		assert_int_equal(p.ev.ev[1].leader, weak ? 1 : 0);
		if (weak) {
			assert_int_equal(p.ev.ev[1].attr.read_format & PMT_READ_GROUP, 0);
			assert_true(p.ev.ev[1].attr.flags & PMT_ATTR_FLAG_DISABLED);
			assert_int_equal(pmt_counter_enable(c, true), 0);
			assert_int_equal(pmt_counter_read(c), 0);
			assert_true(pmt_counter_value(c, 1, 0, 0)->ena > 0);
		}
		pmt_counter_free(c);
		pmt_count_plan_fini(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_attrs),
		cmocka_unit_test(test_scaling),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_group_read_kernel),
		cmocka_unit_test(test_runs),
		cmocka_unit_test(test_weak_group_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
