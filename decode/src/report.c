/* perf report-like summary of SPE samples: "Available samples" and top ips per group. */
#include <inttypes.h>
#include <stdlib.h>

#include "pmutrace/decode.h"

struct ipent {
	uint64_t ip;
	uint64_t count; /* 0 = empty slot */
};

struct iptab {
	struct ipent *e;
	size_t cap, used;
};

struct pmt_spe_report {
	uint64_t count[PMT_SPE_SE_COUNT];
	uint64_t period[PMT_SPE_SE_COUNT];
	struct iptab tab[PMT_SPE_SE_COUNT];
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
	for (int i = 0; i < PMT_SPE_SE_COUNT; i++)
		free(r->tab[i].e);
	free(r);
}

static size_t slot_of(uint64_t ip, size_t cap)
{
	ip ^= ip >> 33;
	ip *= 0xff51afd7ed558ccdULL;
	ip ^= ip >> 33;
	return (size_t)ip & (cap - 1);
}

static int tab_grow(struct iptab *t)
{
	size_t nc = t->cap ? t->cap * 2 : 1024;
	struct ipent *ne = calloc(nc, sizeof(*ne));

	if (!ne)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->e[i].count)
			continue;
		for (j = slot_of(t->e[i].ip, nc); ne[j].count; j = (j + 1) & (nc - 1))
			;
		ne[j] = t->e[i];
	}
	free(t->e);
	t->e = ne;
	t->cap = nc;
	return 0;
}

int pmt_spe_report_add(struct pmt_spe_report *r, const struct pmt_spe_sample *s)
{
	struct iptab *t;
	size_t j;

	if (s->event >= PMT_SPE_SE_COUNT)
		return -PMT_EINVAL;
	r->count[s->event]++;
	r->period[s->event] += s->period;
	t = &r->tab[s->event];
	if (t->used * 2 >= t->cap)
		PMT_FORWARD_IF_ERROR(tab_grow(t));
	for (j = slot_of(s->ip, t->cap); t->e[j].count; j = (j + 1) & (t->cap - 1)) {
		if (t->e[j].ip == s->ip) {
			t->e[j].count++;
			return 0;
		}
	}
	t->e[j].ip = s->ip;
	t->e[j].count = 1;
	t->used++;
	return 0;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct ipent *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
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
	int first = 1;

	if (json)
		pmt_out_str(o, "{\"groups\":[");
	else
		pmt_out_str(o, "# Available samples\n");
	for (int ev = 0; ev < PMT_SPE_SE_COUNT; ev++) {
		struct iptab *t = &r->tab[ev];
		const char *name = pmt_spe_event_name((unsigned)ev, compat);
		size_t n = 0, shown;
		char cnt[32];

		if (!(enabled & (1u << ev)) && !r->count[ev])
			continue;
		/* compact the table in place; it is not used for lookups any more */
		for (size_t i = 0; i < t->cap; i++)
			if (t->e[i].count)
				t->e[n++] = t->e[i];
		t->used = n;
		if (n)
			qsort(t->e, n, sizeof(*t->e), cmp_ent);
		shown = n < top ? n : top;
		if (json) {
			pmt_out_str(o, first ? "{\"event\":" : ",{\"event\":");
			pmt_out_json_str(o, name);
			pmt_out_str(o, ",\"samples\":");
			pmt_out_u64(o, r->count[ev]);
			pmt_out_str(o, ",\"period\":");
			pmt_out_u64(o, r->period[ev]);
			pmt_out_str(o, ",\"distinct_ips\":");
			pmt_out_u64(o, n);
			pmt_out_str(o, ",\"top\":[");
			for (size_t i = 0; i < shown; i++) {
				pmt_out_str(o, i ? ",{\"ip\":\"0x" : "{\"ip\":\"0x");
				pmt_out_hex(o, t->e[i].ip);
				pmt_out_str(o, "\",\"samples\":");
				pmt_out_u64(o, t->e[i].count);
				pmt_out_char(o, '}');
			}
			pmt_out_str(o, "]}");
		} else {
			human(cnt, sizeof(cnt), r->count[ev]);
			pmt_out_printf(o, "%s %s\n", cnt, name);
		}
		first = 0;
	}
	if (json) {
		pmt_out_str(o, "]}\n");
		return;
	}
	for (int ev = 0; ev < PMT_SPE_SE_COUNT; ev++) {
		struct iptab *t = &r->tab[ev];
		size_t n = t->used; /* compacted and sorted above */

		if (!r->count[ev])
			continue;
		pmt_out_printf(o, "\n# Samples: %" PRIu64 "  of event '%s'\n# Overhead  Samples  IP\n",
			       r->count[ev], pmt_spe_event_name((unsigned)ev, compat));
		for (size_t i = 0; i < n && i < top; i++)
			pmt_out_printf(o, "%9.2f%%  %7" PRIu64 "  0x%" PRIx64 "\n",
				       100.0 * (double)t->e[i].count / (double)r->count[ev],
				       t->e[i].count, t->e[i].ip);
	}
}
