/* Counts frames (FORMAT.md, "Counts frames"): the STAT and STAT_ROUND records of a data
 * frame, by column (version 2 when the frame holds other records too: where they stand is
 * kept, as gaps, so the STAT records keep their stream offsets). Each (id, cpu, thread) key is listed once;
 * per record its key's number as a step from the one before, and value, enabled and
 * running as zigzag varint steps from that key's previous record in the frame (the first
 * from 0), so a counter read every interval costs a few bytes instead of 48; a frame of
 * counts alone (version 3) leaves out the key, enabled and running of a steady counter's
 * record, so it costs its value's step alone. Frames are independent, like the data
 * frames they stand for. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pmutrace/container.h"

#include "counts_cols.h"

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
#define FNV_BASIS 14695981039346656037ull
#define FNV_PRIME 1099511628211ull

/* the sum's words from byte i on into h, and its fold */
static uint32_t sum32_from(uint64_t h, const uint8_t *p, size_t n, size_t i)
{
	for (; n - i >= 8; i += 8)
		h = (h ^ pmt_le64(p + i)) * FNV_PRIME;
	if (i < n) {
		uint8_t tail[8] = { 0 };

		memcpy(tail, p + i, n - i);
		h = (h ^ pmt_le64(tail)) * FNV_PRIME;
	}
	return (uint32_t)(h ^ h >> 32);
}

uint32_t ctr_counts_sum32(const uint8_t *p, size_t n)
{
	return sum32_from(FNV_BASIS, p, n, 0);
}

void ctr_counts_sum32_lanes(const uint8_t *const p[SUM_LANES], const size_t n[SUM_LANES],
			    uint32_t out[SUM_LANES])
{
	uint64_t h[SUM_LANES];
	size_t common = SIZE_MAX, i = 0;

	for (int j = 0; j < SUM_LANES; j++) {
		h[j] = FNV_BASIS;
		common = n[j] < common ? n[j] : common;
	}
	/* the words all lanes have, side by side: each lane's multiply waits for its last
	 * one (4 cycles a word), the lanes' do not wait for each other */
	for (; common - i >= 8; i += 8)
		for (int j = 0; j < SUM_LANES; j++)
			h[j] = (h[j] ^ pmt_le64(p[j] + i)) * FNV_PRIME;
	for (int j = 0; j < SUM_LANES; j++)
		out[j] = sum32_from(h[j], p[j], n[j], i);
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

bool ctr_counts_shape(const uint8_t *rec, size_t len, bool whole, struct shape *sh)
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
			       : c < C_KEY ? nrounds + 1 : c == C_SHAPE ? 4 * (nstats + 1) : nstats + 1;

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

/* A STAT_ROUND: the records since the last one, its type and time step (every version) */
static void put_round(struct enc *e, const uint8_t *r, uint64_t *prev_time, uint32_t *run)
{
	uint64_t time = pmt_le64(r + 16);

	e->end[C_SEG] = put_uv(e->end[C_SEG], *run);
	e->end[C_RTYPE] = put_uv(e->end[C_RTYPE], pmt_le64(r + 8));
	e->end[C_RTIME] = put_zz(e->end[C_RTIME], time - *prev_time);
	*prev_time = time;
	*run = 0;
}

/* A STAT record's key, enabled and running go in their own columns (versions 1 and 2), or,
 * shaped (version 3), a record is usual when its key is the one after the previous
 * record's, its enabled moved by the previous record's enabled step and its running as its
 * enabled (a steady interval count, not multiplexed); the shape column says how many usual
 * records come in a row, then for the record that breaks the run its key step, enabled
 * step less the previous record's and running step less its enabled step, and the count
 * of the next run (the column ends with a count). Usual records cost their value's varint
 * alone: zstd expanded and the reader parsed the zero bytes of three columns per record. */
static void enc_walk(struct enc *e, const uint8_t *rec, size_t len, bool shaped)
{
	uint64_t prev_time = 0, prev_step = 0;
	uint32_t run = 0, prev_key = UINT32_MAX, usual = 0;

	for (size_t at = 0; at < len;) {
		const uint8_t *r = rec + at;

		if (pmt_le32(r) == REC_STAT_ROUND) {
			put_round(e, r, &prev_time, &run);
			at += ROUND_SIZE;
			continue;
		}
		uint32_t k = key_of(e, pmt_le64(r + 8), pmt_le32(r + 16), pmt_le32(r + 20));
		uint64_t *last = &e->last[3 * (size_t)k];
		uint64_t val = pmt_le64(r + 24), ena = pmt_le64(r + 32), run_ = pmt_le64(r + 40);
		uint64_t step = ena - last[1], run_step = run_ - last[2];

		if (!shaped) {
			e->end[C_KEY] = put_zz(e->end[C_KEY], (uint64_t)k - (uint64_t)(prev_key + 1));
			e->end[C_ENA] = put_zz(e->end[C_ENA], step);
			/* running's step from enabled's: 0 unless the counter was multiplexed */
			e->end[C_RUN] = put_zz(e->end[C_RUN], run_step - step);
		} else if (k == prev_key + 1 && step == prev_step && run_step == step) {
			usual++;
		} else {
			e->end[C_SHAPE] = put_uv(e->end[C_SHAPE], usual);
			e->end[C_SHAPE] = put_zz(e->end[C_SHAPE], (uint64_t)k - (uint64_t)(prev_key + 1));
			e->end[C_SHAPE] = put_zz(e->end[C_SHAPE], step - prev_step);
			e->end[C_SHAPE] = put_zz(e->end[C_SHAPE], run_step - step);
			usual = 0;
		}
		e->end[C_VAL] = put_zz(e->end[C_VAL], val - last[0]);
		last[0] = val;
		last[1] = ena;
		last[2] = run_;
		prev_key = k;
		prev_step = step;
		run++;
		at += STAT_SIZE;
	}
	e->end[C_SEG] = put_uv(e->end[C_SEG], run);
	if (shaped)
		e->end[C_SHAPE] = put_uv(e->end[C_SHAPE], usual);
}

/* PMT_CTR_TEST_COUNTS_VERSION=1: frames of counts alone written as version 1, the layout
 * before version 3, so that tests check a reader still takes it (tests/cli/counts_columns.sh) */
static bool write_version1(void)
{
	const char *v = getenv("PMT_CTR_TEST_COUNTS_VERSION");

	return v && !strcmp(v, "1");
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
	bool mixed, shaped;
	int rc;

	if (!ctr_counts_shape(rec, len, whole, &sh))
		return 1;
	/* a frame of counts alone is version 3; a mixed one keeps version 2's layout */
	mixed = sh.types[0] || sh.types[1];
	shaped = !mixed && !write_version1();
	ncols = mixed ? NCOLS2 : shaped ? NCOLS3 : NCOLS;
	head = mixed ? HEAD2 : HEAD;
	raw = 4 * ncols;
	rc = enc_alloc(&e, sh.nstats, sh.nrounds);
	if (rc < 0 || (mixed && (rc = split_counts(&e, rec, len, whole, &sh, &only, &only_len)) < 0))
		goto out;
	if (shaped)
		enc_walk(&e, rec, len, true);
	else
		enc_walk(&e, mixed ? only : rec, mixed ? only_len : len, false);
	if (bad_columns_due()) /* one value too many: "a column holds more than its records" */
		*e.end[shaped ? C_SHAPE : C_RUN]++ = 0;
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
	/* literals left unencoded (ZSTD_c_literalCompressionMode = ZSTD_ps_disable): a
	 * counts frame's literals are mostly the value column's varints, which Huffman codes
	 * shrank by ~5% and cost the reader a third of its CPU to decode (metrics --global of
	 * the 360 x 64 recording: 261-269 -> 169 ms); a libzstd without it encodes them */
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_experimentalParam5, 2);
	z = ZSTD_compress2(cctx, p + head, zcap, payload, raw);
	if (ZSTD_isError(z)) {
		rc = -PMT_ECOMPRESS;
		goto out;
	}
	memset(p, 0, head);
	memcpy(p, "PMTCOUNT", 8);
	pmt_put_le32(p + 8, mixed ? COUNTS_MIXED : shaped ? COUNTS_SHAPED : COUNTS_VERSION);
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
	pmt_put_le32(c + n - 4, ctr_counts_sum32(c, n - 4));
}
