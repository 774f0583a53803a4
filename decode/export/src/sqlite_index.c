/* The samples indexes from sorted keys (sqlite_index.h).
 *
 * An index b-tree holds records (key, rowid) in key order; a WITHOUT ROWID table whose
 * primary key is (key, id) is stored as exactly that b-tree (SQLite's file format: both
 * are index b-trees of records of the key columns). So the keys, sorted here, go into
 * such a table in order (SQLite appends them, building its own pages), and its
 * sqlite_schema row then names it the index it is, under PRAGMA writable_schema. SQLite
 * still places each key by its own b-tree search, so the sort decides only the speed (in
 * order, every insert lands on the b-tree's right edge, hot in the cache), never what the
 * index holds. The export's tests run PRAGMA integrity_check (every index entry against
 * the table's rows) and compare each index's order and ranges with a table scan. */
#include <stdlib.h>
#include <string.h>

#include "sqlite_index.h"
#include "sqlite_rows.h"

static const struct {
	const char *name, *column;
} indexes[] = {
	{ "samples_time", "time" },
	{ "samples_ip", "ip" },
	{ "samples_addr", "addr" },
	{ "samples_event", "event_id" },
};

void sq_keys_fini(struct sq_index_keys *k)
{
	free(k->time);
	free(k->ip);
	free(k->addr);
	free(k->event);
	memset(k, 0, sizeof(*k));
}

static bool grow(struct sq_index_keys *k)
{
	size_t cap = k->cap ? 2 * k->cap : 65536;
	int64_t **col[] = { &k->time, &k->ip, &k->addr, &k->event };

	if (cap > SQ_KEYS_MAX)
		return false;
	for (size_t c = 0; c < sizeof(col) / sizeof(col[0]); c++) {
		int64_t *p = realloc(*col[c], cap * sizeof(*p));

		if (!p)
			return false;
		*col[c] = p;
	}
	k->cap = cap;
	return true;
}

void sq_keys_add(struct sq_index_keys *k, uint64_t time, uint64_t ip, uint64_t addr,
		 uint32_t event)
{
	if (k->off)
		return;
	if (k->n == k->cap && !grow(k)) {
		sq_keys_fini(k);
		k->off = true;
		return;
	}
	/* as SQLite stores them: the bit pattern as a signed integer */
	k->time[k->n] = (int64_t)time;
	k->ip[k->n] = (int64_t)ip;
	k->addr[k->n] = (int64_t)addr;
	k->event[k->n] = event;
	k->n++;
}


/* LSD radix sort by key, a byte per pass, stable (equal keys keep their ascending ids, as
 * the index orders them): the eight bytes' counts in one read, a pass only for a byte that
 * differs between keys, and none at all for keys already in order (time, mostly) */
static void radix_sort(struct sq_key_id *a, struct sq_key_id *tmp, size_t n)
{
	size_t count[8][256] = { { 0 } };
	struct sq_key_id *src = a, *dst = tmp;
	bool sorted = true;

	for (size_t i = 0; i < n; i++) {
		uint64_t k = a[i].key;

		sorted &= i == 0 || a[i - 1].key <= k;
		for (unsigned b = 0; b < 8; b++)
			count[b][(k >> (8 * b)) & 0xff]++;
	}
	if (sorted)
		return;
	for (unsigned b = 0; b < 8; b++) {
		size_t *c = count[b], pos = 0;
		unsigned shift = 8 * b;

		if (c[(src[0].key >> shift) & 0xff] == n)
			continue;
		for (unsigned d = 0; d < 256; d++) {
			size_t m = c[d];

			c[d] = pos;
			pos += m;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(src[i].key >> shift) & 0xff]++] = src[i];
		struct sq_key_id *t = src;

		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

const char *sq_index_name(size_t c)
{
	return indexes[c].name;
}

const char *sq_index_column(size_t c)
{
	return indexes[c].column;
}

static const int64_t *key_column_of(const struct sq_index_keys *k, size_t c)
{
	const int64_t *col[] = { k->time, k->ip, k->addr, k->event };

	return col[c];
}

void sq_keys_sorted(const struct sq_index_keys *k, size_t c, struct sq_key_id *a,
		    struct sq_key_id *tmp)
{
	const int64_t *key = key_column_of(k, c);

	for (size_t i = 0; i < k->n; i++) {
		a[i].key = (uint64_t)key[i] ^ (1ULL << 63);
		a[i].id = (int64_t)i + 1;
	}
	radix_sort(a, tmp, k->n);
}

struct sorted_keys {
	struct sq_rows rows; /* first: the virtual table's view of it */
	struct sq_key_id *a;
};

static void key_column(const struct sq_rows *r, size_t i, int col, sqlite3_context *ctx)
{
	const struct sq_key_id *e = &((const struct sorted_keys *)r)->a[i];

	sqlite3_result_int64(ctx, col ? e->id : (sqlite3_int64)(e->key ^ (1ULL << 63)));
}

/* runs sql (sqlite3_mprintf's, NULL when out of memory) and frees it */
static int exec_free(sqlite3 *db, char *sql)
{
	int rc = sql ? sqlite3_exec(db, sql, NULL, NULL, NULL) : SQLITE_NOMEM;

	sqlite3_free(sql);
	return rc;
}

/* the four indexes as WITHOUT ROWID tables of sorted (key, id), then renamed indexes */
static int build_sorted(sqlite3 *db, struct sq_index_keys *k)
{
	struct sorted_keys s = { .rows = { .decl = "CREATE TABLE x(k, id)",
					   .column = key_column } };
	struct sq_key_id *tmp;
	int rc;

	/* a library built defensive by default refuses writable_schema's UPDATE; the
	 * connection is the export's own, on a file nobody else has yet */
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 0, (int *)NULL);
	s.a = malloc(k->n * sizeof(*s.a));
	tmp = malloc(k->n * sizeof(*tmp));
	rc = s.a && tmp ? sq_rows_register(db, "pmt_index_keys", &s.rows) : SQLITE_NOMEM;
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
	for (size_t c = 0; c < sizeof(indexes) / sizeof(indexes[0]) && rc == SQLITE_OK; c++) {
		sq_keys_sorted(k, c, s.a, tmp);
		s.rows.n = k->n;
		rc = exec_free(db, sqlite3_mprintf(
			"CREATE TABLE %s (%s INTEGER, id INTEGER, PRIMARY KEY (%s, id)) WITHOUT "
			"ROWID; INSERT INTO %s SELECT k, id FROM pmt_index_keys", indexes[c].name,
			indexes[c].column, indexes[c].column, indexes[c].name));
		s.rows.n = 0;
	}
	/* the table entries become the index entries CREATE INDEX would have written */
	for (size_t c = 0; c < sizeof(indexes) / sizeof(indexes[0]) && rc == SQLITE_OK; c++)
		rc = exec_free(db, sqlite3_mprintf(
			"PRAGMA writable_schema=ON; UPDATE sqlite_schema SET type = 'index', "
			"tbl_name = 'samples', sql = 'CREATE INDEX %s ON samples (%s)' "
			"WHERE type = 'table' AND name = '%s'; PRAGMA writable_schema=OFF",
			indexes[c].name, indexes[c].column, indexes[c].name));
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT; PRAGMA writable_schema=RESET", NULL, NULL, NULL);
	else
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	/* the module goes with s: a later use of the name fails rather than read freed rows */
	sqlite3_create_module(db, "pmt_index_keys", NULL, NULL);
	free(s.a);
	free(tmp);
	return rc;
}

int sq_build_indexes(sqlite3 *db, struct sq_index_keys *k, size_t rows)
{
	int rc;

	if (sq_keys_complete(k, rows) && build_sorted(db, k) == SQLITE_OK)
		return SQLITE_OK;
	/* SQLite's own way: no keys, too many of them or the above failed (rolled back) */
	rc = SQLITE_OK;
	for (size_t c = 0; c < sizeof(indexes) / sizeof(indexes[0]) && rc == SQLITE_OK; c++)
		rc = exec_free(db, sqlite3_mprintf("CREATE INDEX %s ON samples (%s)",
						   indexes[c].name, indexes[c].column));
	return rc;
}
