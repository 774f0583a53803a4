/* The sampler on a thread of its own (sample_thread.h): batches of records go round a
 * ring of NBATCH, the merge filling one while the thread samples the ones before; the
 * lock is taken once per batch. Nothing is allocated per record. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "sample_thread.h"

/* 2048 records (~230 KiB) a batch, 4 in flight: as the record workers' batches
 * (rec_pool.c), one hand-over per few thousand samples */
#define BATCH 2048
#define NBATCH 4

struct entry {
	struct pmt_spe_queue *q;
	int32_t pid, tid;
	struct pmt_spe_record rec;
};

struct batch {
	struct entry e[BATCH];
	unsigned n;
	bool full; /* handed to the thread, not yet sampled */
};

struct sample_thread {
	pthread_mutex_t mu;
	pthread_cond_t filled, emptied;
	pthread_t th;
	struct pmt_spe_sampler s;
	int (*record_fn)(const struct pmt_spe_sample *s, int n, void *ctx);
	pmt_spe_sample_fn fn;
	void *ctx;
	struct batch *b;
	unsigned fill, drain; /* the batch the merge fills, the one the thread samples next */
	unsigned nfull;
	bool closing;
	int err; /* a callback's first negative value: the thread stops handing on */
};

static int sample_batch(struct sample_thread *t, const struct batch *b)
{
	struct pmt_spe_sample out[PMT_SPE_MAX_SAMPLES_PER_RECORD];

	for (unsigned i = 0; i < b->n; i++) {
		const struct entry *e = &b->e[i];
		int n;

		e->q->pid = e->pid;
		e->q->tid = e->tid;
		n = pmt_spe_sampler_run(&t->s, e->q, &e->rec, out);
		if (t->record_fn) {
			int rc = n ? t->record_fn(out, n, t->ctx) : 0;

			if (rc < 0)
				return rc;
			continue;
		}
		for (int k = 0; k < n; k++) {
			int rc = t->fn(&out[k], t->ctx);

			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static void *run(void *arg)
{
	struct sample_thread *t = arg;
	int err = 0;

	pthread_mutex_lock(&t->mu);
	for (;;) {
		struct batch *b = &t->b[t->drain];

		while (!b->full && !t->closing)
			pthread_cond_wait(&t->filled, &t->mu);
		if (!b->full)
			break; /* closing, and everything given is sampled */
		pthread_mutex_unlock(&t->mu);
		if (!err)
			err = sample_batch(t, b);
		pthread_mutex_lock(&t->mu);
		t->err = err;
		b->n = 0;
		b->full = false;
		t->nfull--;
		t->drain = (t->drain + 1) % NBATCH;
		pthread_cond_signal(&t->emptied);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

int sample_thread_new(const struct pmt_spe_sampler *s,
		      int (*record_fn)(const struct pmt_spe_sample *s, int n, void *ctx),
		      pmt_spe_sample_fn fn, void *ctx, struct sample_thread **out)
{
	struct sample_thread *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t || !(t->b = calloc(NBATCH, sizeof(*t->b)))) {
		free(t);
		return -PMT_ENOMEM;
	}
	t->s = *s;
	t->s.threads = NULL;
	t->record_fn = record_fn;
	t->fn = fn;
	t->ctx = ctx;
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->filled, NULL);
	pthread_cond_init(&t->emptied, NULL);
	if (pthread_create(&t->th, NULL, run, t)) {
		pthread_cond_destroy(&t->filled);
		pthread_cond_destroy(&t->emptied);
		pthread_mutex_destroy(&t->mu);
		free(t->b);
		free(t);
		return -PMT_ENOMEM;
	}
	*out = t;
	return 0;
}

/* Under the mutex: the batch being filled (if it holds records) goes to the thread. */
static void hand_over(struct sample_thread *t)
{
	struct batch *b = &t->b[t->fill];

	if (!b->n)
		return;
	b->full = true;
	t->nfull++;
	pthread_cond_signal(&t->filled);
	t->fill = (t->fill + 1) % NBATCH;
}

int sample_thread_put(struct sample_thread *t, struct pmt_spe_queue *q,
		      const struct pmt_spe_record *rec, int32_t pid, int32_t tid)
{
	struct batch *b = &t->b[t->fill];
	struct entry *e = &b->e[b->n++];
	int rc = 0;

	e->q = q;
	e->pid = pid;
	e->tid = tid;
	e->rec = *rec;
	if (b->n < BATCH)
		return 0;
	pthread_mutex_lock(&t->mu);
	hand_over(t);
	while (t->b[t->fill].full)
		pthread_cond_wait(&t->emptied, &t->mu);
	rc = t->err;
	pthread_mutex_unlock(&t->mu);
	return rc;
}

int sample_thread_sync(struct sample_thread *t)
{
	int rc;

	pthread_mutex_lock(&t->mu);
	hand_over(t);
	while (t->nfull)
		pthread_cond_wait(&t->emptied, &t->mu);
	rc = t->err;
	pthread_mutex_unlock(&t->mu);
	return rc;
}

int sample_thread_free(struct sample_thread *t)
{
	int rc;

	if (!t)
		return 0;
	pthread_mutex_lock(&t->mu);
	hand_over(t);
	t->closing = true;
	pthread_cond_signal(&t->filled);
	pthread_mutex_unlock(&t->mu);
	pthread_join(t->th, NULL);
	rc = t->err;
	pthread_cond_destroy(&t->filled);
	pthread_cond_destroy(&t->emptied);
	pthread_mutex_destroy(&t->mu);
	free(t->b);
	free(t);
	return rc;
}
