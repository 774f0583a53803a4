/* What the database exports (SQLite, PostgreSQL) compute alike for a sample's row: the
 * data-source texts, the thread counts, and the row ids of comms, dsos and symbols. */
#ifndef PMUTRACE_EXPORT_ROWS_H
#define PMUTRACE_EXPORT_ROWS_H

#include "pmutrace/spe_decode.h"
#include "pmutrace/symbols.h"
#include "pmutrace/export.h"

/* data_src decoded into perf's four texts (mem_op, mem_lvl, mem_snoop, mem_tlb), once per
 * distinct value (a trace has few): a direct-mapped cache of DSRC_SLOTS */
#define DSRC_SLOTS 64
struct dsrc_slot {
	uint64_t key;
	uint8_t valid;
	uint8_t len[4];
	char text[4][48];
};
const struct dsrc_slot *export_dsrc_text(struct dsrc_slot cache[DSRC_SLOTS], uint64_t data_src,
					 int compat);

/* samples per (pid, tid), counted during the load: open addressing, grown at half full
 * (an allocation per new thread at most, never per sample) */
struct thread_count {
	int32_t pid, tid;
	uint64_t n; /* 0: free slot */
};
struct export_threads {
	struct thread_count *thr;
	size_t cap, used;
	int32_t last_pid, last_tid; /* the samples of a record share their thread */
	struct thread_count *last;
};
int export_threads_count(struct export_threads *t, int32_t pid, int32_t tid);
/* The threads by pid and tid in thr[0..n): the table is compacted (and emptied for a new
 * count, so read thr before counting again). */
size_t export_threads_sorted(struct export_threads *t);

/* comms, dsos and symbols get row ids by their identity: a dso's and a symbol's is the
 * pointer pmt_symbols gives it, a comm's its text (a thread's comm string is freed when it
 * changes). Open addressing, grown at half full: an allocation per new one at most. */
struct id_map {
	const void **key; /* by_text: our copies of the strings */
	int64_t *id;
	size_t cap, used;
	bool by_text;
};
struct export_ids {
	struct id_map comms, dsos, symbols;
};
/* a sample's comm, file and symbol with their row ids (0: none, the column is NULL);
 * new_*: the id is new, its row is to be written */
struct sample_ids {
	const char *comm;
	struct pmt_sym_loc loc;
	int64_t comm_id, dso_id, sym_id;
	bool new_comm, new_dso, new_sym;
};
void export_ids_init(struct export_ids *ids);
int export_ids_of(struct export_ids *ids, struct pmt_symbols *syms,
		  const struct pmt_spe_sample *s, struct sample_ids *out); /* 0 or -PMT_ENOMEM */
/* the dso and symbol ids of out->loc (a placed address: loc.dso set), as export_ids_of()
 * gives a sample's; 0 or -PMT_ENOMEM */
int export_ids_of_loc(struct export_ids *ids, struct sample_ids *out);
/* a symbols row id for a symbol without an identity of its own (perf's symbol made for a
 * function inlined at one address): an id only, nothing is kept */
int64_t export_ids_new_symbol(struct export_ids *ids);
void export_ids_fini(struct export_ids *ids);

/* The runs row after its id, as texts in the table's column order (NULL: NULL): trace,
 * exported_at (UTC now, written into when[32]), pmutrace_version, command, perf_compat
 * (into compat[16]), hostname, os_release, perf_version, arch, cpuid, record_cmdline. */
#define RUN_COLUMNS 11

/* The trace's own loss records (aux_loss_ranges): every PERF_RECORD_AUX with a truncated,
 * partial or collision flag, every LOST and LOST_SAMPLES, in file order. They are few (a
 * record per AUX buffer wrap at most): kept in a doubling array until the finish. */
struct loss_row {
	uint64_t file_offset;
	uint64_t aux_offset, aux_size, flags; /* AUX */
	uint64_t lost;                        /* LOST: records, LOST_SAMPLES: samples */
	uint64_t time;
	int32_t cpu, tid;
	uint32_t type;       /* PERF_RECORD_AUX, _LOST or _LOST_SAMPLES */
	bool has_sid;        /* cpu, tid and time are the record's sample_id */
};
struct export_losses {
	struct loss_row *r;
	size_t n, cap;
};
/* a record of the trace: kept when it tells of a loss; 0 or -PMT_ENOMEM */
int export_losses_add(struct export_losses *l, const struct pmt_trace_event *ev);
/* the kind column: "truncated", "partial", "collision" (joined with ',' when an AUX record
 * has several), "lost" or "lost_samples" */
const char *export_loss_kind(const struct loss_row *r, char buf[40]);
void export_run_values(const struct pmt_export_opts *o, char when[32], char compat[16],
		       const char *v[RUN_COLUMNS]);

#endif
