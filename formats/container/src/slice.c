/* Frame infos and slices (FORMAT.md, "Frame infos and slices"): the frame headers walked
 * without decompression, the frames a slice needs picked from the infos the writer put
 * after each frame, and each frame's place in the pipe-mode stream, so that the reader
 * passes over the others and the records it reads keep their stream offsets. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pmutrace/container.h"

#include "columns.h"
#include "frame_info.h"
#include "frame_sizes.h"
#include "reader.h"

typedef int (*walk_fn)(void *ctx, size_t at, size_t size, const struct pmt_ctr_frame_info *fi);

#define WALK_DAMAGE 1
#define WALK_CUT 2

/* Whether the frame the walk stopped at runs to the end of the file: no frame magic after
 * it, as the reader finds (reader.c's resync), so the frames before it are all there
 * is and the reader reports that one as cut short. */
static int stop_kind(const uint8_t *b, size_t len, size_t pos)
{
	for (size_t p = pos + 4; p + 4 <= len; p++) {
		uint32_t m = pmt_le32(b + p);

		if (m == ZSTD_MAGIC || (m & 0xFFFFFFF0u) == 0x184D2A50u)
			return WALK_DAMAGE;
	}
	return WALK_CUT;
}

/* Bytes at pos that start no frame, or a skippable frame whose size runs past the file:
 * where the walk goes on (*next), or why it stops. It goes on only when the next frame
 * magic is one of pmutrace's own frames that describe no data frame (index, writer stats,
 * seek table, embedded file): then the bytes passed over held no data frame and no frame
 * info, so a damaged index or seek table costs a slice nothing. A data frame, a column
 * frame or a frame info there may follow a data frame or an info the damage took: damage.
 * No magic after pos: the file ends inside that frame, as a cut. */
static int pass_damage(const uint8_t *b, size_t len, size_t pos, size_t *next)
{
	for (size_t p = pos + 1; p + 4 <= len; p++) {
		uint32_t m = pmt_le32(b + p);

		if (m == ZSTD_MAGIC)
			return WALK_DAMAGE;
		if ((m & 0xFFFFFFF0u) != 0x184D2A50u)
			continue;
		if (m == SKIP_FINFO || m == SKIP_COLUMNS)
			return WALK_DAMAGE;
		*next = p;
		return 0;
	}
	return WALK_CUT;
}

/* Every frame from pos on, by its header only: fn for data frames (fi NULL) and frame
 * infos; *index (may be NULL) gets the file offset of the frame index, 0 when there is
 * none. Returns fn's negative value, WALK_DAMAGE when damage stops the walk, WALK_CUT when
 * the file ends inside a frame (a cut or killed recording), else 0. */
static int walk(const uint8_t *b, size_t len, size_t pos, walk_fn fn, void *ctx, size_t *index)
{
	struct ctr_sizes sizes;

	ctr_sizes_init(&sizes, b, len);
	if (index)
		*index = 0;
	while (pos < len) {
		size_t left = len - pos, size;
		uint32_t magic;
		int rc;

		if (left < 8)
			return WALK_CUT;
		magic = pmt_le32(b + pos);
		if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
			struct pmt_ctr_frame_info fi;

			size = pmt_le32(b + pos + 4);
			if (size > left - 8) {
				rc = pass_damage(b, len, pos, &pos);
				if (rc)
					return rc;
				continue;
			}
			rc = 0;
			if (magic == SKIP_COLUMNS)
				rc = fn(ctx, pos, 8 + size, NULL);
			else if (magic == SKIP_FINFO && finfo_decode(b + pos + 8, size, &fi) >= 0) {
				fi.info_offset = pos;
				rc = fn(ctx, pos, 8 + size, &fi);
			}
			else if (magic == SKIP_INDEX && index)
				*index = pos;
			if (rc < 0)
				return rc;
			pos += 8 + size;
			continue;
		}
		if (magic != ZSTD_MAGIC) {
			rc = pass_damage(b, len, pos, &pos);
			if (rc)
				return rc;
			continue;
		}
		size = ctr_frame_size(&sizes, b, len, pos);
		if (ZSTD_isError(size))
			return stop_kind(b, len, pos);
		rc = fn(ctx, pos, size, NULL);
		if (rc < 0)
			return rc;
		pos += size;
	}
	return 0;
}

struct infos_ctx {
	int (*fn)(const struct pmt_ctr_frame_info *fi, void *ctx);
	void *ctx;
	int n;
};

static int each_info(void *ctx, size_t at, size_t size, const struct pmt_ctr_frame_info *fi)
{
	struct infos_ctx *c = ctx;
	int rc;

	(void)at;
	(void)size;
	if (!fi)
		return 0;
	rc = c->fn(fi, c->ctx);
	c->n++;
	return rc < 0 ? rc : 0;
}

int pmt_ctr_frame_infos(const void *buf, size_t len,
			int (*fn)(const struct pmt_ctr_frame_info *fi, void *ctx), void *ctx)
{
	struct infos_ctx c = { fn, ctx, 0 };
	int rc;

	if (!pmt_ctr_is_container(buf, len))
		return 0;
	rc = walk(buf, len, 0, each_info, &c, NULL);
	return rc < 0 ? rc : c.n;
}

struct plan_frame {
	uint64_t offset, end;
	struct pmt_ctr_frame_info fi;
	uint8_t has_info, keep;
};

struct plan {
	struct plan_frame *f;
	size_t n, cap;
	int err;
};

static int plan_add(void *ctx, size_t at, size_t size, const struct pmt_ctr_frame_info *fi)
{
	struct plan *p = ctx;

	if (fi) {
		/* the info of the data frame just before it; a damaged one is none (the frame
		 * is read) */
		if (!fi->damaged && p->n && p->f[p->n - 1].offset == fi->offset && !p->f[p->n - 1].has_info) {
			p->f[p->n - 1].fi = *fi;
			p->f[p->n - 1].has_info = 1;
		}
		return 0;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		struct plan_frame *nf = realloc(p->f, cap * sizeof(*nf));

		if (!nf)
			return p->err = -PMT_ENOMEM;
		p->f = nf;
		p->cap = cap;
	}
	memset(&p->f[p->n], 0, sizeof(p->f[p->n]));
	p->f[p->n].offset = at;
	p->f[p->n].end = at + size;
	p->n++;
	return 0;
}

/* The decoder joins each CPU's AUX bytes across frames, so a record may begin in one frame
 * and end in the next frame with that CPU (cont_mask says which). A kept frame then needs
 * the frame its records began in, and the frame its last records end in: without the one
 * the record is lost, without the other its head joins the next record. Repeated until
 * nothing changes. Masks are per cpu % 64: a shared bit keeps more frames, never fewer. */
static int keep_neighbours(struct plan *p)
{
	int changed = 0;

	for (size_t i = p->n; i-- > 0;) {
		uint64_t need = p->f[i].keep ? p->f[i].fi.cont_mask : 0;

		for (size_t j = i; need && j-- > 0;) {
			const struct pmt_ctr_frame_info *fi = &p->f[j].fi;
			uint64_t hit = need & fi->cpu_mask;

			if (!hit)
				continue;
			need &= ~fi->cpu_mask;
			need |= fi->cont_mask & hit;
			changed |= !p->f[j].keep;
			p->f[j].keep = 1;
		}
	}
	for (size_t i = 0; i < p->n; i++) {
		uint64_t need = p->f[i].keep ? p->f[i].fi.cpu_mask : 0;

		for (size_t j = i + 1; need && j < p->n; j++) {
			const struct pmt_ctr_frame_info *fi = &p->f[j].fi;
			uint64_t hit = need & fi->cpu_mask;

			need &= ~fi->cpu_mask;
			if (hit & fi->cont_mask) {
				changed |= !p->f[j].keep;
				p->f[j].keep = 1;
			}
		}
	}
	return changed;
}

/* Frames whose infos have no stream fields (an older writer's) from the frame index
 * (file offset, compressed and uncompressed size of every data frame, in file order).
 * Returns false when a frame of the plan is still without its stream offset. */
static bool stream_from_index(const struct pmt_ctr_reader *r, size_t at, struct plan *p)
{
	const uint8_t *t = r->buf + at + 8;
	size_t n = pmt_le32(r->buf + at + 4), j = 0;
	uint64_t stream = 0;
	uint32_t nr;

	if (!at || n < 12 || memcmp(t, "PMTINDEX", 8) || (nr = pmt_le32(t + 8)) > (n - 12) / 16)
		return false;
	for (uint32_t i = 0; i < nr && j < p->n; i++) {
		uint64_t off = pmt_le64(t + 12 + 16 * (size_t)i);
		uint32_t dsize = pmt_le32(t + 12 + 16 * (size_t)i + 12);

		if (off == p->f[j].offset && p->f[j].fi.stream_offset == PMT_CTR_NO_OFFSET) {
			p->f[j].fi.stream_offset = stream;
			p->f[j].fi.stream_size = dsize;
		}
		j += off >= p->f[j].offset;
		stream += dsize;
	}
	for (size_t i = 0; i < p->n; i++)
		if (p->f[i].fi.stream_offset == PMT_CTR_NO_OFFSET)
			return false;
	return true;
}

int pmt_ctr_slice(struct pmt_ctr_reader *r,
		  bool (*keep)(const struct pmt_ctr_frame_info *fi, void *ctx), void *ctx)
{
	struct plan p = { 0 };
	size_t nskip = 0, index;
	bool placed = true;
	int rc = walk(r->buf, r->len, r->pos, plan_add, &p, &index);

	free(r->skip);
	r->skip = NULL;
	r->nskip = r->skip_at = 0;
	if (rc < 0 || p.err) {
		free(p.f);
		return -PMT_ENOMEM;
	}
	if (rc == WALK_CUT || (rc == 0 && !index)) {
		/* cut inside a frame, or between frames before the index (a killed writer):
		 * the frames before the cut are whole; the last of them may have lost its info
		 * to the cut: it is read, with every frame that may hold the start of a record
		 * it ends (any CPU's), and its place follows the frame before it */
		struct plan_frame *last = p.n ? &p.f[p.n - 1] : NULL;

		rc = 0;
		if (last && !last->has_info && p.n > 1 && p.f[p.n - 2].has_info &&
		    p.f[p.n - 2].fi.stream_offset != PMT_CTR_NO_OFFSET) {
			last->fi.cont_mask = last->fi.cpu_mask = UINT64_MAX;
			last->fi.stream_offset = p.f[p.n - 2].fi.stream_offset +
						 p.f[p.n - 2].fi.stream_size;
			last->keep = 2;
		}
	}
	for (size_t i = 0; i < p.n; i++) {
		r->st.frame_infos += p.f[i].has_info;
		if (!p.f[i].has_info && p.f[i].keep != 2)
			rc = 1;
		placed &= p.f[i].fi.stream_offset != PMT_CTR_NO_OFFSET;
	}
	/* damage or a frame without its info: what it holds is unknown; frames whose stream
	 * offsets are unknown: the records after a skipped one would get wrong offsets (dump
	 * prints them as perf does). Read everything */
	if (!rc && !placed && !stream_from_index(r, index, &p))
		rc = 1;
	if (rc) {
		free(p.f);
		return 0;
	}
	for (size_t i = 0; i < p.n; i++)
		p.f[i].keep = p.f[i].keep == 2 || keep(&p.f[i].fi, ctx) ? 1 : 0;
	while (keep_neighbours(&p))
		;
	for (size_t i = 0; i < p.n; i++) {
		if (p.f[i].keep)
			continue;
		/* reuse the plan's own array for the spans: nskip <= i */
		p.f[nskip].offset = p.f[i].offset;
		p.f[nskip].end = p.f[i].end;
		p.f[nskip].fi.stream_offset = p.f[i].fi.stream_offset + p.f[i].fi.stream_size;
		nskip++;
	}
	if (nskip) {
		r->skip = malloc(nskip * sizeof(*r->skip));
		if (!r->skip) {
			free(p.f);
			return -PMT_ENOMEM;
		}
		for (size_t i = 0; i < nskip; i++)
			r->skip[i] = (struct skip_span){ p.f[i].offset, p.f[i].end,
							 p.f[i].fi.stream_offset };
	}
	r->nskip = nskip;
	free(p.f);
	return (int)nskip;
}
