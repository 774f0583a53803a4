/* The trace container's writer (FORMAT.md); reader.c reads what it writes. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "pmutrace/container.h"

#include "backlog.h"
#include "columns.h"
#include "counts_cols.h"
#include "frame_info.h"
#include "layout.h"
#include "writer_pool.h"


struct frame_ent {
	uint64_t offset;
	uint32_t csize, dsize;
	uint8_t columns;  /* a column frame: in the index, not in zstd's seek table */
};

struct pmt_ctr_writer {
	FILE *fp;
	ZSTD_CCtx *cctx;
	uint8_t *zbuf;
	size_t len, cap, zcap;  /* len: uncompressed bytes in the current frame */
	uint64_t off;           /* file offset written so far */
	uint64_t fstart;        /* where the current frame starts */
	size_t fcsize;          /* its compressed bytes so far */
	struct frame_ent *ent;
	size_t nr_ent, cap_ent;
	int err;
	int level;
	/* spe_columns: the frame's records are kept here and written at its end */
	uint8_t spe_columns;
	uint8_t *fbuf;
	size_t fcap;
	struct finfo_acc fi;    /* what the current frame holds, for its frame-info frame */
	bool aux_params;        /* streamed frames: the zstd parameters of AUX bytes are set */
	uint64_t stream_off;    /* uncompressed bytes of the data frames before this one */
	/* tests: frame infos as writers before wrote them, 88 bytes (no stream fields) or 104
	 * (no AUX ranges); 0: today's */
	unsigned old_finfo;
	/* counts frames (FORMAT.md): off only for tests (PMT_CTR_TEST_NO_COUNTS), which make
	 * the files of writers before them; streamed frames keep their STAT records and
	 * stand-ins of the others while a counts frame can be made (counts_ok) */
	bool counts, counts_ok;
	struct ctr_kept kept;
	struct ctr_backlog bl;  /* when compression cannot keep up */
	/* compression threads (threads > 1): the frame is filled in the pool's slot, and
	 * frames are written when they come back, in order */
	struct ctr_pool *pool;
	/* producers on several threads: each call holds it (a record goes in whole) */
	pthread_mutex_t mu;
};

static void put32(uint8_t *p, uint32_t v) { pmt_put_le32(p, v); }

static void emit(struct pmt_ctr_writer *w, const void *p, size_t n)
{
	if (w->err || !n)
		return;
	if (fwrite(p, 1, n, w->fp) != n)
		w->err = -PMT_EIO;
	w->off += n;
}

static void skippable(struct pmt_ctr_writer *w, uint32_t magic, const void *p, size_t n)
{
	uint8_t h[8];

	put32(h, magic);
	put32(h + 4, (uint32_t)n);
	emit(w, h, 8);
	emit(w, p, n);
}

int pmt_ctr_writer_new(FILE *fp, const struct pmt_ctr_writer_opts *opts,
		       struct pmt_ctr_writer **out, struct pmt_diag *diag)
{
	struct pmt_ctr_writer *w = calloc(1, sizeof(*w));
	uint8_t hdr[HEADER_SIZE] = { 0 };
	int level = PMT_OPTS_HAS(opts, level) && opts->level ? opts->level
									  : PMT_CTR_LEVEL_DEFAULT;
	const char *writer = PMT_OPTS_HAS(opts, writer) && opts->writer ? opts->writer
									  : pmt_version();

	*out = NULL;
	if (!w)
		return pmt_diag_set(diag, -PMT_ENOMEM, NULL, PMT_DIAG_NO_OFFSET, "out of memory");
	w->fp = fp;
	pthread_mutex_init(&w->mu, NULL);
	w->cap = PMT_OPTS_HAS(opts, frame_size) && opts->frame_size ? opts->frame_size
									 : PMT_CTR_FRAME_DEFAULT;
	w->zcap = ZSTD_CStreamOutSize();
	w->zbuf = malloc(w->zcap);
	w->cctx = ZSTD_createCCtx();
	if (!w->zbuf || !w->cctx) {
		free(w->zbuf);
		ZSTD_freeCCtx(w->cctx);
		free(w);
		return pmt_diag_set(diag, -PMT_ENOMEM, NULL, PMT_DIAG_NO_OFFSET, "out of memory");
	}
	ctr_zstd_level(w->cctx, level); /* the metadata frame first: no AUX bytes */
	w->level = level;
	/* tests make the files of writers from before the stream fields (any value) or
	 * before the AUX ranges ("104") with this */
	if (getenv("PMT_CTR_TEST_SHORT_FINFO"))
		w->old_finfo = strcmp(getenv("PMT_CTR_TEST_SHORT_FINFO"), "104") ? FINFO_SIZE_V1
										   : FINFO_SIZE_V2;
	finfo_reset(&w->fi);
	w->counts = w->counts_ok = !getenv("PMT_CTR_TEST_NO_COUNTS");
	w->spe_columns = PMT_OPTS_HAS(opts, spe_columns) && opts->spe_columns;
	{
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		long n = PMT_OPTS_HAS(opts, threads) && opts->threads ? (long)opts->threads : cpus;
		uint32_t max = PMT_OPTS_HAS(opts, backlog_max) ? opts->backlog_max : 0;
		uint64_t pool_max;
		unsigned slots;

		if (n > 256)
			n = 256;
		/* each thread has a frame in hand, the bound's worth waits, the writer fills
		 * one and one is being written */
		pool_max = n > 1 ? (uint64_t)n * w->cap : 0;
		slots = (unsigned)(n + 2 + (max ? max : pool_max) / w->cap);
		if (n > 1 && !w->spe_columns && ctr_pool_new(&w->pool, (unsigned)n, slots) < 0) {
			ZSTD_freeCCtx(w->cctx);
			free(w->zbuf);
			free(w);
			return pmt_diag_set(diag, -PMT_ENOMEM, NULL, PMT_DIAG_NO_OFFSET,
					    "out of memory");
		}
		backlog_init(&w->bl, PMT_OPTS_HAS(opts, backlog) ? opts->backlog : 0, max,
			     w->pool ? pool_max : 0, level);
		if (w->pool)
			w->fi.defer = &ctr_pool_filling(w->pool)->chunks;
	}
	/* every frame checks itself: a flipped bit is found in its frame, not later */
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	/* frames are streamed, so their size is not known when they start: the header has no
	 * content size (the index has it) */
	memcpy(hdr, PMT_CTR_MAGIC, 8);
	put32(hdr + 8, PMT_CTR_VERSION);
	snprintf((char *)hdr + 16, 64, "%s", writer);
	skippable(w, SKIP_HEADER, hdr, sizeof(hdr));
	*out = w;
	return w->err ? pmt_diag_set(diag, w->err, NULL, PMT_DIAG_NO_OFFSET, "cannot write") : 0;
}

/* Compressed output of the current frame, as zstd hands it over. */
static int drain(struct pmt_ctr_writer *w, ZSTD_inBuffer *in, ZSTD_EndDirective end)
{
	size_t left;

	do {
		ZSTD_outBuffer out = { w->zbuf, w->zcap, 0 };

		left = ZSTD_compressStream2(w->cctx, &out, in, end);
		if (ZSTD_isError(left))
			return w->err = -PMT_ECOMPRESS;
		emit(w, w->zbuf, out.pos);
		w->fcsize += out.pos;
	} while (end == ZSTD_e_end ? left != 0 : in->pos < in->size);
	return w->err;
}

/* A data frame of csize bytes at fstart (dsize uncompressed) is in the file: its index
 * entry, then its frame info right after it, so a cut file keeps the info of every whole
 * frame. */
static void frame_written(struct pmt_ctr_writer *w, uint64_t fstart, size_t csize, size_t dsize,
			  uint8_t columns, struct pmt_ctr_frame_info *info, uint8_t *counts,
			  size_t counts_len)
{
	uint8_t fi[FINFO_SIZE];

	if (w->nr_ent == w->cap_ent) {
		size_t cap = w->cap_ent ? 2 * w->cap_ent : 64;
		struct frame_ent *e = realloc(w->ent, cap * sizeof(*e));

		if (!e) {
			w->err = -PMT_ENOMEM;
			return;
		}
		w->ent = e;
		w->cap_ent = cap;
	}
	w->ent[w->nr_ent++] = (struct frame_ent){ fstart, (uint32_t)csize, (uint32_t)dsize,
						   columns };
	info->offset = fstart;
	info->size = (uint32_t)csize;
	info->stream_offset = w->stream_off;
	info->stream_size = (uint32_t)dsize;
	skippable(w, SKIP_FINFO, fi, finfo_encode(info, fi, w->old_finfo));
	/* after the info, so a reader finds it from there */
	if (counts) {
		ctr_counts_place(counts, counts_len, info->index, fstart, w->stream_off,
				 (uint32_t)dsize);
		skippable(w, SKIP_COUNTS, counts, counts_len);
	}
	w->stream_off += dsize;
	/* a frame on disk is a frame a killed writer keeps */
	if (!w->err && fflush(w->fp))
		w->err = -PMT_EIO;
}

/* The oldest frame the threads handed back (wait: until there is one): into the file, its
 * AUX chunks' scans settled in file order. Returns whether one was written. */
static bool write_done(struct pmt_ctr_writer *w, bool wait)
{
	struct ctr_slot *s = ctr_pool_oldest_done(w->pool, wait);
	uint64_t fstart = w->off;

	if (!s)
		return false;
	if (s->err && !w->err)
		w->err = s->err;
	emit(w, s->z, s->zlen);
	for (size_t i = 0; i < s->chunks.n; i++)
		finfo_chunk_apply(w->fi.open, &s->fi, &s->chunks.v[i]);
	frame_written(w, fstart, s->zlen, s->len, 0, &s->fi, s->counts_frame, s->counts_len);
	ctr_pool_release(w->pool);
	return true;
}

/* Every frame handed to the threads into the file. */
static void write_all(struct pmt_ctr_writer *w)
{
	while (w->pool && write_done(w, true))
		;
}

/* Hand the frame being filled to the threads, and make the next slot the one to fill. */
static int submit_frame(struct pmt_ctr_writer *w)
{
	struct ctr_slot *s = ctr_pool_filling(w->pool);

	if (s->chunks.err)
		return w->err = s->chunks.err;
	s->len = w->len;
	s->level = w->bl.level;
	s->fi = w->fi.cur;
	s->counts = w->counts;
	ctr_pool_submit(w->pool);
	backlog_frame_end(&w->bl);
	w->fi.cur.index++;
	finfo_reset(&w->fi);
	w->len = 0;
	while (write_done(w, false))
		;
	if (!ctr_pool_room(w->pool)) {
		/* every slot is in hand: the producer waits, as the block policy would */
		uint64_t t0 = backlog_clock();

		while (!ctr_pool_room(w->pool))
			write_done(w, true);
		backlog_count_wait(&w->bl, backlog_clock() - t0);
	}
	s = ctr_pool_filling(w->pool);
	s->chunks.base = s->buf;
	w->fi.defer = &s->chunks;
	return w->err;
}

/* Close the current frame: it is complete and independent from here on. */
static int end_frame(struct pmt_ctr_writer *w)
{
	ZSTD_inBuffer none = { NULL, 0, 0 };
	uint8_t columns = 0, *counts = NULL;
	size_t counts_len = 0;

	if (!w->len || w->err)
		return w->err;
	if (w->pool)
		return submit_frame(w);
	if (w->spe_columns) {
		uint8_t *cf;
		size_t n;
		int rc = ctr_columns_encode(w->fbuf, w->len, w->level, &cf, &n);

		if (rc < 0)
			return w->err = rc;
		if (rc == 0) {
			skippable(w, SKIP_COLUMNS, cf, n);
			w->fcsize = 8 + n;
			columns = 1;
			free(cf);
		} else {
			/* no AUX bytes in it: an ordinary frame */
			ZSTD_inBuffer in = { w->fbuf, w->len, 0 };

			if (drain(w, &in, ZSTD_e_end) < 0)
				return w->err;
		}
	} else if (drain(w, &none, ZSTD_e_end) < 0) {
		return w->err;
	}
	if (w->counts && (w->spe_columns || w->counts_ok)) {
		int rc = w->spe_columns
				 ? ctr_counts_encode(w->fbuf, w->len, true, &counts, &counts_len)
				 : ctr_counts_encode(w->kept.buf, w->kept.len, false, &counts,
						     &counts_len);

		if (rc < 0)
			return w->err = rc;
	}
	frame_written(w, w->fstart, w->fcsize, w->len, columns, &w->fi.cur, counts, counts_len);
	free(counts);
	w->counts_ok = w->counts;
	w->kept.len = w->kept.standin = 0;
	if (!w->spe_columns) {
		int level = w->bl.level, next = backlog_frame_end(&w->bl);
		/* streamed: the next frame's content is not known yet, so it takes the
		 * parameters this one's content asked for */
		bool aux = w->fi.cur.aux_bytes >= w->len / 2;

		/* between frames: the next one is compressed at the policy's level */
		if (next != level || aux != w->aux_params) {
			ctr_zstd_level(w->cctx, ctr_zstd_params(next, aux));
			w->aux_params = aux;
		}
	}
	w->fi.cur.index++;
	finfo_reset(&w->fi);
	w->len = 0;
	w->fcsize = 0;
	w->fstart = w->off;
	return w->err;
}

int pmt_ctr_flush(struct pmt_ctr_writer *w)
{
	int rc;

	pthread_mutex_lock(&w->mu);
	rc = end_frame(w);
	pthread_mutex_unlock(&w->mu);
	return rc;
}

/* A record into the pool's slot: copied (the one copy; zstd's streaming copied it into its
 * window too), its info gathered from the copy so that its AUX bytes are scanned there by
 * the compressing thread. */
static int pool_add(struct pmt_ctr_writer *w, const struct pmt_ctr_piece *v, unsigned n,
		    size_t len)
{
	struct ctr_slot *s = ctr_pool_filling(w->pool);
	struct pmt_ctr_piece copy[8];
	uint8_t *at;

	if (w->len + len > s->cap) {
		size_t cap = w->len + len > w->cap ? w->len + len : w->cap;
		uint8_t *b = realloc(s->buf, cap);

		if (!b)
			return w->err = -PMT_ENOMEM;
		s->buf = b;
		s->cap = cap;
		s->chunks.base = b;
	}
	at = s->buf + w->len;
	for (unsigned i = 0; i < n; i++) {
		if (v[i].len) /* an empty piece may have no pointer (memcpy's NULL is undefined) */
			memcpy(at, v[i].p, v[i].len);
		if (i < 8)
			copy[i] = (struct pmt_ctr_piece){ at, v[i].len };
		at += v[i].len;
	}
	if (n <= 8)
		finfo_addv(&w->fi, copy, n);
	else /* the pieces' concatenation, which is the record */
		finfo_add(&w->fi, s->buf + w->len, len);
	w->len += len;
	/* a frame the threads finished goes to the file now, not at the next frame's end */
	while (write_done(w, false))
		;
	return w->err;
}

static int writev_locked(struct pmt_ctr_writer *w, const struct pmt_ctr_piece *v, unsigned n)
{
	size_t len = 0;

	if (w->err)
		return w->err;
	for (unsigned i = 0; i < n; i++)
		len += v[i].len;
	if (len > FRAME_MAX)
		return -PMT_ERANGE; /* no reader would take the frame */
	/* a frame ends before the record that would take it past the frame size; a larger
	 * record is a frame of its own */
	if (w->len && w->len + len > w->cap && end_frame(w) < 0)
		return w->err;
	if (!w->spe_columns &&
	    !backlog_admit(&w->bl, w->pool, len, finfo_is_auxtrace(&w->fi, v[0].p, v[0].len, len))) {
		w->fi.cur.dropped++;
		return 0;
	}
	if (w->pool)
		return pool_add(w, v, n, len);
	if (!w->len)
		w->fstart = w->off;
	finfo_addv(&w->fi, v, n);
	if (w->spe_columns) {
		if (w->len + len > w->fcap) {
			size_t cap = w->len + len > w->cap ? w->len + len : w->cap;
			uint8_t *b = realloc(w->fbuf, cap);

			if (!b)
				return w->err = -PMT_ENOMEM;
			w->fbuf = b;
			w->fcap = cap;
		}
		for (unsigned i = 0; i < n; i++) {
			if (v[i].len)
				memcpy(w->fbuf + w->len, v[i].p, v[i].len);
			w->len += v[i].len;
		}
		return 0;
	}
	if (w->counts_ok) { /* a streamed frame keeps what its counts frame needs */
		int rc = ctr_counts_keep(&w->kept, v, n, len);

		if (rc < 0)
			return w->err = rc;
		w->counts_ok = rc > 0;
	}
	/* zstd takes each piece into its own window (the one copy), and its workers
	 * compress while the caller goes on */
	for (unsigned i = 0; i < n; i++) {
		ZSTD_inBuffer in = { v[i].p, v[i].len, 0 };

		if (v[i].len && drain(w, &in, ZSTD_e_continue) < 0)
			return w->err;
	}
	w->len += len;
	return 0;
}

int pmt_ctr_writev(struct pmt_ctr_writer *w, const struct pmt_ctr_piece *v, unsigned n)
{
	int rc;

	pthread_mutex_lock(&w->mu);
	rc = writev_locked(w, v, n);
	pthread_mutex_unlock(&w->mu);
	return rc;
}

int pmt_ctr_write(struct pmt_ctr_writer *w, const void *records, size_t len)
{
	struct pmt_ctr_piece one = { records, len };

	return pmt_ctr_writev(w, &one, 1);
}

static int add_file_locked(struct pmt_ctr_writer *w, const struct pmt_ctr_file *f,
			   const void *data, size_t len)
{
	size_t nl, bound, hl, z;
	uint8_t *p;

	if (!w || !f || (!data && len) || f->build_id_size > 20 ||
	    (nl = strnlen(f->name, sizeof(f->name))) >= sizeof(f->name))
		return -PMT_EINVAL;
	end_frame(w);
	write_all(w);
	/* "PMTFILE\0", u32 kind, u8 build-id size, build-id[20], 3 zero bytes, u16 name length,
	 * the name, u64 size, then one zstd frame of the bytes */
	hl = 8 + 4 + 1 + 20 + 3 + 2 + nl + 8;
	bound = ZSTD_compressBound(len);
	if (hl + bound > UINT32_MAX)
		return -PMT_EINVAL;
	p = calloc(1, hl + bound);
	if (!p)
		return -PMT_ENOMEM;
	memcpy(p, "PMTFILE", 8);
	put32(p + 8, f->kind);
	p[12] = f->build_id_size;
	memcpy(p + 13, f->build_id, f->build_id_size);
	p[36] = (uint8_t)nl;
	p[37] = (uint8_t)(nl >> 8);
	memcpy(p + 38, f->name, nl);
	pmt_put_le64(p + 38 + nl, len);
	z = ZSTD_compress(p + hl, bound, data, len, w->level);
	if (ZSTD_isError(z)) {
		free(p);
		return -PMT_ECOMPRESS;
	}
	skippable(w, SKIP_FILE, p, hl + z);
	free(p);
	return w->err;
}

int pmt_ctr_add_file(struct pmt_ctr_writer *w, const struct pmt_ctr_file *f, const void *data,
		     size_t len)
{
	int rc;

	if (!w)
		return -PMT_EINVAL;
	pthread_mutex_lock(&w->mu);
	rc = add_file_locked(w, f, data, len);
	pthread_mutex_unlock(&w->mu);
	return rc;
}

void pmt_ctr_writer_stats(const struct pmt_ctr_writer *w, struct pmt_ctr_writer_stats *st)
{
	struct pmt_ctr_writer *mw = (struct pmt_ctr_writer *)w; /* the lock only */

	pthread_mutex_lock(&mw->mu);
	*st = w->bl.st;
	pthread_mutex_unlock(&mw->mu);
}

int pmt_ctr_writer_close(struct pmt_ctr_writer *w, struct pmt_diag *diag)
{
	uint8_t *t;
	size_t n;
	int rc;

	if (!w)
		return 0;
	end_frame(w);
	write_all(w);
	ctr_pool_free(w->pool);
	{
		/* what the backlog policy did, before the index: a reader finds it walking */
		uint8_t ws[WSTATS_SIZE];

		backlog_encode(&w->bl.st, ws);
		skippable(w, SKIP_WSTATS, ws, sizeof(ws));
	}
	/* the index: offset, compressed and uncompressed size of every data frame */
	n = 8 + 4 + 16 * w->nr_ent;
	t = calloc(1, n + 12 * w->nr_ent + 9);
	if (!t && !w->err)
		w->err = -PMT_ENOMEM;
	if (t) {
		memcpy(t, "PMTINDEX", 8);
		put32(t + 8, (uint32_t)w->nr_ent);
		for (size_t i = 0; i < w->nr_ent; i++) {
			pmt_put_le64(t + 12 + 16 * i, w->ent[i].offset);
			put32(t + 12 + 16 * i + 8, w->ent[i].csize);
			put32(t + 12 + 16 * i + 12, w->ent[i].dsize);
		}
		skippable(w, SKIP_INDEX, t, n);
		/* zstd's seekable-format seek table, last in the file: entries of compressed
		 * and decompressed size, then frame count, descriptor and magic */
		n = 0;
		for (size_t i = 0; i < w->nr_ent; i++) {
			if (w->ent[i].columns) /* no zstd frame: no seekable reader reads it */
				continue;
			put32(t + n, w->ent[i].csize);
			put32(t + n + 4, w->ent[i].dsize);
			n += 8;
		}
		put32(t + n, (uint32_t)(n / 8));
		t[n + 4] = 0; /* descriptor: no checksums in the table (each frame has its own) */
		put32(t + n + 5, SEEKABLE_MAGIC);
		skippable(w, SKIP_SEEK, t, n + 9);
		free(t);
	}
	if (!w->err && fflush(w->fp))
		w->err = -PMT_EIO;
	rc = w->err;
	ZSTD_freeCCtx(w->cctx);
	free(w->zbuf);
	free(w->fbuf);
	free(w->kept.buf);
	free(w->ent);
	pthread_mutex_destroy(&w->mu);
	free(w);
	return rc ? pmt_diag_set(diag, rc, NULL, PMT_DIAG_NO_OFFSET, "writing the container: %s",
				 pmt_errstr(rc)) : 0;
}
