/* Frame decompression, and decompressing ahead on threads (pmt_ctr_reader_threads): data
 * frames are independent zstd frames, so threads can expand the next ones while the caller
 * reads this one. The reader's walk over the file stays on the caller's thread: damage,
 * skipped frames and statistics are found and counted in file order exactly as without
 * threads, and a thread only ever fills the buffer of a frame the walk will ask for (when
 * it asks for another, the guesses are dropped). Memory: a frame buffer per thread and one
 * more for the frame the caller holds. */
#include <pthread.h>
#include <stdlib.h>

#include "pmutrace/workers.h"

#include "columns.h"
#include "reader.h"

#define SKIP_ANY_MASK 0xFFFFFFF0u
#define SKIP_ANY 0x184D2A50u

int ctr_frame_decompress(struct ctr_frame_buf *fb, const uint8_t *src, size_t csize,
			 unsigned long long *dsize)
{
	ZSTD_inBuffer in = { src, csize, 0 };
	size_t ret = 1, got = 0, lim = SIZE_MAX;

	fb->zerr = NULL;
	if (*dsize != ZSTD_CONTENTSIZE_UNKNOWN && *dsize > FRAME_MAX) {
		fb->zerr = "announces more than 1 GiB";
		return -PMT_ECORRUPT;
	}
	if (*dsize != ZSTD_CONTENTSIZE_UNKNOWN) {
		/* a frame that states its size gets exactly that room, however large the
		 * buffer is from earlier frames: zstd then decodes it in one pass, and a
		 * damaged one fails the same way (the same message) on any thread */
		lim = (size_t)*dsize;
		if (fb->out_cap < lim) {
			uint8_t *n = realloc(fb->out, lim ? lim : 1);

			if (!n)
				return -PMT_ENOMEM;
			fb->out = n;
			fb->out_cap = lim ? lim : 1;
		}
	}
	ZSTD_DCtx_reset(fb->dctx, ZSTD_reset_session_only);
	/* A frame that fits the buffer is expanded in one call, straight into it: the
	 * streaming call decodes a frame of unknown size into its window first and copies it
	 * out (5% of `metrics TRACE` on a counting recording). On any failure the streaming
	 * path below runs, so a damaged frame is reported with the same words as before. */
	if (fb->out_cap && (*dsize == ZSTD_CONTENTSIZE_UNKNOWN || *dsize <= fb->out_cap)) {
		size_t n = ZSTD_decompressDCtx(fb->dctx, fb->out, fb->out_cap, src, csize);

		if (!ZSTD_isError(n) && (*dsize == ZSTD_CONTENTSIZE_UNKNOWN || n == *dsize)) {
			*dsize = n;
			return 0;
		}
		ZSTD_DCtx_reset(fb->dctx, ZSTD_reset_session_only);
	}
	while (ret != 0) {
		ZSTD_outBuffer out;

		if (got == fb->out_cap) {
			size_t cap = fb->out_cap ? 2 * fb->out_cap : PMT_CTR_FRAME_DEFAULT;
			uint8_t *n;

			if (*dsize != ZSTD_CONTENTSIZE_UNKNOWN && *dsize > got)
				cap = (size_t)*dsize;
			if (cap > FRAME_MAX) {
				fb->zerr = "holds more than 1 GiB";
				return -PMT_ECORRUPT;
			}
			n = realloc(fb->out, cap);
			if (!n)
				return -PMT_ENOMEM;
			fb->out = n;
			fb->out_cap = cap;
		}
		out = (ZSTD_outBuffer){ fb->out, fb->out_cap < lim ? fb->out_cap : lim, got };
		ret = ZSTD_decompressStream(fb->dctx, &out, &in);
		got = out.pos;
		if (ZSTD_isError(ret)) {
			fb->zerr = ZSTD_getErrorName(ret);
			return -PMT_ECORRUPT;
		}
		if (ret && got == lim) {
			fb->zerr = "holds more than its header says";
			return -PMT_ECORRUPT;
		}
		if (ret && in.pos == in.size && got < out.size) {
			fb->zerr = "ends early";
			return -PMT_ECORRUPT;
		}
	}
	if (*dsize != ZSTD_CONTENTSIZE_UNKNOWN && got != *dsize) {
		fb->zerr = "short";
		return -PMT_ECORRUPT;
	}
	*dsize = got;
	return 0;
}

enum job_state { JOB_FREE, JOB_QUEUED, JOB_RUNNING, JOB_DONE };

struct job {
	size_t at, csize;
	unsigned long long dsize;
	int rc;
	enum job_state state;
	struct ctr_frame_buf fb;
};

/* Jobs form a ring in file order: [head, head + count) are ahead of the caller, the slot
 * before head is the one it holds (held). head, count and held change on the caller's
 * thread only, under mu, so the threads read them under mu. */
struct ctr_prefetch {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	pthread_t *th;
	unsigned nth;
	struct job *job;
	unsigned njob, head, count;
	bool held, stop;
	const uint8_t *buf;
	size_t len;
	size_t scan;    /* where the look for further frames goes on */
	size_t skip_i;  /* the reader's next skip span from scan on */
	bool scan_end;  /* a frame the look-ahead leaves to the walk (damage, columns, end) */
};

static struct job *queued_job(struct ctr_prefetch *pf)
{
	for (unsigned i = 0; i < pf->count; i++) {
		struct job *j = &pf->job[(pf->head + i) % pf->njob];

		if (j->state == JOB_QUEUED)
			return j;
	}
	return NULL;
}

static void run_job(struct ctr_prefetch *pf, struct job *j)
{
	j->state = JOB_RUNNING;
	pthread_mutex_unlock(&pf->mu);
	j->rc = ctr_frame_decompress(&j->fb, pf->buf + j->at, j->csize, &j->dsize);
	pthread_mutex_lock(&pf->mu);
	j->state = JOB_DONE;
	pthread_cond_broadcast(&pf->done);
}

static void *worker(void *arg)
{
	struct ctr_prefetch *pf = arg;

	pthread_mutex_lock(&pf->mu);
	for (;;) {
		struct job *j = NULL;

		while (!pf->stop && !(j = queued_job(pf)))
			pthread_cond_wait(&pf->work, &pf->mu);
		if (pf->stop)
			break;
		run_job(pf, j);
	}
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

/* The next zstd data frame the walk would decompress from pf->scan on, as pmt_ctr_next()
 * walks: skip spans and pmutrace's skippable frames are stepped over; anything else stops
 * the look-ahead (the walk reports it in its turn). */
static bool next_frame(struct ctr_prefetch *pf, const struct pmt_ctr_reader *r, size_t *at,
		       size_t *csize, unsigned long long *dsize)
{
	while (!pf->scan_end && pf->scan + 8 <= pf->len) {
		size_t pos = pf->scan, left = pf->len - pos;
		uint32_t magic = pmt_le32(pf->buf + pos);

		while (pf->skip_i < r->nskip && r->skip[pf->skip_i].offset < pos)
			pf->skip_i++;
		if (pf->skip_i < r->nskip && r->skip[pf->skip_i].offset == pos) {
			pf->scan = r->skip[pf->skip_i++].end;
			continue;
		}
		if ((magic & SKIP_ANY_MASK) == SKIP_ANY && magic != SKIP_COLUMNS) {
			size_t n = pmt_le32(pf->buf + pos + 4);

			if (n > left - 8)
				break;
			pf->scan = pos + 8 + n;
			continue;
		}
		if (magic != ZSTD_MAGIC)
			break;
		*csize = ZSTD_findFrameCompressedSize(pf->buf + pos, left);
		if (ZSTD_isError(*csize))
			break;
		*dsize = ZSTD_getFrameContentSize(pf->buf + pos, *csize);
		if (*dsize == ZSTD_CONTENTSIZE_ERROR)
			break;
		*at = pos;
		pf->scan = pos + *csize;
		return true;
	}
	pf->scan_end = true;
	return false;
}

static void refill(struct ctr_prefetch *pf, const struct pmt_ctr_reader *r)
{
	size_t at, csize;
	unsigned long long dsize;

	while (pf->count + pf->held < pf->njob && next_frame(pf, r, &at, &csize, &dsize)) {
		struct job *j;

		pthread_mutex_lock(&pf->mu);
		j = &pf->job[(pf->head + pf->count) % pf->njob];
		j->at = at;
		j->csize = csize;
		j->dsize = dsize;
		j->state = JOB_QUEUED;
		pf->count++;
		pthread_cond_signal(&pf->work);
		pthread_mutex_unlock(&pf->mu);
	}
}

/* The walk asked for another frame than the look-ahead guessed (after damage, or a slice
 * set later): drop the guesses, once no thread works on one. */
static void drop_ahead(struct ctr_prefetch *pf, const struct pmt_ctr_reader *r, size_t at)
{
	pthread_mutex_lock(&pf->mu);
	for (unsigned i = 0; i < pf->count; i++) {
		struct job *j = &pf->job[(pf->head + i) % pf->njob];

		while (j->state == JOB_RUNNING)
			pthread_cond_wait(&pf->done, &pf->mu);
		j->state = JOB_FREE;
	}
	pf->count = 0;
	pthread_mutex_unlock(&pf->mu);
	pf->scan = at;
	pf->skip_i = r->skip_at;
	pf->scan_end = false;
}

void ctr_prefetch_release(struct ctr_prefetch *pf)
{
	if (!pf->held)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->job[(pf->head + pf->njob - 1) % pf->njob].state = JOB_FREE;
	pf->held = false;
	pthread_mutex_unlock(&pf->mu);
}

int ctr_prefetch_take(struct pmt_ctr_reader *r, size_t at, size_t csize,
		      unsigned long long *dsize, const struct ctr_frame_buf **fb)
{
	struct ctr_prefetch *pf = r->pf;
	struct job *j;

	ctr_prefetch_release(pf);
	if (!pf->count || pf->job[pf->head].at != at)
		drop_ahead(pf, r, at);
	refill(pf, r);
	if (!pf->count || pf->job[pf->head].at != at || pf->job[pf->head].csize != csize) {
		*fb = &r->fb; /* not a frame the look-ahead takes: as without threads */
		return ctr_frame_decompress(&r->fb, r->buf + at, csize, dsize);
	}
	pthread_mutex_lock(&pf->mu);
	j = &pf->job[pf->head];
	if (j->state == JOB_QUEUED)
		run_job(pf, j); /* no thread got to it yet: no point waiting for one */
	while (j->state != JOB_DONE)
		pthread_cond_wait(&pf->done, &pf->mu);
	pf->head = (pf->head + 1) % pf->njob;
	pf->count--;
	pf->held = true;
	pthread_mutex_unlock(&pf->mu);
	refill(pf, r);
	*dsize = j->dsize;
	*fb = &j->fb;
	return j->rc;
}

void ctr_prefetch_free(struct ctr_prefetch *pf)
{
	if (!pf)
		return;
	pmt_workers_stop(&pf->mu, &pf->work, &pf->stop, pf->th, pf->nth);
	for (unsigned i = 0; pf->job && i < pf->njob; i++) {
		ZSTD_freeDCtx(pf->job[i].fb.dctx);
		free(pf->job[i].fb.out);
	}
	pthread_cond_destroy(&pf->work);
	pthread_cond_destroy(&pf->done);
	pthread_mutex_destroy(&pf->mu);
	free(pf->job);
	free(pf->th);
	free(pf);
}

int pmt_ctr_reader_threads(struct pmt_ctr_reader *r, unsigned n)
{
	struct ctr_prefetch *pf;

	if (!r || n > 256)
		return -PMT_EINVAL;
	ctr_prefetch_free(r->pf);
	r->pf = NULL;
	if (!n)
		return 0;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return -PMT_ENOMEM;
	pf->buf = r->buf;
	pf->len = r->len;
	/* One frame ahead per thread: expanding frames is 17-20% of `script --csv -j 2`'s
	 * CPU, the threads using them the rest, so a second frame ahead was never waited for
	 * and only cost its buffer's page faults (14.6k -> 13.6k a run without it). */
	pf->njob = n + 1;
	pf->job = calloc(pf->njob, sizeof(*pf->job));
	pf->th = calloc(n, sizeof(*pf->th));
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->work, NULL);
	pthread_cond_init(&pf->done, NULL);
	for (unsigned i = 0; pf->job && i < pf->njob; i++)
		if (!(pf->job[i].fb.dctx = ZSTD_createDCtx()))
			goto fail;
	if (!pf->job || !pf->th)
		goto fail;
	for (; pf->nth < n; pf->nth++)
		if (pthread_create(&pf->th[pf->nth], NULL, worker, pf))
			goto fail;
	pf->scan = r->pos;
	pf->skip_i = r->skip_at;
	r->pf = pf;
	return 0;
fail:
	ctr_prefetch_free(pf);
	return -PMT_ENOMEM;
}
