/* perf_event_open refusals explained (see open_error.h). The reasons follow perf 7.3's
 * evsel__open_strerror(); the kernel releases are those that added each attr field, the
 * same features perf's evsel__detect_missing_features() probes for. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "open_error.h"
#include "pmutrace/record.h"

#define MSR_IA32_PERF_CAPABILITIES 0x345
#define PERF_CAP_PEBS_TIMING_INFO (1ULL << 17)

/* attr flag bits pmutrace does not set itself but a kernel may not know */
#define FLAG_NAMESPACES (1ULL << 28)
#define FLAG_CGROUP (1ULL << 32)
#define FLAG_TEXT_POKE (1ULL << 33)
#define FLAG_INHERIT_THREAD (1ULL << 35)
#define FLAG_REMOVE_ON_EXEC (1ULL << 36)
#define FLAG_SIGTRAP (1ULL << 37)
#define BRANCH_HW_INDEX (1ULL << 17)  /* PERF_SAMPLE_BRANCH_HW_INDEX */
#define BRANCH_COUNTERS (1ULL << 19)  /* PERF_SAMPLE_BRANCH_COUNTERS */

void open_error_env_read(struct open_error_env *env, uint64_t fds_needed)
{
	struct utsname u;
	struct rlimit rl;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");

	memset(env, 0, sizeof(*env));
	env->paranoid = INT32_MIN;
	if (f) {
		if (fscanf(f, "%d", &env->paranoid) != 1)
			env->paranoid = INT32_MIN;
		fclose(f);
	}
	if (uname(&u) == 0 && sscanf(u.release, "%u.%u", &env->kmajor, &env->kminor) != 2)
		env->kmajor = env->kminor = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		env->nofile = rl.rlim_cur;
	env->fds_needed = fds_needed;
}

int mmap_error_explain(const char *what, uint32_t pages, uint32_t aux_pages,
		       struct pmt_diag *diag)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "r");
	char kb[32] = "unknown", memlock[32] = "unlimited";
	struct rlimit rl;
	long v;

	if (f) {
		if (fscanf(f, "%ld", &v) == 1)
			snprintf(kb, sizeof(kb), "%ld kB", v);
		fclose(f);
	}
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		snprintf(memlock, sizeof(memlock), "%llu kB",
			 (unsigned long long)(rl.rlim_cur / 1024));
	return pmt_diag_set(diag, -PMT_EPERM, NULL, PMT_DIAG_NO_OFFSET,
			    "mmap of %s: permission error mapping pages: the rings are over the "
			    "locked-memory limit (/proc/sys/kernel/perf_event_mlock_kb: %s per "
			    "online CPU for this user, then RLIMIT_MEMLOCK: %s): try again with a "
			    "smaller -m/--mmap-pages value (current value: %u,%u), or increase "
			    "/proc/sys/kernel/perf_event_mlock_kb or ulimit -l, or run with "
			    "CAP_IPC_LOCK", what, kb, memlock, pages, aux_pages);
}

/* the attr fields a kernel before major.minor rejects with EINVAL */
static const struct {
	const char *what;
	unsigned major, minor;
	int word; /* 0 flags, 1 sample_type, 2 read_format, 3 branch_sample_type, 4 aux_action */
	uint64_t bits;
} newer[] = {
	{ "aux_action (aux_start_paused, aux_pause, aux_resume)", 6, 13, 4, 7 },
	{ "branch_sample_type COUNTERS", 6, 8, 3, BRANCH_COUNTERS },
	{ "read_format LOST", 6, 0, 2, PMT_READ_LOST },
	{ "inherit_thread, remove_on_exec or sigtrap", 5, 13, 0,
	  FLAG_INHERIT_THREAD | FLAG_REMOVE_ON_EXEC | FLAG_SIGTRAP },
	{ "sample_type WEIGHT_STRUCT", 5, 12, 1, PMT_SAMPLE_WEIGHT_STRUCT },
	{ "build_id", 5, 12, 0, PMT_ATTR_FLAG_BUILD_ID },
	{ "sample_type CODE_PAGE_SIZE or DATA_PAGE_SIZE", 5, 11, 1,
	  PMT_SAMPLE_CODE_PAGE_SIZE | PMT_SAMPLE_DATA_PAGE_SIZE },
	{ "text_poke", 5, 9, 0, FLAG_TEXT_POKE },
	{ "cgroup", 5, 7, 0, FLAG_CGROUP },
	{ "sample_type CGROUP", 5, 7, 1, PMT_SAMPLE_CGROUP },
	{ "branch_sample_type HW_INDEX", 5, 7, 3, BRANCH_HW_INDEX },
	{ "aux_output", 5, 4, 0, PMT_ATTR_FLAG_AUX_OUTPUT },
	{ "ksymbol or bpf_event", 5, 1, 0, PMT_ATTR_FLAG_KSYMBOL | PMT_ATTR_FLAG_BPF_EVENT },
	{ "namespaces", 4, 16, 0, FLAG_NAMESPACES },
	{ "write_backward", 4, 7, 0, PMT_ATTR_FLAG_WRITE_BACKWARD },
	{ "context_switch", 4, 3, 0, PMT_ATTR_FLAG_CONTEXT_SWITCH },
	{ "use_clockid", 4, 1, 0, PMT_ATTR_FLAG_USE_CLOCKID },
	{ "comm_exec", 3, 16, 0, PMT_ATTR_FLAG_COMM_EXEC },
	{ "mmap2", 3, 12, 0, PMT_ATTR_FLAG_MMAP2 },
	{ "sample_type IDENTIFIER", 3, 12, 1, PMT_SAMPLE_IDENTIFIER },
};

static uint64_t attr_word(const struct pmt_perf_attr *a, int word)
{
	switch (word) {
	case 0: return a->flags;
	case 1: return a->sample_type;
	case 2: return a->read_format;
	case 3: return a->branch_sample_type;
	default: return a->aux_action;
	}
}

/* "; needs Linux X.Y, this kernel is A.B" for the first field too new, else "" */
static void too_new(const struct pmt_perf_attr *a, const struct open_error_env *env,
		    char *buf, size_t n)
{
	buf[0] = 0;
	if (!env->kmajor)
		return;
	/* hybrid: the PMU type in config[63:32] of a generic event (perf's extended type) */
	if ((a->type == PMT_TYPE_HARDWARE || a->type == 3 /* PERF_TYPE_HW_CACHE */) &&
	    (a->config >> 32) &&
	    (env->kmajor < 5 || (env->kmajor == 5 && env->kminor < 13))) {
		snprintf(buf, n, "a generic event with its PMU type in config[63:32] (hybrid "
			 "cpu_core/cpu_atom) needs Linux 5.13 or later and this kernel is %u.%u",
			 env->kmajor, env->kminor);
		return;
	}
	/* a combination rather than a field: per-task leader sampling (:S) */
	if ((a->flags & PMT_ATTR_FLAG_INHERIT) && (a->sample_type & PMT_SAMPLE_READ) &&
	    (env->kmajor < 6 || (env->kmajor == 6 && env->kminor < 12))) {
		snprintf(buf, n, "inherit with sample_type READ (leader sampling of a workload or "
			 "-p) needs Linux 6.12 or later and this kernel is %u.%u: record with -a "
			 "or -C, or --no-inherit", env->kmajor, env->kminor);
		return;
	}
	for (size_t i = 0; i < sizeof(newer) / sizeof(newer[0]); i++) {
		if (!(attr_word(a, newer[i].word) & newer[i].bits))
			continue;
		if (env->kmajor > newer[i].major ||
		    (env->kmajor == newer[i].major && env->kminor >= newer[i].minor))
			continue;
		snprintf(buf, n, "%s needs Linux %u.%u or later and this kernel is %u.%u",
			 newer[i].what, newer[i].major, newer[i].minor, env->kmajor, env->kminor);
		return;
	}
}

/* the fields that are not perf record's everyday ones, for the kernel log and the user */
static void unusual_fields(const struct pmt_perf_attr *a, char *buf, size_t n)
{
	size_t len = 0;
	unsigned precise = (unsigned)(a->flags >> PMT_ATTR_PRECISE_SHIFT) & 3;

#define ADD(...) (len += (size_t)snprintf(buf + len, len < n ? n - len : 0, __VA_ARGS__))
	buf[0] = 0;
	if (precise)
		ADD(" precise_ip=%u", precise);
	if (a->config1)
		ADD(" config1=%#llx", (unsigned long long)a->config1);
	if (a->config2)
		ADD(" config2=%#llx", (unsigned long long)a->config2);
	if (a->config3)
		ADD(" config3=%#llx", (unsigned long long)a->config3);
	if (a->branch_sample_type)
		ADD(" branch_sample_type=%#llx", (unsigned long long)a->branch_sample_type);
	if (a->flags & PMT_ATTR_FLAG_PINNED)
		ADD(" pinned");
	if (a->flags & PMT_ATTR_FLAG_EXCLUSIVE)
		ADD(" exclusive");
	if (a->flags & PMT_ATTR_FLAG_EXCLUDE_IDLE)
		ADD(" exclude_idle");
	if (a->flags & PMT_ATTR_FLAG_EXCLUDE_HOST)
		ADD(" exclude_host");
	if (a->flags & PMT_ATTR_FLAG_EXCLUDE_GUEST)
		ADD(" exclude_guest");
	if (a->flags & PMT_ATTR_FLAG_USE_CLOCKID)
		ADD(" clockid=%d", (int)a->clockid);
	if (a->sample_type & (PMT_SAMPLE_WEIGHT | PMT_SAMPLE_WEIGHT_STRUCT | PMT_SAMPLE_DATA_SRC |
			      PMT_SAMPLE_PHYS_ADDR | PMT_SAMPLE_REGS_INTR | PMT_SAMPLE_AUX))
		ADD(" sample_type=%#llx", (unsigned long long)a->sample_type);
	if (a->aux_sample_size)
		ADD(" aux_sample_size=%u", a->aux_sample_size);
#undef ADD
}

static int eperm(const struct pmt_evsel *e, const char *where, int cpu, int pid,
		 const struct open_error_env *env, struct pmt_diag *diag)
{
	const bool kernel = !(e->attr.flags & PMT_ATTR_FLAG_EXCLUDE_KERNEL);
	/* the arm_spe_pmu driver refuses physical addresses and the physical timer to an
	 * unprivileged user (perf_allow_kernel) whatever else the event asks */
	const bool pa = e->pmu && pmt_evsel_term_set(e, "pa_enable");
	const bool pct = e->pmu && pmt_evsel_term_set(e, "pct_enable");
	const char *why = "";
	char level[32] = "unknown";

	if (env->paranoid != INT32_MIN)
		snprintf(level, sizeof(level), "%d", env->paranoid);
	/* the levels of Documentation/admin-guide/perf-security.rst (3: Debian's patch) */
	if (env->paranoid >= 3)
		why = "unprivileged perf_event_open is disabled altogether (level 3): set it to 2 "
		      "or lower";
	else if (env->paranoid >= 1 && cpu >= 0 && pid == -1)
		why = "CPU-wide recording (-a, -C) needs level 0 or lower";
	else if (env->paranoid >= 2 && kernel)
		why = "counting the kernel needs level 1 or lower: add :u to the event to count "
		      "user space only, or lower the level";
	else if (env->paranoid >= 0 && e->attr.type == 2 /* PERF_TYPE_TRACEPOINT */)
		why = "raw tracepoint data needs level -1";
	return pmt_diag_set(diag, -PMT_EPERM, NULL, PMT_DIAG_NO_OFFSET,
			    "%s%s: no permission (kernel.perf_event_paranoid is %s)%s%s: run as "
			    "root, give the binary CAP_PERFMON (setcap cap_perfmon,cap_ipc_lock=ep), "
			    "or sysctl kernel.perf_event_paranoid=-1%s",
			    e->name, where, level, *why ? "; " : "", why,
			    pa && pct ? "; pa_enable and pct_enable need CAP_PERFMON too (or drop them)"
			    : pa      ? "; pa_enable needs CAP_PERFMON too (or drop it)"
			    : pct     ? "; pct_enable needs CAP_PERFMON too (or drop it)" : "");
}

int open_error_explain(const struct pmt_evsel *e, int cpu, int pid, int err,
		       const struct open_error_env *env, struct pmt_diag *diag)
{
	const unsigned precise = (unsigned)(e->attr.flags >> PMT_ATTR_PRECISE_SHIFT) & 3;
	const char *pmu = e->pmu ? e->pmu->name : NULL;
	char where[32] = "", detail[512];

	if (cpu >= 0)
		snprintf(where, sizeof(where), " on CPU %d", cpu);
	uint64_t max_precise;

	switch (err) {
	case EACCES:
	case EPERM:
		return eperm(e, where, cpu, pid, env, diag);
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		/* the kernel's own limit, when the sysfs tree says it */
		if (precise && err == EOPNOTSUPP && e->pmu &&
		    pmt_pmu_cap_u64(e->pmu, "max_precise", &max_precise) == 0 &&
		    precise > max_precise)
			return pmt_diag_set(diag, -PMT_EUNSUPPORTED, NULL, PMT_DIAG_NO_OFFSET,
					    "%s%s: PEBS/precise sampling not supported for this "
					    "event at precise_ip %u: %s allows at most %llu "
					    "(caps/max_precise)", e->name, where, precise,
					    e->pmu->name, (unsigned long long)max_precise);
		if (precise && err == EOPNOTSUPP)
			return pmt_diag_set(diag, -PMT_EUNSUPPORTED, NULL, PMT_DIAG_NO_OFFSET,
					    "%s%s: PEBS/precise sampling not supported for this "
					    "event (precise_ip %u, %s): drop the p modifiers "
					    "(precise= of libpfm4), or choose a PEBS event", e->name,
					    where, precise, strerror(err));
		if (err == EOPNOTSUPP && e->attr.branch_sample_type)
			return pmt_diag_set(diag, -PMT_EUNSUPPORTED, NULL, PMT_DIAG_NO_OFFSET,
					    "%s%s: the PMU does not support branch stack sampling "
					    "(EOPNOTSUPP)", e->name, where);
		if (cpu >= 0 && e->pmu && e->pmu->has_cpus &&
		    !pmt_cpumask_has(&e->pmu->cpus, (unsigned)cpu))
			return pmt_diag_set(diag, -PMT_ENO_PMU, NULL, PMT_DIAG_NO_OFFSET,
					    "%s%s: CPU %d is outside PMU %s's CPUs (its cpumask or "
					    "cpus file; %s): record with -C on its CPUs", e->name,
					    where, cpu, pmu, strerror(err));
		if (err == ENODEV && cpu >= 0)
			return pmt_diag_set(diag, -PMT_ENO_PMU, NULL, PMT_DIAG_NO_OFFSET,
					    "%s%s: no such device: the CPU is offline or outside the "
					    "PMU's CPUs (ENODEV)", e->name, where);
		return pmt_diag_set(diag, -PMT_ENO_PMU, NULL, PMT_DIAG_NO_OFFSET,
				    "%s%s: PMU or event not supported on this CPU (%s; attr type %u "
				    "config %#llx%s%s)%s", e->name, where, strerror(err),
				    e->attr.type, (unsigned long long)e->attr.config,
				    pmu ? ", PMU " : "", pmu ? pmu : "",
				    precise ? "; PEBS/precise sampling not supported for this event"
					      "? try without the p modifiers"
					    : pmu ? "; or the PMU's driver is not loaded"
					    : e->attr.type == PMT_TYPE_HARDWARE
					    ? "; no hardware PMU here (a VM without a virtual PMU?): "
					      "software events such as cpu-clock still work"
					    : "");
	case EINVAL:
		too_new(&e->attr, env, detail, sizeof(detail));
		if (detail[0])
			return pmt_diag_set(diag, -PMT_EUNSUPPORTED, NULL, PMT_DIAG_NO_OFFSET,
					    "%s%s: invalid argument (EINVAL): %s", e->name, where,
					    detail);
		if (cpu < 0 && e->pmu && e->pmu->has_cpus)
			return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
					    "%s: invalid argument (EINVAL) in per-thread mode: PMU "
					    "%s counts per CPU (it has a cpumask): record with -a or "
					    "-C", e->name, pmu);
		unusual_fields(&e->attr, detail, sizeof(detail));
		return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
				    "%s%s: invalid argument (EINVAL): the PMU refuses a field of the "
				    "attr; set:%s%s (--dry-run -v prints it whole; dmesg | grep -i "
				    "perf may say more)", e->name, where,
				    detail[0] ? detail : " nothing unusual",
				    cpu < 0 ? "; in per-thread mode, try -a" : "");
	case EBUSY:
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET,
				    "%s%s: the %s counters are busy (EBUSY): in use by another "
				    "process (another profiler, a VM's vPMU)%s", e->name, where,
				    pmu ? pmu : "PMU's",
				    e->attr.flags & (PMT_ATTR_FLAG_PINNED | PMT_ATTR_FLAG_EXCLUSIVE)
					    ? "; a pinned or exclusive event needs free counters: the "
					      "NMI watchdog holds one (sysctl kernel.nmi_watchdog=0)"
					    : "");
	case EMFILE:
	case ENFILE:
		if (env->nofile)
			return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET,
					    "%s%s: too many open files: the limit is %llu (ulimit "
					    "-n) and this recording opens up to %llu (one per event, "
					    "CPU and thread): raise it with ulimit -n, or record fewer "
					    "events or CPUs", e->name, where,
					    (unsigned long long)env->nofile,
					    (unsigned long long)env->fds_needed);
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET,
				    "%s%s: too many open files (%s): raise ulimit -n (one per "
				    "event, CPU and thread)", e->name, where, strerror(err));
	case ENODATA:
		/* Intel's load latency event on Sapphire Rapids and later (perf's message) */
		return pmt_diag_set(diag, -PMT_EUNSUPPORTED, NULL, PMT_DIAG_NO_OFFSET,
				    "%s%s: cannot collect data source with the load latency event "
				    "alone (ENODATA): put the auxiliary event in front of it in a "
				    "group, e.g. {cpu/mem-loads-aux/,cpu/mem-loads,ldlat=30/P}:S",
				    e->name, where);
	case ESRCH:
		return pmt_diag_set(diag, -PMT_ENOT_FOUND, NULL, PMT_DIAG_NO_OFFSET,
				    "%s: no process or thread %d", e->name, pid);
	default:
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET,
				    "%s%s, pid %d: perf_event_open: %s (--dry-run -v prints the "
				    "attr; dmesg | grep -i perf may say more)", e->name, where, pid,
				    strerror(err));
	}
}

/* perf 7.3 does not check this (x86's arch_evsel__set_sample_weight() sets WEIGHT_STRUCT
 * whatever the CPU); the kernel fills var3_w only when this bit set PMU_FL_RETIRE_LATENCY
 * in intel_pmu_init(), and the bit is in no sysfs file, so only the MSR can tell. */
int open_error_pebs_timing(const char *dev_cpu, int cpu)
{
	char path[256];
	uint64_t caps;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/msr", dev_cpu, cpu < 0 ? 0 : cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, &caps, sizeof(caps), MSR_IA32_PERF_CAPABILITIES);
	close(fd);
	if (n != (ssize_t)sizeof(caps))
		return -1;
	return (caps & PERF_CAP_PEBS_TIMING_INFO) != 0;
}

unsigned open_error_warn_retire_latency(const struct pmt_evlist *ev, const char *dev_cpu,
					int cpu)
{
	unsigned warned = 0;
	int timing = -2; /* not read yet: only when an event needs it */

	for (uint32_t i = 0; i < ev->nr; i++) {
		const struct pmt_evsel *e = &ev->ev[i];

		/* the Intel core PMU: PERF_TYPE_RAW, or a cpu/cpu_core PMU */
		if (!(e->attr.sample_type & PMT_SAMPLE_WEIGHT_STRUCT) ||
		    !(e->attr.flags >> PMT_ATTR_PRECISE_SHIFT & 3) ||
		    !(e->attr.type == 4 || (e->pmu && !strncmp(e->pmu->name, "cpu", 3))))
			continue;
		if (timing == -2)
			timing = open_error_pebs_timing(dev_cpu, cpu);
		if (timing != 0)
			continue;
		pmt_warn("%s: this CPU has no PEBS timing information (IA32_PERF_CAPABILITIES "
			 "bit 17, PEBS_TIMING_INFO, is clear): its samples would carry retire "
			 "latency 0 (weight var3_w); TPEBS needs Granite Rapids, Meteor Lake or "
			 "later", e->name);
		warned++;
	}
	return warned;
}
