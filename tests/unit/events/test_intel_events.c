/* record/events on Intel PMUs: cache names, sysfs aliases, raw events, groups, topdown,
 * hybrid expansion and JSON tables. Expected values are those x86 perf 7.3 prints for the
 * same strings on the same fake sysfs trees (tests/oracles/fake_intel_sysfs.sh; whole
 * command lines are compared in tests/oracles/intel_attrs.sh) and, for the tables, the
 * encodings `perf list --details` gives under PERF_CPUID=GenuineIntel-6-AD-0. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/events.h"
#include "pmutrace/pmu.h"

static char root[64];
static struct pmt_pmus gnr, hybrid;

static int setup(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/pmt_intel_XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "sh %s/tests/oracles/fake_intel_sysfs.sh %s/gnr gnr && "
		 "sh %s/tests/oracles/fake_intel_sysfs.sh %s/hybrid hybrid",
		 PMT_SOURCE_DIR, root, PMT_SOURCE_DIR, root);
	if (system(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/gnr", root);
	if (pmt_pmus_load(&gnr, cmd, NULL) < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/hybrid", root);
	if (pmt_pmus_load(&hybrid, cmd, NULL) < 0)
		return -1;
	/* what perf's probe finds on a kernel that takes extended types */
	hybrid.extended_type = true;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	pmt_pmus_fini(&gnr);
	pmt_pmus_fini(&hybrid);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) ? -1 : 0;
}

static int parse(const struct pmt_pmus *set, const char *s, struct pmt_evlist *l,
		 const struct pmt_events_opts *o, struct pmt_diag *d)
{
	memset(l, 0, sizeof(*l));
	return pmt_events_parse_opts(l, set, s, o, d);
}

static void cache_names_decode_as_perf(void **state)
{
	static const struct {
		const char *name;
		uint64_t config;
	} ok[] = {
		{ "L1-dcache-load-misses", 0x10000 }, { "LLC-loads", 0x2 },
		{ "dTLB-load-misses", 0x10003 },      { "branch-loads", 0x5 },
		{ "l1d-loads", 0 },                   { "LLC-store-misses", 0x10102 },
		{ "L1-dcache-prefetch-misses", 0x10200 }, { "node-loads", 0x6 },
		{ "branch-miss", 0x10005 },           { "L1-icache", 0x1 },
		{ "iTLB-load-misses", 0x10004 },
	};
	/* perf 7.3: "event syntax error" (the instruction cache has no stores) */
	static const char *const bad[] = { "L1-icache-stores", "LLC-loads-loads", "LLCx" };
	struct pmt_evlist l;
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(parse(&gnr, ok[i].name, &l, NULL, &d), 0);
		assert_int_equal(l.nr, 1);
		assert_int_equal(l.ev[0].attr.type, PMT_TYPE_HW_CACHE);
		assert_true(l.ev[0].attr.config == ok[i].config);
		pmt_evlist_fini(&l);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&gnr, bad[i], &l, NULL, &d), -PMT_ENOT_FOUND);
		pmt_evlist_fini(&l);
	}
}

static void aliases_raw_and_terms(void **state)
{
	struct pmt_evlist l;
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	assert_int_equal(parse(&gnr, "cycles,instructions,r1c2,r0x2c2:u,cpu/mem-loads,ldlat=30/",
			       &l, NULL, &d), 0);
	assert_int_equal(l.nr, 5);
	assert_int_equal(l.ev[0].attr.type, PMT_TYPE_HARDWARE);
	assert_true(l.ev[0].attr.config == 0);
	/* perf 7.3: the sysfs alias events/instructions wins over the hardware event */
	assert_int_equal(l.ev[1].attr.type, 4);
	assert_true(l.ev[1].attr.config == 0xc0);
	assert_int_equal(l.ev[2].attr.type, PMT_TYPE_RAW);
	assert_true(l.ev[2].attr.config == 0x1c2 && l.ev[3].attr.config == 0x2c2);
	assert_true(l.ev[3].attr.flags & PMT_ATTR_FLAG_EXCLUDE_KERNEL);
	/* the alias's ldlat=3 and the term's 30 are packed over each other: 31 */
	assert_true(l.ev[4].attr.config == 0x1cd && l.ev[4].attr.config1 == 0x1f);
	pmt_evlist_fini(&l);
	assert_int_equal(parse(&gnr, "cpu/event=0xc2,umask=0x2,inv,cmask=2,edge/", &l, NULL, &d),
			 0);
	assert_true(l.ev[0].attr.config == 0x28402c2);
	pmt_evlist_fini(&l);
}

static void groups_and_topdown(void **state)
{
	struct pmt_evlist l;
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	assert_int_equal(parse(&gnr, "{cycles,instructions}:S,cache-misses", &l, NULL, &d), 0);
	assert_int_equal(l.nr, 3);
	assert_int_equal(l.ev[0].leader, 0);
	assert_int_equal(l.ev[0].nr_members, 2);
	assert_int_equal(l.ev[1].leader, 0);
	assert_true(l.ev[0].sample_read && l.ev[1].sample_read && !l.ev[2].sample_read);
	assert_int_equal(l.ev[2].leader, 2);
	assert_int_equal(l.ev[2].nr_members, 1);
	pmt_evlist_fini(&l);
	/* topdown metrics get slots as their leader, with their privilege levels */
	assert_int_equal(parse(&gnr, "topdown-retiring:u,topdown-bad-spec:u", &l, NULL, &d), 0);
	assert_int_equal(l.nr, 3);
	assert_true(l.ev[0].attr.config == 0x400 && l.ev[1].attr.config == 0x8000 &&
		    l.ev[2].attr.config == 0x8100);
	assert_int_equal(l.ev[0].nr_members, 3);
	assert_true(l.ev[0].attr.flags & PMT_ATTR_FLAG_EXCLUDE_KERNEL);
	assert_int_equal(l.ev[2].leader, 0);
	pmt_evlist_fini(&l);
	/* in a group slots goes first */
	assert_int_equal(parse(&gnr, "{instructions,topdown-retiring}", &l, NULL, &d), 0);
	assert_int_equal(l.nr, 3);
	assert_true(l.ev[0].attr.config == 0x400 && l.ev[1].attr.config == 0xc0);
	assert_int_equal(l.ev[0].nr_members, 3);
	pmt_evlist_fini(&l);
	/* perf 7.3 moves a group's :R events after the others (and says it regrouped) */
	assert_int_equal(parse(&gnr, "{cycles:R,instructions}:S", &l, NULL, &d), 0);
	assert_true(l.ev[0].attr.config == 0xc0 && l.ev[1].retire_lat);
	assert_int_equal(l.ev[0].nr_members, 2);
	assert_true(l.regrouped);
	pmt_evlist_fini(&l);
	/* a software leader keeps its group with a hardware member */
	assert_int_equal(parse(&gnr, "{cpu-clock,cycles}:S", &l, NULL, &d), 0);
	assert_int_equal(l.ev[0].attr.type, PMT_TYPE_SOFTWARE);
	assert_int_equal(l.ev[0].nr_members, 2);
	assert_false(l.regrouped);
	pmt_evlist_fini(&l);
	assert_int_equal(parse(&gnr, "{cycles,instructions}:W,cycles:R", &l, NULL, &d), 0);
	assert_true(l.ev[0].weak_group && l.ev[2].retire_lat && !l.ev[0].retire_lat);
	pmt_evlist_fini(&l);
}

/* perf_pmu__is_software(): an msr event stays in a group of core events (perf 7.3 opens
 * GNR's TopdownL4 groups with msr/tsc/ as a member) */
static void msr_joins_core_groups(void **state)
{
	struct pmt_pmus pmus;
	struct pmt_evlist l;
	struct pmt_diag d = PMT_DIAG_INIT;
	char cmd[512];

	(void)state;
	snprintf(cmd, sizeof(cmd), "sh %s/tests/oracles/fake_intel_sysfs.sh %s/msr gnr && "
		 "d=%s/msr/bus/event_source/devices/msr && mkdir -p $d/events $d/format && "
		 "echo 9 >$d/type && echo event=0x00 >$d/events/tsc && "
		 "echo config:0-63 >$d/format/event", PMT_SOURCE_DIR, root, root);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/msr", root);
	assert_true(pmt_pmus_load(&pmus, cmd, NULL) >= 0);
	assert_int_equal(parse(&pmus, "{cycles,msr/tsc/}:W", &l, NULL, &d), 0);
	assert_int_equal(l.nr, 2);
	assert_int_equal(l.ev[0].nr_members, 2);
	assert_int_equal(l.ev[1].leader, 0);
	assert_int_equal(l.ev[1].attr.type, 9);
	assert_false(l.regrouped);
	pmt_evlist_fini(&l);
	pmt_pmus_fini(&pmus);
}

/* perf 7.3's tool PMU: duration_time has no PMU of sysfs, perf's type and config, and is
 * its own leader beside core events (perf stat -vv prints type 4294967294, config 0x1) */
static void duration_time_is_a_tool_event(void **state)
{
	struct pmt_evlist l;
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	assert_int_equal(parse(&gnr, "slots,duration_time", &l, NULL, &d), 0);
	assert_int_equal(l.nr, 2);
	assert_null(l.ev[1].pmu);
	assert_int_equal(l.ev[1].attr.type, 4294967294u);
	assert_int_equal(l.ev[1].attr.config, 1);
	assert_string_equal(l.ev[1].name, "duration_time");
	assert_true(pmt_evsel_tool(&l.ev[1]));
	assert_false(pmt_evsel_tool(&l.ev[0]));
	assert_string_equal(l.cpus_warning, "");
	pmt_evlist_fini(&l);
	/* in a group: sorted as a software event, then out of the group (perf stat -a) */
	assert_int_equal(parse(&gnr, "{duration_time,slots}", &l, NULL, &d), 0);
	assert_int_equal(l.nr, 2);
	assert_string_equal(l.ev[0].name, "slots");
	assert_int_equal(l.ev[0].nr_members, 1);
	assert_int_equal(l.ev[1].leader, 1);
	assert_true(l.regrouped);
	assert_string_equal(l.cpus_warning, "  anon group { slots, duration_time }\n");
	pmt_evlist_fini(&l);
	assert_int_equal(parse(&gnr, "{task-clock,duration_time,slots}", &l, NULL, &d), 0);
	assert_int_equal(l.nr, 3);
	assert_int_equal(l.ev[0].nr_members, 2);
	assert_int_equal(l.ev[1].leader, 0);
	assert_string_equal(l.ev[1].name, "task-clock");
	assert_int_equal(l.ev[2].leader, 2);
	assert_string_equal(l.cpus_warning, "  anon group { slots, task-clock, duration_time }\n");
	pmt_evlist_fini(&l);
}

static void hybrid_events_per_core_pmu(void **state)
{
	struct pmt_evlist l;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_events_opts o = { .sz = sizeof(o), .cputype = "atom" };

	(void)state;
	assert_int_equal(parse(&hybrid, "cycles,LLC-loads", &l, NULL, &d), 0);
	assert_int_equal(l.nr, 4);
	/* cpu_atom (type 10) sorts before cpu_core (type 4), as perf opens them */
	assert_true(l.ev[0].attr.config == 0xa00000000ULL);
	assert_true(l.ev[1].attr.config == 0x400000000ULL);
	assert_true(l.ev[2].attr.config == 0xa00000002ULL && l.ev[2].attr.type == 3);
	assert_string_equal(l.ev[0].name, "cpu_atom/cycles/");
	assert_false(l.regrouped);
	pmt_evlist_fini(&l);
	/* one group per PMU, said */
	assert_int_equal(parse(&hybrid, "{cycles,instructions}", &l, NULL, &d), 0);
	assert_int_equal(l.nr, 4);
	assert_true(l.ev[0].attr.config == 0xa00000000ULL && l.ev[1].attr.type == 10);
	assert_int_equal(l.ev[0].nr_members, 2);
	assert_int_equal(l.ev[2].nr_members, 2);
	assert_int_equal(l.ev[3].leader, 2);
	assert_true(l.regrouped);
	pmt_evlist_fini(&l);
	assert_int_equal(parse(&hybrid, "cycles", &l, &o, &d), 0);
	assert_int_equal(l.nr, 1);
	assert_true(l.ev[0].attr.config == 0xa00000000ULL);
	/* perf 7.3's stat names it after its PMU (cpu_atom/cycles/ in stat -x,) */
	assert_string_equal(l.ev[0].name, "cpu_atom/cycles/");
	pmt_evlist_fini(&l);
	/* a raw event: cpu_core's alone (PERF_TYPE_RAW is its type), whatever --cputype says
	 * (perf 7.3 stat -a prints cpu_core/r3c/ counted on CPUs 0-7) */
	o.cputype = "cpu_atom";
	assert_int_equal(parse(&hybrid, "r3c:u", &l, &o, &d), 0);
	assert_int_equal(l.nr, 1);
	assert_true(l.ev[0].attr.type == 4 && l.ev[0].attr.config == 0x3c);
	assert_string_equal(l.ev[0].pmu->name, "cpu_core");
	assert_string_equal(l.ev[0].name, "cpu_core/r3c/u");
	pmt_evlist_fini(&l);
	assert_int_equal(parse(&gnr, "r3c", &l, NULL, &d), 0);
	assert_null(l.ev[0].pmu);
	assert_string_equal(l.ev[0].name, "r3c");
	pmt_evlist_fini(&l);
	o.cputype = "lowpower"; /* no cpu_lowpower in this tree (Arrow Lake-H has one) */
	assert_int_equal(parse(&hybrid, "cycles", &l, &o, &d), -PMT_ENO_PMU);
	assert_non_null(strstr(d.msg, "--cputype lowpower is not supported"));
	pmt_evlist_fini(&l);
	/* without the kernel's extended types: the plain config on each PMU */
	hybrid.extended_type = false;
	assert_int_equal(parse(&hybrid, "cycles", &l, NULL, &d), 0);
	hybrid.extended_type = true;
	assert_int_equal(l.nr, 2);
	assert_true(l.ev[0].attr.config == 0 && l.ev[1].attr.config == 0);
	pmt_evlist_fini(&l);
	o.cputype = "core";
	assert_int_equal(parse(&gnr, "cycles", &l, &o, &d), -PMT_ENO_PMU);
	assert_non_null(strstr(d.msg, "no core PMU core or cpu_core"));
	pmt_evlist_fini(&l);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void tables_map_fields_as_jevents(void **state)
{
	struct pmt_event_table *t = NULL;
	struct pmt_evlist l;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_events_opts o = { .sz = sizeof(o) };
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/fixtures/events/gnr_small.json", PMT_SOURCE_DIR);
	assert_int_equal(pmt_event_table_load(&t, path, &d), 1);
	assert_int_equal(pmt_event_table_size(t), 7); /* the metric is no event */
	o.table = t;
	assert_int_equal(parse(&gnr, "inst_retired.any,OCR.DEMAND_DATA_RD.L3_MISS,"
				     "frontend_retired.dsb_miss:pp", &l, &o, &d), 0);
	assert_int_equal(l.nr, 3);
	/* perf list --details: cpu/event=0xc0,period=2000003/ */
	assert_true(l.ev[0].attr.config == 0xc0 && l.ev[0].attr.sample_period == 2000003);
	assert_true(l.ev[0].period_set);
	/* cpu/event=0x2a,period=100003,umask=1,offcore_rsp=0x3FBFC00001/ */
	assert_true(l.ev[1].attr.config == 0x12a && l.ev[1].attr.config1 == 0x3FBFC00001ULL);
	/* cpu/event=0xc6,period=100007,umask=3,frontend=0x11/ */
	assert_true(l.ev[2].attr.config == 0x3c6 && l.ev[2].attr.config1 == 0x11);
	pmt_evlist_fini(&l);
	/* a metric's EVENT@offcore_rsp\=..@: the table's event with those terms first, its own
	 * offcore_rsp after them winning, as in perf 7.3's attr (config1 0x3f3fc00002 for
	 * GNR's OCR.DEMAND_RFO.L3_MISS/offcore_rsp=0x103b800002/) */
	assert_int_equal(parse(&gnr, "OCR.DEMAND_DATA_RD.L3_MISS/offcore_rsp=0x1/", &l, &o, &d), 0);
	assert_int_equal(l.nr, 1);
	assert_true(l.ev[0].attr.config == 0x12a && l.ev[0].attr.config1 == 0x3FBFC00001ULL);
	assert_string_equal(l.ev[0].name, "OCR.DEMAND_DATA_RD.L3_MISS/offcore_rsp=0x1/");
	pmt_evlist_fini(&l);
	/* Intel perfmon's layout: an object with Events */
	snprintf(path, sizeof(path), "%s/perfmon.json", root);
	write_file(path, "{\"Header\": {\"Info\": \"x\"}, \"Events\": [{\"EventCode\": \"0xD1\", "
	      "\"UMask\": \"0x08\", \"EventName\": \"MEM_LOAD_RETIRED.L1_MISS\", "
	      "\"CounterMask\": \"0\", \"Invert\": \"0\", \"EdgeDetect\": \"0\", "
	      "\"MSRIndex\": \"0x00\", \"MSRValue\": \"0x00\", \"SampleAfterValue\": "
	      "\"1000003\"}, {\"EventCode\": \"0x00\", \"UMask\": \"0x01\", \"EventName\": "
	      "\"INST_RETIRED.ANY\", \"Counter\": \"Fixed counter 0\"}]}");
	assert_int_equal(pmt_event_table_load(&t, path, &d), 1);
	assert_int_equal(parse(&gnr, "mem_load_retired.l1_miss", &l, &o, &d), 0);
	assert_true(l.ev[0].attr.config == 0x8d1 && l.ev[0].attr.sample_period == 1000003);
	pmt_evlist_fini(&l);
	/* perfmon's fixed-counter pseudo code, as perf's converter rewrites it (the file
	 * loaded last wins over gnr_small.json's inst_retired.any) */
	assert_int_equal(parse(&gnr, "inst_retired.any", &l, &o, &d), 0);
	assert_true(l.ev[0].attr.config == 0xc0 && !l.ev[0].period_set);
	pmt_evlist_fini(&l);
	/* an unknown name suggests the nearest table names */
	assert_int_equal(parse(&gnr, "inst_retired.anyy", &l, &o, &d), -PMT_ENOT_FOUND);
	assert_non_null(strstr(d.msg, "did you mean inst_retired.any"));
	pmt_evlist_fini(&l);
	/* bad tables name their file */
	write_file(path, "[{\"EventName\": \"X\", \"EventCode\": \"zz\"}]");
	assert_int_equal(pmt_event_table_load(&t, path, &d), -PMT_EPARSE);
	assert_non_null(strstr(d.msg, "EventCode 'zz' is not a number"));
	write_file(path, "{\"Events\": 3}");
	assert_int_equal(pmt_event_table_load(&t, path, &d), -PMT_EFORMAT);
	write_file(path, "[{,");
	assert_int_equal(pmt_event_table_load(&t, path, &d), -PMT_EPARSE);
	assert_non_null(strstr(d.file, "perfmon.json"));
	pmt_event_table_free(t);
	/* the search path: every *.json of each folder (a folder of its own, so fixtures added
	 * to fixtures/events later do not change the count) */
	t = NULL;
	{
		char cmd[1200];

		snprintf(cmd, sizeof(cmd), "mkdir -p %s/tables && cp %s/fixtures/events/gnr_small.json "
			 "%s/tables/", root, PMT_SOURCE_DIR, root);
		assert_int_equal(system(cmd), 0);
	}
	snprintf(path, sizeof(path), "%s/tables/one.json", root);
	write_file(path, "[{\"EventName\": \"ONE.EVENT\", \"EventCode\": \"0x11\"}]");
	snprintf(path, sizeof(path), "/nonexistent:%s/tables", root);
	setenv("PMUTRACE_EVENTS_PATH", path, 1);
	assert_int_equal(pmt_event_table_load_default(&t, &d), 2);
	assert_int_equal(pmt_event_table_size(t), 7 + 1);
	unsetenv("PMUTRACE_EVENTS_PATH");
	pmt_event_table_free(t);
}

/* a perfmon tree: mapfile.csv rows (a regular expression with stepping, hybrid core
 * types, a metrics row) pick the files of PERF_CPUID's CPU */
static void mapfile_picks_the_cpu(void **state)
{
	struct pmt_event_table *t = NULL;
	struct pmt_evlist l;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_events_opts o = { .sz = sizeof(o) };
	char dir[128], path[512];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/perfmon", root);
	snprintf(path, sizeof(path), "mkdir -p %s/SKX/events %s/ADL/events", dir, dir);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/mapfile.csv", dir);
	write_file(path, "Family-model,Version,Filename,EventType,Core Type,Native Model ID,"
			 "Core Role Name\n"
			 "GenuineIntel-6-55-[01234],V1.37,/SKX/events/skx_core.json,core,,,\n"
			 "GenuineIntel-6-97,V1.40,/ADL/events/atom.json,hybridcore,0x20,0x000001,"
			 "Atom\n"
			 "GenuineIntel-6-97,V1.40,/ADL/events/core.json,hybridcore,0x40,0x000001,"
			 "Core\n"
			 "GenuineIntel-6-97,V1.1,/ADL/metrics/none.json,metrics,0x40,0x000001,Core\n");
	snprintf(path, sizeof(path), "%s/SKX/events/skx_core.json", dir);
	write_file(path, "{\"Events\": [{\"EventName\": \"SKX.ONLY\", \"EventCode\": \"0x3c\"}]}");
	snprintf(path, sizeof(path), "%s/ADL/events/atom.json", dir);
	write_file(path, "{\"Events\": [{\"EventName\": \"X.Y\", \"EventCode\": \"0x11\"}]}");
	snprintf(path, sizeof(path), "%s/ADL/events/core.json", dir);
	write_file(path, "{\"Events\": [{\"EventName\": \"X.Y\", \"EventCode\": \"0x22\"}]}");

	setenv("PERF_CPUID", "GenuineIntel-6-55-3", 1);
	assert_int_equal(pmt_event_table_load(&t, dir, &d), 1);
	assert_int_equal(pmt_event_table_size(t), 1);
	pmt_event_table_free(t);
	t = NULL;
	/* stepping 7 is not in [01234] */
	setenv("PERF_CPUID", "GenuineIntel-6-55-7", 1);
	assert_int_equal(pmt_event_table_load(&t, dir, &d), -PMT_ENOT_FOUND);
	assert_non_null(strstr(d.msg, "no event files for CPU GenuineIntel-6-55-7"));
	pmt_event_table_free(t);
	t = NULL;
	/* no stepping in the row: any; the metrics row is no event file */
	setenv("PERF_CPUID", "GenuineIntel-6-97-2", 1);
	assert_int_equal(pmt_event_table_load(&t, dir, &d), 2);
	unsetenv("PERF_CPUID");
	o.table = t;
	assert_int_equal(parse(&hybrid, "x.y", &l, &o, &d), 0);
	assert_int_equal(l.nr, 2);
	assert_true(l.ev[0].attr.type == 10 && l.ev[0].attr.config == 0x11);
	assert_true(l.ev[1].attr.type == 4 && l.ev[1].attr.config == 0x22);
	pmt_evlist_fini(&l);
	pmt_event_table_free(t);
}

static void near_names_and_refusals(void **state)
{
	struct pmt_evlist l;
	struct pmt_diag d = PMT_DIAG_INIT;

	(void)state;
	assert_int_equal(parse(&gnr, "cylces", &l, NULL, &d), -PMT_ENOT_FOUND);
	assert_non_null(strstr(d.msg, "did you mean cycles"));
	pmt_evlist_fini(&l);
	assert_int_equal(parse(&gnr, "topdown-retirng", &l, NULL, &d), -PMT_ENOT_FOUND);
	assert_non_null(strstr(d.msg, "topdown-retiring"));
	pmt_evlist_fini(&l);
	assert_int_equal(parse(&gnr, "cpu/cmsk=1/", &l, NULL, &d), -PMT_EPARSE);
	assert_non_null(strstr(d.msg, "did you mean cmask"));
	pmt_evlist_fini(&l);
	assert_int_equal(parse(&gnr, "cycles:W", &l, NULL, &d), -PMT_EPARSE);
	pmt_evlist_fini(&l);
	assert_int_equal(parse(&gnr, "{cycles,instructions}x", &l, NULL, &d), -PMT_EPARSE);
	pmt_evlist_fini(&l);
	assert_int_equal(parse(&gnr, "{cycles,instructions", &l, NULL, &d), -PMT_EPARSE);
	pmt_evlist_fini(&l);
	assert_int_equal(parse(&gnr, "r12345678901234567", &l, NULL, &d), -PMT_ERANGE);
	pmt_evlist_fini(&l);
	assert_int_equal(parse(&gnr, "cycles,", &l, NULL, &d), -PMT_EPARSE);
	pmt_evlist_fini(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cache_names_decode_as_perf),
		cmocka_unit_test(aliases_raw_and_terms),
		cmocka_unit_test(groups_and_topdown),
		cmocka_unit_test(msr_joins_core_groups),
		cmocka_unit_test(duration_time_is_a_tool_event),
		cmocka_unit_test(hybrid_events_per_core_pmu),
		cmocka_unit_test(tables_map_fields_as_jevents),
		cmocka_unit_test(mapfile_picks_the_cpu),
		cmocka_unit_test(near_names_and_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
