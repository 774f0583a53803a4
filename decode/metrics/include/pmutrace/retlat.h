/* pmutrace decode/metrics: retire latency (TPEBS): statistics of the samples' retire
 * latencies, tables of default latencies, and the calibrate writers (pmutrace/metrics.h
 * includes it; a header of its own to keep that one under the house's size). */
#ifndef PMUTRACE_RETLAT_H
#define PMUTRACE_RETLAT_H

#include <stdio.h>

#include "pmutrace/perfdata.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pmt_retlat_stat {
	PMT_RETLAT_MEAN = 0, PMT_RETLAT_MIN, PMT_RETLAT_MAX, PMT_RETLAT_LAST, PMT_RETLAT_MEDIAN,
	PMT_RETLAT_PCT, /* with a percentile 0 < p <= 100 */
};
/* "mean", "min", "max", "last", "median", "p90", "p99.9" (case-insensitive). Returns 0,
 * -PMT_ERANGE for a percentile outside (0, 100] ("p0", "p101"), -PMT_EPARSE otherwise. */
PMT_API int pmt_retlat_stat_parse(const char *s, enum pmt_retlat_stat *stat, double *pct);

/* Distribution statistics, named as pmu-tools genretlat.py names them (MEDIAN is the upper
 * median sorted[n/2]; MEAN is not rounded here). */
struct pmt_retlat_stats {
	uint64_t count, nz_count;
	double min, max, mean, median, mode, p90, p99;
	uint64_t mode_count, nz_mode_count, buckets;
	double min_nz, nz_mean, nz_median, nz_mode;
	double last;
};

/* Per-event retire-latency histograms built from samples (65536 bins: the field is 16 bit). */
/* one CPU's retire latencies of an event, in sample order */
struct pmt_retlat_cpu_vals {
	int32_t cpu;
	uint16_t *v;
	uint64_t *t;              /* [n] the samples' times, 0 for a sample without */
	uint64_t n, cap;
};
struct pmt_retlat_dist {
	char name[128];           /* event name without pmu/modifiers, as sampled */
	uint32_t *hist;           /* [65536] */
	uint64_t count;
	uint16_t last;
	struct pmt_retlat_cpu_vals *per_cpu; /* samples that carried a CPU, per CPU */
	size_t nr_cpu;
};
struct pmt_retlat_samples {
	struct pmt_retlat_dist *ev;
	size_t nr, cap;
	uint64_t nr_samples, nr_skipped; /* skipped: no WEIGHT_STRUCT or no event name */
};
PMT_API int pmt_retlat_samples_add(struct pmt_retlat_samples *s, const char *event,
				   uint16_t retire_latency);
/* the same, also kept as a sample of `cpu` (>= 0) for per-CPU statistics */
PMT_API int pmt_retlat_samples_add_cpu(struct pmt_retlat_samples *s, const char *event,
				       int32_t cpu, uint16_t retire_latency);
/* the same with the sample's time (0: none), for statistics per interval */
PMT_API int pmt_retlat_samples_add_at(struct pmt_retlat_samples *s, const char *event,
				      int32_t cpu, uint64_t time, uint16_t retire_latency);
/* Pull every sample of a trace: retire latency = weight bits 63:48 of samples whose attr
 * has PERF_SAMPLE_WEIGHT_STRUCT. Returns the number of samples used; when the trace cannot
 * be opened, diag (may be NULL) says why. Without a WEIGHT_STRUCT attr: 0, nothing read. */
PMT_API int pmt_retlat_samples_from_trace(struct pmt_retlat_samples *s, const char *path,
					  struct pmt_diag *diag);
PMT_API void pmt_retlat_samples_fini(struct pmt_retlat_samples *s);
PMT_API int pmt_retlat_dist_find(const struct pmt_retlat_samples *s, const char *event);
PMT_API void pmt_retlat_dist_stats(const struct pmt_retlat_dist *d, struct pmt_retlat_stats *st);
/* Value at percentile p (nearest rank). */
PMT_API double pmt_retlat_dist_pct(const struct pmt_retlat_dist *d, double p);

/* Tables of default retire latencies: perf event JSON (RetirementLatencyMean/Min/Max),
 * Intel *_retire_latency.json (Platform/Data MIN/MAX/MEAN), pmu-tools *-retlat.json
 * (COUNT/MIN/MAX/MEAN/MEDIAN/..., optional "Values" histogram {"latency": count}). */
struct pmt_retlat_entry {
	char name[128];
	double mean, min, max, median; /* NaN when the file lacks it */
	uint64_t count;
	uint32_t *values; /* optional [65536] histogram, NULL when absent */
};
struct pmt_retlat_table {
	struct pmt_retlat_entry *e;
	size_t nr, cap;
};
/* Entries added, or -PMT_E* with diag (may be NULL): file, line and column of JSON errors;
 * _mem: `name` is the diagnostic's file. */
PMT_API int pmt_retlat_table_load(struct pmt_retlat_table *t, const char *path,
				  struct pmt_diag *diag);
PMT_API int pmt_retlat_table_load_mem(struct pmt_retlat_table *t, const char *json, size_t len,
				      const char *name, struct pmt_diag *diag);
PMT_API void pmt_retlat_table_fini(struct pmt_retlat_table *t);
PMT_API int pmt_retlat_table_find(const struct pmt_retlat_table *t, const char *event);
/* perf's evsel__tpebs_read rules: from samples when the event has any (mean = rint(mean)),
 * else from the table (rint(mean|min|max), last = rint(mean)). Returns 1 = from samples,
 * 0 = from table, -PMT_ENOT_FOUND = neither (*out = 0, as perf before v6.16). */
PMT_API int pmt_retlat_value(const struct pmt_retlat_samples *s, const struct pmt_retlat_table *t,
			     const char *event, enum pmt_retlat_stat stat, double pct, double *out);
/* The statistic of one CPU's samples of event, by the same rules: 1 with *out set, 0 when
 * that CPU has none (*out untouched); -PMT_ENOMEM. */
PMT_API int pmt_retlat_value_cpu(const struct pmt_retlat_samples *s, const char *event,
				 int32_t cpu, enum pmt_retlat_stat stat, double pct, double *out);
/* The samples of one aggregation unit: those of its CPUs (nr_cpus 0: any CPU) whose time
 * lies in (t_after, t_until] (t_until 0: any time). Samples without a CPU belong to no
 * unit; with a window, samples without a time belong to none. */
struct pmt_retlat_sel {
	const int32_t *cpus;
	size_t nr_cpus;
	uint64_t t_after, t_until;
};
/* The statistic of the unit's samples as pmt_retlat_value() computes it of all: 1 with
 * *out set, 0 when the unit has no sample of the event, < 0 on error. */
PMT_API int pmt_retlat_value_sel(const struct pmt_retlat_samples *s, const char *event,
				 const struct pmt_retlat_sel *sel, enum pmt_retlat_stat stat,
				 double pct, double *out);

/* Writers for `pmutrace calibrate`: Intel MIN/MAX/MEAN format or pmu-tools format with
 * every statistic (and "Values" when full). */
enum pmt_retlat_format { PMT_RETLAT_FMT_INTEL = 0, PMT_RETLAT_FMT_PMU_TOOLS };
PMT_API int pmt_retlat_write(const struct pmt_retlat_samples *s, enum pmt_retlat_format fmt,
			     int full, FILE *fp);

#ifdef __cplusplus
}
#endif

#endif
