/* The simulated Intel core PMU (issue 11 b) of pmusim: events of a PMUSIM_PEBS_TYPE type
 * (the fake sysfs "cpu" PMU, type 4) either sample, as PEBS does, or count.
 *
 * Sampling (sample_period != 0): a producer thread per event writes PERF_RECORD_SAMPLE
 * records with the attr's sample_type into the event's ring (or the ring SET_OUTPUT sent it
 * to), waiting for room rather than dropping, so a recorder gets every sample. Each
 * distinct config has PMUSIM_PEBS_SAMPLES samples (default 10000) shared by all events of
 * that config (however many CPUs a recorder opens, it gets them all), and sample k of
 * config c always carries the same values: retire latency (WEIGHT_STRUCT var3_w), IP,
 * ADDR, var1_dw/var2_w (see sample_values()). So two recorders of the same simulated
 * hardware (pmutrace and perf) record the same multiset of samples.
 *
 * Counting (sample_period 0): read() answers with the attr's read_format (GROUP, ID,
 * TOTAL_TIME_ENABLED/RUNNING, LOST); every read of an event, or of its group, is one tick
 * of 1 ms enabled, in which it counts rate(config, cpu) = 1000 + H(config) % 9000 + cpu
 * events, of which PMUSIM_RUNNING_PCT percent (default 100) were counted while running:
 * value = rate * ticks * pct / 100, time_enabled = ticks * 1e6, time_running = that *
 * pct / 100 (a multiplexed counter; scaled back, value * enabled / running = rate * ticks).
 *
 * Topdown metric events in a slots group read as PERF_METRICS fractions of the slots
 * (topdown_value()).
 *
 * Environment: PMUSIM_PEBS_TYPE=4[,T...], PMUSIM_PERF_METRICS=0x..., PMUSIM_RATES=C:R,..., PMUSIM_PEBS_SAMPLES=N, PMUSIM_PEBS_SEED=S,
 * PMUSIM_PEBS_RATE=SAMPLES/S per event (default: as fast as the rings take them),
 * PMUSIM_RUNNING_PCT=P, PMUSIM_ATTR_LOG=FILE (every core PMU open), PMUSIM_DONE_SIGNAL=SIG (sent once every config has all its samples
 * written), PMUSIM_LOG (one line per event at close).
 *
 * pmusim.c includes this file: the preload stays one file to build (cc -shared pmusim.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pmusim.h"

enum {
	SAMPLE_ADDR = 1 << 3, SAMPLE_READ = 1 << 4, SAMPLE_CALLCHAIN = 1 << 5,
	SAMPLE_PERIOD = 1 << 8, SAMPLE_RAW = 1 << 10, SAMPLE_BRANCH_STACK = 1 << 11,
	SAMPLE_REGS_USER = 1 << 12, SAMPLE_STACK_USER = 1 << 13, SAMPLE_WEIGHT = 1 << 14,
	SAMPLE_DATA_SRC = 1 << 15, SAMPLE_TRANSACTION = 1 << 17, SAMPLE_REGS_INTR = 1 << 18,
	SAMPLE_PHYS_ADDR = 1 << 19, SAMPLE_AUX = 1 << 20, SAMPLE_CGROUP = 1 << 21,
	SAMPLE_DATA_PAGE_SIZE = 1 << 22, SAMPLE_CODE_PAGE_SIZE = 1 << 23,
	SAMPLE_WEIGHT_STRUCT = 1 << 24,
};
#define UNSUPPORTED (SAMPLE_RAW | SAMPLE_BRANCH_STACK | SAMPLE_REGS_USER | SAMPLE_STACK_USER | \
		     SAMPLE_REGS_INTR | SAMPLE_AUX)
enum { RF_ENABLED = 1, RF_RUNNING = 2, RF_ID = 4, RF_GROUP = 8, RF_LOST = 16 };
#define ATTR_FREQ (1ULL << 10)
#define MAX_CONFIGS 64

/* PMUSIM_PEBS_COMM=NAME PMUSIM_PEBS_PIDFILE=FILE: a process of that name (a workload, which
 * loads the preload too) writes its pid to FILE; system-wide and per-CPU events then
 * produce nothing until it exists and attribute their samples to it, as if it were the
 * only task running (perf's tpebs keeps only the workload's samples) */
__attribute__((constructor)) static void note_workload(void)
{
	const char *comm = getenv("PMUSIM_PEBS_COMM"), *file = getenv("PMUSIM_PEBS_PIDFILE");
	char self[64] = "";
	FILE *f;

	if (!comm || !file)
		return;
	f = fopen("/proc/self/comm", "r");
	if (f) {
		if (!fgets(self, sizeof(self), f))
			self[0] = 0;
		fclose(f);
	}
	self[strcspn(self, "\n")] = 0;
	if (strcmp(self, comm))
		return;
	f = fopen(file, "w");
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
}

/* the pid system-wide samples carry: the workload's once it runs; 0 while it is awaited */
static int32_t workload_pid(void)
{
	const char *file = getenv("PMUSIM_PEBS_PIDFILE");
	int pid = 0;
	FILE *f;

	if (!getenv("PMUSIM_PEBS_COMM") || !file)
		return getpid();
	f = fopen(file, "r");
	if (f) {
		if (fscanf(f, "%d", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	return pid;
}

static struct {
	uint64_t config, next;
} claims[MAX_CONFIGS];
static unsigned nclaims;

static uint64_t mix(uint64_t x) /* splitmix64's finaliser */
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : dflt;
}

static uint64_t running_pct(void)
{
	uint64_t pct = env_u64("PMUSIM_RUNNING_PCT", 100);

	return pct && pct <= 100 ? pct : 100;
}

static uint64_t seed(void)
{
	return env_u64("PMUSIM_PEBS_SEED", 1);
}

int pebs_type(uint32_t type)
{
	const char *s = getenv("PMUSIM_PEBS_TYPE");

	while (s && *s) {
		char *end;
		unsigned long t = strtoul(s, &end, 0);

		if (end == s)
			return 0;
		if (t == type)
			return 1;
		s = *end == ',' ? end + 1 : "";
	}
	return 0;
}

/* The retire latency of sample k of config c: a skewed distribution as measured ones are
 * (pmu-tools' gnr-retlat: median far below the mean, a saturated tail). With m = 16 +
 * H(seed, c) % 112: 70% uniform in [1, m), 25% in [m, 4m), 4.8% in [4m, 64m), 0.2% the
 * saturated 65535. */
static uint16_t retire_latency(uint64_t c, uint64_t k)
{
	uint64_t h = mix(seed() ^ mix(c) ^ mix(k + 0x51ed)), m = 16 + mix(seed() ^ c) % 112;
	uint64_t cls = h % 1000, r = h >> 20, v;

	if (cls < 700)
		v = 1 + r % (m - 1);
	else if (cls < 950)
		v = m + r % (3 * m);
	else if (cls < 998)
		v = 4 * m + r % (60 * m);
	else
		v = 65535;
	return (uint16_t)(v > 65535 ? 65535 : v);
}

/* Config c's counter, made when its first sampling event is opened: were it made at its
 * first sample, a config whose producer had not started yet would be missing from the
 * "every config has all its samples" test and the done signal could come before it got
 * any (CI: "config 0x21d0 produced 0 of 20000" under the sanitizers). The caller holds
 * `lock`. */
static void claim_register(uint64_t c)
{
	unsigned i;

	for (i = 0; i < nclaims && claims[i].config != c; i++)
		;
	if (i == nclaims && nclaims < MAX_CONFIGS)
		claims[nclaims++].config = c;
}

/* the next sample number of config c, or -1 when all were given out */
static int64_t claim(uint64_t c)
{
	uint64_t n = env_u64("PMUSIM_PEBS_SAMPLES", 10000);
	int64_t k = -1;
	unsigned i;
	int all_done = 1;

	pthread_mutex_lock(&lock);
	claim_register(c);
	for (i = 0; i < nclaims && claims[i].config != c; i++)
		;
	if (i < nclaims && claims[i].next < n)
		k = (int64_t)claims[i].next++;
	for (unsigned j = 0; j < nclaims; j++)
		all_done &= claims[j].next >= n;
	pthread_mutex_unlock(&lock);
	if (all_done) {
		static int signalled;
		const char *sig = getenv("PMUSIM_DONE_SIGNAL");

		if (sig && !__atomic_exchange_n(&signalled, 1, __ATOMIC_SEQ_CST))
			kill(getpid(), atoi(sig));
	}
	return k;
}

static void put64(uint8_t *p, size_t *n, uint64_t v)
{
	memcpy(p + *n, &v, 8);
	*n += 8;
}

static void put32x2(uint8_t *p, size_t *n, uint32_t a, uint32_t b)
{
	memcpy(p + *n, &a, 4);
	memcpy(p + *n + 4, &b, 4);
	*n += 8;
}

static struct ev *leader_of(struct ev *e)
{
	struct ev *l = e->group_fd >= 0 ? find(e->group_fd) : NULL;

	return l ? l : e;
}

/* PMUSIM_RATES=CONFIG:RATE,... fixes the per-tick count of those configs (0 is allowed) */
static int rate_override(uint64_t config, uint64_t *r)
{
	const char *s = getenv("PMUSIM_RATES");

	while (s && *s) {
		char *end;
		uint64_t c = strtoull(s, &end, 0);

		if (end == s || *end != ':')
			return 0;
		s = end + 1;
		*r = strtoull(s, &end, 0);
		if (c == config)
			return 1;
		s = *end == ',' ? end + 1 : "";
	}
	return 0;
}

static uint64_t rate(const struct ev *e)
{
	uint64_t r;

	if (rate_override(e->config, &r))
		return r;
	return 1000 + mix(seed() ^ e->config) % 9000 + (uint64_t)(e->cpu > 0 ? e->cpu : 0);
}

/* The topdown metric events (event 0x00, umask 0x80-0x87) of a group led by slots (umask
 * 0x04) read as the kernel computes them from PERF_METRICS: slots * byte_i / 0xff, with
 * byte i of PMUSIM_PERF_METRICS (default tpebs.md's test vector 0x40300C085F501040:
 * retiring 25.1%, bad speculation 6.27%, frontend bound 31.4%, backend bound 37.3%). */
static uint64_t topdown_value(const struct ev *e, uint64_t slots)
{
	uint64_t metrics = env_u64("PMUSIM_PERF_METRICS", 0x40300C085F501040ull);
	unsigned i = (unsigned)((e->config >> 8) & 0xff) - 0x80;

	return slots * ((metrics >> (8 * i)) & 0xff) / 0xff;
}

static int is_topdown_metric(const struct ev *e)
{
	return (e->config & 0xff) == 0 && ((e->config >> 8) & 0xf8) == 0x80;
}

static int is_slots(const struct ev *e)
{
	return (e->config & 0xffff) == 0x0400;
}

static void one_value(const struct ev *e, uint64_t rf, uint8_t *p, size_t *n)
{
	uint64_t pct = running_pct(), v = rate(e) * e->ticks * pct / 100;
	struct ev *l = is_topdown_metric(e) && e->group_fd >= 0 ? find(e->group_fd) : NULL;

	if (l && is_slots(l))
		v = topdown_value(e, rate(l) * e->ticks * pct / 100);
	put64(p, n, v);
	if (!(rf & RF_GROUP)) {
		if (rf & RF_ENABLED)
			put64(p, n, e->ticks * 1000000);
		if (rf & RF_RUNNING)
			put64(p, n, e->ticks * 1000000 * pct / 100);
	}
	if (rf & RF_ID)
		put64(p, n, e->id);
	if (rf & RF_LOST)
		put64(p, n, 0);
}

/* what read() returns (and PERF_SAMPLE_READ carries) for e's read_format; tick: one more
 * millisecond for e, or for its whole group */
static size_t read_values(struct ev *e, int tick, uint8_t *p, size_t cap)
{
	uint64_t rf = e->read_format, pct = running_pct();
	size_t n = 0;

	if (!(rf & RF_GROUP)) {
		if (tick)
			e->ticks++;
		one_value(e, rf, p, &n);
		return n;
	}
	{
		struct ev *l = leader_of(e);
		uint64_t nr = 1;

		pthread_mutex_lock(&lock);
		for (int i = 0; i < MAX_EV; i++)
			if (evs[i].used && evs[i].group_fd == l->fd && &evs[i] != l)
				nr++;
		if (tick)
			l->ticks++;
		put64(p, &n, nr);
		if (rf & RF_ENABLED)
			put64(p, &n, l->ticks * 1000000);
		if (rf & RF_RUNNING)
			put64(p, &n, l->ticks * 1000000 * pct / 100);
		one_value(l, rf, p, &n);
		for (int i = 0; i < MAX_EV && n + 24 <= cap; i++) {
			if (!evs[i].used || evs[i].group_fd != l->fd || &evs[i] == l)
				continue;
			evs[i].ticks = l->ticks; /* members count while their leader does */
			one_value(&evs[i], rf, p, &n);
		}
		pthread_mutex_unlock(&lock);
	}
	return n;
}

/* PMUSIM_ATTR_LOG=FILE: one line per open of a core PMU event, the attr's fields that say
 * what is counted and sampled (how a recorder's opens can be compared with another's) */
static void log_attr(const struct ev *e, const uint8_t *attr)
{
	const char *path = getenv("PMUSIM_ATTR_LOG");
	uint64_t f[9];
	FILE *fp;

	if (!path)
		return;
	memcpy(f, attr + 8, 6 * 8);   /* config, period, sample_type, read_format, flags, wakeup */
	memcpy(f + 6, attr + 56, 16); /* config1, config2 */
	fp = fopen(path, "a"); /* the caller holds `lock` */
	if (fp) {
		fprintf(fp, "type %u config %#llx period %llu sample_type %#llx read_format %#llx "
			"flags %#llx config1 %#llx config2 %#llx cpu %d\n", e->type,
			(unsigned long long)f[0], (unsigned long long)f[1],
			(unsigned long long)f[2], (unsigned long long)f[3],
			(unsigned long long)f[4], (unsigned long long)f[6],
			(unsigned long long)f[7], e->cpu);
		fclose(fp);
	}
}

void pebs_open(struct ev *e, const uint8_t *attr, int group_fd)
{
	memcpy(&e->config, attr + 8, 8);
	memcpy(&e->period, attr + 16, 8);
	memcpy(&e->read_format, attr + 32, 8);
	memcpy(&e->config1, attr + 56, 8);
	e->group_fd = group_fd;
	e->pebs = pebs_type(e->type);
	pthread_mutex_init(&e->wlock, NULL);
	if (e->pebs)
		log_attr(e, attr);
	/* an event pebs_start() will give a producer */
	if (e->pebs && e->period && !(e->sample_type & UNSUPPORTED))
		claim_register(e->config);
}

/* The values of sample k of config c (independent of which event or CPU writes it). */
static size_t sample_values(struct ev *e, uint64_t k, uint8_t *p)
{
	uint64_t c = e->config, h = mix(seed() ^ mix(c * 31 + 7) ^ k), st = e->sample_type;
	uint64_t ip = 0x401000 + (h % 1024) * 4, addr = 0x7f5a00000000ull + ((h >> 12) % 65536) * 64;
	uint16_t retlat = retire_latency(c, k);
	uint32_t pid = (uint32_t)(e->pid > 0 ? e->pid : e->task_pid);
	size_t n = 8;

	memset(p, 0, 8);
	p[0] = 9; /* PERF_RECORD_SAMPLE */
	if (st & S_IDENTIFIER)
		put64(p, &n, e->id);
	if (st & S_IP)
		put64(p, &n, ip);
	if (st & S_TID)
		put32x2(p, &n, pid, pid);
	if (st & S_TIME)
		put64(p, &n, now_ns());
	if (st & SAMPLE_ADDR)
		put64(p, &n, addr);
	if (st & S_ID)
		put64(p, &n, e->id);
	if (st & S_STREAM)
		put64(p, &n, e->id);
	if (st & S_CPU)
		put32x2(p, &n, (uint32_t)(e->cpu > 0 ? e->cpu : 0), 0);
	if (st & SAMPLE_PERIOD)
		put64(p, &n, (e->flags & ATTR_FREQ) ? 10007 : e->period);
	if (st & SAMPLE_READ)
		n += read_values(e, 0, p + n, 256);
	if (st & SAMPLE_CALLCHAIN) {
		put64(p, &n, 2);
		put64(p, &n, (uint64_t)-512); /* PERF_CONTEXT_USER */
		put64(p, &n, ip);
	}
	if (st & SAMPLE_WEIGHT_STRUCT) {
		/* var1_dw: a memory latency, var2_w: an instruction latency, var3_w: retire */
		uint32_t var1 = (uint32_t)(h >> 40) % 400;
		uint16_t var2 = (uint16_t)(retlat / 2 + 1);

		memcpy(p + n, &var1, 4);
		memcpy(p + n + 4, &var2, 2);
		memcpy(p + n + 6, &retlat, 2);
		n += 8;
	} else if (st & SAMPLE_WEIGHT) {
		put64(p, &n, (h >> 40) % 400);
	}
	if (st & SAMPLE_DATA_SRC)
		put64(p, &n, 0);
	if (st & SAMPLE_TRANSACTION)
		put64(p, &n, 0);
	if (st & SAMPLE_PHYS_ADDR)
		put64(p, &n, addr & 0xffffffffffull);
	if (st & SAMPLE_CGROUP)
		put64(p, &n, 1);
	if (st & SAMPLE_DATA_PAGE_SIZE)
		put64(p, &n, 4096);
	if (st & SAMPLE_CODE_PAGE_SIZE)
		put64(p, &n, 4096);
	{
		uint16_t sz = (uint16_t)n;

		memcpy(p + 6, &sz, 2);
	}
	return n;
}

enum { ONCE_WROTE, ONCE_FULL, ONCE_DONE };

static int produce_sample(struct ev *e, struct ev *ring)
{
	uint8_t rec[640];
	uint64_t head, tail;
	int64_t k;
	size_t n;
	int rc = ONCE_WROTE;

	pthread_mutex_lock(&ring->wlock);
	if (!ring->base) { /* unmapped since the producer looked (detach_ring) */
		pthread_mutex_unlock(&ring->wlock);
		return ONCE_FULL;
	}
	head = *up64(ring, 1024);
	tail = __atomic_load_n(up64(ring, 1032), __ATOMIC_ACQUIRE);
	/* room for the largest sample: a full ring waits (PEBS would drop; see the header) */
	if (ring->data_size - (head - tail) < sizeof(rec)) {
		pthread_mutex_unlock(&ring->wlock);
		return ONCE_FULL;
	}
	k = claim(e->config);
	if (k < 0) {
		rc = ONCE_DONE;
	} else {
		n = sample_values(e, (uint64_t)k, rec);
		data_put(ring, rec, n);
		e->samples++;
	}
	pthread_mutex_unlock(&ring->wlock);
	return rc;
}

static void *pebs_producer(void *arg)
{
	struct ev *e = arg;
	double per_s = (double)env_u64("PMUSIM_PEBS_RATE", 0);
	uint64_t t0 = now_ns();

	while (!e->stop) {
		struct ev *ring = e->out ? e->out : e;
		int rc;

		if (e->pid <= 0 && !e->task_pid && !(e->task_pid = workload_pid())) {
			usleep(1000); /* the workload has not started */
			continue;
		}
		if (!e->enabled || !ring->base ||
		    (per_s > 0 && (double)e->samples > per_s * (double)(now_ns() - t0) / 1e9)) {
			usleep(500);
			continue;
		}
		pthread_mutex_lock(&e->busy);
		rc = e->enabled ? produce_sample(e, ring) : ONCE_WROTE;
		pthread_mutex_unlock(&e->busy);
		if (rc == ONCE_FULL)
			usleep(200);
		else if (rc == ONCE_DONE)
			usleep(2000);
	}
	return NULL;
}

void pebs_start(struct ev *e)
{
	if (!e->pebs || !e->period || e->thr_started)
		return;
	if (e->sample_type & UNSUPPORTED) {
		simlog("pebs cpu %d config %#llx: sample_type %#llx has fields the simulator does "
		       "not make\n", e->cpu, (unsigned long long)e->config,
		       (unsigned long long)e->sample_type);
		return;
	}
	e->thr_started = 1;
	pthread_create(&e->thr, NULL, pebs_producer, e);
}

ssize_t pebs_read(struct ev *e, void *buf, size_t n)
{
	uint8_t tmp[8 * (4 + 3 * MAX_EV)];
	size_t len = read_values(e, 1, tmp, sizeof(tmp));

	if (n < len) {
		errno = ENOSPC;
		return -1;
	}
	memcpy(buf, tmp, len);
	return (ssize_t)len;
}

void pebs_reset(struct ev *e)
{
	e->ticks = 0;
}

void pebs_close(struct ev *e)
{
	if (e->period)
		simlog("pebs cpu %d config %#llx samples %llu\n", e->cpu,
		       (unsigned long long)e->config, (unsigned long long)e->samples);
	else
		simlog("count cpu %d config %#llx ticks %llu raw %llu enabled %llu running %llu\n",
		       e->cpu, (unsigned long long)e->config, (unsigned long long)e->ticks,
		       (unsigned long long)(rate(e) * e->ticks * running_pct() / 100),
		       (unsigned long long)(e->ticks * 1000000),
		       (unsigned long long)(e->ticks * 1000000 * running_pct() / 100));
}
