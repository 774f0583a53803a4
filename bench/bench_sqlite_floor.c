/* What SQLite alone costs for `export sqlite`'s samples table: N rows of its 28 columns
 * (the schema from pmt_export_sqlite_schema(), values shaped like a SPE trace's: rising
 * times, scattered addresses, the four short data-source texts) inserted with one prepared
 * statement in one transaction under the export's pragmas, then its four indexes. No
 * decoding and no pmutrace code per row: what a row costs SQLite through bind, step and
 * reset, and CREATE INDEX's sorter. Then the same values through the export itself,
 * without decoding: the floor `export sqlite` stands on, with the samples and indexes
 * written as b-tree pages (the default) and through SQLite (--sqlite-api: rows in batches
 * through a virtual table, the indexes from keys it sorts). Prints CPU seconds
 * (user + sys) of the load and of the indexes.
 *   bench_sqlite_floor DB [ROWS]   (DB is overwritten; default 1000000 rows) */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <sqlite3.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/export.h"

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void check(int rc, sqlite3 *db, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE) {
		fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
		exit(1);
	}
}

/* the rows of main()'s loop as samples into pmt_export_sqlite_new's database */
static void through_export(const char *path, long rows, bool sqlite_api)
{
	struct pmt_export_opts o = PMT_OPTS_INIT(pmt_export_opts, .trace_path = "floor",
						 .compat = 9999, .sqlite_api = sqlite_api);
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_export *x;
	uint64_t lcg = 1;
	double t0, t1, t2;

	unlink(path);
	if (pmt_export_sqlite_new(path, &o, &x, &d) < 0)
		exit((pmt_diag_print(&d), 1));
	t0 = cpu_seconds();
	for (long i = 0; i < rows; i++) {
		struct pmt_spe_sample s = { .event = (uint32_t)(i % 3), .cpu = (uint32_t)(i & 3),
					    .pid = 1000, .tid = 1001, .period = 1,
					    .data_src = 0x68100142, .op = 0x10 };

		lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
		s.time = 1000000000ULL + (uint64_t)i * 400;
		s.ip = 0x400000 + (lcg >> 44);
		s.addr = 0xffff000000ULL + (lcg >> 20);
		s.phys_addr = lcg >> 28;
		s.weight = (lcg >> 58) + 4;
		s.issue_lat = (uint16_t)((lcg >> 59) + 2);
		s.xlat_lat = (uint16_t)(lcg >> 60);
		if (pmt_export_sample(x, &s) < 0)
			break;
	}
	t1 = cpu_seconds();
	if (pmt_export_finish(x, NULL, 0, &d) < 0)
		exit((pmt_diag_print(&d), 1));
	t2 = cpu_seconds();
	printf("%ld rows through the export%s: load %.2f s CPU, finish (the commit's writes, "
	       "indexes%s) %.2f s CPU, total %.2f s\n", rows,
	       sqlite_api ? " --sqlite-api" : " (pages)", t1 - t0,
	       sqlite_api ? "" : ", the pages", t2 - t1, t2 - t0);
	pmt_export_free(x);
	unlink(path);
}

int main(int argc, char **argv)
{
	static const char *const texts[][4] = { { "LOAD", "L1 hit", "N/A", "L1 or L2 hit" },
						{ "STORE", "L2 hit", "N/A", "L1 or L2 miss" },
						{ "LOAD", "RAM hit", "N/A", "Walker hit" } };
	long rows = argc > 2 ? atol(argv[2]) : 1000000;
	const char *schema = pmt_export_sqlite_schema();
	const char *indexes = strstr(schema, "CREATE INDEX");
	char *tables;
	sqlite3 *db;
	sqlite3_stmt *st;
	uint64_t lcg = 1;
	double t0, t1, t2;

	if (argc < 2 || !indexes) {
		fprintf(stderr, "usage: bench_sqlite_floor DB [ROWS]\n");
		return 129;
	}
	tables = strndup(schema, (size_t)(indexes - schema));
	unlink(argv[1]);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
	check(sqlite3_open(argv[1], &db), db, "open");
	check(sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
			   "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536; "
			   "PRAGMA temp_store=MEMORY", NULL, NULL, NULL), db, "pragmas");
	check(sqlite3_exec(db, tables, NULL, NULL, NULL), db, "schema");
	check(sqlite3_prepare_v3(db, "INSERT INTO samples VALUES (NULL,1,?,?,?,?,?,?,?,?,?,?,?,?,"
				 "?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, SQLITE_PREPARE_PERSISTENT,
				 &st, NULL), db, "prepare");
	t0 = cpu_seconds();
	check(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), db, "BEGIN");
	for (long i = 0; i < rows; i++) {
		const char *const *t = texts[i % 3];

		lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
		sqlite3_bind_int(st, 1, (int)(i % 3));                       /* event_id */
		sqlite3_bind_int(st, 2, (int)(i & 3));                       /* cpu */
		sqlite3_bind_int(st, 3, 1000);                               /* pid */
		sqlite3_bind_int(st, 4, 1001);                               /* tid */
		sqlite3_bind_int64(st, 5, 1000000000LL + i * 400);            /* time */
		sqlite3_bind_int64(st, 6, 0x400000 + (int64_t)(lcg >> 44));   /* ip */
		sqlite3_bind_int64(st, 7, 0xffff000000LL + (int64_t)(lcg >> 20)); /* addr */
		sqlite3_bind_int64(st, 8, (int64_t)(lcg >> 28));              /* phys_addr */
		sqlite3_bind_int(st, 9, 1);                                  /* period */
		sqlite3_bind_int(st, 10, (int)(lcg >> 58) + 4);              /* weight */
		sqlite3_bind_int(st, 11, (int)(lcg >> 59) + 2);              /* issue_lat */
		sqlite3_bind_int(st, 12, (int)(lcg >> 60));                  /* xlat_lat */
		sqlite3_bind_int64(st, 13, 0x68100142LL);                    /* data_src */
		for (int k = 0; k < 4; k++)                                  /* mem_* */
			sqlite3_bind_text(st, 14 + k, t[k], -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 18, "LD", 2, SQLITE_STATIC);           /* op */
		sqlite3_bind_int(st, 19, 0x10);                              /* op_bits */
		sqlite3_bind_int(st, 20, 0);                                 /* flags */
		sqlite3_bind_int64(st, 21, i * 64);                           /* aux_offset */
		for (int k = 22; k <= 26; k++)                /* no symbols, no call path */
			sqlite3_bind_null(st, k);
		check(sqlite3_step(st), db, "INSERT");
		sqlite3_reset(st);
	}
	check(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), db, "COMMIT");
	t1 = cpu_seconds();
	check(sqlite3_exec(db, indexes, NULL, NULL, NULL), db, "indexes");
	t2 = cpu_seconds();
	printf("%ld rows: load %.2f s CPU (%.0f rows/s), indexes %.2f s CPU, total %.2f s\n", rows,
	       t1 - t0, (double)rows / (t1 - t0), t2 - t1, t2 - t0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(tables);
	through_export(argv[1], rows, false);
	through_export(argv[1], rows, true);
	return 0;
}
