/* SPE record decode on worker threads (rec_pool.h): lanes of chunks in, batches of
 * records out, all hand-overs under one mutex (taken once per batch and per chunk, not
 * per record). Batches are allocated with their lane and go round between its free list,
 * the worker and the merge: nothing is allocated per record. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/workers.h"
#include "rec_pool.h"
#include "spe_record_priv.h"

/* 2048 records (~220 KiB) a batch: the merge takes the lock once per batch, and 4 of them
 * let a worker run ahead of the merge by a few thousand records per CPU. A lane's batches
 * are allocated with it but their pages are touched only as records fill them, so a CPU
 * with little data costs little. Smaller batches (512 records, tried with 1024-sample
 * writer batches) made 6,500-8,000 context switches a run of the 1M-record bench against
 * 1,100-1,800, for no CPU saved that the loaded test machine could show. */
#define BATCH_RECS 2048
#define LANE_BATCHES 4

/* the records of a batch are split in runs of one chunk each (nseg runs, run i ends
 * before end[i]): a few per batch, as chunks hold hundreds of records or more */
struct rec_batch {
	struct rec_batch *next;
	uint32_t n, nseg, taken_seg;
	struct pmt_spe_record rec[BATCH_RECS];
	uint32_t end[BATCH_RECS];
	uint64_t seq[BATCH_RECS];
};

struct lane_chunk {
	const uint8_t *data;
	uint64_t size, offset, pad_base;
};

struct rec_lane {
	struct rec_lane *next_lane; /* every lane, for the pool's free */
	struct rec_lane *next_run;  /* run queue */
	struct pmt_spe_rec_decoder *dec;
	/* chunks given and not yet fed: [head, n) of chunks, seq of chunks[0] is seq0 */
	struct lane_chunk *chunks;
	size_t head, n, cap;
	uint64_t seq0;
	/* worker side: the chunk the decoder reads */
	uint64_t fed_seq;
	bool feeding;
	/* state under the pool's mutex */
	bool busy, queued;
	bool exhausted; /* the decoder is at the end of the last chunk given */
	struct rec_batch *free_b, *ready_head, *ready_tail;
	/* merge side: the batch records are taken from */
	struct rec_batch *cur;
	struct rec_batch batches[LANE_BATCHES];
};

struct rec_pool {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct rec_lane *run_head, *run_tail;
	struct rec_lane *lanes;
	pthread_t *th;
	unsigned nth;
	bool stop;
};

static bool runnable(const struct rec_lane *l)
{
	return !l->busy && !l->queued && !l->exhausted && l->free_b;
}

static void enqueue(struct rec_pool *p, struct rec_lane *l)
{
	if (!runnable(l) || p->stop)
		return;
	l->queued = true;
	l->next_run = NULL;
	if (p->run_tail)
		p->run_tail->next_run = l;
	else
		p->run_head = l;
	p->run_tail = l;
	pthread_cond_signal(&p->work);
}

/* Under the mutex: the next chunk into the decoder, or mark the lane exhausted. */
static bool take_chunk(struct rec_lane *l, struct lane_chunk *c)
{
	if (l->head >= l->n) {
		l->exhausted = true;
		return false;
	}
	*c = l->chunks[l->head++];
	l->fed_seq = l->seq0 + l->head - 1;
	return true;
}

/* Fill b from the lane's decoder, feeding chunks as they run out; the mutex is not held. */
static void fill(struct rec_pool *p, struct rec_lane *l, struct rec_batch *b)
{
	b->n = b->nseg = b->taken_seg = 0;
	while (b->n < BATCH_RECS) {
		struct lane_chunk c;
		bool got;

		if (l->feeding && pmt_spe_rec_next(l->dec, &b->rec[b->n]) == 1) {
			if (!b->nseg || b->seq[b->nseg - 1] != l->fed_seq)
				b->seq[b->nseg++] = l->fed_seq;
			b->end[b->nseg - 1] = ++b->n;
			continue;
		}
		pthread_mutex_lock(&p->mu);
		got = take_chunk(l, &c);
		pthread_mutex_unlock(&p->mu);
		if (!got)
			return;
		pmt_spe_rec_feed(l->dec, c.data, (size_t)c.size, c.offset);
		/* perf sizes an alignment pad from the address of its buffer (see pad_base) */
		spe_rec_set_pad_base(l->dec, c.pad_base);
		l->feeding = true;
	}
}

static void publish(struct rec_lane *l, struct rec_batch *b)
{
	b->next = NULL;
	if (l->ready_tail)
		l->ready_tail->next = b;
	else
		l->ready_head = b;
	l->ready_tail = b;
}

static void *worker(void *arg)
{
	struct rec_pool *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct rec_lane *l;

		while (!p->run_head && !p->stop)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->stop)
			break;
		l = p->run_head;
		p->run_head = l->next_run;
		if (!p->run_head)
			p->run_tail = NULL;
		l->queued = false;
		l->busy = true;
		while (l->free_b && !l->exhausted && !p->stop) {
			struct rec_batch *b = l->free_b;

			l->free_b = b->next;
			pthread_mutex_unlock(&p->mu);
			fill(p, l, b);
			pthread_mutex_lock(&p->mu);
			if (b->n) {
				publish(l, b);
				pthread_cond_signal(&p->done);
			} else {
				b->next = l->free_b;
				l->free_b = b;
			}
		}
		l->busy = false;
		pthread_cond_signal(&p->done);
		/* more chunks may have come while this worker held the lane */
		enqueue(p, l);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int rec_pool_new(unsigned threads, struct rec_pool **out)
{
	struct rec_pool *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p || !threads)
		return free(p), p ? -PMT_EINVAL : -PMT_ENOMEM;
	p->th = calloc(threads, sizeof(*p->th));
	if (!p->th)
		return free(p), -PMT_ENOMEM;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	for (; p->nth < threads; p->nth++)
		if (pthread_create(&p->th[p->nth], NULL, worker, p) != 0)
			break;
	if (!p->nth) {
		rec_pool_free(p);
		return -PMT_ENOMEM;
	}
	*out = p;
	return 0;
}

void rec_pool_free(struct rec_pool *p)
{
	if (!p)
		return;
	pmt_workers_stop(&p->mu, &p->work, &p->stop, p->th, p->nth);
	while (p->lanes) {
		struct rec_lane *l = p->lanes;

		p->lanes = l->next_lane;
		free(l->chunks);
		free(l);
	}
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->mu);
	free(p->th);
	free(p);
}

struct rec_lane *rec_pool_lane(struct rec_pool *p, struct pmt_spe_rec_decoder *dec)
{
	struct rec_lane *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->dec = dec;
	l->exhausted = true;
	for (unsigned i = 0; i < LANE_BATCHES; i++) {
		l->batches[i].next = l->free_b;
		l->free_b = &l->batches[i];
	}
	pthread_mutex_lock(&p->mu);
	l->next_lane = p->lanes;
	p->lanes = l;
	pthread_mutex_unlock(&p->mu);
	return l;
}

int rec_lane_submit(struct rec_pool *p, struct rec_lane *l, const uint8_t *data,
		    uint64_t size, uint64_t offset, uint64_t pad_base)
{
	int rc = 0;

	pthread_mutex_lock(&p->mu);
	if (l->head == l->n) {
		l->seq0 += l->n;
		l->head = l->n = 0;
	} else if (l->head >= 64 && l->head * 2 >= l->n) {
		memmove(l->chunks, l->chunks + l->head, (l->n - l->head) * sizeof(*l->chunks));
		l->seq0 += l->head;
		l->n -= l->head;
		l->head = 0;
	}
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 16;
		struct lane_chunk *cs = realloc(l->chunks, nc * sizeof(*cs));

		if (!cs) {
			rc = -PMT_ENOMEM;
			goto out;
		}
		l->chunks = cs;
		l->cap = nc;
	}
	l->chunks[l->n++] = (struct lane_chunk){ data, size, offset, pad_base };
	l->exhausted = false;
	enqueue(p, l);
out:
	pthread_mutex_unlock(&p->mu);
	return rc;
}

int rec_lane_span(struct rec_pool *p, struct rec_lane *l, struct rec_span *out)
{
	struct rec_batch *b = l->cur;
	uint32_t i;

	if (!b || b->taken_seg == b->nseg) {
		pthread_mutex_lock(&p->mu);
		if (b) {
			b->next = l->free_b;
			l->free_b = b;
			l->cur = NULL;
			enqueue(p, l);
		}
		while (!l->ready_head) {
			if (l->exhausted && !l->busy && !l->queued) {
				pthread_mutex_unlock(&p->mu);
				return 0;
			}
			pthread_cond_wait(&p->done, &p->mu);
		}
		b = l->ready_head;
		l->ready_head = b->next;
		if (!l->ready_head)
			l->ready_tail = NULL;
		pthread_mutex_unlock(&p->mu);
		l->cur = b;
	}
	i = b->taken_seg++;
	out->rec = &b->rec[i ? b->end[i - 1] : 0];
	out->n = b->end[i] - (i ? b->end[i - 1] : 0);
	out->seq = b->seq[i];
	return 1;
}
