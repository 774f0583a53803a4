/* Column frames (FORMAT.md): the records of a data frame with the bytes of their AUXTRACE
 * records split into SPE columns (formats/spe), every part its own checksummed zstd frame
 * inside one skippable frame. zstd -dc skips it, so a file with column frames is not for
 * perf through zstd; pmutrace reads it as any data frame. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pmutrace/container.h"
#include "pmutrace/spe.h"

#include "columns.h"
#include "reader.h"

#define REC_AUXTRACE 71
#define AUXTRACE_HDR 48 /* header, size, offset, reference, idx, tid, cpu, reserved */
#define NPARTS (1 + PMT_SPE_COLS) /* the records without their AUX bytes, then the columns */
#define HEAD (8 + 4 + 4 + 8 + 8 * NPARTS)

/* the AUX bytes that follow an AUXTRACE record at rec[at], or 0 for another record; -1
 * when the record does not fit */
static int64_t aux_after(const uint8_t *rec, size_t len, size_t at, size_t *rsize)
{
	uint64_t aux;

	if (len - at < 8)
		return -1;
	*rsize = pmt_le16(rec + at + 6);
	if (*rsize < 8 || *rsize > len - at)
		return -1;
	if (pmt_le32(rec + at) != REC_AUXTRACE)
		return 0;
	if (*rsize < AUXTRACE_HDR)
		return -1;
	aux = pmt_le64(rec + at + 8);
	return aux > len - at - *rsize ? -1 : (int64_t)aux;
}

int ctr_columns_encode(const uint8_t *rec, size_t len, int level, uint8_t **out,
		       size_t *out_len)
{
	struct pmt_spe_columns c;
	struct pmt_buf skel = { 0 };
	const struct pmt_buf *part[NPARTS];
	size_t at = 0, rsize, total = HEAD, o = HEAD;
	uint64_t auxbytes = 0;
	uint8_t *buf;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	while (at < len) {
		int64_t aux = aux_after(rec, len, at, &rsize);

		if (aux < 0) { /* records the writer did not frame: leave them as they are */
			rc = 1;
			break;
		}
		/* the record itself into the skeleton, its AUX bytes into the columns */
		if ((rc = pmt_buf_append(&skel, rec + at, rsize)) < 0)
			break;
		if (aux && (rc = pmt_spe_columns_put(&c, rec + at + rsize, (size_t)aux)) < 0)
			break;
		auxbytes += (uint64_t)aux;
		at += rsize + (size_t)aux;
	}
	if (rc == 0 && !auxbytes)
		rc = 1;
	if (rc) {
		pmt_buf_fini(&skel);
		pmt_spe_columns_fini(&c);
		return rc;
	}
	part[0] = &skel;
	for (int i = 0; i < PMT_SPE_COLS; i++)
		part[1 + i] = &c.col[i].buf;
	for (int i = 0; i < NPARTS; i++)
		total += ZSTD_compressBound(part[i]->len);
	buf = malloc(total);
	if (!buf) {
		pmt_buf_fini(&skel);
		pmt_spe_columns_fini(&c);
		return -PMT_ENOMEM;
	}
	memcpy(buf, "PMTCOLS", 8);
	pmt_put_le32(buf + 8, 1);
	pmt_put_le32(buf + 12, NPARTS);
	pmt_put_le64(buf + 16, len);
	{
		ZSTD_CCtx *z = ZSTD_createCCtx();

		if (!z)
			rc = -PMT_ENOMEM;
		else {
			ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, level);
			ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1);
		}
		for (int i = 0; rc == 0 && i < NPARTS; i++) {
			static const uint8_t none;
			size_t r = ZSTD_compress2(z, buf + o, total - o,
						  part[i]->data ? (const void *)part[i]->data : &none,
						  part[i]->len);

			if (ZSTD_isError(r)) {
				rc = -PMT_ECOMPRESS;
				break;
			}
			pmt_put_le32(buf + 24 + 8 * i, (uint32_t)part[i]->len);
			pmt_put_le32(buf + 24 + 8 * i + 4, (uint32_t)r);
			o += r;
		}
		ZSTD_freeCCtx(z);
	}
	pmt_buf_fini(&skel);
	pmt_spe_columns_fini(&c);
	if (rc) {
		free(buf);
		return rc;
	}
	*out = buf;
	*out_len = o;
	return 0;
}

int ctr_columns_decode(const uint8_t *in, size_t n, size_t max, uint8_t **buf, size_t *cap,
		       size_t *len, const char **why)
{
	struct pmt_spe_columns c;
	struct pmt_buf skel = { 0 };
	struct pmt_buf *part[NPARTS];
	uint64_t total;
	size_t o = HEAD, at = 0, w = 0, rsize;
	int rc = 0;

	*why = NULL;
	if (n < HEAD || memcmp(in, "PMTCOLS", 8) || pmt_le32(in + 8) != 1 ||
	    pmt_le32(in + 12) != NPARTS) {
		*why = "not a column frame of version 1";
		return -PMT_ECORRUPT;
	}
	total = pmt_le64(in + 16);
	if (total > max) {
		*why = "announces more than 1 GiB";
		return -PMT_ECORRUPT;
	}
	memset(&c, 0, sizeof(c));
	part[0] = &skel;
	for (int i = 0; i < PMT_SPE_COLS; i++)
		part[1 + i] = &c.col[i].buf;
	for (int i = 0; i < NPARTS && rc == 0; i++) {
		size_t usize = pmt_le32(in + 24 + 8 * i), csize = pmt_le32(in + 24 + 8 * i + 4), r;

		if (csize > n - o || usize > 2 * total + 65536) {
			*why = "a part runs past the frame";
			rc = -PMT_ECORRUPT;
			break;
		}
		if (pmt_buf_reserve(part[i], usize ? usize : 1) < 0) {
			rc = -PMT_ENOMEM;
			break;
		}
		r = ZSTD_decompress(part[i]->data, usize, in + o, csize);
		if (ZSTD_isError(r) || r != usize) {
			*why = ZSTD_isError(r) ? ZSTD_getErrorName(r) : "a part is short";
			rc = -PMT_ECORRUPT;
			break;
		}
		part[i]->len = usize;
		o += csize;
	}
	if (rc == 0 && *cap < total) {
		uint8_t *b = realloc(*buf, total ? total : 1);

		if (!b)
			rc = -PMT_ENOMEM;
		else {
			*buf = b;
			*cap = total;
		}
	}
	/* the records again, each AUXTRACE record followed by its bytes from the columns */
	while (rc == 0 && at < skel.len) {
		int64_t aux;

		if (skel.len - at < 8 || (rsize = pmt_le16(skel.data + at + 6)) < 8 ||
		    rsize > skel.len - at || rsize > total - w) {
			*why = "a record of the frame is damaged";
			rc = -PMT_ECORRUPT;
			break;
		}
		aux = pmt_le32(skel.data + at) == REC_AUXTRACE && rsize >= AUXTRACE_HDR
			      ? (int64_t)pmt_le64(skel.data + at + 8) : 0;
		memcpy(*buf + w, skel.data + at, rsize);
		w += rsize;
		at += rsize;
		if (aux && ((uint64_t)aux > total - w ||
			    pmt_spe_columns_get(&c, *buf + w, (size_t)aux) < 0)) {
			*why = "the AUX columns do not hold the frame's AUX bytes";
			rc = -PMT_ECORRUPT;
			break;
		}
		w += (size_t)aux;
	}
	if (rc == 0 && w != total) {
		*why = "the records are short of the frame's size";
		rc = -PMT_ECORRUPT;
	}
	pmt_buf_fini(&skel);
	pmt_spe_columns_fini(&c);
	if (rc == 0)
		*len = w;
	return rc;
}

int ctr_columns_cut(const uint8_t *in, size_t n, uint64_t *total, uint32_t *parts,
		    uint32_t *whole, uint8_t **buf, size_t *len)
{
	size_t o = HEAD, usize, csize, at = 0, w = 0, rsize;
	uint8_t *skel, *out;

	*total = 0;
	*parts = *whole = 0;
	*buf = NULL;
	*len = 0;
	if (n < HEAD || memcmp(in, "PMTCOLS", 8) || pmt_le32(in + 8) != 1 ||
	    pmt_le32(in + 12) != NPARTS)
		return 0;
	*total = pmt_le64(in + 16);
	*parts = NPARTS;
	for (int i = 0; i < NPARTS; i++) {
		csize = pmt_le32(in + 24 + 8 * i + 4);
		if (csize > n - o)
			break;
		o += csize;
		(*whole)++;
	}
	usize = pmt_le32(in + 24);
	csize = pmt_le32(in + 28);
	if (!*whole || usize > *total || *total > FRAME_MAX)
		return 0;
	skel = malloc(usize ? usize : 1);
	out = malloc(*total ? (size_t)*total : 1);
	if (!skel || !out) {
		free(skel);
		free(out);
		return -PMT_ENOMEM;
	}
	if (ZSTD_decompress(skel, usize, in + HEAD, csize) != usize) {
		free(skel);
		free(out);
		return 0;
	}
	while (at + 8 <= usize && (rsize = pmt_le16(skel + at + 6)) >= 8 && rsize <= usize - at &&
	       rsize <= *total - w) {
		uint64_t aux = pmt_le32(skel + at) == REC_AUXTRACE && rsize >= AUXTRACE_HDR
				       ? pmt_le64(skel + at + 8) : 0;

		memcpy(out + w, skel + at, rsize);
		w += rsize;
		at += rsize;
		if (aux > *total - w)
			break;
		memset(out + w, 0, (size_t)aux);
		w += (size_t)aux;
	}
	free(skel);
	*buf = out;
	*len = w;
	return 1;
}
