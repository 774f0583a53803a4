/* A counting recording's counts frames (stat_cols.c): the data frames holding only STAT
 * records are passed over and their records come by column instead, in stream order. */
#ifndef PMT_STAT_COLS_H
#define PMT_STAT_COLS_H
#include <stdbool.h>
#include <stdint.h>

#include "pmutrace/container.h"
#include "pmutrace/perfdata.h"

struct stat_cols;
/* The STAT records of one counts frame up to its next STAT_ROUND (or its end) */
struct stat_run {
	const struct pmt_ctr_counts_frame *f;
	uint32_t frame;        /* changes with each counts frame (keys are per frame) */
	uint32_t first, n;     /* f's STAT records [first, first + n) */
	uint64_t off;          /* the stream offset of the first one (each is 48 bytes) */
	bool round;            /* a STAT_ROUND follows them */
	uint64_t round_time;
};
/* Before the first record of src is read past its metadata: 1 with *out when some data
 * frames will come from their counts frames, 0 when none will (a perf.data, a container
 * without counts frames, through a pipe, or with all of them damaged: said under -v),
 * -PMT_ENOMEM. */
int stat_cols_open(struct pmt_source *src, const char *path, struct stat_cols **out);
/* The next run due before stream offset `before` (UINT64_MAX: at the end): 1 with *run,
 * 0 when none is due, -PMT_ENOMEM. A counts frame that passed its checksum and does not
 * decode is warned of and its data frame's records are read instead (when they do not
 * decode either, its counts are lost, also warned of). */
int stat_cols_peek(struct stat_cols *c, uint64_t before, struct stat_run *run);
/* The frames after the one being read decoded ahead on n threads (0: none): the runs,
 * warnings and order are those without threads. 0 or -PMT_ENOMEM. */
int stat_cols_threads(struct stat_cols *c, unsigned n);
/* The frames decoded from now on leave the values of the keys fn clears unread
 * (pmt_ctr_counts_want); before stat_cols_threads(), else it is not applied (the runs are
 * the same either way): 1 applied, 0 not. */
int stat_cols_want(struct stat_cols *c,
		   void (*fn)(const struct pmt_ctr_count_key *keys, uint32_t nkeys, uint8_t *want,
			      void *ctx),
		   void *ctx);
/* n STAT records of the run taken, and its STAT_ROUND with them when round */
void stat_cols_take(struct stat_cols *c, uint32_t n, bool round);
void stat_cols_close(struct stat_cols *c);
#endif
