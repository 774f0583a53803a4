/* The writer's compression threads (writer_pool.c): data frames are independent, so each
 * whole frame is compressed, and its AUX bytes walked for the frame info, by one thread
 * with a single-threaded zstd context of its own; the writer's thread writes the frames
 * in order. Frames go round a ring of slots, so memory is the slots' buffers, reused.
 * Private to formats/container. */
#ifndef PMT_CTR_WRITER_POOL_H
#define PMT_CTR_WRITER_POOL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame_info.h"

struct ctr_slot {
	uint8_t *buf;           /* the frame's records, as the writer copied them in */
	size_t len, cap;
	uint8_t *z;             /* the compressed frame, once done */
	size_t zlen, zcap;
	int level;
	int err;                /* -PMT_ECOMPRESS / -PMT_ENOMEM from its thread */
	struct pmt_ctr_frame_info fi;  /* what the writer gathered; its chunks are applied
					* when the frame is written */
	struct finfo_chunks chunks;    /* scanned by the thread */
	bool counts;            /* make its counts frame (FORMAT.md, "Counts frames") */
	uint8_t *counts_frame;  /* made by the thread when the frame is all STAT records */
	size_t counts_len;
};

struct ctr_pool;

/* threads >= 1 threads; slots >= 2 frames in the ring (one filled by the writer, the
 * others handed over or waiting to be written). 0 or -PMT_ENOMEM. */
int ctr_pool_new(struct ctr_pool **out, unsigned threads, unsigned slots);
/* The slot the writer fills (len 0 after a hand-over). */
struct ctr_slot *ctr_pool_filling(struct ctr_pool *p);
/* Hand the filled slot to the threads. Afterwards ctr_pool_filling() is valid only when
 * ctr_pool_room() says so. */
void ctr_pool_submit(struct ctr_pool *p);
/* Whether the slot after the one handed over is free to fill. */
bool ctr_pool_room(const struct ctr_pool *p);
/* The oldest frame handed over, when it is compressed (wait: until it is; NULL when none
 * is handed over); the writer writes it, then ctr_pool_release(). */
struct ctr_slot *ctr_pool_oldest_done(struct ctr_pool *p, bool wait);
void ctr_pool_release(struct ctr_pool *p);
/* Bytes handed over and not compressed yet; *active: frames handed over and not done. */
uint64_t ctr_pool_backlog(struct ctr_pool *p, int *active);
/* Until one more frame is compressed (returns at once when none is pending). */
void ctr_pool_wait_progress(struct ctr_pool *p);
void ctr_pool_free(struct ctr_pool *p);
/* The writer's zstd parameters for a frame at a level, aux: at least half its bytes are
 * AUX bytes (the level, or -1: level 1 with a smaller hash table); a zstd context
 * (ZSTD_CCtx *) set to them */
#define CTR_LEVEL1_HASHLOG 12
int ctr_zstd_params(int level, bool aux);
void ctr_zstd_level(void *cctx, int params);
#endif
