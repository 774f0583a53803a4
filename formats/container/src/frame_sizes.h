/* Data frames' sizes from the container's index (frame_sizes.c). Private to
 * formats/container. */
#ifndef PMT_CTR_FRAME_SIZES_H
#define PMT_CTR_FRAME_SIZES_H
#include <stddef.h>
#include <stdint.h>

/* The index's entries (offset, compressed and uncompressed size of every data frame), or
 * none: a file cut before its end, damaged or from before the index was written */
struct ctr_sizes {
	const uint8_t *ent;   /* 16 bytes each, by offset */
	uint32_t n, at;       /* at: where the last lookup stopped (walks go forward) */
};

void ctr_sizes_init(struct ctr_sizes *z, const uint8_t *b, size_t len);
/* The bytes of the zstd frame at pos: the index's figure when it has one for pos and the
 * frame after it starts where that says, else zstd's own walk of the frame's blocks (a
 * ZSTD_isError() value when that fails too). */
size_t ctr_frame_size(struct ctr_sizes *z, const uint8_t *b, size_t len, size_t pos);
#endif
