/* The report's tables that grow to megabytes (one entry per unresolved address): THP
 * advice and growth. Private to decode/output. */
#ifndef PMT_OUTPUT_HIST_GROW_H
#define PMT_OUTPUT_HIST_GROW_H

#include <stddef.h>

#define HUGE_PAGE ((size_t)2 << 20)

/* MADV_HUGEPAGE over the pages of a block of size bytes at p, when it is >= 2 MB */
void hist_advise_huge(void *p, size_t size);
/* the table twice as large (contents kept, *cap updated), or NULL */
void *hist_grow_table(void *p, size_t *cap, size_t elem);
/* size bytes of zeros (calloc's), in 2 MB pages from 256 KB on; free() it. NULL: out of
 * memory */
void *hist_zeroed(size_t size);

#endif
