/* A trace's own PERF_RECORD_SAMPLEs as samples, held in time order until the SPE merge
 * (or the end of the trace) reaches their time. Private to decode/spe. */
#ifndef PMT_SPE_EVSEL_SAMPLES_H
#define PMT_SPE_EVSEL_SAMPLES_H

#include "pmutrace/spe_decode.h"

/* Samples are appended in file order; a flush sorts the keys (time, position) of those
 * not yet emitted once, then walks them. Adding after a flush first moves the samples
 * still waiting to the front, in file order, so equal times keep it. */
struct evsel_key {
	uint64_t time;
	size_t idx;
};
struct evsel_samples {
	struct pmt_spe_sample *s; /* [0, n) in file order */
	size_t n, cap;
	/* callchains, copied out of their records (which a pipe or a COMPRESSED record
	 * reuses): chain_at[i] is sample i's offset in chains (a struct pmt_callchain),
	 * SIZE_MAX for none; the pointer is set when the sample is handed on */
	size_t *chain_at;
	uint64_t *chains;
	size_t chains_len, chains_cap;
	/* --call-graph dwarf: each sample's user registers and valid stack bytes, copied
	 * out of its record, unwound when the sample is handed on (in time order, when the
	 * maps it needs have been seen: a ring read late can put a sample before its
	 * process's MMAP in the file); ustk[i].off is SIZE_MAX for none */
	struct evsel_ustack {
		size_t off;
		uint64_t abi, mask, stack_size;
	} *ustk;
	uint8_t *upool;
	size_t upool_len, upool_cap;
	uint8_t swap;             /* the file's byte order is not the host's */
	uint64_t *merged;         /* the chain handed on: kernel part, then the user frames */
	size_t merged_cap;
	struct evsel_key *k;      /* [next, nk) sorted, waiting; valid while sorted */
	size_t nk, next, kcap;
	uint8_t sorted;
};

/* The SAMPLE record ev as a sample, inserted in time order; its user stack is kept for
 * o's unwind_fn when it has one. 0, or -PMT_ENOMEM. A record
 * whose id matches no attr is skipped (0). */
int evsel_samples_add(struct evsel_samples *b, const struct pmt_trace_meta *m,
		      const struct pmt_trace_event *ev, const struct pmt_spe_run_opts *o);
/* Hand on every held sample with time <= upto, oldest first: to record_fn (one sample a
 * call) when set, else to fn; a kept user stack unwound by o's unwind_fn first. Returns
 * 0 or the callback's negative value. */
int evsel_samples_flush(struct evsel_samples *b, uint64_t upto,
			const struct pmt_spe_run_opts *o, pmt_spe_sample_fn fn, void *ctx);
/* Would a flush up to upto hand on a sample? (false when none is held) */
bool evsel_samples_due(struct evsel_samples *b, uint64_t upto);
void evsel_samples_fini(struct evsel_samples *b);

#endif
