/* Counts frames (FORMAT.md "Counts frames"): a data frame's STAT and STAT_ROUND records
 * by column, written after its frame info (counts_cols.c) and read (counts_read.c). */
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

/* Shared by the writer (counts_cols.c) and the reader (counts_read.c) */
#define REC_STAT 76
#define REC_STAT_ROUND 77
#define STAT_SIZE 48
#define ROUND_SIZE 24
#define REC_AUXTRACE 71
#define HEAD 56        /* "PMTCOUNT", version, placement, counts, raw payload size */
#define HEAD2 72       /* version 2: and the types of the frame's other records */
#define NCOLS 7        /* segments, round types, round times, keys, values, enabled, running */
#define NCOLS2 8       /* version 2: and the gaps */
#define NCOLS3 5       /* version 3: segments, round types, round times, shape, values */
#define COUNTS_VERSION 1
#define COUNTS_MIXED 2 /* the frame holds other records too */
#define COUNTS_SHAPED 3 /* counts alone, the usual records' key, enabled and running unwritten */
#define STANDIN 32     /* ctr_counts_keep()'s entry for other records */

enum { C_SEG, C_RTYPE, C_RTIME, C_KEY, C_VAL, C_ENA, C_RUN, C_GAP };
enum { C_SHAPE = C_KEY }; /* version 3's column in the keys' place */

/* What a frame holds for its counts frame: STAT and STAT_ROUND records of their sizes
 * (at least one), and the types and bytes of the others. whole: the records as they stand
 * in the frame (an AUXTRACE's AUX bytes after it); else other records are
 * ctr_counts_keep()'s stand-ins (STANDIN bytes: u32 0 where a record's type is, u32 0,
 * u64 the bytes of the records in a row it stands for, u64 x 2 their types). */
struct shape {
	size_t nstats, nrounds;
	uint64_t other_bytes, types[2];
};
bool ctr_counts_shape(const uint8_t *rec, size_t len, bool whole, struct shape *sh);
/* FNV-1a over little-endian 64-bit words (the last one zero-padded), folded to 32 bits */
uint32_t ctr_counts_sum32(const uint8_t *p, size_t n);
/* ctr_counts_sum32() of SUM_LANES buffers at once (a reader checks every counts frame's
 * when it opens a file: one buffer's sum is a chain of multiplies, several run side by
 * side) */
#define SUM_LANES 4
void ctr_counts_sum32_lanes(const uint8_t *const p[SUM_LANES], const size_t n[SUM_LANES],
			    uint32_t out[SUM_LANES]);
#endif
