/* Copies of transient AUX chunks (read from a frame or a pipe that is reused after): the
 * decode window holds megabytes of them (set_window() in spe_session.c), taken and given
 * back at every chunk, on the merge's thread only. */
#ifndef PMT_SPE_CHUNK_POOL_H
#define PMT_SPE_CHUNK_POOL_H
#include <stddef.h>

#define CHUNK_POOL_CLASSES 37 /* piece sizes, 4 KiB to 2 MiB (chunk_pool.c) */

struct chunk_pool {
	void *free[CHUNK_POOL_CLASSES]; /* given-back pieces by size, linked through their start */
	unsigned char *carve; /* the rest of the newest block */
	size_t left;
	void **blocks;      /* 2 MiB blocks, freed at the end */
	size_t nblocks, cap;
};

/* size bytes (a piece of its size class up to 2 MiB, else malloc's), or NULL */
void *chunk_pool_get(struct chunk_pool *p, size_t size);
/* gives back chunk_pool_get(p, size)'s p */
void chunk_pool_put(struct chunk_pool *p, void *data, size_t size);
void chunk_pool_fini(struct chunk_pool *p);
#endif
