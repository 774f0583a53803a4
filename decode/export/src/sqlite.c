/* Samples into SQLite: the schema of SCHEMA.md, one prepared INSERT per table, the bulk load
 * in transactions with the journal and fsyncs off; the samples table and its indexes
 * written as b-tree pages (sqlite_pages.h) once SQLite is done, or (sqlite_api) through a
 * batched INSERT and indexes built after the load. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
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
#include "sqlite_index.h"
#include "sqlite_pages.h"
#include "sqlite_rows.h"
#include "sqlite_sample.h"
#include "sqlite_schema.h"

enum { S_SAMPLES, S_BRANCH, S_COMM, S_DSO, S_SYMBOL, S_METRIC, S_METRIC_RETLAT, S_CALL_PATH,
       S_NSTMT };
static const char *const stmt_sql[S_NSTMT] = {
	/* id NULL: SQLite numbers the rows 1, 2... as nsamples counts them, appending
	 * without the seek an explicit key costs */
	"INSERT INTO samples SELECT NULL, 1, * FROM pmt_sample_rows",
	"INSERT INTO branch_entries VALUES (?,?,?,?,?,?,?)",
	"INSERT INTO comms VALUES (?,?)",
	"INSERT INTO dsos VALUES (?,?,?)",
	"INSERT INTO symbols VALUES (?,?,?,?)",
	"INSERT INTO metrics VALUES (?,1,?,?,?,?,?,?,?,?,?,?,?)",
	"INSERT INTO metric_retire_latencies VALUES (?,?,?,?)",
	"INSERT INTO call_paths VALUES (?,?,?,?)",
};
/* The samples' columns after id and run_id, as pmt_sample_rows gives them to the INSERT */
static const char sample_rows_decl[] =
	"CREATE TABLE x(event_id, cpu, pid, tid, time, ip, addr, phys_addr, period, weight, "
	"issue_lat, xlat_lat, data_src, mem_op, mem_lvl, mem_snoop, mem_tlb, op, op_bits, flags, "
	"aux_offset, comm_id, dso_id, symbol_id, sym_offset, call_path_id)";
enum {
	C_EVENT, C_CPU, C_PID, C_TID, C_TIME, C_IP, C_ADDR, C_PHYS, C_PERIOD, C_WEIGHT, C_ISSUE,
	C_XLAT, C_DSRC, C_MEM_OP, C_MEM_LVL, C_MEM_SNOOP, C_MEM_TLB, C_OP, C_OP_BITS, C_FLAGS,
	C_OFFSET, C_COMM, C_DSO, C_SYMBOL, C_SYMOFF, C_CALL_PATH,
};

/* rows per INSERT ... SELECT: past a few hundred the statement's own cost is lost in the
 * rows'; the buffer (~130 KB) stays in the cache's reach */
#define SAMPLE_BATCH 1024

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
	struct pmt_spe_sample last; /* the sample whose record columns are in row */
	uint64_t last_offset;
	int have_last;
	struct sample_row row;   /* the next row: the record's columns stay for its samples */
	struct sample_row *rows; /* [SAMPLE_BATCH], pending.n of them filled */
	struct sq_rows pending;
	struct sq_index_keys keys; /* the indexed columns, for the indexes (not --no-index) */
	bool direct;              /* samples as pages (not sqlite_api) */
	struct sq_pages pages;
	struct sq_record rec;
	char *path;
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

/* the pages' writer on the page size SQLite chose, its lock byte and the file */
static int init_pages(struct sq_export *x)
{
	/* the library's own lock-byte offset (an argument of 0 only reads it): a page
	 * written there would be refused as corrupt by every reader */
	int pending = sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, 0);
	sqlite3_int64 size = 0;
	const uint8_t *image = sqlite3_serialize(x->db, "main", &size, SQLITE_SERIALIZE_NOCOPY);

	if (!image || size < 100) {
		x->pages.what = "SQLite's database is not in memory";
		x->pages.err = EIO;
		return -EIO;
	}
	return sq_pages_init(&x->pages, x->path, image, pending > 0 ? (uint64_t)pending : 0);
}

static int sq_sample(struct pmt_export *base, const struct pmt_spe_sample *s);
static void sample_column(const struct sq_rows *rows, size_t i, int col, sqlite3_context *ctx);
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
	x->direct = !(PMT_OPTS_HAS(opts, sqlite_api) && opts->sqlite_api);
	x->pages.fd = -1;
	x->rows = malloc(SAMPLE_BATCH * sizeof(*x->rows));
	x->path = strdup(db_path);
	if (!x->rows || !x->path) {
		sq_free(&x->base);
		return pmt_diag_set(diag, -PMT_ENOMEM, db_path, PMT_DIAG_NO_OFFSET,
				    "out of memory");
	}
	x->pending = (struct sq_rows){ .decl = sample_rows_decl, .column = sample_column };
	/* No allocation statistics (a global mutex around every malloc of SQLite's) and no
	 * mutex per connection call: one thread uses the connection. 10% of the load's CPU
	 * (README). Only possible before SQLite's first use in the process; later calls
	 * return SQLITE_MISUSE and change nothing. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
	/* Pages: SQLite's part in memory (memdb), which goes into the file in front of the
	 * samples' pages at the end, so that those are written once, straight to their place
	 * (sqlite_pages.h); no size limit of its own (1 GiB by default) */
	if (sqlite3_open_v2(x->direct ? "file:pmutrace-export?vfs=memdb" : db_path, &x->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, NULL) !=
		    SQLITE_OK ||
	    (x->direct && sqlite3_file_control(x->db, "main", SQLITE_FCNTL_SIZE_LIMIT,
					       &(sqlite3_int64){ INT64_MAX }) != SQLITE_OK)) {
		int rc = db_fail(x, diag, db_path, "cannot open");

		sq_free(&x->base);
		return rc;
	}
	/* bulk load: no rollback journal, no fsync (the caller renames a complete file) */
	if (exec(x, "PRAGMA auto_vacuum=NONE; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
		    "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536; "
		    "PRAGMA temp_store=MEMORY") ||
	    exec(x, sq_schema_tables) || insert_run(x, opts) ||
	    sq_rows_register(x->db, "pmt_sample_rows", &x->pending) != SQLITE_OK) {
		int rc = db_fail(x, diag, db_path, "cannot create the schema");

		sq_free(&x->base);
		return rc;
	}
	if (x->direct && init_pages(x) < 0) {
		int rc = pmt_diag_set(diag, -PMT_EIO, db_path, PMT_DIAG_NO_OFFSET, "%s: %s",
				      x->pages.what, strerror(x->pages.err));

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
 * row first); 0 (NULL) where the trace does not say */
static int row_symbols(struct sq_export *x, struct sample_row *r, const struct pmt_spe_sample *s)
{
	struct sample_ids o;
	int rc = export_ids_of(&x->ids, x->syms, s, &o);

	if (rc < 0 || (rc = insert_new_ids(x, &o)) < 0)
		return rc;
	r->comm_id = o.comm_id;
	r->dso_id = o.dso_id;
	r->symbol_id = o.sym_id;
	r->sym_offset = o.sym_id ? o.loc.symoff : 0;
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

/* the columns of the sample's record */
static int row_record(struct sq_export *x, struct sample_row *r, const struct pmt_spe_sample *s)
{
	x->last = *s;
	x->last_offset = s->rec ? s->rec->offset : 0;
	x->have_last = 1;
	r->cpu = (int32_t)s->cpu; /* -1: no CPU sampled */
	r->pid = s->pid;
	r->tid = s->tid;
	r->time = s->time;
	r->ip = s->ip;
	r->phys_addr = s->phys_addr;
	r->weight = s->weight;
	r->issue_lat = s->issue_lat;
	r->xlat_lat = s->xlat_lat;
	r->data_src = s->data_src;
	r->op = s->op;
	r->aux_offset = x->last_offset;
	return x->syms ? row_symbols(x, r, s) : 0;
}

static void result_id_or_null(sqlite3_context *ctx, int64_t id)
{
	if (id)
		sqlite3_result_int64(ctx, id);
	else
		sqlite3_result_null(ctx);
}

/* column col of pending row i (64-bit unsigned values as their bit pattern: SQLite
 * integers are signed) */
static void sample_column(const struct sq_rows *rows, size_t i, int col, sqlite3_context *ctx)
{
	struct sq_export *x =
		(struct sq_export *)((char *)rows - offsetof(struct sq_export, pending));
	const struct sample_row *r = &x->rows[i];
	const struct dsrc_slot *d;

	switch (col) {
	case C_EVENT: sqlite3_result_int64(ctx, r->event); return;
	case C_CPU: sqlite3_result_int64(ctx, r->cpu); return;
	case C_PID: sqlite3_result_int64(ctx, r->pid); return;
	case C_TID: sqlite3_result_int64(ctx, r->tid); return;
	case C_TIME: sqlite3_result_int64(ctx, (sqlite3_int64)r->time); return;
	case C_IP: sqlite3_result_int64(ctx, (sqlite3_int64)r->ip); return;
	case C_ADDR: sqlite3_result_int64(ctx, (sqlite3_int64)r->addr); return;
	case C_PHYS: sqlite3_result_int64(ctx, (sqlite3_int64)r->phys_addr); return;
	case C_PERIOD: sqlite3_result_int64(ctx, (sqlite3_int64)r->period); return;
	case C_WEIGHT: sqlite3_result_int64(ctx, (sqlite3_int64)r->weight); return;
	case C_ISSUE: sqlite3_result_int64(ctx, r->issue_lat); return;
	case C_XLAT: sqlite3_result_int64(ctx, r->xlat_lat); return;
	case C_DSRC: sqlite3_result_int64(ctx, (sqlite3_int64)r->data_src); return;
	case C_MEM_OP: case C_MEM_LVL: case C_MEM_SNOOP: case C_MEM_TLB:
		if (!r->data_src) {
			sqlite3_result_null(ctx);
			return;
		}
		/* the row's four texts come from one slot: SQLITE_STATIC holds until
		 * SQLite has built the row's record */
		d = export_dsrc_text(x->dsrc, r->data_src, x->compat);
		sqlite3_result_text(ctx, d->text[col - C_MEM_OP], d->len[col - C_MEM_OP],
				    SQLITE_STATIC);
		return;
	case C_OP: sqlite3_result_text(ctx, export_op_name(r->op), -1, SQLITE_STATIC); return;
	case C_OP_BITS: sqlite3_result_int64(ctx, r->op); return;
	case C_FLAGS: sqlite3_result_int64(ctx, r->flags); return;
	case C_OFFSET: sqlite3_result_int64(ctx, (sqlite3_int64)r->aux_offset); return;
	case C_COMM: result_id_or_null(ctx, r->comm_id); return;
	case C_DSO: result_id_or_null(ctx, r->dso_id); return;
	case C_SYMBOL: result_id_or_null(ctx, r->symbol_id); return;
	case C_SYMOFF:
		if (r->symbol_id)
			sqlite3_result_int64(ctx, (sqlite3_int64)r->sym_offset);
		else
			sqlite3_result_null(ctx);
		return;
	case C_CALL_PATH: result_id_or_null(ctx, r->call_path_id); return;
	default: sqlite3_result_null(ctx); return;
	}
}

/* the row as sample_column gives it to SQLite, as a record into the table's pages */
static int put_row(struct sq_export *x, const struct sample_row *r)
{
	sq_sample_record(&x->rec, r, x->dsrc, x->compat);
	if (sq_pages_row(&x->pages, x->nsamples, &x->rec) < 0) {
		if (!x->failed)
			snprintf(x->errmsg, sizeof(x->errmsg), "%s: %s", x->pages.what,
				 strerror(x->pages.err));
		x->failed = 1;
		return -PMT_EIO;
	}
	return 0;
}

/* the pending rows into samples, in one statement */
static int flush_rows(struct sq_export *x)
{
	if (!x->pending.n)
		return 0;
	if (step(x, x->st[S_SAMPLES]))
		return -PMT_EIO;
	x->pending.n = 0;
	return 0;
}

static int sq_sample(struct pmt_export *base, const struct pmt_spe_sample *s)
{
	struct sq_export *x = (struct sq_export *)base;
	struct sample_row *r = &x->row;

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
	r->event = s->event;
	r->addr = s->addr;
	r->period = s->period;
	r->flags = s->flags;
	/* a record's samples share its columns and its symbol lookup */
	if (!same_record(x, s) && row_record(x, r, s) < 0) {
		x->have_last = 0;
		if (!x->failed)
			snprintf(x->errmsg, sizeof(x->errmsg), "out of memory");
		x->failed = 1;
		return -PMT_EIO;
	}
	r->call_path_id = 0;
	if (s->callchain) {
		int64_t path = export_callpath_of(&x->paths, &x->ids, x->syms, s,
						  insert_call_path, x);

		if (path < 0) {
			if (!x->failed)
				snprintf(x->errmsg, sizeof(x->errmsg), "out of memory");
			x->failed = 1;
			return -PMT_EIO;
		}
		r->call_path_id = path;
	}
	if (x->direct) {
		if (put_row(x, r) < 0)
			return -PMT_EIO;
	} else {
		x->rows[x->pending.n++] = *r;
	}
	if (!x->no_index)
		sq_keys_add(&x->keys, r->time, r->ip, r->addr, r->event);
	if (x->pending.n == SAMPLE_BATCH && flush_rows(x))
		return -PMT_EIO;
	if (s->brstack && s->brstack->nr && insert_branches(x, s->brstack))
		return -PMT_EIO;
	if (x->batch && ++x->in_batch >= x->batch) {
		x->in_batch = 0;
		if (flush_rows(x))
			return -PMT_EIO;
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

/* the root page SQLite gave table or index name; 0 when it has none */
static uint32_t root_page(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	uint32_t root = 0;

	if (sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE name = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 1)
		root = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return root;
}

static void close_db(struct sq_export *x)
{
	for (int i = 0; i < S_NSTMT; i++) {
		sqlite3_finalize(x->st[i]);
		x->st[i] = NULL;
	}
	sqlite3_close(x->db);
	x->db = NULL;
}

/* SQLite's database (committed, in memory) and the samples' pages into the file: their
 * indexes, empty,
 * by CREATE INDEX first, so that SQLite gives each its root page and sqlite_schema row;
 * without a key per row, the indexes are CREATE INDEX's of the table once it is in. */
static int64_t finish_pages(struct sq_export *x, struct pmt_diag *diag)
{
	bool from_keys = !x->no_index && sq_keys_complete(&x->keys, (size_t)x->nsamples);
	bool later = !x->no_index && !from_keys;
	uint32_t table_root, index_root[SQ_NINDEXES];
	const uint8_t *image;
	sqlite3_int64 size = 0;
	int err;

	for (size_t c = 0; from_keys && c < SQ_NINDEXES; c++) {
		char *sql = sqlite3_mprintf("CREATE INDEX %s ON samples (%s)", sq_index_name(c),
					    sq_index_column(c));
		int rc = sql ? exec(x, sql) : -PMT_ENOMEM;

		sqlite3_free(sql);
		if (rc || !(index_root[c] = root_page(x->db, sq_index_name(c))))
			return db_fail(x, diag, NULL, "cannot create the indexes");
	}
	table_root = root_page(x->db, "samples");
	if (!table_root || (!later && exec(x, sq_schema_view)))
		return db_fail(x, diag, NULL, "cannot finish the database");
	image = sqlite3_serialize(x->db, "main", &size, SQLITE_SERIALIZE_NOCOPY);
	if (!image)
		return db_fail(x, diag, NULL, "cannot finish the database");
	err = sq_pages_finish(&x->pages, image, (size_t)size, table_root,
			      from_keys ? index_root : NULL, &x->keys);
	close_db(x);
	if (err < 0)
		return pmt_diag_set(diag, -PMT_EIO, x->path, PMT_DIAG_NO_OFFSET, "%s: %s",
				    x->pages.what, strerror(x->pages.err));
	if (later) {
		if (sqlite3_open_v2(x->path, &x->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
		    exec(x, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
			    "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536") ||
		    sq_build_indexes(x->db, &x->keys, (size_t)x->nsamples) != SQLITE_OK ||
		    exec(x, sq_schema_view))
			return db_fail(x, diag, x->path, "cannot index the samples");
		close_db(x);
	}
	return x->nsamples;
}

static int64_t sq_finish(struct pmt_export *base, const struct pmt_spe_rec_stats *stats,
			 uint32_t enabled, struct pmt_diag *diag)
{
	struct sq_export *x = (struct sq_export *)base;

	if (x->failed)
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET,
				    "SQLite: cannot insert a sample: %s", x->errmsg);
	if (flush_rows(x))
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET,
				    "SQLite: cannot insert a sample: %s", x->errmsg);
	if (insert_events(x, enabled | x->seen_events) || insert_loss(x, stats) ||
	    insert_loss_ranges(x) || insert_threads(x) || exec(x, "COMMIT"))
		return db_fail(x, diag, NULL, "cannot finish the database");
	if (x->direct)
		return finish_pages(x, diag);
	if ((!x->no_index && sq_build_indexes(x->db, &x->keys, (size_t)x->nsamples) != SQLITE_OK) ||
	    exec(x, sq_schema_view))
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
	free(x->rows);
	free(x->path);
	sq_pages_fini(&x->pages);
	sq_keys_fini(&x->keys);
	free(x->threads.thr);
	export_ids_fini(&x->ids);
	export_callpaths_fini(&x->paths);
	free(x->losses.r);
	free(x);
}
