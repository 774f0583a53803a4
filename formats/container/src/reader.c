/* The trace container's reader (FORMAT.md): frame by frame, resyncing past damage, the
 * index and seek table at the end read for the slices and the stream offsets. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pmutrace/container.h"

#include "backlog.h"
#include "columns.h"
#include "frame_info.h"
#include "layout.h"
#include "reader.h"

bool pmt_ctr_is_container(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	return len >= 16 && pmt_le32(p) == SKIP_HEADER && !memcmp(p + 8, PMT_CTR_MAGIC, 8);
}

int pmt_ctr_reader_new(const void *buf, size_t len, const char *name, struct pmt_ctr_reader **out,
		       struct pmt_diag *diag)
{
	const uint8_t *p = buf;
	struct pmt_ctr_reader *r;
	uint32_t hsize, version;

	*out = NULL;
	if (!pmt_ctr_is_container(buf, len))
		return pmt_diag_set(diag, -PMT_EFORMAT, name, 0, "not a pmutrace container");
	hsize = pmt_le32(p + 4);
	if (hsize < 16 || 8 + (size_t)hsize > len)
		return pmt_diag_set(diag, -PMT_ECORRUPT, name, 4, "header frame of %u bytes", hsize);
	version = pmt_le32(p + 16);
	if (version != PMT_CTR_VERSION)
		return pmt_diag_set(diag, -PMT_EVERSION, name, 16,
				    "container version %u; this build reads version %u", version,
				    PMT_CTR_VERSION);
	r = calloc(1, sizeof(*r));
	if (!r || !(r->fb.dctx = ZSTD_createDCtx())) {
		free(r);
		return pmt_diag_set(diag, -PMT_ENOMEM, name, PMT_DIAG_NO_OFFSET, "out of memory");
	}
	r->buf = p;
	r->len = len;
	r->name = name;
	r->pos = 8 + hsize;
	if (hsize >= HEADER_SIZE)
		snprintf(r->st.writer, sizeof(r->st.writer), "%.63s", (const char *)p + 24);
	*out = r;
	return 0;
}

/* The frame info of the frame at `at`, when it stands at r->pos (the writer puts it right
 * after its frame). */
static bool info_after(const struct pmt_ctr_reader *r, size_t at, struct pmt_ctr_frame_info *fi)
{
	size_t pos = r->pos, n;

	if (r->len - pos < 8 || pmt_le32(r->buf + pos) != SKIP_FINFO)
		return false;
	n = pmt_le32(r->buf + pos + 4);
	return n <= r->len - pos - 8 && !finfo_decode(r->buf + pos + 8, n, fi) && fi->offset == at;
}

/* The stream offset of the data frame at `at` (r->pos past it), which holds dsize bytes
 * (lost: unknown, damaged), and of the frame after it. Its info says where it stands, so
 * a frame lost to damage keeps the offsets after it those of the whole stream. */
static uint64_t stream_place(struct pmt_ctr_reader *r, size_t at, uint64_t dsize, bool lost)
{
	struct pmt_ctr_frame_info fi;
	uint64_t off = r->stream_next;
	bool has_info = info_after(r, at, &fi);

	if (has_info)
		r->st.dropped_in_frames += fi.dropped;
	if (has_info && fi.stream_offset != PMT_CTR_NO_OFFSET) {
		off = fi.stream_offset;
		if (lost) {
			dsize = fi.stream_size;
			lost = false;
		}
	}
	r->stream_next = off == PMT_CTR_NO_OFFSET || lost ? PMT_CTR_NO_OFFSET : off + dsize;
	return off;
}

/* The next offset at or after `from` where a zstd frame magic stands (after damage). */
static size_t resync(const struct pmt_ctr_reader *r, size_t from)
{
	for (size_t p = from; p + 4 <= r->len; p++) {
		uint32_t m = pmt_le32(r->buf + p);

		if (m == ZSTD_MAGIC || (m & 0xFFFFFFF0u) == 0x184D2A50u)
			return p;
	}
	return r->len;
}

static bool frame_starts(const struct pmt_ctr_reader *r, size_t at)
{
	uint32_t m = at <= r->len && r->len - at >= 4 ? pmt_le32(r->buf + at) : 0;

	return at == r->len || m == ZSTD_MAGIC || (m & 0xFFFFFFF0u) == 0x184D2A50u;
}

/* A column frame: its records rebuilt into r->out */
static int column_frame(struct pmt_ctr_reader *r, struct pmt_ctr_frame *f, size_t at, size_t n,
			struct pmt_diag *diag)
{
	uint32_t idx = r->st.frames + r->st.damaged;
	size_t len = 0;
	const char *why;
	int rc = ctr_columns_decode(r->buf + at + 8, n, FRAME_MAX, &r->fb.out, &r->fb.out_cap, &len,
				    &why);

	if (rc == -PMT_ENOMEM)
		return pmt_diag_set(diag, rc, r->name, at, "out of memory");
	if (rc < 0) {
		r->st.damaged++;
		r->st.lost_bytes += 8 + n;
		stream_place(r, at, 0, true);
		return pmt_diag_set(diag, -PMT_ECORRUPT, r->name, at,
				    "data frame %u (columns) is damaged (%s); its records are "
				    "skipped", idx, why ? why : "corrupt");
	}
	f->index = idx;
	f->offset = at;
	f->csize = (uint32_t)(8 + n);
	f->data = r->fb.out;
	f->size = len;
	f->stream_offset = stream_place(r, at, len, false);
	r->st.frames++;
	r->st.column_frames++;
	r->st.bytes_in += 8 + n;
	r->st.bytes_out += len;
	return 1;
}

int pmt_ctr_next(struct pmt_ctr_reader *r, struct pmt_ctr_frame *f, struct pmt_diag *diag)
{
	const struct ctr_frame_buf *fb = &r->fb;

	if (r->pf)
		ctr_prefetch_release(r->pf);
	while (r->pos < r->len) {
		size_t at = r->pos, left = r->len - at, csize;
		unsigned long long dsize;
		uint32_t magic;

		if (left < 8) {
			r->st.truncated = 1;
			r->st.lost_bytes += left;
			r->pos = r->len;
			return pmt_diag_set(diag, -PMT_ENEED_MORE, r->name, at,
					    "the file ends inside a frame (%zu bytes)", left);
		}
		while (r->skip_at < r->nskip && r->skip[r->skip_at].offset < at)
			r->skip_at++;
		if (r->skip_at < r->nskip && r->skip[r->skip_at].offset == at) {
			r->pos = r->skip[r->skip_at].end;
			r->stream_next = r->skip[r->skip_at++].stream_end;
			r->st.skipped++;
			continue;
		}
		magic = pmt_le32(r->buf + at);
		if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
			size_t n = pmt_le32(r->buf + at + 4);

			if (n > left - 8) {
				r->st.truncated = 1;
				r->st.lost_bytes += left;
				r->pos = r->len;
				if (magic == SKIP_COLUMNS) {
					/* a data frame: pmt_ctr_cut_frame says what it held */
					r->st.cut_frame = 1;
					r->st.cut_index = r->st.frames + r->st.damaged;
					r->st.cut_offset = at;
					r->st.cut_stream_offset = r->stream_next;
					return pmt_diag_set(diag, -PMT_ENEED_MORE, r->name, at,
							    "data frame %u (columns) is cut short: "
							    "the file ends inside it",
							    r->st.cut_index);
				}
				return pmt_diag_set(diag, -PMT_ENEED_MORE, r->name, at,
						    "the file ends inside its %s",
						    magic == SKIP_INDEX ? "frame index" :
						    magic == SKIP_SEEK ? "seek table" : "pmutrace data");
			}
			if (magic == SKIP_SEEK)
				r->st.has_index = 1;
			if (magic == SKIP_WSTATS &&
			    !backlog_decode(r->buf + at + 8, n, &r->st.writer_stats))
				r->st.has_writer_stats = 1;
			r->pos = at + 8 + n;
			if (magic == SKIP_COLUMNS)
				return column_frame(r, f, at, n, diag);
			continue;
		}
		if (magic != ZSTD_MAGIC) {
			r->pos = resync(r, at + 1);
			r->st.lost_bytes += r->pos - at;
			return pmt_diag_set(diag, -PMT_ECORRUPT, r->name, at,
					    "no frame starts here (%zu bytes skipped)", r->pos - at);
		}
		csize = ZSTD_findFrameCompressedSize(r->buf + at, left);
		if (ZSTD_isError(csize)) {
			/* the file ends inside this frame, or its header is damaged */
			size_t next = resync(r, at + 4);

			r->st.lost_bytes += next - at;
			if (next == r->len) {
				r->st.truncated = 1;
				r->st.cut_frame = 1;
				r->st.cut_index = r->st.frames + r->st.damaged;
				r->st.cut_offset = at;
				r->st.cut_stream_offset = r->stream_next;
			}
			r->pos = next;
			r->st.damaged += next < r->len;
			stream_place(r, at, 0, true);
			return pmt_diag_set(diag, next == r->len ? -PMT_ENEED_MORE : -PMT_ECORRUPT,
					    r->name, at, "data frame %u %s", r->st.frames + r->st.damaged,
					    next == r->len ? "is cut short: the file ends inside it"
							   : "has a damaged header; skipped");
		}
		dsize = ZSTD_getFrameContentSize(r->buf + at, csize);
		r->pos = at + csize;
		{
			uint32_t idx = r->st.frames + r->st.damaged;
			int rc = dsize == ZSTD_CONTENTSIZE_ERROR ? -PMT_ECORRUPT
				 : r->pf ? ctr_prefetch_take(r, at, csize, &dsize, &fb)
				 : ctr_frame_decompress(&r->fb, r->buf + at, csize, &dsize);

			if (rc == -PMT_ENOMEM)
				return pmt_diag_set(diag, rc, r->name, at, "out of memory");
			if (rc < 0) {
				/* csize came from its damaged block headers, which may run over the
				 * frames after it: trusted where a frame starts, else resync */
				if (!frame_starts(r, at + csize))
					r->pos = resync(r, at + 4);
				r->st.damaged++;
				r->st.lost_bytes += r->pos - at;
				stream_place(r, at, 0, true);
				return pmt_diag_set(diag, -PMT_ECORRUPT, r->name, at,
						    "data frame %u is damaged (%s); its records are "
						    "skipped", idx,
						    dsize == ZSTD_CONTENTSIZE_ERROR || !fb->zerr
							    ? "corrupt" : fb->zerr);
			}
			f->index = idx;
		}
		f->offset = at;
		f->csize = (uint32_t)csize;
		f->data = fb->out;
		f->size = (size_t)dsize;
		f->stream_offset = stream_place(r, at, dsize, false);
		r->st.frames++;
		r->st.bytes_in += csize;
		r->st.bytes_out += dsize;
		return 1;
	}
	return 0;
}

const struct pmt_ctr_stats *pmt_ctr_stats(const struct pmt_ctr_reader *r) { return &r->st; }

void pmt_ctr_reader_free(struct pmt_ctr_reader *r)
{
	if (!r)
		return;
	ctr_prefetch_free(r->pf);
	ZSTD_freeDCtx(r->fb.dctx);
	free(r->fb.out);
	free(r->skip);
	free(r);
}
