/* A trace's own PERF_RECORD_SAMPLEs as samples, held in time order until the SPE merge
 * (or the end of the trace) reaches their time. Private to decode/spe. */
#ifndef PMT_SPE_EVSEL_SAMPLES_H
#define PMT_SPE_EVSEL_SAMPLES_H

#include "pmutrace/spe_decode.h"

struct evsel_samples {
	struct pmt_spe_sample *s; /* [next, n) not yet emitted, sorted by time, stable */
	size_t n, cap, next;
};

/* The SAMPLE record ev as a sample, inserted in time order. 0, or -PMT_ENOMEM. A record
 * whose id matches no attr is skipped (0). */
int evsel_samples_add(struct evsel_samples *b, const struct pmt_trace_meta *m,
		      const struct pmt_trace_event *ev);
/* Hand on every held sample with time <= upto, oldest first: to record_fn (one sample a
 * call) when set, else to fn. Returns 0 or the callback's negative value. */
int evsel_samples_flush(struct evsel_samples *b, uint64_t upto,
			const struct pmt_spe_run_opts *o, pmt_spe_sample_fn fn, void *ctx);
void evsel_samples_fini(struct evsel_samples *b);

#endif
