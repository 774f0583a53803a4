/* The container reader's state (reader.c) and its frame decompression, which the
 * decompress-ahead threads (prefetch.c) run too. Private to formats/container. */
#ifndef PMT_CTR_READER_H
#define PMT_CTR_READER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "pmutrace/container.h"

#include "layout.h"

#define ZSTD_MAGIC 0xFD2FB528u

/* Where one frame is decompressed: a context and a buffer that grows to the largest frame */
struct ctr_frame_buf {
	ZSTD_DCtx *dctx;
	uint8_t *out;
	size_t out_cap;
	const char *zerr;       /* zstd's word on the last damaged frame */
};

struct ctr_prefetch;

struct pmt_ctr_reader {
	struct ctr_frame_buf fb;
	const uint8_t *buf;
	size_t len, pos;
	const char *name;
	struct pmt_ctr_stats st;
	/* frames a slice passes over, and the stream offset of the frame after them */
	struct skip_span { uint64_t offset, end, stream_end; } *skip;
	size_t nskip, skip_at;
	uint64_t stream_next;   /* stream offset of the next data frame (PMT_CTR_NO_OFFSET) */
	struct ctr_prefetch *pf; /* NULL: every frame is decompressed when it is asked for */
};

/* One zstd frame of csize bytes at src into fb->out: *dsize in, when the header states
 * it, else the frame is streamed into a buffer that grows up to FRAME_MAX. zstd checks
 * the content checksum at the end. 0, -PMT_ECORRUPT (fb->zerr says why), -PMT_ENOMEM. */
int ctr_frame_decompress(struct ctr_frame_buf *fb, const uint8_t *src, size_t csize,
			 unsigned long long *dsize);

/* Decompress-ahead (pmt_ctr_reader_threads): the frame at `at` as the serial path would
 * make it, from a thread that started on it earlier when it could. *fb is the buffer it
 * is in, valid until ctr_prefetch_release(). Same returns as ctr_frame_decompress(). */
int ctr_prefetch_take(struct pmt_ctr_reader *r, size_t at, size_t csize,
		      unsigned long long *dsize, const struct ctr_frame_buf **fb);
/* The caller is done with the frame the last take gave. */
void ctr_prefetch_release(struct ctr_prefetch *pf);
void ctr_prefetch_free(struct ctr_prefetch *pf);
#endif
