/* pmutrace decode/spe: which samples to keep, as perf's --cpu, --pid, --tid and --time
 * choose them. Included by pmutrace/spe_decode.h; a header of its own so that one stays
 * under the size the house keeps (CONTRIBUTING.md). */
#ifndef PMUTRACE_SAMPLE_FILTER_H
#define PMUTRACE_SAMPLE_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "pmutrace/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmt_spe_sample;
struct pmt_trace_meta;

#define PMT_FILTER_MAX_RANGES 64
struct pmt_id_ranges {
	unsigned n;                          /* 0: no filter */
	uint64_t lo[PMT_FILTER_MAX_RANGES], hi[PMT_FILTER_MAX_RANGES];
};
/* Caller-owned, zero-initialised = everything passes. */
struct pmt_sample_filter {
	struct pmt_id_ranges cpus, pids, tids;
	unsigned nr_time;
	bool time_pct;                       /* percentages waiting for the trace's span */
	double pct_lo[PMT_FILTER_MAX_RANGES], pct_hi[PMT_FILTER_MAX_RANGES];
	uint64_t t_lo[PMT_FILTER_MAX_RANGES], t_hi[PMT_FILTER_MAX_RANGES]; /* ns, inclusive */
};
/* "0-3,7". Each returns 0, -PMT_EPARSE or -PMT_ERANGE (more than 64 ranges). */
PMT_API int pmt_sample_filter_cpus(struct pmt_sample_filter *f, const char *list);
PMT_API int pmt_sample_filter_pids(struct pmt_sample_filter *f, const char *list);
PMT_API int pmt_sample_filter_tids(struct pmt_sample_filter *f, const char *list);
/* perf's --time: "START,STOP" in seconds as perf prints times (either side may be empty),
 * or percentage slices "A%-B%[,C%-D%]" of the span from the first to the last sample,
 * which pmt_sample_filter_set_span() then fixes. */
PMT_API int pmt_sample_filter_time(struct pmt_sample_filter *f, const char *spec);
PMT_API void pmt_sample_filter_set_span(struct pmt_sample_filter *f, uint64_t first,
					uint64_t last);
PMT_API bool pmt_sample_filter_match(const struct pmt_sample_filter *f,
				     const struct pmt_spe_sample *s);
PMT_API bool pmt_sample_filter_active(const struct pmt_sample_filter *f);
/* Whether the trace's samples can be filtered so: --cpu on a trace whose events do not
 * sample the CPU is refused with perf's message in diag (-PMT_EINVAL; no file: the meta
 * does not know its path); 0 otherwise. */
PMT_API int pmt_sample_filter_check(const struct pmt_sample_filter *f,
				    const struct pmt_trace_meta *m, struct pmt_diag *diag);

#ifdef __cplusplus
}
#endif
#endif
