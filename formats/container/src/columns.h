/* Column frames (columns.c): a data frame whose AUX bytes are split by SPE packet field. */
#ifndef PMT_CTR_COLUMNS_H
#define PMT_CTR_COLUMNS_H
#include <stddef.h>
#include <stdint.h>

#define SKIP_COLUMNS 0x184D2A53u /* skippable frame: a column-encoded data frame */

/* The content of a column frame (after its 8-byte skippable header) for the records of one
 * data frame: 0 with *out (malloc'd), 1 when the records hold no AUX bytes (write the
 * frame as usual), or -PMT_ENOMEM / -PMT_ECOMPRESS. */
int ctr_columns_encode(const uint8_t *rec, size_t len, int level, uint8_t **out,
		       size_t *out_len);
/* The records back from a column frame's content into *buf (grown as needed, at most
 * max bytes): 0 with *len, or -PMT_ECORRUPT with *why, -PMT_ENOMEM. */
int ctr_columns_decode(const uint8_t *in, size_t n, size_t max, uint8_t **buf, size_t *cap,
		       size_t *len, const char **why);
/* What the file holds of a column frame it ends inside (in, n: the content after the
 * skippable header, cut): *total, the records' size (0 with *parts 0 when the header is
 * cut), *parts and *whole, its parts and those the file holds whole. When the first part
 * (the records without their AUX bytes) is whole, returns 1 with the records in *buf
 * (malloc'd, *len bytes), each AUXTRACE record followed by zeros for its AUX bytes, so the
 * frame-info walk can say what the frame held; else 0; -PMT_ENOMEM. */
int ctr_columns_cut(const uint8_t *in, size_t n, uint64_t *total, uint32_t *parts,
		    uint32_t *whole, uint8_t **buf, size_t *len);
#endif
