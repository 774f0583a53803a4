/* A table of fixed-size entries found by their key (the first ksz bytes, a multiple of 8,
 * padding zeroed): entries in insertion order in a dense array, open-addressing slots
 * holding entry index + 1. Both grow by doubling. pprof's interning tables. Private to
 * decode/export. */
#ifndef PMT_EXPORT_ITAB_H
#define PMT_EXPORT_ITAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct itab {
	uint32_t *slot;
	size_t cap;        /* slots, a power of two */
	size_t n;          /* entries */
	size_t ksz, esz;
	unsigned char *ent;
	size_t ent_cap;
};

/* entry i (insertion order) */
static inline void *itab_ent(const struct itab *t, size_t i)
{
	return t->ent + i * t->esz;
}

/* The entry of key (a new one zeroed after its key, *is_new set); NULL: out of memory. */
void *itab_get(struct itab *t, const void *key, bool *is_new);
/* every entry forgotten, the memory kept for the next ones */
void itab_clear(struct itab *t);
void itab_free(struct itab *t);

#endif
