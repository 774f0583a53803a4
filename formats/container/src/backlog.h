/* The writer's policy when compression cannot keep up (pmt_ctr_writer_opts.backlog): how far
 * the compression threads are behind, and what the next record meets. Private to formats/container. */
#ifndef PMT_CTR_BACKLOG_H
#define PMT_CTR_BACKLOG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmutrace/container.h"

#define SKIP_WSTATS 0x184D2A55u /* skippable frame: the writer's backlog counts, at close */
#define WSTATS_SIZE 64

struct ctr_backlog {
	uint64_t max;
	/* tests: a model compressor that takes test_rate bytes per record handed over, so that
	 * what each policy does is known to the byte (PMT_CTR_TEST_COMPRESS_RATE) */
	uint64_t test_rate, test_pending;
	bool over_in_frame;     /* the bound was passed in this frame (LOWER: lower next) */
	uint64_t peak;          /* the most the backlog came to in this frame */
	uint32_t calm_frames;   /* frames in a row whose peak stayed under half the bound */
	bool frame_started;     /* a record went into the current frame */
	int level;              /* of the current frame */
	struct pmt_ctr_writer_stats st;
};

struct ctr_pool;
/* max: the caller's bound, 0 for pool_max (the compression threads' frames in hand; 0
 * without threads) or, without either, 2 MiB */
void backlog_init(struct ctr_backlog *b, uint8_t policy, uint32_t max, uint64_t pool_max,
		  int level);
/* Before a record of len bytes (an AUXTRACE one: auxtrace) goes into a frame (pool: the
 * compression threads, NULL when the caller's thread compresses: never behind): true to
 * write it (after waiting when the policy says so), false to drop it (counted). */
bool backlog_admit(struct ctr_backlog *b, struct ctr_pool *pool, size_t len, bool auxtrace);
uint64_t backlog_clock(void); /* ns, monotonic */
/* The writer waited for a free frame slot: a wait like the policy's (counted). */
void backlog_count_wait(struct ctr_backlog *b, uint64_t ns);
/* A frame was ended (zstd compressed all of it): the level of the next frame. */
int backlog_frame_end(struct ctr_backlog *b);
/* The stats frame's content (WSTATS_SIZE bytes), and back: 0, or -1 when it is none. */
void backlog_encode(const struct pmt_ctr_writer_stats *st, uint8_t *out);
int backlog_decode(const uint8_t *p, size_t n, struct pmt_ctr_writer_stats *st);
#endif
