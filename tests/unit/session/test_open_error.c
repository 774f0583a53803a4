/* record/session's explanations of perf_event_open refusals (open_error.c), with the
 * environment set by the test: every message names the event and the reason; the kernel
 * releases are those of the kernel's history (perf's evsel__detect_missing_features()
 * probes the same features); the paranoid levels those of perf-security.rst. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "open_error.h"
#include "pmutrace/events.h"

static struct pmt_evsel ev(const char *name, uint32_t type, uint64_t flags)
{
	struct pmt_evsel e;

	memset(&e, 0, sizeof(e));
	snprintf(e.name, sizeof(e.name), "%s", name);
	e.attr.type = type;
	e.attr.flags = flags;
	e.attr.read_format = PMT_READ_ID | PMT_READ_LOST;
	e.attr.sample_type = PMT_SAMPLE_IP | PMT_SAMPLE_TID;
	return e;
}

static const struct open_error_env base = { .paranoid = 2, .kmajor = 6, .kminor = 1,
					    .nofile = 1024, .fds_needed = 4096 };

static void says(const struct pmt_evsel *e, int cpu, int pid, int err,
		 const struct open_error_env *env, int code, const char *a, const char *b)
{
	struct pmt_diag d = PMT_DIAG_INIT;

	assert_int_equal(open_error_explain(e, cpu, pid, err, env, &d), code);
	if (strncmp(d.msg, e->name, strlen(e->name)) || !strstr(d.msg, a) || (b && !strstr(d.msg, b)))
		fail_msg("errno %d: '%s' does not start with '%s' or lacks '%s' / '%s'", err, d.msg,
			 e->name, a, b ? b : "");
}

static void permission_names_the_level_and_what_it_forbids(void **state)
{
	struct pmt_evsel k = ev("cycles", 0, 0), u = ev("cycles:u", 0, PMT_ATTR_FLAG_EXCLUDE_KERNEL);
	struct open_error_env env = base;
	(void)state;

	says(&k, -1, 123, EACCES, &env, -PMT_EPERM, "perf_event_paranoid is 2",
	     "counting the kernel needs level 1");
	says(&u, 0, -1, EPERM, &env, -PMT_EPERM, "CPU-wide recording (-a, -C) needs level 0",
	     "CAP_PERFMON");
	env.paranoid = 3;
	says(&u, -1, 123, EACCES, &env, -PMT_EPERM, "is 3", "disabled altogether");
	env.paranoid = INT32_MIN;
	says(&u, -1, 123, EACCES, &env, -PMT_EPERM, "is unknown", "sysctl");
}

static void unsupported_says_pmu_or_pebs(void **state)
{
	struct pmt_evsel pebs = ev("INST_RETIRED:precise=2", 4,
				   2ULL << PMT_ATTR_PRECISE_SHIFT | PMT_ATTR_FLAG_EXCLUDE_GUEST);
	struct pmt_evsel hw = ev("cycles", 0, 0);
	struct pmt_pmu cpu = { .name = "cpu", .type = 4 };
	(void)state;

	says(&pebs, -1, 1, EOPNOTSUPP, &base, -PMT_EUNSUPPORTED,
	     "PEBS/precise sampling not supported for this event", "precise_ip 2");
	says(&hw, 2, -1, ENOENT, &base, -PMT_ENO_PMU, "on CPU 2: PMU or event not supported",
	     "no hardware PMU here");
	pebs.pmu = &cpu;
	says(&pebs, -1, 1, ENOENT, &base, -PMT_ENO_PMU, "PMU cpu",
	     "PEBS/precise sampling not supported");
	{
		struct pmt_pmu_cap max = { "max_precise", "1" };

		cpu.caps = &max;
		cpu.nr_caps = 1;
		says(&pebs, -1, 1, EOPNOTSUPP, &base, -PMT_EUNSUPPORTED,
		     "not supported for this event at precise_ip 2",
		     "cpu allows at most 1 (caps/max_precise)");
		snprintf(max.value, sizeof(max.value), "3");
		says(&pebs, -1, 1, EOPNOTSUPP, &base, -PMT_EUNSUPPORTED,
		     "choose a PEBS event", NULL);
		cpu.nr_caps = 0;
	}
	says(&hw, 7, -1, ENODEV, &base, -PMT_ENO_PMU, "CPU 7", "offline or outside");
	{
		struct pmt_pmu spe = { .name = "arm_spe_0", .type = 8, .has_cpus = true };
		struct pmt_evsel s = ev("arm_spe_0//", 8, 0);

		s.pmu = &spe;
		spe.cpus.bits[0] = 0x3;
		says(&s, 2, -1, ENOENT, &base, -PMT_ENO_PMU,
		     "CPU 2 is outside PMU arm_spe_0's CPUs", "record with -C");
		says(&s, 1, -1, ENOENT, &base, -PMT_ENO_PMU, "PMU arm_spe_0",
		     "driver is not loaded");
	}
}

static void einval_names_the_field_the_kernel_is_too_old_for(void **state)
{
	struct pmt_evsel e = ev("cpu-clock", 1, PMT_ATTR_FLAG_BUILD_ID | PMT_ATTR_FLAG_MMAP2);
	struct open_error_env env = base;
	(void)state;

	/* read_format LOST came with 6.0, build_id with 5.12: the newest is named */
	env.kmajor = 5, env.kminor = 10;
	says(&e, -1, 1, EINVAL, &env, -PMT_EUNSUPPORTED,
	     "read_format LOST needs Linux 6.0 or later and this kernel is 5.10", NULL);
	e.attr.read_format = PMT_READ_ID;
	says(&e, -1, 1, EINVAL, &env, -PMT_EUNSUPPORTED, "build_id needs Linux 5.12", NULL);
	env.kminor = 11; /* WEIGHT_STRUCT is listed before build_id: both 5.12 */
	e.attr.sample_type |= PMT_SAMPLE_WEIGHT_STRUCT;
	says(&e, -1, 1, EINVAL, &env, -PMT_EUNSUPPORTED, "WEIGHT_STRUCT needs Linux 5.12", NULL);
	env.kminor = 13;
	says(&e, -1, 1, EINVAL, &env, -PMT_EINVAL, "sample_type=0x1000003", "per-thread");
	/* hybrid cycles on cpu_atom (type 10 << 32): extended types came with 5.13 */
	{
		struct pmt_evsel h = ev("cpu_atom/cycles/", 0, 0);
		struct open_error_env old = base;

		h.attr.config = 0xa00000000ULL;
		h.attr.read_format = PMT_READ_ID;
		old.kminor = 10, old.kmajor = 5;
		says(&h, 8, -1, EINVAL, &old, -PMT_EUNSUPPORTED, "config[63:32]",
		     "needs Linux 5.13 or later and this kernel is 5.10");
		old.kminor = 13;
		says(&h, 8, -1, EINVAL, &old, -PMT_EINVAL, "the PMU refuses", NULL);
	}
	/* leader sampling per task: allowed from 6.12 */
	e.attr.flags |= PMT_ATTR_FLAG_INHERIT;
	e.attr.sample_type |= PMT_SAMPLE_READ;
	env.kmajor = 6, env.kminor = 11;
	says(&e, -1, 1, EINVAL, &env, -PMT_EUNSUPPORTED, "inherit with sample_type READ",
	     "needs Linux 6.12 or later and this kernel is 6.11");
	env.kminor = 12;
	says(&e, -1, 1, EINVAL, &env, -PMT_EINVAL, "invalid argument (EINVAL): the PMU refuses",
	     NULL);
	/* a kernel new enough for everything: the unusual fields are listed */
	e = ev("INST_RETIRED:precise=2", 4,
	       2ULL << PMT_ATTR_PRECISE_SHIFT | PMT_ATTR_FLAG_EXCLUDE_GUEST);
	e.attr.config1 = 0x80800022;
	says(&e, 0, -1, EINVAL, &base, -PMT_EINVAL, "precise_ip=2 config1=0x80800022",
	     "exclude_guest");
	/* a CPU-bound PMU opened per thread: perf's advice, -a */
	{
		struct pmt_pmu unc = { .name = "uncore_imc_0", .type = 20, .has_cpus = true };

		e = ev("uncore_imc_0/cas_count_read/", 20, 0);
		e.pmu = &unc;
		says(&e, -1, 1, EINVAL, &base, -PMT_EINVAL, "per-thread mode",
		     "counts per CPU (it has a cpumask): record with -a or -C");
	}
}

static void busy_and_file_limits(void **state)
{
	struct pmt_evsel e = ev("cycles", 0, PMT_ATTR_FLAG_PINNED);
	struct open_error_env env = base;
	(void)state;

	says(&e, 0, -1, EBUSY, &env, -PMT_EIO, "counters are busy", "nmi_watchdog");
	says(&e, 0, -1, EMFILE, &env, -PMT_EIO, "the limit is 1024 (ulimit -n)",
	     "opens up to 4096");
	env.nofile = 0;
	says(&e, 0, -1, EMFILE, &env, -PMT_EIO, "too many open files", "ulimit -n");
	says(&e, -1, 4242, ESRCH, &env, -PMT_ENOT_FOUND, "no process or thread 4242", NULL);
	says(&e, 0, -1, ENODATA, &env, -PMT_EUNSUPPORTED,
	     "cannot collect data source with the load latency event alone", "mem-loads-aux");
	says(&e, -1, 4242, EFAULT, &env, -PMT_EIO, "perf_event_open: Bad address", NULL);
}

/* a fake /dev/cpu: MSR 0x345 at its offset in the msr file */
static void write_msr(const char *dir, uint64_t caps)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/0", dir);
	mkdir(path, 0755);
	strcat(path, "/msr");
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0x345, SEEK_SET), 0);
	assert_int_equal(fwrite(&caps, sizeof(caps), 1, f), 1);
	fclose(f);
}

static void retire_latency_without_pebs_timing_warns(void **state)
{
	char dir[] = "/tmp/pmt-msr-XXXXXX";
	struct pmt_evlist l = { 0 };
	struct pmt_evsel *e;
	(void)state;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(open_error_pebs_timing(dir, 0), -1); /* no msr file: unknown */
	e = pmt_evlist_add(&l);
	snprintf(e->name, sizeof(e->name), "cpu/mem-loads/pp");
	e->attr.type = 4;
	e->attr.flags = 2ULL << PMT_ATTR_PRECISE_SHIFT;
	e->attr.sample_type = PMT_SAMPLE_IP | PMT_SAMPLE_WEIGHT_STRUCT;
	e = pmt_evlist_add(&l); /* no weight: no warning */
	e->attr.type = 4;
	e->attr.flags = 1ULL << PMT_ATTR_PRECISE_SHIFT;
	assert_int_equal(open_error_warn_retire_latency(&l, dir, 0), 0);
	write_msr(dir, 0x4f4ec6 & ~(1ULL << 17));
	assert_int_equal(open_error_pebs_timing(dir, 0), 0);
	assert_int_equal(open_error_warn_retire_latency(&l, dir, 0), 1);
	write_msr(dir, 0x4f4ec6 | 1ULL << 17);
	assert_int_equal(open_error_pebs_timing(dir, 0), 1);
	assert_int_equal(open_error_warn_retire_latency(&l, dir, 0), 0);
	pmt_evlist_fini(&l);
	{
		char path[300];

		snprintf(path, sizeof(path), "%s/0/msr", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/0", dir);
		rmdir(path);
		rmdir(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(permission_names_the_level_and_what_it_forbids),
		cmocka_unit_test(unsupported_says_pmu_or_pebs),
		cmocka_unit_test(einval_names_the_field_the_kernel_is_too_old_for),
		cmocka_unit_test(busy_and_file_limits),
		cmocka_unit_test(retire_latency_without_pebs_timing_warns),
	};

	pmt_log_set_level(PMT_LOG_ERROR); /* the retire latency warnings are expected */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
