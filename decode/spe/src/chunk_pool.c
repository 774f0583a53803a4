/* The window's chunk copies in 2 MiB pages (chunk_pool.h). Taken from malloc, the first
 * window's worth (8 MiB for 64 KiB chunks) was faulted in 4 KiB pages, ~2k page faults of
 * script --csv on the 1M-record container, on the merge's thread before the first record is
 * merged: at -j 2 the sampler's thread has nothing to do meanwhile (README, issue 9's row).
 * Pieces come in 4 sizes an octave from 4 KiB (a chunk wastes less than a quarter of its
 * size), and one given back serves any later chunk of its size class. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "chunk_pool.h"

#define HUGE_PAGE ((size_t)2 << 20)

/* 4, 5, 6, 7, 8, 10, 12, 14, 16, 20 KiB... 2 MiB: class 36 */
static size_t piece_of(int c)
{
	return (size_t)(4 + (c & 3)) << (10 + c / 4);
}

static int class_of(size_t size)
{
	int c = 0;

	while (c < CHUNK_POOL_CLASSES && piece_of(c) < size)
		c++;
	return c;
}

void *chunk_pool_get(struct chunk_pool *p, size_t size)
{
	int c = class_of(size);
	size_t piece = piece_of(c);
	void *d;

	if (c == CHUNK_POOL_CLASSES)
		return malloc(size);
	if (p->free[c]) {
		d = p->free[c];
		p->free[c] = *(void **)d;
		return d;
	}
	if (p->left < piece) {
		void *b;

		if (p->nblocks == p->cap) {
			size_t nc = p->cap ? 2 * p->cap : 16;
			void **nb = realloc(p->blocks, nc * sizeof(*nb));

			if (!nb)
				return NULL;
			p->blocks = nb;
			p->cap = nc;
		}
		b = aligned_alloc(HUGE_PAGE, HUGE_PAGE);
		if (!b)
			return NULL;
		madvise(b, HUGE_PAGE, MADV_HUGEPAGE);
		p->blocks[p->nblocks++] = b;
		p->carve = b;
		p->left = HUGE_PAGE;
	}
	d = p->carve;
	p->carve += piece;
	p->left -= piece;
	return d;
}

void chunk_pool_put(struct chunk_pool *p, void *data, size_t size)
{
	int c = class_of(size);

	if (c == CHUNK_POOL_CLASSES) {
		free(data);
		return;
	}
	*(void **)data = p->free[c];
	p->free[c] = data;
}

void chunk_pool_fini(struct chunk_pool *p)
{
	for (size_t i = 0; i < p->nblocks; i++)
		free(p->blocks[i]);
	free(p->blocks);
}
