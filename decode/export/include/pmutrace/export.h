/* pmutrace decode/export: decoded samples into a database (SQLite; the schema is
 * decode/export/SCHEMA.md) or a pprof profile (profile.proto, gzip'd). */
#ifndef PMUTRACE_EXPORT_H
#define PMUTRACE_EXPORT_H

#include "pmutrace/spe_decode.h"
#include "pmutrace/symbols.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmt_export_opts {
	size_t sz;                 /* sizeof(struct pmt_export_opts) */
	const char *trace_path;    /* runs.trace: the trace as the user named it */
	const char *command;       /* runs.command: the command line, NULL when unknown */
	const struct pmt_trace_meta *meta; /* runs' host, perf version, cmdline; NULL: none */
	int compat;                /* perf compatibility level: event names, mem_lvl text */
	uint64_t batch;            /* samples per transaction; 0 = one transaction */
	bool no_index;             /* no indexes on samples: for files that are merged and
				    * indexed later (the export then takes ~2/3 of the time) */
	/* the trace's address spaces and threads (fed with its sideband by the caller while
	 * decoding): comms, dsos and symbols; NULL: those columns stay NULL */
	struct pmt_symbols *symbols;
	/* SQLite: the samples and their indexes through libsqlite3's INSERTs, as before the
	 * export wrote their b-tree pages itself (~2x the time; for comparison and tests) */
	bool sqlite_api;
};

/* One export into one new database or file; the calls below take every kind. */
struct pmt_export;
/* Create the schema in the SQLite file db_path (it should be new or empty: the caller
 * writes it at a temporary path and renames it when finish succeeded). Samples become
 * the samples table's b-tree pages (kept in an unlinked file beside db_path until
 * pmt_export_finish() appends them to the database; opts->sqlite_api: INSERTs in
 * batches); pmt_export_finish() builds the indexes from the indexed columns kept and
 * sorted during the load (32 bytes a sample, up to 8M samples; CREATE INDEX past that). */
PMT_API int pmt_export_sqlite_new(const char *db_path, const struct pmt_export_opts *opts,
				  struct pmt_export **out, struct pmt_diag *diag);
/* A pprof profile (Google's profile.proto), gzip'd, written to path ("-": stdout) by
 * pmt_export_finish(). Identical (location, event, data source, cpu, pid, tid)
 * samples are one Sample (labels event, mem_lvl, data_src, cpu, pid, tid) with values: samples (count), total, issue and translation
 * latency (cycles). Locations carry their function and source line (opts->symbols); in
 * inlined code one Line per inlined call, innermost first, the symbol's function last;
 * mappings the file name and the build-id (hex) of the trace's MMAP/MMAP2 records
 * (pmt_export_event) or of opts->meta's build-id table. */
PMT_API int pmt_export_pprof_new(const char *path, const struct pmt_export_opts *opts,
				 struct pmt_export **out, struct pmt_diag *diag);
/* The same schema in a PostgreSQL database (libpq's conninfo: "dbname=x host=y" or a
 * postgresql:// URI), with a run_id column in every table: the tables are created when
 * missing, the run gets the next runs.id, its samples go in with COPY as they come, and
 * pmt_export_finish() adds the rest and commits (a run is all there or not at all). */
PMT_API int pmt_export_postgresql_new(const char *conninfo, const struct pmt_export_opts *opts,
				      struct pmt_export **out, struct pmt_diag *diag);
/* A sideband record of the trace (MMAP/MMAP2 give pprof's mapping sizes and build-ids;
 * they and an exec's COMM make the databases' call paths resolve their addresses again;
 * others are ignored). 0 or -PMT_ENOMEM. */
PMT_API int pmt_export_event(struct pmt_export *x, const struct pmt_trace_event *ev);
/* A metric row of the recording (counting or TPEBS; computed by the caller with
 * decode/metrics' pmt_metric_rows_trace(), which export does not depend on): SQLite and
 * PostgreSQL keep it in the metrics table, pprof ignores it. Strings are copied. 0 or
 * -PMT_EIO/-PMT_ENOMEM (details for pmt_export_finish()). */
struct pmt_export_metric {
	const char *interval, *aggr, *pmu, *name, *unit; /* "" when none */
	unsigned depth;          /* in the metric tree, 0: top level */
	double value;            /* NAN: not computed */
	const char *missing;     /* the event not counted, or NULL */
	int threshold;           /* 1 over, 0 not, -1 none */
	double retlat_measured, retlat_default; /* cycles, of the first :R input; NAN: none */
	/* every :R input (table metric_retire_latencies): event, measured, default */
	const struct pmt_export_retlat { const char *event; double measured, dflt; } *retlat;
	size_t nr_retlat;
};
PMT_API int pmt_export_metric(struct pmt_export *x, const struct pmt_export_metric *m);
/* One sample; no allocation but for what is new (a thread, a symbol, a call-path node).
 * Its call chain (s->callchain) is its call_paths row in the databases (perf's
 * export-to-sqlite.py callchains tables, SCHEMA.md), its stack in pprof. Returns 0 or
 * -PMT_EIO (details for pmt_export_finish()). */
PMT_API int pmt_export_sample(struct pmt_export *x, const struct pmt_spe_sample *s);
/* pmt_spe_sample_fn shape: ctx is the struct pmt_export. */
PMT_API int pmt_export_sample_fn(const struct pmt_spe_sample *s, void *ctx);
/* The decode's damage counts (SQLite: aux_loss) and the event kinds decoding could make (bit per
 * enum pmt_spe_event; events seen in samples are added too); then commit and index.
 * stats may be NULL. pprof: the profile is encoded and written. Returns the number of
 * samples written or -PMT_E* with diag set. */
PMT_API int64_t pmt_export_finish(struct pmt_export *x, const struct pmt_spe_rec_stats *stats,
				  uint32_t enabled, struct pmt_diag *diag);
PMT_API void pmt_export_free(struct pmt_export *x); /* NULL is a no-op; closes the db */

/* The CREATE statements of the schema, in order (what SCHEMA.md documents). */
PMT_API const char *pmt_export_sqlite_schema(void);

#ifdef __cplusplus
}
#endif
#endif
