/* The orders report --sort prints a pmt_hist's entries in (report_print.c says which), by
 * radix sorts over integer keys: the names of the string keys are ranked once, so an entry
 * is never compared by strcmp, and no comparison function is called per pair. With ~120k
 * entries (a trace with many unresolved addresses) qsort's compares were an eighth of a
 * symbolized report's time. */
#include <stdlib.h>

#include "pmutrace/common.h"
#include "hist_table.h"
#include "hist_sort.h"

/* Stable: order[] by key[order[i]] ascending, a byte per pass of the keys less the least
 * one: the bytes above their span's take no pass (kernel and user addresses together span
 * 5 bytes, where each of the 8 bytes varied), nor do those that are 0 in every one (small
 * periods and ranks need one or two) */
static void radix_by(uint32_t *order, uint32_t *tmp, size_t n, const uint64_t *key)
{
	uint64_t lo = UINT64_MAX, hi = 0, all_or = 0;

	for (size_t i = 0; i < n; i++) {
		lo = key[order[i]] < lo ? key[order[i]] : lo;
		hi = key[order[i]] > hi ? key[order[i]] : hi;
	}
	for (size_t i = 0; i < n; i++)
		all_or |= key[order[i]] - lo;
	for (unsigned sh = 0; sh < 64 && ((hi - lo) >> sh); sh += 8) {
		size_t count[257] = { 0 };

		if (!((all_or >> sh) & 0xff))
			continue;
		for (size_t i = 0; i < n; i++)
			count[(((key[order[i]] - lo) >> sh) & 0xff) + 1]++;
		for (unsigned d = 1; d < 257; d++)
			count[d] += count[d - 1];
		for (size_t i = 0; i < n; i++)
			tmp[count[((key[order[i]] - lo) >> sh) & 0xff]++] = order[i];
		memcpy(order, tmp, n * sizeof(*order));
	}
}

void hist_sort_asc(uint32_t *order, uint32_t *tmp, size_t n, const uint64_t *key)
{
	radix_by(order, tmp, n, key);
}

void hist_sort_desc(uint32_t *order, uint32_t *tmp, size_t n, uint64_t *key)
{
	for (size_t i = 0; i < n; i++)
		key[order[i]] = ~key[order[i]];
	radix_by(order, tmp, n, key);
	for (size_t i = 0; i < n; i++)
		key[order[i]] = ~key[order[i]];
}

struct named {
	const char *s;
	uint32_t rank;
};

static int cmp_named(const void *pa, const void *pb)
{
	return strcmp(((const struct named *)pa)->s, ((const struct named *)pb)->s);
}

static const char *key_text(const struct pmt_hist *h, const struct hent *e, enum key k)
{
	return k == KEY_SYM	    ? e->sym
	       : k == KEY_DSO	    ? e->dso
	       : k == KEY_SRCLINE ? e->srcline
	       : k == KEY_SRCFILE ? e->srcfile
				    : h->comms + e->comm;
}

static size_t text_slot(const char *s, size_t cap)
{
	return (size_t)(((uintptr_t)s * 0x9e3779b97f4a7c15ULL) >> 20) & (cap - 1);
}

/* key[i]: the rank of entry i's text for k among the distinct texts (strcmp's order, equal
 * texts equal), no text (NULL) after every text, as perf's sort__sym_cmp puts it: the rank
 * past the last (UINT64_MAX there made the radix sort take all 8 bytes) */
static int text_ranks(const struct pmt_hist *h, enum key k, uint64_t *key)
{
	size_t cap = 64, nd = 0;
	const char **set;
	uint32_t *at;
	struct named *d;

	while (cap < h->n * 2)
		cap *= 2;
	set = calloc(cap, sizeof(*set));
	at = malloc(cap * sizeof(*at));
	d = malloc((h->n ? h->n : 1) * sizeof(*d));
	if (!set || !at || !d) {
		free(set);
		free(at);
		free(d);
		return -PMT_ENOMEM;
	}
	/* the texts are shared (interned names of a file, the comm pool): distinct
	 * pointers, far fewer than entries, are ranked */
	for (size_t i = 0; i < h->n; i++) {
		const char *s = key_text(h, &h->e[i], k);
		size_t j;

		if (!s)
			continue;
		for (j = text_slot(s, cap); set[j] && set[j] != s; j = (j + 1) & (cap - 1))
			;
		if (!set[j]) {
			set[j] = s;
			d[nd++] = (struct named){ s, 0 };
		}
	}
	qsort(d, nd, sizeof(*d), cmp_named);
	for (size_t i = 0; i < nd; i++)
		d[i].rank = i && !strcmp(d[i - 1].s, d[i].s) ? d[i - 1].rank : (uint32_t)i;
	for (size_t i = 0; i < nd; i++) {
		size_t j;

		for (j = text_slot(d[i].s, cap); set[j] != d[i].s; j = (j + 1) & (cap - 1))
			;
		at[j] = d[i].rank;
	}
	for (size_t i = 0; i < h->n; i++) {
		const char *s = key_text(h, &h->e[i], k);
		size_t j;

		if (!s) {
			key[i] = nd;
			continue;
		}
		for (j = text_slot(s, cap); set[j] != s; j = (j + 1) & (cap - 1))
			;
		key[i] = at[j];
	}
	free(set);
	free(at);
	free(d);
	return 0;
}

int hist_key_order(const struct pmt_hist *h, uint32_t *order, uint32_t *tmp, uint64_t *key)
{
	/* entries are made in seq order: the last tie-break is the start */
	for (size_t i = 0; i < h->n; i++)
		order[i] = (uint32_t)i;
	/* perf's _sort__addr_cmp: the sign of the 64-bit difference, so kernel addresses
	 * (negative as such) come before user ones; as a signed order (the same for any two
	 * addresses less than 2^63 apart) */
	for (size_t i = 0; i < h->n; i++)
		key[i] = h->tree_ord ? h->tree_ord[i] : h->e[i].ip ^ (1ULL << 63);
	radix_by(order, tmp, h->n, key);
	for (unsigned c = h->nkeys; c-- > 0;) {
		enum key k = h->keys[c];

		if (k == KEY_SYM || k == KEY_DSO || k == KEY_COMM || k == KEY_SRCLINE ||
		    k == KEY_SRCFILE) {
			PMT_FORWARD_IF_ERROR(text_ranks(h, k, key));
		} else {
			for (size_t i = 0; i < h->n; i++) {
				const struct hent *e = &h->e[i];

				key[i] = k == KEY_CPU ? e->cpu
					 : k == KEY_PID ? (uint32_t)e->tid ^ 0x80000000u
							: e->mem_f[k - KEY_MEM];
			}
		}
		radix_by(order, tmp, h->n, key);
	}
	return 0;
}
