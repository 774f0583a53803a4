/* An eponymous-only virtual table over rows kept by the caller (sqlite_rows.h). */
#include <string.h>

#include "sqlite_rows.h"

struct rows_vtab {
	sqlite3_vtab base; /* first: SQLite's handle */
	struct sq_rows *rows;
};

struct rows_cursor {
	sqlite3_vtab_cursor base; /* first: SQLite's handle */
	size_t i;
};

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
			sqlite3_vtab **out, char **err)
{
	struct sq_rows *r = aux;
	struct rows_vtab *t;
	int rc;

	(void)argc;
	(void)argv;
	(void)err;
	rc = sqlite3_declare_vtab(db, r->decl);
	if (rc != SQLITE_OK)
		return rc;
	t = sqlite3_malloc(sizeof(*t));
	if (!t)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->rows = r;
	*out = &t->base;
	return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *t)
{
	sqlite3_free(t);
	return SQLITE_OK;
}

/* one plan: a full scan in row order (the only use is INSERT ... SELECT of all rows) */
static int rows_best_index(sqlite3_vtab *t, sqlite3_index_info *info)
{
	(void)t;
	info->estimatedCost = 1e6;
	info->orderByConsumed = 0;
	return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *t, sqlite3_vtab_cursor **out)
{
	struct rows_cursor *c = sqlite3_malloc(sizeof(*c));

	(void)t;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *c, int idx, const char *idx_str, int argc,
		       sqlite3_value **argv)
{
	(void)idx;
	(void)idx_str;
	(void)argc;
	(void)argv;
	((struct rows_cursor *)c)->i = 0;
	return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *c)
{
	((struct rows_cursor *)c)->i++;
	return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *c)
{
	const struct rows_vtab *t = (const struct rows_vtab *)c->pVtab;

	return ((struct rows_cursor *)c)->i >= t->rows->n;
}

static int rows_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
	const struct rows_vtab *t = (const struct rows_vtab *)c->pVtab;

	t->rows->column(t->rows, ((struct rows_cursor *)c)->i, col, ctx);
	return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct rows_cursor *)c)->i;
	return SQLITE_OK;
}

/* xCreate NULL: eponymous-only, no CREATE VIRTUAL TABLE in the database's schema */
static const sqlite3_module rows_module = {
	.iVersion = 1,
	.xConnect = rows_connect,
	.xBestIndex = rows_best_index,
	.xDisconnect = rows_disconnect,
	.xOpen = rows_open,
	.xClose = rows_close,
	.xFilter = rows_filter,
	.xNext = rows_next,
	.xEof = rows_eof,
	.xColumn = rows_column,
	.xRowid = rows_rowid,
};

int sq_rows_register(sqlite3 *db, const char *name, struct sq_rows *r)
{
	return sqlite3_create_module(db, name, &rows_module, r);
}
