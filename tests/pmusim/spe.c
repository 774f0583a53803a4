/* The simulated Arm SPE driver (part of pmusim.c's preload, included by it): a producer
 * thread per SPE event plays the arm_spe_pmu driver and kernel/events/ring_buffer.c. SPE
 * records (bytes from PMUSIM_SPE, e.g. made by `pmutrace synth`) go into the AUX area with
 * CIRC_SPACE (one byte kept free), PERF_RECORD_AUX is written to the data ring before
 * aux_head moves, a full AUX area gives TRUNCATED|PARTIAL and disables the event until the
 * consumer enables it again, a full data ring drops records and sends PERF_RECORD_LOST
 * before the next one. Environment:
 *   PMUSIM_SPE=FILE         SPE bytes to produce, consumed record-aligned in order
 *   PMUSIM_CHUNK=BYTES      bytes per driver "interrupt" (default 4096)
 *   PMUSIM_RATE=BYTES/S     producer rate (default: as fast as it can)
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
 *   PMUSIM_SNAPSHOT=N       with PMUSIM_SEED in snapshot mode: after each N records of its
 *                           share every event waits, and once all do, SIGUSR2 asks the
 *                           recorder for a snapshot; they go on once it has disabled them
 *                           (the requests, and those sent again, are in PMUSIM_LOG's lines)
 *   PMUSIM_DEBUG=1          each snapshot request on stderr
 * Snapshot mode (an AUX area mapped read-only) follows the driver's snapshot rules: see
 * ow_begin() below.
 * perf's twins (a PERF_RECORD_AUX or LOST twice in perf's file, same bytes, same time) are
 * perf's, not this driver's: perf_mmap__push (tools/perf/util/mmap.c, 6.x to 7.3) reads
 * data_head, then perf_mmap__read_init reads it again and the push copies up to that
 * second value, but md->prev (and data_tail) takes the first: a record published between
 * the two reads is copied again by the next push. In perf 7.3's files the twin is the last
 * record of one push and the first of the next (consecutive data-ring blocks). The real
 * kernel publishes at any time too; qemu widens perf's window. Each ring has one writer
 * here (the producer thread, or IOC_DISABLE's spe_stop, both under e->busy), bytes before
 * a release store of data_head, data_tail read with acquire.
 * The SPE records are split across the events in CPU order, so with one event per CPU
 * each CPU gets a share in turn. pmusim.c includes this file: the preload stays one file
 * to build (cc -shared pmusim.c). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmusim.h"

static uint8_t *spe_bytes;
static size_t spe_len, spe_pos;
static uint32_t *rec_end; /* end offset of each whole record, found once at load */
static size_t nrec, rec_ix;
static size_t max_record = 64; /* the stream's largest record, at least a PMSIDR.MaxSize of 64 */

static void index_records(void);

void load_spe(void)
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
		if (l > max_record)
			max_record = l;
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

/* Snapshot (overwrite) mode, as arm_spe_pmu.c runs it (buf->snapshot) with
 * perf_aux_output_end()'s rb->aux_overwrite rules: the hardware writes from handle->head
 * up to a limit at half or at the end of the area and never looks at aux_tail; a
 * buffer-full interrupt or a stop ends the session with aux_head set to the write pointer
 * as an offset in the area (not a count: after the end it starts again at 0) and a
 * PERF_RECORD_AUX whose offset is that new head, flagged OVERWRITE. */
static void ow_begin(struct ev *e)
{
	const uint64_t size = e->aux_size;
	uint64_t head = e->ow_head & (size - 1), limit = size;

	/* arm_spe_pmu_next_snapshot_off(): records cannot be parsed backwards, so an overwrite
	 * costs at most half an area of them; too close to the limit for a record, the rest
	 * is padding (PAD bytes, 0) that no AUX record covers */
	if (head < limit >> 1)
		limit >>= 1;
	if (limit - head < max_record) {
		memset(e->aux + head, 0, (size_t)(limit - head));
		head = limit & (size - 1);
		limit = (size >> 1) + head;
	}
	e->ow_head = e->ow_ptr = head;
	e->ow_limit = limit;
	e->ow_active = 1;
}

static void ow_end(struct ev *e, unsigned collide)
{
	const uint64_t size = e->ow_ptr - e->ow_head;

	e->ow_active = 0;
	e->ow_head = e->ow_ptr;
	/* a record with OVERWRITE alone tells nothing new: the kernel sends none */
	if (size)
		aux_record(e, e->ow_ptr, size,
			   0x2 | (collide && (e->aux_records + 1) % collide == 0
					  ? (e->collisions++, 0x8) : 0));
	__atomic_store_n(up64(e, 1056), e->ow_ptr, __ATOMIC_RELEASE);
}

/* the driver's pmu::stop (IOC_DISABLE; e->busy held): a snapshot mode session ends */
void spe_stop(struct ev *e)
{
	const char *co = getenv("PMUSIM_COLLIDE");

	if (e->overwrite && e->ow_active && e->aux && e->base)
		ow_end(e, co ? (unsigned)atoi(co) : 0);
}

/* PMUSIM_SNAPSHOT: records of an event's share between two snapshots, 0 none */
static long snapshot_every(void)
{
	static long every = -1;

	if (every < 0) {
		const char *sn = getenv("PMUSIM_SNAPSHOT");

		every = sn ? atol(sn) : 0;
	}
	return every;
}

/* One step in snapshot mode: whole records up to the limit (and chunk bytes), from the
 * event's share (shards > 0, PMUSIM_SEED) or the common stream. Returns 0 when nothing is
 * left to produce. */
static int produce_overwrite(struct ev *e, size_t chunk, size_t shards, unsigned collide)
{
	const uint8_t *rec;
	size_t room, n = 0, next;

	if (!e->ow_active)
		ow_begin(e);
	room = (size_t)(e->ow_limit - e->ow_ptr);
	if (room > chunk)
		room = chunk;
	if (shards) {
		uint64_t k;

		for (k = e->det_rec; k < nrec; k += shards) {
			size_t from = k ? rec_end[k - 1] : 0, l = rec_end[k] - from;

			if (n + l > room ||
			    (snapshot_every() > 0 && e->snap_since >= (uint64_t)snapshot_every()))
				break; /* (a snapshot pause comes after exactly N records) */
			memcpy(e->aux + e->ow_ptr + n, spe_bytes + from, l);
			n += l;
			e->snap_since++;
		}
		e->det_rec = k;
		next = k < nrec ? rec_end[k] - (k ? rec_end[k - 1] : 0) : 0;
	} else {
		n = take_records(room, &rec);
		memcpy(e->aux + e->ow_ptr, rec, n);
		pthread_mutex_lock(&lock);
		next = next_record_len();
		pthread_mutex_unlock(&lock);
	}
	e->ow_ptr += n;
	e->produced += n;
	/* the buffer-full interrupt: the next record does not fit before the limit; the
	 * handler ends the session and begins the next (the next step) */
	if (next && next > e->ow_limit - e->ow_ptr)
		ow_end(e, collide);
	return n || next;
}

/* the recorder's polls when SIGUSR2 was last sent, and the requests sent (under lock) */
static unsigned long snap_polls_sent;
unsigned long snap_requests, snap_resent;

/* SIGUSR2 to the recorder's thread (called with lock held). Not kill(): a signal for the
 * process may go to any thread that does not block it, and under qemu-user perf's handler
 * could then run on this producer thread, whose busy lock its IOC_DISABLE waits for */
static void ask_snapshot(int again)
{
	pthread_kill(__atomic_load_n(&sim_recorder, __ATOMIC_SEQ_CST), SIGUSR2);
	snap_polls_sent = __atomic_load_n(&sim_polls, __ATOMIC_SEQ_CST);
	snap_requests++;
	snap_resent += again;
	if (getenv("PMUSIM_DEBUG"))
		fprintf(stderr, "pmusim: snapshot request%s\n", again ? " (again)" : "");
}

/* some event asked for a snapshot has been disabled since: the recorder took the signal
 * (called with lock held) */
static int snapshot_begun(void)
{
	for (int i = 0; i < MAX_EV; i++)
		if (evs[i].used && evs[i].snap_req && evs[i].disables != evs[i].snap_disables)
			return 1;
	return 0;
}

/* PMUSIM_SNAPSHOT=N (with PMUSIM_SEED, snapshot mode): after each N records of its share
 * (the last one too) an event stops; once every SPE event has stopped or finished, SIGUSR2 asks the recorder
 * for a snapshot, and each event goes on after the recorder has disabled it (and enabled
 * it again). So every snapshot holds the same bytes whatever the timing. Returns 1 while
 * the event waits. */
static int snapshot_pause(struct ev *e)
{
	const long every = snapshot_every();
	int paused, all = 1;

	if (every <= 0)
		return 0;
	pthread_mutex_lock(&lock);
	if (!e->snap_paused && e->snap_since >= (uint64_t)every) {
		e->snap_paused = 1;
		e->snap_req = 0;
	}
	if (e->snap_paused && e->snap_req && e->disables != e->snap_disables && e->enabled) {
		e->snap_paused = e->snap_req = 0;
		e->snap_since = 0;
	}
	if (e->snap_paused && !e->snap_req) {
		for (int i = 0; i < MAX_EV; i++) {
			const struct ev *o = &evs[i];

			if (!o->used || !o->spe || !o->aux || (o->det_rec >= nrec && !o->snap_paused))
				continue;
			if (!o->snap_paused || o->snap_req)
				all = 0;
		}
		/* perf ignores a SIGUSR2 until its trigger is ready again: arm_spe_snapshot_finish
		 * enables the events and only then does record__read_auxtrace_snapshot make the
		 * trigger ready, before the loop polls again. Asked once the recorder's thread
		 * has polled since it enabled them, the request is never lost, however slow */
		if (all && __atomic_load_n(&sim_polls, __ATOMIC_SEQ_CST) !=
			   __atomic_load_n(&sim_polls_at_enable, __ATOMIC_SEQ_CST)) {
			for (int i = 0; i < MAX_EV; i++)
				if (evs[i].used && evs[i].snap_paused) {
					evs[i].snap_req = 1;
					evs[i].snap_disables = evs[i].disables;
				}
			ask_snapshot(0);
		}
	} else if (e->snap_paused && e->snap_req && e->disables == e->snap_disables &&
		   __atomic_load_n(&sim_polls, __ATOMIC_SEQ_CST) - snap_polls_sent >= 2 &&
		   !snapshot_begun()) {
		/* a request the recorder dropped, never one it is slow to take: the signal was
		 * for its thread, which has since begun two polls, so its handler has run (a
		 * signal is handled before the thread runs on, in qemu-user too), and nothing
		 * was disabled, which perf's handler and pmutrace's next loop turn do at once.
		 * A resend on a timer (5 s, then 30 s) could not tell a slow recorder from one
		 * that dropped the request: perf under qemu beside an ASan build took both,
		 * one snapshot more than pmutrace (CI: snap_wrap, 3706 samples against 3118) */
		ask_snapshot(1);
	}
	paused = e->snap_paused;
	pthread_mutex_unlock(&lock);
	if (paused)
		usleep(1000);
	return paused;
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
	if (e->overwrite && produce_overwrite(e, chunk, 0, collide))
		return;
	n = e->overwrite ? 0 : take_records(space < chunk ? (size_t)space : chunk, &rec);
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
		   collide && (e->aux_records + 1) % collide == 0 ? (e->collisions++, 0x8) : 0);
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
		if (evs[i].used && evs[i].spe && evs[i].aux &&
		    (evs[i].det_rec < nrec || evs[i].snap_paused))
			return 0; /* (a snapshot asked for comes before the end) */
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
	if (e->overwrite && (snapshot_pause(e) || produce_overwrite(e, chunk, shards, collide)))
		return;
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
	space = (tail - head - 1) & (e->aux_size - 1);
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
			   collide && (e->aux_records + 1) % collide == 0 ? (e->collisions++, 0x8)
									  : 0);
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
		/* both checked again under the lock: a disable or a munmap may have come */
		if (e->enabled && e->aux && e->base && seed)
			produce_det(e, chunk, collide, trunc, lose);
		else if (e->enabled && e->aux && e->base)
			produce_once(e, chunk, collide);
		pthread_mutex_unlock(&e->busy);
	}
	return NULL;
}

void start_producer(struct ev *e)
{
	if (e->spe && e->aux && !e->thr_started) {
		e->thr_started = 1;
		pthread_create(&e->thr, NULL, producer, e);
	}
}
