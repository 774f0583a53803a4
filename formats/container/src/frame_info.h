/* Frame info (FORMAT.md): what each data frame holds (CPUs, SPE time range, record counts),
 * gathered by the writer as records pass and written as a skippable frame after the frame. */
#ifndef PMT_CTR_FRAME_INFO_H
#define PMT_CTR_FRAME_INFO_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmutrace/container.h"

#define SKIP_FINFO 0x184D2A54u /* skippable frame: the info of the data frame before it */
#define FINFO_SIZE_V1 88       /* its content as first written */
#define FINFO_SIZE 104         /* + the frame's stream offset and size (same version, 1) */
#define FINFO_MAX_CPU 4096

struct finfo_acc {
	uint8_t started;        /* the pipe header went by */
	uint8_t swap;           /* records in the other byte order */
	uint8_t unknown;        /* not a pipe-mode perf.data: frames get PMT_CTR_FI_UNPARSED */
	uint64_t open[FINFO_MAX_CPU / 64]; /* CPUs whose last AUX bytes ended inside a record */
	struct pmt_ctr_frame_info cur;
};

void finfo_reset(struct finfo_acc *a);
/* One or more whole records (or the pipe header) handed to the writer. */
void finfo_add(struct finfo_acc *a, const uint8_t *rec, size_t len);
/* The same, for records handed over in pieces (pmt_ctr_writev). */
void finfo_addv(struct finfo_acc *a, const struct pmt_ctr_piece *v, unsigned n);
/* Whether a write of len bytes, whose first piece (hdr_len bytes) starts at rec, is one
 * AUXTRACE record and its AUX bytes, nothing else. */
bool finfo_is_auxtrace(const struct finfo_acc *a, const uint8_t *rec, size_t hdr_len,
		       size_t len);
/* The content of the frame-info frame of the frame just closed: FINFO_SIZE bytes, or with
 * short_form the FINFO_SIZE_V1 bytes an older writer wrote (for tests of older files).
 * Returns the size. */
size_t finfo_encode(const struct pmt_ctr_frame_info *fi, uint8_t *out, bool short_form);
/* 0 with *fi from a frame-info frame's content, -1 when it is none this build reads. */
int finfo_decode(const uint8_t *p, size_t n, struct pmt_ctr_frame_info *fi);
#endif
