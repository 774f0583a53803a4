/* Counts frames (formats/container/FORMAT.md, "Counts frames") on the reading side: which
 * data frames a counting recording's reader can pass over, and their STAT records back in
 * stream order, run by run, so that counts_trace.c treats them as the records themselves.
 * The records win: a counts frame that fails its checksum or disagrees with its data
 * frame's info is not used and the data frame is read. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/workers.h"

#include "stat_cols.h"

struct cols_frame {
	uint64_t at, size, stream_offset;
	uint64_t offset;       /* its data frame's file offset */
	uint32_t index, stream_size;
	bool passed;           /* the reader passes over its data frame */
	bool needed;           /* its data frame holds records the counts reader takes */
};

/* One frame decoded: by its columns, or by its data frame's records when they fail */
struct decoded {
	struct pmt_ctr_counts *dec;
	struct pmt_ctr_counts_frame fr;
	const char *cols_why;  /* the columns did not decode: why (the records were read) */
	const char *rec_why;   /* the records did not either: the counts are lost */
	int rc;
	size_t frame;          /* f[frame] it holds, when ready */
	bool ready;
};

/* Frames decoded ahead on threads (stat_cols_threads): frame i in ahead[i % nahead],
 * decoded once i < consumed + nahead, so the slot of the frame being read is not reused */
struct ahead {
	pthread_t *tid;
	unsigned nthreads, started;
	struct decoded *slot;
	size_t nslots, first, next, consumed;
	bool stop;
	pthread_mutex_t mu;
	pthread_cond_t work, ready;
};
/* Records of a data frame with STAT records that the counts reader (counts_trace.c) and
 * the source pass by unread: the kernel's (samples, sideband, LOST), FINISHED_ROUND,
 * AUXTRACE and AUXTRACE_ERROR. A frame holding any other (the maps, STAT_CONFIG,
 * EVENT_UPDATE, header records) is read. */
#define PASSED_KERNEL_TYPES (~1ull)
#define PASSED_USER_TYPES (1ull << (68 - 64) | 1ull << (71 - 64) | 1ull << (72 - 64))

struct stat_cols {
	const void *buf;
	size_t len;
	const char *path;
	struct pmt_source *src;
	struct cols_frame *f;
	size_t n, cap, asked;
	struct decoded now;    /* a frame decoded on the reader's thread */
	struct ahead *ahead;
	struct pmt_ctr_counts_frame cur;
	size_t at;             /* the frame being read (f[at]), n: none left */
	bool open;             /* cur holds f[at] */
	uint32_t seg, pos, done; /* the segment (STATs before round seg), place in it, STATs
				  * before it */
	uint32_t gap;          /* the next of cur's gaps (other records) not yet passed */
	uint64_t off;          /* stream offset of the next record */
	void (*want_fn)(const struct pmt_ctr_count_key *keys, uint32_t nkeys, uint8_t *want,
			void *ctx);
	void *want_ctx;
};

static int add_ref(const struct pmt_ctr_counts_ref *ref, void *ctx)
{
	struct stat_cols *c = ctx;

	if (ref->damaged) {
		pmt_info("%s: the counts frame of data frame %u (at offset %llu) is not used: %s; "
			 "its STAT records are read instead", c->path, ref->index,
			 (unsigned long long)ref->at, ref->damaged);
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		struct cols_frame *f = realloc(c->f, cap * sizeof(*f));

		if (!f)
			return -PMT_ENOMEM;
		c->f = f;
		c->cap = cap;
	}
	c->f[c->n++] = (struct cols_frame){ ref->at, ref->size, ref->stream_offset, ref->offset,
		ref->index, ref->stream_size, false,
		(ref->other_types[0] & ~PASSED_KERNEL_TYPES) ||
			(ref->other_types[1] & ~PASSED_USER_TYPES) };
	/* its checksum read every page of it: not kept resident until it is decoded */
	pmt_source_container_done(c->src, ref->at, ref->size);
	return 0;
}

static int by_index(const void *a, const void *b)
{
	const struct cols_frame *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* the slice's rule: a data frame with a usable counts frame is passed over */
static bool keep_frame(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	struct stat_cols *c = ctx;
	struct cols_frame key = { .index = fi->index }, *f;

	f = c->n ? bsearch(&key, c->f, c->n, sizeof(*c->f), by_index) : NULL;
	if (!f || f->stream_offset != fi->stream_offset || f->needed)
		return true;
	f->passed = true;
	c->asked++;
	return false;
}

static bool keep_all(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	(void)fi;
	(void)ctx;
	return true;
}

int stat_cols_open(struct pmt_source *src, const char *path, struct stat_cols **out)
{
	struct stat_cols *c;
	size_t kept = 0;
	int rc;

	*out = NULL;
	/* tests and benchmarks read the same file through its records */
	if (getenv("PMT_TEST_COUNTS_RECORDS"))
		return 0;
	if (!(c = calloc(1, sizeof(*c))))
		return -PMT_ENOMEM;
	c->path = path;
	c->src = src;
	if (pmt_source_container(src, &c->buf, &c->len) <= 0 ||
	    pmt_source_meta(src)->swapped) { /* the columns hold the writer's byte order */
		free(c);
		return 0;
	}
	rc = pmt_ctr_counts_list(c->buf, c->len, add_ref, c);
	if (rc < 0 || !c->n) {
		stat_cols_close(c);
		return rc < 0 ? rc : 0;
	}
	qsort(c->f, c->n, sizeof(*c->f), by_index);
	rc = pmt_source_pass_frames(src, keep_frame, c);
	if (rc >= 0 && (size_t)rc != c->asked) {
		/* a frame asked for was kept after all: read every record, none twice */
		pmt_info("%s: the counts frames are not used: the data frames cannot be passed "
			 "over", path);
		rc = pmt_source_pass_frames(src, keep_all, NULL);
		c->asked = 0;
	}
	if (rc < 0 || !c->asked) {
		stat_cols_close(c);
		return rc < 0 ? rc : 0;
	}
	for (size_t i = 0; i < c->n; i++) /* in file order, which is stream order */
		if (c->f[i].passed)
			c->f[kept++] = c->f[i];
	c->n = kept;
	pmt_info("%s: the STAT records of %zu data frames read from their counts frames", path,
		 kept);
	if ((rc = pmt_ctr_counts_new(&c->now.dec)) < 0) {
		pmt_source_pass_frames(src, keep_all, NULL);
		stat_cols_close(c);
		return rc;
	}
	/* every frame used passed its checksum in the list above */
	pmt_ctr_counts_listed(c->now.dec, true);
	*out = c;
	return 1;
}

/* Frame i by its columns, or else by its data frame's records (thread-safe: no logging) */
static void decode_frame(const struct stat_cols *c, struct decoded *d, size_t i)
{
	const struct cols_frame *f = &c->f[i];

	d->cols_why = d->rec_why = NULL;
	d->rc = pmt_ctr_counts_decode(d->dec, c->buf, c->len, f->at, &d->fr, &d->cols_why);
	if (d->rc != -PMT_ECORRUPT)
		return;
	/* its checksum held, so the writer made it so and its data frame was passed over:
	 * that frame's records hold the same counts */
	d->rc = pmt_ctr_counts_decode_records(d->dec, c->buf, c->len, f->offset, f->stream_size,
					      &d->fr, &d->rec_why);
}

static void *ahead_main(void *arg)
{
	struct stat_cols *c = arg;
	struct ahead *a = c->ahead;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		size_t i;
		struct decoded *d;

		while (!a->stop && a->next < c->n && a->next >= a->consumed + a->nslots)
			pthread_cond_wait(&a->work, &a->mu);
		if (a->stop || a->next >= c->n)
			break;
		i = a->next++;
		d = &a->slot[i % a->nslots];
		pthread_mutex_unlock(&a->mu);
		decode_frame(c, d, i);
		pthread_mutex_lock(&a->mu);
		d->frame = i;
		d->ready = true;
		pthread_cond_broadcast(&a->ready);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* frame i decoded: on a thread ahead, or here */
static struct decoded *frame_decoded(struct stat_cols *c, size_t i)
{
	struct ahead *a = c->ahead;
	struct decoded *d;

	if (!a || i < a->first) {
		decode_frame(c, &c->now, i);
		return &c->now;
	}
	d = &a->slot[i % a->nslots];
	pthread_mutex_lock(&a->mu);
	while (!(d->ready && d->frame == i))
		pthread_cond_wait(&a->ready, &a->mu);
	pthread_mutex_unlock(&a->mu);
	return d;
}

/* done with frame i: its slot may take the frame nslots after it */
static void frame_done(struct stat_cols *c, size_t i)
{
	struct ahead *a = c->ahead;

	if (!a || i < a->first)
		return;
	pthread_mutex_lock(&a->mu);
	a->slot[i % a->nslots].ready = false;
	a->consumed = i + 1;
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->mu);
}

int stat_cols_peek(struct stat_cols *c, uint64_t before, struct stat_run *run)
{
	for (;;) {
		const struct cols_frame *f;
		struct decoded *d;

		if (c->at >= c->n)
			return 0;
		f = &c->f[c->at];
		if (!c->open) {
			if (f->stream_offset >= before)
				return 0;
			d = frame_decoded(c, c->at);
			if (d->cols_why && !d->rec_why)
				pmt_warn("%s: the counts frame at offset %llu does not decode (%s): "
					 "the counts of data frame %u are read from its records (at "
					 "offset %llu)", c->path, (unsigned long long)f->at,
					 d->cols_why, f->index, (unsigned long long)f->offset);
			if (d->rc == -PMT_ECORRUPT) {
				pmt_warn("%s: the counts frame at offset %llu does not decode (%s), "
					 "nor its data frame at offset %llu (%s): the counts of data "
					 "frame %u are lost", c->path, (unsigned long long)f->at,
					 d->cols_why, (unsigned long long)f->offset, d->rec_why,
					 f->index);
				frame_done(c, c->at++);
				continue;
			}
			if (d->rc < 0)
				return d->rc;
			c->cur = d->fr;
			pmt_source_container_done(c->src, f->at, f->size);
			c->open = true;
			c->seg = c->pos = c->done = c->gap = 0;
			c->off = f->stream_offset;
		}
		if (c->seg > c->cur.nrounds) {
			c->open = false;
			frame_done(c, c->at++);
			continue;
		}
		run->f = &c->cur;
		run->frame = (uint32_t)c->at;
		run->first = c->done;
		run->n = c->cur.seg[c->seg] - c->pos;
		run->round = c->seg < c->cur.nrounds;
		if (c->gap < c->cur.ngaps) {
			/* the next record is number done + seg of the STAT and STAT_ROUND
			 * records: other records before it are passed, and a run ends before
			 * the next ones (each STAT of a run is 48 bytes after the one before) */
			uint32_t ord = c->done + c->seg;

			if (c->cur.gap_at[c->gap] == ord)
				c->off += c->cur.gap[c->gap++];
			if (c->gap < c->cur.ngaps && c->cur.gap_at[c->gap] - ord <= run->n) {
				run->n = c->cur.gap_at[c->gap] - ord;
				run->round = false;
			}
		}
		run->off = c->off;
		run->round_time = run->round ? c->cur.round_time[c->seg] : 0;
		if (!run->n && !run->round) {
			c->seg++;
			continue;
		}
		return 1;
	}
}

static void ahead_stop(struct stat_cols *c)
{
	struct ahead *a = c->ahead;

	if (!a)
		return;
	pmt_workers_stop(&a->mu, &a->work, &a->stop, a->tid, a->started);
	for (size_t i = 0; i < a->nslots; i++)
		pmt_ctr_counts_free(a->slot[i].dec);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->work);
	pthread_cond_destroy(&a->ready);
	free(a->slot);
	free(a->tid);
	free(a);
	c->ahead = NULL;
}

int stat_cols_threads(struct stat_cols *c, unsigned n)
{
	struct ahead *a;
	size_t first;

	if (!c || c->ahead || !n)
		return 0;
	first = c->open ? c->at + 1 : c->at;
	if (c->n - first < 2) /* nothing to overlap */
		return 0;
	if (n > c->n - first)
		n = (unsigned)(c->n - first);
	if (!(a = calloc(1, sizeof(*a))))
		return -PMT_ENOMEM;
	c->ahead = a;
	a->nthreads = n;
	a->nslots = 2 * (size_t)n + 1;
	a->first = a->next = a->consumed = first;
	a->tid = calloc(n, sizeof(*a->tid));
	a->slot = calloc(a->nslots, sizeof(*a->slot));
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->work, NULL);
	pthread_cond_init(&a->ready, NULL);
	if (!a->tid || !a->slot)
		return ahead_stop(c), -PMT_ENOMEM;
	for (size_t i = 0; i < a->nslots; i++) {
		if (pmt_ctr_counts_new(&a->slot[i].dec) < 0)
			return ahead_stop(c), -PMT_ENOMEM;
		pmt_ctr_counts_want(a->slot[i].dec, c->want_fn, c->want_ctx);
		pmt_ctr_counts_listed(a->slot[i].dec, true);
	}
	for (; a->started < n; a->started++)
		if (pthread_create(&a->tid[a->started], NULL, ahead_main, c))
			break; /* fewer threads: the frames are decoded all the same */
	if (!a->started) /* none: decoded here, as without threads */
		ahead_stop(c);
	return 0;
}

int stat_cols_want(struct stat_cols *c,
		   void (*fn)(const struct pmt_ctr_count_key *keys, uint32_t nkeys, uint8_t *want,
			      void *ctx),
		   void *ctx)
{
	if (!c || c->ahead)
		return 0;
	c->want_fn = fn;
	c->want_ctx = ctx;
	pmt_ctr_counts_want(c->now.dec, fn, ctx);
	return 1;
}

void stat_cols_take(struct stat_cols *c, uint32_t n, bool round)
{
	c->pos += n;
	c->done += n;
	c->off += 48 * (uint64_t)n;
	if (round) {
		c->off += 24;
		c->seg++;
		c->pos = 0;
	}
}

void stat_cols_close(struct stat_cols *c)
{
	if (!c)
		return;
	ahead_stop(c);
	pmt_ctr_counts_free(c->now.dec);
	free(c->f);
	free(c);
}
