/* Counts frames into the counts reader (counts_trace.c): the STAT records of the data
 * frames stat_cols.c passes over, taken from their columns as stat_rec() and pump() take
 * the records themselves (the same counters, warnings and stream offsets). */
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

#include "counts_trace_priv.h"
#include "stat_cols.h"

/* The STAT records of counts frames due before the source's next record, as stat_rec()
 * and the STAT_ROUND case of pump() take the records themselves: 1 or ct_round_units()'s
 * value at a round (or the first STAT when opening), 0 when none are due, < 0. */
int ct_cols_step(struct pmt_counts_trace *t, struct pmt_counts *c, bool opening)
{
	struct stat_run run;
	int rc;

	while ((rc = stat_cols_peek(t->cols, t->pend_ok ? t->pend.file_offset : UINT64_MAX,
				    &run)) > 0) {
		const struct pmt_ctr_counts_frame *f = run.f;
		uint32_t n = opening && run.n ? 1 : run.n;

		if (n && (!t->cur || t->v_nattr != t->nattr || t->v_ncpu != t->ncpu ||
			  t->v_nthr != t->nthr) && ct_alloc_values(t) < 0)
			return -PMT_ENOMEM;
		if (n && (!t->slot_ok || t->slot_frame != run.frame)) {
			/* each key's place once per frame, not per record */
			if (f->nkeys > t->slot_cap) {
				int32_t *sl = realloc(t->slot, f->nkeys * sizeof(*sl));

				if (!sl)
					return -PMT_ENOMEM;
				t->slot = sl;
				t->slot_cap = f->nkeys;
			}
			for (uint32_t k = 0; k < f->nkeys; k++)
				t->slot[k] = (int32_t)ct_stat_slot(t, f->keys[k].id, f->keys[k].cpu,
								f->keys[k].thread);
			t->slot_frame = run.frame;
			t->slot_ok = true;
		}
		for (uint32_t i = run.first; i < run.first + n; i++) {
			int32_t sl = t->slot[f->key[i]];

			if (sl == SLOT_NOT_WANTED) {
				t->stats++;
				continue;
			}
			if (sl < 0) {
				ct_stat_left_out(t, sl, f->keys[f->key[i]].id,
					      run.off + 48 * (uint64_t)(i - run.first), 48);
				continue;
			}
			t->cur[sl] = (struct cval){ f->val[i], f->ena[i], f->run[i], 1 };
			t->stats++;
		}
		if (opening && n) {
			stat_cols_take(t->cols, n, false);
			return 1;
		}
		stat_cols_take(t->cols, n, run.round);
		if (run.round)
			return opening ? 1 : ct_round_units(t, c, run.round_time);
	}
	return rc;
}

int pmt_counts_trace_only(struct pmt_counts_trace *t, const int *cols, size_t n)
{
	uint32_t kept = 0;

	for (uint32_t w = 0; w < t->nwattr; w++) {
		uint32_t a = t->wattr[w];
		bool in = false;

		for (size_t i = 0; i < n && !in; i++)
			in = cols[i] == t->col[a];
		t->want[a] = in;
		if (in)
			t->wattr[kept++] = a;
	}
	t->nwattr = kept;
	t->slot_ok = false; /* the frame's slots say which keys are left out */
	return (int)kept;
}
