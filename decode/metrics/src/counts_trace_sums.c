/* The rounds' sums (counts_trace.c's ct_round_units): a round's deltas per slot into its
 * unit's sums, from cur[] and prev[] after the round, or as its records come from counts
 * frames (counts_trace_cols.c), with cur[]'s flags set as the records would have when a
 * record comes out of slot order. */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

#include "counts_trace_priv.h"

void ct_clear_sums(struct pmt_counts_trace *t)
{
	if (t->nwattr == t->nattr)
		memset(t->sum, 0, (size_t)t->nunits * t->nattr * sizeof(*t->sum));
	else
		for (uint32_t u = 0; u < t->nunits; u++)
			for (uint32_t w = 0; w < t->nwattr; w++)
				t->sum[(size_t)u * t->nattr + t->wattr[w]] = (struct usum){ 0 };
	t->sum_clean = true;
}

void ct_sum_round(struct pmt_counts_trace *t)
{
	t->sum_clean = false;
	for (uint32_t w = 0; w < t->nwattr; w++) {
		uint32_t a = t->wattr[w];

		for (uint32_t ci = 0; ci < t->ncpu; ci++) {
			struct usum *s = &t->sum[(size_t)t->unit_of[ci] * t->nattr + a];

			for (uint32_t ti = 0; ti < t->nthr; ti++) {
				size_t k = ((size_t)a * t->ncpu + ci) * t->nthr + ti;
				struct cval d = t->cur[k];

				if (t->per_thread)
					s = &t->sum[(size_t)ti * t->nattr + a];
				if (!t->cur_set[k])
					continue;
				if (t->interval_ms) {
					d.val -= t->prev[k].val;
					d.ena -= t->prev[k].ena;
					d.run -= t->prev[k].run;
				}
				t->prev[k] = t->cur[k];
				t->cur_set[k] = 0;
				ct_sum_delta(s, &d);
			}
		}
	}
}

void ct_slot_sums(struct pmt_counts_trace *t)
{
	size_t k = 0;

	for (uint32_t a = 0; a < t->nattr; a++)
		for (uint32_t ci = 0; ci < t->ncpu; ci++)
			for (uint32_t ti = 0; ti < t->nthr; ti++)
				t->slot_sum[k++] = (int32_t)((size_t)(t->per_thread ? ti
									: t->unit_of[ci]) *
								 t->nattr + a);
	t->slot_ok = false; /* the frame's place[].sum follows */
}

/* cur[]'s set flags as the records would have left them: those of this round's stamp */
void ct_fast_off(struct pmt_counts_trace *t)
{
	if (!t->fast)
		return;
	if (t->cur_stale) {
		size_t n = (size_t)t->v_nattr * t->v_ncpu * t->v_nthr;

		for (size_t i = 0; i < n; i++)
			t->cur_set[i] = t->cur_stamp[i] == t->stamp;
	}
	t->cur_stale = false;
	t->fast = t->sum_clean = false;
}

void ct_fast_end(struct pmt_counts_trace *t)
{
	size_t n = (size_t)t->v_nattr * t->v_ncpu * t->v_nthr;

	/* slots rise within a fast round: fast_n of them are as many distinct ones */
	if (t->fast_n == (size_t)t->nwattr * t->v_ncpu * t->v_nthr) {
		struct cval *c = t->cur;

		t->cur = t->prev;
		t->prev = c;
		t->cur_stale = true;
	} else if (t->fast_n) {
		for (size_t i = 0; i < n; i++)
			if (t->cur_stamp[i] == t->stamp)
				t->prev[i] = t->cur[i];
	}
	t->fast_n = 0;
}

void ct_fast_begin(struct pmt_counts_trace *t)
{
	if (++t->stamp == 0) { /* after 2^32 rounds: no entry may hold the new stamp */
		size_t n = (size_t)t->v_nattr * t->v_ncpu * t->v_nthr;

		memset(t->cur_stamp, 0, n * sizeof(*t->cur_stamp));
		t->stamp = 1;
	}
	t->fast = true;
	t->fast_last = -1;
	t->fast_n = 0;
}
