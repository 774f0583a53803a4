/* A trace's own samples (cpu-clock, cycles, PEBS, ...): the event table they share with
 * SPE's synthetic kinds, and their conversion and time ordering. */
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/spe_decode.h"
#include "evsel_samples.h"

#define ATTR_SAMPLE_PERIOD 16 /* offset of sample_period in struct perf_event_attr */
#define ATTR_FLAGS 40         /* the bit-field word: freq is bit 10 */

unsigned pmt_trace_nr_events(const struct pmt_trace_meta *m)
{
	return PMT_SPE_SE_COUNT + (m ? m->nr_attrs : 0);
}

bool pmt_trace_has_own_samples(const struct pmt_trace_meta *m)
{
	for (uint32_t i = 0; m && i < m->nr_attrs; i++) {
		const struct pmt_trace_attr *a = &m->attrs[i];

		if ((m->has_auxtrace_info && a->type == m->spe_pmu_type) ||
		    (a->type == PMT_TYPE_SOFTWARE && a->config == PMT_SW_DUMMY))
			continue;
		if (a->sample_type & PMT_SAMPLE_IP)
			return true;
	}
	return false;
}

const struct pmt_trace_attr *pmt_trace_event_attr(const struct pmt_trace_meta *m, unsigned ev)
{
	if (!m || ev < PMT_SPE_SE_COUNT || ev - PMT_SPE_SE_COUNT >= m->nr_attrs)
		return NULL;
	return &m->attrs[ev - PMT_SPE_SE_COUNT];
}

int pmt_trace_event_name(const struct pmt_trace_meta *m, unsigned ev, int compat, char *buf,
			 size_t cap)
{
	const struct pmt_trace_attr *a = pmt_trace_event_attr(m, ev);

	if (ev < PMT_SPE_SE_COUNT)
		return snprintf(buf, cap, "%s", pmt_spe_event_name(ev, compat));
	if (!a)
		return snprintf(buf, cap, "unknown");
	if (a->name)
		return snprintf(buf, cap, "%s", a->name);
	/* checked with both: perf 6.1 says "unknown attr type: N", perf 7.3 "unknown event
	 * PMU=N config=0xC" (the release between them that changed it is not pinned) */
	if (compat >= 703)
		return snprintf(buf, cap, "unknown event PMU=%u config=%#llx", a->type,
				(unsigned long long)a->config);
	return snprintf(buf, cap, "unknown attr type: %u", a->type);
}

static void to_sample(const struct pmt_trace_meta *m, const struct pmt_sample *smp,
		      struct pmt_spe_sample *s)
{
	const struct pmt_trace_attr *a = smp->attr;
	uint64_t st = smp->sample_type, flags;

	memset(s, 0, sizeof(*s));
	s->event = PMT_EV_ATTR((uint32_t)(a - m->attrs));
	s->pid = s->tid = -1;
	if (st & PMT_SAMPLE_TID) {
		s->pid = (int32_t)smp->pid;
		s->tid = (int32_t)smp->tid;
	}
	s->cpu = (st & PMT_SAMPLE_CPU) ? smp->cpu : 0;
	s->time = smp->time;
	s->ip = smp->ip;
	s->addr = smp->addr;
	s->phys_addr = smp->phys_addr;
	s->data_src = smp->data_src;
	/* perf: the attr's sample_period unless the sample carries its own */
	memcpy(&flags, a->attr + ATTR_FLAGS, 8);
	if (st & PMT_SAMPLE_PERIOD)
		s->period = smp->period;
	else if (!(flags & (1u << 10)))
		memcpy(&s->period, a->attr + ATTR_SAMPLE_PERIOD, 8);
	if (st & PMT_SAMPLE_WEIGHT_STRUCT) {
		s->weight = (uint32_t)smp->weight;
		s->ins_lat = (uint16_t)(smp->weight >> 32);
		s->retire_lat = (uint16_t)(smp->weight >> 48);
	} else {
		s->weight = smp->weight;
	}
}

int evsel_samples_add(struct evsel_samples *b, const struct pmt_trace_meta *m,
		      const struct pmt_trace_event *ev)
{
	struct pmt_spe_sample s;
	size_t i;

	if (!ev->u.sample.attr)
		return 0;
	to_sample(m, &ev->u.sample, &s);
	if (b->next && b->next * 2 >= b->n) {
		memmove(b->s, b->s + b->next, (b->n - b->next) * sizeof(*b->s));
		b->n -= b->next;
		b->next = 0;
	}
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 4096;
		struct pmt_spe_sample *ns = realloc(b->s, nc * sizeof(*ns));

		if (!ns)
			return -PMT_ENOMEM;
		b->s = ns;
		b->cap = nc;
	}
	/* rings of several CPUs interleave in short runs: an insertion from the back moves
	 * few samples, and keeps file order among equal times as perf's ordered events */
	for (i = b->n; i > b->next && b->s[i - 1].time > s.time; i--)
		;
	memmove(b->s + i + 1, b->s + i, (b->n - i) * sizeof(*b->s));
	b->s[i] = s;
	b->n++;
	return 0;
}

int evsel_samples_flush(struct evsel_samples *b, uint64_t upto,
			const struct pmt_spe_run_opts *o, pmt_spe_sample_fn fn, void *ctx)
{
	while (b->next < b->n && b->s[b->next].time <= upto) {
		const struct pmt_spe_sample *s = &b->s[b->next++];
		int rc = o->record_fn ? o->record_fn(s, 1, ctx) : fn(s, ctx);

		if (rc < 0)
			return rc;
	}
	if (b->next == b->n)
		b->next = b->n = 0;
	return 0;
}

void evsel_samples_fini(struct evsel_samples *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}
