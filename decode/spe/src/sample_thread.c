/* The sampler on a thread of its own (sample_thread.h): batches of records go round a
 * ring of NBATCH, the merge filling one while the thread samples the ones before; the
 * lock is taken once per batch. Nothing is allocated per record. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "sample_thread.h"

/* 2048 records (~230 KiB) a batch, as the record workers' batches (rec_pool.c). A side
 * that had to sleep is woken only once WAKE batches wait for it (full ones for the thread,
 * free ones for the merge), not at every batch: woken at once, the two sides took turns
 * sleeping at nearly every batch (~860 voluntary context switches in a run of 1M records,
 * each the wake-up of a core; ~230 now, /usr/bin/time's %w). 8 batches (~1.8 MiB) in
 * flight: `perf stat -e context-switches` at -j 2 counted 900-950 with 4 (waking at 2),
 * 480-560 with 8, 520-540 with 16 of 1024 records. */
#define BATCH 2048
#define NBATCH PMT_SPE_BLOCK_SLOTS
#define WAKE (NBATCH / 2)

struct entry {
	struct pmt_spe_queue *q;
	int32_t pid, tid;
	struct pmt_spe_record rec;
};

/* FULL: handed to the thread. In block mode a batch then holds its samples (SAMPLED),
 * has its rows made (ROWS, by either thread; READY after) and goes out in order. */
enum batch_state { B_FREE, B_FULL, B_SAMPLED, B_ROWS, B_READY };

struct batch {
	struct entry e[BATCH];
	unsigned n;
	enum batch_state state;
	/* block mode: the samples of the batch's records (BATCH * the most a record makes,
	 * allocated once), each record's branch stack (the queue's is the next record's) */
	struct pmt_spe_sample *smp;
	size_t nsmp;
	struct pmt_spe_brstack *br;
};

struct sample_thread {
	pthread_mutex_t mu;
	pthread_cond_t filled, emptied;
	pthread_t th;
	struct pmt_spe_sampler s;
	int (*record_fn)(const struct pmt_spe_sample *s, int n, void *ctx);
	pmt_spe_sample_fn fn;
	int (*rows_fn)(unsigned slot, const struct pmt_spe_sample *s, size_t n, void *ctx);
	int (*out_fn)(unsigned slot, const struct pmt_spe_sample *s, size_t n, void *ctx);
	void *ctx;
	struct batch *b;
	unsigned fill, drain; /* the batch the merge fills, the one the thread samples next */
	unsigned out_next; /* block mode: the next batch to put out */
	unsigned nsampled; /* block mode: batches whose samples wait for their rows */
	unsigned nfull; /* batches not free */
	unsigned nfull_unsampled; /* of them, FULL */
	bool writing; /* block mode: a thread is in out_fn */
	bool thread_sleeps; /* the thread waits for WAKE full batches (or the end) */
	bool handed_any; /* a batch was handed over (the first wakes the thread at once) */
	unsigned merge_needs; /* 0, or the free batches the merge waits for (NBATCH: all) */
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

/* Block mode: the batch's samples into its own arrays; with rows, each record's samples
 * go to the rows at once instead, from this core's cache (when run() does not keep the
 * batch for the merge), and only the first record's are kept, for block_out_fn. Stored and
 * made into rows later, 2.5M samples of 120 bytes went through memory twice: cachegrind's
 * D1 misses at -j 2 were 11.5M -> 25.7M against -j 1, at equal instructions. Returns a
 * rows callback's error. */
static int sample_block(struct sample_thread *t, struct batch *b, bool rows)
{
	struct pmt_spe_sample scratch[PMT_SPE_MAX_SAMPLES_PER_RECORD];
	unsigned slot = (unsigned)(b - t->b);
	int rc = 0;

	b->nsmp = 0;
	for (unsigned i = 0; i < b->n; i++) {
		struct entry *e = &b->e[i];
		struct pmt_spe_sample *out = rows && b->nsmp ? scratch : b->smp + b->nsmp;
		int n;

		e->q->pid = e->pid;
		e->q->tid = e->tid;
		n = pmt_spe_sampler_run(&t->s, e->q, &e->rec, out);
		/* kept samples outlive the queue's branch stack */
		for (int k = 0; out != scratch && k < n; k++) {
			if (out[k].brstack) {
				b->br[i] = *out[k].brstack;
				out[k].brstack = &b->br[i];
			}
		}
		if (rows && n && rc >= 0)
			rc = t->rows_fn(slot, out, (size_t)n, t->ctx);
		b->nsmp += (size_t)n;
	}
	return rc;
}

/* Under the mutex, block mode: the batches whose rows are made go out in order, by one
 * thread at a time; the merge is woken when it waits for free batches. */
static void put_out_ready(struct sample_thread *t)
{
	while (!t->writing && t->b[t->out_next].state == B_READY) {
		struct batch *b = &t->b[t->out_next];
		bool stopped = t->err;
		int rc = 0;

		t->writing = true;
		pthread_mutex_unlock(&t->mu);
		if (!stopped)
			rc = t->out_fn((unsigned)(b - t->b), b->nsmp ? b->smp : NULL, b->nsmp,
				       t->ctx);
		pthread_mutex_lock(&t->mu);
		if (rc < 0 && !t->err)
			t->err = rc;
		t->writing = false;
		b->n = 0;
		b->nsmp = 0;
		b->state = B_FREE;
		t->nfull--;
		t->out_next = (t->out_next + 1) % NBATCH;
		if (t->merge_needs && NBATCH - t->nfull >= t->merge_needs)
			pthread_cond_signal(&t->emptied);
	}
}

/* Under the mutex, block mode: makes the rows of the oldest sampled batch, if one waits
 * (and puts out what is ready). Returns whether there was one. */
static bool make_rows(struct sample_thread *t)
{
	unsigned slot = t->out_next;
	struct batch *b;
	bool stopped = t->err;
	int rc = 0;

	if (!t->nsampled)
		return false;
	while (t->b[slot].state != B_SAMPLED)
		slot = (slot + 1) % NBATCH;
	b = &t->b[slot];
	b->state = B_ROWS;
	t->nsampled--;
	pthread_mutex_unlock(&t->mu);
	if (!stopped)
		rc = t->rows_fn(slot, b->smp, b->nsmp, t->ctx);
	pthread_mutex_lock(&t->mu);
	if (rc < 0 && !t->err)
		t->err = rc;
	b->state = B_READY;
	put_out_ready(t);
	return true;
}

static void *run(void *arg)
{
	struct sample_thread *t = arg;
	bool blocks = t->rows_fn;
	int err = 0;

	pthread_mutex_lock(&t->mu);
	for (;;) {
		struct batch *b = &t->b[t->drain];

		if (b->state != B_FULL) {
			/* block mode: rows while there is nothing to sample */
			if (blocks && make_rows(t))
				continue;
			if (t->closing)
				break; /* everything given is sampled (and out, in block mode) */
			t->thread_sleeps = true;
			pthread_cond_wait(&t->filled, &t->mu);
			t->thread_sleeps = false;
			continue;
		}
		/* the rows as the samples are made, unless the merge waits with no rows to
		 * make: it gets this batch's. One kept batch gives it work; keeping every
		 * batch while it waited kept 4 of 5 (the merge waits most of a run) */
		if (blocks && !t->err && !(t->merge_needs && !t->nsampled)) {
			int rc;

			b->state = B_ROWS;
			pthread_mutex_unlock(&t->mu);
			rc = sample_block(t, b, true);
			pthread_mutex_lock(&t->mu);
			if (rc < 0 && !t->err)
				t->err = rc;
			t->nfull_unsampled--;
			t->drain = (t->drain + 1) % NBATCH;
			b->state = B_READY;
			put_out_ready(t);
			continue;
		}
		pthread_mutex_unlock(&t->mu);
		if (blocks)
			sample_block(t, b, false);
		else if (!err)
			err = sample_batch(t, b);
		pthread_mutex_lock(&t->mu);
		t->nfull_unsampled--;
		t->drain = (t->drain + 1) % NBATCH;
		if (blocks) {
			b->state = B_SAMPLED;
			t->nsampled++;
			/* a merge waiting for free batches can make these rows */
			if (t->merge_needs)
				pthread_cond_signal(&t->emptied);
			continue;
		}
		t->err = err;
		b->n = 0;
		b->state = B_FREE;
		t->nfull--;
		if (t->merge_needs && NBATCH - t->nfull >= t->merge_needs)
			pthread_cond_signal(&t->emptied);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

static void free_batches(struct sample_thread *t)
{
	for (unsigned i = 0; t->b && i < NBATCH; i++) {
		free(t->b[i].smp);
		free(t->b[i].br);
	}
	free(t->b);
}

int sample_thread_new(const struct pmt_spe_sampler *s, const struct pmt_spe_run_opts *o,
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
	t->record_fn = o->record_fn;
	t->fn = fn;
	t->ctx = ctx;
	if (PMT_OPTS_HAS(o, block_out_fn) && o->block_rows_fn && o->block_out_fn) {
		t->rows_fn = o->block_rows_fn;
		t->out_fn = o->block_out_fn;
		for (unsigned i = 0; i < NBATCH; i++) {
			struct batch *b = &t->b[i];

			b->smp = malloc(BATCH * PMT_SPE_MAX_SAMPLES_PER_RECORD * sizeof(*b->smp));
			b->br = malloc(BATCH * sizeof(*b->br));
			if (!b->smp || !b->br) {
				free_batches(t);
				free(t);
				return -PMT_ENOMEM;
			}
		}
	}
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->filled, NULL);
	pthread_cond_init(&t->emptied, NULL);
	if (pthread_create(&t->th, NULL, run, t)) {
		pthread_cond_destroy(&t->filled);
		pthread_cond_destroy(&t->emptied);
		pthread_mutex_destroy(&t->mu);
		free_batches(t);
		free(t);
		return -PMT_ENOMEM;
	}
	*out = t;
	return 0;
}

/* Under the mutex: the batch being filled (if it holds records) goes to the thread; a
 * sleeping thread is woken when WAKE batches wait, or now when flush (the merge is about
 * to wait for everything, or to stop), or at the first batch: the thread has had nothing
 * to do since the start (the merge fills the decode window first), and waiting for WAKE
 * batches there only delays the first rows by 3 batches of the merge's work. */
static void hand_over(struct sample_thread *t, bool flush)
{
	struct batch *b = &t->b[t->fill];
	bool first = false;

	if (b->n) {
		b->state = B_FULL;
		t->nfull++;
		t->nfull_unsampled++;
		t->fill = (t->fill + 1) % NBATCH;
		first = !t->handed_any;
		t->handed_any = true;
	}
	if (t->thread_sleeps && (flush || first || t->nfull_unsampled >= WAKE))
		pthread_cond_signal(&t->filled);
}

/* Under the mutex: sleeps until need batches are free (NBATCH: the thread is done). In
 * block mode it makes the rows of sampled batches meanwhile: the thread is behind. */
static void wait_free(struct sample_thread *t, unsigned need)
{
	t->merge_needs = need;
	while (NBATCH - t->nfull < need) {
		if (t->rows_fn && make_rows(t))
			continue;
		pthread_cond_wait(&t->emptied, &t->mu);
	}
	t->merge_needs = 0;
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
	hand_over(t, false);
	/* the ring is full only when the thread is behind: let it get WAKE batches ahead */
	if (t->nfull == NBATCH)
		wait_free(t, WAKE);
	rc = t->err;
	pthread_mutex_unlock(&t->mu);
	return rc;
}

int sample_thread_sync(struct sample_thread *t)
{
	int rc;

	pthread_mutex_lock(&t->mu);
	hand_over(t, true);
	wait_free(t, NBATCH);
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
	hand_over(t, true);
	t->closing = true;
	pthread_cond_signal(&t->filled);
	pthread_mutex_unlock(&t->mu);
	pthread_join(t->th, NULL);
	rc = t->err;
	pthread_cond_destroy(&t->filled);
	pthread_cond_destroy(&t->emptied);
	pthread_mutex_destroy(&t->mu);
	free_batches(t);
	free(t);
	return rc;
}
