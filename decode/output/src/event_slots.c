/* The event slots the reports count in (event_slots.h). */
#include "pmutrace/common.h"
#include "event_slots.h"

int pmt_ev_slot(struct pmt_ev_slots *t, uint32_t ev, const char *who)
{
	unsigned i;

	if (ev < PMT_SPE_SE_COUNT)
		return (int)ev;
	for (i = 0; i < t->n; i++)
		if (t->ev[PMT_SPE_SE_COUNT + i] == ev)
			return (int)(PMT_SPE_SE_COUNT + i);
	if (PMT_SPE_SE_COUNT + i < PMT_EV_SLOTS) {
		t->ev[PMT_SPE_SE_COUNT + i] = ev;
		t->n++;
		return (int)(PMT_SPE_SE_COUNT + i);
	}
	if (!t->full)
		pmt_warn("%s: more than %u events with samples; the samples of the others are "
			 "not counted", who, PMT_EV_SLOTS - PMT_SPE_SE_COUNT);
	t->full = 1;
	return -1;
}

const char *pmt_ev_slot_name(const struct pmt_ev_slots *t, unsigned slot, int compat, char *buf,
			     size_t cap)
{
	if (slot < PMT_SPE_SE_COUNT)
		return pmt_spe_event_name(slot, compat);
	pmt_trace_event_name(t->meta, t->ev[slot], compat, buf, cap);
	return buf;
}

unsigned pmt_ev_slot_order(const struct pmt_ev_slots *t, unsigned order[PMT_EV_SLOTS])
{
	unsigned no = 0;

	for (unsigned k = 0; k < t->n; k++) {
		unsigned j = no++;

		while (j && t->ev[order[j - 1]] > t->ev[PMT_SPE_SE_COUNT + k]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = PMT_SPE_SE_COUNT + k;
	}
	for (unsigned k = 0; k < PMT_SPE_SE_COUNT; k++)
		order[no++] = k;
	return no;
}
