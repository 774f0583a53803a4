/* A samples row of the SQLite export, as the batch of INSERT ... SELECT (sqlite.c) and the
 * table's pages (sqlite_pages.h) take it. */
#ifndef PMUTRACE_EXPORT_SQLITE_SAMPLE_H
#define PMUTRACE_EXPORT_SQLITE_SAMPLE_H

#include <stdint.h>

#include "rows.h"
#include "sqlite_pages.h"

/* The mem_* and op texts are looked up when the row is written: a batch holds more
 * data_src values than the text cache. */
struct sample_row {
	uint64_t time, ip, addr, phys_addr, period, weight, data_src, aux_offset, sym_offset;
	int64_t comm_id, dso_id, symbol_id, call_path_id; /* 0: NULL */
	int32_t cpu, pid, tid;
	uint32_t event, op, flags;
	uint16_t issue_lat, xlat_lat;
};

/* r as the samples table's record (SCHEMA.md's columns, the values sample_column gives
 * SQLite) into rec */
void sq_sample_record(struct sq_record *rec, const struct sample_row *r,
		      struct dsrc_slot dsrc[DSRC_SLOTS], int compat);

#endif
