/* Counts frames (counts_cols.c, FORMAT.md "Counts frames"): a data frame's STAT and
 * STAT_ROUND records by column, written after its frame info. */
#ifndef PMT_CTR_COUNTS_COLS_H
#define PMT_CTR_COUNTS_COLS_H
#include <stddef.h>
#include <stdint.h>

#define SKIP_COUNTS 0x184D2A56u /* skippable frame: the counts of the data frame before it */

/* The content of a counts frame for a data frame's records (placement fields zero until
 * ctr_counts_place): 0 with *out (malloc'd) and *n, 1 when the records are not all STAT
 * and STAT_ROUND (no counts frame), -PMT_ENOMEM or -PMT_ECOMPRESS. */
int ctr_counts_encode(const uint8_t *rec, size_t len, uint8_t **out, size_t *n);
/* A streamed frame's record (pieces v[n], len bytes) appended at buf[used] for its counts
 * frame, buf grown to at least grow_to: 1, 0 when it is no STAT or STAT_ROUND record (the
 * frame gets no counts frame), -PMT_ENOMEM. */
struct pmt_ctr_piece;
int ctr_counts_keep(uint8_t **buf, size_t *cap, size_t used, size_t grow_to,
		    const struct pmt_ctr_piece *v, unsigned n, size_t len);
/* Where the data frame landed, and the checksum over it all */
void ctr_counts_place(uint8_t *c, size_t n, uint32_t index, uint64_t offset,
		      uint64_t stream_offset, uint32_t stream_size);
#endif
