/* Private layout of struct pmt_counts: a dense units x events matrix. */
#ifndef PMT_COUNTS_PRIV_H
#define PMT_COUNTS_PRIV_H

#include "pmutrace/metrics.h"

struct pmt_counts_event {
	char *name;
	struct pmt_event_key key;
};

struct pmt_counts_unit {
	char *interval;
	char *aggr;
};

struct pmt_counts {
	struct pmt_counts_event *events;
	struct pmt_counts_unit *units;
	size_t nr_events, nr_units;
	size_t ecap, ucap;   /* matrix row length and row count */
	double *val;         /* [ucap][ecap], NaN when unset */
	uint32_t *src;       /* lines merged into each cell */
	/* open-addressing indexes (slot = index + 1, 0 = empty); perf prints one line per
	 * event and unit, so loading 10k CPUs must not scan every unit per line */
	uint32_t *ehash, *uhash;
	size_t ehcap, uhcap;
};

#endif
