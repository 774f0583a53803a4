/* record/discovery and record/events: sysfs PMUs, format files, perf's event syntax.
 * Expected attr values are those perf 7.3 prints for the same strings (see
 * tests/oracles/record_attrs.sh, which compares whole command lines). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmutrace/events.h"
#include "pmutrace/pmu.h"
#include "pmutrace/record.h"

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* a sysfs tree with two SPE PMUs (CPUs 0-1 and 2-3) under a temporary root */
static char root[64];
/* events point into their PMU set: it lives as long as the test's evlists */
static struct pmt_pmus parse_set;
static void make_pmu(const char *name, const char *type, const char *cpus, const char *min)
{
	static const char *const fmts[][2] = {
		{ "ts_enable", "config:0" }, { "pa_enable", "config:1" },
		{ "load_filter", "config:33" }, { "store_filter", "config:34" },
		{ "discard", "config:35" }, { "event_filter", "config1:0-63" },
		{ "min_latency", "config2:0-11\n" }, { "inv_event_filter", "config3:0-63" },
		{ "split", "config:4-5,8,12-13" },
	};
	char d[256];

	snprintf(d, sizeof(d), "%s/bus/event_source/devices/%s", root, name);
	assert_int_equal(mkdir(d, 0755), 0);
	put(d, "type", type);
	put(d, "cpumask", cpus);
	strcat(d, "/format");
	assert_int_equal(mkdir(d, 0755), 0);
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		put(d, fmts[i][0], fmts[i][1]);
	snprintf(d, sizeof(d), "%s/bus/event_source/devices/%s/caps", root, name);
	assert_int_equal(mkdir(d, 0755), 0);
	put(d, "min_interval", min);
}

static int setup(void **state)
{
	char d[256];

	(void)state;
	strcpy(root, "/tmp/pmt_sysfs_XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(d, sizeof(d), "mkdir -p %s/bus/event_source/devices %s/devices/system/cpu", root,
		 root);
	assert_int_equal(system(d), 0);
	snprintf(d, sizeof(d), "%s/devices/system/cpu", root);
	put(d, "online", "0-3\n");
	make_pmu("arm_spe_0", "8\n", "0-1\n", "1024\n");
	make_pmu("arm_spe_1", "9\n", "2-3\n", "256\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	pmt_pmus_fini(&parse_set);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void formats_place_value_bits_in_order(void **state)
{
	struct pmt_pmu_format f;
	uint64_t cfg[5] = { 0, 0, 0, 0, 0 }, max = 0;

	(void)state;
	assert_int_equal(pmt_pmu_format_parse("config:4-5,8,12-13\n", &f), 0);
	assert_int_equal(f.word, 0);
	assert_true(pmt_pmu_format_mask(&f) == 0x3130);
	/* value bits 0-1 -> 4-5, bit 2 -> 8, bits 3-4 -> 12-13 (perf's pmu_format_value) */
	assert_int_equal(pmt_pmu_format_apply(&f, 0x1d, cfg, &max), 0);
	assert_true(cfg[0] == ((1ULL << 4) | (1ULL << 8) | (1ULL << 12) | (1ULL << 13)));
	assert_int_equal(pmt_pmu_format_apply(&f, 0x20, cfg, &max), -PMT_ERANGE);
	assert_true(max == 31);
	assert_int_equal(pmt_pmu_format_parse("config2:0-11", &f), 0);
	assert_int_equal(f.word, 2);
	assert_int_equal(pmt_pmu_format_parse("config1", &f), 0);
	assert_true(pmt_pmu_format_mask(&f) == ~0ULL);
	assert_int_equal(pmt_pmu_format_parse("config1:0-63", &f), 0);
	assert_int_equal(pmt_pmu_format_apply(&f, ~0ULL, cfg, NULL), 0);
	assert_true(cfg[1] == ~0ULL);
	assert_int_equal(pmt_pmu_format_parse("config5:0", &f), -PMT_EPARSE);
	assert_int_equal(pmt_pmu_format_parse("config:3-1", &f), -PMT_EPARSE);
	assert_int_equal(pmt_pmu_format_parse("config:64", &f), -PMT_EPARSE);
	assert_int_equal(pmt_pmu_format_parse("cfg:1", &f), -PMT_EPARSE);
	assert_int_equal(pmt_pmu_format_parse("config:1,", &f), -PMT_EPARSE);
}

static void cpumasks_parse_sysfs_lists(void **state)
{
	struct pmt_cpumask m;

	(void)state;
	assert_int_equal(pmt_cpumask_parse("0-3,8,4094-4095\n", &m), 0);
	assert_int_equal(pmt_cpumask_count(&m), 7);
	assert_int_equal(pmt_cpumask_next(&m, 4), 8);
	assert_int_equal(pmt_cpumask_next(&m, 9), 4094);
	assert_true(pmt_cpumask_has(&m, 3) && !pmt_cpumask_has(&m, 4));
	assert_int_equal(pmt_cpumask_parse("3-1", &m), -PMT_EPARSE);
	assert_int_equal(pmt_cpumask_parse("4096", &m), -PMT_EPARSE);
	assert_int_equal(pmt_cpumask_parse("1;2", &m), -PMT_EPARSE);
}

static void pmus_load_from_the_root_given(void **state)
{
	struct pmt_pmus set;
	const struct pmt_pmu *p;
	uint64_t v;

	(void)state;
	assert_int_equal(pmt_pmus_load(&set, root, NULL), 0);
	assert_int_equal(set.nr, 2);
	p = pmt_pmus_find(&set, "arm_spe_1");
	assert_non_null(p);
	assert_int_equal(p->type, 9);
	assert_true(p->has_cpus && pmt_cpumask_has(&p->cpus, 2) && !pmt_cpumask_has(&p->cpus, 1));
	assert_int_equal(pmt_pmu_cap_u64(p, "min_interval", &v), 0);
	assert_true(v == 256);
	assert_int_equal(pmt_pmu_cap_u64(p, "ernd", &v), -PMT_ENOT_FOUND);
	assert_int_equal(pmt_cpumask_count(&set.online), 4);
	pmt_pmus_fini(&set);
	setenv("SYSFS_PATH", root, 1);
	assert_string_equal(pmt_sysfs_root(), root);
	unsetenv("SYSFS_PATH");
	assert_string_equal(pmt_sysfs_root(), "/sys");
}

static int parse(const char *s, struct pmt_evlist *l, struct pmt_diag *d)
{
	if (!parse_set.nr)
		assert_int_equal(pmt_pmus_load(&parse_set, root, NULL), 0);
	memset(l, 0, sizeof(*l));
	return pmt_events_parse(l, &parse_set, s, d);
}

static void events_take_terms_and_modifiers(void **state)
{
	struct pmt_evlist l;
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	/* the values perf 7.3 -vv prints for this string */
	assert_int_equal(parse("arm_spe_0/ts_enable=1,load_filter,min_latency=20,"
			       "inv_event_filter=0x4/u,cpu-clock:k", &l, &d), 0);
	assert_int_equal(l.nr, 2);
	assert_int_equal(l.ev[0].attr.type, 8);
	assert_true(l.ev[0].attr.config == 0x200000001ULL);
	assert_true(l.ev[0].attr.config2 == 0x14 && l.ev[0].attr.config3 == 0x4);
	assert_true((l.ev[0].attr.flags & (PMT_ATTR_FLAG_EXCLUDE_KERNEL | PMT_ATTR_FLAG_EXCLUDE_HV |
					   PMT_ATTR_FLAG_EXCLUDE_USER)) ==
		    (PMT_ATTR_FLAG_EXCLUDE_KERNEL | PMT_ATTR_FLAG_EXCLUDE_HV));
	assert_true(pmt_evsel_term_set(&l.ev[0], "load_filter"));
	assert_false(pmt_evsel_term_set(&l.ev[0], "pa_enable"));
	assert_int_equal(l.ev[1].attr.type, PMT_TYPE_SOFTWARE);
	assert_true(l.ev[1].attr.flags & PMT_ATTR_FLAG_EXCLUDE_USER);
	pmt_evlist_fini(&l);
	/* a name without _N means every arm_spe_N */
	assert_int_equal(parse("arm_spe/period=4096/ppp", &l, &d), 0);
	assert_int_equal(l.nr, 2);
	assert_int_equal(l.ev[1].attr.type, 9);
	assert_true(l.ev[1].period_set && l.ev[1].attr.sample_period == 4096);
	assert_int_equal((l.ev[1].attr.flags >> PMT_ATTR_PRECISE_SHIFT) & 3, 3);
	pmt_evlist_fini(&l);
}

static void events_refuse_with_the_reason(void **state)
{
	struct pmt_evlist l;
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	assert_int_equal(parse("arm_spe_0/foo=1/", &l, &d), -PMT_EPARSE);
	assert_non_null(strstr(d.msg, "unknown term 'foo' for PMU 'arm_spe_0'"));
	assert_non_null(strstr(d.msg, "load_filter") && strstr(d.msg, "config4,name,period"));
	pmt_evlist_fini(&l);
	assert_int_equal(parse("arm_spe_0/min_latency=4096/", &l, &d), -PMT_ERANGE);
	assert_non_null(strstr(d.msg, "value too big for format (min_latency), maximum is 4095"));
	pmt_evlist_fini(&l);
	assert_int_equal(parse("arm_spe_0/load_filter=x/", &l, &d), -PMT_EPARSE);
	assert_non_null(strstr(d.msg, "'x' is not a number"));
	pmt_evlist_fini(&l);
	assert_int_equal(parse("nope//", &l, &d), -PMT_ENO_PMU);
	assert_non_null(strstr(d.msg, "arm_spe_0 arm_spe_1"));
	pmt_evlist_fini(&l);
	assert_int_equal(parse("arm_spe_0//q", &l, &d), -PMT_EPARSE);
	pmt_evlist_fini(&l);
	assert_int_equal(parse("arm_spe_0/load_filter", &l, &d), -PMT_EPARSE);
	pmt_evlist_fini(&l);
	assert_int_equal(parse("{cpu-clock,{dummy}}", &l, &d), -PMT_EPARSE);
	assert_non_null(strstr(d.msg, "groups do not nest"));
	pmt_evlist_fini(&l);
	assert_int_equal(parse("cpu-clocks", &l, &d), -PMT_ENOT_FOUND);
	pmt_evlist_fini(&l);
	assert_int_equal(parse("cpu-clock,,dummy", &l, &d), -PMT_EPARSE);
	pmt_evlist_fini(&l);
}

static void plan_sizes_the_aux_area_as_perf(void **state)
{
	struct pmt_pmus set;
	struct pmt_evlist l = { 0 };
	struct pmt_record_plan p;
	struct pmt_record_opts o = { .sz = sizeof(o), .page_size = 4096 };
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	assert_int_equal(pmt_pmus_load(&set, root, NULL), 0);
	/* unprivileged: 128 KiB AUX and a 256 KiB data ring (arm_spe_recording_options) */
	assert_int_equal(pmt_events_parse(&l, &set, "arm_spe_1//", &d), 0);
	assert_int_equal(pmt_record_plan_build(&p, &l, &set, &o, &d), 0);
	assert_int_equal(p.aux_pages, 32);
	assert_int_equal(p.mmap_pages, 64);
	/* each PMU's own min_interval (perf takes the first PMU's for all) */
	assert_true(p.ev.ev[0].attr.sample_period == 256);
	assert_int_equal(p.ev.nr, 2);
	assert_true(p.ev.ev[1].added && p.ev.ev[1].tracking);
	pmt_record_plan_fini(&p);
	o.privileged = true;
	assert_int_equal(pmt_events_parse(&l, &set, "arm_spe_0//", &d), 0);
	assert_int_equal(pmt_record_plan_build(&p, &l, &set, &o, &d), 0);
	assert_int_equal(p.aux_pages, 1024);
	pmt_record_plan_fini(&p);
	o.snapshot = true;
	o.aux_pages = 4;
	o.snapshot_size = 65536;
	assert_int_equal(pmt_events_parse(&l, &set, "arm_spe_0//", &d), 0);
	assert_int_equal(pmt_record_plan_build(&p, &l, &set, &o, &d), -PMT_EINVAL);
	assert_non_null(strstr(d.msg, "snapshot size 65536"));
	pmt_record_plan_fini(&p);
	o.snapshot = false;
	o.aux_pages = 1; /* 4 KiB: below the driver's 8 KiB */
	assert_int_equal(pmt_events_parse(&l, &set, "arm_spe_0//", &d), 0);
	assert_int_equal(pmt_record_plan_build(&p, &l, &set, &o, &d), -PMT_EINVAL);
	pmt_record_plan_fini(&p);
	pmt_pmus_fini(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(formats_place_value_bits_in_order),
		cmocka_unit_test(cpumasks_parse_sysfs_lists),
		cmocka_unit_test(pmus_load_from_the_root_given),
		cmocka_unit_test(events_take_terms_and_modifiers),
		cmocka_unit_test(events_refuse_with_the_reason),
		cmocka_unit_test(plan_sizes_the_aux_area_as_perf),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
