/* perf report's entries without Children, each event's sorted as perf sorts them
 * (report_flat.c), and what the text's printing (report_print.c) lends it. Private to
 * decode/output. */
#ifndef PMT_OUTPUT_HIST_FLAT_H
#define PMT_OUTPUT_HIST_FLAT_H

#include "hist_table.h"

/* an event's sorted entries; widest: the columns' widths, or NULL; < 0 stops */
typedef int (*hist_event_fn)(struct pmt_hist *h, unsigned ev, struct hent **v, size_t n,
			     const unsigned *widest, void *ctx);
/* Each event's entries with samples there, by period down, then rank_of (every entry's
 * place in the keys' order), to fn; w, ord, tmp, key: scratch of h->n each. text: fn
 * prints the text report there (as hist_print_event() at compat), which lets a large
 * table's later events be printed on a second thread (h->jobs); NULL: fn is anything. */
int hist_flat_events(struct pmt_hist *h, hist_event_fn fn, void *ctx, bool widths,
		     struct hent **w, uint32_t *ord, uint32_t *tmp, uint64_t *key,
		     const uint64_t *rank_of, struct pmt_out *text, int compat);
/* a cell's width as the text's columns count it (buf: scratch of cap >= 64) */
size_t hist_cell_width(const struct pmt_hist *h, const struct hent *e, enum key k, unsigned ev,
		       char *buf, size_t cap);
/* the text of one event: its header, then a row per entry of v */
void hist_print_event(struct pmt_hist *h, struct pmt_out *out, unsigned ev, int compat,
		      struct hent **v, size_t n, const unsigned *widest);

#endif
