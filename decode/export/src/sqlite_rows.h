/* Rows of the caller's memory as an eponymous SQLite virtual table, so that one
 * `INSERT INTO t SELECT ... FROM name` moves a whole batch: bind, step and reset per row
 * cost the export a quarter of its load (README, bench_sqlite_floor). */
#ifndef PMUTRACE_EXPORT_SQLITE_ROWS_H
#define PMUTRACE_EXPORT_SQLITE_ROWS_H

#include <stddef.h>

#include <sqlite3.h>

struct sq_rows {
	const char *decl; /* the columns: "CREATE TABLE x(a, b, ...)" */
	size_t n;         /* rows the next SELECT sees: [0, n) */
	/* sets column col of row i into ctx (sqlite3_result_*) */
	void (*column)(const struct sq_rows *r, size_t i, int col, sqlite3_context *ctx);
};

/* name becomes a table of r's rows on db for as long as r lives (until sqlite3_close) */
int sq_rows_register(sqlite3 *db, const char *name, struct sq_rows *r);

#endif
