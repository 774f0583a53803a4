/* Counts frames (FORMAT.md, "Counts frames"): the STAT and STAT_ROUND records of a data
 * frame, by column (version 2 when the frame holds other records too: where they stand is
 * kept, as gaps, so the STAT records keep their stream offsets). Each (id, cpu, thread) key is listed once;
 * per record its key's number as a step from the one before, and value, enabled and
 * running as zigzag varint steps from that key's previous record in the frame (the first
 * from 0), so a counter read every interval costs a few bytes instead of 48. Frames are
 * independent, like the data frames they stand for. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pmutrace/container.h"

#include "counts_cols.h"
#include "frame_info.h"
#include "varint.h"

#define REC_STAT 76
#define REC_STAT_ROUND 77
#define STAT_SIZE 48
#define ROUND_SIZE 24
#define REC_AUXTRACE 71
#define HEAD 56        /* "PMTCOUNT", version, placement, counts, raw payload size */
#define HEAD2 72       /* version 2: and the types of the frame's other records */
#define NCOLS 7        /* segments, round types, round times, keys, values, enabled, running */
#define NCOLS2 8       /* version 2: and the gaps */
#define COUNTS_VERSION 1
#define COUNTS_MIXED 2 /* the frame holds other records too */
#define STANDIN 32     /* ctr_counts_keep()'s entry for other records */

enum { C_SEG, C_RTYPE, C_RTIME, C_KEY, C_VAL, C_ENA, C_RUN, C_GAP };

static uint8_t *put_uv(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint8_t *put_zz(uint8_t *p, uint64_t step)
{
	int64_t d = (int64_t)step;

	return put_uv(p, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
}

/* FNV-1a over little-endian 64-bit words (the last one zero-padded), folded to 32 bits:
 * checked over every counts frame when a reader opens the file, and the byte-wise FNV
 * of the frame infos took 9% of reading a 360-interval recording's counts */
static uint32_t sum32(const uint8_t *p, size_t n)
{
	uint64_t h = 14695981039346656037ull, w;
	size_t i = 0;

	for (; n - i >= 8; i += 8)
		h = (h ^ pmt_le64(p + i)) * 1099511628211ull;
	if (i < n) {
		uint8_t tail[8] = { 0 };

		memcpy(tail, p + i, n - i);
		w = pmt_le64(tail);
		h = (h ^ w) * 1099511628211ull;
	}
	return (uint32_t)(h ^ h >> 32);
}

struct key_slot {
	uint64_t id;
	uint32_t cpu, thread, num; /* num + 1; 0: empty */
};

static uint32_t key_hash(uint64_t id, uint32_t cpu, uint32_t thread)
{
	uint64_t h = (id * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)cpu << 32 | thread);

	h ^= h >> 29;
	h *= 0xBF58476D1CE4E5B9ull;
	return (uint32_t)(h >> 32);
}

/* What a frame holds for its counts frame: STAT and STAT_ROUND records of their sizes
 * (at least one), and the types and bytes of the others. whole: the records as they stand
 * in the frame (an AUXTRACE's AUX bytes after it); else other records are
 * ctr_counts_keep()'s stand-ins (STANDIN bytes: u32 0 where a record's type is, u32 0,
 * u64 the bytes of the records in a row it stands for, u64 x 2 their types). */
struct shape {
	size_t nstats, nrounds;
	uint64_t other_bytes, types[2];
};

static bool counts_shape(const uint8_t *rec, size_t len, bool whole, struct shape *sh)
{
	size_t at = 0;

	memset(sh, 0, sizeof(*sh));
	while (at < len) {
		uint32_t type;
		uint16_t size;
		uint64_t bytes;

		if (len - at < 8)
			return false;
		type = pmt_le32(rec + at);
		size = pmt_le16(rec + at + 6);
		if (type == REC_STAT || type == REC_STAT_ROUND) {
			if (size != (type == REC_STAT ? STAT_SIZE : ROUND_SIZE) || len - at < size)
				return false;
			++*(type == REC_STAT ? &sh->nstats : &sh->nrounds);
			at += size;
			continue;
		}
		/* a type outside the two masks: no counts frame says what it holds */
		if (type >= 128)
			return false;
		if (!whole) {
			if (type || len - at < STANDIN)
				return false;
			bytes = pmt_le64(rec + at + 8);
			sh->types[0] |= pmt_le64(rec + at + 16);
			sh->types[1] |= pmt_le64(rec + at + 24);
			sh->other_bytes += bytes;
			at += STANDIN;
			continue;
		} else {
			bytes = size;
			if (type == REC_AUXTRACE && size >= 16)
				bytes += pmt_le64(rec + at + 8);
			if (size < 8 || bytes > len - at)
				return false;
			at += (size_t)bytes;
		}
		sh->other_bytes += bytes;
		sh->types[type >> 6] |= 1ull << (type & 63);
	}
	return sh->nstats + sh->nrounds > 0;
}

int ctr_counts_keep(struct ctr_kept *k, const struct pmt_ctr_piece *v, unsigned n, size_t len)
{
	uint32_t type = v[0].len >= 8 ? pmt_le32((const uint8_t *)v[0].p) : UINT32_MAX;
	bool counts = type == REC_STAT || type == REC_STAT_ROUND;
	size_t need = counts ? len : k->standin ? 0 : STANDIN;

	if (counts && len != (type == REC_STAT ? STAT_SIZE : ROUND_SIZE))
		return 0;
	if (type >= 128)
		return 0;
	if (k->len + need > k->cap) {
		size_t c = k->cap < 4096 ? 4096 : 2 * k->cap;
		uint8_t *b = realloc(k->buf, c > k->len + need ? c : k->len + need);

		if (!b)
			return -PMT_ENOMEM;
		k->buf = b;
		k->cap = c > k->len + need ? c : k->len + need;
	}
	if (!counts) { /* other records in a row: one stand-in, their bytes and types */
		uint8_t *e;

		if (!k->standin) {
			memset(k->buf + k->len, 0, STANDIN);
			k->standin = k->len + 1;
			k->len += STANDIN;
		}
		e = k->buf + k->standin - 1;
		pmt_put_le64(e + 8, pmt_le64(e + 8) + len);
		pmt_put_le64(e + 16 + 8 * (type >> 6),
			     pmt_le64(e + 16 + 8 * (type >> 6)) | 1ull << (type & 63));
		return 1;
	}
	k->standin = 0;
	for (unsigned i = 0; i < n; k->len += v[i++].len)
		if (v[i].len)
			memcpy(k->buf + k->len, v[i].p, v[i].len);
	return 1;
}

/* PMT_CTR_TEST_BAD_COLUMNS=K: every K-th counts frame made gets a column that does not
 * decode while its checksum holds (a writer's bug), for the reader's fallback to the data
 * frame's records (tests/cli/counts_columns.sh) */
static bool bad_columns_due(void)
{
	static unsigned long made;
	const char *k = getenv("PMT_CTR_TEST_BAD_COLUMNS");
	unsigned long every = k ? strtoul(k, NULL, 10) : 0;

	return every && __atomic_fetch_add(&made, 1, __ATOMIC_RELAXED) % every == 0;
}

struct enc {
	uint8_t *col[NCOLS2], *end[NCOLS2];
	struct key_slot *tab;
	uint32_t mask;
	uint8_t *keys;         /* nkeys x 16 bytes */
	uint64_t *last;        /* [key] val, ena, run */
	uint32_t nkeys;
};

static void enc_free(struct enc *e)
{
	for (int c = 0; c < NCOLS2; c++)
		free(e->col[c]);
	free(e->tab);
	free(e->keys);
	free(e->last);
}

static int enc_alloc(struct enc *e, size_t nstats, size_t nrounds)
{
	size_t tab = 16;

	while (tab < 2 * nstats)
		tab *= 2;
	e->mask = (uint32_t)(tab - 1);
	e->tab = calloc(tab, sizeof(*e->tab));
	e->keys = malloc(16 * (nstats + 1));
	e->last = calloc(3 * (nstats + 1), sizeof(*e->last));
	for (int c = 0; c < NCOLS2; c++) {
		size_t items = c == C_GAP ? 2 * (nstats + nrounds + 1)
			       : c < C_KEY ? nrounds + 1 : nstats + 1;

		e->end[c] = e->col[c] = malloc(10 * items);
		if (!e->col[c])
			return -PMT_ENOMEM;
	}
	return e->tab && e->keys && e->last ? 0 : -PMT_ENOMEM;
}

static uint32_t key_of(struct enc *e, uint64_t id, uint32_t cpu, uint32_t thread)
{
	for (uint32_t h = key_hash(id, cpu, thread) & e->mask;; h = (h + 1) & e->mask) {
		struct key_slot *s = &e->tab[h];

		if (!s->num) {
			*s = (struct key_slot){ id, cpu, thread, ++e->nkeys };
			pmt_put_le64(e->keys + 16 * (size_t)(s->num - 1), id);
			pmt_put_le32(e->keys + 16 * (size_t)(s->num - 1) + 8, cpu);
			pmt_put_le32(e->keys + 16 * (size_t)(s->num - 1) + 12, thread);
			return s->num - 1;
		}
		if (s->id == id && s->cpu == cpu && s->thread == thread)
			return s->num - 1;
	}
}

static void enc_walk(struct enc *e, const uint8_t *rec, size_t len)
{
	uint64_t prev_time = 0;
	uint32_t run = 0, prev_key = UINT32_MAX;

	for (size_t at = 0; at < len;) {
		const uint8_t *r = rec + at;

		if (pmt_le32(r) == REC_STAT_ROUND) {
			uint64_t time = pmt_le64(r + 16);

			e->end[C_SEG] = put_uv(e->end[C_SEG], run);
			e->end[C_RTYPE] = put_uv(e->end[C_RTYPE], pmt_le64(r + 8));
			e->end[C_RTIME] = put_zz(e->end[C_RTIME], time - prev_time);
			prev_time = time;
			run = 0;
			at += ROUND_SIZE;
			continue;
		}
		uint32_t k = key_of(e, pmt_le64(r + 8), pmt_le32(r + 16), pmt_le32(r + 20));
		uint64_t *last = &e->last[3 * (size_t)k];

		e->end[C_KEY] = put_zz(e->end[C_KEY], (uint64_t)k - (uint64_t)(prev_key + 1));
		prev_key = k;
		uint64_t val = pmt_le64(r + 24), ena = pmt_le64(r + 32), run_ = pmt_le64(r + 40);

		e->end[C_VAL] = put_zz(e->end[C_VAL], val - last[0]);
		e->end[C_ENA] = put_zz(e->end[C_ENA], ena - last[1]);
		/* running's step from enabled's: 0 unless the counter was multiplexed */
		e->end[C_RUN] = put_zz(e->end[C_RUN], (run_ - last[2]) - (ena - last[1]));
		last[0] = val;
		last[1] = ena;
		last[2] = run_;
		run++;
		at += STAT_SIZE;
	}
	e->end[C_SEG] = put_uv(e->end[C_SEG], run);
}

/* A mixed frame's STAT and STAT_ROUND records copied together (*only), and where the other
 * records stood into the gap column: per run of them, the number of counts records since
 * the last run's as a step, then their bytes (those after the last counts record are the
 * frame's size less the rest). 0 or -PMT_ENOMEM. */
static int split_counts(struct enc *e, const uint8_t *rec, size_t len, bool whole,
			const struct shape *sh, uint8_t **only, size_t *only_len)
{
	uint64_t gap = 0;
	uint32_t ord = 0, last = 0;
	uint8_t *o = malloc(STAT_SIZE * sh->nstats + ROUND_SIZE * sh->nrounds);

	if (!(*only = o))
		return -PMT_ENOMEM;
	for (size_t at = 0; at < len;) {
		uint32_t type = pmt_le32(rec + at);
		uint16_t size = pmt_le16(rec + at + 6);

		if (type != REC_STAT && type != REC_STAT_ROUND) {
			uint64_t bytes = !whole ? pmt_le64(rec + at + 8)
					 : type == REC_AUXTRACE && size >= 16
						 ? size + pmt_le64(rec + at + 8) : size;

			gap += bytes;
			at += whole ? (size_t)bytes : STANDIN;
			continue;
		}
		if (gap) {
			e->end[C_GAP] = put_uv(e->end[C_GAP], ord - last);
			e->end[C_GAP] = put_uv(e->end[C_GAP], gap);
			last = ord;
			gap = 0;
		}
		memcpy(o, rec + at, size);
		o += size;
		at += size;
		ord++;
	}
	*only_len = (size_t)(o - *only);
	return 0;
}

int ctr_counts_encode(const uint8_t *rec, size_t len, bool whole, uint8_t **out, size_t *n)
{
	struct enc e = { 0 };
	struct shape sh;
	size_t raw, zcap, z, only_len = 0, ncols, head;
	uint8_t *p = NULL, *payload = NULL, *only = NULL;
	ZSTD_CCtx *cctx = NULL;
	bool mixed;
	int rc;

	if (!counts_shape(rec, len, whole, &sh))
		return 1;
	/* a frame of counts alone keeps version 1, which readers before version 2 read */
	mixed = sh.types[0] || sh.types[1];
	ncols = mixed ? NCOLS2 : NCOLS;
	head = mixed ? HEAD2 : HEAD;
	raw = 4 * ncols;
	rc = enc_alloc(&e, sh.nstats, sh.nrounds);
	if (rc < 0 || (mixed && (rc = split_counts(&e, rec, len, whole, &sh, &only, &only_len)) < 0))
		goto out;
	enc_walk(&e, mixed ? only : rec, mixed ? only_len : len);
	if (bad_columns_due())
		*e.end[C_RUN]++ = 0; /* one value too many: "a column holds more than its records" */
	raw += 16 * (size_t)e.nkeys;
	for (size_t c = 0; c < ncols; c++)
		raw += (size_t)(e.end[c] - e.col[c]);
	rc = -PMT_ENOMEM;
	payload = malloc(raw);
	zcap = ZSTD_compressBound(raw);
	p = malloc(head + zcap + 4);
	cctx = ZSTD_createCCtx();
	if (!payload || !p || !cctx)
		goto out;
	{
		uint8_t *w = payload + 4 * ncols;

		for (size_t c = 0; c < ncols; c++)
			pmt_put_le32(payload + 4 * c, (uint32_t)(e.end[c] - e.col[c]));
		memcpy(w, e.keys, 16 * (size_t)e.nkeys);
		w += 16 * (size_t)e.nkeys;
		for (size_t c = 0; c < ncols; c++) {
			memcpy(w, e.col[c], (size_t)(e.end[c] - e.col[c]));
			w += e.end[c] - e.col[c];
		}
	}
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	z = ZSTD_compress2(cctx, p + head, zcap, payload, raw);
	if (ZSTD_isError(z)) {
		rc = -PMT_ECOMPRESS;
		goto out;
	}
	memset(p, 0, head);
	memcpy(p, "PMTCOUNT", 8);
	pmt_put_le32(p + 8, mixed ? COUNTS_MIXED : COUNTS_VERSION);
	pmt_put_le32(p + 36, (uint32_t)(sh.nstats + sh.nrounds));
	pmt_put_le32(p + 40, (uint32_t)sh.nstats);
	pmt_put_le32(p + 44, (uint32_t)sh.nrounds);
	pmt_put_le32(p + 48, e.nkeys);
	pmt_put_le32(p + 52, (uint32_t)raw);
	if (mixed) {
		pmt_put_le64(p + 56, sh.types[0]);
		pmt_put_le64(p + 64, sh.types[1]);
	}
	*out = p;
	*n = head + z + 4;
	p = NULL;
	rc = 0;
out:
	ZSTD_freeCCtx(cctx);
	free(payload);
	free(only);
	free(p);
	enc_free(&e);
	return rc;
}

void ctr_counts_place(uint8_t *c, size_t n, uint32_t index, uint64_t offset,
		      uint64_t stream_offset, uint32_t stream_size)
{
	pmt_put_le32(c + 12, index);
	pmt_put_le64(c + 16, offset);
	pmt_put_le64(c + 24, stream_offset);
	pmt_put_le32(c + 32, stream_size);
	pmt_put_le32(c + n - 4, sum32(c, n - 4));
}

/* ---- reader ---- */

struct list_ctx {
	const uint8_t *b;
	size_t len;
	int (*fn)(const struct pmt_ctr_counts_ref *ref, void *ctx);
	void *ctx;
	int n;
};

/* sum: its checksum too (a decode of a frame pmt_ctr_counts_list checked may skip it) */
static const char *check_head(const uint8_t *c, size_t n, bool sum)
{
	uint32_t version;

	if (n < HEAD + 4 || memcmp(c, "PMTCOUNT", 8))
		return "too short for its header";
	version = pmt_le32(c + 8);
	if (version != COUNTS_VERSION && version != COUNTS_MIXED)
		return "a version this build does not read";
	if (version == COUNTS_MIXED && n < HEAD2 + 4)
		return "too short for its header";
	if (sum && pmt_le32(c + n - 4) != sum32(c, n - 4))
		return "its checksum fails";
	return NULL;
}

static int each_info(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	struct list_ctx *l = ctx;
	struct pmt_ctr_counts_ref ref = { 0 };
	uint64_t counted;
	size_t at, n;
	const uint8_t *c;
	int rc;

	if (fi->damaged || fi->info_offset + 8 > l->len)
		return 0;
	at = (size_t)fi->info_offset + 8 + pmt_le32(l->b + fi->info_offset + 4);
	if (at > l->len || l->len - at < 8 || pmt_le32(l->b + at) != SKIP_COUNTS)
		return 0;
	ref.at = at;
	n = pmt_le32(l->b + at + 4);
	ref.size = 8 + (uint64_t)n;
	c = l->b + at + 8;
	if (n > l->len - at - 8) {
		ref.damaged = "the file ends inside it";
		n = 0;
	} else if (!(ref.damaged = check_head(c, n, true))) {
		ref.index = pmt_le32(c + 12);
		ref.offset = pmt_le64(c + 16);
		ref.stream_offset = pmt_le64(c + 24);
		ref.stream_size = pmt_le32(c + 32);
		ref.records = pmt_le32(c + 36);
		ref.version = pmt_le32(c + 8);
		ref.nstats = pmt_le32(c + 40);
		ref.nrounds = pmt_le32(c + 44);
		ref.nkeys = pmt_le32(c + 48);
		if (pmt_le32(c + 8) == COUNTS_MIXED) {
			ref.other_types[0] = pmt_le64(c + 56);
			ref.other_types[1] = pmt_le64(c + 64);
		}
		counted = (uint64_t)pmt_le32(c + 40) * STAT_SIZE +
			  (uint64_t)pmt_le32(c + 44) * ROUND_SIZE;
		/* other records take some of the frame exactly when their types are said */
		if (ref.index != fi->index || ref.offset != fi->offset ||
		    ref.stream_offset != fi->stream_offset || ref.stream_size != fi->stream_size ||
		    counted > ref.stream_size ||
		    (counted == ref.stream_size) != !(ref.other_types[0] | ref.other_types[1]))
			ref.damaged = "it does not match its data frame's info";
	}
	if (ref.damaged) { /* say which data frame it stood for, as its info says */
		ref.other_types[0] = ref.other_types[1] = 0;
		ref.index = fi->index;
		ref.offset = fi->offset;
		ref.stream_offset = fi->stream_offset;
		ref.stream_size = fi->stream_size;
	}
	rc = l->fn(&ref, l->ctx);
	l->n++;
	return rc < 0 ? rc : 0;
}

int pmt_ctr_counts_list(const void *buf, size_t len,
			int (*fn)(const struct pmt_ctr_counts_ref *ref, void *ctx), void *ctx)
{
	struct list_ctx l = { buf, len, fn, ctx, 0 };
	int rc = pmt_ctr_frame_infos(buf, len, each_info, &l);

	return rc < 0 ? rc : l.n;
}

struct pmt_ctr_counts {
	ZSTD_DCtx *dctx;
	uint8_t *raw;
	size_t raw_cap;
	struct pmt_ctr_count_key *keys;
	uint64_t *last;        /* [key] value, enabled, running of its last record */
	uint32_t *seg, *key;
	uint64_t *rtype, *rtime, *v[3];
	uint32_t *gap_at;
	uint64_t *gap;
	size_t cap_keys, cap_rounds, cap_stats, cap_gaps;
	void (*want_fn)(const struct pmt_ctr_count_key *keys, uint32_t nkeys, uint8_t *want,
			void *ctx);
	void *want_ctx;
	uint8_t *want;         /* [key] its values wanted (want_fn's answer for the frame) */
	uint32_t *skip;        /* [key] keys not wanted from it on, in a row (0: wanted) */
	bool listed;           /* the checksums were checked by pmt_ctr_counts_list */
};

void pmt_ctr_counts_listed(struct pmt_ctr_counts *d, bool listed)
{
	d->listed = listed;
}

void pmt_ctr_counts_want(struct pmt_ctr_counts *d,
			 void (*fn)(const struct pmt_ctr_count_key *keys, uint32_t nkeys,
				    uint8_t *want, void *ctx),
			 void *ctx)
{
	d->want_fn = fn;
	d->want_ctx = ctx;
}

int pmt_ctr_counts_new(struct pmt_ctr_counts **out)
{
	struct pmt_ctr_counts *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d || !(d->dctx = ZSTD_createDCtx())) {
		free(d);
		return -PMT_ENOMEM;
	}
	*out = d;
	return 0;
}

void pmt_ctr_counts_free(struct pmt_ctr_counts *d)
{
	if (!d)
		return;
	ZSTD_freeDCtx(d->dctx);
	free(d->raw);
	free(d->keys);
	free(d->last);
	free(d->want);
	free(d->skip);
	free(d->seg);
	free(d->key);
	free(d->rtype);
	free(d->rtime);
	for (int c = 0; c < 3; c++)
		free(d->v[c]);
	free(d->gap_at);
	free(d->gap);
	free(d);
}

/* arrays of one length grow together; *cap moves only when all of them have */
static bool grow(size_t *cap, size_t want, void **p[], const size_t each[], int n)
{
	if (want <= *cap)
		return true;
	for (int i = 0; i < n; i++) {
		void *q = realloc(*p[i], want * each[i]);

		if (!q)
			return false;
		*p[i] = q;
	}
	*cap = want;
	return true;
}

static int reserve(struct pmt_ctr_counts *d, size_t raw, size_t nkeys, size_t nrounds,
		   size_t nstats)
{
	void **pr[] = { (void **)&d->raw };
	void **pk[] = { (void **)&d->keys, (void **)&d->last, (void **)&d->want,
			(void **)&d->skip };
	void **pn[] = { (void **)&d->seg, (void **)&d->rtype, (void **)&d->rtime };
	void **ps[] = { (void **)&d->key, (void **)&d->v[0], (void **)&d->v[1], (void **)&d->v[2] };
	static const size_t er[] = { 1 }, ek[] = { sizeof(struct pmt_ctr_count_key), 24, 1, 4 },
			    en[] = { 4, 8, 8 }, es[] = { 4, 8, 8, 8 };

	return grow(&d->raw_cap, raw + 1, pr, er, 1) && grow(&d->cap_keys, nkeys + 1, pk, ek, 4) &&
	       grow(&d->cap_rounds, nrounds + 1, pn, en, 3) &&
	       grow(&d->cap_stats, nstats + 1, ps, es, 4) ? 0 : -PMT_ENOMEM;
}

static const char *decode_cols(struct pmt_ctr_counts *d, const uint8_t *col[NCOLS],
			       const uint8_t *end[NCOLS], uint32_t nkeys, uint32_t nstats,
			       uint32_t nrounds)
{
	uint64_t x, prev = 0;
	uint32_t k = UINT32_MAX;
	size_t total = 0;

	for (uint32_t i = 0; i <= nrounds; i++) {
		if (!(col[C_SEG] = get_uv(col[C_SEG], end[C_SEG], &x)) || x > nstats - total)
			return "its round sizes do not add up";
		d->seg[i] = (uint32_t)x;
		total += x;
	}
	if (total != nstats)
		return "its round sizes do not add up";
	for (uint32_t i = 0; i < nrounds; i++) {
		if (!(col[C_RTYPE] = get_uv(col[C_RTYPE], end[C_RTYPE], &d->rtype[i])) ||
		    !(col[C_RTIME] = get_uv(col[C_RTIME], end[C_RTIME], &x)))
			return "its round columns are short";
		d->rtime[i] = prev += unzz(x);
	}
	memset(d->last, 0, 24 * (size_t)nkeys);
	{
		/* the column cursors and arrays in locals: through col[] and d they were
		 * loaded and stored again per value (the stores may alias them) */
		const uint8_t *pk = col[C_KEY], *pv = col[C_VAL], *pe = col[C_ENA], *pr = col[C_RUN];
		const uint8_t *ek = end[C_KEY], *ev = end[C_VAL], *ee = end[C_ENA], *er = end[C_RUN];
		uint64_t *last = d->last, *val = d->v[0], *ena = d->v[1], *run = d->v[2];
		uint32_t *key = d->key;
		const uint32_t *skip = d->want_fn ? d->skip : NULL;

		for (uint32_t i = 0; i < nstats; i++) {
			uint64_t *l, a, b, c;

			/* the usual record: the key after the last one, not multiplexed (both
			 * steps a 0 byte): two of its four varints without the decoder */
			if (pk < ek && pr < er && !(*pk | *pr)) {
				pk++;
				pr++;
				k++;
				c = 0;
			} else {
				if (!(pk = get_uv(pk, ek, &x)))
					return "its key column is short";
				k = (uint32_t)(k + 1 + unzz(x));
				if (!(pr = get_uv(pr, er, &c)))
					return "a value column is short or has a varint over 10 bytes";
			}
			if (k >= nkeys)
				return "a record names a key it does not list";
			key[i] = k;
			if (skip && skip[k]) {
				/* keys not wanted: this record's values and those of the
				 * records after it whose keys follow in a row, unread */
				uint32_t j = 1, m = skip[k] < nstats - i ? skip[k] : nstats - i;

				for (; j < m && pk < ek && pr < er && !(*pk | *pr); j++) {
					pk++;
					pr++;
					key[i + j] = k + j;
				}
				if (!(pv = skip_uv(pv, ev, j)) || !(pe = skip_uv(pe, ee, j)))
					return "a value column is short or has a varint over 10 bytes";
				k += j - 1;
				i += j - 1;
				continue;
			}
			if (!(pv = get_uv(pv, ev, &a)) || !(pe = get_uv(pe, ee, &b)))
				return "a value column is short or has a varint over 10 bytes";
			l = &last[3 * (size_t)k];
			val[i] = l[0] += unzz(a);
			b = unzz(b);
			ena[i] = l[1] += b;
			run[i] = l[2] += unzz(c) + b;
		}
		col[C_KEY] = pk;
		col[C_VAL] = pv;
		col[C_ENA] = pe;
		col[C_RUN] = pr;
	}
	for (int c = 0; c < NCOLS; c++)
		if (col[c] != end[c])
			return "a column holds more than its records";
	return NULL;
}

/* A mixed frame's gap column (split_counts()): *ngaps runs of other records, each before
 * the counts record gap_at[i] (their order among the STAT and STAT_ROUND records), within
 * the room the frame's size leaves them */
static const char *decode_gaps(struct pmt_ctr_counts *d, const uint8_t *p, const uint8_t *end,
			       uint32_t records, uint64_t room, uint32_t *ngaps)
{
	uint64_t step, bytes, ord = 0;
	uint32_t n = 0;
	void **pg[] = { (void **)&d->gap_at, (void **)&d->gap };
	static const size_t eg[] = { 4, 8 };

	if (!grow(&d->cap_gaps, (size_t)records + 1, pg, eg, 2))
		return NULL; /* the caller tells memory from damage by *ngaps */
	while (p < end) {
		if (!(p = get_uv(p, end, &step)) || !(p = get_uv(p, end, &bytes)))
			return "its gap column is short";
		if ((n && !step) || step >= records - ord || !bytes || bytes > room)
			return "its gaps do not fit its data frame";
		ord += step;
		room -= bytes;
		d->gap_at[n] = (uint32_t)ord;
		d->gap[n++] = bytes;
	}
	*ngaps = n;
	return NULL;
}

int pmt_ctr_counts_decode(struct pmt_ctr_counts *d, const void *buf, size_t len, uint64_t at,
			  struct pmt_ctr_counts_frame *f, const char **why)
{
	const uint8_t *b = buf, *c, *col[NCOLS2], *end[NCOLS2];
	uint32_t nstats, nrounds, nkeys, raw, ngaps = UINT32_MAX;
	size_t n, got, pos, ncols, head;
	uint64_t counted;
	bool mixed;
	int rc;

	*why = NULL;
	memset(f, 0, sizeof(*f));
	if (at > len || len - at < 8 || pmt_le32(b + at) != SKIP_COUNTS ||
	    (n = pmt_le32(b + at + 4)) > len - at - 8)
		return *why = "no counts frame there", -PMT_ECORRUPT;
	c = b + at + 8;
	if ((*why = check_head(c, n, !d->listed)))
		return -PMT_ECORRUPT;
	mixed = pmt_le32(c + 8) == COUNTS_MIXED;
	ncols = mixed ? NCOLS2 : NCOLS;
	head = mixed ? HEAD2 : HEAD;
	nstats = pmt_le32(c + 40);
	nrounds = pmt_le32(c + 44);
	nkeys = pmt_le32(c + 48);
	raw = pmt_le32(c + 52);
	counted = (uint64_t)nstats * STAT_SIZE + (uint64_t)nrounds * ROUND_SIZE;
	/* every key, record and round takes at least a byte of the payload (a gap at most
	 * 20, one before each record) */
	if (raw < 4 * ncols + 16 * (uint64_t)nkeys || nkeys > nstats || counted > (1u << 30) ||
	    counted > pmt_le32(c + 32) ||
	    raw > 4 * ncols + (56 + 20 * mixed) * (uint64_t)nstats +
			  (30 + 20 * mixed) * (uint64_t)nrounds + 10)
		return *why = "its counts do not fit its payload", -PMT_ECORRUPT;
	rc = reserve(d, raw, nkeys, nrounds, nstats);
	if (rc < 0)
		return rc;
	got = ZSTD_decompressDCtx(d->dctx, d->raw, raw, c + head, n - head - 4);
	if (ZSTD_isError(got) || got != raw)
		return *why = "its payload does not decompress to its size", -PMT_ECORRUPT;
	pos = 4 * ncols + 16 * (size_t)nkeys;
	for (size_t i = 0; i < ncols; i++) {
		size_t cl = pmt_le32(d->raw + 4 * i);

		if (cl > raw - pos)
			return *why = "its columns are larger than its payload", -PMT_ECORRUPT;
		col[i] = d->raw + pos;
		end[i] = d->raw + pos + cl;
		pos += cl;
	}
	for (uint32_t k = 0; k < nkeys; k++) {
		const uint8_t *e = d->raw + 4 * ncols + 16 * (size_t)k;

		d->keys[k] = (struct pmt_ctr_count_key){ pmt_le64(e), pmt_le32(e + 8),
							  pmt_le32(e + 12) };
	}
	if (d->want_fn) {
		memset(d->want, 1, nkeys);
		d->want_fn(d->keys, nkeys, d->want, d->want_ctx);
		d->skip[nkeys] = 0;
		for (uint32_t k = nkeys; k-- > 0;)
			d->skip[k] = d->want[k] ? 0 : d->skip[k + 1] + 1;
	}
	if ((*why = decode_cols(d, col, end, nkeys, nstats, nrounds)))
		return -PMT_ECORRUPT;
	if (mixed) {
		*why = decode_gaps(d, col[C_GAP], end[C_GAP], nstats + nrounds,
				   pmt_le32(c + 32) - counted, &ngaps);
		if (*why)
			return -PMT_ECORRUPT;
		if (ngaps == UINT32_MAX)
			return -PMT_ENOMEM;
	}
	*f = (struct pmt_ctr_counts_frame){ nkeys, nstats, nrounds, d->keys, d->seg, d->rtype,
					    d->rtime, d->key, d->v[0], d->v[1], d->v[2],
					    mixed ? ngaps : 0, mixed ? d->gap_at : NULL,
					    mixed ? d->gap : NULL };
	return 0;
}

int pmt_ctr_counts_decode_records(struct pmt_ctr_counts *d, const void *buf, size_t len,
				  uint64_t offset, uint32_t stream_size,
				  struct pmt_ctr_counts_frame *f, const char **why)
{
	const uint8_t *b = buf;
	size_t zlen, got;
	uint32_t s = 0, r = 0, run = 0, ord = 0, ngaps = 0;
	uint64_t gap = 0;
	struct shape sh;
	void **pg[] = { (void **)&d->gap_at, (void **)&d->gap };
	static const size_t eg[] = { 4, 8 };
	int rc;

	*why = NULL;
	memset(f, 0, sizeof(*f));
	if (offset > len || stream_size > (1u << 30))
		return *why = "its data frame is outside the file", -PMT_ECORRUPT;
	zlen = ZSTD_findFrameCompressedSize(b + offset, len - offset);
	if (ZSTD_isError(zlen))
		return *why = "its data frame is no whole zstd frame", -PMT_ECORRUPT;
	/* the records land where a decode's payload goes; every array sized per record */
	rc = reserve(d, stream_size, stream_size / STAT_SIZE, stream_size / ROUND_SIZE,
		     stream_size / STAT_SIZE);
	if (rc < 0)
		return rc;
	got = ZSTD_decompressDCtx(d->dctx, d->raw, stream_size, b + offset, zlen);
	if (ZSTD_isError(got) || got != stream_size)
		return *why = "its data frame does not decompress to its size", -PMT_ECORRUPT;
	/* the shape a writer gives a counts frame (a version 2 one when other records are
	 * there): their runs become gaps, as the gap column says them */
	if (!counts_shape(d->raw, stream_size, true, &sh))
		return *why = "its data frame's records are not what a counts frame covers",
		       -PMT_ECORRUPT;
	if (!grow(&d->cap_gaps, (size_t)sh.nstats + sh.nrounds + 1, pg, eg, 2))
		return -PMT_ENOMEM;
	/* each record its own key: the reader finds each one's place, as for the records */
	for (size_t at = 0; at < stream_size;) {
		const uint8_t *p = d->raw + at;
		uint32_t type = pmt_le32(p);

		if (type != REC_STAT && type != REC_STAT_ROUND) {
			uint64_t bytes = pmt_le16(p + 6);

			if (type == REC_AUXTRACE && bytes >= 16)
				bytes += pmt_le64(p + 8);
			gap += bytes;
			at += (size_t)bytes;
			continue;
		}
		if (gap) {
			d->gap_at[ngaps] = ord;
			d->gap[ngaps++] = gap;
			gap = 0;
		}
		ord++;
		if (type == REC_STAT_ROUND) {
			d->rtype[r] = pmt_le64(p + 8);
			d->rtime[r] = pmt_le64(p + 16);
			d->seg[r++] = run;
			run = 0;
			at += ROUND_SIZE;
			continue;
		}
		d->keys[s] = (struct pmt_ctr_count_key){ pmt_le64(p + 8), pmt_le32(p + 16),
							  pmt_le32(p + 20) };
		d->key[s] = s;
		d->v[0][s] = pmt_le64(p + 24);
		d->v[1][s] = pmt_le64(p + 32);
		d->v[2][s++] = pmt_le64(p + 40);
		run++;
		at += STAT_SIZE;
	}
	d->seg[r] = run;
	*f = (struct pmt_ctr_counts_frame){ s, s, r, d->keys, d->seg, d->rtype, d->rtime, d->key,
					    d->v[0], d->v[1], d->v[2], ngaps,
					    ngaps ? d->gap_at : NULL, ngaps ? d->gap : NULL };
	return 0;
}
