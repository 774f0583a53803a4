/* Samples into SQLite: the schema of SCHEMA.md, one prepared INSERT per table, the bulk load
 * in transactions with the journal and fsyncs off, indexes built after the load. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include <sqlite3.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/symbols.h"
#include "pmutrace/perf_abi.h"
#include "pmutrace/export.h"
#include "backend.h"
#include "rows.h"
#include "callpaths.h"

/* Keep in step with SCHEMA.md (the test cli.export_sqlite compares the two). */
static const char schema_tables[] =
	"CREATE TABLE runs (\n"
	"\tid INTEGER PRIMARY KEY,\n"
	"\ttrace TEXT NOT NULL,\n"
	"\texported_at TEXT NOT NULL,\n"
	"\tpmutrace_version TEXT NOT NULL,\n"
	"\tcommand TEXT,\n"
	"\tperf_compat INTEGER NOT NULL,\n"
	"\thostname TEXT,\n"
	"\tos_release TEXT,\n"
	"\tperf_version TEXT,\n"
	"\tarch TEXT,\n"
	"\tcpuid TEXT,\n"
	"\trecord_cmdline TEXT\n"
	");\n"
	"CREATE TABLE events (\n"
	"\tid INTEGER PRIMARY KEY,\n"
	"\tname TEXT NOT NULL\n"
	");\n"
	"CREATE TABLE comms (\n"
	"\tid INTEGER PRIMARY KEY,\n"
	"\tcomm TEXT NOT NULL\n"
	");\n"
	"CREATE TABLE dsos (\n"
	"\tid INTEGER PRIMARY KEY,\n"
	"\tshort_name TEXT NOT NULL,\n"
	"\tlong_name TEXT NOT NULL\n"
	");\n"
	"CREATE TABLE symbols (\n"
	"\tid INTEGER PRIMARY KEY,\n"
	"\tdso_id INTEGER NOT NULL,\n"
	"\tsym_start INTEGER NOT NULL,\n"
	"\tname TEXT NOT NULL\n"
	");\n"
	"CREATE TABLE threads (\n"
	"\tid INTEGER PRIMARY KEY,\n"
	"\tpid INTEGER NOT NULL,\n"
	"\ttid INTEGER NOT NULL,\n"
	"\tsamples INTEGER NOT NULL\n"
	");\n"
	"CREATE TABLE samples (\n"
	"\tid INTEGER PRIMARY KEY,\n"
	"\trun_id INTEGER NOT NULL,\n"
	"\tevent_id INTEGER NOT NULL,\n"
	"\tcpu INTEGER NOT NULL,\n"
	"\tpid INTEGER NOT NULL,\n"
	"\ttid INTEGER NOT NULL,\n"
	"\ttime INTEGER NOT NULL,\n"
	"\tip INTEGER NOT NULL,\n"
	"\taddr INTEGER NOT NULL,\n"
	"\tphys_addr INTEGER NOT NULL,\n"
	"\tperiod INTEGER NOT NULL,\n"
	"\tweight INTEGER NOT NULL,\n"
	"\tissue_lat INTEGER NOT NULL,\n"
	"\txlat_lat INTEGER NOT NULL,\n"
	"\tdata_src INTEGER NOT NULL,\n"
	"\tmem_op TEXT,\n"
	"\tmem_lvl TEXT,\n"
	"\tmem_snoop TEXT,\n"
	"\tmem_tlb TEXT,\n"
	"\top TEXT NOT NULL,\n"
	"\top_bits INTEGER NOT NULL,\n"
	"\tflags INTEGER NOT NULL,\n"
	"\taux_offset INTEGER NOT NULL,\n"
	"\tcomm_id INTEGER,\n"
	"\tdso_id INTEGER,\n"
	"\tsymbol_id INTEGER,\n"
	"\tsym_offset INTEGER,\n"
	"\tcall_path_id INTEGER\n"
	");\n"
	"CREATE TABLE call_paths (\n"
	"\tid INTEGER PRIMARY KEY,\n"
	"\tparent_id INTEGER,\n"
	"\tsymbol_id INTEGER,\n"
	"\tip INTEGER NOT NULL\n"
	");\n"
	"CREATE TABLE branch_entries (\n"
	"\tsample_id INTEGER NOT NULL,\n"
	"\tidx INTEGER NOT NULL,\n"
	"\tfrom_ip INTEGER NOT NULL,\n"
	"\tto_ip INTEGER NOT NULL,\n"
	"\tcycles INTEGER NOT NULL,\n"
	"\tbranch_type INTEGER NOT NULL,\n"
	"\tbranch_flags INTEGER NOT NULL,\n"
	"\tPRIMARY KEY (sample_id, idx)\n"
	") WITHOUT ROWID;\n"
	"CREATE TABLE aux_loss (\n"
	"\trun_id INTEGER NOT NULL,\n"
	"\trecords INTEGER NOT NULL,\n"
	"\tbytes_skipped INTEGER NOT NULL,\n"
	"\tbad_ranges INTEGER NOT NULL,\n"
	"\trecords_dropped INTEGER NOT NULL,\n"
	"\tfirst_bad_offset INTEGER\n"
	");\n"
	"CREATE TABLE aux_loss_ranges (\n"
	"\tid INTEGER PRIMARY KEY,\n"
	"\trun_id INTEGER NOT NULL,\n"
	"\tkind TEXT NOT NULL,\n"
	"\tcpu INTEGER,\n"
	"\ttid INTEGER,\n"
	"\ttime INTEGER,\n"
	"\taux_offset INTEGER,\n"
	"\taux_size INTEGER,\n"
	"\tflags INTEGER,\n"
	"\tlost INTEGER,\n"
	"\tfile_offset INTEGER NOT NULL\n"
	");\n"
	"CREATE TABLE metrics (\n"
	"\tid INTEGER PRIMARY KEY,\n"
	"\trun_id INTEGER NOT NULL,\n"
	"\tinterval TEXT NOT NULL,\n"
	"\taggr TEXT NOT NULL,\n"
	"\tpmu TEXT NOT NULL,\n"
	"\tname TEXT NOT NULL,\n"
	"\tdepth INTEGER NOT NULL,\n"
	"\tvalue REAL,\n"
	"\tunit TEXT NOT NULL,\n"
	"\tthreshold INTEGER,\n"
	"\tmissing_event TEXT,\n"
	"\tretlat_measured REAL,\n"
	"\tretlat_default REAL\n"
	");\n"
	"CREATE TABLE metric_retire_latencies (\n"
	"\tmetric_id INTEGER NOT NULL REFERENCES metrics(id),\n"
	"\tevent TEXT NOT NULL,\n"
	"\tretlat_measured REAL,\n"
	"\tretlat_default REAL\n"
	");\n";
/* the samples as script --csv prints them */
#define SCHEMA_VIEW                                                                       \
	"CREATE VIEW samples_view AS\n"                                                    \
	"\tSELECT s.id, e.name AS event, s.cpu, s.pid, s.tid, s.time,\n"                  \
	"\t\tprintf('0x%x', s.ip) AS ip, printf('0x%x', s.addr) AS addr,\n"               \
	"\t\tprintf('0x%x', s.phys_addr) AS phys_addr, s.period, s.weight, s.issue_lat,\n"\
	"\t\ts.xlat_lat, printf('0x%x', s.data_src) AS data_src, s.mem_op, s.mem_lvl,\n"  \
	"\t\ts.mem_snoop, s.mem_tlb, s.op, printf('0x%x', s.flags) AS flags,\n"          \
	"\t\tprintf('0x%x', s.aux_offset) AS aux_offset\n"                               \
	"\tFROM samples s JOIN events e ON e.id = s.event_id;\n"
/* after the load: one sorted build per index instead of a b-tree insert per row */
static const char schema_indexes[] =
	"CREATE INDEX samples_time ON samples (time);\n"
	"CREATE INDEX samples_ip ON samples (ip);\n"
	"CREATE INDEX samples_addr ON samples (addr);\n"
	"CREATE INDEX samples_event ON samples (event_id);\n"
	SCHEMA_VIEW;
static const char schema_view[] = SCHEMA_VIEW;

const char *pmt_export_sqlite_schema(void)
{
	static char all[sizeof(schema_tables) + sizeof(schema_indexes)];

	if (!all[0]) {
		memcpy(all, schema_tables, sizeof(schema_tables) - 1);
		memcpy(all + sizeof(schema_tables) - 1, schema_indexes, sizeof(schema_indexes));
	}
	return all;
}

enum { S_SAMPLE, S_BRANCH, S_COMM, S_DSO, S_SYMBOL, S_METRIC, S_METRIC_RETLAT, S_CALL_PATH,
       S_NSTMT };
static const char *const stmt_sql[S_NSTMT] = {
	"INSERT INTO samples VALUES (?,1,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	"INSERT INTO branch_entries VALUES (?,?,?,?,?,?,?)",
	"INSERT INTO comms VALUES (?,?)",
	"INSERT INTO dsos VALUES (?,?,?)",
	"INSERT INTO symbols VALUES (?,?,?,?)",
	"INSERT INTO metrics VALUES (?,1,?,?,?,?,?,?,?,?,?,?,?)",
	"INSERT INTO metric_retire_latencies VALUES (?,?,?,?)",
	"INSERT INTO call_paths VALUES (?,?,?,?)",
};
/* parameter numbers of the samples INSERT */
enum {
	P_ID = 1, P_EVENT, P_CPU, P_PID, P_TID, P_TIME, P_IP, P_ADDR, P_PHYS, P_PERIOD, P_WEIGHT,
	P_ISSUE, P_XLAT, P_DSRC, P_MEM_OP, P_MEM_LVL, P_MEM_SNOOP, P_MEM_TLB, P_OP, P_OP_BITS,
	P_FLAGS, P_OFFSET, P_COMM, P_DSO, P_SYMBOL, P_SYMOFF, P_CALL_PATH,
};

struct sq_export {
	struct pmt_export base; /* first: the handle */
	sqlite3 *db;
	sqlite3_stmt *st[S_NSTMT];
	int compat;
	uint64_t batch, in_batch;
	int64_t nsamples, nmetrics;
	int failed;          /* a step failed: errmsg says why */
	bool no_index;
	char errmsg[256];
	uint32_t seen_events;
	const struct pmt_trace_meta *meta; /* names of the trace's own events */
	struct export_threads threads;
	struct pmt_spe_sample last; /* the sample whose record columns are bound */
	uint64_t last_offset;
	int have_last;
	struct pmt_symbols *syms;
	struct export_ids ids;
	struct export_callpaths paths;
	struct dsrc_slot dsrc[DSRC_SLOTS];
	struct export_losses losses;
};

static int db_fail(struct sq_export *x, struct pmt_diag *diag, const char *path,
		   const char *what)
{
	return pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET, "SQLite: %s: %s", what,
			    x->db ? sqlite3_errmsg(x->db) : "out of memory");
}

static int exec(struct sq_export *x, const char *sql)
{
	return sqlite3_exec(x->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -PMT_EIO;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int insert_run(struct sq_export *x, const struct pmt_export_opts *o)
{
	const char *v[RUN_COLUMNS];
	char when[32], compat[16];
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(x->db, "INSERT INTO runs VALUES (1,?,?,?,?,?,?,?,?,?,?,?)", -1,
			       &st, NULL) != SQLITE_OK)
		return -PMT_EIO;
	export_run_values(o, when, compat, v);
	for (int i = 0; i < RUN_COLUMNS; i++) {
		if (i == 4)
			sqlite3_bind_int(st, i + 1, x->compat);
		else
			bind_text_or_null(st, i + 1, v[i]);
	}
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -PMT_EIO;
	sqlite3_finalize(st);
	return rc;
}

static int sq_sample(struct pmt_export *base, const struct pmt_spe_sample *s);
static int sq_event(struct pmt_export *base, const struct pmt_trace_event *ev);
static int sq_metric(struct pmt_export *base, const struct pmt_export_metric *m);
static int64_t sq_finish(struct pmt_export *base, const struct pmt_spe_rec_stats *stats,
			 uint32_t enabled, struct pmt_diag *diag);
static void sq_free(struct pmt_export *base);
static const struct export_ops sq_ops = { .sample = sq_sample, .event = sq_event,
					 .metric = sq_metric, .finish = sq_finish,
					 .free = sq_free };

int pmt_export_sqlite_new(const char *db_path, const struct pmt_export_opts *opts,
			  struct pmt_export **out, struct pmt_diag *diag)
{
	struct sq_export *x;
	int err = export_alloc(sizeof(*x), &sq_ops, db_path, opts, out, (void **)&x, diag);

	if (err < 0)
		return err;
	x->compat = opts->compat;
	x->meta = PMT_OPTS_HAS(opts, meta) ? opts->meta : NULL;
	x->batch = PMT_OPTS_HAS(opts, batch) ? opts->batch : 0;
	x->syms = PMT_OPTS_HAS(opts, symbols) ? opts->symbols : NULL;
	export_ids_init(&x->ids);
	export_callpaths_init(&x->paths, x->compat);
	x->no_index = PMT_OPTS_HAS(opts, no_index) && opts->no_index;
	/* No allocation statistics (a global mutex around every malloc of SQLite's) and no
	 * mutex per connection call: one thread uses the connection. 10% of the load's CPU
	 * (README). Only possible before SQLite's first use in the process; later calls
	 * return SQLITE_MISUSE and change nothing. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
	if (sqlite3_open_v2(db_path, &x->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		int rc = db_fail(x, diag, db_path, "cannot open");

		sq_free(&x->base);
		return rc;
	}
	/* bulk load: no rollback journal, no fsync (the caller renames a complete file) */
	if (exec(x, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
		    "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536; "
		    "PRAGMA temp_store=MEMORY") ||
	    exec(x, schema_tables) || insert_run(x, opts)) {
		int rc = db_fail(x, diag, db_path, "cannot create the schema");

		sq_free(&x->base);
		return rc;
	}
	for (int i = 0; i < S_NSTMT; i++) {
		if (sqlite3_prepare_v3(x->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
				       &x->st[i], NULL) != SQLITE_OK) {
			int rc = db_fail(x, diag, db_path, "cannot prepare");

			sq_free(&x->base);
			return rc;
		}
	}
	if (exec(x, "BEGIN")) {
		int rc = db_fail(x, diag, db_path, "BEGIN");

		sq_free(&x->base);
		return rc;
	}
	*out = &x->base;
	return 0;
}

/* a step that fails keeps the first message; the load goes on failing fast */
static int step(struct sq_export *x, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (!x->failed)
		snprintf(x->errmsg, sizeof(x->errmsg), "%s", sqlite3_errmsg(x->db));
	x->failed = 1;
	return -PMT_EIO;
}

static int insert_branches(struct sq_export *x, const struct pmt_spe_brstack *b)
{
	sqlite3_stmt *st = x->st[S_BRANCH];

	for (uint32_t i = 0; i < b->nr && i < PMT_SPE_BRSTACK_MAX; i++) {
		sqlite3_bind_int64(st, 1, x->nsamples);
		sqlite3_bind_int(st, 2, (int)i);
		sqlite3_bind_int64(st, 3, (sqlite3_int64)b->e[i].from);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)b->e[i].to);
		sqlite3_bind_int(st, 5, b->e[i].cycles);
		sqlite3_bind_int(st, 6, b->e[i].type);
		sqlite3_bind_int(st, 7, b->e[i].flags);
		if (step(x, st))
			return -PMT_EIO;
	}
	return 0;
}

/* the rows of a comm, dso and symbol that got their ids just now */
static int insert_new_ids(struct sq_export *x, const struct sample_ids *p)
{
	if (p->new_comm) {
		sqlite3_bind_int64(x->st[S_COMM], 1, p->comm_id);
		sqlite3_bind_text(x->st[S_COMM], 2, p->comm, -1, SQLITE_STATIC);
		if (step(x, x->st[S_COMM]))
			return -PMT_EIO;
	}
	if (p->new_dso) {
		sqlite3_bind_int64(x->st[S_DSO], 1, p->dso_id);
		sqlite3_bind_text(x->st[S_DSO], 2, p->loc.dso_short, -1, SQLITE_STATIC);
		sqlite3_bind_text(x->st[S_DSO], 3, p->loc.dso, -1, SQLITE_STATIC);
		if (step(x, x->st[S_DSO]))
			return -PMT_EIO;
	}
	if (p->new_sym) {
		sqlite3_bind_int64(x->st[S_SYMBOL], 1, p->sym_id);
		sqlite3_bind_int64(x->st[S_SYMBOL], 2, p->dso_id);
		sqlite3_bind_int64(x->st[S_SYMBOL], 3, (sqlite3_int64)p->loc.sym_start);
		sqlite3_bind_text(x->st[S_SYMBOL], 4, p->loc.sym, -1, SQLITE_STATIC);
		if (step(x, x->st[S_SYMBOL]))
			return -PMT_EIO;
	}
	return 0;
}

/* comm_id, dso_id, symbol_id and sym_offset of a sample (a new comm, dso or symbol gets its
 * row first); NULL where the trace does not say */
static int bind_symbols(struct sq_export *x, sqlite3_stmt *st, const struct pmt_spe_sample *s)
{
	struct sample_ids o;
	int rc = export_ids_of(&x->ids, x->syms, s, &o);

	if (rc < 0 || (rc = insert_new_ids(x, &o)) < 0)
		return rc;
	if (o.comm_id)
		sqlite3_bind_int64(st, P_COMM, o.comm_id);
	else
		sqlite3_bind_null(st, P_COMM);
	if (o.dso_id)
		sqlite3_bind_int64(st, P_DSO, o.dso_id);
	else
		sqlite3_bind_null(st, P_DSO);
	if (o.sym_id) {
		sqlite3_bind_int64(st, P_SYMBOL, o.sym_id);
		sqlite3_bind_int64(st, P_SYMOFF, (sqlite3_int64)o.loc.symoff);
	} else {
		sqlite3_bind_null(st, P_SYMBOL);
		sqlite3_bind_null(st, P_SYMOFF);
	}
	return 0;
}

static void bind_id_or_null(sqlite3_stmt *st, int i, int64_t id)
{
	if (id)
		sqlite3_bind_int64(st, i, id);
	else
		sqlite3_bind_null(st, i);
}

/* a new call_paths row, after the rows of its dso and symbol */
static int insert_call_path(void *ctx, const struct callpath_row *r,
			    const struct sample_ids *frame)
{
	struct sq_export *x = ctx;
	sqlite3_stmt *st = x->st[S_CALL_PATH];

	if (insert_new_ids(x, frame) < 0)
		return -PMT_EIO;
	if (!r)
		return 0;
	sqlite3_bind_int64(st, 1, r->id);
	bind_id_or_null(st, 2, r->parent_id);
	bind_id_or_null(st, 3, r->symbol_id);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)r->ip);
	return step(x, st);
}

/* Do a and b share the columns of one record (so the bindings of a can stay)? */
static int same_record(const struct sq_export *x, const struct pmt_spe_sample *s)
{
	const struct pmt_spe_sample *a = &x->last;

	return x->have_last && a->cpu == s->cpu && a->pid == s->pid && a->tid == s->tid &&
	       a->time == s->time && a->ip == s->ip && a->phys_addr == s->phys_addr &&
	       a->weight == s->weight && a->issue_lat == s->issue_lat &&
	       a->xlat_lat == s->xlat_lat && a->data_src == s->data_src && a->op == s->op &&
	       x->last_offset == (s->rec ? s->rec->offset : 0);
}

/* the columns of the sample's record (64-bit unsigned values as their bit pattern: SQLite
 * integers are signed) */
static int bind_record(struct sq_export *x, sqlite3_stmt *st, const struct pmt_spe_sample *s)
{
	x->last = *s;
	x->last_offset = s->rec ? s->rec->offset : 0;
	x->have_last = 1;
	sqlite3_bind_int64(st, P_CPU, (int32_t)s->cpu); /* -1: no CPU sampled */
	sqlite3_bind_int(st, P_PID, s->pid);
	sqlite3_bind_int(st, P_TID, s->tid);
	sqlite3_bind_int64(st, P_TIME, (sqlite3_int64)s->time);
	sqlite3_bind_int64(st, P_IP, (sqlite3_int64)s->ip);
	sqlite3_bind_int64(st, P_PHYS, (sqlite3_int64)s->phys_addr);
	sqlite3_bind_int64(st, P_WEIGHT, (sqlite3_int64)s->weight);
	sqlite3_bind_int(st, P_ISSUE, s->issue_lat);
	sqlite3_bind_int(st, P_XLAT, s->xlat_lat);
	sqlite3_bind_int64(st, P_DSRC, (sqlite3_int64)s->data_src);
	if (s->data_src) {
		const struct dsrc_slot *d = export_dsrc_text(x->dsrc, s->data_src, x->compat);

		for (int i = 0; i < 4; i++)
			sqlite3_bind_text(st, P_MEM_OP + i, d->text[i], d->len[i], SQLITE_STATIC);
	} else {
		for (int i = 0; i < 4; i++)
			sqlite3_bind_null(st, P_MEM_OP + i);
	}
	sqlite3_bind_text(st, P_OP, export_op_name(s->op), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, P_OP_BITS, s->op);
	sqlite3_bind_int64(st, P_OFFSET, (sqlite3_int64)x->last_offset);
	return x->syms ? bind_symbols(x, st, s) : 0;
}

static int sq_sample(struct pmt_export *base, const struct pmt_spe_sample *s)
{
	struct sq_export *x = (struct sq_export *)base;
	sqlite3_stmt *st = x->st[S_SAMPLE];

	if (x->failed)
		return -PMT_EIO;
	if (export_threads_count(&x->threads, s->pid, s->tid)) {
		snprintf(x->errmsg, sizeof(x->errmsg), "out of memory");
		x->failed = 1;
		return -PMT_ENOMEM;
	}
	x->nsamples++;
	if (s->event < 32)
		x->seen_events |= 1u << s->event;
	/* id NULL: SQLite numbers the rows 1, 2... as nsamples counts them, appending
	 * without the seek an explicit key costs */
	sqlite3_bind_null(st, P_ID);
	sqlite3_bind_int(st, P_EVENT, (int)s->event);
	sqlite3_bind_int64(st, P_ADDR, (sqlite3_int64)s->addr);
	sqlite3_bind_int64(st, P_PERIOD, (sqlite3_int64)s->period);
	sqlite3_bind_int64(st, P_FLAGS, s->flags);
	/* bindings stay after a reset: a record's samples bind only the columns that differ
	 * (the mem texts are SQLITE_STATIC: their cache slot stays while data_src does) */
	if (!same_record(x, s) && bind_record(x, st, s) < 0) {
		x->have_last = 0;
		if (!x->failed)
			snprintf(x->errmsg, sizeof(x->errmsg), "out of memory");
		x->failed = 1;
		return -PMT_EIO;
	}
	if (s->callchain) {
		int64_t path = export_callpath_of(&x->paths, &x->ids, x->syms, s,
						  insert_call_path, x);

		if (path < 0) {
			if (!x->failed)
				snprintf(x->errmsg, sizeof(x->errmsg), "out of memory");
			x->failed = 1;
			return -PMT_EIO;
		}
		bind_id_or_null(st, P_CALL_PATH, path);
	} else {
		sqlite3_bind_null(st, P_CALL_PATH);
	}
	if (step(x, st))
		return -PMT_EIO;
	if (s->brstack && s->brstack->nr && insert_branches(x, s->brstack))
		return -PMT_EIO;
	if (x->batch && ++x->in_batch >= x->batch) {
		x->in_batch = 0;
		if (exec(x, "COMMIT; BEGIN")) {
			snprintf(x->errmsg, sizeof(x->errmsg), "%s", sqlite3_errmsg(x->db));
			x->failed = 1;
			return -PMT_EIO;
		}
	}
	return 0;
}

static int insert_events(struct sq_export *x, uint32_t events)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(x->db, "INSERT INTO events VALUES (?,?)", -1, &st, NULL) !=
	    SQLITE_OK)
		return -PMT_EIO;
	for (unsigned ev = 0; ev < 32 && !rc; ev++) {
		char name[128];

		if (!(events & (1u << ev)))
			continue;
		pmt_trace_event_name(x->meta, ev, x->compat, name, sizeof(name));
		sqlite3_bind_int(st, 1, (int)ev);
		sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
		rc = step(x, st);
	}
	sqlite3_finalize(st);
	return rc;
}

/* every (pid, tid) with its sample count, by pid and tid */
static int insert_threads(struct sq_export *x)
{
	struct thread_count *t = x->threads.thr;
	size_t n = export_threads_sorted(&x->threads);
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(x->db, "INSERT INTO threads VALUES (?,?,?,?)", -1, &st, NULL) !=
	    SQLITE_OK)
		return -PMT_EIO;
	for (size_t i = 0; i < n && !rc; i++) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i + 1);
		sqlite3_bind_int(st, 2, t[i].pid);
		sqlite3_bind_int(st, 3, t[i].tid);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)t[i].n);
		rc = step(x, st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int insert_loss(struct sq_export *x, const struct pmt_spe_rec_stats *s)
{
	static const struct pmt_spe_rec_stats none;
	sqlite3_stmt *st;
	int rc;

	if (!s)
		s = &none;
	if (sqlite3_prepare_v2(x->db, "INSERT INTO aux_loss VALUES (1,?,?,?,?,?)", -1, &st,
			       NULL) != SQLITE_OK)
		return -PMT_EIO;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)s->records);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)s->bytes_skipped);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)s->bad_ranges);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)s->records_dropped);
	if (s->have_bad)
		sqlite3_bind_int64(st, 5, (sqlite3_int64)s->first_bad_offset);
	else
		sqlite3_bind_null(st, 5);
	rc = step(x, st);
	sqlite3_finalize(st);
	return rc;
}

static int sq_event(struct pmt_export *base, const struct pmt_trace_event *ev)
{
	struct sq_export *x = (struct sq_export *)base;

	export_callpaths_event(&x->paths, ev);
	return export_losses_add(&x->losses, ev);
}

static void bind_double_or_null(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

static int sq_metric(struct pmt_export *base, const struct pmt_export_metric *m)
{
	struct sq_export *x = (struct sq_export *)base;
	sqlite3_stmt *st = x->st[S_METRIC];

	if (x->failed)
		return -PMT_EIO;
	sqlite3_bind_int64(st, 1, ++x->nmetrics);
	sqlite3_bind_text(st, 2, m->interval ? m->interval : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, m->aggr ? m->aggr : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, m->pmu ? m->pmu : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, m->name ? m->name : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 6, (int)m->depth);
	bind_double_or_null(st, 7, m->missing ? NAN : m->value);
	sqlite3_bind_text(st, 8, m->unit ? m->unit : "", -1, SQLITE_TRANSIENT);
	if (m->threshold < 0)
		sqlite3_bind_null(st, 9);
	else
		sqlite3_bind_int(st, 9, m->threshold);
	bind_text_or_null(st, 10, m->missing);
	bind_double_or_null(st, 11, m->retlat_measured);
	bind_double_or_null(st, 12, m->retlat_default);
	if (step(x, st) < 0)
		return -PMT_EIO;
	st = x->st[S_METRIC_RETLAT];
	for (size_t k = 0; k < m->nr_retlat; k++) {
		sqlite3_bind_int64(st, 1, x->nmetrics);
		sqlite3_bind_text(st, 2, m->retlat[k].event, -1, SQLITE_TRANSIENT);
		bind_double_or_null(st, 3, m->retlat[k].measured);
		bind_double_or_null(st, 4, m->retlat[k].dflt);
		if (step(x, st) < 0)
			return -PMT_EIO;
	}
	return 0;
}

static void bind_u64_or_null(sqlite3_stmt *st, int i, bool have, uint64_t v)
{
	if (have)
		sqlite3_bind_int64(st, i, (sqlite3_int64)v);
	else
		sqlite3_bind_null(st, i);
}

/* the trace's loss records; the AUX columns are NULL on LOST rows and lost on AUX rows */
static int insert_loss_ranges(struct sq_export *x)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(x->db, "INSERT INTO aux_loss_ranges VALUES (?,1,?,?,?,?,?,?,?,?,?)",
			       -1, &st, NULL) != SQLITE_OK)
		return -PMT_EIO;
	for (size_t i = 0; i < x->losses.n && !rc; i++) {
		const struct loss_row *r = &x->losses.r[i];
		bool aux = r->type == PMT_REC_AUX;
		char kind[40];

		sqlite3_bind_int64(st, 1, (sqlite3_int64)i + 1);
		sqlite3_bind_text(st, 2, export_loss_kind(r, kind), -1, SQLITE_TRANSIENT);
		bind_u64_or_null(st, 3, r->has_sid, (uint64_t)(int64_t)r->cpu);
		bind_u64_or_null(st, 4, r->has_sid, (uint64_t)(int64_t)r->tid);
		bind_u64_or_null(st, 5, r->has_sid, r->time);
		bind_u64_or_null(st, 6, aux, r->aux_offset);
		bind_u64_or_null(st, 7, aux, r->aux_size);
		bind_u64_or_null(st, 8, aux, r->flags);
		bind_u64_or_null(st, 9, !aux, r->lost);
		sqlite3_bind_int64(st, 10, (sqlite3_int64)r->file_offset);
		rc = step(x, st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int64_t sq_finish(struct pmt_export *base, const struct pmt_spe_rec_stats *stats,
			 uint32_t enabled, struct pmt_diag *diag)
{
	struct sq_export *x = (struct sq_export *)base;

	if (x->failed)
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET,
				    "SQLite: cannot insert a sample: %s", x->errmsg);
	if (insert_events(x, enabled | x->seen_events) || insert_loss(x, stats) ||
	    insert_loss_ranges(x) || insert_threads(x) || exec(x, "COMMIT") || exec(x, x->no_index ? schema_view : schema_indexes))
		return db_fail(x, diag, NULL, "cannot finish the database");
	return x->nsamples;
}

static void sq_free(struct pmt_export *base)
{
	struct sq_export *x = (struct sq_export *)base;

	if (!x)
		return;
	for (int i = 0; i < S_NSTMT; i++)
		sqlite3_finalize(x->st[i]);
	sqlite3_close(x->db);
	free(x->threads.thr);
	export_ids_fini(&x->ids);
	export_callpaths_fini(&x->paths);
	free(x->losses.r);
	free(x);
}
