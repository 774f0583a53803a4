/* The interning tables of itab.h. */
#include <stdlib.h>
#include <string.h>

#include "itab.h"

static uint64_t key_hash(const void *key, size_t ksz)
{
	const unsigned char *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < ksz; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

static size_t itab_find(const struct itab *t, const void *key, uint64_t h)
{
	size_t i = (size_t)h & (t->cap - 1);

	while (t->slot[i] && memcmp(itab_ent(t, t->slot[i] - 1), key, t->ksz))
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* The entry of key (a new one zeroed after its key, *is_new set); NULL: out of memory. */
void *itab_get(struct itab *t, const void *key, bool *is_new)
{
	uint64_t h = key_hash(key, t->ksz);
	size_t i;
	void *e;

	*is_new = false;
	if (t->cap) {
		i = itab_find(t, key, h);
		if (t->slot[i])
			return itab_ent(t, t->slot[i] - 1);
	}
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		uint32_t *s = calloc(cap, sizeof(*s));

		if (!s || cap > UINT32_MAX)
			return free(s), NULL;
		free(t->slot);
		t->slot = s;
		t->cap = cap;
		for (size_t j = 0; j < t->n; j++) {
			const void *k = itab_ent(t, j);

			t->slot[itab_find(t, k, key_hash(k, t->ksz))] = (uint32_t)j + 1;
		}
	}
	if (t->n == t->ent_cap) {
		size_t n = t->ent_cap ? 2 * t->ent_cap : 256;
		unsigned char *p = realloc(t->ent, n * t->esz);

		if (!p)
			return NULL;
		t->ent = p;
		t->ent_cap = n;
	}
	e = itab_ent(t, t->n);
	memset(e, 0, t->esz);
	memcpy(e, key, t->ksz);
	t->slot[itab_find(t, key, h)] = (uint32_t)++t->n;
	*is_new = true;
	return e;
}

void itab_clear(struct itab *t)
{
	if (t->slot)
		memset(t->slot, 0, t->cap * sizeof(*t->slot));
	t->n = 0;
}

void itab_free(struct itab *t)
{
	free(t->slot);
	free(t->ent);
}
