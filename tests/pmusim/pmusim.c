/* A simulated Arm SPE PMU in user space (issue 10 b/c). LD_PRELOAD it into pmutrace or
 * perf: every perf_event_open is answered with a descriptor of its own (an eventfd, so it
 * polls), mmap of it returns shared memory laid out as the kernel lays out a ring, and a
 * producer thread per SPE event plays the arm_spe_pmu driver and kernel/events/
 * ring_buffer.c: SPE records (bytes from PMUSIM_SPE, e.g. made by `pmutrace synth`) go into
 * the AUX area with CIRC_SPACE (one byte kept free), PERF_RECORD_AUX is written to the data
 * ring before aux_head moves, a full AUX area gives TRUNCATED|PARTIAL and disables the
 * event until the consumer enables it again, a full data ring drops records and sends
 * PERF_RECORD_LOST before the next one. Software events (dummy) get a ring too and write
 * nothing. Environment:
 *   PMUSIM_TYPE=8           the SPE PMU type (as in the fake sysfs)
 *   PMUSIM_SPE=FILE         SPE bytes to produce, consumed record-aligned in order
 *   PMUSIM_CHUNK=BYTES      bytes per driver "interrupt" (default 4096)
 *   PMUSIM_RATE=BYTES/S     producer rate (default: as fast as it can)
 *   PMUSIM_LOG=FILE         what was produced, dropped and flagged, one line per event
 *   PMUSIM_COLLIDE=N        every Nth AUX record carries COLLISION
 *   PMUSIM_DONE_SIGNAL=N    send signal N to the process when every byte was produced
 *                           (benchmarks: the recorder stops once it has all of them)
 *   PMUSIM_SEED=S           deterministic producer, for comparing two recorders exactly:
 *                           record i goes to the event on CPU i % PMUSIM_SHARDS (default
 *                           1), chunks are whole records up to PMUSIM_CHUNK, the producer
 *                           waits for room in both rings instead of flagging a full area,
 *                           and losses come from a per-event PRNG (seeded by S and the
 *                           CPU), one draw per chunk: with PMUSIM_TRUNCATE=N one chunk in N
 *                           is dropped with TRUNCATED|PARTIAL (the event stops until
 *                           enabled), with PMUSIM_LOSE=N one chunk's PERF_RECORD_AUX in N
 *                           is dropped as from a full data ring (LOST before the next
 *                           record). Which bytes and records each CPU gets, and every
 *                           flag, depend only on the stream position, not on timing.
 * The SPE records are split across the events in CPU order, so with one event per CPU
 * each CPU gets a share in turn. pebs.c adds an Intel core PMU (PMUSIM_PEBS_TYPE): PEBS
 * samples with retire latencies and counting reads; it is included at the end, so the
 * preload is still built from this one file. */
#define _GNU_SOURCE
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
static uint8_t *spe_bytes;
static size_t spe_len, spe_pos;
static uint32_t *rec_end; /* end offset of each whole record, found once at load */
static size_t nrec, rec_ix;
static uint64_t next_id = 1000;
static int nspe;

static long (*real_syscall)(long, ...);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_ioctl)(int, unsigned long, ...);
static int (*real_close)(int);
static int (*real_poll)(struct pollfd *, nfds_t, int);

static void init_real(void)
{
	if (real_syscall)
		return;
	real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	real_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	real_poll = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
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

static void index_records(void);

static void load_spe(void)
{
	const char *path = getenv("PMUSIM_SPE");
	FILE *f;
	struct stat sb;

	if (spe_bytes || !path || stat(path, &sb))
		return;
	f = fopen(path, "rb");
	if (!f)
		return;
	spe_bytes = malloc((size_t)sb.st_size);
	if (spe_bytes && fread(spe_bytes, 1, (size_t)sb.st_size, f) == (size_t)sb.st_size)
		spe_len = (size_t)sb.st_size;
	fclose(f);
	index_records();
}

/* the length of the SPE record at p: packets up to and including an END (0x01) or a
 * TIMESTAMP (0x71), sized as perf's arm_spe_do_get_packet() (arm-spe.md section 1) */
static size_t record_len(const uint8_t *p, size_t left)
{
	size_t i = 0;

	while (i < left) {
		uint8_t h = p[i];
		size_t hl = 1;

		if (h == 0x00) { /* PAD */
			i++;
			continue;
		}
		if (h == 0x01)
			return i + 1;
		if (h == 0x71)
			return i + 9 <= left ? i + 9 : 0;
		if ((h & 0xfc) == 0x20) { /* extended header: the second byte has the size */
			if (i + 1 >= left)
				return 0;
			h = p[i + 1];
			hl = 2;
		}
		i += hl + (1u << ((h >> 4) & 3));
	}
	return 0;
}

static void index_records(void)
{
	size_t pos = 0, cap = spe_len / 16 + 16;

	rec_end = malloc(cap * sizeof(*rec_end));
	while (rec_end && pos < spe_len) {
		size_t l = record_len(spe_bytes + pos, spe_len - pos);

		if (!l)
			break;
		pos += l;
		if (nrec == cap) {
			uint32_t *n = realloc(rec_end, (cap *= 2) * sizeof(*rec_end));

			if (!n)
				break;
			rec_end = n;
		}
		rec_end[nrec++] = (uint32_t)pos;
	}
	spe_len = pos; /* a cut last record is not produced */
}

/* the length of the next whole record, or 0 at the end */
static size_t next_record_len(void)
{
	return rec_ix < nrec ? rec_end[rec_ix] - spe_pos : 0;
}

/* up to `max` bytes of whole records, or 0 when the next does not fit or none is left */
static size_t take_records(size_t max, const uint8_t **out)
{
	size_t n;

	pthread_mutex_lock(&lock);
	*out = spe_bytes + spe_pos;
	n = rec_ix;
	while (n < nrec && rec_end[n] - spe_pos <= max)
		n++;
	max = n > rec_ix ? rec_end[n - 1] - spe_pos : 0;
	rec_ix = n;
	spe_pos += max;
	pthread_mutex_unlock(&lock);
	return max;
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
	uint64_t head = *up64(e, 1024), tail = __atomic_load_n(up64(e, 1032), __ATOMIC_ACQUIRE);
	uint8_t lost[64];

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

static void aux_record(struct ev *e, uint64_t off, uint64_t size, uint64_t flags)
{
	uint8_t r[96];
	size_t n = 8;
	uint16_t sz;

	memset(r, 0, 8);
	r[0] = 11; /* PERF_RECORD_AUX */
	memcpy(r + 8, &off, 8);
	memcpy(r + 16, &size, 8);
	memcpy(r + 24, &flags, 8);
	n = 32;
	sid_trailer(e, r, &n);
	sz = (uint16_t)n;
	memcpy(r + 6, &sz, 2);
	data_put(e, r, n);
	e->aux_records++;
}

static void itrace_start(struct ev *e)
{
	uint8_t r[96];
	size_t n = 16;
	uint16_t sz;
	uint32_t pt[2] = { (uint32_t)e->pid, (uint32_t)e->pid };

	memset(r, 0, 8);
	r[0] = 12; /* PERF_RECORD_ITRACE_START */
	memcpy(r + 8, pt, 8);
	sid_trailer(e, r, &n);
	sz = (uint16_t)n;
	memcpy(r + 6, &sz, 2);
	data_put(e, r, n);
}

/* One step of the driver: write what fits, or flag a full area. Called with e->busy held. */
static void produce_once(struct ev *e, size_t chunk, unsigned collide)
{
	uint64_t head, tail, space;
	const uint8_t *rec;
	size_t n;

	if (!e->itrace_sent) {
		itrace_start(e);
		e->itrace_sent = 1;
	}
	head = *up64(e, 1056);
	tail = __atomic_load_n(up64(e, 1064), __ATOMIC_ACQUIRE);
	/* CIRC_SPACE(head, tail, size): one byte always kept free */
	space = (tail - head - 1) & (e->aux_size - 1);
	if (e->overwrite)
		space = e->aux_size - 1;
	n = take_records(space < chunk ? (size_t)space : chunk, &rec);
	if (!n) {
		size_t want;

		pthread_mutex_lock(&lock);
		want = next_record_len();
		pthread_mutex_unlock(&lock);
		if (!want) { /* nothing left to produce */
			static int signalled;
			const char *sig = getenv("PMUSIM_DONE_SIGNAL");

			if (sig && !__atomic_exchange_n(&signalled, 1, __ATOMIC_SEQ_CST))
				kill(getpid(), atoi(sig));
			return;
		}
		/* the area is full: the driver flags TRUNCATED, and PARTIAL for the record the
		 * hardware could not finish (PMBSR.DL), and stops until enabled again */
		{
			const uint8_t *lost;

			e->dropped += take_records(want, &lost);
		}
		aux_record(e, head, 0, 0x1 | 0x4);
		e->truncated++;
		e->enabled = 0;
		simlog("cpu %d truncated at %llu\n", e->cpu, (unsigned long long)head);
		return;
	}
	{
		/* the hardware's writes, in at most two pieces */
		size_t at = (size_t)(head & (e->aux_size - 1));
		size_t first = n < e->aux_size - at ? n : (size_t)(e->aux_size - at);

		memcpy(e->aux + at, rec, first);
		memcpy(e->aux, rec + first, n - first);
	}
	/* PERF_RECORD_AUX before aux_head moves (perf_aux_output_end) */
	aux_record(e, head, n,
		   (e->overwrite ? 0x2 : 0) |
			   (collide && (e->aux_records + 1) % collide == 0 ? (e->collisions++, 0x8)
									    : 0));
	__atomic_store_n(up64(e, 1056), head + n, __ATOMIC_RELEASE);
	e->produced += n;
}

static uint64_t det_next(struct ev *e)
{
	/* xorshift64 */
	e->det_rng ^= e->det_rng << 13;
	e->det_rng ^= e->det_rng >> 7;
	e->det_rng ^= e->det_rng << 17;
	return e->det_rng;
}

/* the event's share of the records: indices shard, shard + shards, ... */
static int det_shard(const struct ev *e, size_t *shards)
{
	const char *ss = getenv("PMUSIM_SHARDS");

	*shards = ss && atoi(ss) > 0 ? (size_t)atoi(ss) : 1;
	return e->cpu < 0 ? 0 : e->cpu % (int)*shards;
}

/* every mapped SPE event has produced its share (called with lock held) */
static int det_all_done(void)
{
	for (int i = 0; i < MAX_EV; i++)
		if (evs[i].used && evs[i].spe && evs[i].aux && evs[i].det_rec < nrec)
			return 0;
	return 1;
}

/* One step of the deterministic driver (PMUSIM_SEED). Called with e->busy held. */
static void produce_det(struct ev *e, size_t chunk, unsigned collide, unsigned trunc,
			unsigned lose)
{
	size_t shards, n = 0, k;
	uint64_t head, tail, space, dhead, dtail, r;
	const int shard = det_shard(e, &shards);

	if (!e->det_rec && !e->produced && !e->dropped)
		e->det_rec = (uint64_t)shard;
	if (!e->itrace_sent) {
		itrace_start(e);
		e->itrace_sent = 1;
	}
	/* this chunk: whole records of the event's share, up to chunk bytes (one at least) */
	for (k = e->det_rec; k < nrec; k += shards) {
		size_t l = rec_end[k] - (k ? rec_end[k - 1] : 0);

		if (n && n + l > chunk)
			break;
		n += l;
	}
	if (!n) {
		static int signalled;
		const char *sig = getenv("PMUSIM_DONE_SIGNAL");

		pthread_mutex_lock(&lock);
		if (sig && det_all_done() && !__atomic_exchange_n(&signalled, 1, __ATOMIC_SEQ_CST))
			kill(getpid(), atoi(sig));
		pthread_mutex_unlock(&lock);
		usleep(1000);
		return;
	}
	/* room for the chunk, and for PERF_RECORD_AUX with a LOST before it: else later */
	head = *up64(e, 1056);
	tail = __atomic_load_n(up64(e, 1064), __ATOMIC_ACQUIRE);
	space = e->overwrite ? e->aux_size - 1 : (tail - head - 1) & (e->aux_size - 1);
	dhead = *up64(e, 1024);
	dtail = __atomic_load_n(up64(e, 1032), __ATOMIC_ACQUIRE);
	if (space < n || e->data_size - (dhead - dtail) < 256)
		return;
	r = det_next(e);
	for (uint64_t i = e->det_rec, at = head; i < k; i += shards) {
		size_t from = i ? rec_end[i - 1] : 0, l = rec_end[i] - from;

		for (size_t b = 0; b < l; b++)
			e->aux[(at + b) & (e->aux_size - 1)] = spe_bytes[from + b];
		at += l;
	}
	e->det_rec = k;
	if (trunc && r % trunc == 0) {
		/* the buffer "filled" after this chunk (PMBSR.DL): the driver ends the AUX
		 * record with TRUNCATED|PARTIAL and stops; the next chunk's records are the
		 * ones the hardware could not write. The record carries the chunk, so aux_head
		 * moves and a recorder reading it re-enables (perf's arm_spe_read_finish runs
		 * only when there was data) */
		size_t drop = 0;

		aux_record(e, head, n, 0x1 | 0x4);
		e->truncated++;
		for (; k < nrec; k += shards) {
			size_t l = rec_end[k] - (k ? rec_end[k - 1] : 0);

			if (drop && drop + l > chunk)
				break;
			drop += l;
		}
		e->det_rec = k;
		e->dropped += drop;
		e->enabled = 0;
		simlog("cpu %d truncated at %llu\n", e->cpu, (unsigned long long)(head + n));
	} else if (lose && (r >> 32) % lose == 0) {
		/* the data ring had no room for it (perf_output_begin): counted, LOST next */
		e->lost_pending++;
		e->data_lost++;
		e->aux_records++;
	} else {
		aux_record(e, head, n,
			   (e->overwrite ? 0x2 : 0) |
				   (collide && (e->aux_records + 1) % collide == 0
					    ? (e->collisions++, 0x8) : 0));
	}
	__atomic_store_n(up64(e, 1056), head + n, __ATOMIC_RELEASE);
	e->produced += n;
}

static void *producer(void *arg)
{
	struct ev *e = arg;
	const char *cs = getenv("PMUSIM_CHUNK"), *rs = getenv("PMUSIM_RATE");
	const char *co = getenv("PMUSIM_COLLIDE");
	size_t chunk = cs ? strtoull(cs, NULL, 0) : 4096;
	double rate = rs ? strtod(rs, NULL) : 0;
	unsigned collide = co ? (unsigned)atoi(co) : 0;
	const char *seed = getenv("PMUSIM_SEED"), *tr = getenv("PMUSIM_TRUNCATE");
	const char *lo = getenv("PMUSIM_LOSE");
	unsigned trunc = tr ? (unsigned)atoi(tr) : 0, lose = lo ? (unsigned)atoi(lo) : 0;
	uint64_t t0 = now_ns();

	if (seed)
		e->det_rng = (strtoull(seed, NULL, 0) + 1) * 0x9e3779b97f4a7c15ull +
			     (uint64_t)(e->cpu + 2) * 0xbf58476d1ce4e5b9ull;

	while (!e->stop) {
		if (!e->enabled || !e->aux ||
		    (rate > 0 && (double)e->produced > rate * (double)(now_ns() - t0) / 1e9)) {
			usleep(rate > 0 ? 200 : 1000);
			continue;
		}
		pthread_mutex_lock(&e->busy);
		if (e->enabled && seed)
			produce_det(e, chunk, collide, trunc, lose);
		else if (e->enabled)
			produce_once(e, chunk, collide);
		pthread_mutex_unlock(&e->busy);
	}
	return NULL;
}

static void start_producer(struct ev *e)
{
	if (e->spe && e->aux && !e->thr_started) {
		e->thr_started = 1;
		pthread_create(&e->thr, NULL, producer, e);
	}
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
		e->enabled = 1;
		return 0;
	case IOC_DISABLE:
		/* the kernel stops the event before the ioctl returns: no write after this */
		e->enabled = 0;
		pthread_mutex_lock(&e->busy);
		pthread_mutex_unlock(&e->busy);
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

SIM_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	nfds_t others;
	int ready, r;

	init_real();
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
			     "data_lost %llu collisions %llu\n", e->cpu, (unsigned long long)e->produced,
			     (unsigned long long)e->dropped, (unsigned long long)e->truncated,
			     (unsigned long long)e->aux_records, (unsigned long long)e->data_lost,
			     (unsigned long long)e->collisions);
		e->used = 0;
	}
	return real_close(fd);
}

/* the Intel core PMU: a file of its own, built into this one */
#include "pebs.c"
