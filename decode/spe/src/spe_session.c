/* Drive records -> samples over a raw buffer or every AUXTRACE chunk of a trace source.
 *
 * AUX chunks are queued per CPU and decoded as late as possible: perf orders the samples
 * of all CPUs by time and takes context switches into account, both best known once the
 * whole file is read. Memory stays bounded all the same: once the queued chunks exceed
 * the window's high mark, the oldest data is decoded until its low mark remains. Chunks of a
 * mapped file are referenced; transient ones (a pipe, COMPRESSED records) are copied. The
 * order is the whole-file order unless a CPU's data runs out while the others hold the
 * window (reported once); mapped files and pipes take the same path, so they give the same
 * samples.
 *
 * The window is sized from the recording (set_window()): a CPU's queue runs dry when more
 * than the low mark of other CPUs' data comes between two of its chunks, about one pass of
 * perf record over the rings, so the low mark is twice the sum of each queue's largest
 * chunk so far. A larger window than that only costs: the AUX bytes queued then leave the
 * cache before they are decoded (at -j 2 the other core's working set shares it), which made
 * -j 2 1.45x -j 1 with a fixed 32 MiB window and 1.65-1.8x with 8 MiB. */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/spe_decode.h"
#include "threads.h"
#include "evsel_samples.h"
#include "spe_record_priv.h"
#include "rec_pool.h"
#include "sample_thread.h"

#define PERF_AUXTRACE_ARM_SPE 4
/* low mark bounds: small-chunk recordings (the common case) */
#define HOLD_LOW_FLOOR (4ull << 20)
/* timeless traces are decoded queue after queue, in whole-file order only when nothing is
 * decoded before the end: they keep the earlier fixed window as their floor */
#define HOLD_LOW_FLOOR_TIMELESS (16ull << 20)
/* memory: past it a recording's order is merged within the window (and reported) */
#define HOLD_LOW_CAP (256ull << 20)

struct chunk {
	const uint8_t *data;
	uint64_t size, offset;
	uint64_t file_off; /* of the AUXTRACE record (mapped data) */
	uint64_t pad_base; /* the reader's u.auxtrace.pad_base */
	uint8_t owned;     /* a copy of transient data, freed once decoded */
};

struct sw_event {
	uint64_t time;
	int32_t pid, tid;
};

/* Context switches of one CPU in time order, for queues without CONTEXT packets */
struct sw_list {
	struct sw_event *e;
	size_t n, cap, next;
};

struct queue_slot {
	struct pmt_spe_queue q;
	struct sw_list sw;
	uint8_t ctx_seen;
	uint8_t aux_seen;
	struct chunk *chunks; /* AUX chunks in file order, not yet decoded: [next_chunk, nchunks) */
	size_t nchunks, cap;
	struct chunk fed;     /* the chunk the decoder reads now (when feeding) */
	uint8_t feeding;
	/* -j: the records come decoded from a worker (rec_pool.h), each with its chunk's
	 * sequence number; fed and feeding follow them as if this thread decoded */
	struct rec_lane *lane;
	struct rec_span span; /* the lane's records being merged: [span_at, span.n) left */
	uint32_t span_at;
	uint64_t seq_next;    /* sequence number of chunks[next_chunk] */
	uint32_t idx;         /* position in the queue table */
	uint64_t chunk_max;   /* its largest AUX chunk: the window's size (set_window()) */
	/* the sampler thread's state of this queue (sample_thread.h): its per-CPU sampling
	 * state; q keeps the pid and tid the merge settles. On cache lines of its own: the
	 * sampler writes it at every record, and the merge's fields around it (idx, key,
	 * pending) shared those lines with it */
	_Alignas(64) struct pmt_spe_queue wq;
	/* timestamp merge */
	_Alignas(64) size_t next_chunk;
	uint64_t key;         /* latest record timestamp of the queue */
	uint8_t has_pending;
	uint8_t headed;       /* a complete record was pulled: perf's queue is set up */
	/* pulled records, in turn: the one emitted stays as it was while the next is pulled */
	struct pmt_spe_record pending[2];
	uint8_t pend;         /* the one pulled last */
	/* the record to emit next: a pending one, or a worker's batch entry, which stays valid
	 * until the next pull of the queue (after this one is emitted) */
	const struct pmt_spe_record *head;
};

struct run {
	const struct pmt_spe_run_opts *o;
	uint64_t held;        /* bytes of queued and fed chunks */
	uint64_t hold_low, hold_max; /* the window: merge at hold_max down to hold_low */
	uint64_t chunk_max_sum; /* of the queues' chunk_max */
	uint8_t reordered;    /* the window forced a merge step out of whole-file order */
	uint32_t nqueues;     /* queues with AUX data */
	struct queue_slot **act; /* merge scratch, PMT_MAX_CPUS entries */
	struct pmt_spe_sampler s;
	struct pmt_spe_threads threads; /* tid -> pid from COMM, FORK and MMAP records */
	pmt_spe_sample_fn fn;
	void *ctx;
	struct pmt_spe_sample out[PMT_SPE_MAX_SAMPLES_PER_RECORD];
	uint8_t slot_of_queue; /* queues are the first member of struct queue_slot */
	struct evsel_samples evs; /* the trace's own samples, waiting for their time */
	uint64_t round_max, prev_round_max; /* sample times of FINISHED_ROUND rounds */
	struct rec_pool *pool; /* -j: records decoded on workers (time-ordered traces) */
	struct sample_thread *st; /* -j: samples made and handed on there (with pool) */
};

/* perf without CONTEXT packets: the thread that was switched in last on that CPU at the
 * record's time (PERF_RECORD_SWITCH / SWITCH_CPU_WIDE) */
static void apply_switches(struct run *r, struct queue_slot *sl,
			   const struct pmt_spe_record *rec)
{
	uint64_t t;

	if (rec->context_id != UINT64_MAX)
		sl->ctx_seen = 1;
	if (sl->ctx_seen || r->s.timeless || sl->sw.next >= sl->sw.n)
		return;
	t = r->s.have_time_conv ? pmt_time_conv_to_perf(&r->s.tc, rec->timestamp)
				: rec->timestamp;
	while (sl->sw.next < sl->sw.n && sl->sw.e[sl->sw.next].time <= t) {
		sl->q.pid = sl->sw.e[sl->sw.next].pid;
		sl->q.tid = sl->sw.e[sl->sw.next].tid;
		sl->sw.next++;
	}
}

/* The trace's own samples up to upto, from this thread: after the sampler thread has
 * handed on everything before them. */
static int flush_own(struct run *r, uint64_t upto)
{
	if (r->st && evsel_samples_due(&r->evs, upto)) {
		int rc = sample_thread_sync(r->st);

		if (rc < 0)
			return rc;
	}
	return evsel_samples_flush(&r->evs, upto, r->o, r->fn, r->ctx);
}

static int emit(struct run *r, struct pmt_spe_queue *q, const struct pmt_spe_record *rec)
{
	int n;

	if (r->slot_of_queue)
		apply_switches(r, (struct queue_slot *)q, rec);
	if (r->evs.n && !r->s.timeless) {
		/* the trace's own samples up to this record's time go first */
		uint64_t t = r->s.have_time_conv ? pmt_time_conv_to_perf(&r->s.tc, rec->timestamp)
						 : rec->timestamp;
		int rc = flush_own(r, t);

		if (rc < 0)
			return rc;
	}
	if (r->st) {
		/* the pid and tid depend on the merge's order; the rest is the CPU's own */
		spe_queue_context(&r->s, q, rec);
		return sample_thread_put(r->st, &((struct queue_slot *)q)->wq, rec, q->pid,
					 q->tid);
	}
	if (PMT_OPTS_HAS(r->o, brief_fn) && r->o->brief_fn) {
		struct pmt_spe_brief b;

		return pmt_spe_sampler_brief(&r->s, q, rec, &b) ? r->o->brief_fn(&b, r->ctx) : 0;
	}
	n = pmt_spe_sampler_run(&r->s, q, rec, r->out);
	if (r->o->record_fn)
		return n ? r->o->record_fn(r->out, n, r->ctx) : 0;
	for (int i = 0; i < n; i++) {
		int rc = r->fn(&r->out[i], r->ctx);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* perf's timeless decoding samples the zeroed record once before decoding anything. The
 * newest model drops those all-zero samples but keeps the record's place in the --itrace
 * period, so every later sample is the one perf 7.3 makes (diff.spe_timeless_newest). */
static int maybe_artefact(struct run *r, struct pmt_spe_queue *q)
{
	struct pmt_spe_record zero;

	if (q->started)
		return 0;
	q->started = 1;
	if (!r->s.timeless)
		return 0;
	memset(&zero, 0, sizeof(zero));
	if (r->o->compat >= PMT_PERF_NEWEST) {
		pmt_spe_sampler_run(&r->s, q, &zero, r->out);
		return 0;
	}
	return emit(r, q, &zero);
}

static int drain(struct run *r, struct pmt_spe_queue *q)
{
	struct pmt_spe_record rec;

	while (pmt_spe_rec_next(q->dec, &rec) == 1) {
		int rc = emit(r, q, &rec);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int feed(struct run *r, struct pmt_spe_queue *q, const uint8_t *buf, size_t len,
		uint64_t base)
{
	int rc = maybe_artefact(r, q);

	if (rc < 0)
		return rc;
	pmt_spe_rec_feed(q->dec, buf, len, base);
	return drain(r, q);
}

int pmt_spe_run_raw(const uint8_t *buf, size_t len, const struct pmt_spe_run_opts *o,
		    pmt_spe_sample_fn fn, void *ctx, struct pmt_spe_rec_stats *stats,
		    uint32_t *enabled)
{
	struct run r = { .o = o, .fn = fn, .ctx = ctx };
	struct pmt_spe_queue q;
	int rc;

	if (!PMT_OPTS_HAS(o, event_ctx))
		return -PMT_EINVAL;
	pmt_spe_sampler_init(&r.s, &o->itrace, o->compat);
	r.s.timeless = !o->raw_timed;
	if (enabled)
		*enabled = r.s.enabled;
	rc = pmt_spe_queue_init(&q, o->cpu, o->tid, o->tid, o->midr, o->compat);
	if (rc < 0)
		return rc;
	rc = feed(&r, &q, buf, len, 0);
	if (stats)
		*stats = *pmt_spe_rec_stats(q.dec);
	pmt_spe_queue_fini(&q);
	return rc;
}

static struct queue_slot *get_slot(struct queue_slot **tab, uint32_t idx, uint32_t cpu,
				   int32_t tid, uint64_t midr, int compat)
{
	if (idx >= PMT_MAX_CPUS)
		return NULL;
	if (!tab[idx]) {
		/* its sampler state on lines of its own (struct queue_slot) */
		tab[idx] = aligned_alloc(_Alignof(struct queue_slot), sizeof(**tab));
		if (!tab[idx])
			return NULL;
		memset(tab[idx], 0, sizeof(**tab));
		tab[idx]->idx = idx;
		if (pmt_spe_queue_init(&tab[idx]->q, cpu, tid, tid, midr, compat) < 0) {
			free(tab[idx]);
			tab[idx] = NULL;
			return NULL;
		}
	}
	return tab[idx];
}

static uint64_t midr_for(const struct pmt_trace_meta *m, const struct pmt_spe_run_opts *o,
			 uint32_t cpu)
{
	if (o->midr)
		return o->midr;
	if (!m->cpu_midr || !m->nr_cpus)
		return 0;
	if (cpu < m->nr_cpus && m->cpu_midr[cpu])
		return m->cpu_midr[cpu];
	return m->cpu_midr[0];
}

static int note_switch(struct queue_slot **tab, const struct pmt_trace_event *ev,
		       const struct pmt_spe_run_opts *o)
{
	struct queue_slot *sl;
	struct sw_event e;

	if (ev->type == PMT_REC_SWITCH_CPU_WIDE && ev->u.sw.out) {
		/* switch-out names the incoming task; its pid is in next_prev_pid */
		e.pid = (int32_t)ev->u.sw.next_prev_pid;
		e.tid = (int32_t)ev->u.sw.next_prev_tid;
	} else if (!ev->u.sw.out) {
		e.pid = (int32_t)ev->sid.pid;
		e.tid = (int32_t)ev->sid.tid;
	} else {
		return 0;
	}
	e.time = ev->sid.time;
	/* per-CPU AUX queues are indexed by CPU */
	sl = get_slot(tab, ev->sid.cpu, ev->sid.cpu, -1, 0, o->compat);
	if (!sl)
		return ev->sid.cpu >= PMT_MAX_CPUS ? 0 : -PMT_ENOMEM;
	if (sl->sw.n == sl->sw.cap) {
		size_t nc = sl->sw.cap ? sl->sw.cap * 2 : 64;
		struct sw_event *ne = realloc(sl->sw.e, nc * sizeof(*ne));

		if (!ne)
			return -PMT_ENOMEM;
		sl->sw.e = ne;
		sl->sw.cap = nc;
	}
	sl->sw.e[sl->sw.n++] = e;
	return 0;
}

/* The decoder is done with the chunk it read (a record in progress keeps values only). */
static void release_fed(struct run *r, struct queue_slot *sl)
{
	if (!sl->feeding)
		return;
	r->held -= sl->fed.size;
	if (sl->fed.owned)
		free((void *)sl->fed.data);
	sl->feeding = 0;
}

/* The next chunk becomes the one read now, the one before is released. */
static void advance_fed(struct run *r, struct queue_slot *sl)
{
	release_fed(r, sl);
	sl->fed = sl->chunks[sl->next_chunk++];
	sl->seq_next++;
	sl->feeding = 1;
}

static void feed_next(struct run *r, struct queue_slot *sl)
{
	advance_fed(r, sl);
	pmt_spe_rec_feed(sl->q.dec, sl->fed.data, (size_t)sl->fed.size, sl->fed.offset);
	/* perf sizes an alignment pad from the address of its buffer (see pad_base) */
	spe_rec_set_pad_base(sl->q.dec, sl->fed.pad_base);
}

/* pull() with the records of a worker: the chunks are released where this thread's own
 * decode would release them (when a record of a later chunk comes, or none is left), so
 * the held bytes, and with them where a windowed merge stops, are those of -j 1. */
static int pull_decoded(struct run *r, struct queue_slot *sl)
{
	for (;;) {
		const struct pmt_spe_record *rec;

		if (sl->span_at == sl->span.n) {
			if (!rec_lane_span(r->pool, sl->lane, &sl->span)) {
				sl->span.n = sl->span_at = 0;
				while (sl->next_chunk < sl->nchunks)
					advance_fed(r, sl);
				release_fed(r, sl);
				sl->has_pending = 0;
				return 0;
			}
			sl->span_at = 0;
			while (!sl->feeding || sl->seq_next - 1 != sl->span.seq)
				advance_fed(r, sl);
		}
		rec = &sl->span.rec[sl->span_at++];
		if (!sl->headed && rec->partial)
			continue;
		sl->headed = 1;
		if (rec->timestamp > sl->key)
			sl->key = rec->timestamp;
		sl->head = rec;
		sl->has_pending = 1;
		return 0;
	}
}

/* Next record of a queue into a pending one, crossing chunk boundaries. */
static int pull(struct run *r, struct queue_slot *sl)
{
	int rc = maybe_artefact(r, &sl->q);

	if (rc < 0)
		return rc;
	if (sl->lane)
		return pull_decoded(r, sl);
	for (;;) {
		struct pmt_spe_record *p = &sl->pending[sl->pend ^ 1];

		if (sl->feeding && pmt_spe_rec_next(sl->q.dec, p) == 1) {
			/* perf's arm_spe__setup_queue() decodes until the first complete
			 * record and samples nothing it cut short before it */
			if (!sl->headed && p->partial)
				continue;
			sl->headed = 1;
			if (p->timestamp > sl->key)
				sl->key = p->timestamp;
			sl->pend ^= 1;
			sl->head = p;
			sl->has_pending = 1;
			return 0;
		}
		release_fed(r, sl);
		if (sl->next_chunk >= sl->nchunks) {
			sl->has_pending = 0;
			return 0;
		}
		feed_next(r, sl);
	}
}

static void note_reorder(struct run *r)
{
	if (r->reordered)
		return;
	r->reordered = 1;
	pmt_warn("AUX data of one CPU ran out while the others held %u MiB: from here samples "
		 "of different CPUs are merged by time within that window only",
		 (unsigned)(r->hold_max >> 20));
}

/* perf orders the samples of all CPUs by time: always emit the queue whose pending record
 * is oldest (ties: lowest queue). A linear scan: queues are few next to records. Not
 * final: stop once the window's low mark remains queued; emitting while a queue that ran
 * dry (more of its data may follow) would sort first leaves the whole-file order. */
static int merge_queues(struct run *r, struct queue_slot **tab, bool final)
{
	struct queue_slot **act = r->act;
	uint64_t dry_key = UINT64_MAX;
	uint32_t dry_idx = UINT32_MAX;
	size_t n = 0;
	int rc = 0;

	for (uint32_t i = 0; i < PMT_MAX_CPUS; i++) {
		struct queue_slot *sl = tab[i];

		if (!sl || !sl->aux_seen)
			continue;
		if (!sl->has_pending) {
			rc = pull(r, sl);
			if (rc < 0)
				return rc;
		}
		if (sl->has_pending) {
			act[n++] = sl;
		} else if (sl->key < dry_key) {
			dry_key = sl->key;
			dry_idx = i;
		}
	}
	while (n) {
		size_t best = 0;
		struct queue_slot *b;

		for (size_t i = 1; i < n; i++)
			if (act[i]->key < act[best]->key)
				best = i;
		b = act[best];
		if (!final) {
			if (r->held <= r->hold_low)
				break;
			if (dry_key < b->key || (dry_key == b->key && dry_idx < b->idx))
				note_reorder(r);
		}
		if (PMT_OPTS_HAS(r->o, prefetch_fn) && r->o->prefetch_fn && !b->lane) {
			/* the next record goes to the other pending one */
			const struct pmt_spe_record *cur = b->head;

			rc = pull(r, b);
			if (rc < 0)
				break;
			if (b->has_pending)
				r->o->prefetch_fn(b->head->from_ip, r->ctx);
			rc = emit(r, &b->q, cur);
			if (rc < 0)
				break;
		} else {
			/* a worker's span holds the next record already: no pull ahead, so
			 * its chunk is released exactly where -j 1 releases it */
			if (PMT_OPTS_HAS(r->o, prefetch_fn) && r->o->prefetch_fn &&
			    b->span_at < b->span.n)
				r->o->prefetch_fn(b->span.rec[b->span_at].from_ip, r->ctx);
			rc = emit(r, &b->q, b->head);
			if (rc < 0)
				break;
			rc = pull(r, b);
			if (rc < 0)
				break;
		}
		if (!b->has_pending) {
			memmove(act + best, act + best + 1, (n - best - 1) * sizeof(*act));
			n--;
			if (b->key < dry_key || (b->key == dry_key && b->idx < dry_idx)) {
				dry_key = b->key;
				dry_idx = b->idx;
			}
		}
	}
	return rc;
}

/* Timeless: perf decodes queue after queue, each from its first chunk to its last. */
static int drain_timeless(struct run *r, struct queue_slot **tab, bool final)
{
	int rc = 0;

	for (uint32_t i = 0; rc >= 0 && i < PMT_MAX_CPUS; i++) {
		struct queue_slot *sl = tab[i];

		while (sl && rc >= 0 && sl->next_chunk < sl->nchunks) {
			if (!final) {
				if (r->held <= r->hold_low)
					return 0;
				if (r->nqueues > 1)
					note_reorder(r);
			}
			feed_next(r, sl);
			rc = maybe_artefact(r, &sl->q);
			if (rc >= 0)
				rc = drain(r, &sl->q);
			release_fed(r, sl);
		}
	}
	return rc;
}

/* The window from the queues' largest chunks (see the top of the file). It only grows: a
 * chunk raises the high mark by 4x its size and the held bytes by 1x, so the other CPUs'
 * chunks of the same pass, as large, come in before the next merge. */
static void set_window(struct run *r)
{
	uint64_t min_low = r->s.timeless ? HOLD_LOW_FLOOR_TIMELESS : HOLD_LOW_FLOOR;
	uint64_t low = 2 * r->chunk_max_sum;

	if (low < min_low)
		low = min_low;
	if (low > HOLD_LOW_CAP)
		low = HOLD_LOW_CAP;
	r->hold_low = low;
	r->hold_max = 2 * low;
}

static int queue_chunk(struct run *r, struct queue_slot *sl, const struct pmt_trace_event *ev)
{
	struct chunk c = { ev->u.auxtrace.data, ev->u.auxtrace.size, ev->u.auxtrace.offset,
			   ev->file_offset, ev->u.auxtrace.pad_base, 0 };

	if (sl->next_chunk == sl->nchunks) {
		sl->next_chunk = sl->nchunks = 0;
	} else if (sl->next_chunk >= 64 && sl->next_chunk * 2 >= sl->nchunks) {
		memmove(sl->chunks, sl->chunks + sl->next_chunk,
			(sl->nchunks - sl->next_chunk) * sizeof(*sl->chunks));
		sl->nchunks -= sl->next_chunk;
		sl->next_chunk = 0;
	}
	if (sl->nchunks == sl->cap) {
		size_t nc = sl->cap ? sl->cap * 2 : 16;
		struct chunk *cs = realloc(sl->chunks, nc * sizeof(*cs));

		if (!cs)
			return -PMT_ENOMEM;
		sl->chunks = cs;
		sl->cap = nc;
	}
	if (ev->u.auxtrace.transient) {
		uint8_t *copy = malloc(c.size ? (size_t)c.size : 1);

		if (!copy)
			return -PMT_ENOMEM;
		memcpy(copy, c.data, (size_t)c.size);
		c.data = copy;
		c.owned = 1;
	}
	sl->chunks[sl->nchunks++] = c;
	r->held += c.size;
	if (c.size > sl->chunk_max) {
		r->chunk_max_sum += c.size - sl->chunk_max;
		sl->chunk_max = c.size;
		set_window(r);
	}
	if (sl->lane)
		return rec_lane_submit(r->pool, sl->lane, c.data, c.size, c.offset, c.pad_base);
	return 0;
}

/* Tell a mapped source from where on queued chunks still point into it. */
static void update_keep(struct queue_slot **tab, struct pmt_source *src)
{
	uint64_t keep = UINT64_MAX;

	for (uint32_t i = 0; i < PMT_MAX_CPUS; i++) {
		const struct queue_slot *sl = tab[i];

		if (!sl)
			continue;
		if (sl->feeding && !sl->fed.owned && sl->fed.file_off < keep)
			keep = sl->fed.file_off;
		for (size_t c = sl->next_chunk; c < sl->nchunks; c++)
			if (!sl->chunks[c].owned) {
				if (sl->chunks[c].file_off < keep)
					keep = sl->chunks[c].file_off;
				break; /* file order */
			}
	}
	pmt_source_keep_from(src, keep);
}

static void free_slot(struct run *r, struct queue_slot *sl)
{
	release_fed(r, sl);
	for (size_t c = sl->next_chunk; c < sl->nchunks; c++)
		if (sl->chunks[c].owned)
			free((void *)sl->chunks[c].data);
	free(sl->chunks);
	free(sl->sw.e);
	pmt_spe_queue_fini(&sl->q);
	free(sl);
}

/* A SAMPLE record joins the held samples. Without AUX data nothing else orders them, so a
 * FINISHED_ROUND lets out what the round before the last one saw: perf record writes one
 * after each pass over every ring, so no later sample is older than that; without times
 * the file's order is the order. */
static int own_sample(struct run *r, const struct pmt_trace_meta *m,
		      const struct pmt_trace_event *ev)
{
	int rc;

	if (ev->type == PMT_REC_SAMPLE) {
		if (ev->u.sample.time > r->round_max)
			r->round_max = ev->u.sample.time;
		rc = evsel_samples_add(&r->evs, m, ev, r->o);
		if (rc >= 0 && m->timeless && !m->has_auxtrace_info)
			rc = flush_own(r, UINT64_MAX);
		return rc;
	}
	if (ev->type != PMT_REC_FINISHED_ROUND || m->has_auxtrace_info || m->timeless)
		return 0;
	rc = flush_own(r, r->prev_round_max);
	r->prev_round_max = r->round_max;
	return rc;
}

bool pmt_spe_run_sample_thread(const struct pmt_trace_meta *m,
				const struct pmt_spe_run_opts *o)
{
	/* timeless traces are decoded queue after queue on the calling thread */
	return m && PMT_OPTS_HAS(o, sample_thread) && o->sample_thread && !m->timeless;
}

int pmt_spe_run_source(struct pmt_source *src, const struct pmt_spe_run_opts *o,
		       pmt_spe_sample_fn fn, void *ctx, struct pmt_spe_rec_stats *stats,
		       uint32_t *enabled)
{
	const struct pmt_trace_meta *m = pmt_source_meta(src);
	struct run r = { .o = o, .fn = fn, .ctx = ctx };
	struct queue_slot **tab;
	struct pmt_trace_event ev;
	int rc = 0;

	if (!m || !PMT_OPTS_HAS(o, event_ctx))
		return -PMT_EINVAL;
	tab = calloc(PMT_MAX_CPUS, sizeof(*tab));
	r.act = malloc(PMT_MAX_CPUS * sizeof(*r.act));
	if (!tab || !r.act) {
		free(tab);
		free(r.act);
		return -PMT_ENOMEM;
	}
	pmt_spe_sampler_init(&r.s, &o->itrace, o->compat);
	r.s.timeless = m->timeless;
	r.s.have_time_conv = m->has_time_conv;
	r.s.tc = m->time_conv;
	r.s.threads = &r.threads;
	r.slot_of_queue = 1;
	set_window(&r);
	if (enabled)
		*enabled = r.s.enabled;
	if (stats)
		memset(stats, 0, sizeof(*stats));
	/* timeless traces are decoded queue after queue: nothing to overlap. Without threads
	 * the records are decoded here, with the same output */
	if (PMT_OPTS_HAS(o, decode_threads) && o->decode_threads && !r.s.timeless)
		rec_pool_new(o->decode_threads, &r.pool);
	/* without the thread (out of memory) the samples are made here, the same ones */
	if (pmt_spe_run_sample_thread(m, o))
		sample_thread_new(&r.s, o, fn, ctx, &r.st);
	pmt_source_keep_from(src, 0); /* chunks are referenced until decoded */

	for (;;) {
		struct queue_slot *sl;
		uint32_t cpu;

		rc = pmt_source_next(src, &ev);
		if (rc == -PMT_EEOS) {
			rc = 0;
			break;
		}
		if (rc < 0) {
			pmt_warn("%s: trace record at offset 0x%llx: %s; skipped",
				 pmt_source_name(src), (unsigned long long)pmt_source_offset(src),
				 pmt_errstr(rc));
			rc = 0;
			continue;
		}
		if (ev.kind != PMT_TEV_AUXTRACE) {
			if (o->event_fn && (rc = o->event_fn(&ev, o->event_ctx)) < 0)
				break;
			rc = own_sample(&r, m, &ev);
			if (rc < 0)
				break;
			rc = pmt_spe_threads_note(&r.threads, &ev);
			if (rc < 0)
				break;
			if ((ev.type == PMT_REC_SWITCH || ev.type == PMT_REC_SWITCH_CPU_WIDE) &&
			    ev.sid.valid && !r.s.timeless) {
				rc = note_switch(tab, &ev, o);
				if (rc < 0)
					break;
			}
			continue;
		}
		if (m->has_auxtrace_info && m->auxtrace_type != PERF_AUXTRACE_ARM_SPE)
			continue;
		cpu = ev.u.auxtrace.cpu;
		/* per-CPU traces: one queue per CPU (switch lists are per CPU too);
		 * per-thread traces (cpu -1): one per AUX buffer index, as perf */
		sl = get_slot(tab, cpu != UINT32_MAX ? cpu : ev.u.auxtrace.idx,
			      cpu == UINT32_MAX ? 0 : cpu, (int32_t)ev.u.auxtrace.tid,
			      midr_for(m, o, cpu), o->compat);
		if (!sl) {
			pmt_warn("%s: AUXTRACE at offset 0x%llx: cpu %u / idx %u out of range; "
				 "skipped", pmt_source_name(src), (unsigned long long)ev.file_offset,
				 cpu, ev.u.auxtrace.idx);
			continue;
		}
		if (!sl->aux_seen) {
			/* the slot may have been made by a switch record first */
			sl->aux_seen = 1;
			r.nqueues++;
			sl->q.midr = midr_for(m, o, cpu);
			if (m->cpu_event_filter && cpu < m->nr_cpus)
				sl->q.event_filter = m->cpu_event_filter[cpu];
			if (!sl->sw.n) {
				/* perf: the pid of a thread its machine knows, else -1 */
				sl->q.tid = (int32_t)ev.u.auxtrace.tid;
				sl->q.pid = pmt_spe_threads_pid(&r.threads, sl->q.tid);
			}
			sl->wq = sl->q;
			sl->wq.dec = NULL;
			if (r.pool && !(sl->lane = rec_pool_lane(r.pool, sl->q.dec))) {
				rc = -PMT_ENOMEM;
				break;
			}
		}
		rc = queue_chunk(&r, sl, &ev);
		if (rc >= 0 && r.held > r.hold_max) {
			rc = r.s.timeless ? drain_timeless(&r, tab, false)
					  : merge_queues(&r, tab, false);
			update_keep(tab, src);
		}
		if (rc < 0)
			break;
	}
	if (rc >= 0)
		rc = r.s.timeless ? drain_timeless(&r, tab, true) : merge_queues(&r, tab, true);
	{
		/* its samples go before the trace's own that are left */
		int trc = sample_thread_free(r.st);

		r.st = NULL;
		if (trc < 0 && rc >= 0)
			rc = trc;
	}
	if (rc >= 0)
		rc = evsel_samples_flush(&r.evs, UINT64_MAX, o, fn, ctx);
	evsel_samples_fini(&r.evs);
	/* the workers are done with the decoders before their statistics are read */
	rec_pool_free(r.pool);
	for (uint32_t i = 0; i < PMT_MAX_CPUS; i++) {
		if (!tab[i])
			continue;
		if (stats)
			pmt_spe_rec_stats_add(stats, pmt_spe_rec_stats(tab[i]->q.dec));
		free_slot(&r, tab[i]);
	}
	pmt_source_keep_from(src, UINT64_MAX);
	pmt_spe_threads_fini(&r.threads);
	free(r.act);
	free(tab);
	return rc;
}
