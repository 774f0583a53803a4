/* perf report-like summary of SPE samples: "Available samples" and top ips per group. */
#include <inttypes.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"

/* One table for all groups: the samples of a record share their ip, so a record costs one
 * lookup (usually the cached last slot) instead of one per group. An entry is 16 bytes:
 * the counts of all groups packed 6 bits each while they are below 64, which is what most
 * ips ever need; an ip sampled more often in some group moves its counts to a spill array
 * of full counters. Memory grows with the distinct ips: 16 bytes each (table load <= 3/4,
 * doubled on growth), plus 40 bytes per ip with more than 63 samples in a group. */
#define SMALL_BITS 6
#define SMALL_MAX ((1u << SMALL_BITS) - 1)
#define SPILLED (1ULL << 63) /* cnt is SPILLED | index into the spill array */
_Static_assert(PMT_SPE_SE_COUNT * SMALL_BITS < 63, "group counts must fit below SPILLED");
struct ipent {
	uint64_t ip;
	uint64_t cnt; /* SMALL_BITS per group, or SPILLED | index; 0: empty slot */
};

struct spill {
	uint32_t cnt[PMT_SPE_SE_COUNT];
};

/* Table lookups are cache misses (one per distinct ip), so samples wait in a short ring:
 * the slot of an ip is prefetched when it enters and counted when it leaves. An entry
 * holds the events of consecutive samples of one ip (the samples of one record). */
#define RING 32
struct pending {
	uint64_t ip;
	uint32_t events; /* bit per enum pmt_spe_event */
};

struct pmt_spe_report {
	uint64_t count[PMT_SPE_SE_COUNT];
	uint64_t period[PMT_SPE_SE_COUNT];
	struct ipent *e;
	size_t cap, used;
	struct spill *sp;
	size_t nsp, spcap;
	struct pending ring[RING];
	unsigned head, n; /* oldest entry, number of entries */
};

struct topent {
	uint64_t ip, count;
};

int pmt_spe_report_new(struct pmt_spe_report **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -PMT_ENOMEM;
}

void pmt_spe_report_free(struct pmt_spe_report *r)
{
	if (!r)
		return;
	free(r->e);
	free(r->sp);
	free(r);
}

static size_t slot_of(uint64_t ip, size_t cap)
{
	ip ^= ip >> 33;
	ip *= 0xff51afd7ed558ccdULL;
	ip ^= ip >> 33;
	return (size_t)ip & (cap - 1);
}

static inline int used(const struct ipent *e)
{
	return e->cnt != 0;
}

static uint32_t count_of(const struct pmt_spe_report *r, const struct ipent *e, int ev)
{
	if (e->cnt & SPILLED)
		return r->sp[(uint32_t)e->cnt].cnt[ev];
	return e->cnt >> (SMALL_BITS * ev) & SMALL_MAX;
}

/* the entry's counts into full counters, when one of them would pass SMALL_MAX */
static int spill(struct pmt_spe_report *r, struct ipent *e)
{
	struct spill *s;

	if (r->nsp == r->spcap) {
		size_t nc = r->spcap ? r->spcap * 2 : 1024;
		struct spill *n = realloc(r->sp, nc * sizeof(*n));

		if (!n)
			return -PMT_ENOMEM;
		r->sp = n;
		r->spcap = nc;
	}
	s = &r->sp[r->nsp++];
	for (int ev = 0; ev < PMT_SPE_SE_COUNT; ev++)
		s->cnt[ev] = e->cnt >> (SMALL_BITS * ev) & SMALL_MAX;
	e->cnt = SPILLED | (r->nsp - 1);
	return 0;
}

static int tab_grow(struct pmt_spe_report *t)
{
	size_t nc = t->cap ? t->cap * 2 : 65536;
	struct ipent *ne = calloc(nc, sizeof(*ne));

	if (!ne)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!used(&t->e[i]))
			continue;
		for (j = slot_of(t->e[i].ip, nc); used(&ne[j]); j = (j + 1) & (nc - 1))
			;
		ne[j] = t->e[i];
	}
	free(t->e);
	t->e = ne;
	t->cap = nc;
	return 0;
}

static int count_pending(struct pmt_spe_report *r, const struct pending *p)
{
	struct ipent *e;
	size_t j;

	if (r->used * 4 >= r->cap * 3)
		PMT_FORWARD_IF_ERROR(tab_grow(r));
	for (j = slot_of(p->ip, r->cap); used(&r->e[j]); j = (j + 1) & (r->cap - 1))
		if (r->e[j].ip == p->ip)
			break;
	e = &r->e[j];
	if (!used(e)) {
		e->ip = p->ip;
		r->used++;
	}
	for (uint32_t m = p->events; m; m &= m - 1) {
		int ev = __builtin_ctz(m);

		if (!(e->cnt & SPILLED) && (e->cnt >> (SMALL_BITS * ev) & SMALL_MAX) == SMALL_MAX)
			PMT_FORWARD_IF_ERROR(spill(r, e));
		if (e->cnt & SPILLED)
			r->sp[(uint32_t)e->cnt].cnt[ev]++;
		else
			e->cnt += 1ULL << (SMALL_BITS * ev);
	}
	return 0;
}

static int flush_pending(struct pmt_spe_report *r)
{
	while (r->n) {
		PMT_FORWARD_IF_ERROR(count_pending(r, &r->ring[r->head]));
		r->head = (r->head + 1) % RING;
		r->n--;
	}
	return 0;
}

int pmt_spe_report_add(struct pmt_spe_report *r, const struct pmt_spe_sample *s)
{
	struct pending *last;

	if (s->event >= PMT_SPE_SE_COUNT)
		return -PMT_EINVAL;
	r->count[s->event]++;
	r->period[s->event] += s->period;
	last = r->n ? &r->ring[(r->head + r->n - 1) % RING] : NULL;
	if (last && last->ip == s->ip && !(last->events & (1u << s->event))) {
		last->events |= 1u << s->event;
		return 0;
	}
	if (r->n == RING) {
		PMT_FORWARD_IF_ERROR(count_pending(r, &r->ring[r->head]));
		r->head = (r->head + 1) % RING;
		r->n--;
	}
	if (r->cap)
		__builtin_prefetch(&r->e[slot_of(s->ip, r->cap)], 1);
	r->ring[(r->head + r->n) % RING] = (struct pending){ s->ip, 1u << s->event };
	r->n++;
	return 0;
}

static int cmp_top(const void *a, const void *b)
{
	const struct topent *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

static void top_insert(struct topent *out, size_t *n, size_t top, uint64_t ip, uint64_t count)
{
	struct topent t = { ip, count };
	size_t k;

	if (*n == top && (!top || cmp_top(&t, &out[*n - 1]) >= 0))
		return;
	k = *n < top ? (*n)++ : *n - 1;
	while (k > 0 && cmp_top(&t, &out[k - 1]) < 0) {
		out[k] = out[k - 1];
		k--;
	}
	out[k] = t;
}

/* One pass over the table: for every group the `top` largest ips (count desc, ip asc)
 * into best[ev * top ..], their number into n[ev], ips with samples into distinct[ev]. */
static void select_top(const struct pmt_spe_report *r, struct topent *best, size_t top,
		       size_t *n, uint64_t *distinct)
{
	for (size_t i = 0; i < r->cap; i++) {
		const struct ipent *e = &r->e[i];

		if (!used(e))
			continue;
		for (int ev = 0; ev < PMT_SPE_SE_COUNT; ev++) {
			uint32_t c = count_of(r, e, ev);

			if (!c)
				continue;
			distinct[ev]++;
			top_insert(best + (size_t)ev * top, &n[ev], top, e->ip, c);
		}
	}
}

/* perf's "1K"-style counts in --stdio headers */
static void human(char *buf, size_t cap, uint64_t v)
{
	if (v < 1000)
		snprintf(buf, cap, "%" PRIu64, v);
	else if (v < 1000000)
		snprintf(buf, cap, "%" PRIu64 "K", (v + 500) / 1000);
	else
		snprintf(buf, cap, "%" PRIu64 "M", (v + 500000) / 1000000);
}

void pmt_spe_report_print(struct pmt_spe_report *r, struct pmt_out *o, int json, unsigned top,
			  int compat, const uint32_t enabled)
{
	struct topent *best = calloc((size_t)PMT_SPE_SE_COUNT * (top ? top : 1), sizeof(*best));
	size_t nbest[PMT_SPE_SE_COUNT] = { 0 };
	uint64_t distinct[PMT_SPE_SE_COUNT] = { 0 };
	int first = 1;

	if (!best || flush_pending(r) < 0) {
		pmt_error("report: out of memory");
		free(best);
		return;
	}
	select_top(r, best, top, nbest, distinct);
	if (json)
		pmt_out_str(o, "{\"groups\":[");
	else
		pmt_out_str(o, "# Available samples\n");
	for (int ev = 0; ev < PMT_SPE_SE_COUNT; ev++) {
		const char *name = pmt_spe_event_name((unsigned)ev, compat);
		const struct topent *b = best + (size_t)ev * top;
		char cnt[32];

		if (!(enabled & (1u << ev)) && !r->count[ev])
			continue;
		if (!json) {
			human(cnt, sizeof(cnt), r->count[ev]);
			pmt_out_printf(o, "%s %s\n", cnt, name);
			continue;
		}
		pmt_out_str(o, first ? "{\"event\":" : ",{\"event\":");
		pmt_out_json_str(o, name);
		pmt_out_str(o, ",\"samples\":");
		pmt_out_u64(o, r->count[ev]);
		pmt_out_str(o, ",\"period\":");
		pmt_out_u64(o, r->period[ev]);
		pmt_out_str(o, ",\"distinct_ips\":");
		pmt_out_u64(o, distinct[ev]);
		pmt_out_str(o, ",\"top\":[");
		for (size_t i = 0; i < nbest[ev]; i++) {
			pmt_out_str(o, i ? ",{\"ip\":\"0x" : "{\"ip\":\"0x");
			pmt_out_hex(o, b[i].ip);
			pmt_out_str(o, "\",\"samples\":");
			pmt_out_u64(o, b[i].count);
			pmt_out_char(o, '}');
		}
		pmt_out_str(o, "]}");
		first = 0;
	}
	if (json)
		pmt_out_str(o, "]}\n");
	for (int ev = 0; !json && ev < PMT_SPE_SE_COUNT; ev++) {
		const struct topent *b = best + (size_t)ev * top;

		if (!r->count[ev])
			continue;
		pmt_out_printf(o, "\n# Samples: %" PRIu64 "  of event '%s'\n# Overhead  Samples  IP\n",
			       r->count[ev], pmt_spe_event_name((unsigned)ev, compat));
		for (size_t i = 0; i < nbest[ev]; i++)
			pmt_out_printf(o, "%9.2f%%  %7" PRIu64 "  0x%" PRIx64 "\n",
				       100.0 * (double)b[i].count / (double)r->count[ev],
				       b[i].count, b[i].ip);
	}
	free(best);
}
