/* The writer's compression threads: a ring of frame slots filled by the writer in order,
 * compressed whole by whichever thread is free (ZSTD_compress2 on a context per thread,
 * reused: no allocation per frame once the buffers reached the frame size), and handed back
 * to the writer in the same order. zstd's own workers were 541 MB/s on 2 cores at level 3
 * (FORMAT.md): they split a frame into jobs and serialise on its end; whole frames on
 * their own contexts do not wait for each other. */
#include <pthread.h>
#include <stdlib.h>
#include <zstd.h>

#include "pmutrace/workers.h"

#include "counts_cols.h"
#include "writer_pool.h"

enum slot_state { SLOT_FILLING, SLOT_QUEUED, SLOT_BUSY, SLOT_DONE };

struct ctr_pool {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	pthread_t *th;
	ZSTD_CCtx **cctx;
	unsigned ncctx, nth, started;
	struct ctr_slot *slot;
	enum slot_state *state;
	unsigned ns;
	/* sequence numbers: slot seq % ns. emit <= take <= fill; fill is the writer's */
	uint64_t fill, take, emit;
	uint64_t pending;       /* bytes of the frames queued or busy */
	uint64_t done_count;
	bool stop;
};

int ctr_zstd_params(int level, bool aux)
{
	return level == 1 && aux ? -1 : level;
}

void ctr_zstd_level(void *zcctx, int params)
{
	ZSTD_CCtx *cctx = zcctx;

	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, params < 0 ? 1 : params);
	/* level 1 with a 4 KiB-entry hash table (zstd's own is 16 KiB entries for inputs over
	 * 256 KiB): it stays in L1, and SPE bytes repeat at short distance, so frames of AUX
	 * bytes are 1-4% smaller and 10-20% faster (FORMAT.md, "zstd's parameters"); other
	 * bytes (an ELF file: 7% larger) keep the level's (0) */
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_hashLog, params < 0 ? CTR_LEVEL1_HASHLOG : 0);
}

static int compress(ZSTD_CCtx *cctx, int *level, struct ctr_slot *s)
{
	size_t bound = ZSTD_compressBound(s->len), z;
	int params;

	/* the slot's last frame's counts frame is not this one's, whatever fails below */
	free(s->counts_frame);
	s->counts_frame = NULL;
	for (size_t i = 0; i < s->chunks.n; i++)
		finfo_chunk_scan(&s->chunks.v[i], s->buf);
	if (bound > s->zcap) {
		uint8_t *b = realloc(s->z, bound);

		if (!b)
			return -PMT_ENOMEM;
		s->z = b;
		s->zcap = bound;
	}
	params = ctr_zstd_params(s->level, s->fi.aux_bytes >= s->len / 2);
	if (params != *level) {
		ctr_zstd_level(cctx, params);
		*level = params;
	}
	z = ZSTD_compress2(cctx, s->z, s->zcap, s->buf, s->len);
	if (ZSTD_isError(z))
		return -PMT_ECOMPRESS;
	s->zlen = z;
	if (s->counts) {
		int rc = ctr_counts_encode(s->buf, s->len, true, &s->counts_frame, &s->counts_len);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static void *run(void *arg)
{
	struct ctr_pool *p = arg;
	ZSTD_CCtx *cctx;
	int level = 0; /* none set yet: the first frame sets its own (ctr_zstd_params) */

	pthread_mutex_lock(&p->mu);
	cctx = p->cctx[p->started++];
	for (;;) {
		struct ctr_slot *s;
		unsigned i;
		int rc;

		while (!p->stop && p->take == p->fill)
			pthread_cond_wait(&p->work, &p->mu);
		if (p->take == p->fill)
			break;
		i = (unsigned)(p->take++ % p->ns);
		s = &p->slot[i];
		p->state[i] = SLOT_BUSY;
		pthread_mutex_unlock(&p->mu);
		rc = compress(cctx, &level, s);
		pthread_mutex_lock(&p->mu);
		s->err = rc;
		p->state[i] = SLOT_DONE;
		p->pending -= s->len;
		p->done_count++;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int ctr_pool_new(struct ctr_pool **out, unsigned threads, unsigned slots)
{
	struct ctr_pool *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return -PMT_ENOMEM;
	p->ns = slots;
	p->slot = calloc(slots, sizeof(*p->slot));
	p->state = calloc(slots, sizeof(*p->state));
	p->th = calloc(threads, sizeof(*p->th));
	p->cctx = calloc(threads, sizeof(*p->cctx));
	p->ncctx = p->cctx ? threads : 0;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	if (!p->slot || !p->state || !p->th || !p->cctx) {
		ctr_pool_free(p);
		return -PMT_ENOMEM;
	}
	for (unsigned i = 0; i < threads; i++) {
		if (!(p->cctx[i] = ZSTD_createCCtx())) {
			ctr_pool_free(p);
			return -PMT_ENOMEM;
		}
		/* every frame checks itself: a flipped bit is found in its frame */
		ZSTD_CCtx_setParameter(p->cctx[i], ZSTD_c_checksumFlag, 1);
	}
	for (; p->nth < threads; p->nth++) {
		if (pthread_create(&p->th[p->nth], NULL, run, p)) {
			ctr_pool_free(p);
			return -PMT_ENOMEM;
		}
	}
	*out = p;
	return 0;
}

struct ctr_slot *ctr_pool_filling(struct ctr_pool *p)
{
	return &p->slot[p->fill % p->ns];
}

void ctr_pool_submit(struct ctr_pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->state[p->fill % p->ns] = SLOT_QUEUED;
	p->pending += p->slot[p->fill % p->ns].len;
	p->fill++;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->mu);
}

bool ctr_pool_room(const struct ctr_pool *p)
{
	/* emit only moves on the writer's thread, the caller's */
	return p->fill - p->emit < p->ns;
}

struct ctr_slot *ctr_pool_oldest_done(struct ctr_pool *p, bool wait)
{
	struct ctr_slot *s = NULL;
	unsigned i = (unsigned)(p->emit % p->ns);

	pthread_mutex_lock(&p->mu);
	while (wait && p->emit < p->fill && p->state[i] != SLOT_DONE)
		pthread_cond_wait(&p->done, &p->mu);
	if (p->emit < p->fill && p->state[i] == SLOT_DONE)
		s = &p->slot[i];
	pthread_mutex_unlock(&p->mu);
	return s;
}

void ctr_pool_release(struct ctr_pool *p)
{
	struct ctr_slot *s = &p->slot[p->emit % p->ns];

	s->len = 0;
	s->chunks.n = 0;
	pthread_mutex_lock(&p->mu);
	p->state[p->emit % p->ns] = SLOT_FILLING;
	p->emit++;
	pthread_mutex_unlock(&p->mu);
}

uint64_t ctr_pool_backlog(struct ctr_pool *p, int *active)
{
	uint64_t n;

	pthread_mutex_lock(&p->mu);
	n = p->pending;
	*active = p->take < p->fill || n > 0;
	pthread_mutex_unlock(&p->mu);
	return n;
}

void ctr_pool_wait_progress(struct ctr_pool *p)
{
	pthread_mutex_lock(&p->mu);
	for (uint64_t seen = p->done_count; p->done_count == seen && p->pending;)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void ctr_pool_free(struct ctr_pool *p)
{
	if (!p)
		return;
	pmt_workers_stop(&p->mu, &p->work, &p->stop, p->th, p->nth);
	for (unsigned i = 0; i < p->ncctx; i++)
		ZSTD_freeCCtx(p->cctx[i]);
	for (unsigned i = 0; p->slot && i < p->ns; i++) {
		free(p->slot[i].buf);
		free(p->slot[i].z);
		free(p->slot[i].chunks.v);
		free(p->slot[i].counts_frame);
	}
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	free(p->slot);
	free(p->state);
	free(p->th);
	free(p->cctx);
	free(p);
}
