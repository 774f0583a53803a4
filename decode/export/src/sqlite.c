/* Samples into SQLite: the schema of SCHEMA.md, one prepared INSERT per table, the bulk load
 * in transactions with the journal and fsyncs off, indexes built after the load. */
#include <stdlib.h>
#include <time.h>

#include <sqlite3.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/symbols.h"
#include "pmutrace/export.h"
#include "backend.h"

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
	"\tsym_offset INTEGER\n"
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

enum { S_SAMPLE, S_BRANCH, S_COMM, S_DSO, S_SYMBOL, S_NSTMT };
static const char *const stmt_sql[S_NSTMT] = {
	"INSERT INTO samples VALUES (?,1,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	"INSERT INTO branch_entries VALUES (?,?,?,?,?,?,?)",
	"INSERT INTO comms VALUES (?,?)",
	"INSERT INTO dsos VALUES (?,?,?)",
	"INSERT INTO symbols VALUES (?,?,?,?)",
};
/* parameter numbers of the samples INSERT */
enum {
	P_ID = 1, P_EVENT, P_CPU, P_PID, P_TID, P_TIME, P_IP, P_ADDR, P_PHYS, P_PERIOD, P_WEIGHT,
	P_ISSUE, P_XLAT, P_DSRC, P_MEM_OP, P_MEM_LVL, P_MEM_SNOOP, P_MEM_TLB, P_OP, P_OP_BITS,
	P_FLAGS, P_OFFSET, P_COMM, P_DSO, P_SYMBOL, P_SYMOFF,
};

/* data_src decoded into perf's four texts, once per distinct value (a trace has few) */
#define DSRC_SLOTS 64
struct dsrc_slot {
	uint64_t key;
	uint8_t valid;
	uint8_t len[4];
	char text[4][48];
};

/* samples per (pid, tid), counted during the load: open addressing, grown at half full
 * (an allocation per new thread at most, never per sample) */
struct thread_count {
	int32_t pid, tid;
	uint64_t n; /* 0: free slot */
};

/* comms, dsos and symbols get row ids by their identity: a dso's and a symbol's is the
 * pointer pmt_symbols gives it, a comm's its text (a thread's comm string is freed when it
 * changes). Open addressing, grown at half full: an allocation per new one at most. */
struct id_map {
	const void **key; /* by_text: our copies of the strings */
	int64_t *id;
	size_t cap, used;
	bool by_text;
};

struct sq_export {
	struct pmt_export base; /* first: the handle */
	sqlite3 *db;
	sqlite3_stmt *st[S_NSTMT];
	int compat;
	uint64_t batch, in_batch;
	int64_t nsamples;
	int failed;          /* a step failed: errmsg says why */
	bool no_index;
	char errmsg[256];
	uint32_t seen_events;
	struct thread_count *thr;
	size_t thr_cap, thr_used;
	int32_t last_pid, last_tid; /* the samples of a record share their thread */
	struct thread_count *last_thr;
	struct pmt_spe_sample last; /* the sample whose record columns are bound */
	uint64_t last_offset;
	int have_last;
	struct pmt_symbols *syms;
	struct id_map comms, dsos, symbols;
	struct dsrc_slot dsrc[DSRC_SLOTS];
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
	const struct pmt_trace_meta *m = PMT_OPTS_HAS(o, meta) ? o->meta : NULL;
	sqlite3_stmt *st;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	if (sqlite3_prepare_v2(x->db, "INSERT INTO runs VALUES (1,?,?,?,?,?,?,?,?,?,?,?)", -1,
			       &st, NULL) != SQLITE_OK)
		return -PMT_EIO;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	bind_text_or_null(st, 1, o->trace_path ? o->trace_path : "");
	bind_text_or_null(st, 2, when);
	bind_text_or_null(st, 3, pmt_version());
	bind_text_or_null(st, 4, PMT_OPTS_HAS(o, command) ? o->command : NULL);
	sqlite3_bind_int(st, 5, x->compat);
	bind_text_or_null(st, 6, m ? m->hostname : NULL);
	bind_text_or_null(st, 7, m ? m->osrelease : NULL);
	bind_text_or_null(st, 8, m ? m->version : NULL);
	bind_text_or_null(st, 9, m ? m->arch : NULL);
	bind_text_or_null(st, 10, m ? m->cpuid : NULL);
	bind_text_or_null(st, 11, m ? m->cmdline : NULL);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -PMT_EIO;
	sqlite3_finalize(st);
	return rc;
}

static int sq_sample(struct pmt_export *base, const struct pmt_spe_sample *s);
static int64_t sq_finish(struct pmt_export *base, const struct pmt_spe_rec_stats *stats,
			 uint32_t enabled, struct pmt_diag *diag);
static void sq_free(struct pmt_export *base);
static const struct export_ops sq_ops = { .sample = sq_sample, .finish = sq_finish,
					 .free = sq_free };

int pmt_export_sqlite_new(const char *db_path, const struct pmt_export_opts *opts,
			  struct pmt_export **out, struct pmt_diag *diag)
{
	struct sq_export *x;

	if (!db_path || !out || !PMT_OPTS_HAS(opts, compat))
		return pmt_diag_set(diag, -PMT_EINVAL, db_path, PMT_DIAG_NO_OFFSET,
				    "invalid export options");
	*out = NULL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return pmt_diag_set(diag, -PMT_ENOMEM, db_path, PMT_DIAG_NO_OFFSET, "out of memory");
	x->base.ops = &sq_ops;
	x->compat = opts->compat;
	x->batch = PMT_OPTS_HAS(opts, batch) ? opts->batch : 0;
	x->syms = PMT_OPTS_HAS(opts, symbols) ? opts->symbols : NULL;
	x->comms.by_text = true;
	x->no_index = PMT_OPTS_HAS(opts, no_index) && opts->no_index;
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

static const struct dsrc_slot *dsrc_text(struct sq_export *x, uint64_t data_src)
{
	struct dsrc_slot *c = &x->dsrc[(data_src * 0x9e3779b97f4a7c15ULL) >> 58];

	if (c->valid && c->key == data_src)
		return c;
	c->len[0] = (uint8_t)pmt_mem_op_str(data_src, c->text[0], sizeof(c->text[0]));
	c->len[1] = (uint8_t)pmt_mem_lvl_str(data_src, x->compat, c->text[1], sizeof(c->text[1]));
	c->len[2] = (uint8_t)pmt_mem_snoop_str(data_src, c->text[2], sizeof(c->text[2]));
	c->len[3] = (uint8_t)pmt_mem_tlb_str(data_src, c->text[3], sizeof(c->text[3]));
	c->key = data_src;
	c->valid = 1;
	return c;
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

static struct thread_count *thr_slot(struct thread_count *t, size_t cap, int32_t pid,
				     int32_t tid)
{
	size_t i = (((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) * 0x9e3779b97f4a7c15ULL) >> 20;

	for (i &= cap - 1; t[i].n && (t[i].pid != pid || t[i].tid != tid); i = (i + 1) & (cap - 1))
		;
	return &t[i];
}

static int count_thread(struct sq_export *x, int32_t pid, int32_t tid)
{
	struct thread_count *c;

	if (x->last_thr && x->last_pid == pid && x->last_tid == tid) {
		x->last_thr->n++;
		return 0;
	}
	if (2 * (x->thr_used + 1) > x->thr_cap) {
		size_t cap = x->thr_cap ? 2 * x->thr_cap : 256;
		struct thread_count *t = calloc(cap, sizeof(*t));

		if (!t)
			return -PMT_ENOMEM;
		for (size_t i = 0; i < x->thr_cap; i++)
			if (x->thr[i].n)
				*thr_slot(t, cap, x->thr[i].pid, x->thr[i].tid) = x->thr[i];
		free(x->thr);
		x->thr = t;
		x->thr_cap = cap;
	}
	c = thr_slot(x->thr, x->thr_cap, pid, tid);
	if (!c->n) {
		c->pid = pid;
		c->tid = tid;
		x->thr_used++;
	}
	c->n++;
	x->last_thr = c;
	x->last_pid = pid;
	x->last_tid = tid;
	return 0;
}

static uint64_t key_hash(const struct id_map *m, const void *key)
{
	uint64_t h = 1469598103934665603ULL;

	if (!m->by_text)
		return (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ULL >> 17;
	for (const unsigned char *p = key; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

static size_t key_slot(const struct id_map *m, const void *key)
{
	size_t i = (size_t)key_hash(m, key) & (m->cap - 1);

	while (m->key[i] && (m->by_text ? strcmp(m->key[i], key) : m->key[i] != key))
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* key's row id (> 0); *is_new when it was not there. -PMT_ENOMEM on failure. */
static int64_t id_of(struct id_map *m, const void *key, bool *is_new)
{
	size_t i;

	*is_new = false;
	if (2 * (m->used + 1) > m->cap) {
		struct id_map g = { .cap = m->cap ? 2 * m->cap : 64, .used = m->used,
				    .by_text = m->by_text };

		g.key = calloc(g.cap, sizeof(*g.key));
		g.id = calloc(g.cap, sizeof(*g.id));
		if (!g.key || !g.id) {
			free(g.key);
			free(g.id);
			return -PMT_ENOMEM;
		}
		for (size_t j = 0; j < m->cap; j++) {
			if (m->key[j]) {
				size_t k = key_slot(&g, m->key[j]);

				g.key[k] = m->key[j];
				g.id[k] = m->id[j];
			}
		}
		free(m->key);
		free(m->id);
		*m = g;
	}
	i = key_slot(m, key);
	if (!m->key[i]) {
		m->key[i] = m->by_text ? strdup(key) : key;
		if (!m->key[i])
			return -PMT_ENOMEM;
		m->id[i] = (int64_t)++m->used;
		*is_new = true;
	}
	return m->id[i];
}

static void id_map_free(struct id_map *m)
{
	for (size_t i = 0; m->by_text && i < m->cap; i++)
		free((void *)m->key[i]);
	free(m->key);
	free(m->id);
}

/* comm_id, dso_id, symbol_id and sym_offset of a sample (a new comm, dso or symbol gets its
 * row first); NULL where the trace does not say */
static int bind_symbols(struct sq_export *x, sqlite3_stmt *st, const struct pmt_spe_sample *s)
{
	const char *comm = pmt_symbols_comm(x->syms, s->tid);
	struct pmt_sym_loc loc;
	int64_t id, dso = 0;
	bool is_new;

	sqlite3_bind_null(st, P_COMM);
	sqlite3_bind_null(st, P_DSO);
	sqlite3_bind_null(st, P_SYMBOL);
	sqlite3_bind_null(st, P_SYMOFF);
	if (comm) {
		if ((id = id_of(&x->comms, comm, &is_new)) < 0)
			return (int)id;
		if (is_new) {
			sqlite3_bind_int64(x->st[S_COMM], 1, id);
			sqlite3_bind_text(x->st[S_COMM], 2, comm, -1, SQLITE_STATIC);
			if (step(x, x->st[S_COMM]))
				return -PMT_EIO;
		}
		sqlite3_bind_int64(st, P_COMM, id);
	}
	memset(&loc, 0, sizeof(loc));
	if (pmt_symbols_resolve(x->syms, s->pid, s->ip, s->time, &loc) < 0 || !loc.dso)
		return 0;
	if ((dso = id_of(&x->dsos, loc.dso_id, &is_new)) < 0)
		return (int)dso;
	if (is_new) {
		sqlite3_bind_int64(x->st[S_DSO], 1, dso);
		sqlite3_bind_text(x->st[S_DSO], 2, loc.dso_short, -1, SQLITE_STATIC);
		sqlite3_bind_text(x->st[S_DSO], 3, loc.dso, -1, SQLITE_STATIC);
		if (step(x, x->st[S_DSO]))
			return -PMT_EIO;
	}
	sqlite3_bind_int64(st, P_DSO, dso);
	if (!loc.sym)
		return 0;
	if ((id = id_of(&x->symbols, loc.sym_id, &is_new)) < 0)
		return (int)id;
	if (is_new) {
		sqlite3_bind_int64(x->st[S_SYMBOL], 1, id);
		sqlite3_bind_int64(x->st[S_SYMBOL], 2, dso);
		sqlite3_bind_int64(x->st[S_SYMBOL], 3, (sqlite3_int64)loc.sym_start);
		sqlite3_bind_text(x->st[S_SYMBOL], 4, loc.sym, -1, SQLITE_STATIC);
		if (step(x, x->st[S_SYMBOL]))
			return -PMT_EIO;
	}
	sqlite3_bind_int64(st, P_SYMBOL, id);
	sqlite3_bind_int64(st, P_SYMOFF, (sqlite3_int64)loc.symoff);
	return 0;
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
	sqlite3_bind_int64(st, P_CPU, s->cpu);
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
		const struct dsrc_slot *d = dsrc_text(x, s->data_src);

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
	if (count_thread(x, s->pid, s->tid)) {
		snprintf(x->errmsg, sizeof(x->errmsg), "out of memory");
		x->failed = 1;
		return -PMT_ENOMEM;
	}
	x->nsamples++;
	if (s->event < 32)
		x->seen_events |= 1u << s->event;
	sqlite3_bind_int64(st, P_ID, x->nsamples);
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
	for (unsigned ev = 0; ev < PMT_SPE_SE_COUNT && !rc; ev++) {
		if (!(events & (1u << ev)))
			continue;
		sqlite3_bind_int(st, 1, (int)ev);
		sqlite3_bind_text(st, 2, pmt_spe_event_name(ev, x->compat), -1, SQLITE_STATIC);
		rc = step(x, st);
	}
	sqlite3_finalize(st);
	return rc;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct thread_count *p = a, *q = b;

	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return p->tid < q->tid ? -1 : p->tid > q->tid;
}

/* every (pid, tid) with its sample count, by pid and tid */
static int insert_threads(struct sq_export *x)
{
	sqlite3_stmt *st;
	size_t n = 0;
	int rc = 0;

	for (size_t i = 0; i < x->thr_cap; i++)
		if (x->thr[i].n)
			x->thr[n++] = x->thr[i];
	x->last_thr = NULL;
	if (n)
		qsort(x->thr, n, sizeof(*x->thr), cmp_thread);
	if (sqlite3_prepare_v2(x->db, "INSERT INTO threads VALUES (?,?,?,?)", -1, &st, NULL) !=
	    SQLITE_OK)
		return -PMT_EIO;
	for (size_t i = 0; i < n && !rc; i++) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i + 1);
		sqlite3_bind_int(st, 2, x->thr[i].pid);
		sqlite3_bind_int(st, 3, x->thr[i].tid);
		sqlite3_bind_int64(st, 4, (sqlite3_int64)x->thr[i].n);
		rc = step(x, st);
	}
	sqlite3_finalize(st);
	/* the table is compacted: counting again would need it rebuilt */
	if (x->thr)
		memset(x->thr, 0, x->thr_cap * sizeof(*x->thr));
	x->thr_used = 0;
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

static int64_t sq_finish(struct pmt_export *base, const struct pmt_spe_rec_stats *stats,
			 uint32_t enabled, struct pmt_diag *diag)
{
	struct sq_export *x = (struct sq_export *)base;

	if (x->failed)
		return pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET,
				    "SQLite: cannot insert a sample: %s", x->errmsg);
	if (insert_events(x, enabled | x->seen_events) || insert_loss(x, stats) ||
	    insert_threads(x) || exec(x, "COMMIT") || exec(x, x->no_index ? schema_view : schema_indexes))
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
	free(x->thr);
	id_map_free(&x->comms);
	id_map_free(&x->dsos);
	id_map_free(&x->symbols);
	free(x);
}
