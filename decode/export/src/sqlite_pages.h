/* The samples table and its indexes written as SQLite b-tree pages (the file format of
 * https://www.sqlite.org/fileformat2.html), not through libsqlite3's API: its VDBE spends
 * ~0.7 s building and inserting 1M rows and ~0.2 s per index (README), where encoding the
 * records and cutting them into pages costs a small fraction of that.
 *
 * libsqlite3 still makes the database's other pages: the schema, every other table, and the
 * samples table and its indexes, empty, in memory (its memdb VFS). Each row's record goes
 * into a table leaf page; full leaves go straight into the database file at their final
 * place, from page SQ_RESERVED + 1 on (a leaf holds no page number, and what SQLite will
 * have written by the end is not known during the load). Once SQLite is done, the leaves
 * that would fall in the gap or the overlap with SQLite's pages move (the gap: the last
 * leaves into it; the overlap: the leaves in the way to the end), SQLite's image goes in
 * front, the interior pages are built bottom-up above the leaves, the indexes' b-trees
 * from the keys sorted for them, each tree's root written over the empty root page SQLite
 * gave it (so sqlite_schema stays as SQLite wrote it), and the header's page count updated.
 * So each leaf is written once (it used to go to a spill file, then be copied). The tests
 * then have SQLite check it all (PRAGMA integrity_check: every page used once, cells in
 * order, every row in every index) and
 * compare it with the same export through the API. */
#ifndef PMUTRACE_EXPORT_SQLITE_PAGES_H
#define PMUTRACE_EXPORT_SQLITE_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* 2.1's serial type of an integer, the smallest SQLite itself picks (8 and 9 for 0 and 1:
 * schema format 4, SQLite's default) */
static inline uint8_t sq_int_type(int64_t v)
{
	uint64_t u = v < 0 ? ~(uint64_t)v : (uint64_t)v;

	if (u <= 127)
		return (v & 1) == v ? (uint8_t)(8 + v) : 1;
	if (u <= 32767)
		return 2;
	if (u <= 8388607)
		return 3;
	if (u <= 2147483647)
		return 4;
	if (u <= ((uint64_t)0x8000 << 32) - 1)
		return 5;
	return 6;
}

/* v big-endian in its serial type's size at p (8 bytes of room): the size */
static inline uint32_t sq_put_int(uint8_t *p, int64_t v, uint8_t type)
{
	static const uint8_t size[10] = { 0, 1, 2, 3, 4, 6, 8, 8, 0, 0 };
	uint32_t n = size[type];
	uint64_t be;

	if (!n)
		return 0;
	be = __builtin_bswap64((uint64_t)v << (64 - 8 * n));
	memcpy(p, &be, 8);
	return n;
}

static inline void sq_record_null(struct sq_record *r)
{
	if (r->nt + 9 > sizeof(r->types)) {
		r->too_long = true;
		return;
	}
	r->types[r->nt++] = 0;
}

static inline void sq_record_int(struct sq_record *r, int64_t v)
{
	uint8_t t = sq_int_type(v);

	if (r->nt + 9 > sizeof(r->types) || r->nb + 8 > sizeof(r->body)) {
		r->too_long = true;
		return;
	}
	r->types[r->nt++] = t;
	r->nb += sq_put_int(r->body + r->nb, v, t);
}

void sq_record_text(struct sq_record *r, const char *s, size_t len);

/* pages before the first leaf: SQLite's part of a samples export is ~30 pages (more with
 * call paths); the difference either way moves that many leaves once */
#define SQ_RESERVED 256

struct sq_pages {
	int fd;                   /* the database file; -1: not open */
	uint32_t page_size, usable;
	uint32_t ncells, content; /* its cells, where its cell content area starts */
	int64_t leaf_max;         /* its largest rowid */
	uint8_t *out;             /* finished leaves not yet written, then */
	size_t nout;              /* the leaf being filled (out[nout]) */
	uint32_t out_first;       /* the page number of out[0] */
	uint32_t next_leaf;       /* the page number the next finished leaf gets */
	uint32_t lock;            /* 1.3.2: the lock-byte page, which no page may take */
	int64_t *max;             /* the largest rowid of each finished leaf */
	uint32_t *pgno;           /* the page of each finished leaf */
	size_t nleaves, cap;
	int err;                  /* errno of the first failure; 0 */
	const char *what;         /* what failed */
};

/* Takes the page size from header (the first 100 bytes of SQLite's database) and opens
 * db_path, which must be empty or absent; pending_byte is SQLite's lock byte (0: 1 GiB).
 * 0 or -errno (p->what says what failed). */
int sq_pages_init(struct sq_pages *p, const char *db_path, const uint8_t *header,
		  uint64_t pending_byte);
/* the row of rowid (ascending, from 1) into the table; 0 or -errno */
int sq_pages_row(struct sq_pages *p, int64_t rowid, const struct sq_record *r);
/* SQLite's database (image, size bytes: committed, every page but the samples') and the
 * samples' pages into the file: the table rooted at table_root, and when index_root is not
 * NULL the SQ_NINDEXES indexes of k's keys at index_root[c]. 0 or -errno (p->what says
 * what failed). */
int sq_pages_finish(struct sq_pages *p, const uint8_t *image, size_t size, uint32_t table_root,
		    const uint32_t *index_root, const struct sq_index_keys *k);
void sq_pages_fini(struct sq_pages *p);

#endif
