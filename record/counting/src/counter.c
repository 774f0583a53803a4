/* The counting file descriptors: one per event and CPU (or thread), group members opened
 * with their leader's fd and read through it (read_format GROUP|ID), as perf stat does. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pmutrace/counting.h"
#include "on_cpu.h"
#include "tool_time.h"

/* linux/perf_event.h, spelled out so the build does not need kernel headers */
#define IOC_ENABLE 0x2400
#define IOC_DISABLE 0x2401
#define IOC_ID 0x80082407
#define FLAG_FD_CLOEXEC (1UL << 3)

struct pmt_counter {
	const struct pmt_count_plan *plan;
	uint32_t nr_ev, nr_cpus, nr_threads;
	int *fd;                        /* [ev][cpu][thread], -1 when not open */
	uint64_t *id;
	struct pmt_count_value *val;
	bool *supported;                /* [ev] */
	bool *unread;                   /* [ev] a read failed in the last pmt_counter_read */
	bool *gone;                     /* [thread] ended before its counters opened */
	uint64_t *buf;                  /* one group read */
	size_t buf_words;
	uint64_t tool_start;            /* duration_time's 0: the open, as perf 7.3 starts
					 * its tool event when it opens it (metrics divided by
					 * it then count the opens' time too) */
	uint64_t tool_reads;            /* its enabled and running times, as perf 7.3 prints
					 * them: 1 a read (1 in every interval's delta) */
	uint64_t reads_before;          /* -r: the earlier runs' reads, which perf 7.3 adds
					 * to those times (not to the value) */
	bool tool_unstarted;            /* perf 7.3 starts the tool's clock when it enables
					 * the counters itself: with kernel events enabled on
					 * exec (a workload) it never does, and reads 0 */
	uint64_t *tool_base;            /* user/system_time: the ticks at the open, per
					 * [ev][cpu][thread]; UINT64_MAX where none was read */
	struct tool_time proc;          /* /proc/stat, read once a read */
	bool cpu_time;                  /* the plan has user_time or system_time */
	bool *tool_cpu_absent;         /* [ev] a CPU without a /proc/stat line at the last
					 * read (pmt_counter_tool_cpu_absent()) */
	int32_t *threads;               /* [thread] (per thread: their /proc/PID/stat) */
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static size_t ix(const struct pmt_counter *c, uint32_t e, uint32_t ci, uint32_t ti)
{
	return ((size_t)e * c->nr_cpus + ci) * c->nr_threads + ti;
}

static bool is_leader(const struct pmt_count_plan *p, uint32_t e)
{
	return p->ev.ev[e].leader == e || p->ev.ev[e].leader >= p->ev.nr;
}

static int open_error(const struct pmt_evsel *e, int cpu, int pid, int err,
		      struct pmt_diag *diag)
{
	if (err == EACCES || err == EPERM)
		return pmt_diag_set(diag, -PMT_EPERM, NULL, PMT_DIAG_NO_OFFSET,
				    "%s: no permission to count (see "
				    "/proc/sys/kernel/perf_event_paranoid): run as root, give the "
				    "binary CAP_PERFMON, or count your own workload (-- CMD)",
				    e->name);
	if (err == ESRCH)
		return pmt_diag_set(diag, -PMT_ENOT_FOUND, NULL, PMT_DIAG_NO_OFFSET,
				    "no process or thread %d", pid);
	if (err == EMFILE)
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET,
				    "too many open files: raise ulimit -n (one per event, CPU "
				    "and thread)");
	return pmt_diag_set(diag, err == ENOENT || err == EOPNOTSUPP || err == ENODEV
					  ? -PMT_EUNSUPPORTED : -PMT_EIO,
			    NULL, PMT_DIAG_NO_OFFSET,
			    "%s (cpu %d, pid %d): perf_event_open: %s (--dry-run -v shows the "
			    "attr)", e->name, cpu, pid, strerror(err));
}

static bool unsupported_errno(int err)
{
	/* perf stat's stat_handle_error(): the event is "<not supported>", the run goes on */
	return err == ENOENT || err == ENXIO || err == EOPNOTSUPP || err == ENODEV ||
	       err == EINVAL;
}

/* One descriptor per event, CPU and thread: --per-thread -a on a busy machine needs more
 * than the usual soft limit of 1024, so it is raised towards the hard one as perf's
 * rlimit__increase_nofile() does (perf after an EMFILE, here before: nothing to undo) */
static void raise_nofile(size_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= need + 64)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need + 64 ? need + 64
									       : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
		pmt_debug("open files limit raised to %llu for %zu counters",
			  (unsigned long long)rl.rlim_cur, need);
}

/* the ticks of user_time or system_time event e on CPU index ci or thread ti now */
static bool tool_time_now(struct pmt_counter *c, uint32_t e, uint32_t ci, int32_t thread,
			  uint64_t *ticks)
{
	const struct pmt_count_plan *p = c->plan;
	bool system = p->ev.ev[e].attr.config == PMT_TOOL_SYSTEM_TIME;

	/* a workload's (enabled on its exec): perf 7.3 reads 0 at every read, in every
	 * interval too, while it runs (stat -vv: "-1: 0 N N"), not its /proc/PID/stat */
	if (!p->per_cpu && (p->ev.ev[e].attr.flags & PMT_ATTR_FLAG_ENABLE_ON_EXEC)) {
		*ticks = 0;
		return true;
	}
	if (p->cpu[ci] >= 0 && (p->per_cpu || thread < 0))
		return tool_time_cpu(&c->proc, p->cpu[ci], system, ticks);
	return thread >= 0 && tool_time_pid(thread, system, ticks);
}

/* user_time and system_time count from the open, as perf 7.3's tool_pmu opens them: the
 * ticks read now are each counter's 0; a CPU without a /proc/stat line keeps UINT64_MAX
 * (tool_time_read(): a counted 0, a failed read for -I) */
static int tool_time_start(struct pmt_counter *c, const int32_t *threads)
{
	const struct pmt_count_plan *p = c->plan;
	size_t n = (size_t)c->nr_ev * c->nr_cpus * c->nr_threads;
	int rc;

	for (uint32_t e = 0; e < c->nr_ev; e++)
		c->cpu_time |= pmt_evsel_tool_cpu_time(&p->ev.ev[e]);
	if (!c->cpu_time)
		return 0;
	c->tool_base = malloc(n * sizeof(*c->tool_base));
	if (!c->tool_base)
		return -PMT_ENOMEM;
	rc = tool_time_load(&c->proc);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n; i++)
		c->tool_base[i] = UINT64_MAX;
	for (uint32_t e = 0; e < c->nr_ev; e++)
		for (uint32_t ci = 0; pmt_evsel_tool_cpu_time(&p->ev.ev[e]) && ci < c->nr_cpus;
		     ci++)
			for (uint32_t ti = 0; ti < c->nr_threads; ti++)
				if (pmt_count_on_cpu(p, &p->ev.ev[e], ci) &&
				    !tool_time_now(c, e, ci, threads[ti],
						   &c->tool_base[ix(c, e, ci, ti)]))
					c->tool_base[ix(c, e, ci, ti)] = UINT64_MAX;
	c->threads = malloc(c->nr_threads * sizeof(*c->threads));
	if (!c->threads)
		return -PMT_ENOMEM;
	memcpy(c->threads, threads, c->nr_threads * sizeof(*c->threads));
	return 0;
}

/* open_counters()'s answer when a weak group's member was refused: split it, retry */
#define WEAK_RETRY 1

static int open_counters(const struct pmt_count_plan *p, const int32_t *threads,
			 uint32_t nr_threads, bool keep_unsupported, struct pmt_counter **out,
			 struct pmt_diag *diag, uint32_t *weak_leader)
{
	struct pmt_counter *c = calloc(1, sizeof(*c));
	static const int32_t any = -1;
	size_t n;
	int rc = 0;

	*out = NULL;
	if (!c)
		return -PMT_ENOMEM;
	if (p->per_cpu || !nr_threads) {
		threads = &any;
		nr_threads = 1;
	}
	c->tool_start = monotonic_ns();
	for (uint32_t e = 0; e < p->ev.nr; e++)
		if (!pmt_evsel_tool(&p->ev.ev[e]) &&
		    (p->ev.ev[e].attr.flags & PMT_ATTR_FLAG_ENABLE_ON_EXEC))
			c->tool_unstarted = true;
	c->plan = p;
	c->nr_ev = p->ev.nr;
	c->nr_cpus = p->nr_cpus;
	c->nr_threads = nr_threads;
	n = (size_t)c->nr_ev * c->nr_cpus * c->nr_threads;
	c->fd = malloc(n * sizeof(*c->fd));
	c->id = calloc(n, sizeof(*c->id));
	c->val = calloc(n, sizeof(*c->val));
	c->supported = calloc(c->nr_ev, sizeof(*c->supported));
	c->tool_cpu_absent = calloc(c->nr_ev, sizeof(*c->tool_cpu_absent));
	c->unread = calloc(c->nr_ev, sizeof(*c->unread));
	c->gone = calloc(c->nr_threads, sizeof(*c->gone));
	c->buf_words = 3 + 2 * (size_t)c->nr_ev;
	c->buf = malloc(c->buf_words * sizeof(*c->buf));
	if (!c->fd || !c->id || !c->val || !c->supported || !c->tool_cpu_absent || !c->unread ||
	    !c->gone || !c->buf) {
		pmt_counter_free(c);
		return -PMT_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		c->fd[i] = -1;
	raise_nofile(n);
	for (uint32_t e = 0; e < c->nr_ev && rc >= 0; e++) {
		const struct pmt_evsel *ev = &p->ev.ev[e];

		c->supported[e] = true;
		for (uint32_t ci = 0; ci < c->nr_cpus && rc >= 0; ci++) {
			for (uint32_t ti = 0; ti < c->nr_threads; ti++) {
				int group = is_leader(p, e) ? -1 : c->fd[ix(c, ev->leader, ci, ti)];
				int fd;

				if (c->gone[ti] || !pmt_count_on_cpu(p, ev, ci))
					continue;
				if (pmt_evsel_tool(ev) || ev->retire_lat)
					continue; /* nothing to open: read from the clock or table */
				if (!is_leader(p, e) && group < 0) {
					c->supported[e] = false; /* its leader failed */
					continue;
				}
				fd = (int)syscall(SYS_perf_event_open, &ev->attr, threads[ti],
						  p->cpu[ci], group, FLAG_FD_CLOEXEC);
				if (fd < 0) {
					int err = errno;

					/* its counts stay 0: nothing ran */
					if (err == ESRCH && p->skip_gone_threads && !p->per_cpu) {
						c->gone[ti] = true;
						pmt_debug("thread %d ended before its counters "
							  "opened: left out", (int)threads[ti]);
						continue;
					}
					/* perf stat's __run_perf_stat(): a weak group's member
					 * the kernel refuses (EINVAL, EBADF) resets the group */
					if (weak_leader && !is_leader(p, e) &&
					    p->ev.ev[ev->leader].weak_group &&
					    (err == EINVAL || err == EBADF)) {
						*weak_leader = ev->leader;
						rc = WEAK_RETRY;
						break;
					}
					if (keep_unsupported && unsupported_errno(err)) {
						c->supported[e] = false;
						continue;
					}
					rc = open_error(ev, p->cpu[ci], threads[ti], err, diag);
					break;
				}
				c->fd[ix(c, e, ci, ti)] = fd;
				if (ioctl(fd, IOC_ID, &c->id[ix(c, e, ci, ti)]) < 0)
					c->id[ix(c, e, ci, ti)] = 0;
			}
		}
	}
	/* a tool event opens nothing, so the kernel gives it no id: one of pmutrace's own
	 * (FORMAT.md, "Counts"), far above any the kernel's counter reaches, so that -o keeps
	 * its count in STAT records that perf stat report and metrics TRACE find by id
	 * (perf 7.3 writes id 0, which its report gives to the first event, whatever it is) */
	for (uint32_t e = 0; e < c->nr_ev && rc == 0; e++)
		if (pmt_evsel_tool(&p->ev.ev[e]))
			for (uint32_t ci = 0; ci < c->nr_cpus; ci++)
				for (uint32_t ti = 0; ti < c->nr_threads; ti++)
					if (pmt_count_on_cpu(p, &p->ev.ev[e], ci) &&
					    (!ti || pmt_evsel_tool_cpu_time(&p->ev.ev[e])))
						c->id[ix(c, e, ci, ti)] = PMT_TOOL_COUNT_ID +
							((uint64_t)e << 32) + ci * c->nr_threads + ti;
	if (rc == 0)
		rc = tool_time_start(c, threads);
	if (rc == 0 && keep_unsupported) {
		uint32_t e = 0;

		while (e < c->nr_ev && !c->supported[e])
			e++;
		/* perf 7.3's __run_perf_stat(): nothing to count is an error, named by the
		 * first event (a group whose leader failed has no member open either) */
		if (c->nr_ev && e == c->nr_ev)
			rc = pmt_diag_set(diag, -PMT_EUNSUPPORTED, NULL, PMT_DIAG_NO_OFFSET,
					  "No supported events found. The %s event is not "
					  "supported.", p->ev.ev[0].name);
	}
	if (rc != 0) {
		pmt_counter_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

int pmt_counter_open(const struct pmt_count_plan *p, const int32_t *threads,
		     uint32_t nr_threads, bool keep_unsupported, struct pmt_counter **out,
		     struct pmt_diag *diag)
{
	return open_counters(p, threads, nr_threads, keep_unsupported, out, diag, NULL);
}

/* perf's evlist__reset_weak_group(): every member becomes its own leader, read alone,
 * disabled and enabled as its former leader was */
static void ungroup(struct pmt_count_plan *p, uint32_t leader)
{
	uint64_t start = p->ev.ev[leader].attr.flags &
			 (PMT_ATTR_FLAG_DISABLED | PMT_ATTR_FLAG_ENABLE_ON_EXEC);

	for (uint32_t e = leader; e < p->ev.nr; e++) {
		struct pmt_evsel *ev = &p->ev.ev[e];

		if (ev->leader != leader)
			continue;
		ev->leader = e;
		ev->nr_members = 1;
		ev->weak_group = false;
		ev->attr.read_format &= ~(uint64_t)(PMT_READ_ID | PMT_READ_GROUP);
		ev->attr.flags |= start;
	}
}

int pmt_counter_open_weak(struct pmt_count_plan *p, const int32_t *threads,
			  uint32_t nr_threads, bool keep_unsupported, struct pmt_counter **out,
			  struct pmt_diag *diag)
{
	for (;;) {
		uint32_t leader = 0;
		int rc = open_counters(p, threads, nr_threads, keep_unsupported, out, diag,
				       &leader);

		if (rc != WEAK_RETRY)
			return rc;
		/* perf's words (pr_debug: shown with -v) */
		pmt_debug("Weak group for %s/%u failed", p->ev.ev[leader].name,
			  p->ev.ev[leader].nr_members);
		ungroup(p, leader);
	}
}

int pmt_counter_enable(struct pmt_counter *c, bool on)
{
	size_t n = (size_t)c->nr_ev * c->nr_cpus * c->nr_threads;

	for (size_t i = 0; i < n; i++) {
		uint32_t e = (uint32_t)(i / ((size_t)c->nr_cpus * c->nr_threads));

		/* a leader's ioctl switches its whole group */
		if (c->fd[i] >= 0 && is_leader(c->plan, e) &&
		    ioctl(c->fd[i], on ? IOC_ENABLE : IOC_DISABLE, 0) < 0)
			return -PMT_EIO;
	}
	return 0;
}

static int read_group(struct pmt_counter *c, uint32_t leader, uint32_t ci, uint32_t ti)
{
	const struct pmt_count_plan *p = c->plan;
	ssize_t got = read(c->fd[ix(c, leader, ci, ti)], c->buf, c->buf_words * sizeof(*c->buf));
	uint64_t nr;

	if (got < 24)
		return -PMT_EIO;
	nr = c->buf[0];
	if (nr > c->nr_ev || (size_t)got < (3 + 2 * nr) * sizeof(uint64_t))
		return -PMT_EIO;
	if (nr != p->ev.ev[leader].nr_members) {
		/* a member was not opened (<not supported>): perf 7.3's
		 * evsel__process_group_data() refuses the read, so the leader and the members
		 * that were opened print <not counted> (nothing ran) */
		for (uint32_t e = leader; e < c->nr_ev; e++)
			if (e == leader || p->ev.ev[e].leader == leader)
				c->val[ix(c, e, ci, ti)] = (struct pmt_count_value){ 0 };
		return 0;
	}
	/* members in the kernel's order, told apart by id */
	for (uint64_t k = 0; k < nr; k++) {
		uint64_t id = c->buf[3 + 2 * k + 1];

		for (uint32_t e = leader; e < c->nr_ev; e++) {
			if ((e != leader && p->ev.ev[e].leader != leader) ||
			    c->id[ix(c, e, ci, ti)] != id)
				continue;
			c->val[ix(c, e, ci, ti)] = (struct pmt_count_value){
				.val = c->buf[3 + 2 * k], .ena = c->buf[1], .run = c->buf[2] };
			break;
		}
	}
	return 0;
}

static void unread(struct pmt_counter *c, uint32_t e, uint32_t ci, uint32_t ti)
{
	const struct pmt_count_plan *p = c->plan;

	pmt_debug("%s (cpu %d): read failed: %s", p->ev.ev[e].name, p->cpu[ci], strerror(errno));
	for (uint32_t m = e; m < c->nr_ev; m++)
		if (m == e || (p->ev.ev[m].leader == e &&
			       (p->ev.ev[e].attr.read_format & PMT_READ_GROUP))) {
			c->val[ix(c, m, ci, ti)] = (struct pmt_count_value){ 0 };
			c->unread[m] = true;
		}
}

static void tool_time_read(struct pmt_counter *c, uint32_t e)
{
	const struct pmt_count_plan *p = c->plan;

	c->tool_cpu_absent[e] = false;
	for (uint32_t ci = 0; ci < c->nr_cpus; ci++) {
		for (uint32_t ti = 0; ti < c->nr_threads; ti++) {
			size_t i = ix(c, e, ci, ti);
			uint64_t now;

			/* a CPU the tree lists and /proc/stat lacks: a counted 0 (perf 7.3's
			 * stat -vv at the end of a run: "2: 0 1 1", the total's run time 8 on
			 * the 8-CPU tree of a 2-CPU host), a failed read for -I */
			if (c->tool_base[i] == UINT64_MAX && p->per_cpu &&
			    pmt_count_on_cpu(p, &p->ev.ev[e], ci)) {
				c->tool_cpu_absent[e] = true;
				c->val[i] = (struct pmt_count_value){
					.ena = c->reads_before + c->tool_reads,
					.run = c->reads_before + c->tool_reads };
				continue;
			}
			if (c->tool_base[i] == UINT64_MAX)
				continue; /* never started: <not counted> */
			/* a thread gone keeps its last count: an interval's delta is then 0,
			 * not negative */
			if (tool_time_now(c, e, ci, c->threads[ti], &now))
				c->val[i].val = tool_time_ns(now > c->tool_base[i]
								 ? now - c->tool_base[i] : 0);
			c->val[i].ena = c->val[i].run = c->reads_before + c->tool_reads;
		}
	}
}

int pmt_counter_read(struct pmt_counter *c)
{
	const struct pmt_count_plan *p = c->plan;
	uint64_t now = monotonic_ns();

	c->tool_reads++;
	memset(c->unread, 0, c->nr_ev * sizeof(*c->unread));
	if (c->cpu_time && tool_time_load(&c->proc) < 0)
		return -PMT_EIO;
	for (uint32_t e = 0; e < c->nr_ev; e++) {
		bool grouped = p->ev.ev[e].attr.read_format & PMT_READ_GROUP;

		/* user_time, system_time: the ticks since the open, per CPU or thread; a
		 * thread gone (a workload, reaped before the read) reads 0, as perf 7.3's */
		if (pmt_evsel_tool_cpu_time(&p->ev.ev[e])) {
			tool_time_read(c, e);
			continue;
		}
		/* perf 7.3's tool PMU: the time since the start, on the first CPU or thread */
		if (pmt_evsel_tool(&p->ev.ev[e])) {
			c->val[ix(c, e, 0, 0)] = (struct pmt_count_value){
				.val = c->tool_unstarted ? 0 : now - c->tool_start,
				.ena = c->reads_before + c->tool_reads,
				.run = c->reads_before + c->tool_reads };
			continue;
		}
		/* perf 7.3's evsel__tpebs_read() without --record-tpebs: the value on the
		 * first CPU or thread, enabled and running 1 a read as the tool event's */
		if (p->ev.ev[e].retire_lat) {
			c->val[ix(c, e, 0, 0)] = (struct pmt_count_value){
				.val = p->retlat[e] * c->tool_reads,
				.ena = c->reads_before + c->tool_reads,
				.run = c->reads_before + c->tool_reads };
			continue;
		}
		if (grouped && !is_leader(p, e))
			continue; /* read with its leader */
		for (uint32_t ci = 0; ci < c->nr_cpus; ci++) {
			for (uint32_t ti = 0; ti < c->nr_threads; ti++) {
				int fd = c->fd[ix(c, e, ci, ti)];
				uint64_t v[3];

				if (fd < 0)
					continue;
				/* perf 7.3's read_counters(): a counter that cannot be read is
				 * <not counted> (nothing ran), the others are still printed */
				if (grouped) {
					if (read_group(c, e, ci, ti) < 0)
						unread(c, e, ci, ti);
					continue;
				}
				if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v)) {
					unread(c, e, ci, ti);
					continue;
				}
				c->val[ix(c, e, ci, ti)] =
					(struct pmt_count_value){ .val = v[0], .ena = v[1], .run = v[2] };
			}
		}
	}
	return 0;
}

void pmt_counter_set_earlier_runs(struct pmt_counter *c, uint32_t runs)
{
	/* one read a run: -r cannot be used with -I */
	c->reads_before = runs;
}

uint32_t pmt_counter_nr_threads(const struct pmt_counter *c)
{
	return c->nr_threads;
}

const struct pmt_count_value *pmt_counter_value(const struct pmt_counter *c, uint32_t e,
						uint32_t ci, uint32_t ti)
{
	return &c->val[ix(c, e, ci, ti)];
}

uint64_t pmt_counter_id(const struct pmt_counter *c, uint32_t e, uint32_t ci, uint32_t ti)
{
	return c->id[ix(c, e, ci, ti)];
}

bool pmt_counter_supported(const struct pmt_counter *c, uint32_t e)
{
	return c->supported[e];
}

bool pmt_counter_tool_cpu_absent(const struct pmt_counter *c, uint32_t e)
{
	return e < c->nr_ev && c->tool_cpu_absent[e];
}

bool pmt_counter_unread(const struct pmt_counter *c, uint32_t e)
{
	return e < c->nr_ev && c->unread[e];
}

void pmt_counter_free(struct pmt_counter *c)
{
	if (!c)
		return;
	if (c->fd) {
		size_t n = (size_t)c->nr_ev * c->nr_cpus * c->nr_threads;

		for (size_t i = 0; i < n; i++)
			if (c->fd[i] >= 0)
				close(c->fd[i]);
	}
	free(c->fd);
	free(c->id);
	free(c->val);
	free(c->supported);
	free(c->tool_cpu_absent);
	free(c->unread);
	free(c->gone);
	free(c->buf);
	free(c->tool_base);
	free(c->threads);
	tool_time_fini(&c->proc);
	free(c);
}
