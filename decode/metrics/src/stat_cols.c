/* Counts frames (formats/container/FORMAT.md, "Counts frames") on the reading side: which
 * data frames a counting recording's reader can pass over, and their STAT records back in
 * stream order, run by run, so that counts_trace.c treats them as the records themselves.
 * The records win: a counts frame that fails its checksum or disagrees with its data
 * frame's info is not used and the data frame is read. */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"

#include "stat_cols.h"

struct cols_frame {
	uint64_t at, size, stream_offset;
	uint32_t index;
	bool passed;           /* the reader passes over its data frame */
	bool needed;           /* its data frame holds records the counts reader takes */
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
	struct pmt_ctr_counts *dec;
	struct pmt_ctr_counts_frame cur;
	size_t at;             /* the frame being read (f[at]), n: none left */
	bool open;             /* cur holds f[at] */
	uint32_t seg, pos, done; /* the segment (STATs before round seg), place in it, STATs
				  * before it */
	uint32_t gap;          /* the next of cur's gaps (other records) not yet passed */
	uint64_t off;          /* stream offset of the next record */
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
	c->f[c->n++] = (struct cols_frame){ ref->at, ref->size, ref->stream_offset, ref->index,
		false, (ref->other_types[0] & ~PASSED_KERNEL_TYPES) ||
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
	if ((rc = pmt_ctr_counts_new(&c->dec)) < 0) {
		pmt_source_pass_frames(src, keep_all, NULL);
		stat_cols_close(c);
		return rc;
	}
	*out = c;
	return 1;
}

int stat_cols_peek(struct stat_cols *c, uint64_t before, struct stat_run *run)
{
	for (;;) {
		const char *why;
		int rc;

		if (c->at >= c->n)
			return 0;
		if (!c->open) {
			if (c->f[c->at].stream_offset >= before)
				return 0;
			rc = pmt_ctr_counts_decode(c->dec, c->buf, c->len, c->f[c->at].at, &c->cur,
						   &why);
			if (rc == -PMT_ECORRUPT) {
				/* its checksum held, so the writer made it so: the data frame
				 * was passed over, and its counts are lost */
				pmt_warn("%s: the counts frame at offset %llu does not decode "
					 "(%s): the counts of data frame %u are lost", c->path,
					 (unsigned long long)c->f[c->at].at, why, c->f[c->at].index);
				c->at++;
				continue;
			}
			if (rc < 0)
				return rc;
			pmt_source_container_done(c->src, c->f[c->at].at, c->f[c->at].size);
			c->open = true;
			c->seg = c->pos = c->done = c->gap = 0;
			c->off = c->f[c->at].stream_offset;
		}
		if (c->seg > c->cur.nrounds) {
			c->open = false;
			c->at++;
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
	pmt_ctr_counts_free(c->dec);
	free(c->f);
	free(c);
}
