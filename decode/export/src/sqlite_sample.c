/* The samples table's record of a row (sqlite_sample.h). */
#include <string.h>

#include "backend.h"
#include "sqlite_sample.h"

static void record_id_or_null(struct sq_record *rec, int64_t id)
{
	if (id)
		sq_record_int(rec, id);
	else
		sq_record_null(rec);
}

void sq_sample_record(struct sq_record *rec, const struct sample_row *r,
		      struct dsrc_slot dsrc[DSRC_SLOTS], int compat)
{
	const char *op = export_op_name(r->op);

	sq_record_reset(rec);
	sq_record_null(rec); /* id: an INTEGER PRIMARY KEY is the rowid, NULL in the record */
	sq_record_int(rec, 1);
	sq_record_int(rec, r->event);
	sq_record_int(rec, r->cpu);
	sq_record_int(rec, r->pid);
	sq_record_int(rec, r->tid);
	sq_record_int(rec, (int64_t)r->time);
	sq_record_int(rec, (int64_t)r->ip);
	sq_record_int(rec, (int64_t)r->addr);
	sq_record_int(rec, (int64_t)r->phys_addr);
	sq_record_int(rec, (int64_t)r->period);
	sq_record_int(rec, (int64_t)r->weight);
	sq_record_int(rec, r->issue_lat);
	sq_record_int(rec, r->xlat_lat);
	sq_record_int(rec, (int64_t)r->data_src);
	if (r->data_src) {
		const struct dsrc_slot *d = export_dsrc_text(dsrc, r->data_src, compat);

		for (int i = 0; i < 4; i++)
			sq_record_text(rec, d->text[i], d->len[i]);
	} else {
		for (int i = 0; i < 4; i++)
			sq_record_null(rec);
	}
	sq_record_text(rec, op, strlen(op));
	sq_record_int(rec, r->op);
	sq_record_int(rec, r->flags);
	sq_record_int(rec, (int64_t)r->aux_offset);
	record_id_or_null(rec, r->comm_id);
	record_id_or_null(rec, r->dso_id);
	record_id_or_null(rec, r->symbol_id);
	if (r->symbol_id)
		sq_record_int(rec, (int64_t)r->sym_offset);
	else
		sq_record_null(rec);
	record_id_or_null(rec, r->call_path_id);
}
