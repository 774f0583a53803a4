/* Capture: open the plan's events, map one ring per CPU (or per thread), drain data and
 * AUX rings into a pmutrace container as pipe-mode perf.data records, as perf record does
 * (builtin-record.c: record__open, record__mmap_read_all, record__auxtrace_mmap_read). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture_priv.h"
#include "open_error.h"
#include "pmutrace/container.h"
#include "pmutrace/counting.h"

/* linux/perf_event.h ioctls, spelled out so the build does not need kernel headers */
#define IOC_ENABLE 0x2400
#define IOC_DISABLE 0x2401
#define IOC_SET_OUTPUT 0x2405
#define IOC_ID 0x80082407
#define FLAG_FD_CLOEXEC (1UL << 3)

uint64_t cap_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The kernel reports multiplexing only to readers of TOTAL_TIME_*, which perf record's
 * attrs do not ask for; the ring owner's user page has the times anyway. */
static void note_multiplexing(struct cap *c)
{
	c->st->least_running = 1.0;
	for (uint32_t s = 0; s < c->nslots; s++) {
		uint64_t enabled, running;

		pmt_ring_times(&c->rings[s], &enabled, &running);
		if (!enabled || running >= enabled)
			continue;
		c->st->multiplexed++;
		if ((double)running / (double)enabled < c->st->least_running) {
			uint32_t owner = 0;

			/* the ring is the slot's first open event's (map_all) */
			while (owner + 1 < c->plan->ev.nr && c->fds[FD_IX(c, s, 0, owner)] < 0)
				owner++;
			c->st->least_running = (double)running / (double)enabled;
			c->st->least_running_slot = s;
			c->st->least_running_event = owner;
		}
	}
}

/* threads of -p PID (/proc/PID/task), or the one target */
static int target_threads(struct cap *c, struct pmt_diag *diag)
{
	if (c->o->target == PMT_TARGET_PID) {
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)c->ro->pid);
		if (access(path, F_OK))
			return pmt_diag_set(diag, -PMT_ENOT_FOUND, NULL, PMT_DIAG_NO_OFFSET,
					    "-p %d: no such process", (int)c->ro->pid);
		snprintf(path, sizeof(path), "ls /proc/%d/task", (int)c->ro->pid);
		f = popen(path, "r");
		while (f && c->nthreads < CAP_MAX_THREADS) {
			int t;

			if (fscanf(f, "%d", &t) != 1)
				break;
			c->threads[c->nthreads++] = t;
		}
		if (f)
			pclose(f);
		return c->nthreads ? 0 : -PMT_ENOT_FOUND;
	}
	if (c->o->target == PMT_TARGET_TID)
		c->threads[c->nthreads++] = c->ro->pid;
	else if (c->o->target == PMT_TARGET_WORKLOAD)
		c->threads[c->nthreads++] = c->child;
	else
		c->threads[c->nthreads++] = -1;
	return 0;
}

/* perf's evlist__prepare_workload(), shared with stat (pmutrace/counting.h) */
static int fork_workload(struct cap *c, struct pmt_diag *diag)
{
	struct pmt_workload w;
	int rc = pmt_workload_prepare(&w, c->ro->argv, diag);

	c->child = w.pid;
	c->go_fd = w.go_fd;
	c->err_fd = w.err_fd;
	return rc;
}

static int start_workload(struct cap *c, struct pmt_diag *diag)
{
	struct pmt_workload w = { .pid = c->child, .go_fd = c->go_fd, .err_fd = c->err_fd };
	int rc = pmt_workload_start(&w, c->ro->argv[0], diag);

	c->st->workload_exec_errno = w.exec_errno;
	c->child = w.pid;
	c->go_fd = w.go_fd;
	c->err_fd = w.err_fd;
	return rc;
}

/* perf's rule (builtin-record.c): a workload still running when the recording stops gets
 * a SIGTERM and the recorder waits for it; here before the last drain, so its last samples
 * and its EXIT are in the file. A workload that ignores SIGTERM would hold the file open
 * for ever (perf's wait() does): another stop signal, which interrupts the wait, kills it. */
static void end_workload(struct cap *c)
{
	int status;

	c->st->workload_terminated = true;
	kill(c->child, SIGTERM);
	for (;;) {
		pid_t r = waitpid(c->child, &status, 0);

		if (r == c->child) {
			c->st->workload_status = status;
			break;
		}
		if (r < 0 && errno != EINTR)
			break;
		/* SIGUSR2 asks for a snapshot, which the ended loop no longer takes */
		if (r < 0 && !(c->ro->snapshot && *c->ro->snapshot))
			kill(c->child, SIGKILL);
		if (c->ro->snapshot)
			*c->ro->snapshot = 0;
	}
	c->child = -1;
}

static int open_all(struct cap *c, struct pmt_diag *diag)
{
	const struct pmt_record_plan *p = c->plan;

	open_error_warn_retire_latency(&p->ev, "/dev/cpu", p->per_cpu ? c->slot_cpu[0] : 0);
	for (uint32_t s = 0; s < c->nslots; s++) {
		for (int t = 0; t < c->nthreads; t++) {
			for (uint32_t e = 0; e < p->ev.nr; e++) {
				const struct pmt_evsel *ev = &p->ev.ev[e];
				int cpu = p->per_cpu ? c->slot_cpu[s] : -1;
				pid_t pid = p->per_cpu ? c->threads[t] : c->threads[s];
				int fd, *slot = &c->fds[FD_IX(c, s, t, e)];
				uint64_t id = 0;

				int group_fd = ev->leader == e ? -1
							       : c->fds[FD_IX(c, s, t, ev->leader)];

				if (!p->per_cpu && t)
					continue; /* per thread: a slot is a thread */
				/* a hybrid core PMU's event counts on its own CPUs only */
				if (cpu >= 0 && ev->pmu && ev->pmu->core && ev->pmu->has_cpus &&
				    !pmt_cpumask_has(&ev->pmu->cpus, (unsigned)cpu))
					continue;
				if (ev->leader != e && group_fd < 0)
					continue; /* its leader is not on this CPU either */
				fd = (int)syscall(SYS_perf_event_open, &ev->attr, pid, cpu, group_fd,
						  FLAG_FD_CLOEXEC);
				if (fd < 0) {
					int err = errno;
					struct open_error_env env;

					open_error_env_read(&env, (uint64_t)c->nfds);
					return open_error_explain(ev, cpu, pid, err, &env, diag);
				}
				*slot = fd;
				if (ioctl(fd, IOC_ID, &id) == 0)
					c->ids[e][c->nids[e]++] = id;
			}
		}
	}
	return 0;
}

static int map_all(struct cap *c, struct pmt_diag *diag)
{
	const struct pmt_record_plan *p = c->plan;
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (uint32_t s = 0; s < c->nslots; s++) {
		int leader = -1;

		/* the ring belongs to the slot's first open event (a hybrid CPU has only its
		 * own PMU's) */
		for (size_t i = FD_IX(c, s, 0, 0); leader < 0 && i < FD_IX(c, s + 1, 0, 0); i++)
			leader = c->fds[i];
		bool aux = p->full_auxtrace && p->aux_pages && p->ev.ev[0].pmu;
		int rc = pmt_ring_map(&c->rings[s], leader, p->mmap_pages, aux ? p->aux_pages : 0,
				      p->snapshot_size != 0, page);

		if (rc < 0) {
			char what[96];

			snprintf(what, sizeof(what), "the ring of %s %d (%u pages%s)",
				 c->slot_cpu[s] >= 0 ? "CPU" : "thread",
				 c->slot_cpu[s] >= 0 ? c->slot_cpu[s] : c->threads[s],
				 p->mmap_pages, aux ? " + AUX area" : "");
			if (rc == -PMT_EPERM)
				return mmap_error_explain(what, p->mmap_pages, p->aux_pages,
							  diag);
			return pmt_diag_set(diag, rc, NULL, PMT_DIAG_NO_OFFSET, "mmap of %s: %s",
					    what, strerror(errno));
		}
		c->ring_fd[s] = leader;
		for (int t = 0; t < c->nthreads; t++)
			for (uint32_t e = 0; e < p->ev.nr; e++) {
				int fd = c->fds[FD_IX(c, s, t, e)];

				if (fd < 0 || fd == leader)
					continue;
				/* one ring per CPU: the others write into the leader's */
				if (ioctl(fd, IOC_SET_OUTPUT, leader))
					return pmt_diag_set(diag, -PMT_EIO, NULL,
							    PMT_DIAG_NO_OFFSET,
							    "redirecting %s into its CPU's ring: %s",
							    p->ev.ev[e].name, strerror(errno));
			}
	}
	return 0;
}

static void for_each_fd(struct cap *c, unsigned long req)
{
	for (size_t i = 0; i < c->nfds; i++)
		if (c->fds[i] >= 0)
			ioctl(c->fds[i], req, 0);
}

void cap_enable(struct cap *c, bool on)
{
	c->stopped = !on;
	for_each_fd(c, on ? IOC_ENABLE : IOC_DISABLE);
}

/* the AUX events of a slot on or off (perf's arm_spe_snapshot_start/finish) */
static void slot_aux(struct cap *c, uint32_t s, unsigned long req)
{
	for (int t = 0; t < c->nthreads; t++)
		for (uint32_t e = 0; e < c->plan->ev.nr; e++) {
			int fd = c->fds[FD_IX(c, s, t, e)];

			if (fd >= 0 && c->plan->ev.ev[e].pmu && c->plan->ev.ev[e].attr.type ==
								      c->plan->ev.ev[0].attr.type)
				ioctl(fd, req, 0);
		}
}

void cap_slot_aux_enable(struct cap *c, uint32_t s, bool on)
{
	slot_aux(c, s, on ? IOC_ENABLE : IOC_DISABLE);
}

void cap_reenable_slot(struct cap *c, uint32_t s)
{
	/* the SPE driver disables the event when the AUX area fills (TRUNCATED): as perf's
	 * auxtrace_record__read_finish, turn it back on once the tail moved; not after the
	 * recording stopped (perf's arm_spe_read_finish checks evsel->disabled): the last
	 * drain would enable events that then write into rings about to be unmapped */
	if (c->stopped)
		return;
	for (int t = 0; t < c->nthreads; t++) {
		int fd = c->fds[FD_IX(c, s, t, 0)];

		if (fd >= 0)
			ioctl(fd, IOC_ENABLE, 0);
	}
}

static void cap_free(struct cap *c)
{
	for (uint32_t s = 0; c->rings && s < c->nslots; s++)
		pmt_ring_unmap(&c->rings[s]);
	for (size_t i = 0; c->fds && i < c->nfds; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	for (uint32_t e = 0; c->ids && e < c->plan->ev.nr; e++)
		free(c->ids[e]);
	free(c->ids);
	free(c->nids);
	free(c->fds);
	free(c->rings);
	free(c->ring_fd);
	free(c->slot_cpu);
	free(c->reenable);
	free(c->snap_head);
	free(c->snap_wrapped);
	cap_counts_free(c);
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
}

static int cap_alloc(struct cap *c)
{
	const struct pmt_record_plan *p = c->plan;

	c->nfds = (size_t)c->nslots * (size_t)c->nthreads * p->ev.nr;
	c->fds = malloc(c->nfds * sizeof(*c->fds));
	c->rings = calloc(c->nslots, sizeof(*c->rings));
	c->ring_fd = calloc(c->nslots, sizeof(*c->ring_fd));
	c->reenable = calloc(c->nslots, sizeof(*c->reenable));
	c->snap_head = calloc(c->nslots, sizeof(*c->snap_head));
	c->snap_wrapped = calloc(c->nslots, sizeof(*c->snap_wrapped));
	c->ids = calloc(p->ev.nr, sizeof(*c->ids));
	c->nids = calloc(p->ev.nr, sizeof(*c->nids));
	if (!c->fds || !c->rings || !c->ring_fd || !c->ids || !c->nids || !c->reenable ||
	    !c->snap_head || !c->snap_wrapped)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < c->nfds; i++)
		c->fds[i] = -1;
	for (uint32_t e = 0; e < p->ev.nr; e++)
		if (!(c->ids[e] = calloc((size_t)c->nslots * (size_t)c->nthreads, 8)))
			return -PMT_ENOMEM;
	return 0;
}

int pmt_record_run(const struct pmt_record_plan *plan, const struct pmt_record_opts *o,
		   const struct pmt_record_run_opts *ro, struct pmt_record_stats *st,
		   struct pmt_diag *diag)
{
	struct cap c = { .plan = plan, .o = o, .ro = ro, .st = st, .child = -1, .go_fd = -1,
			 .err_fd = -1 };
	struct timespec cpu0, cpu1;
	int rc;

	memset(st, 0, sizeof(*st));
	st->workload_status = -1;
	if (!PMT_OPTS_HAS(ro, argc_cmdline) || !PMT_OPTS_HAS(o, page_size))
		return -PMT_EINVAL;
	if (o->target == PMT_TARGET_WORKLOAD && (!ro->argv || !ro->argv[0]))
		return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
				    "no workload to run");
	/* -a/-C -- CMD: the workload is forked first too, and started once the CPUs record */
	if ((o->target == PMT_TARGET_WORKLOAD ||
	     ((o->target == PMT_TARGET_SYSTEM || o->target == PMT_TARGET_CPUS) && ro->argv &&
	      ro->argv[0])) &&
	    (rc = fork_workload(&c, diag)) < 0)
		return rc;
	rc = target_threads(&c, diag);
	if (rc < 0)
		goto out;
	if (plan->per_cpu) {
		int cpu = -1;

		c.slot_cpu = malloc(PMT_CPUS_MAX * sizeof(*c.slot_cpu));
		if (!c.slot_cpu) {
			rc = -PMT_ENOMEM;
			goto out;
		}
		while ((cpu = pmt_cpumask_next(&plan->cpus, (unsigned)(cpu + 1))) >= 0)
			c.slot_cpu[c.nslots++] = cpu;
	} else {
		c.nslots = (uint32_t)c.nthreads;
		c.slot_cpu = malloc(c.nslots * sizeof(*c.slot_cpu));
		if (!c.slot_cpu) {
			rc = -PMT_ENOMEM;
			goto out;
		}
		for (uint32_t s = 0; s < c.nslots; s++)
			c.slot_cpu[s] = -1;
	}
	rc = cap_alloc(&c);
	if (rc >= 0)
		rc = open_all(&c, diag);
	if (rc >= 0)
		rc = cap_counts_open(&c, diag);
	if (rc >= 0)
		rc = map_all(&c, diag);
	if (rc >= 0)
		rc = cap_output_open(&c, diag);
	if (rc < 0)
		goto out;
	/* before time 0: the counters count from it, the rounds' times too */
	cap_counts_clock(&c);
	c.t0 = cap_now_ns();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
	if (o->target == PMT_TARGET_WORKLOAD) {
		rc = start_workload(&c, diag);
	} else {
		cap_enable(&c, true);
		cap_counts_enable(&c, true);
		if (c.child > 0)
			rc = start_workload(&c, diag);
	}
	if (rc >= 0)
		rc = cap_loop(&c, diag);
	/* snapshot mode: the area as it is at the end, as perf's --snapshot=e */
	if (rc >= 0 && plan->snapshot_size)
		rc = cap_snapshot(&c, diag);
	if (rc >= 0 && c.child > 0 && c.go_fd < 0)
		end_workload(&c);
	cap_enable(&c, false);
	cap_counts_enable(&c, false);
	{
		int rc2 = cap_drain_all(&c, diag);

		if (rc >= 0 && rc2 < 0)
			rc = rc2;
	}
	/* the counts as they stand when the recording stops: the last round */
	if (rc >= 0 && (rc = cap_counts_round(&c, true)) < 0)
		pmt_diag_set(diag, rc, ro->out, PMT_DIAG_NO_OFFSET, "reading or writing the "
			     "counts: %s", pmt_errstr(rc));
	st->wall_ns = cap_now_ns() - c.t0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
	st->drain_cpu_ns = (uint64_t)(cpu1.tv_sec - cpu0.tv_sec) * 1000000000ull +
			   (uint64_t)cpu1.tv_nsec - (uint64_t)cpu0.tv_nsec;
	note_multiplexing(&c);
	{
		int rc2 = cap_output_close(&c, rc, diag);

		if (rc >= 0 && rc2 < 0)
			rc = rc2;
	}
out:
	if (c.child > 0) {
		int status;

		/* a child still waiting for "go" reads EOF and exits: the SIGTERM may come
		 * before its read, when the handler it inherited only sets a flag */
		if (c.go_fd >= 0) {
			close(c.go_fd);
			c.go_fd = -1;
		}
		if (rc < 0)
			kill(c.child, SIGTERM);
		if (waitpid(c.child, &status, 0) == c.child)
			st->workload_status = status;
	}
	st->slots = c.nslots;
	st->slot_cpu = c.slot_cpu;
	c.slot_cpu = NULL;
	cap_free(&c);
	return rc;
}

void pmt_record_stats_fini(struct pmt_record_stats *st)
{
	free(st->lost_per_slot);
	free(st->slot_cpu);
	st->lost_per_slot = NULL;
	st->slot_cpu = NULL;
}
