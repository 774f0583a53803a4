/* Frame info (FORMAT.md): what each data frame holds (CPUs, SPE time range, record counts),
 * gathered by the writer as records pass and written as a skippable frame after the frame. */
#ifndef PMT_CTR_FRAME_INFO_H
#define PMT_CTR_FRAME_INFO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmutrace/container.h"
#include "pmutrace/spe.h"

#define SKIP_FINFO 0x184D2A54u /* skippable frame: the info of the data frame before it */
#define FINFO_SIZE_V1 88       /* its content as first written */
#define FINFO_SIZE_V2 104      /* + the frame's stream offset and size (same version, 1) */
#define FINFO_AUX_HEAD 8       /* + u32 AUX ranges, u32 0 */
#define FINFO_AUX_ENT 32       /* + per range (pmt_ctr_aux_range), then a u32 checksum */
#define FINFO_SIZE (FINFO_SIZE_V2 + FINFO_AUX_HEAD + PMT_CTR_AUX_RANGES * FINFO_AUX_ENT + 4)
#define FINFO_MAX_CPU 4096

/* One CPU's AUX bytes in a frame, scanned apart from the frames before it so that the walk
 * can run on a compression thread (writer_pool.c); what the CPU's record state at its start
 * changes is settled afterwards, in file order, by finfo_chunk_apply(). */
enum {
	CHUNK_NO_EVENT = PMT_SPE_SCAN_NO_EVENT,
	CHUNK_END_FIRST = PMT_SPE_SCAN_END_FIRST,
	CHUNK_OTHER_FIRST = PMT_SPE_SCAN_OTHER_FIRST,
};
struct finfo_chunk {
	uint32_t cpu;
	uint8_t split;          /* bytes in two pieces (a ring wrapped): not scanned */
	uint8_t first;          /* CHUNK_*: its first packet that ends or opens a record */
	uint8_t open_out;       /* it ends inside a record (when first != CHUNK_NO_EVENT) */
	uint8_t untimed, timed;
	size_t off, len;        /* its AUX bytes, from the frame buffer's start */
	uint64_t ts_lo, ts_hi;
};
/* The chunks of the frame being filled, scanned later: the writer's pool mode */
struct finfo_chunks {
	const uint8_t *base;    /* the frame buffer the offsets count from */
	struct finfo_chunk *v;
	size_t n, cap;
	int err;                /* -PMT_ENOMEM: a chunk could not be noted */
};

struct finfo_acc {
	uint8_t started;        /* the pipe header went by */
	uint8_t swap;           /* records in the other byte order */
	uint8_t unknown;        /* not a pipe-mode perf.data: frames get PMT_CTR_FI_UNPARSED */
	uint64_t open[FINFO_MAX_CPU / 64]; /* CPUs whose last AUX bytes ended inside a record */
	struct pmt_ctr_frame_info cur;
	struct finfo_chunks *defer; /* not NULL: AUX bytes are noted there, not scanned */
};

void finfo_reset(struct finfo_acc *a);
/* One or more whole records (or the pipe header) handed to the writer. */
void finfo_add(struct finfo_acc *a, const uint8_t *rec, size_t len);
/* The same, for records handed over in pieces (pmt_ctr_writev). */
void finfo_addv(struct finfo_acc *a, const struct pmt_ctr_piece *v, unsigned n);
/* The packet walk of one chunk (c->off, c->len within base), on any thread. */
void finfo_chunk_scan(struct finfo_chunk *c, const uint8_t *base);
/* A scanned chunk into its frame's info, after every chunk before it in the file: open is
 * the per-CPU "last AUX bytes ended inside a record" bitmap (finfo_acc.open). */
void finfo_chunk_apply(uint64_t *open, struct pmt_ctr_frame_info *cur,
		       const struct finfo_chunk *c);
/* Whether a write of len bytes, whose first piece (hdr_len bytes) starts at rec, is one
 * AUXTRACE record and its AUX bytes, nothing else. */
bool finfo_is_auxtrace(const struct finfo_acc *a, const uint8_t *rec, size_t hdr_len,
		       size_t len);
/* The content of the frame-info frame of the frame just closed (out: FINFO_SIZE bytes):
 * with its AUX ranges and checksum, or with old_size FINFO_SIZE_V1 or FINFO_SIZE_V2 the
 * bytes an older writer wrote (for tests of older files). Returns the size. */
size_t finfo_encode(const struct pmt_ctr_frame_info *fi, uint8_t *out, unsigned old_size);
/* 0 with *fi from a frame-info frame's content, FINFO_DAMAGED with *fi as read when its
 * checksum fails, -1 when it is none this build reads. */
#define FINFO_DAMAGED 1
int finfo_decode(const uint8_t *p, size_t n, struct pmt_ctr_frame_info *fi);
#endif
