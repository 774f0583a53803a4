/* Counts frames into the counts reader (counts_trace.c): the STAT records of the data
 * frames stat_cols.c passes over, taken from their columns as stat_rec() and pump() take
 * the records themselves (the same counters, warnings and stream offsets). */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

#include "counts_trace_priv.h"
#include "stat_cols.h"

/* The round's fast path: its records summed as they are taken while they come in slot
 * order (in locals: stores through cur[] may alias t's fields, which the compiler then
 * loaded again per record) */
struct in_order {
	const struct cval *prev;
	struct cval *cur;
	uint32_t *cur_stamp;
	struct usum *sum;
	const struct ct_place *place;
	ptrdiff_t last;             /* the last slot summed this round */
	uint64_t taken;
	uint32_t summed;            /* of them, into sum[] */
	uint32_t stamp;
	bool interval;
};

/* Records i.. of f summed while their slots rise (left-out attrs' records passed by):
 * where it stopped, at a record before its round's last slot or not in the maps, or end.
 * Not inlined, and with few values live, so that they and the running sum stay in
 * registers (inlined in ct_cols_step, a third of them were kept on the stack). */
__attribute__((noinline)) static uint32_t sum_in_order(struct in_order *o,
							const struct pmt_ctr_counts_frame *f,
							uint32_t i, uint32_t end)
{
	const struct cval *prev = o->prev;
	struct cval *cur = o->cur;
	uint32_t *cur_stamp = o->cur_stamp;
	struct usum *sum = o->sum;
	const struct ct_place *place = o->place;
	const uint32_t *key = f->key;
	const uint64_t *val = f->val, *ena = f->ena, *run = f->run;
	ptrdiff_t last = o->last;
	uint32_t from = i, summed = 0, stamp = o->stamp;
	bool interval = o->interval;
	/* the unit's sum the records before added to, in registers: through memory each
	 * add waited for the one before (a total's 64 CPUs in a row); as a struct it was
	 * kept on the stack, each add waiting for its store to be forwarded. Its set is
	 * 1: a unit is taken up for a record that adds to it. */
	double acc_val = 0;
	uint64_t acc_ena = 0, acc_run = 0;
	int32_t at = -1;

	for (; i < end; i++) {
		struct ct_place pl = place[key[i]];

		if (pl.slot == SLOT_NOT_WANTED)
			continue;
		if (pl.slot < 0 || pl.slot <= last)
			break;
		const struct cval *p = &prev[pl.slot];
		uint64_t dv = val[i], de = ena[i], dr = run[i];
		uint64_t pv = p->val, pe = p->ena, pr = p->run;

		last = pl.slot;
		summed++;
		/* cur_set left as it is: ct_fast_off sets it from the stamps */
		cur[pl.slot].val = dv;
		cur[pl.slot].ena = de;
		cur[pl.slot].run = dr;
		cur_stamp[pl.slot] = stamp;
		if (interval) {
			dv -= pv;
			de -= pe;
			dr -= pr;
		}
		if (pl.sum != at) {
			if (at >= 0)
				sum[at] = (struct usum){ acc_val, acc_ena, acc_run, 1 };
			at = pl.sum;
			acc_val = sum[at].val;
			acc_ena = sum[at].ena;
			acc_run = sum[at].run;
		}
		acc_val = ct_add_delta(acc_val, dv, de, dr);
		acc_ena += de;
		acc_run += dr;
	}
	if (at >= 0)
		sum[at] = (struct usum){ acc_val, acc_ena, acc_run, 1 };
	o->summed += summed;
	o->last = last;
	/* every record passed: summed, or of an attr left out (counted as taken) */
	o->taken += i - from;
	return i;
}

/* place[] for a frame whose keys are the last frame's (place_keys), turned by some r: a
 * frame that begins inside a round lists them from there, most often at the key after the
 * last one taken. true when they are. */
static bool places_turned(struct pmt_counts_trace *t, const struct pmt_ctr_counts_frame *f)
{
	uint32_t n = f->nkeys, r = t->place_next % (n ? n : 1);
	const struct pmt_ctr_count_key *k = f->keys, *o = t->place_keys;
	size_t each = sizeof(*k);

	if (!t->slot_ok || n != t->place_nkeys || !n)
		return t->slot_ok && n == t->place_nkeys;
	if (memcmp(&o[t->place_rot + r], &k[0], each))
		for (r = 0; r < n && memcmp(&o[t->place_rot + r], &k[0], each); r++)
			;
	if (r == n)
		return false;
	r = (t->place_rot + r) % n;
	if (memcmp(k, o + r, n * each))
		return false;
	t->place_rot = r;
	t->place = t->place2 + r;
	return true;
}

/* Each key's place once per frame, not per record, and not looked up again when a frame
 * has the last one's keys, turned or not (a recording's frames all have: the lookups,
 * per frame, were 3% of the reader's thread). The places hold while slot_ok does. */
static int ct_frame_places(struct pmt_counts_trace *t, const struct pmt_ctr_counts_frame *f,
			   uint32_t frame)
{
	size_t n = f->nkeys, bytes = n * sizeof(*f->keys);

	if (places_turned(t, f)) {
		t->slot_frame = frame;
		return 0;
	}
	if (n > t->slot_cap) {
		struct ct_place *pl = realloc(t->place2, 2 * n * sizeof(*pl));
		struct pmt_ctr_count_key *pk;

		if (pl)
			t->place2 = pl;
		pk = pl ? realloc(t->place_keys, 2 * bytes) : NULL;
		if (!pk)
			return -PMT_ENOMEM;
		t->place_keys = pk;
		t->slot_cap = n;
	}
	for (uint32_t k = 0; k < n; k++) {
		int32_t sl = (int32_t)ct_stat_slot(t, f->keys[k].id, f->keys[k].cpu,
						f->keys[k].thread);

		t->place2[k] = t->place2[n + k] =
			(struct ct_place){ sl, sl >= 0 ? t->slot_sum[sl] : -1 };
	}
	if (bytes) {
		memcpy(t->place_keys, f->keys, bytes);
		memcpy(t->place_keys + n, f->keys, bytes);
	}
	t->place = t->place2;
	t->place_rot = t->place_next = 0;
	t->place_nkeys = f->nkeys;
	t->slot_frame = frame;
	t->slot_ok = true;
	return 0;
}

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
		if (n && (!t->slot_ok || t->slot_frame != run.frame) &&
		    ct_frame_places(t, f, run.frame) < 0)
			return -PMT_ENOMEM;
		{
			struct in_order o = { t->prev, t->cur, t->cur_stamp, t->sum, t->place,
					      t->fast_last, 0, 0, t->stamp, t->interval_ms != 0 };
			struct cval *cur = t->cur;
			bool fast = t->fast;

			for (uint32_t i = run.first, end = run.first + n; i < end; i++) {
				uint32_t k;
				int32_t sl;

				if (fast && (i = sum_in_order(&o, f, i, end)) == end)
					break;
				k = f->key[i];
				sl = o.place[k].slot;
				if (sl == SLOT_NOT_WANTED) {
					o.taken++;
					continue;
				}
				if (sl < 0) {
					ct_stat_left_out(t, sl, f->keys[k].id,
						      run.off + 48 * (uint64_t)(i - run.first), 48);
					continue;
				}
				/* a record out of slot order: the round goes back to cur[] */
				o.taken++;
				if (fast) {
					t->cur_stale |= o.summed != 0;
					ct_fast_off(t);
					fast = false;
				}
				cur[sl] = (struct cval){ f->val[i], f->ena[i], f->run[i] };
				t->cur_set[sl] = 1;
			}
			if (fast) {
				t->fast_last = o.last;
				t->fast_n += o.summed;
				t->cur_stale |= o.summed != 0;
			}
			t->stats += o.taken;
			if (n)
				t->place_next = f->key[run.first + n - 1] + 1;
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

/* The keys of a counts frame whose values the reader passes by (on a decoding thread: the
 * attrs' lookup with a hint of its own, dwant fixed while threads run). A key of an id no
 * attr has is read: the reader warns of it as of its record. */
static void keys_wanted(const struct pmt_ctr_count_key *keys, uint32_t nkeys, uint8_t *want,
			void *ctx)
{
	const struct pmt_counts_trace *t = ctx;
	size_t next = 0;

	for (uint32_t k = 0; k < nkeys; k++) {
		size_t at = next;

		if (at >= t->nids || t->ids[at].id != keys[k].id) {
			size_t lo = 0, hi = t->nids;

			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (t->ids[mid].id < keys[k].id)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo >= t->nids || t->ids[lo].id != keys[k].id)
				continue;
			at = lo;
		}
		want[k] = t->dwant[at];
		next = at + 1;
	}
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
	ct_fast_off(t);
	t->nwattr = kept;
	t->slot_ok = false; /* the frame's slots say which keys are left out */
	/* the counts frames decoded from now on skip their values (once, before threads) */
	if (kept < t->nattr && t->cols && !t->dwant) {
		t->dwant = calloc(t->nids + 1, 1);
		if (!t->dwant)
			return -PMT_ENOMEM;
		/* an id two attrs have (a damaged file) is wanted when either is */
		for (size_t i = 0, j; i < t->nids; i = j) {
			uint8_t w = 0;

			for (j = i; j < t->nids && t->ids[j].id == t->ids[i].id; j++)
				w |= t->want[t->ids[j].attr];
			memset(t->dwant + i, w, j - i);
		}
		if (!stat_cols_want(t->cols, keys_wanted, t)) {
			free(t->dwant);
			t->dwant = NULL;
		}
	}
	return (int)kept;
}

int pmt_metric_plan_only_in(struct pmt_metric_plan *p, struct pmt_counts_trace *t)
{
	size_t n = 0, nin = pmt_metric_plan_nr_inputs(p);
	int *cols = calloc(nin + 1, sizeof(*cols)), rc;

	if (!cols)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < nin; i++)
		if (pmt_metric_plan_input(p, i)->count_idx >= 0)
			cols[n++] = pmt_metric_plan_input(p, i)->count_idx;
	rc = pmt_counts_trace_only(t, cols, n);
	free(cols);
	return rc;
}
