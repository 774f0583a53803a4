/* Frames without their frame info: the data frame a file ends inside (a killed recording,
 * a copy cut short), whose info would have come after it, is known only by decompressing
 * what is there, as `zstd -dc` does, and walking the records; a whole frame whose info is
 * missing, by walking the records the reader gave. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pmutrace/spe.h"

#include "columns.h"
#include "frame_info.h"
#include "reader.h"

#define PIPE_HEADER 16
#define REC_AUXTRACE 71
#define AUXTRACE_HDR 48
#define OUT_STEP (256u << 10)

/* Stream what the file holds of the frame at `at` into *out (grown as needed, bounded by
 * FRAME_MAX); want: stop once that many bytes came out (0: all). Returns the bytes decoded,
 * or -PMT_ENOMEM; *zerr is zstd's word when it stopped on an error. */
static long long stream_frame(const uint8_t *src, size_t n, size_t want, uint8_t **out,
			      size_t *cap, const char **zerr)
{
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	ZSTD_inBuffer in = { src, n, 0 };
	size_t got = 0;

	if (!dctx)
		return -PMT_ENOMEM;
	*zerr = NULL;
	while (in.pos < in.size && (!want || got < want) && got < FRAME_MAX) {
		ZSTD_outBuffer o;
		size_t rc, before = in.pos;

		if (got == *cap) {
			size_t c = *cap + OUT_STEP;
			uint8_t *v = realloc(*out, c);

			if (!v) {
				ZSTD_freeDCtx(dctx);
				return -PMT_ENOMEM;
			}
			*out = v;
			*cap = c;
		}
		o = (ZSTD_outBuffer){ *out + got, (want && want - got < *cap - got ? want - got
								: *cap - got), 0 };
		rc = ZSTD_decompressStream(dctx, &o, &in);
		got += o.pos;
		if (ZSTD_isError(rc)) {
			*zerr = ZSTD_getErrorName(rc);
			break;
		}
		if (rc == 0 || (!o.pos && in.pos == before))
			break; /* the frame's end (not expected here), or no progress */
	}
	ZSTD_freeDCtx(dctx);
	return (long long)got;
}

/* The byte order of the trace: the pipe header at the start of the first data frame */
static int trace_swapped(const struct pmt_ctr_reader *r)
{
	for (size_t at = 0; at + 8 <= r->len;) {
		uint32_t magic = pmt_le32(r->buf + at);
		uint8_t *head = NULL;
		size_t cap = 0;
		const char *zerr;
		int swap = -1;

		if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
			at += 8 + (size_t)pmt_le32(r->buf + at + 4);
			continue;
		}
		if (magic != ZSTD_MAGIC)
			return -1;
		if (stream_frame(r->buf + at, r->len - at, PIPE_HEADER, &head, &cap, &zerr) ==
		    PIPE_HEADER)
			swap = !memcmp(head, "PERFILE2", 8) ? 0 : !memcmp(head, "2ELIFREP", 8) ? 1 : -1;
		free(head);
		return swap;
	}
	return -1;
}

static uint64_t rd(int swap, const uint8_t *p, int n)
{
	uint64_t v = n == 2 ? pmt_le16(p) : n == 4 ? pmt_le32(p) : pmt_le64(p);

	if (swap)
		v = n == 2 ? (uint16_t)__builtin_bswap16((uint16_t)v)
		    : n == 4 ? __builtin_bswap32((uint32_t)v) : __builtin_bswap64(v);
	return v;
}

/* Where the whole records of p[0..n) end, and what the record after them is */
static size_t walk_records(struct pmt_ctr_cut *c, const uint8_t *p, size_t n, size_t at,
			   int swap)
{
	while (at < n) {
		const uint8_t *h = p + at;
		size_t left = n - at;
		uint64_t size, aux = 0;
		uint32_t type;

		if (left < 8) {
			c->where = PMT_CTR_CUT_IN_HEADER;
			c->cut_have = left;
			return at;
		}
		type = (uint32_t)rd(swap, h, 4);
		size = rd(swap, h + 6, 2);
		if (size < 8)
			return at; /* no record: the walk cannot go on (fi says unparsed) */
		if (type == REC_AUXTRACE && size >= AUXTRACE_HDR && left >= AUXTRACE_HDR)
			aux = rd(swap, h + 8, 8);
		if (left < size || (type == REC_AUXTRACE && left < AUXTRACE_HDR)) {
			/* an AUXTRACE record's fields (offset, cpu) are its header */
			c->where = type == REC_AUXTRACE ? PMT_CTR_CUT_IN_HEADER : PMT_CTR_CUT_IN_RECORD;
			c->cut_type = type;
			c->cut_size = type == REC_AUXTRACE ? 0 : size;
			c->cut_have = left;
			return at;
		}
		if (aux > left - size) {
			struct pmt_spe_scan s;

			c->where = PMT_CTR_CUT_IN_AUX;
			c->cut_type = type;
			c->cut_size = size + aux;
			c->cut_have = left;
			c->cut_aux = (struct pmt_ctr_aux_range){
				.cpu = (uint32_t)rd(swap, h + 40, 4), .idx = (uint32_t)rd(swap, h + 32, 4),
				.first = rd(swap, h + 16, 8), .records = 1 };
			c->cut_aux.end = c->cut_aux.first + aux;
			c->cut_aux_have = left - size;
			pmt_spe_scan(h + size, (size_t)(left - size), 0, &s);
			c->cut_timed = s.timed;
			c->cut_ts_lo = s.ts_lo;
			c->cut_ts_hi = s.ts_hi;
			return at;
		}
		at += size + aux;
	}
	return at;
}

/* The records of a whole data frame into acc (reset here), as the writer walked them: the
 * first frame starts with the pipe header, the others go on in its byte order */
static void walk_frame(const struct pmt_ctr_reader *r, struct finfo_acc *acc, const uint8_t *p,
		       size_t n)
{
	finfo_reset(acc);
	if (!(n >= PIPE_HEADER && (!memcmp(p, "PERFILE2", 8) || !memcmp(p, "2ELIFREP", 8)))) {
		int swap = trace_swapped(r);

		acc->started = 1;
		acc->swap = (uint8_t)(swap == 1);
		if (swap < 0) {
			acc->unknown = 1;
			acc->cur.flags |= PMT_CTR_FI_UNPARSED;
		}
	}
	finfo_add(acc, p, n);
}

/* A column frame the file ends inside: nothing of it can be rebuilt, so what it held is
 * all lost; its first part lists the records when it is whole. */
static int cut_columns(const struct pmt_ctr_reader *r, struct pmt_ctr_cut *out)
{
	const uint8_t *in = r->buf + out->offset + 8;
	size_t n = out->file_bytes > 8 ? (size_t)out->file_bytes - 8 : 0, len;
	uint64_t total;
	uint8_t *recs;
	struct finfo_acc *acc;
	int rc = ctr_columns_cut(in, n, &total, &out->parts, &out->parts_whole, &recs, &len);

	out->columns = 1;
	out->content_size = out->parts ? total : PMT_CTR_NO_OFFSET;
	out->fi.index = out->index;
	out->fi.offset = out->offset;
	out->fi.stream_offset = out->stream_offset;
	if (rc <= 0)
		return rc < 0 ? rc : 1;
	acc = calloc(1, sizeof(*acc));
	if (!acc) {
		free(recs);
		return -PMT_ENOMEM;
	}
	walk_frame(r, acc, recs, len);
	out->listed = 1;
	out->lost = acc->cur;
	/* the zeros stand for bytes the columns held: no SPE times can come of them */
	out->lost.flags &= ~(uint32_t)PMT_CTR_FI_TIMED;
	out->lost.index = out->index;
	out->lost.offset = out->offset;
	out->lost.stream_offset = out->stream_offset;
	out->lost.stream_size = (uint32_t)len;
	free(acc);
	free(recs);
	return 1;
}

int pmt_ctr_cut_frame(const struct pmt_ctr_reader *r, struct pmt_ctr_cut *out)
{
	const struct pmt_ctr_stats *st = &r->st;
	uint8_t *data = NULL;
	size_t cap = 0, at = 0;
	unsigned long long cs;
	struct finfo_acc *acc;
	long long got;
	int swap;

	memset(out, 0, sizeof(*out));
	if (!st->cut_frame || st->cut_offset >= r->len)
		return 0;
	out->index = st->cut_index;
	out->offset = st->cut_offset;
	out->file_bytes = r->len - st->cut_offset;
	out->stream_offset = st->cut_stream_offset;
	if (out->file_bytes >= 4 && pmt_le32(r->buf + st->cut_offset) == SKIP_COLUMNS)
		return cut_columns(r, out);
	cs = ZSTD_getFrameContentSize(r->buf + st->cut_offset, (size_t)out->file_bytes);
	out->content_size = cs == ZSTD_CONTENTSIZE_UNKNOWN || cs == ZSTD_CONTENTSIZE_ERROR
				    ? PMT_CTR_NO_OFFSET : cs;
	got = stream_frame(r->buf + st->cut_offset, (size_t)out->file_bytes, 0, &data, &cap,
			   &out->zerr);
	acc = calloc(1, sizeof(*acc));
	if (got < 0 || !acc) {
		free(data);
		free(acc);
		return -PMT_ENOMEM;
	}
	out->decoded = (uint64_t)got;
	finfo_reset(acc);
	acc->cur.index = out->index;
	if (out->decoded >= PIPE_HEADER && (!memcmp(data, "PERFILE2", 8) ||
					    !memcmp(data, "2ELIFREP", 8))) {
		swap = data[0] == '2';
		at = PIPE_HEADER;
	} else {
		/* not the first frame: the records go on in the first frame's byte order */
		swap = trace_swapped(r);
		acc->started = 1;
		acc->swap = (uint8_t)(swap == 1);
		if (swap < 0) {
			acc->unknown = 1;
			acc->cur.flags |= PMT_CTR_FI_UNPARSED;
		}
	}
	if (swap >= 0) {
		out->whole = walk_records(out, data, (size_t)out->decoded, at, swap);
		finfo_add(acc, data, (size_t)out->whole);
	}
	out->fi = acc->cur;
	out->fi.offset = out->offset;
	out->fi.stream_offset = out->stream_offset;
	out->fi.stream_size = (uint32_t)out->whole;
	free(acc);
	free(data);
	return 1;
}

int pmt_ctr_frame_describe(const struct pmt_ctr_reader *r, const struct pmt_ctr_frame *f,
			   struct pmt_ctr_frame_info *out)
{
	struct finfo_acc *acc;

	if (!r || !f || !out || (!f->data && f->size))
		return -PMT_EINVAL;
	acc = calloc(1, sizeof(*acc));
	if (!acc)
		return -PMT_ENOMEM;
	walk_frame(r, acc, f->data, f->size);
	*out = acc->cur;
	out->index = f->index;
	out->offset = f->offset;
	out->size = f->csize;
	out->stream_offset = f->stream_offset;
	out->stream_size = (uint32_t)f->size;
	free(acc);
	return 0;
}
