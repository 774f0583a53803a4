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
#endif
