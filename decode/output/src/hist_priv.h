/* The entries of a pmt_hist, in the order report --sort prints them, for the other writers
 * of decode/output (the HTML report): the same numbers and key texts as the CSV. Private
 * to decode/output. */
#ifndef PMT_OUTPUT_HIST_PRIV_H
#define PMT_OUTPUT_HIST_PRIV_H

#include "pmutrace/output.h"

#define HIST_ROW_KEYS 4
struct hist_row {
	unsigned event;        /* enum pmt_spe_event */
	size_t rank, n;        /* place among the event's entries, and their number */
	uint64_t period, weight, samples;
	uint64_t event_samples, event_period, event_weight; /* the event's totals */
	bool kernel;           /* the sym key's [k] */
	const char *key[HIST_ROW_KEYS]; /* each key's text as the CSV has it */
};
/* fn for the first max_rows entries of every event with samples; fn returning < 0 stops */
int hist_visit(struct pmt_hist *h, size_t max_rows,
	       int (*fn)(void *ctx, const struct hist_row *r), void *ctx);

#endif
