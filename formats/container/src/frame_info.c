/* Frame info: the writer walks the records it is given (and the SPE packets of their AUX
 * bytes, for the timestamps) so that a reader can tell, without decompressing a frame,
 * which CPUs and which time range it holds. */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/spe.h"

#include "frame_info.h"

#define PIPE_HEADER 16
#define REC_AUX 11
#define REC_ITRACE_START 12
#define REC_FINISHED_ROUND 68
#define REC_AUXTRACE 71
#define AUXTRACE_HDR 48 /* header, size, offset, reference, idx, tid, cpu, reserved */

static uint64_t rd(const struct finfo_acc *a, const uint8_t *p, int n)
{
	uint64_t v = n == 2 ? pmt_le16(p) : n == 4 ? pmt_le32(p) : pmt_le64(p);

	if (a->swap)
		v = n == 2 ? (uint16_t)__builtin_bswap16((uint16_t)v)
		    : n == 4 ? __builtin_bswap32((uint32_t)v) : __builtin_bswap64(v);
	return v;
}

/* An AUXTRACE record's place in its AUX stream (header fields: offset at 16, idx at 32) */
static void note_aux(struct finfo_acc *a, const uint8_t *hdr, uint32_t cpu, uint64_t size)
{
	struct pmt_ctr_frame_info *cur = &a->cur;
	uint64_t off = rd(a, hdr + 16, 8);
	uint32_t idx = (uint32_t)rd(a, hdr + 32, 4);
	struct pmt_ctr_aux_range *r = NULL;

	for (uint32_t i = 0; i < cur->aux_n; i++) {
		if (cur->aux[i].cpu == cpu && cur->aux[i].idx == idx) {
			r = &cur->aux[i];
			break;
		}
	}
	if (!r) {
		if (cur->aux_n == PMT_CTR_AUX_RANGES) {
			cur->aux_state = PMT_CTR_AUX_PARTIAL;
			return;
		}
		r = &cur->aux[cur->aux_n++];
		*r = (struct pmt_ctr_aux_range){ .cpu = cpu, .idx = idx, .first = off, .end = off };
		if (cur->aux_state == PMT_CTR_AUX_UNKNOWN)
			cur->aux_state = PMT_CTR_AUX_LISTED;
	}
	r->gaps += r->records && off != r->end;
	r->records++;
	r->end = off + size;
}

void finfo_reset(struct finfo_acc *a)
{
	uint32_t index = a->cur.index;

	memset(&a->cur, 0, sizeof(a->cur));
	a->cur.index = index;
	a->cur.cpu_lo = UINT32_MAX;
	if (a->unknown)
		a->cur.flags |= PMT_CTR_FI_UNPARSED;
}

static void note_range(struct pmt_ctr_frame_info *cur, uint64_t lo, uint64_t hi)
{
	if (!(cur->flags & PMT_CTR_FI_TIMED) || lo < cur->ts_lo)
		cur->ts_lo = lo;
	if (!(cur->flags & PMT_CTR_FI_TIMED) || hi > cur->ts_hi)
		cur->ts_hi = hi;
	cur->flags |= PMT_CTR_FI_TIMED;
}

/* The SPE records of one CPU's AUX bytes: their timestamps, and whether the bytes start or
 * end inside a record (the decoder joins a CPU's chunks, so such a record spans frames).
 * This runs over every AUX byte, so it is spe's header scan, not its decoder. Alignment
 * pads are measured from the chunk's start, as the walk before it did. */
void finfo_chunk_scan(struct finfo_chunk *c, const uint8_t *base)
{
	struct pmt_spe_scan s;

	pmt_spe_scan(base + c->off, c->len, 0, &s);
	c->first = s.first;
	c->open_out = s.open_out;
	c->untimed = s.untimed;
	c->timed = s.timed;
	c->ts_lo = s.ts_lo;
	c->ts_hi = s.ts_hi;
}

void finfo_chunk_apply(uint64_t *open, struct pmt_ctr_frame_info *cur,
		       const struct finfo_chunk *c)
{
	uint64_t bit = 1ull << (c->cpu % 64), *word = &open[c->cpu / 64];
	int was_open = (*word & bit) != 0, now_open;

	if (was_open)
		cur->cont_mask |= bit;
	if (c->split) {
		/* a packet cut at the first piece's end would be decoded from its middle in
		 * the second, so they are not scanned: times unknown, the CPU's record open,
		 * which makes slices read the frame and its neighbour */
		cur->flags |= PMT_CTR_FI_UNTIMED;
		*word |= bit;
		return;
	}
	if (c->timed)
		note_range(cur, c->ts_lo, c->ts_hi);
	if (c->untimed || (c->first == CHUNK_END_FIRST && was_open))
		cur->flags |= PMT_CTR_FI_UNTIMED;
	now_open = c->first == CHUNK_NO_EVENT ? was_open : c->open_out;
	if (now_open)
		*word |= bit;
	else
		*word &= ~bit;
}

/* Scanned now, or noted for a compression thread (finfo_acc.defer) */
static void scan_aux(struct finfo_acc *a, uint32_t cpu, const uint8_t *p, size_t n, int split)
{
	struct finfo_chunks *d = a->defer;
	struct finfo_chunk c = { .cpu = cpu, .split = (uint8_t)split };

	if (!d) {
		c.len = split ? 0 : n;
		if (!split)
			finfo_chunk_scan(&c, p);
		finfo_chunk_apply(a->open, &a->cur, &c);
		return;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;
		struct finfo_chunk *v = realloc(d->v, cap * sizeof(*v));

		if (!v) {
			d->err = -PMT_ENOMEM;
			return;
		}
		d->v = v;
		d->cap = cap;
	}
	c.off = split ? 0 : (size_t)(p - d->base);
	c.len = split ? 0 : n;
	d->v[d->n++] = c;
}

void finfo_add(struct finfo_acc *a, const uint8_t *rec, size_t len)
{
	size_t at = 0;

	if (!a->started) {
		a->started = 1;
		if (len >= PIPE_HEADER && !memcmp(rec, "PERFILE2", 8)) {
			a->swap = 0;
		} else if (len >= PIPE_HEADER && !memcmp(rec, "2ELIFREP", 8)) {
			a->swap = 1;
		} else {
			a->unknown = 1;
			a->cur.flags |= PMT_CTR_FI_UNPARSED;
			return;
		}
		at = PIPE_HEADER;
	}
	if (a->unknown)
		return;
	while (at < len) {
		const uint8_t *p = rec + at;
		uint32_t type, cpu;
		uint64_t size, aux;

		if (len - at < 8 || (size = rd(a, p + 6, 2)) < 8 || size > len - at) {
			a->cur.flags |= PMT_CTR_FI_UNPARSED;
			return;
		}
		type = (uint32_t)rd(a, p, 4);
		a->cur.records++;
		if (type != REC_AUXTRACE) {
			if (type == REC_AUX || type == REC_ITRACE_START)
				a->cur.flags |= PMT_CTR_FI_AUX_NOTES;
			else if (type != REC_FINISHED_ROUND)
				a->cur.flags |= PMT_CTR_FI_SIDEBAND;
			at += size;
			continue;
		}
		aux = size >= AUXTRACE_HDR ? rd(a, p + 8, 8) : UINT64_MAX;
		if (aux > len - at - size) {
			a->cur.flags |= PMT_CTR_FI_UNPARSED;
			return;
		}
		cpu = (uint32_t)rd(a, p + 40, 4);
		a->cur.auxtraces++;
		a->cur.aux_bytes += aux;
		if (size >= AUXTRACE_HDR)
			note_aux(a, p, cpu, aux);
		if (cpu >= FINFO_MAX_CPU) {
			a->cur.flags |= PMT_CTR_FI_ANY_CPU;
		} else {
			if (cpu < a->cur.cpu_lo)
				a->cur.cpu_lo = cpu;
			if (cpu > a->cur.cpu_hi)
				a->cur.cpu_hi = cpu;
			a->cur.cpu_mask |= 1ull << (cpu % 64);
			scan_aux(a, cpu, p + size, (size_t)aux, 0);
		}
		at += size + (size_t)aux;
	}
}

bool finfo_is_auxtrace(const struct finfo_acc *a, const uint8_t *rec, size_t hdr_len,
		       size_t len)
{
	return a->started && !a->unknown && hdr_len >= AUXTRACE_HDR &&
	       rd(a, rec, 4) == REC_AUXTRACE && rd(a, rec + 6, 2) + rd(a, rec + 8, 8) == len;
}

/* padding: a few zero bytes after the AUX bytes (perf pads AUXTRACE data to 8) */
static int is_pad(const struct pmt_ctr_piece *v)
{
	static const uint8_t zero[8];

	return v->len <= sizeof(zero) && !memcmp(v->p, zero, v->len);
}

void finfo_addv(struct finfo_acc *a, const struct pmt_ctr_piece *v, unsigned n)
{
	const uint8_t *p = v[0].p;
	const struct pmt_ctr_piece *data = NULL;
	size_t total = 0, split = 0;
	uint64_t bit, aux;
	uint32_t cpu;

	if (n == 1 || !a->started || a->unknown) {
		for (unsigned i = 0; i < n; i++)
			finfo_add(a, v[i].p, v[i].len);
		return;
	}
	/* an AUXTRACE header, then its AUX bytes in pieces (two where the ring wrapped) */
	for (unsigned i = 1; i < n; i++) {
		total += v[i].len;
		if (!v[i].len || (data && is_pad(&v[i])))
			continue;
		split += data != NULL;
		if (!data)
			data = &v[i];
	}
	if (v[0].len < AUXTRACE_HDR || rd(a, p + 6, 2) != v[0].len ||
	    rd(a, p, 4) != REC_AUXTRACE || (aux = rd(a, p + 8, 8)) != total) {
		a->cur.flags |= PMT_CTR_FI_UNPARSED;
		return;
	}
	cpu = (uint32_t)rd(a, p + 40, 4);
	a->cur.records++;
	a->cur.auxtraces++;
	a->cur.aux_bytes += aux;
	note_aux(a, p, cpu, aux);
	if (cpu >= FINFO_MAX_CPU) {
		a->cur.flags |= PMT_CTR_FI_ANY_CPU;
		return;
	}
	bit = 1ull << (cpu % 64);
	if (cpu < a->cur.cpu_lo)
		a->cur.cpu_lo = cpu;
	if (cpu > a->cur.cpu_hi)
		a->cur.cpu_hi = cpu;
	a->cur.cpu_mask |= bit;
	if (data || split)
		scan_aux(a, cpu, data->p, data->len, split != 0);
}

/* FNV-1a: a frame info is no zstd frame, so it has no checksum of zstd's */
static uint32_t info_sum(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

size_t finfo_encode(const struct pmt_ctr_frame_info *fi, uint8_t *out, unsigned old_size)
{
	size_t at = FINFO_SIZE_V2 + FINFO_AUX_HEAD;

	memset(out, 0, FINFO_SIZE_V2 + FINFO_AUX_HEAD);
	memcpy(out, "PMTFINFO", 8);
	pmt_put_le32(out + 8, 1);
	pmt_put_le32(out + 12, fi->index);
	pmt_put_le64(out + 16, fi->offset);
	pmt_put_le32(out + 24, fi->flags);
	pmt_put_le32(out + 28, fi->records);
	pmt_put_le32(out + 32, fi->auxtraces);
	pmt_put_le32(out + 36, fi->cpu_lo);
	pmt_put_le64(out + 40, fi->aux_bytes);
	pmt_put_le32(out + 48, fi->cpu_hi);
	pmt_put_le32(out + 52, fi->size);
	pmt_put_le64(out + 56, fi->cpu_mask);
	pmt_put_le64(out + 64, fi->cont_mask);
	pmt_put_le64(out + 72, fi->ts_lo);
	pmt_put_le64(out + 80, fi->ts_hi);
	if (old_size == FINFO_SIZE_V1)
		return FINFO_SIZE_V1;
	pmt_put_le64(out + 88, fi->stream_offset);
	pmt_put_le32(out + 96, fi->stream_size);
	pmt_put_le32(out + 100, fi->dropped);
	if (old_size == FINFO_SIZE_V2)
		return FINFO_SIZE_V2;
	pmt_put_le32(out + 104, fi->aux_n);
	pmt_put_le32(out + 108, fi->aux_state == PMT_CTR_AUX_PARTIAL);
	for (uint32_t i = 0; i < fi->aux_n && i < PMT_CTR_AUX_RANGES; i++, at += FINFO_AUX_ENT) {
		const struct pmt_ctr_aux_range *r = &fi->aux[i];

		pmt_put_le32(out + at, r->cpu);
		pmt_put_le32(out + at + 4, r->idx);
		pmt_put_le64(out + at + 8, r->first);
		pmt_put_le64(out + at + 16, r->end);
		pmt_put_le32(out + at + 24, r->records);
		pmt_put_le32(out + at + 28, r->gaps);
	}
	pmt_put_le32(out + at, info_sum(out, at));
	return at + 4;
}

int finfo_decode(const uint8_t *p, size_t n, struct pmt_ctr_frame_info *fi)
{
	size_t at = FINFO_SIZE_V2 + FINFO_AUX_HEAD;
	uint32_t nr;

	/* fields are appended, never moved: the frame's size says which it has (the version
	 * would change only with a field's meaning, and readers built before the stream
	 * fields, which take version 1's 88 bytes, still slice a newer file; readers built
	 * before the AUX ranges take the first 104) */
	if (n < FINFO_SIZE_V1 || memcmp(p, "PMTFINFO", 8) || pmt_le32(p + 8) != 1)
		return -1;
	fi->index = pmt_le32(p + 12);
	fi->offset = pmt_le64(p + 16);
	fi->flags = pmt_le32(p + 24);
	fi->records = pmt_le32(p + 28);
	fi->auxtraces = pmt_le32(p + 32);
	fi->cpu_lo = pmt_le32(p + 36);
	fi->aux_bytes = pmt_le64(p + 40);
	fi->cpu_hi = pmt_le32(p + 48);
	fi->size = pmt_le32(p + 52);
	fi->cpu_mask = pmt_le64(p + 56);
	fi->cont_mask = pmt_le64(p + 64);
	fi->ts_lo = pmt_le64(p + 72);
	fi->ts_hi = pmt_le64(p + 80);
	fi->stream_offset = n >= FINFO_SIZE_V2 ? pmt_le64(p + 88) : PMT_CTR_NO_OFFSET;
	fi->stream_size = n >= FINFO_SIZE_V2 ? pmt_le32(p + 96) : 0;
	fi->dropped = n >= FINFO_SIZE_V2 ? pmt_le32(p + 100) : 0;
	fi->aux_state = PMT_CTR_AUX_UNKNOWN;
	fi->aux_n = 0;
	fi->damaged = 0;
	if (n <= FINFO_SIZE_V2)
		return 0;
	/* the AUX ranges and the checksum of the whole info: a size that does not fit the
	 * count, or a sum that fails, is damage (any field may be wrong) */
	nr = n >= at ? pmt_le32(p + 104) : UINT32_MAX;
	if (nr > PMT_CTR_AUX_RANGES || n != at + (size_t)nr * FINFO_AUX_ENT + 4 ||
	    pmt_le32(p + n - 4) != info_sum(p, n - 4)) {
		fi->damaged = 1;
		return FINFO_DAMAGED;
	}
	fi->aux_n = nr;
	fi->aux_state = !nr ? PMT_CTR_AUX_UNKNOWN
		      : pmt_le32(p + 108) & 1 ? PMT_CTR_AUX_PARTIAL : PMT_CTR_AUX_LISTED;
	for (uint32_t i = 0; i < nr; i++, at += FINFO_AUX_ENT) {
		struct pmt_ctr_aux_range *r = &fi->aux[i];

		r->cpu = pmt_le32(p + at);
		r->idx = pmt_le32(p + at + 4);
		r->first = pmt_le64(p + at + 8);
		r->end = pmt_le64(p + at + 16);
		r->records = pmt_le32(p + at + 24);
		r->gaps = pmt_le32(p + at + 28);
	}
	return 0;
}
