/* pmutrace decode/metrics: Linux perf's metric language, metric tables (perf and Intel JSON),
 * counts (perf stat output), retire latency (TPEBS) and topdown. */
#ifndef PMUTRACE_METRICS_H
#define PMUTRACE_METRICS_H

#include "pmutrace/perfdata.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- expression engine (Linux perf's metric language) ----------------------------------
 * Compile once into postfix code with resolved slot indexes, evaluate many times with no
 * allocation. Semantics follow perf's expr.y: unknown IDs are NaN, "/" by 0 is NaN, "%" by 0
 * is an error, "A if C else B" is false only for C == +-0.0, | & ^ are logical. */

/* Values of the #literals (matched with strcasecmp) and of '?' and strcmp_cpuid_str(). */
struct pmt_expr_ctx {
	double num_cpus, num_cpus_online, num_cores, num_dies, num_packages;
	double slots, smt_on, system_tsc_freq, has_pmem, core_wide, target_cpu;
	double chas_per_socket;  /* Intel-format constant CHAS_PER_SOCKET */
	int runtime;             /* substituted for '?' in IDs */
	const char *cpuid;       /* for strcmp_cpuid_str() (default: this machine's, in perf's
				  * get_cpuid_str() form); NULL gives NaN */
};
/* Fill with plausible values for this machine (sysconf CPU counts, smt_on 0, ...). */
PMT_API void pmt_expr_ctx_default(struct pmt_expr_ctx *ctx);
/* Read or set a literal by name (leading '#' optional, case-insensitive; "chas_per_socket"
 * too). Return 0 or -PMT_ENOT_FOUND. */
PMT_API int pmt_expr_ctx_get(const struct pmt_expr_ctx *ctx, const char *name, double *val);
PMT_API int pmt_expr_ctx_set(struct pmt_expr_ctx *ctx, const char *name, double val);

enum pmt_expr_ref_kind {
	PMT_EXPR_REF_VALUE = 0,    /* plain ID */
	PMT_EXPR_REF_SOURCE_COUNT, /* source_count(ID) */
	PMT_EXPR_REF_HAS_EVENT,    /* has_event(ID) */
};
/* Binds a (normalised) ID to a slot of the evaluation array: return the slot index (>= 0),
 * or PMT_EXPR_CONST after storing a constant in *val (unknown IDs: NAN), or -PMT_E*. */
#define PMT_EXPR_CONST (-1000000)
typedef int (*pmt_expr_resolve_fn)(void *arg, const char *id, enum pmt_expr_ref_kind kind,
				   double *val);

enum pmt_expr_flags {
	/* Intel perfmon "Formula" text: accept ">=", "<=", "==" (also written "> ="), and
	 * drop "[n]" instance subscripts. Plain perf text ignores a stray '=' as perf does. */
	PMT_EXPR_INTEL = 1,
};

struct pmt_expr_error {
	int column;              /* 1-based position of the problem, 0 when not positional */
	char msg[160];
};

struct pmt_expr;
PMT_API int pmt_expr_compile(const char *text, unsigned flags, const struct pmt_expr_ctx *ctx,
			     pmt_expr_resolve_fn resolve, void *arg, struct pmt_expr **out,
			     struct pmt_expr_error *err);
/* Evaluate with slots[] as bound by the resolver. Returns 0, or -PMT_EDIV_ZERO for "%" by 0
 * (*out is then NaN). Thread-safe: uses only the caller's stack. */
PMT_API int pmt_expr_eval(const struct pmt_expr *e, const double *slots, double *out);
PMT_API void pmt_expr_free(struct pmt_expr *e);
/* Largest slot index referenced + 1; number of postfix ops. */
PMT_API int pmt_expr_nr_slots(const struct pmt_expr *e);
PMT_API int pmt_expr_nr_ops(const struct pmt_expr *e);
/* One-shot helper: IDs looked up (exact match) in names[]/vals[]; unknown IDs are NaN. */
PMT_API int pmt_expr_eval_str(const char *text, unsigned flags, const struct pmt_expr_ctx *ctx,
			      const char *const *names, const double *vals, size_t n,
			      double *out, struct pmt_expr_error *err);

/* ---- event keys ------------------------------------------------------------------------
 * perf writes one event in many ways: "MEM_LOAD_RETIRED.L2_HIT:R", "cpu_core@mem_load_retired.l2_hit@R",
 * "cpu_core/MEM_LOAD_RETIRED.L2_HIT/". A key splits that into lower-case pmu, event and
 * modifiers, with the retire-latency modifier R (perf) or ":retire_latency" (Intel) lifted out. */
struct pmt_event_key {
	char pmu[32];
	char event[128];
	char mods[64];
	uint8_t retire_latency;
};
PMT_API int pmt_event_key_parse(const char *name, struct pmt_event_key *key);
/* 2 = same pmu, event and modifiers; 1 = same event and modifiers where one side names no
 * pmu or a core pmu (cpu, cpu_core); 0 = different. */
PMT_API int pmt_event_key_match(const struct pmt_event_key *a, const struct pmt_event_key *b);

/* ---- counts: aggregation units x event values -------------------------------------------
 * The input interface of the metric evaluator. Loaded from perf stat output or filled by a
 * recorder; a unit is one (interval, aggregation id) pair, e.g. ("1.000", "CPU3"). */
struct pmt_counts;
PMT_API int pmt_counts_new(struct pmt_counts **out);
PMT_API void pmt_counts_free(struct pmt_counts *c);
/* Find or add; return the index. interval/aggr may be NULL (= ""). */
PMT_API int pmt_counts_unit(struct pmt_counts *c, const char *interval, const char *aggr);
PMT_API int pmt_counts_event(struct pmt_counts *c, const char *name);
/* Adds v to the cell (perf prints one line per merged source); NaN marks "not counted". */
PMT_API int pmt_counts_add(struct pmt_counts *c, int unit, int event, double v);
PMT_API size_t pmt_counts_nr_units(const struct pmt_counts *c);
PMT_API size_t pmt_counts_nr_events(const struct pmt_counts *c);
PMT_API const char *pmt_counts_event_name(const struct pmt_counts *c, size_t event);
PMT_API const char *pmt_counts_unit_interval(const struct pmt_counts *c, size_t unit);
PMT_API const char *pmt_counts_unit_aggr(const struct pmt_counts *c, size_t unit);
/* Value of a cell; NaN when never set. Number of lines merged into it (source_count). */
PMT_API double pmt_counts_get(const struct pmt_counts *c, size_t unit, size_t event);
PMT_API unsigned pmt_counts_sources(const struct pmt_counts *c, size_t unit, size_t event);
/* Best event for a metric ID (pmt_event_key_match), -PMT_ENOT_FOUND when none. */
PMT_API int pmt_counts_find(const struct pmt_counts *c, const char *id);
/* perf stat -x<sep> CSV (any mode, -I) or -j JSON lines, detected. 0 or -PMT_E* with diag
 * (file, line; may be NULL); skipped or repeated lines are logged, the first kept in diag. */
PMT_API int pmt_counts_load(struct pmt_counts *c, const char *path, struct pmt_diag *diag);
PMT_API int pmt_counts_load_mem(struct pmt_counts *c, const char *text, size_t len,
				const char *what, struct pmt_diag *diag);

/* Drop every unit (events and their columns stay): the next round of a streamed trace. */
PMT_API void pmt_counts_clear_units(struct pmt_counts *c);
/* Counts a recording keeps as perf stat record does (STAT_CONFIG, CPU_MAP, THREAD_MAP,
 * EVENT_UPDATE names and scales, STAT, STAT_ROUND; `pmutrace stat -o` and `perf stat
 * record` write them): each STAT_ROUND gives the units perf stat -x would have printed for
 * it, values scaled (count x enabled / running per counter, then the event's scale) and,
 * in interval mode, the differences to the round before; the interval is the round's time
 * ("%llu.%09llu" seconds), the aggregation "CPU<n>" (recorded with -A), "S<s>-D<d>-C<c>",
 * "S<s>-D<d>", "S<s>" (per core, die, socket, by the recording's HEADER_CPU_TOPOLOGY) or ""
 * (the total). Events that never ran in a unit are NaN, as perf's "<not counted>". */
struct pmt_counts_trace;
/* Open a trace; -PMT_ENOT_FOUND (with diag) when it holds no counts. Every event of the
 * trace is added to c now, so the columns do not change between rounds. */
PMT_API int pmt_counts_trace_open(const char *path, struct pmt_counts *c,
				  struct pmt_counts_trace **out, struct pmt_diag *diag);
/* The same over an opened source (which it takes: closed with the reader, or on failure),
 * e.g. one whose frames are decompressed on threads (pmt_source_threads). */
struct pmt_source;
PMT_API int pmt_counts_trace_open_source(struct pmt_source *src, const char *name,
					 struct pmt_counts *c, struct pmt_counts_trace **out,
					 struct pmt_diag *diag);
/* The same over a trace in memory (buf outlives the reader); name is for messages. */
PMT_API int pmt_counts_trace_open_mem(const void *buf, size_t len, const char *name,
				      struct pmt_counts *c, struct pmt_counts_trace **out,
				      struct pmt_diag *diag);
/* The counts frames after the first decoded ahead on n threads (0: none; before the first
 * pmt_counts_trace_next()): rounds, warnings and damage are those without threads. 0 or
 * -PMT_ENOMEM. */
PMT_API int pmt_counts_trace_threads(struct pmt_counts_trace *t, unsigned n);
/* The next round's units into c (its units cleared first): 1, 0 at the end, or < 0. Damaged
 * records are skipped with a warning, the first kept in _damage() (code 0: none). */
PMT_API const struct pmt_diag *pmt_counts_trace_damage(const struct pmt_counts_trace *t);
PMT_API int pmt_counts_trace_next(struct pmt_counts_trace *t, struct pmt_counts *c);
/* Only the attrs counted into these event columns of c summed from the next round on (n
 * 0: none), e.g. the columns a bound plan reads (pmt_metric_plan_input()'s count_idx): the
 * others are left unset in every unit (NaN, no sources), their records read and passed
 * by; a recording's 291 events for one metric that reads 5 of them. Narrows only (a column
 * left out does not come back: its last values were not kept). The attrs kept, or < 0. */
PMT_API int pmt_counts_trace_only(struct pmt_counts_trace *t, const int *cols, size_t n);
/* How the counters of a recording made per CPU are summed into units: as the recording
 * says (its STAT_CONFIG aggregation mode; per core, die or socket only with a topology),
 * or as perf stat report's -A, --per-core, --per-die, --per-socket, or one total. */
enum pmt_counts_aggr {
	PMT_COUNTS_AS_RECORDED = 0, PMT_COUNTS_PER_CPU, PMT_COUNTS_PER_CORE, PMT_COUNTS_PER_DIE,
	PMT_COUNTS_PER_SOCKET, PMT_COUNTS_GLOBAL,
};
/* Before the first pmt_counts_trace_next(). Per core, die or socket needs counters read
 * per CPU and the recording's CPU topology: -PMT_EUNSUPPORTED with diag naming what is
 * missing. */
PMT_API int pmt_counts_trace_set_aggr(struct pmt_counts_trace *t, enum pmt_counts_aggr a,
				      struct pmt_diag *diag);
/* The CPUs whose counts make unit `unit` of the last round (none for a total or a thread's
 * counts: 0). */
PMT_API size_t pmt_counts_trace_unit_cpus(const struct pmt_counts_trace *t, size_t unit,
					  const int32_t **cpus);
/* The last round's interval (t_after, t_until] in the samples' clock: 1; 0 (both 0)
 * without -I; -PMT_ENOT_FOUND when the recording does not say where its rounds' time 0
 * lies in the samples' clock (perf stat record, pmutrace stat -o: no samples). */
PMT_API int pmt_counts_trace_window(const struct pmt_counts_trace *t, uint64_t *t_after,
				    uint64_t *t_until);
/* rounds and STAT records read, and the records skipped as damaged */
PMT_API void pmt_counts_trace_stats(const struct pmt_counts_trace *t, uint64_t *rounds,
				    uint64_t *stats, uint64_t *skipped);
PMT_API void pmt_counts_trace_close(struct pmt_counts_trace *t);
/* Every round of a trace into c (one unit set per round). Returns the rounds, or < 0. */
PMT_API int pmt_counts_load_trace(struct pmt_counts *c, const char *path, struct pmt_diag *diag);

/* ---- retire latency (TPEBS): pmutrace/retlat.h ------------------------------------------ */
#include "pmutrace/retlat.h"

/* ---- metric tables ----------------------------------------------------------------------*/
struct pmt_metric {
	char *name, *expr, *groups, *scale_unit, *threshold, *constraint, *desc, *legacy_name;
	double scale;    /* from ScaleUnit: "100%" -> 100 */
	char *pmu;       /* perf JSON "Unit" (cpu_core, cpu_atom) of hybrid tables, or NULL */
	char *base_formula; /* Intel: the formula with event/metric names (for display) */
	char *unit;      /* from ScaleUnit ("%") or UnitOfMeasure */
	uint8_t intel;   /* expr/threshold use Intel aliases */
	/* Intel: alias -> name pairs for the formula and for the threshold */
	char **alias, **alias_to;
	size_t nr_alias;
	char **talias, **talias_to;
	size_t nr_talias;
	char *nogroup;   /* perf JSON "MetricgroupNoGroup": groups whose events perf does not
			  * put in a {...}:W group for this metric */
};
struct pmt_metric_set {
	struct pmt_metric *m;
	size_t nr, cap;
};
/* perf pmu-events metric JSON (array) or Intel perfmon metrics JSON ({Header, Metrics});
 * detected from the content. Adds to the set. Returns the number of metrics added (0 is
 * also noted in diag, which may be NULL), or -PMT_E* with diag: file, line, column. */
PMT_API int pmt_metric_set_load(struct pmt_metric_set *ms, const char *path,
				struct pmt_diag *diag);
PMT_API int pmt_metric_set_load_mem(struct pmt_metric_set *ms, const char *json, size_t len,
				    const char *what, struct pmt_diag *diag);
PMT_API int pmt_metric_set_add(struct pmt_metric_set *ms, const char *name, const char *expr,
			       const char *scale_unit, const char *threshold);
PMT_API int pmt_metric_set_find(const struct pmt_metric_set *ms, const char *name);
PMT_API void pmt_metric_set_fini(struct pmt_metric_set *ms);

/* An evaluation plan: selected metrics compiled with everything they reference (other
 * metrics, recursively, each once; cycles are errors), bound to a count set. */
enum pmt_metric_input_kind {
	PMT_MIN_COUNT = 0,   /* an event count from the counts (NaN when absent) */
	PMT_MIN_SOURCES,     /* source_count(): merged lines of the event */
	PMT_MIN_HAS_EVENT,   /* has_event(): 1 if the counts have the event */
	PMT_MIN_RETLAT,      /* an :R value, every unit's or a CPU's own */
	PMT_MIN_DURATION,    /* duration_time scaled by `scale` (perf uses seconds) */
};
struct pmt_metric_input {
	char *id;            /* as written in the metric, normalised */
	uint8_t kind;
	double scale;
	int count_idx;       /* bound event column, -1 when absent */
	double value;        /* RETLAT value (of the unit being evaluated) */
	struct pmt_event_key key;
	double value_all;    /* RETLAT value of every unit (fill_retlat); per-CPU values
			      * replace `value` unit by unit (fill_retlat_unit) */
	uint8_t warned_unit; /* a unit without samples of its own was named once */
	double value_default;/* the table's default (fill_retlat), NaN when it has none */
	uint8_t threshold_only; /* named by thresholds alone (perf stat does not open it) */
};
struct pmt_metric_plan;
/* select: metric names or group names (a metric is in a group when MetricGroup lists it);
 * nsel 0 = every metric. On failure diag (may be NULL; no file) says "metric NAME: ..." */
PMT_API int pmt_metric_plan_new(const struct pmt_metric_set *ms, const char *const *select,
				size_t nsel, const struct pmt_expr_ctx *ctx,
				struct pmt_metric_plan **out, struct pmt_diag *diag);
PMT_API void pmt_metric_plan_free(struct pmt_metric_plan *p);
PMT_API size_t pmt_metric_plan_nr_metrics(const struct pmt_metric_plan *p); /* selected */
PMT_API const struct pmt_metric *pmt_metric_plan_metric(const struct pmt_metric_plan *p, size_t i);
PMT_API size_t pmt_metric_plan_nr_inputs(const struct pmt_metric_plan *p);
/* does a metric of the plan read duration_time (or DURATIONTIMEIN...): perf stat then opens
 * that tool event after the metrics' others, outside their groups */
PMT_API bool pmt_metric_plan_reads_duration(const struct pmt_metric_plan *p);
PMT_API struct pmt_metric_input *pmt_metric_plan_input(struct pmt_metric_plan *p, size_t i);
/* Bind count inputs to the columns of c (by pmt_counts_find). */
PMT_API int pmt_metric_plan_bind(struct pmt_metric_plan *p, const struct pmt_counts *c);
/* pmt_counts_trace_only() for the columns a bound plan reads: a recording's other events are
 * read past, not summed (before the first pmt_counts_trace_next()). Attrs kept, or < 0. */
PMT_API int pmt_metric_plan_only_in(struct pmt_metric_plan *p, struct pmt_counts_trace *t);
/* Evaluate every selected metric for one unit: values[i] (ScaleUnit applied) and
 * thresh[i] (1 over, 0 not, -1 no threshold or NaN). Returns the number of metrics whose
 * evaluation failed ("%" by 0); their value is NaN. No allocation; the plan holds the
 * working slots, so use one plan per thread. */
PMT_API int pmt_metric_plan_eval(struct pmt_metric_plan *p, const struct pmt_counts *c,
				 size_t unit, double *values, int8_t *thresh);
/* The same for units [unit, unit + n), each formula's operation over all n at once: value
 * i of unit + k at [k * nr_metrics + i], failed[k] its failures; :R values as fill_retlat
 * set them. 0 or -PMT_ENOMEM. missing_at: pmt_metric_plan_missing() for unit + k. */
PMT_API int pmt_metric_plan_eval_units(struct pmt_metric_plan *p, const struct pmt_counts *c,
				       size_t unit, size_t n, double *values, int8_t *thresh,
				       int *failed);
PMT_API int pmt_metric_plan_missing_at(struct pmt_metric_plan *p, size_t k,
				       const char **missing);
/* After pmt_metric_plan_eval(): for each selected metric, the event whose value its result
 * depends on but the counts lack for that unit (not counted, or not in the file), else
 * NULL. A metric with one is not computed, whatever number the formula gave (max(nan, 0)
 * is 0). Returns how many metrics lack an event, or -PMT_ENOMEM. */
PMT_API int pmt_metric_plan_missing(struct pmt_metric_plan *p, const char **missing);
/* Set every :R input of the plan (applied to every aggregation unit): from the samples'
 * statistic (stat, pct) first, then a value perf stat printed in the counts (perf stat
 * --record-tpebs prints it on the first CPU only), then the table's default, else 0 as
 * perf without data; each substitution is one warning naming the event. */
PMT_API void pmt_metric_plan_fill_retlat(struct pmt_metric_plan *plan, const struct pmt_counts *c,
					 const struct pmt_retlat_samples *smp,
					 const struct pmt_retlat_table *tab, enum pmt_retlat_stat stat,
					 double pct);
/* Per aggregation unit: a CPU unit ("CPU3") of c takes the statistic of that CPU's own
 * samples for each :R input (its value otherwise stays the one of every unit, and a
 * warning names the event and CPU once); other units keep fill_retlat's values. */
PMT_API void pmt_metric_plan_fill_retlat_unit(struct pmt_metric_plan *plan,
					      const struct pmt_counts *c, size_t unit,
					      const struct pmt_retlat_samples *smp,
					      enum pmt_retlat_stat stat, double pct);
/* The same for a unit given by its CPUs and interval (sel; the counts of a recording say
 * which: pmt_counts_trace_unit_cpus(), _window()), named `unit` in warnings. An interval
 * without samples of an event takes the table's default, as perf does without samples
 * (else every unit's value); a CPU, core, die or socket takes every unit's value. */
PMT_API void pmt_metric_plan_fill_retlat_sel(struct pmt_metric_plan *plan,
					     const struct pmt_retlat_sel *sel, const char *unit,
					     const struct pmt_retlat_samples *smp,
					     enum pmt_retlat_stat stat, double pct);
/* The events to open for a plan's metrics (record --tpebs). sampled: every :R input once,
 * as perf's tpebs samples it (the R modifier made p: "MEM_INST_RETIRED.LOCK_LOADS:p",
 * "cpu/event=0xd0,umask=0x21/p"; with core_pmu, an event without a PMU on that one:
 * "cpu_core/MEM_INST_RETIRED.LOCK_LOADS/p", as perf samples only cpu_core on hybrid
 * parts); counted: every counted input once ("pmu@terms@" written "pmu/terms/"); tool
 * events (duration_time, ...) in neither. Returns 0, -PMT_ENOMEM, or -PMT_EINVAL or
 * -PMT_ERANGE for an input that makes no event string (named in `bad`). */
struct pmt_metric_events {
	char **sampled;
	size_t nr_sampled;
	char **counted;
	size_t nr_counted;
	char bad[160];
};
PMT_API int pmt_metric_plan_events(struct pmt_metric_plan *p, const char *core_pmu,
				   struct pmt_metric_events *ev);
PMT_API void pmt_metric_events_fini(struct pmt_metric_events *ev);

/* ---- topdown: SLOTS + PERF_METRICS ---------------------------------------------------------*/
struct pmt_topdown {
	double slots;                                    /* slots of the period */
	double retiring, bad_spec, fe_bound, be_bound;   /* level 1 ratios */
	double heavy_ops, br_mispredict, fetch_lat, mem_bound;          /* level 2 */
	double light_ops, machine_clears, fetch_bw, core_bound;         /* complements */
	/* an E-core's level 2 (pmt_topdown_atom_eval; machine_clears, br_mispredict and
	 * core_bound above are its counted ones) */
	double ifetch_lat, ifetch_bw, resource_bound;
	/* per-metric slots as the kernel computes them: slots * byte / 0xff (integer) */
	uint64_t slots_of[8];
};
/* Decode one read (prev_slots = prev_metrics = 0) or the delta between two reads, as
 * Documentation/topdown.txt: metric_slots_i = byte_i * slots, ratio = delta / slots delta;
 * L2 complements are parent - child. Returns 0, or -PMT_EINVAL when the slots delta is 0. */
PMT_API int pmt_topdown_decode(uint64_t slots, uint64_t metrics, uint64_t prev_slots,
			       uint64_t prev_metrics, struct pmt_topdown *out);
/* The same ratios from the topdown-* counts perf stat reads (topdown-retiring, -bad-spec,
 * -fe-bound, -be-bound, -heavy-ops, -br-mispredict, -fetch-lat, -mem-bound: PERF_METRICS'
 * byte order; the kernel gives slots * byte / 0xff), already a delta for an interval;
 * unread level-2 fields are 0. Returns -PMT_EINVAL when the level-1 counts sum to 0 (out
 * then as perf's formulas give it: NaN ratios, the max(..., 0) ones 0). */
PMT_API int pmt_topdown_from_counts(double slots, const double td[8], struct pmt_topdown *out);
/* perf 7.3 stat --topdown --td-level LEVEL's columns (tma_* names) in the order it prints
 * them on a PERF_METRICS PMU (checked on Granite Rapids' tables): *names points at them;
 * returns their number (4 for level 1, 8 for level 2), -PMT_EINVAL for another level */
PMT_API int pmt_topdown_columns(unsigned level, const char *const **names);
/* A hybrid part's topdown without a metric table, as perf 7.3 prints it from its built-in
 * tables (topdown_hybrid.c cites them): both core PMUs' columns in perf's interleaved order,
 * and the cpu_atom PMU's ratios, each TOPDOWN_* count over slots_per_cycle *
 * CPU_CLK_UNHALTED.CORE. */
enum pmt_topdown_atom_role {
	PMT_TDA_CYCLES, PMT_TDA_RETIRING, PMT_TDA_FE_BOUND, PMT_TDA_BE_BOUND, PMT_TDA_BAD_SPEC,
	PMT_TDA_MACHINE_CLEARS, PMT_TDA_MISPREDICT, PMT_TDA_ALLOC_RESTRICTIONS,
	PMT_TDA_FE_LATENCY, PMT_TDA_FE_BANDWIDTH, PMT_TDA_NR
};
struct pmt_topdown_column {
	const char *name;                     /* tma_* */
	bool atom;                            /* cpu_atom's, else cpu_core's */
};
struct pmt_topdown_atom_event {
	uint64_t config;                      /* raw: umask << 8 | event */
	enum pmt_topdown_atom_role role;
};
struct pmt_topdown_hybrid {
	const char *model;
	unsigned slots_per_cycle;             /* the E-core's allocation width */
	unsigned nr_cols, nr_events;
	const struct pmt_topdown_column *col;  /* perf 7.3's order */
	const struct pmt_topdown_atom_event *event;  /* in the order perf 7.3 parses them */
	/* the cpu_core event (raw umask << 8 | event) the table subtracts over slots from
	 * tma_frontend_bound and tma_fetch_latency: INT_MISC.UOP_DROPPING on Alder and Meteor
	 * Lake, 0 on Lunar and Arrow Lake whose tables subtract nothing */
	uint64_t core_uop_dropping;
	/* the table's cpu_core tma_bad_speculation is topdown-bad-spec's share of the four
	 * level-1 counts (Lunar and Arrow Lake), not max(1 - (fe + be + retiring), 0) */
	bool core_bad_spec_counted;
};
/* the layout of a part whose cpu_atom PMU's caps/pmu_name is atom_pmu_name (alderlake_hybrid,
 * meteorlake_hybrid, lunarlake_hybrid, arrowlake_h_hybrid) at level 1 or 2; NULL for
 * another part or level */
PMT_API const struct pmt_topdown_hybrid *pmt_topdown_hybrid(const char *atom_pmu_name,
							    unsigned level);
/* the cpu_atom ratios from its counts by role (0 where the layout reads none). Bad
 * speculation is its own event's share where the layout counts one, else (Alder Lake) what
 * the other three leave, not clamped at 0 as the P-core's is. Returns -PMT_EINVAL when the
 * cycles are 0 (perf's NaN). */
PMT_API int pmt_topdown_atom_eval(const struct pmt_topdown_hybrid *h,
				  const double count[PMT_TDA_NR], struct pmt_topdown *out);
/* Alder and Meteor Lake's cpu_core formulas on top of pmt_topdown_from_counts' ratios:
 * frontend bound and fetch latency less uop_dropping / slots, then bad speculation,
 * machine clears and fetch bandwidth from those (max(1 - (fe + be + retiring), 0), ...).
 * Returns -PMT_EINVAL when t's slots are 0 (perf's NaN). */
PMT_API int pmt_topdown_less_uop_dropping(struct pmt_topdown *t, double uop_dropping);
/* Lunar and Arrow Lake's cpu_core formulas on top of pmt_topdown_from_counts' ratios (td[]
 * as it took them): bad speculation td[1] over the four level-1 counts, not clamped (an E
 * core's NaN with --per-core, as perf 7.3 prints it), machine clears from it. Returns
 * -PMT_EINVAL when those counts add up to 0. */
PMT_API int pmt_topdown_bad_spec_counted(struct pmt_topdown *t, const double td[8]);
/* one of those metrics from decoded ratios, in % (NAN for a name it does not know) */
PMT_API double pmt_topdown_pct(const struct pmt_topdown *t, const char *name);
/* The events of a table's metric group (perf pmu-events JSON) in the order perf 7.3's
 * stat --topdown parses them: its metricgroup.c walks the IDs of the group's metrics in a
 * libbpf hashmap (metric_perf_order.c says how that order is reproduced). *ids: a
 * NULL-terminated array for pmt_perf_events_free(), tool events (duration_time, ...) left
 * out. Returns the number of events; -PMT_EUNSUPPORTED where perf's order depends on more
 * than this reproduces (a metric whose events perf groups, i.e. not in the group's
 * MetricgroupNoGroup; an Intel-format table; "if", '?' or a tool value in an expression),
 * -PMT_ENOT_FOUND for a group without metrics, -PMT_ENOMEM. */
PMT_API int pmt_metric_set_perf_events(const struct pmt_metric_set *ms, const char *group,
				       char ***ids);
/* The same for perf 7.3's stat -M: sel the metric or group names (a metric is chosen by
 * its name or one of its groups), each root metric's IDs taken from its threshold when
 * thresholds is set (perf stat's default; its -x output and --topdown set
 * metric_no_threshold). One grouped metric (not in a MetricgroupNoGroup of sel, no MetricConstraint
 * NO_GROUP_EVENTS: perf
 * opens its IDs as one {...}:W group, *grouped set) is reproduced, several are
 * -PMT_EUNSUPPORTED. */
PMT_API int pmt_metric_set_perf_events_sel(const struct pmt_metric_set *ms,
					   const char *const *sel, size_t nsel, bool thresholds,
					   char ***ids, bool *grouped);
/* Where perf 7.3's stat prints each metric of that selection as a `#` value: evnames[]
 * the events as opened (perf's order, named as the metrics name them; a hybrid table's
 * "cpu_core@EVENT@" matches the event cpu_core/EVENT/), metric[k] (one of ms) and ev[k]
 * (an index into evnames, -1 for none) for the k-th metric of perf's list, both arrays
 * with room for nsel times the metrics of ms (perf adds a metric once per name of sel that
 * chooses it). An event carrying several prints the last one first
 * (perf adds each at the head of the event's list). Returns the number of metrics, or the
 * errors of pmt_metric_set_perf_events_sel(). */
PMT_API int pmt_metric_set_perf_display(const struct pmt_metric_set *ms, const char *const *sel,
					size_t nsel, bool thresholds, const char *const *evnames,
					size_t nev, const struct pmt_metric **metric, int *ev);
/* The columns of perf 7.3's stat --topdown for a table's group (TopdownL1..6), in perf's
 * order (metric_perf_topdown.c says the rule): metric[] with room for every metric of ms.
 * ctx: the literals an "if" of constant condition is decided by (#smt_on, #has_pmem);
 * nmi_watchdog: the watchdog holds a counter (/proc/sys/kernel/nmi_watchdog), which
 * ungroups a metric of constraint NO_GROUP_EVENTS_NMI as perf does. Returns the number
 * of columns, or the errors of pmt_metric_set_perf_events_sel(). */
PMT_API int pmt_metric_set_perf_topdown(const struct pmt_metric_set *ms, const char *group,
					const struct pmt_expr_ctx *ctx, bool nmi_watchdog,
					const struct pmt_metric **metric);
/* perf 7.3's stat -M of several grouped metrics (metricgroup.c's parse_groups()): the
 * ungrouped metrics' combined list (list 0), then each grouped metric's own {...}:W list
 * (1, 2, ...; a metric whose IDs an earlier one's holds reads that one's), in perf's order,
 * an event in as many lists as read it; tool events left out. */
struct pmt_perf_lists {
	char **id;            /* [nr_id] the events, named as the metrics name them */
	int *list;            /* [nr_id] the list of each */
	size_t nr_id, nm;
	const struct pmt_metric **metric; /* [nm] perf's metric list */
	int *show;            /* [nm] the id[] perf shows the metric on, -1 none */
};
PMT_API int pmt_metric_set_perf_lists(const struct pmt_metric_set *ms, const char *const *sel,
				      size_t nsel, bool thresholds, struct pmt_perf_lists *pl);
PMT_API void pmt_perf_lists_fini(struct pmt_perf_lists *pl);
PMT_API void pmt_perf_events_free(char **ids);
/* the deepest TopdownLN group of a table, as perf's metricgroups__topdown_max_level()
 * reads it (the first "TopdownL" of each metric's groups); 0 when none */
PMT_API unsigned pmt_metric_set_topdown_max_level(const struct pmt_metric_set *ms);


/* ---- metric rows of a recording: pmutrace/metric_rows.h -------------------------------- */
#include "pmutrace/metric_rows.h"

#ifdef __cplusplus
}
#endif
#endif
