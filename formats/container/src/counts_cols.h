/* Counts frames (counts_cols.c, FORMAT.md "Counts frames"): a data frame's STAT and
 * STAT_ROUND records by column, written after its frame info. */
#ifndef PMT_CTR_COUNTS_COLS_H
#define PMT_CTR_COUNTS_COLS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SKIP_COUNTS 0x184D2A56u /* skippable frame: the counts of the data frame before it */

/* The content of a counts frame for a data frame's records (placement fields zero until
 * ctr_counts_place): 0 with *out (malloc'd) and *n, 1 when there is none (no STAT or
 * STAT_ROUND record, one of another size, a record type over 127), -PMT_ENOMEM or
 * -PMT_ECOMPRESS. whole: rec is the frame's bytes; else what ctr_counts_keep() kept. */
int ctr_counts_encode(const uint8_t *rec, size_t len, bool whole, uint8_t **out, size_t *n);
/* What a streamed frame keeps for its counts frame (reset len and standin per frame) */
struct ctr_kept {
	uint8_t *buf;
	size_t cap, len;
	size_t standin;        /* 1 + where the stand-in of the last other records is; 0: none */
};
/* A streamed frame's record (pieces v[n], len bytes) kept: a STAT or STAT_ROUND record
 * whole, other records in a row as one stand-in (their bytes and types). 1, 0 when the
 * frame can have no counts frame (a STAT or STAT_ROUND record of another size, a type
 * over 127), -PMT_ENOMEM. */
struct pmt_ctr_piece;
int ctr_counts_keep(struct ctr_kept *k, const struct pmt_ctr_piece *v, unsigned n, size_t len);
/* Where the data frame landed, and the checksum over it all */
void ctr_counts_place(uint8_t *c, size_t n, uint32_t index, uint64_t offset,
		      uint64_t stream_offset, uint32_t stream_size);
#endif
