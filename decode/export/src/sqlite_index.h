/* The samples indexes of the SQLite export built from keys kept and sorted here. SQLite's
 * CREATE INDEX sorts the table's rows with its general-purpose sorter (0.4-0.9 s CPU per
 * index of 1M random addresses, most of the export's time); a radix sort of the keys kept
 * during the load takes a few ms, and SQLite then appends them, in order, into an index
 * b-tree of its own making. */
#ifndef PMUTRACE_EXPORT_SQLITE_INDEX_H
#define PMUTRACE_EXPORT_SQLITE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* the keys of the indexed columns per sample, in samples.id order (row i is id i + 1);
 * grown by doubling (no allocation per sample); past SQ_KEYS_MAX samples, or when memory
 * runs out, they are dropped (off) and CREATE INDEX builds the indexes */
#define SQ_KEYS_MAX ((size_t)1 << 23)
struct sq_index_keys {
	int64_t *time, *ip, *addr, *event;
	size_t n, cap;
	bool off;
};

/* the indexes: samples_time, samples_ip, samples_addr, samples_event */
#define SQ_NINDEXES 4
const char *sq_index_name(size_t c);
const char *sq_index_column(size_t c);

/* can the indexes of rows samples be built from k (a key per row kept)? */
static inline bool sq_keys_complete(const struct sq_index_keys *k, size_t rows)
{
	return !k->off && k->n && k->n == rows;
}

struct sq_key_id {
	uint64_t key; /* the signed key with its sign bit flipped: unsigned order is SQLite's */
	int64_t id;
};
/* index c's entries (key, id) in SQLite's order into a (tmp: scratch), k->n of each */
void sq_keys_sorted(const struct sq_index_keys *k, size_t c, struct sq_key_id *a,
		    struct sq_key_id *tmp);

void sq_keys_add(struct sq_index_keys *k, uint64_t time, uint64_t ip, uint64_t addr,
		 uint32_t event);
void sq_keys_fini(struct sq_index_keys *k);

/* samples_time, samples_ip, samples_addr and samples_event on db (no transaction open),
 * from k's keys when it has one per row of samples (rows), with CREATE INDEX otherwise:
 * SQLITE_OK or SQLite's error (db's errmsg says why) */
int sq_build_indexes(sqlite3 *db, struct sq_index_keys *k, size_t rows);

#endif
