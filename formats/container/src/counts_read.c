/* Counts frames' reader (FORMAT.md, "Counts frames"): lists them by the frame infos,
 * decodes one into columns (its varint steps back into values), or a data frame's records
 * into the same columns when its counts frame does not decode. The writer: counts_cols.c. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pmutrace/container.h"

#include "counts_cols.h"
#include "frame_info.h"
#include "varint.h"

/* A listed counts frame whose checksum is still to be checked (a sum of 0 bytes stands for
 * a frame that needs none): the list checks SUM_LANES at once, then passes them on */
struct listed {
	struct pmt_ctr_counts_ref ref;
	struct pmt_ctr_frame_info fi;
	const uint8_t *c;
	size_t n;
};

struct list_ctx {
	const uint8_t *b;
	size_t len;
	int (*fn)(const struct pmt_ctr_counts_ref *ref, void *ctx);
	void *ctx;
	int n;
	struct listed wait[SUM_LANES];
	int nwait;
};

/* sum: its checksum too (a decode of a frame pmt_ctr_counts_list checked may skip it) */
static const char *check_head(const uint8_t *c, size_t n, bool sum)
{
	uint32_t version;

	if (n < HEAD + 4 || memcmp(c, "PMTCOUNT", 8))
		return "too short for its header";
	version = pmt_le32(c + 8);
	if (version != COUNTS_VERSION && version != COUNTS_MIXED && version != COUNTS_SHAPED)
		return "a version this build does not read";
	if (version == COUNTS_MIXED && n < HEAD2 + 4)
		return "too short for its header";
	if (sum && pmt_le32(c + n - 4) != ctr_counts_sum32(c, n - 4))
		return "its checksum fails";
	return NULL;
}

/* the waiting frames' checksums (SUM_LANES at a time; the lanes a partial batch does not
 * fill sum an empty buffer), then each passed on in file order as each_info() left it,
 * or as damaged by its checksum: then only what its info says, as for any damage */
static int flush_listed(struct list_ctx *l)
{
	const uint8_t *p[SUM_LANES];
	size_t n[SUM_LANES];
	uint32_t got[SUM_LANES];
	int rc = 0;

	for (int j = 0; j < SUM_LANES; j++) {
		bool in = j < l->nwait && l->wait[j].n;

		p[j] = in ? l->wait[j].c : l->b;
		n[j] = in ? l->wait[j].n - 4 : 0;
	}
	ctr_counts_sum32_lanes(p, n, got);
	for (int j = 0; j < l->nwait && rc >= 0; j++) {
		struct listed *w = &l->wait[j];

		if (w->n && pmt_le32(w->c + w->n - 4) != got[j])
			w->ref = (struct pmt_ctr_counts_ref){
				.at = w->ref.at, .size = w->ref.size, .index = w->fi.index,
				.offset = w->fi.offset, .stream_offset = w->fi.stream_offset,
				.stream_size = w->fi.stream_size, .damaged = "its checksum fails"
			};
		rc = l->fn(&w->ref, l->ctx);
		l->n++;
	}
	l->nwait = 0;
	return rc < 0 ? rc : 0;
}

static int each_info(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	struct list_ctx *l = ctx;
	struct listed *w = &l->wait[l->nwait];
	struct pmt_ctr_counts_ref ref = { 0 };
	uint64_t counted;
	size_t at, n;
	const uint8_t *c;

	if (fi->damaged || fi->info_offset + 8 > l->len)
		return 0;
	at = (size_t)fi->info_offset + 8 + pmt_le32(l->b + fi->info_offset + 4);
	if (at > l->len || l->len - at < 8 || pmt_le32(l->b + at) != SKIP_COUNTS)
		return 0;
	ref.at = at;
	n = pmt_le32(l->b + at + 4);
	ref.size = 8 + (uint64_t)n;
	c = l->b + at + 8;
	w->c = c;
	w->n = 0;
	if (n > l->len - at - 8) {
		ref.damaged = "the file ends inside it";
		n = 0;
	} else if (!(ref.damaged = check_head(c, n, false))) {
		w->n = n; /* its checksum, checked before the rest is said */
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
	w->ref = ref;
	w->fi = *fi;
	return ++l->nwait == SUM_LANES ? flush_listed(l) : 0;
}

int pmt_ctr_counts_list(const void *buf, size_t len,
			int (*fn)(const struct pmt_ctr_counts_ref *ref, void *ctx), void *ctx)
{
	struct list_ctx l = { .b = buf, .len = len, .fn = fn, .ctx = ctx };
	int rc = pmt_ctr_frame_infos(buf, len, each_info, &l);

	if (rc >= 0 && l.nwait)
		rc = flush_listed(&l);
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
	bool zsum_off;         /* dctx leaves zstd's checksum of what it decompresses unread */
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

/* A counts frame's own checksum (check_head) covers its compressed payload, so zstd's
 * XXH64 of the decompressed bytes is not computed for it again (a data frame has only
 * zstd's). ZSTD_d_forceIgnoreChecksum is experimental: a libzstd without it verifies. */
static void zstd_checksum(struct pmt_ctr_counts *d, bool on)
{
	if (d->zsum_off == !on)
		return;
	if (!ZSTD_isError(ZSTD_DCtx_setParameter(d->dctx, ZSTD_d_experimentalParam3, !on)))
		d->zsum_off = !on;
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

/* How many of the next records (at most max) are usual: their key and running steps both
 * a 0 byte (the key after the last one, not multiplexed), 8 at a time */
static inline uint32_t zero_run(const uint8_t *pk, const uint8_t *ek, const uint8_t *pr,
				const uint8_t *er, uint32_t max)
{
	size_t room = (size_t)(ek - pk) < (size_t)(er - pr) ? (size_t)(ek - pk) : (size_t)(er - pr);
	size_t j = 0;

	if (room > max)
		room = max;
	while (room - j >= 8) {
		uint64_t w = pmt_le64(pk + j) | pmt_le64(pr + j);

		if (w)
			return (uint32_t)(j + (unsigned)__builtin_ctzll(w) / 8);
		j += 8;
	}
	while (j < room && !(pk[j] | pr[j]))
		j++;
	return (uint32_t)j;
}

/* m usual records of keys first.. in a row: their values decoded, and enabled and running
 * moved by the same step, read from the enabled column (FROM_COL: zero_run()'s records,
 * *pe moves past their steps) or the shape's step (version 3's, enc_walk_shaped()). The
 * value column's cursor after them, NULL when a column is short or has a varint over 10
 * bytes. FROM_COL is a constant: each copy keeps only its own loop. Not inlined: its
 * cursors and arrays stay in registers. */
#define VALUE_RUN(NAME, ATTR, GET, FROM_COL)                                                   \
	ATTR static const uint8_t *NAME(const uint8_t *pv, const uint8_t *ev,                  \
					const uint8_t **pe_, const uint8_t *ee, uint64_t step, \
					uint64_t *l, uint32_t first, uint32_t m,               \
					uint32_t *key, uint64_t *val, uint64_t *ena,           \
					uint64_t *run)                                         \
	{                                                                                      \
		const uint8_t *pe = FROM_COL ? *pe_ : NULL;                                    \
                                                                                               \
		for (uint32_t j = 0; j < m; j++, l += 3) {                                     \
			uint64_t a, b = step;                                                  \
                                                                                               \
			if (!(pv = GET(pv, ev, &a)))                                           \
				return NULL;                                                   \
			if (FROM_COL) {                                                        \
				if (!(pe = GET(pe, ee, &b)))                                   \
					return NULL;                                           \
				b = unzz(b);                                                   \
			}                                                                      \
			key[j] = first + j;                                                    \
			val[j] = l[0] += unzz(a);                                              \
			ena[j] = l[1] += b;                                                    \
			run[j] = l[2] += b;                                                    \
		}                                                                              \
		if (FROM_COL)                                                                  \
			*pe_ = pe;                                                             \
		return pv;                                                                     \
	}
VALUE_RUN(usual_run_any, __attribute__((noinline)), get_uv, true)
VALUE_RUN(shaped_run_any, __attribute__((noinline)), get_uv, false)
#ifdef PMT_UV_PEXT
VALUE_RUN(usual_run_pext, __attribute__((noinline, target("bmi2"))), get_uv_pext, true)
VALUE_RUN(shaped_run_pext, __attribute__((noinline, target("bmi2"))), get_uv_pext, false)
#endif

static const uint8_t *usual_run(const uint8_t *pv, const uint8_t *ev, const uint8_t **pe,
				const uint8_t *ee, uint64_t *l, uint32_t first, uint32_t m,
				uint32_t *key, uint64_t *val, uint64_t *ena, uint64_t *run)
{
#ifdef PMT_UV_PEXT
	if (uv_pext_fast())
		return usual_run_pext(pv, ev, pe, ee, 0, l, first, m, key, val, ena, run);
#endif
	return usual_run_any(pv, ev, pe, ee, 0, l, first, m, key, val, ena, run);
}

/* The round columns (every version), and the keys' last values cleared */
static const char *decode_rounds(struct pmt_ctr_counts *d, const uint8_t *col[],
				 const uint8_t *const end[], uint32_t nkeys, uint32_t nstats,
				 uint32_t nrounds)
{
	uint64_t x, prev = 0;
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
	return NULL;
}

static const char *decode_cols(struct pmt_ctr_counts *d, const uint8_t *col[NCOLS],
			       const uint8_t *end[NCOLS], uint32_t nkeys, uint32_t nstats,
			       uint32_t nrounds)
{
	uint64_t x;
	uint32_t k = UINT32_MAX;
	const char *why = decode_rounds(d, col, end, nkeys, nstats, nrounds);

	if (why)
		return why;
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

			/* a run of usual records whose values are all wanted: keys in a row,
			 * running = enabled, in a loop of their own that decodes only their
			 * values and enabled (per record, the tests and branches of the
			 * general case below and its register spills were half the decode) */
			if (!skip) {
				uint32_t first = k + 1, m = zero_run(pk, ek, pr, er, nstats - i);

				if (first < nkeys && m > nkeys - first)
					m = nkeys - first;
				else if (first >= nkeys)
					m = 0;
				if (m > 1) {
					if (!(pv = usual_run(pv, ev, &pe, ee, &last[3 * (size_t)first],
							     first, m, key + i, val + i, ena + i,
							     run + i)))
						return "a value column is short or has a varint over 10 bytes";
					pk += m;
					pr += m;
					k += m;
					i += m - 1;
					continue;
				}
			}
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

/* Records from..from+m-1 of keys first.. in a row, usual (enabled and running moved by
 * step): those of keys not wanted passed over, by runs of them */
static const uint8_t *shaped_usual(const struct pmt_ctr_counts *d, const uint8_t *pv,
				   const uint8_t *ev, uint64_t step, uint32_t first,
				   uint32_t m, uint32_t from, bool pext)
{
	const uint32_t *skip = d->want_fn ? d->skip : NULL;

	(void)pext;
	for (uint32_t j = 0; j < m && pv;) {
		uint32_t k = first + j, n = m - j;

		if (skip && skip[k]) {
			n = skip[k] < n ? skip[k] : n;
			for (uint32_t q = 0; q < n; q++)
				d->key[from + j + q] = k + q;
			pv = skip_uv(pv, ev, n);
			j += n;
			continue;
		}
		if (skip) /* up to the next key not wanted */
			for (uint32_t q = 1; q < n; q++)
				if (skip[k + q]) {
					n = q;
					break;
				}
#ifdef PMT_UV_PEXT
		if (pext)
			pv = shaped_run_pext(pv, ev, NULL, NULL, step, &d->last[3 * (size_t)k], k, n,
					     d->key + from + j, d->v[0] + from + j,
					     d->v[1] + from + j, d->v[2] + from + j);
		else
#endif
			pv = shaped_run_any(pv, ev, NULL, NULL, step, &d->last[3 * (size_t)k], k, n,
					    d->key + from + j, d->v[0] + from + j,
					    d->v[1] + from + j, d->v[2] + from + j);
		j += n;
	}
	return pv;
}

/* Version 3's shape and value columns (enc_walk_shaped()): runs of usual records, each
 * followed by one that says its key, enabled and running steps */
static const char *decode_shaped(struct pmt_ctr_counts *d, const uint8_t *col[NCOLS3],
				 const uint8_t *end[NCOLS3], uint32_t nkeys, uint32_t nstats,
				 uint32_t nrounds)
{
	const uint8_t *ps = col[C_SHAPE], *es = end[C_SHAPE], *pv = col[C_VAL], *ev = end[C_VAL];
	const uint32_t *skip = d->want_fn ? d->skip : NULL;
	uint64_t step = 0, x, dstep, drun, a;
	uint32_t k = UINT32_MAX, i = 0;
	const char *why = decode_rounds(d, col, end, nkeys, nstats, nrounds);
	bool pext = false;

#ifdef PMT_UV_PEXT
	pext = uv_pext_fast();
#endif
	if (why)
		return why;
	for (;;) {
		uint32_t first = k + 1;

		if (!(ps = get_uv(ps, es, &x)))
			return "its shape column is short";
		if (x > nstats - i)
			return "its shape column holds more records than the frame";
		if (x && (first >= nkeys || x > nkeys - first))
			return "a record names a key it does not list";
		if (x && !(pv = shaped_usual(d, pv, ev, step, first, (uint32_t)x, i, pext)))
			return "a value column is short or has a varint over 10 bytes";
		i += (uint32_t)x;
		k += (uint32_t)x;
		if (i == nstats)
			break;
		if (!(ps = get_uv(ps, es, &x)) || !(ps = get_uv(ps, es, &dstep)) ||
		    !(ps = get_uv(ps, es, &drun)))
			return "its shape column is short";
		k = (uint32_t)(k + 1 + unzz(x));
		if (k >= nkeys)
			return "a record names a key it does not list";
		step += unzz(dstep);
		d->key[i] = k;
		if (skip && skip[k]) {
			if (!(pv = skip_uv(pv, ev, 1)))
				return "a value column is short or has a varint over 10 bytes";
		} else {
			uint64_t *l = &d->last[3 * (size_t)k];

			if (!(pv = get_uv(pv, ev, &a)))
				return "a value column is short or has a varint over 10 bytes";
			d->v[0][i] = l[0] += unzz(a);
			d->v[1][i] = l[1] += step;
			d->v[2][i] = l[2] += step + unzz(drun);
		}
		i++;
	}
	if (ps != es || pv != ev)
		return "a column holds more than its records";
	for (int c = 0; c < C_SHAPE; c++)
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
	bool mixed, shaped;
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
	shaped = pmt_le32(c + 8) == COUNTS_SHAPED;
	ncols = mixed ? NCOLS2 : shaped ? NCOLS3 : NCOLS;
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
	zstd_checksum(d, false);
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
	if ((*why = (shaped ? decode_shaped : decode_cols)(d, col, end, nkeys, nstats, nrounds)))
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
	zstd_checksum(d, true);
	got = ZSTD_decompressDCtx(d->dctx, d->raw, stream_size, b + offset, zlen);
	if (ZSTD_isError(got) || got != stream_size)
		return *why = "its data frame does not decompress to its size", -PMT_ECORRUPT;
	/* the shape a writer gives a counts frame (a version 2 one when other records are
	 * there): their runs become gaps, as the gap column says them */
	if (!ctr_counts_shape(d->raw, stream_size, true, &sh))
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
