/* Samples to their writer on a thread of its own (pmt_sample_pipe): the decoder fills a
 * batch while the writer formats the one before, in the order given. A batch holds its
 * samples' records, branch stacks and call chains too: the decoder reuses its own for the
 * next record.
 * The writer's state (a sink's caches and padding, a report's tables) sees the samples one
 * by one in the same order as without the pipe, so its output is the same. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/output.h"

#define BATCH 4096  /* samples per batch */
#define NBATCH 4    /* batches in flight: bounded memory (about 1 MiB each) */

struct batch {
	struct pmt_spe_sample s[BATCH];
	struct pmt_spe_record rec[BATCH];
	struct pmt_spe_brstack br[BATCH];
	unsigned n, nrec;
	bool full; /* handed to the writer, not yet written */
	/* call chains, one after the other (a struct pmt_callchain each); chain_at[i] is
	 * sample i's offset, SIZE_MAX for none; pointers are set when the batch is handed
	 * over, the pool may move while it fills */
	uint64_t *chains;
	size_t nchains, chains_cap;
	size_t chain_at[BATCH];
};

struct pmt_sample_pipe {
	pthread_mutex_t mu;
	pthread_cond_t filled, emptied;
	pthread_t th;
	pmt_spe_sample_fn fn;
	void *ctx;
	struct batch *b;
	unsigned fill, drain; /* the batch the decoder fills, the one the writer writes next */
	bool closing;
	int err; /* fn's first negative value: the writer stops, put returns it */
};

static void *writer(void *arg)
{
	struct pmt_sample_pipe *p = arg;
	int err = 0;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct batch *b = &p->b[p->drain];

		while (!b->full && !p->closing)
			pthread_cond_wait(&p->filled, &p->mu);
		if (!b->full)
			break; /* closing, and everything given is written */
		pthread_mutex_unlock(&p->mu);
		for (unsigned i = 0; i < b->n && !err; i++) {
			int rc = p->fn(&b->s[i], p->ctx);

			if (rc < 0)
				err = rc;
		}
		pthread_mutex_lock(&p->mu);
		p->err = err;
		b->n = b->nrec = 0;
		b->nchains = 0;
		b->full = false;
		p->drain = (p->drain + 1) % NBATCH;
		pthread_cond_signal(&p->emptied);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int pmt_sample_pipe_new(pmt_spe_sample_fn fn, void *ctx, struct pmt_sample_pipe **out)
{
	struct pmt_sample_pipe *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p || !fn || !(p->b = calloc(NBATCH, sizeof(*p->b)))) {
		free(p);
		return fn ? -PMT_ENOMEM : -PMT_EINVAL;
	}
	p->fn = fn;
	p->ctx = ctx;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->emptied, NULL);
	if (pthread_create(&p->th, NULL, writer, p)) {
		pthread_cond_destroy(&p->filled);
		pthread_cond_destroy(&p->emptied);
		pthread_mutex_destroy(&p->mu);
		free(p->b);
		free(p);
		return -PMT_ENOMEM;
	}
	*out = p;
	return 0;
}

/* the batch's samples point at their chains in its pool, which no longer moves */
static void point_chains(struct batch *b)
{
	for (unsigned i = 0; i < b->n; i++)
		if (b->chain_at[i] != SIZE_MAX)
			b->s[i].callchain = (const struct pmt_callchain *)(b->chains + b->chain_at[i]);
}

/* sample i's chain c, copied into the batch's pool; 0 or -PMT_ENOMEM */
static int keep_chain(struct batch *b, unsigned i, const struct pmt_callchain *c)
{
	size_t need = b->nchains + 1 + (size_t)c->nr;

	if (need > b->chains_cap) {
		size_t cap = b->chains_cap ? b->chains_cap : 4096;
		uint64_t *np;

		while (cap < need)
			cap *= 2;
		if (!(np = realloc(b->chains, cap * sizeof(*np))))
			return -PMT_ENOMEM;
		b->chains = np;
		b->chains_cap = cap;
	}
	b->chain_at[i] = b->nchains;
	memcpy(b->chains + b->nchains, c, (1 + (size_t)c->nr) * sizeof(uint64_t));
	b->nchains = need;
	return 0;
}

/* The batch being filled goes to the writer; wait until the next one is free. */
static int hand_over(struct pmt_sample_pipe *p)
{
	struct batch *next;
	int rc;

	point_chains(&p->b[p->fill]);
	pthread_mutex_lock(&p->mu);
	p->b[p->fill].full = true;
	pthread_cond_signal(&p->filled);
	p->fill = (p->fill + 1) % NBATCH;
	next = &p->b[p->fill];
	while (next->full)
		pthread_cond_wait(&p->emptied, &p->mu);
	rc = p->err;
	pthread_mutex_unlock(&p->mu);
	return rc;
}

int pmt_sample_pipe_put(struct pmt_sample_pipe *p, const struct pmt_spe_sample *s, int n)
{
	struct batch *b = &p->b[p->fill];
	struct pmt_spe_record *rec = NULL;

	if (n <= 0 || n > BATCH)
		return n ? -PMT_EINVAL : 0;
	if (b->n + (unsigned)n > BATCH) {
		int rc = hand_over(p);

		if (rc < 0)
			return rc;
		b = &p->b[p->fill];
	}
	for (int i = 0; i < n; i++) {
		struct pmt_spe_sample *d = &b->s[b->n++];

		*d = s[i];
		if (s[i].rec) {
			/* the n samples of one record share it: copied once */
			if (!rec || (i && s[i].rec != s[i - 1].rec)) {
				rec = &b->rec[b->nrec++];
				*rec = *s[i].rec;
			}
			d->rec = rec;
		}
		if (s[i].brstack) {
			b->br[b->n - 1] = *s[i].brstack;
			d->brstack = &b->br[b->n - 1];
		}
		b->chain_at[b->n - 1] = SIZE_MAX;
		if (s[i].callchain) {
			int rc = keep_chain(b, b->n - 1, s[i].callchain);

			if (rc < 0)
				return rc;
		}
	}
	return b->n == BATCH ? hand_over(p) : 0;
}

int pmt_sample_pipe_free(struct pmt_sample_pipe *p)
{
	int rc;

	if (!p)
		return 0;
	point_chains(&p->b[p->fill]);
	pthread_mutex_lock(&p->mu);
	if (p->b[p->fill].n)
		p->b[p->fill].full = true;
	p->closing = true;
	pthread_cond_signal(&p->filled);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->th, NULL);
	rc = p->err;
	pthread_cond_destroy(&p->filled);
	pthread_cond_destroy(&p->emptied);
	pthread_mutex_destroy(&p->mu);
	for (unsigned i = 0; i < NBATCH; i++)
		free(p->b[i].chains);
	free(p->b);
	free(p);
	return rc;
}
