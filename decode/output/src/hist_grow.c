/* The report's tables that grow to megabytes: see hist_grow.h */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hist_grow.h"

/* THP for the tables that grow to megabytes (one entry per unresolved address): a fault
 * per 2 MB instead of per 4 KB, and no TLB miss per entry when they are walked out of
 * order. Only advice (no THP, or a small table: nothing changes). The whole pages of the
 * block are advised: a part would split its mapping, and realloc's mremap then fails over
 * to a copy. */
void hist_advise_huge(void *p, size_t size)
{
	const uintptr_t page = 4096;
	uintptr_t start = (uintptr_t)p & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + size + page - 1) & ~(page - 1);

	if (size >= HUGE_PAGE)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
}

/* A table of *cap elements of elem bytes, twice as large (the contents kept), or NULL. The
 * first time it passes 256 KB it moves to a 2 MB-aligned block with room for 64 MB
 * (address space only until written): doubling by realloc had faulted most of it in 4 KB
 * pages before any 2 MB range was free to take a huge one. At 2 MB, as first done, the
 * doublings below still took ~300 of the symbolized bench's 3,500 page faults (the entries
 * and their counts); a table that stops between 256 KB and 2 MB takes a 2 MB page. */
void *hist_grow_table(void *p, size_t *cap, size_t elem)
{
	const size_t reserve = (size_t)64 << 20, old = *cap * elem, to_huge = (size_t)256 << 10;
	size_t bytes = old * 2;
	void *q;

	if (old < to_huge && bytes >= to_huge) {
		bytes = bytes < reserve ? reserve : (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		q = aligned_alloc(HUGE_PAGE, bytes);
		if (!q)
			return NULL;
		madvise(q, bytes, MADV_HUGEPAGE);
		memcpy(q, p, old);
		free(p);
	} else {
		q = realloc(p, bytes);
		if (!q)
			return NULL;
		hist_advise_huge(q, bytes);
	}
	*cap = bytes / elem;
	return q;
}

/* The index table is made anew at each doubling: calloc's fresh mapping faulted each 4 KB
 * of it (~450 of the symbolized bench's page faults for its 55k entries) */
void *hist_zeroed(size_t size)
{
	const size_t to_huge = (size_t)256 << 10;
	void *p;

	if (size < to_huge)
		return calloc(1, size ? size : 1);
	size = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	p = aligned_alloc(HUGE_PAGE, size);
	if (p) {
		madvise(p, size, MADV_HUGEPAGE);
		memset(p, 0, size);
	}
	return p;
}
