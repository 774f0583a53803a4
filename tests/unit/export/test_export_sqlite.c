/* The SQLite writer: values read back through SQLite's own API, including 64-bit addresses
 * above 2^63, NULL data-source texts, branch stacks, thread counts, events, aux_loss and
 * runs; call paths by hand; rows across batches and the indexes built from sorted keys
 * against table scans; the options contract; an unwritable path is a diagnostic. The data_src texts are
 * decoded by hand in a comment (perf's struct perf_mem_data_src layout). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include <sqlite3.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/perf_abi.h"
#include "pmutrace/export.h"

static char *tmp_db(void)
{
	char *path = strdup("/tmp/pmt-export-XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	return path;
}

/* the one value of a query, as text ("NULL" for NULL) */
static void query_eq(sqlite3 *db, const char *sql, const char *want)
{
	sqlite3_stmt *st;
	const char *got;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	got = sqlite3_column_type(st, 0) == SQLITE_NULL ? "NULL"
							 : (const char *)sqlite3_column_text(st, 0);
	if (strcmp(got, want))
		fail_msg("%s: got '%s', want '%s'", sql, got, want);
	sqlite3_finalize(st);
}

static void test_roundtrip(void **state)
{
	char *path = tmp_db();
	struct pmt_export *x;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_export_opts o = PMT_OPTS_INIT(pmt_export_opts, .trace_path = "t.data",
						 .command = "pmutrace export", .compat = 601);
	struct pmt_spe_record rec = { .offset = 0x1c0 };
	struct pmt_spe_brstack bs = { .nr = 2 };
	struct pmt_spe_sample s = { 0 };
	struct pmt_spe_rec_stats st = { .records = 3, .bytes_skipped = 2, .bad_ranges = 1,
					 .records_dropped = 1, .first_bad_offset = 0x289,
					 .have_bad = 1 };
	sqlite3 *db;
	char want_run[128];

	(void)state;
	snprintf(want_run, sizeof(want_run), "t.data:pmutrace export:601:%s", pmt_version());
	assert_int_equal(pmt_export_sqlite_new(path, &o, &x, &d), 0);
	/* a load: data_src 0x288100142 = mem_op (bits 0-4) 2 LOAD, mem_lvl (5-18) 0xa
	 * HIT|L1, which perf 6.1 prints "L1 or L1 hit" (README's 6.1 example), mem_snoop (19-23) 2 NONE "None", mem_dtlb (26-32) 0x22 HIT|WK
	 * "Walker hit" */
	s.event = PMT_SPE_SE_L1D_ACCESS;
	s.cpu = 3;
	s.pid = -1;
	s.tid = 42;
	s.time = 1000;
	s.ip = 0xffff800008001234ULL; /* reads back negative: the same 64 bits */
	s.addr = 0xaaaae66d5550ULL;
	s.period = 1;
	s.weight = 14;
	s.issue_lat = 8;
	s.xlat_lat = 1;
	s.data_src = 0x288100142ULL;
	s.op = PMT_SPE_OP_F_LDST | PMT_SPE_OP_F_LD;
	s.rec = &rec;
	assert_int_equal(pmt_export_sample(x, &s), 0);
	/* the same record's memory sample: only the event differs */
	s.event = PMT_SPE_SE_MEMORY;
	assert_int_equal(pmt_export_sample(x, &s), 0);
	/* a branch of another record with a branch stack and no data source */
	rec.offset = 0x200;
	bs.e[0] = (struct pmt_branch_entry){ .from = 0x10, .to = 0x20, .cycles = 6,
					    .type = PMT_BR_COND, .flags = PMT_BRF_PREDICTED };
	bs.e[1] = (struct pmt_branch_entry){ .from = 0, .to = 0x30 };
	s.event = PMT_SPE_SE_BRANCH;
	s.tid = 43;
	s.ip = 0x10;
	s.addr = 0x20;
	s.data_src = 0;
	s.op = PMT_SPE_OP_F_BRANCH;
	s.flags = PMT_IP_FLAG_BRANCH | PMT_IP_FLAG_CONDITIONAL;
	s.brstack = &bs;
	assert_int_equal(pmt_export_sample(x, &s), 0);
	assert_int_equal(pmt_export_finish(x, &st, 1u << PMT_SPE_SE_L1D_ACCESS, &d), 3);
	pmt_export_free(x);

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	query_eq(db, "SELECT count(*) FROM samples", "3");
	query_eq(db, "SELECT printf('%x', ip) FROM samples WHERE id = 1", "ffff800008001234");
	query_eq(db, "SELECT ip < 0 FROM samples WHERE id = 1", "1");
	query_eq(db, "SELECT group_concat(event_id || ':' || cpu || ':' || pid || ':' || tid || ':' "
		     "|| time || ':' || weight || ':' || issue_lat || ':' || xlat_lat || ':' || "
		     "aux_offset, ' ') FROM samples",
		 "1:3:-1:42:1000:14:8:1:448 8:3:-1:42:1000:14:8:1:448 6:3:-1:43:1000:14:8:1:512");
	query_eq(db, "SELECT mem_op || '|' || mem_lvl || '|' || mem_snoop || '|' || mem_tlb || "
		     "'|' || op FROM samples WHERE id = 2", "LOAD|L1 or L1 hit|None|Walker hit|LD");
	query_eq(db, "SELECT coalesce(mem_op, mem_lvl, mem_snoop, mem_tlb) FROM samples WHERE id = 3",
		 "NULL");
	query_eq(db, "SELECT op || ':' || flags || ':' || addr FROM samples WHERE id = 3", "BR:9:32");
	query_eq(db, "SELECT group_concat(sample_id || ':' || idx || ':' || from_ip || ':' || to_ip "
		     "|| ':' || cycles || ':' || branch_type || ':' || branch_flags, ' ') "
		     "FROM branch_entries", "3:0:16:32:6:1:2 3:1:0:48:0:0:0");
	query_eq(db, "SELECT group_concat(pid || ':' || tid || ':' || samples, ' ') FROM threads",
		 "-1:42:2 -1:43:1");
	/* enabled l1d-access, seen branch and memory; 6.1 names the branch event branch-miss */
	query_eq(db, "SELECT group_concat(id || ':' || name, ' ') FROM events",
		 "1:l1d-access 6:branch-miss 8:memory");
	query_eq(db, "SELECT records || ':' || bytes_skipped || ':' || bad_ranges || ':' || "
		     "records_dropped || ':' || first_bad_offset FROM aux_loss", "3:2:1:1:649");
	query_eq(db, "SELECT trace || ':' || command || ':' || perf_compat || ':' || "
		     "pmutrace_version FROM runs", want_run);
	query_eq(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name LIKE "
		     "'samples_%'", "4");
	sqlite3_close(db);
	unlink(path);
	free(path);
}

static void test_opts_and_errors(void **state)
{
	struct pmt_export *x = (struct pmt_export *)1;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_export_opts o = { 0 };

	(void)state;
	/* sz 0: an options struct the library cannot read */
	assert_int_equal(pmt_export_sqlite_new("/tmp/x.db", &o, &x, &d), -PMT_EINVAL);
	o.sz = sizeof(o);
	d = (struct pmt_diag)PMT_DIAG_INIT;
	assert_int_equal(pmt_export_sqlite_new("/nonexistent-dir/x.db", &o, &x, &d), -PMT_EIO);
	assert_null(x);
	assert_non_null(strstr(d.msg, "cannot open"));
	pmt_export_free(NULL);
	assert_non_null(strstr(pmt_export_sqlite_schema(), "CREATE TABLE samples ("));
}

static void test_empty(void **state)
{
	char *path = tmp_db();
	struct pmt_export *x;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_export_opts o = PMT_OPTS_INIT(pmt_export_opts, .compat = PMT_PERF_NEWEST);
	sqlite3 *db;

	(void)state;
	assert_int_equal(pmt_export_sqlite_new(path, &o, &x, &d), 0);
	assert_int_equal(pmt_export_finish(x, NULL, 0, &d), 0);
	pmt_export_free(x);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	query_eq(db, "SELECT count(*) FROM samples", "0");
	query_eq(db, "SELECT count(*) FROM threads", "0");
	query_eq(db, "SELECT bytes_skipped || ':' || coalesce(first_bad_offset, 'none') FROM aux_loss",
		 "0:none");
	query_eq(db, "SELECT coalesce(command, hostname, 'none') FROM runs", "none");
	sqlite3_close(db);
	unlink(path);
	free(path);
}

/* a chain of n entries (perf's layout: the sampled ip first, markers included) */
static struct pmt_callchain *chain(unsigned n, ...)
{
	struct pmt_callchain *c = malloc(sizeof(*c) + n * sizeof(c->ips[0]));
	va_list ap;

	assert_non_null(c);
	c->nr = n;
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++)
		c->ips[i] = va_arg(ap, uint64_t);
	va_end(ap);
	return c;
}

/* call_paths without symbols (frames by address), by hand: root 1; the chain 0x30 <- 0x20
 * <- 0x10 (a PERF_CONTEXT_USER marker first) walked root first makes 2 (0x10), 3 (0x20),
 * 4 (0x30); 0x31 under the same two callers shares 2 and 3 and makes 5; the first chain
 * without its marker is 4 again; 0x10 alone is 2; 0x20 alone is a child of the root, 6
 * (not 3: a node is its whole path); a chain of markers only, and no chain, are NULL. A
 * MMAP record between them changes nothing (the addresses are resolved again). */
static void test_call_paths(void **state)
{
	const uint64_t user = (uint64_t)-512; /* PERF_CONTEXT_USER */
	struct pmt_callchain *c[] = {
		chain(4, user, (uint64_t)0x30, (uint64_t)0x20, (uint64_t)0x10),
		chain(4, user, (uint64_t)0x31, (uint64_t)0x20, (uint64_t)0x10),
		chain(3, (uint64_t)0x30, (uint64_t)0x20, (uint64_t)0x10),
		chain(1, (uint64_t)0x10),
		NULL,
		chain(1, user),
		chain(1, (uint64_t)0x20),
	};
	struct pmt_trace_event mmap = { .kind = PMT_TEV_RECORD, .type = PMT_REC_MMAP2 };
	char *path = tmp_db();
	struct pmt_export *x;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_export_opts o = PMT_OPTS_INIT(pmt_export_opts, .compat = PMT_PERF_NEWEST);
	sqlite3 *db;

	(void)state;
	assert_int_equal(pmt_export_sqlite_new(path, &o, &x, &d), 0);
	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct pmt_spe_sample s = { .event = PMT_EV_ATTR(0), .pid = 7, .tid = 7,
					    .ip = 0x30, .callchain = c[i] };

		assert_int_equal(pmt_export_sample(x, &s), 0);
		if (i == 2)
			assert_int_equal(pmt_export_event(x, &mmap), 0);
	}
	assert_int_equal(pmt_export_finish(x, NULL, 0, &d), 7);
	pmt_export_free(x);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	query_eq(db, "SELECT group_concat(id || ':' || coalesce(parent_id, '-') || ':' || "
		     "coalesce(symbol_id, '-') || ':' || printf('0x%x', ip), ' ') FROM "
		     "(SELECT * FROM call_paths ORDER BY id)",
		 "1:-:-:0x0 2:1:-:0x10 3:2:-:0x20 4:3:-:0x30 5:3:-:0x31 6:1:-:0x20");
	query_eq(db, "SELECT group_concat(coalesce(call_path_id, '-'), ' ') FROM "
		     "(SELECT * FROM samples ORDER BY id)", "4 5 4 2 - - 6");
	sqlite3_close(db);
	unlink(path);
	free(path);
	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		free(c[i]);
}

/* the index's walk (ids in its key order) and a range through it, as text, against the
 * same through a table scan: a b-tree not in SQLite's order, or holding other values,
 * gives other ids */
static void index_eq_scan(sqlite3 *db, const char *index, const char *column)
{
	char *q[2];

	for (int i = 0; i < 2; i++) {
		char *how = i ? sqlite3_mprintf("NOT INDEXED") :
				sqlite3_mprintf("INDEXED BY %s", index);

		q[i] = sqlite3_mprintf("SELECT (SELECT group_concat(id) FROM (SELECT id FROM "
				       "samples %s ORDER BY %s, id)) || ':' || (SELECT count(*) "
				       "FROM samples %s WHERE %s < 0 OR %s BETWEEN 2 AND 1000)",
				       how, column, how, column, column);
		sqlite3_free(how);
	}
	{
		sqlite3_stmt *a, *b;

		assert_int_equal(sqlite3_prepare_v2(db, q[0], -1, &a, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, q[1], -1, &b, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(a), SQLITE_ROW);
		assert_int_equal(sqlite3_step(b), SQLITE_ROW);
		assert_string_equal(sqlite3_column_text(a, 0), sqlite3_column_text(b, 0));
		sqlite3_finalize(a);
		sqlite3_finalize(b);
	}
	sqlite3_free(q[0]);
	sqlite3_free(q[1]);
}

/* the four indexes of samples each against a table scan */
static void indexes_eq_scan(sqlite3 *db)
{
	index_eq_scan(db, "samples_time", "time");
	index_eq_scan(db, "samples_ip", "ip");
	index_eq_scan(db, "samples_addr", "addr");
	index_eq_scan(db, "samples_event", "event_id");
}

/* 3000 samples across the 1024-row batches and 700-sample transactions, with addresses on
 * both sides of 2^63 (negative in SQLite) in no order and repeated times: every row back
 * with its id, and the four indexes are real indexes of samples holding SQLite's order
 * (they are built from keys sorted by the export, not by CREATE INDEX); --no-index makes
 * none */
static void test_batches_and_indexes(void **state)
{
	enum { N = 3000 };
	char *path = tmp_db();
	sqlite3 *db;

	(void)state;
	for (int no_index = 0; no_index < 2; no_index++) {
		struct pmt_export_opts o = PMT_OPTS_INIT(pmt_export_opts, .compat = 601,
							 .batch = 700, .no_index = no_index);
		struct pmt_diag d = PMT_DIAG_INIT;
		struct pmt_export *x;
		uint64_t lcg = 7;

		assert_int_equal(pmt_export_sqlite_new(path, &o, &x, &d), 0);
		for (int i = 0; i < N; i++) {
			struct pmt_spe_sample s = { .event = (uint32_t)(i % 5), .pid = 1,
						    .tid = 1, .period = 1 };

			lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
			s.time = 1000 + (uint64_t)(i / 3); /* three samples a time */
			s.ip = i % 4 ? 0x400000 + (lcg >> 50) : 0xffff800008000000ULL + (lcg >> 52);
			s.addr = lcg; /* any of 2^64: half of them above 2^63 */
			s.weight = (uint64_t)i;
			assert_int_equal(pmt_export_sample(x, &s), 0);
		}
		assert_int_equal(pmt_export_finish(x, NULL, 0, &d), N);
		pmt_export_free(x);
		assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
		/* weight = i: the rows in order with ids 1..N */
		query_eq(db, "SELECT count(*) || ':' || min(id) || ':' || max(id) || ':' || "
			     "sum(id = weight + 1) FROM samples", "3000:1:3000:3000");
		query_eq(db, "PRAGMA integrity_check", "ok");
		if (no_index) {
			query_eq(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'index'", "0");
		} else {
			query_eq(db, "SELECT group_concat(name || ' ' || sql, '; ') FROM (SELECT "
				     "name, sql FROM sqlite_schema WHERE tbl_name = 'samples' AND "
				     "type = 'index' ORDER BY rowid)",
				 "samples_time CREATE INDEX samples_time ON samples (time); "
				 "samples_ip CREATE INDEX samples_ip ON samples (ip); "
				 "samples_addr CREATE INDEX samples_addr ON samples (addr); "
				 "samples_event CREATE INDEX samples_event ON samples (event_id)");
			query_eq(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
				     "name LIKE 'samples_%'", "0");
			indexes_eq_scan(db);
		}
		sqlite3_close(db);
		unlink(path);
	}
	free(path);
}

/* n samples as test_batches_and_indexes makes them, into path (sqlite_api: through
 * SQLite's INSERTs, else as b-tree pages written by the export) */
/* n samples into path, each with branches branch entries (rows of SQLite's own) */
static void export_rows(const char *path, int n, bool sqlite_api, unsigned branches)
{
	struct pmt_export_opts o = PMT_OPTS_INIT(pmt_export_opts, .compat = 601,
						 .sqlite_api = sqlite_api);
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_export *x;
	struct pmt_spe_brstack bs = { 0 };
	uint64_t lcg = 11;

	unlink(path);
	assert_int_equal(pmt_export_sqlite_new(path, &o, &x, &d), 0);
	for (int i = 0; i < n; i++) {
		struct pmt_spe_sample s = { .event = (uint32_t)(i % 7), .pid = 1 + i % 3,
					    .tid = 1 + i % 5, .period = 1 };

		lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
		s.time = 1000 + (uint64_t)(i / 3);
		s.ip = i % 4 ? 0x400000 + (lcg >> 50) : 0xffff800008000000ULL + (lcg >> 52);
		s.addr = i % 9 ? lcg : (uint64_t)(i % 2); /* 0 and 1: serial types 8 and 9 */
		s.weight = lcg >> (i % 64);
		s.data_src = i % 3 ? 0x288100142ULL : 0; /* texts, or NULL texts */
		s.op = (uint32_t)i & 0xff;
		bs.nr = branches;
		for (unsigned b = 0; b < branches; b++)
			bs.e[b] = (struct pmt_branch_entry){ .from = lcg >> b, .to = (uint64_t)i,
							     .cycles = (uint16_t)b };
		s.brstack = branches ? &bs : NULL;
		assert_int_equal(pmt_export_sample(x, &s), 0);
	}
	assert_int_equal(pmt_export_finish(x, NULL, 0, &d), n);
	pmt_export_free(x);
}

static void export_n(const char *path, int n, bool sqlite_api)
{
	export_rows(path, n, sqlite_api, 0);
}

/* api (the same export through --sqlite-api) attached to db as a: n rows in both, the
 * same rows */
static void samples_eq_api(sqlite3 *db, const char *api, int n)
{
	char *sql = sqlite3_mprintf("ATTACH '%q' AS a", api), want[64];

	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(sql);
	snprintf(want, sizeof(want), "%d:%d:0:0", n, n);
	query_eq(db, "SELECT (SELECT count(*) FROM samples) || ':' || (SELECT count(*) FROM "
		     "a.samples) || ':' || (SELECT count(*) FROM (SELECT * FROM samples EXCEPT "
		     "SELECT * FROM a.samples)) || ':' || (SELECT count(*) FROM (SELECT * FROM "
		     "a.samples EXCEPT SELECT * FROM samples))", want);
}

/* The samples table and indexes the export writes as pages against the same samples
 * through SQLite's INSERTs: one leaf (the root), a few, and enough rows for two interior
 * levels of the table and of each index; SQLite's own integrity_check on every page and
 * index entry, the same rows both ways and each index's walk equal to a table scan */
static void test_pages_equal_api(void **state)
{
	static const int sizes[] = { 0, 1, 2, 30, 200, 5000, 70000 };
	char *path = tmp_db(), *api = tmp_db();

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		sqlite3 *db;

		export_n(path, sizes[k], false);
		export_n(api, sizes[k], true);
		assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
		query_eq(db, "PRAGMA integrity_check", "ok");
		samples_eq_api(db, api, sizes[k]);
		/* the same schema rows in the same order (the root pages apart) */
		query_eq(db, "SELECT (SELECT group_concat(type || ' ' || name || ' ' || tbl_name "
			     "|| ' ' || (rootpage > 1) || ' ' || coalesce(sql, ''), ';') FROM "
			     "(SELECT * FROM sqlite_schema ORDER BY rowid)) IS (SELECT "
			     "group_concat(type || ' ' || name || ' ' || tbl_name || ' ' || "
			     "(rootpage > 1) || ' ' || coalesce(sql, ''), ';') FROM (SELECT * FROM "
			     "a.sqlite_schema ORDER BY rowid))", "1");
		if (sizes[k]) { /* (no rows: group_concat is NULL) */
			indexes_eq_scan(db);
		}
		sqlite3_close(db);
	}
	unlink(path);
	unlink(api);
	free(path);
	free(api);
}

/* The leaves go to the file during the load, after room for SQLite's pages; here
 * SQLite's part (140k branch entries, ~1,000 pages) outgrows that room, so the leaves in
 * its way move after the others: integrity_check, SQLite's part under it, and the rows,
 * branch entries and indexes equal --sqlite-api's. (The other way, fewer SQLite pages
 * than the room, is every other export's.) */
static void test_pages_after_a_large_sqlite_part(void **state)
{
	char *path = tmp_db(), *api = tmp_db();
	sqlite3 *db;

	(void)state;
	export_rows(path, 70000, false, 2);
	export_rows(api, 70000, true, 2);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	query_eq(db, "PRAGMA integrity_check", "ok");
	query_eq(db, "SELECT count(*) > 300 FROM dbstat WHERE name = 'branch_entries'", "1");
	samples_eq_api(db, api, 70000);
	query_eq(db, "SELECT (SELECT count(*) FROM branch_entries) || ':' || (SELECT count(*) "
		     "FROM (SELECT * FROM branch_entries EXCEPT SELECT * FROM a.branch_entries))",
		 "140000:0");
	indexes_eq_scan(db);
	sqlite3_close(db);
	unlink(path);
	unlink(api);
	free(path);
	free(api);
}

/* one integer a query gives */
static long long query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* SQLite never uses the page holding its lock bytes (1 GiB on): a b-tree page written
 * there makes every reader refuse the database as corrupt. The library's pending byte
 * moved down (its test control, process-wide, with no connection open) onto the pages an
 * export at the default writes first (a leaf), in the middle of the leaves, at the
 * table's first interior page, and at an index's leaf and interior pages. */
static void test_pages_skip_the_lock_byte_page(void **state)
{
	/* pages the writer appends come after every root SQLite made */
	static const char *const where[] = {
		"SELECT min(pageno) FROM dbstat WHERE name = 'samples' AND pagetype = 'leaf'",
		"SELECT pageno FROM dbstat WHERE name = 'samples' AND pagetype = 'leaf' "
		"ORDER BY pageno LIMIT 1 OFFSET 100",
		"SELECT min(pageno) FROM dbstat WHERE name = 'samples' AND pagetype = 'internal' "
		"AND pageno > (SELECT max(rootpage) FROM sqlite_schema)",
		"SELECT pageno FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE "
		"type = 'index' AND tbl_name = 'samples') AND pagetype = 'leaf' ORDER BY pageno "
		"LIMIT 1 OFFSET 50",
		"SELECT min(pageno) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema "
		"WHERE type = 'index' AND tbl_name = 'samples') AND pagetype = 'internal' AND "
		"pageno > (SELECT max(rootpage) FROM sqlite_schema)",
	};
	char *path = tmp_db(), *api = tmp_db();
	long long page[sizeof(where) / sizeof(where[0])], page_size;
	sqlite3 *db;

	(void)state;
	export_n(path, 70000, false);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	page_size = query_int(db, "PRAGMA page_size");
	for (size_t k = 0; k < sizeof(where) / sizeof(where[0]); k++) {
		page[k] = query_int(db, where[k]);
		assert_true(page[k] > 2);
	}
	sqlite3_close(db);
	for (size_t k = 0; k < sizeof(where) / sizeof(where[0]); k++) {
		char *sql;

		sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE,
				     (unsigned)((page[k] - 1) * page_size));
		export_n(path, 70000, false);
		export_n(api, 70000, true);
		assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
		query_eq(db, "PRAGMA integrity_check", "ok");
		assert_true(query_int(db, "PRAGMA page_count") > page[k]);
		sql = sqlite3_mprintf("SELECT count(*) FROM dbstat WHERE pageno = %lld", page[k]);
		assert_int_equal(query_int(db, sql), 0);
		sqlite3_free(sql);
		samples_eq_api(db, api, 70000);
		indexes_eq_scan(db);
		sqlite3_close(db);
	}
	sqlite3_test_control(SQLITE_TESTCTRL_PENDING_BYTE, 0x40000000);
	unlink(path);
	unlink(api);
	free(path);
	free(api);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_opts_and_errors),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_call_paths),
		cmocka_unit_test(test_batches_and_indexes),
		cmocka_unit_test(test_pages_after_a_large_sqlite_part),
		cmocka_unit_test(test_pages_equal_api),
		cmocka_unit_test(test_pages_skip_the_lock_byte_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
