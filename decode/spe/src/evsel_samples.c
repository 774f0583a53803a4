/* A trace's own samples (cpu-clock, cycles, PEBS, ...): the event table they share with
 * SPE's synthetic kinds, and their conversion and time ordering. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
		      uint16_t misc, struct pmt_spe_sample *s)
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
	s->cpu = (st & PMT_SAMPLE_CPU) ? smp->cpu : UINT32_MAX; /* perf's (u32)-1 */
	s->time = smp->time;
	s->ip = smp->ip;
	s->addr = smp->addr;
	s->phys_addr = smp->phys_addr;
	s->data_src = smp->data_src;
	s->misc = misc;
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

static int cmp_idx(const void *pa, const void *pb)
{
	const struct evsel_key *a = pa, *b = pb;

	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The samples not yet emitted to the front of the array, in file order. */
static void compact(struct evsel_samples *b)
{
	size_t j = 0;

	/* keys [next, nk) by position: moving down in that order never overwrites one
	 * still to move */
	qsort(b->k + b->next, b->nk - b->next, sizeof(*b->k), cmp_idx);
	for (size_t i = b->next; i < b->nk; i++) {
		b->chain_at[j] = b->chain_at[b->k[i].idx];
		b->ustk[j] = b->ustk[b->k[i].idx];
		b->s[j++] = b->s[b->k[i].idx];
	}
	b->n = j;
	/* and their user stacks, likewise */
	b->upool_len = 0;
	for (size_t i = 0; i < b->n; i++) {
		struct evsel_ustack *u = &b->ustk[i];
		size_t len;

		if (u->off == SIZE_MAX)
			continue;
		len = 8 * (size_t)__builtin_popcountll(u->mask) + (size_t)u->stack_size;
		memmove(b->upool + b->upool_len, b->upool + u->off, len);
		u->off = b->upool_len;
		b->upool_len += len;
	}
	/* the waiting samples' chains, in file order too, to the front of the pool */
	b->chains_len = 0;
	for (size_t i = 0; i < b->n; i++) {
		size_t at = b->chain_at[i], len;

		if (at == SIZE_MAX)
			continue;
		len = 1 + b->chains[at];
		memmove(b->chains + b->chains_len, b->chains + at, len * 8);
		b->chain_at[i] = b->chains_len;
		b->chains_len += len;
	}
	b->nk = b->next = 0;
	b->sorted = 0;
}

/* perf's PERF_CONTEXT_USER, which starts the user part of a chain */
#define CONTEXT_USER 0xfffffffffffffe00ULL
/* perf's default max stack (sysctl kernel.perf_event_max_stack), the frames its unwinder
 * takes */
#define UNWIND_MAX 127

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t nc = *cap ? *cap : 4096;
	void *np;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	if (!(np = realloc(*p, nc * elem)))
		return -PMT_ENOMEM;
	*p = np;
	*cap = nc;
	return 0;
}

/* A copy of smp's callchain in host byte order at the pool's end, for sample b->n. */
static int keep_chain(struct evsel_samples *b, const struct pmt_sample *smp)
{
	size_t need = b->chains_len + 1 + (size_t)smp->callchain_nr;
	int rc = grow((void **)&b->chains, &b->chains_cap, need, sizeof(*b->chains));

	if (rc < 0)
		return rc;
	b->chain_at[b->n] = b->chains_len;
	b->chains[b->chains_len] = smp->callchain_nr;
	for (uint64_t i = 0; i < smp->callchain_nr; i++)
		b->chains[b->chains_len + 1 + i] = pmt_sample_callchain_ip(smp, i);
	b->chains_len = need;
	return 0;
}

/* The user registers and the valid stack bytes of smp, for sample b->n (file byte order,
 * as the record has them) */
static int keep_ustack(struct evsel_samples *b, const struct pmt_sample *smp)
{
	size_t regs = 8 * (size_t)__builtin_popcountll(smp->regs_user_mask);
	size_t need = b->upool_len + regs + (size_t)smp->stack_user_size;
	int rc = grow((void **)&b->upool, &b->upool_cap, need, 1);

	if (rc < 0)
		return rc;
	memcpy(b->upool + b->upool_len, smp->regs_user, regs);
	memcpy(b->upool + b->upool_len + regs, smp->stack_user, (size_t)smp->stack_user_size);
	b->ustk[b->n] = (struct evsel_ustack){ b->upool_len, smp->regs_user_abi,
					       smp->regs_user_mask, smp->stack_user_size };
	b->upool_len = need;
	return 0;
}

/* Sample idx's chain with its user stack unwound after the kernel part, in b->merged. */
static int unwind_chain(struct evsel_samples *b, size_t idx, const struct pmt_spe_run_opts *o)
{
	const struct evsel_ustack *u = &b->ustk[idx];
	const struct pmt_spe_sample *s = &b->s[idx];
	const uint64_t *kc = b->chain_at[idx] != SIZE_MAX ? b->chains + b->chain_at[idx] : NULL;
	uint64_t nk = kc ? kc[0] : 0;
	struct pmt_sample smp;
	int rc = grow((void **)&b->merged, &b->merged_cap, 2 + (size_t)nk + UNWIND_MAX,
		      sizeof(*b->merged));

	if (rc < 0)
		return rc;
	memset(&smp, 0, sizeof(smp));
	smp.pid = (uint32_t)s->pid;
	smp.tid = (uint32_t)s->tid;
	smp.time = s->time;
	smp.ip = s->ip;
	smp.regs_user_abi = u->abi;
	smp.regs_user_mask = u->mask;
	smp.regs_user = b->upool + u->off;
	smp.stack_user = smp.regs_user + 8 * __builtin_popcountll(u->mask);
	smp.stack_user_size = u->stack_size;
	smp.callchain_swap = b->swap;
	b->merged[0] = nk;
	if (nk)
		memcpy(b->merged + 1, kc + 1, nk * sizeof(*kc));
	rc = o->unwind_fn(&smp, b->merged + 2 + nk, UNWIND_MAX, o->unwind_ctx);
	if (rc > 0) {
		b->merged[1 + nk] = CONTEXT_USER;
		b->merged[0] += 1 + (uint64_t)rc;
	}
	return rc < 0 ? rc : 0;
}

int evsel_samples_add(struct evsel_samples *b, const struct pmt_trace_meta *m,
		      const struct pmt_trace_event *ev, const struct pmt_spe_run_opts *o)
{
	int rc;

	if (!ev->u.sample.attr)
		return 0;
	if (b->sorted)
		compact(b);
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 4096;
		struct pmt_spe_sample *ns = realloc(b->s, nc * sizeof(*ns));
		struct evsel_ustack *nu;
		size_t *nat;

		if (!ns)
			return -PMT_ENOMEM;
		b->s = ns;
		if (!(nat = realloc(b->chain_at, nc * sizeof(*nat))))
			return -PMT_ENOMEM;
		b->chain_at = nat;
		if (!(nu = realloc(b->ustk, nc * sizeof(*nu))))
			return -PMT_ENOMEM;
		b->ustk = nu;
		b->cap = nc;
	}
	b->chain_at[b->n] = SIZE_MAX;
	b->ustk[b->n].off = SIZE_MAX;
	if (ev->u.sample.callchain && (rc = keep_chain(b, &ev->u.sample)) < 0)
		return rc;
	if (ev->u.sample.stack_user && ev->u.sample.regs_user && PMT_OPTS_HAS(o, unwind_ctx) &&
	    o->unwind_fn) {
		b->swap = ev->u.sample.callchain_swap;
		if ((rc = keep_ustack(b, &ev->u.sample)) < 0)
			return rc;
	}
	to_sample(m, &ev->u.sample, ev->misc, &b->s[b->n++]);
	return 0;
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct evsel_key *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int sort_keys(struct evsel_samples *b)
{
	if (b->n > b->kcap) {
		struct evsel_key *nk = realloc(b->k, b->cap * sizeof(*nk));

		if (!nk)
			return -PMT_ENOMEM;
		b->k = nk;
		b->kcap = b->cap;
	}
	for (size_t i = 0; i < b->n; i++)
		b->k[i] = (struct evsel_key){ b->s[i].time, i };
	/* rings read in rounds: mostly sorted runs, which qsort's merge sort takes fast */
	qsort(b->k, b->n, sizeof(*b->k), cmp_key);
	b->nk = b->n;
	b->next = 0;
	b->sorted = 1;
	return 0;
}

int evsel_samples_flush(struct evsel_samples *b, uint64_t upto,
			const struct pmt_spe_run_opts *o, pmt_spe_sample_fn fn, void *ctx)
{
	int rc;

	if (!b->n)
		return 0;
	if (!b->sorted && (rc = sort_keys(b)) < 0)
		return rc;
	while (b->next < b->nk && b->k[b->next].time <= upto) {
		size_t idx = b->k[b->next++].idx;
		struct pmt_spe_sample *s = &b->s[idx];

		if (b->chain_at[idx] != SIZE_MAX)
			s->callchain = (const struct pmt_callchain *)(b->chains + b->chain_at[idx]);
		if (b->ustk[idx].off != SIZE_MAX) {
			if ((rc = unwind_chain(b, idx, o)) < 0)
				return rc;
			s->callchain = (const struct pmt_callchain *)b->merged;
			s->user_unwound = 1;
		}
		rc = o->record_fn ? o->record_fn(s, 1, ctx) : fn(s, ctx);
		if (rc < 0)
			return rc;
	}
	if (b->next == b->nk) {
		b->n = b->nk = b->next = 0;
		b->chains_len = b->upool_len = 0;
		b->sorted = 0;
	}
	return 0;
}

bool evsel_samples_due(struct evsel_samples *b, uint64_t upto)
{
	if (!b->n)
		return false;
	if (!b->sorted && sort_keys(b) < 0)
		return true; /* the flush reports it */
	return b->next < b->nk && b->k[b->next].time <= upto;
}

void evsel_samples_fini(struct evsel_samples *b)
{
	free(b->s);
	free(b->k);
	free(b->chain_at);
	free(b->chains);
	free(b->ustk);
	free(b->upool);
	free(b->merged);
	memset(b, 0, sizeof(*b));
}
