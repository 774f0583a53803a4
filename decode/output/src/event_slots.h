/* Per-event counters of the reports: SPE's synthetic kinds in slots of their own (slot =
 * event), a trace's own events in the slots after them, in the order they first come.
 * Private to decode/output. */
#ifndef PMT_OUTPUT_EVENT_SLOTS_H
#define PMT_OUTPUT_EVENT_SLOTS_H

#include "pmutrace/spe_decode.h"

#define PMT_EV_SLOTS 16

struct pmt_ev_slots {
	const struct pmt_trace_meta *meta; /* names of the trace's own events */
	uint32_t ev[PMT_EV_SLOTS];         /* the event of each slot from PMT_SPE_SE_COUNT */
	unsigned n;                        /* slots in use from PMT_SPE_SE_COUNT on */
	uint8_t full;                      /* an event found no slot (said once) */
};

/* The slot of an event, or -1 when all are taken (a warning the first time). */
int pmt_ev_slot(struct pmt_ev_slots *t, uint32_t ev, const char *who);
/* The slot's event name at a compat level (in buf, or a constant). */
const char *pmt_ev_slot_name(const struct pmt_ev_slots *t, unsigned slot, int compat, char *buf,
			     size_t cap);
/* The slots in use in perf's evlist order: the trace's own events in attr order, then
 * SPE's synthetic ones it adds. Returns the count. */
unsigned pmt_ev_slot_order(const struct pmt_ev_slots *t, unsigned order[PMT_EV_SLOTS]);

#endif
