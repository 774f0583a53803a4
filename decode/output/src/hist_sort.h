/* The orders of a pmt_hist's entries (report_sort.c), by index into its entries. Private
 * to decode/output. */
#ifndef PMT_OUTPUT_HIST_SORT_H
#define PMT_OUTPUT_HIST_SORT_H

#include "hist_table.h"

/* order[] (h->n of them) gets every entry in the keys' order (report --sort's), ties by
 * address, then by first seen; tmp and key are scratch of h->n each. 0 or -PMT_ENOMEM. */
int hist_key_order(const struct pmt_hist *h, uint32_t *order, uint32_t *tmp, uint64_t *key);
/* Stable: order[] (n entry indexes) by key[entry] descending; tmp is scratch of n */
void hist_sort_desc(uint32_t *order, uint32_t *tmp, size_t n, uint64_t *key);
/* Stable: order[] by key[entry] ascending */
void hist_sort_asc(uint32_t *order, uint32_t *tmp, size_t n, const uint64_t *key);

#endif
