/* A simulated PMU in user space (issue 10 b/c). LD_PRELOAD it into pmutrace or perf: every
 * perf_event_open is answered with a descriptor of its own (an eventfd, so it polls), mmap
 * of it returns shared memory laid out as the kernel lays out a ring, and munmap of a ring
 * detaches it from its event as the kernel does. Software events (dummy) get a ring too and
 * write nothing. The PMUs are files of their own, included at the end so that the preload
 * is still built from this one file: spe.c (Arm SPE: AUX area, PMUSIM_SPE and the other
 * producer settings are listed there) and pebs.c (an Intel core PMU, PMUSIM_PEBS_TYPE: PEBS
 * samples with retire latencies and counting reads). Environment here:
 *   PMUSIM_TYPE=8           the SPE PMU type (as in the fake sysfs)
 *   PMUSIM_LOG=FILE         what was produced, dropped and flagged, one line per event
 *   PMUSIM_DISABLE_LOG=FILE a line per IOC_DISABLE of an SPE event, as it returns: a test
 *                           sees a snapshot taken (the recorder stops every event) */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pmusim.h"

struct ev evs[MAX_EV];
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_id = 1000;
static int nspe;

static long (*real_syscall)(long, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_ioctl)(int, unsigned long, ...);
static int (*real_close)(int);
static int (*real_poll)(struct pollfd *, nfds_t, int);
static int (*real_munmap)(void *, size_t);

static void init_real(void)
{
	if (real_syscall)
		return;
	real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	real_poll = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
	real_munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
}

struct ev *find(int fd)
{
	for (int i = 0; i < MAX_EV; i++)
		if (evs[i].used && evs[i].fd == fd)
			return &evs[i];
	return NULL;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void simlog(const char *fmt, ...)
{
	const char *path = getenv("PMUSIM_LOG");
	va_list ap;
	FILE *f;

	if (!path)
		return;
	pthread_mutex_lock(&lock);
	f = fopen(path, "a");
	if (f) {
		va_start(ap, fmt);
		vfprintf(f, fmt, ap);
		va_end(ap);
		fclose(f);
	}
	pthread_mutex_unlock(&lock);
}


uint64_t *up64(struct ev *e, size_t off)
{
	return (uint64_t *)(void *)(e->base + off);
}

/* a record into the data ring as perf_output_begin/end: LOST first when records were
 * dropped, nothing when there is no room (counted as lost) */
void sid_trailer(struct ev *e, uint8_t *p, size_t *n)
{
	uint64_t v;

	if (e->sample_type & S_TID) {
		uint32_t pt[2] = { (uint32_t)e->pid, (uint32_t)e->pid };

		memcpy(p + *n, pt, 8);
		*n += 8;
	}
	if (e->sample_type & S_TIME) {
		v = now_ns();
		memcpy(p + *n, &v, 8);
		*n += 8;
	}
	if (e->sample_type & S_ID) {
		memcpy(p + *n, &e->id, 8);
		*n += 8;
	}
	if (e->sample_type & S_STREAM) {
		memcpy(p + *n, &e->id, 8);
		*n += 8;
	}
	if (e->sample_type & S_CPU) {
		uint32_t c[2] = { (uint32_t)e->cpu, 0 };

		memcpy(p + *n, c, 8);
		*n += 8;
	}
	if (e->sample_type & S_IDENTIFIER) {
		memcpy(p + *n, &e->id, 8);
		*n += 8;
	}
}

int data_put(struct ev *e, const uint8_t *rec, size_t size)
{
	uint64_t head, tail;
	uint8_t lost[64];

	if (!e->base) /* unmapped: the kernel's event has no ring buffer to write to */
		return -1;
	head = *up64(e, 1024);
	tail = __atomic_load_n(up64(e, 1032), __ATOMIC_ACQUIRE);
	if (e->lost_pending) {
		size_t n = 8;
		uint16_t sz;

		memcpy(lost + n, &e->id, 8);
		memcpy(lost + n + 8, &e->lost_pending, 8);
		n += 16;
		sid_trailer(e, lost, &n);
		memset(lost, 0, 8);
		lost[0] = 2; /* PERF_RECORD_LOST */
		sz = (uint16_t)n;
		memcpy(lost + 6, &sz, 2);
		if (e->data_size - (head - tail) < n + size) {
			e->lost_pending++;
			e->data_lost++;
			return -1;
		}
		for (size_t i = 0; i < n; i++)
			e->base[4096 + ((head + i) & (e->data_size - 1))] = lost[i];
		head += n;
		e->lost_pending = 0;
	}
	if (e->data_size - (head - tail) < size) {
		e->lost_pending++;
		e->data_lost++;
		return -1;
	}
	for (size_t i = 0; i < size; i++)
		e->base[4096 + ((head + i) & (e->data_size - 1))] = rec[i];
	__atomic_store_n(up64(e, 1024), head + size, __ATOMIC_RELEASE);
	return 0;
}


SIM_EXPORT long syscall(long nr, ...)
{
	va_list ap;
	long a[6];
	const char *ts = getenv("PMUSIM_TYPE");

	init_real();
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open) {
		const uint8_t *attr = (const uint8_t *)a[0];
		struct ev *e = NULL;
		uint32_t type;
		int fd;

		memcpy(&type, attr, 4);
		load_spe();
		fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (fd < 0)
			return -1;
		pthread_mutex_lock(&lock);
		for (int i = 0; i < MAX_EV; i++)
			if (!evs[i].used) {
				e = &evs[i];
				break;
			}
		if (e) {
			memset(e, 0, sizeof(*e));
			e->used = 1;
			e->fd = fd;
			e->type = type;
			e->pid = (int)a[1];
			e->cpu = (int)a[2];
			e->spe = ts && type == (uint32_t)atoi(ts);
			memcpy(&e->sample_type, attr + 24, 8);
			memcpy(&e->flags, attr + 40, 8);
			/* enabled unless disabled=1; enable_on_exec is taken as enabled */
			e->enabled = !(e->flags & 1) || (e->flags & (1ULL << 12));
			e->id = next_id++;
			pthread_mutex_init(&e->busy, NULL);
			pebs_open(e, attr, (int)a[3]);
			if (e->spe)
				nspe++;
		}
		pthread_mutex_unlock(&lock);
		if (!e) {
			real_close(fd);
			errno = EMFILE;
			return -1;
		}
		return fd;
	}
	return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

SIM_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct ev *e;

	init_real();
	e = fd >= 0 ? find(fd) : NULL;
	if (!e)
		return real_mmap(addr, len, prot, flags, fd, off);
	if (off == 0) {
		uint8_t *m = real_mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		uint64_t v;

		if (m == MAP_FAILED)
			return m;
		e->base = m;
		e->base_len = len;
		e->data_size = len - 4096;
		v = 4096;
		memcpy(m + 1040, &v, 8);
		memcpy(m + 1048, &e->data_size, 8);
		/* cap_user_time_zero with the identity conversion: perf time = SPE timestamp;
		 * PEBS samples carry CLOCK_MONOTONIC times (the simulated perf clock: a
		 * recorder's measure of it through a dummy event's COMM record finds no record
		 * here and takes CLOCK_MONOTONIC), which no counter converts to */
		v = e->pebs ? 0 : 1ULL << 4;
		memcpy(m + 40, &v, 8);
		{
			uint16_t shift = 0;
			uint32_t mult = 1;

			memcpy(m + 50, &shift, 2);
			memcpy(m + 52, &mult, 4);
		}
		/* PMUSIM_RUNNING_PCT=N: the event ran N% of its enabled time (multiplexed) */
		if (getenv("PMUSIM_RUNNING_PCT")) {
			uint64_t enabled = 1000000000, running;

			running = enabled / 100 * strtoull(getenv("PMUSIM_RUNNING_PCT"), NULL, 0);
			memcpy(m + 24, &enabled, 8);
			memcpy(m + 32, &running, 8);
		}
		pebs_start(e);
		return m;
	}
	if (e->base) {
		uint8_t *m = real_mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return m;
		e->aux = m;
		e->aux_size = len;
		e->overwrite = !(prot & PROT_WRITE);
		start_producer(e);
		return m;
	}
	errno = EINVAL;
	return MAP_FAILED;
}

/* perf is built with 64-bit file offsets and calls mmap64 */
SIM_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

SIM_EXPORT int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	unsigned long arg;
	struct ev *e;

	init_real();
	va_start(ap, req);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	e = find(fd);
	if (!e)
		return real_ioctl(fd, req, arg);
	switch (req) {
	case IOC_ENABLE:
		if (e->spe) {
			__atomic_store_n(&sim_recorder, pthread_self(), __ATOMIC_SEQ_CST);
			__atomic_store_n(&sim_recorder_known, 1, __ATOMIC_SEQ_CST);
			__atomic_store_n(&sim_polls_at_enable,
					 __atomic_load_n(&sim_polls, __ATOMIC_SEQ_CST), __ATOMIC_SEQ_CST);
		}
		e->enabled = 1;
		return 0;
	case IOC_DISABLE:
		/* the kernel stops the event before the ioctl returns: no write after this */
		e->enabled = 0;
		pthread_mutex_lock(&e->busy);
		if (e->spe)
			spe_stop(e);
		e->disables++;
		pthread_mutex_unlock(&e->busy);
		if (e->spe && getenv("PMUSIM_DISABLE_LOG")) {
			FILE *f = fopen(getenv("PMUSIM_DISABLE_LOG"), "a");

			if (f) {
				fprintf(f, "cpu %d\n", e->cpu);
				fclose(f);
			}
		}
		return 0;
	case IOC_ID:
		memcpy((void *)arg, &e->id, 8);
		return 0;
	case IOC_SET_OUTPUT: {
		struct ev *to = find((int)arg);

		if (!to)
			return errno = EINVAL, -1;
		e->out = to;
		pebs_start(e);
		return 0;
	}
	case IOC_RESET:
		pebs_reset(e);
		return 0;
	default:
		return 0;
	}
}

/* As the kernel's perf_mmap_close: unmapping the AUX area stops the PMU writing into it
 * (perf_pmu_output_stop) and unmapping the data ring leaves the event without a ring; the
 * event itself still runs. Recorders unmap before they close, and an event may be enabled
 * then (a recorder re-enabling after TRUNCATED), so a producer must never touch the pages
 * again: the locks wait for a write in progress. */
static void detach_ring(const void *addr)
{
	for (int i = 0; i < MAX_EV; i++) {
		struct ev *e = &evs[i];

		if (!e->used || !addr || (e->aux != addr && e->base != addr))
			continue;
		pthread_mutex_lock(&e->busy);
		pthread_mutex_lock(&e->wlock);
		e->aux = NULL; /* the AUX area is of no use without its ring's user page */
		if (e->base == addr)
			e->base = NULL;
		pthread_mutex_unlock(&e->wlock);
		pthread_mutex_unlock(&e->busy);
	}
}

SIM_EXPORT int munmap(void *addr, size_t len)
{
	init_real();
	detach_ring(addr);
	return real_munmap(addr, len);
}

/* POLLIN on the simulated descriptors whose ring holds data; *others: real descriptors */
static int sim_ready(struct pollfd *fds, nfds_t n, nfds_t *others)
{
	int ready = 0;

	*others = 0;
	for (nfds_t i = 0; i < n; i++) {
		struct ev *e = find(fds[i].fd);

		if (!e) {
			*others += fds[i].fd >= 0;
			continue;
		}
		fds[i].revents = 0;
		if (e->base && *up64(e, 1024) != *up64(e, 1032)) {
			fds[i].revents = POLLIN;
			ready++;
		}
	}
	return ready;
}

pthread_t sim_recorder;
int sim_recorder_known;
unsigned long sim_polls, sim_polls_at_enable;

SIM_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	nfds_t others;
	int ready, r;

	init_real();
	/* the recorder thread's calls only: perf's side-band thread polls its own event
	 * every 5 ms here (sim fds), which said nothing of the main loop's state */
	if (__atomic_load_n(&sim_recorder_known, __ATOMIC_SEQ_CST) &&
	    pthread_equal(pthread_self(), __atomic_load_n(&sim_recorder, __ATOMIC_SEQ_CST)))
		__atomic_add_fetch(&sim_polls, 1, __ATOMIC_SEQ_CST);
	ready = sim_ready(fds, n, &others);
	if (!ready && others == n)
		return real_poll(fds, n, timeout); /* nothing simulated: the caller's timeout */
	if (!others) {
		if (!ready)
			usleep(timeout > 0 && timeout < 5 ? (unsigned)timeout * 1000 : 5000);
		return ready;
	}
	/* the real descriptors (perf's --control pipe, a workload's) go to the kernel, the
	 * simulated ones hidden from it as negative descriptors, which poll skips */
	for (nfds_t i = 0; i < n; i++)
		if (find(fds[i].fd))
			fds[i].fd = -fds[i].fd - 1;
	r = real_poll(fds, n, ready ? 0 : timeout >= 0 && timeout < 5 ? timeout : 5);
	for (nfds_t i = 0; i < n; i++)
		if (fds[i].fd < 0 && find(-fds[i].fd - 1))
			fds[i].fd = -fds[i].fd - 1;
	ready = sim_ready(fds, n, &others);
	return r < 0 ? (ready ? ready : r) : ready + r;
}

/* counting reads of the core PMU's events; the others' descriptors are eventfds */
SIM_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*real_read)(int, void *, size_t);
	struct ev *e = fd >= 0 ? find(fd) : NULL;

	if (e && e->pebs)
		return pebs_read(e, buf, n);
	if (!real_read)
		real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	return real_read(fd, buf, n);
}

SIM_EXPORT int close(int fd)
{
	struct ev *e;

	init_real();
	e = find(fd);
	if (e) {
		e->stop = 1;
		if (e->thr_started)
			pthread_join(e->thr, NULL);
		if (e->pebs)
			pebs_close(e);
		if (e->spe)
			simlog("cpu %d produced %llu dropped %llu truncated %llu aux_records %llu "
			     "data_lost %llu collisions %llu snapshot_requests %lu resent %lu\n",
			     e->cpu, (unsigned long long)e->produced,
			     (unsigned long long)e->dropped, (unsigned long long)e->truncated,
			     (unsigned long long)e->aux_records, (unsigned long long)e->data_lost,
			     (unsigned long long)e->collisions, snap_requests, snap_resent);
		e->used = 0;
	}
	return real_close(fd);
}

/* the PMUs: files of their own, built into this one */
#include "spe.c"
#include "pebs.c"
