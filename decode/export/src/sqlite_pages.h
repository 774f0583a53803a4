/* The samples table and its indexes written as SQLite b-tree pages (the file format of
 * https://www.sqlite.org/fileformat2.html), not through libsqlite3's API: its VDBE spends
 * ~0.7 s building and inserting 1M rows and ~0.2 s per index (README), where encoding the
 * records and cutting them into pages costs a small fraction of that.
 *
 * libsqlite3 still makes the database: the schema, every other table, and the samples
 * table and its indexes, empty. During the load, each row's record goes into a table leaf
 * page; full leaves go, in rowid order, to an unlinked spill file (a leaf holds no page
 * number, so it can be placed anywhere later). Once SQLite has closed the file, the leaves
 * are appended after SQLite's pages, the interior pages built bottom-up above them, the
 * indexes' b-trees built from the keys sorted for them, each tree's root written over the
 * empty root page SQLite gave it (so sqlite_schema stays as SQLite wrote it), and the
 * header's page count updated. The tests then have SQLite check it all (PRAGMA
 * integrity_check: every page used once, cells in order, every row in every index) and
 * compare it with the same export through the API. */
#ifndef PMUTRACE_EXPORT_SQLITE_PAGES_H
#define PMUTRACE_EXPORT_SQLITE_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sqlite_index.h"

/* One row's record: serial types and body, built column by column. Sized for the samples
 * row (28 columns, texts under 64 bytes); a value that does not fit sets too_long. */
struct sq_record {
	uint8_t types[128];
	uint8_t body[1024];
	uint32_t nt, nb;
	bool too_long;
};

static inline void sq_record_reset(struct sq_record *r)
{
	r->nt = r->nb = 0;
	r->too_long = false;
}

void sq_record_null(struct sq_record *r);
void sq_record_int(struct sq_record *r, int64_t v);
void sq_record_text(struct sq_record *r, const char *s, size_t len);

struct sq_pages {
	int spill;                /* the finished leaves, in order; -1: not open */
	uint32_t page_size, usable;
	uint8_t *leaf;            /* the leaf being filled */
	uint32_t ncells, content; /* its cells, where its cell content area starts */
	int64_t leaf_max;         /* its largest rowid */
	uint8_t *out;             /* finished leaves not yet written to spill */
	size_t nout;
	int64_t *max;             /* the largest rowid of each finished leaf */
	size_t nleaves, cap;
	int err;                  /* errno of the first failure; 0 */
	const char *what;         /* what failed */
};

/* Reads db_path's page size (SQLite made the file) and opens the spill beside it.
 * 0 or -errno (p->what says what failed). */
int sq_pages_init(struct sq_pages *p, const char *db_path);
/* the row of rowid (ascending, from 1) into the table; 0 or -errno */
int sq_pages_row(struct sq_pages *p, int64_t rowid, const struct sq_record *r);
/* The pages into db_path, which SQLite has closed: the table rooted at table_root, and
 * when index_root is not NULL the SQ_NINDEXES indexes of k's keys at index_root[c].
 * 0 or -errno (p->what says what failed). */
int sq_pages_finish(struct sq_pages *p, const char *db_path, uint32_t table_root,
		    const uint32_t *index_root, const struct sq_index_keys *k);
void sq_pages_fini(struct sq_pages *p);

#endif
