/* The event list and the helpers the recorder's PMU rules use on its events */
#include <stdlib.h>
#include <string.h>

#include "events_priv.h"

struct pmt_evsel *pmt_evlist_add(struct pmt_evlist *l)
{
	if (l->nr == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 8;
		struct pmt_evsel *n = realloc(l->ev, cap * sizeof(*n));

		if (!n)
			return NULL;
		l->ev = n;
		l->cap = cap;
	}
	memset(&l->ev[l->nr], 0, sizeof(l->ev[0]));
	l->ev[l->nr].attr.size = PMT_ATTR_SIZE_VER9;
	l->ev[l->nr].leader = l->nr;
	l->ev[l->nr].nr_members = 1;
	return &l->ev[l->nr++];
}

void pmt_evlist_to_front(struct pmt_evlist *l, uint32_t i)
{
	struct pmt_evsel e;

	if (!i || i >= l->nr)
		return;
	e = l->ev[i];
	memmove(&l->ev[1], &l->ev[0], i * sizeof(e));
	l->ev[0] = e;
	/* indices below i moved up by one; i itself is now 0 */
	for (uint32_t k = 0; k < l->nr; k++) {
		uint32_t *ld = &l->ev[k].leader;

		*ld = *ld == i ? 0 : *ld < i ? *ld + 1 : *ld;
	}
}

struct pmt_evsel *pmt_evlist_insert(struct pmt_evlist *l, uint32_t at)
{
	struct pmt_evsel e;

	if (at > l->nr || !pmt_evlist_add(l))
		return NULL;
	e = l->ev[l->nr - 1];
	memmove(&l->ev[at + 1], &l->ev[at], (l->nr - 1 - at) * sizeof(e));
	l->ev[at] = e;
	for (uint32_t k = 0; k < l->nr; k++)
		if (k != at && l->ev[k].leader >= at)
			l->ev[k].leader++;
	l->ev[at].leader = at;
	return &l->ev[at];
}

void pmt_evlist_remove(struct pmt_evlist *l, uint32_t i)
{
	struct pmt_evsel *e;

	if (i >= l->nr)
		return;
	e = &l->ev[i];
	/* a leader leaves its group to the next member */
	if (e->leader == i && e->nr_members > 1) {
		for (uint32_t k = i + 1; k < l->nr; k++)
			if (l->ev[k].leader == i)
				l->ev[k].leader = i + 1;
		l->ev[i + 1].nr_members = e->nr_members - 1;
	} else if (e->leader != i) {
		l->ev[e->leader].nr_members--;
	}
	memmove(e, e + 1, (l->nr - i - 1) * sizeof(*e));
	l->nr--;
	for (uint32_t k = 0; k < l->nr; k++)
		if (l->ev[k].leader > i)
			l->ev[k].leader--;
}

void pmt_evlist_fini(struct pmt_evlist *l)
{
	free(l->ev);
	memset(l, 0, sizeof(*l));
}

uint64_t *pmt_evsel_config_word(struct pmt_perf_attr *a, unsigned w)
{
	switch (w) {
	case 0: return &a->config;
	case 1: return &a->config1;
	case 2: return &a->config2;
	case 3: return &a->config3;
	default: return &a->config4;
	}
}

void pmt_evsel_set_config_if_unset(struct pmt_evsel *e, const char *term, uint64_t value)
{
	const struct pmt_pmu_format *f = e->pmu ? pmt_pmu_format_find(e->pmu, term) : NULL;
	uint64_t cfg[5];

	if (!f || (e->config_set[f->word] & pmt_pmu_format_mask(f)))
		return;
	for (unsigned w = 0; w < 5; w++)
		cfg[w] = *pmt_evsel_config_word(&e->attr, w);
	if (pmt_pmu_format_apply(f, value, cfg, NULL) == 0)
		*pmt_evsel_config_word(&e->attr, f->word) = cfg[f->word];
}

bool pmt_evsel_term_set(const struct pmt_evsel *e, const char *term)
{
	const struct pmt_pmu_format *f = e->pmu ? pmt_pmu_format_find(e->pmu, term) : NULL;

	return f && (*pmt_evsel_config_word((struct pmt_perf_attr *)&e->attr, f->word) &
		     pmt_pmu_format_mask(f));
}

