/* perf.data record framing: one record at a time from the mapped file or the pipe window,
 * COMPRESSED records expanded in place with one continuous decompression stream, and
 * resynchronisation after a damaged record header (mapped files only). */
#include "source_priv.h"

/* ---- iteration -------------------------------------------------------------------------- */
static int comp_setup(struct pmt_source *s, const uint8_t *r, size_t size, uint64_t off)
{
	uint32_t type = rd32(s, r);
	size_t hdr = 8, len = size - 8;

	if (type == PMT_REC_COMPRESSED2) {
		uint64_t dsz;

		if (size < 16)
			return -PMT_ECORRUPT;
		dsz = rd64(s, r + 8);
		hdr = 16;
		if (dsz > size - 16)
			return -PMT_ECORRUPT;
		len = (size_t)dsz;
	}
	if (!s->dctx) {
		s->dctx = ZSTD_createDCtx();
		if (!s->dctx)
			return -PMT_ENOMEM;
	}
	s->zin = r + hdr;
	s->zin_len = len;
	s->zin_pos = 0;
	s->zrec_off = off;
	s->in_comp = true;
	return 0;
}

static void comp_abort(struct pmt_source *s)
{
	s->zin_pos = s->zin_len;
	s->dlen = s->dpos = 0;
	s->in_comp = false;
	if (s->dctx)
		ZSTD_DCtx_reset(s->dctx, ZSTD_reset_session_only);
}

static int comp_next(struct pmt_source *s, struct pmt_trace_event *ev)
{
	for (;;) {
		size_t avail = s->dlen - s->dpos, need = 8;

		if (avail >= 8) {
			const uint8_t *r = s->dbuf + s->dpos;
			uint32_t size = rd16(s, r + 6), type = rd32(s, r);

			need = size;
			if (size < 8) {
				s->cur_off = s->zrec_off;
				src_error(s, -PMT_ECORRUPT, s->zrec_off, "record of size %u inside COMPRESSED record at 0x%llx",
					  size, (unsigned long long)s->zrec_off);
				comp_abort(s);
				return -PMT_ECORRUPT;
			}
			if (type == PMT_REC_AUXTRACE && size >= 48) {
				uint64_t psz = rd64(s, r + 8);

				if (psz > ZMAX_RECORD) {
					s->cur_off = s->zrec_off;
					src_error(s, -PMT_ECORRUPT, s->zrec_off, "compressed AUXTRACE of %llu bytes at 0x%llx",
						  (unsigned long long)psz,
						  (unsigned long long)s->zrec_off);
					comp_abort(s);
					return -PMT_ECORRUPT;
				}
				need += (size_t)psz;
			}
			if (avail >= need) {
				int rc;

				s->cur_off = s->zrec_off;
				rc = pd_decode_record(s, r, size, s->zrec_off, need - size, ev);
				s->dpos += need;
				return rc;
			}
		}
		if (s->zin_pos >= s->zin_len) {
			/* a record may continue in the next COMPRESSED record: keep the tail */
			s->in_comp = false;
			return -PMT_EEOS;
		}
		if (s->dpos) {
			memmove(s->dbuf, s->dbuf + s->dpos, avail);
			s->dlen = avail;
			s->dpos = 0;
		}
		if (s->dcap < need + ZCHUNK) {
			uint8_t *nb = realloc(s->dbuf, need + ZCHUNK);

			if (!nb)
				return -PMT_ENOMEM;
			s->dbuf = nb;
			s->dcap = need + ZCHUNK;
		}
		{
			ZSTD_outBuffer out = { s->dbuf, s->dcap, s->dlen };
			ZSTD_inBuffer in = { s->zin, s->zin_len, s->zin_pos };
			size_t zr = ZSTD_decompressStream(s->dctx, &out, &in);

			if (ZSTD_isError(zr)) {
				s->cur_off = s->zrec_off;
				src_error(s, -PMT_ECOMPRESS, s->zrec_off, "zstd error in COMPRESSED record at 0x%llx: %s",
					  (unsigned long long)s->zrec_off, ZSTD_getErrorName(zr));
				comp_abort(s);
				return -PMT_ECOMPRESS;
			}
			if (out.pos == s->dlen && in.pos == s->zin_pos)
				in.pos = s->zin_len; /* no progress: treat the input as spent */
			s->dlen = out.pos;
			s->zin_pos = in.pos;
		}
	}
}

/* Length of a plausible record (payload included) at `pos`, or 0. */
static uint64_t plausible(const struct pmt_source *s, uint64_t pos)
{
	const uint8_t *r = s->buf + pos;
	uint32_t type, size;
	uint64_t len;

	if (s->data_end - pos < 8)
		return 0;
	type = rd32(s, r);
	size = rd16(s, r + 6);
	if (!((type >= 1 && type <= 21) || (type >= 64 && type <= 83)) || size < 8 ||
	    (size % 8 && type != PMT_REC_COMPRESSED))
		return 0;
	len = size;
	if (type == PMT_REC_AUXTRACE) {
		uint64_t payload;

		if (size != 48 || s->data_end - pos < 48)
			return 0;
		payload = rd64(s, r + 8);
		if (payload % 8 || payload > s->data_end - pos - 48)
			return 0;
		len += payload;
	}
	return len <= s->data_end - pos ? len : 0;
}

/* First offset >= from (8-byte steps, as records keep that alignment) where two plausible
 * records follow each other, or one ends exactly at the end of the data. */
static uint64_t resync(const struct pmt_source *s, uint64_t from)
{
	for (uint64_t p = from; p + 8 <= s->data_end; p += 8) {
		uint64_t len = plausible(s, p);

		if (len && (p + len == s->data_end || plausible(s, p + len)))
			return p;
	}
	return s->data_end;
}

/* The record at s->pos, of which `have` bytes (payload included) are present: decode it,
 * or set a COMPRESSED record up for expansion (returns 1: read on from its contents). */
static int take_record(struct pmt_source *s, const uint8_t *r, uint64_t have,
		       struct pmt_trace_event *ev)
{
	uint32_t type = rd32(s, r), size = rd16(s, r + 6);
	uint64_t payload = 0, left;
	int rc;

	if (size > have) {
		s->done = true;
		src_error(s, -PMT_ENEED_MORE, s->pos, "record at 0x%llx (type %u, size %u) truncated at 0x%llx",
			  (unsigned long long)s->pos, type, size,
			  (unsigned long long)(s->pos + have));
		return -PMT_ENEED_MORE;
	}
	if (type == PMT_REC_COMPRESSED || type == PMT_REC_COMPRESSED2) {
		uint64_t at = s->pos;

		/* zin points into the input; a pipe's window is not refilled until the
		 * expansion is done */
		s->pos += size;
		rc = comp_setup(s, r, size, at);
		if (rc < 0) {
			src_error(s, rc, at, "bad COMPRESSED record at 0x%llx", (unsigned long long)at);
			return rc;
		}
		return 1;
	}
	left = have - size;
	if (type == PMT_REC_AUXTRACE && size >= 48)
		payload = rd64(s, r + 8);
	rc = pd_decode_record(s, r, size, s->pos, (size_t)(payload < left ? payload : left), ev);
	if (payload > left) {
		s->done = true;
		payload = left;
	}
	s->pos += size + payload;
	return rc;
}

/* The input from stream offset pos on: *p and how many bytes are there (at least n unless
 * the input ends earlier). A mapped file has every byte already; a pipe's window is
 * filled up to pos + n. Returns 0 or a read error. */
static int input_at(struct pmt_source *s, uint64_t pos, uint64_t n, const uint8_t **p,
		    uint64_t *have)
{
	if (s->stream) {
		int rc = pd_stream_fill(s, pos + n);

		if (rc < 0 && rc != -PMT_ENEED_MORE)
			return rc;
		*p = pd_win(s) + (pos - s->win_base);
		*have = s->win_base + s->win_len - pos;
		return 0;
	}
	*p = s->buf + pos;
	*have = pos < s->data_end ? s->data_end - pos : 0;
	return 0;
}

/* One record loop for mapped files and pipes: they differ only in how bytes arrive and in
 * what a damaged record size allows (a file can be searched for the next record, a pipe
 * cannot). */
int pmt_source_next(struct pmt_source *s, struct pmt_trace_event *ev)
{
	for (;;) {
		const uint8_t *r;
		uint64_t have, payload = 0;
		uint32_t type, size;
		int rc;

		if (s->in_comp) {
			rc = comp_next(s, ev);
			if (rc != -PMT_EEOS)
				return rc;
		}
		if (s->done)
			return -PMT_EEOS;
		rc = pd_ctr_frame_start(s);
		if (rc < 0) {
			s->done = true;
			return rc;
		}
		s->cur_off = s->pos;
		pd_drop_behind(s);
		rc = input_at(s, s->pos, 8, &r, &have);
		if (rc < 0 || have < 8) {
			s->done = true;
			if (rc < 0)
				return rc;
			if (!have)
				return -PMT_EEOS;
			src_error(s, -PMT_ENEED_MORE, s->pos, "truncated record header at 0x%llx", (unsigned long long)s->pos);
			return -PMT_ENEED_MORE;
		}
		type = rd32(s, r);
		size = rd16(s, r + 6);
		if (size < 8 && s->stream) {
			s->done = true;
			src_error(s, -PMT_ECORRUPT, s->pos, "record at 0x%llx has size %u; a pipe cannot be searched for the "
				  "next record, stopping", (unsigned long long)s->pos, size);
			return -PMT_ECORRUPT;
		}
		if (size < 8) {
			uint64_t at = s->pos;

			/* nothing says where the next record starts: look for one further on
			 * rather than lose the rest of the file (or loop on this one) */
			s->pos = resync(s, at + 8);
			src_error(s, -PMT_ECORRUPT, at, "record at 0x%llx has size %u; %s 0x%llx",
				  (unsigned long long)at, size,
				  s->pos < s->data_end ? "resuming at" : "nothing readable up to",
				  (unsigned long long)s->pos);
			return -PMT_ECORRUPT;
		}
		if (s->stream && type == PMT_REC_AUXTRACE && size >= 48) {
			/* a pipe must hold the whole payload before the record is decoded */
			rc = input_at(s, s->pos, 16, &r, &have);
			payload = rc < 0 || have < 16 ? 0 : rd64(s, r + 8);
			if (payload > STREAM_RECORD_MAX) {
				s->done = true;
				src_error(s, -PMT_ECORRUPT, s->pos, "AUXTRACE at 0x%llx announces %llu bytes; stopping",
					  (unsigned long long)s->pos, (unsigned long long)payload);
				return -PMT_ECORRUPT;
			}
		}
		rc = input_at(s, s->pos, size + payload, &r, &have);
		if (rc < 0) {
			s->done = true;
			return rc;
		}
		rc = take_record(s, r, have, ev);
		if (rc != 1)
			return rc;
	}
}
