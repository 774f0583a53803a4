/* Drive records -> samples over a raw buffer or every AUXTRACE chunk of a trace source. */
#include <stdlib.h>

#include "pmutrace/decode.h"

#define PERF_AUXTRACE_ARM_SPE 4

struct chunk {
	const uint8_t *data;
	uint64_t size, offset;
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
	struct chunk *chunks; /* AUX chunks in file order, decoded after the last event */
	size_t nchunks, cap;
	/* timestamp merge */
	size_t next_chunk;
	uint64_t key;         /* latest record timestamp of the queue */
	uint8_t has_pending;
	struct pmt_spe_record pending;
};

struct run {
	const struct pmt_spe_run_opts *o;
	struct pmt_spe_sampler s;
	pmt_spe_sample_fn fn;
	void *ctx;
	struct pmt_spe_sample out[PMT_SPE_MAX_SAMPLES_PER_RECORD];
	uint8_t slot_of_queue; /* queues are the first member of struct queue_slot */
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

static int emit(struct run *r, struct pmt_spe_queue *q, const struct pmt_spe_record *rec)
{
	int n;

	if (r->slot_of_queue)
		apply_switches(r, (struct queue_slot *)q, rec);
	n = pmt_spe_sampler_run(&r->s, q, rec, r->out);

	for (int i = 0; i < n; i++) {
		int rc = r->fn(&r->out[i], r->ctx);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* perf's timeless decoding samples the zeroed record once before decoding anything */
static int maybe_artefact(struct run *r, struct pmt_spe_queue *q)
{
	struct pmt_spe_record zero;

	if (q->started)
		return 0;
	q->started = 1;
	if (!r->s.timeless || r->o->compat >= PMT_PERF_NEWEST)
		return 0;
	memset(&zero, 0, sizeof(zero));
	return emit(r, q, &zero);
}

static int drain(struct run *r, struct pmt_spe_queue *q)
{
	struct pmt_spe_record rec;

	while (pmt_spe_rec_next(&q->dec, &rec) == 1) {
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
	pmt_spe_rec_feed(&q->dec, buf, len, base);
	return drain(r, q);
}

int pmt_spe_run_raw(const uint8_t *buf, size_t len, const struct pmt_spe_run_opts *o,
		    pmt_spe_sample_fn fn, void *ctx, struct pmt_spe_rec_stats *stats,
		    uint32_t *enabled)
{
	struct run r = { .o = o, .fn = fn, .ctx = ctx };
	struct pmt_spe_queue q;
	int rc;

	pmt_spe_sampler_init(&r.s, &o->itrace, o->compat);
	r.s.timeless = !o->raw_timed;
	if (enabled)
		*enabled = r.s.enabled;
	pmt_spe_queue_init(&q, o->cpu, o->tid, o->tid, o->midr, o->compat);
	rc = feed(&r, &q, buf, len, 0);
	if (stats)
		*stats = q.dec.stats;
	return rc;
}

static struct queue_slot *get_slot(struct queue_slot **tab, uint32_t idx, uint32_t cpu,
				   int32_t tid, uint64_t midr, int compat)
{
	if (idx >= PMT_MAX_CPUS)
		return NULL;
	if (!tab[idx]) {
		tab[idx] = calloc(1, sizeof(**tab));
		if (!tab[idx])
			return NULL;
		pmt_spe_queue_init(&tab[idx]->q, cpu, tid, tid, midr, compat);
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

/* Next record of a queue into sl->pending, crossing chunk boundaries. */
static int pull(struct run *r, struct queue_slot *sl)
{
	int rc = maybe_artefact(r, &sl->q);

	if (rc < 0)
		return rc;
	for (;;) {
		const struct chunk *c;

		if (pmt_spe_rec_next(&sl->q.dec, &sl->pending) == 1) {
			if (sl->pending.timestamp > sl->key)
				sl->key = sl->pending.timestamp;
			sl->has_pending = 1;
			return 0;
		}
		if (sl->next_chunk >= sl->nchunks) {
			sl->has_pending = 0;
			return 0;
		}
		c = &sl->chunks[sl->next_chunk++];
		pmt_spe_rec_feed(&sl->q.dec, c->data, (size_t)c->size, c->offset);
	}
}

/* perf orders the samples of all CPUs by time: always emit the queue whose pending record
 * is oldest (ties: lowest queue). A linear scan: queues are few next to records. */
static int merge_queues(struct run *r, struct queue_slot **tab)
{
	struct queue_slot **act;
	size_t n = 0;
	int rc = 0;

	act = malloc(PMT_MAX_CPUS * sizeof(*act));
	if (!act)
		return -PMT_ENOMEM;
	for (uint32_t i = 0; i < PMT_MAX_CPUS; i++) {
		if (!tab[i] || !tab[i]->nchunks)
			continue;
		rc = pull(r, tab[i]);
		if (rc < 0)
			goto out;
		if (tab[i]->has_pending)
			act[n++] = tab[i];
	}
	while (n) {
		size_t best = 0;

		for (size_t i = 1; i < n; i++)
			if (act[i]->key < act[best]->key)
				best = i;
		rc = emit(r, &act[best]->q, &act[best]->pending);
		if (rc < 0)
			break;
		rc = pull(r, act[best]);
		if (rc < 0)
			break;
		if (!act[best]->has_pending) {
			memmove(act + best, act + best + 1, (n - best - 1) * sizeof(*act));
			n--;
		}
	}
out:
	free(act);
	return rc;
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

	if (!m)
		return -PMT_EINVAL;
	tab = calloc(PMT_MAX_CPUS, sizeof(*tab));
	if (!tab)
		return -PMT_ENOMEM;
	pmt_spe_sampler_init(&r.s, &o->itrace, o->compat);
	r.s.timeless = m->timeless;
	r.s.have_time_conv = m->has_time_conv;
	r.s.tc = m->time_conv;
	r.slot_of_queue = 1;
	if (enabled)
		*enabled = r.s.enabled;
	if (stats)
		memset(stats, 0, sizeof(*stats));

	for (;;) {
		struct queue_slot *sl;
		uint32_t cpu;

		rc = pmt_source_next(src, &ev);
		if (rc == -PMT_EEOS) {
			rc = 0;
			break;
		}
		if (rc < 0) {
			pmt_warn("trace record at offset 0x%llx: %s; skipped",
				 (unsigned long long)pmt_source_offset(src), pmt_errstr(rc));
			rc = 0;
			continue;
		}
		if (ev.kind != PMT_TEV_AUXTRACE) {
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
			pmt_warn("AUXTRACE at offset 0x%llx: cpu %u / idx %u out of range; skipped",
				 (unsigned long long)ev.file_offset, cpu, ev.u.auxtrace.idx);
			continue;
		}
		if (!sl->aux_seen) {
			/* the slot may have been made by a switch record first */
			sl->aux_seen = 1;
			sl->q.midr = midr_for(m, o, cpu);
			if (!sl->sw.n)
				sl->q.pid = sl->q.tid = (int32_t)ev.u.auxtrace.tid;
		}
		{
			/* decoded after the last event: queue by queue when timeless (as perf),
			 * else merged by timestamp with every switch record known */
			if (sl->nchunks == sl->cap) {
				size_t nc = sl->cap ? sl->cap * 2 : 16;
				struct chunk *c = realloc(sl->chunks, nc * sizeof(*c));

				if (!c) {
					rc = -PMT_ENOMEM;
					break;
				}
				sl->chunks = c;
				sl->cap = nc;
			}
			sl->chunks[sl->nchunks++] = (struct chunk){ ev.u.auxtrace.data,
								    ev.u.auxtrace.size,
								    ev.u.auxtrace.offset };
		}
	}
	if (rc >= 0 && !r.s.timeless)
		rc = merge_queues(&r, tab);
	for (uint32_t i = 0; i < PMT_MAX_CPUS; i++) {
		struct queue_slot *sl = tab[i];

		if (!sl)
			continue;
		for (size_t c = 0; rc >= 0 && r.s.timeless && c < sl->nchunks; c++)
			rc = feed(&r, &sl->q, sl->chunks[c].data, (size_t)sl->chunks[c].size,
				  sl->chunks[c].offset);
		if (stats)
			pmt_spe_rec_stats_add(stats, &sl->q.dec.stats);
		free(sl->chunks);
		free(sl->sw.e);
		free(sl);
	}
	free(tab);
	return rc;
}
