/* Count sets (aggregation units x events) and event-name keys. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counts_priv.h"
#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

static void lower_copy(char *dst, size_t cap, const char *s, size_t n)
{
	size_t i;

	if (n >= cap)
		n = cap - 1;
	for (i = 0; i < n; i++)
		dst[i] = (char)tolower((unsigned char)s[i]);
	dst[i] = 0;
}

/* Drop the retire-latency modifier R from a perf modifier string ("pR" -> "p"). Only a
 * string made of perf's modifier letters ([ukhpPGHSDIWebR], parse-events.l) counts:
 * Intel's ":USER" or ":c1:e1" are event qualifiers that happen to contain an 'R'. */
static int strip_r(char *mods)
{
	char *w = mods;

	if (!strcmp(mods, "retire_latency")) {
		mods[0] = 0;
		return 1;
	}
	if (!strchr(mods, 'R') || strspn(mods, "ukhpPGHSDIWebR") != strlen(mods))
		return 0;
	for (char *r = mods; *r; r++)
		if (*r != 'R')
			*w++ = *r;
	*w = 0;
	return 1;
}

int pmt_event_key_parse(const char *name, struct pmt_event_key *key)
{
	char buf[256], *a, *b;
	size_t n = strlen(name);

	memset(key, 0, sizeof(*key));
	if (!n || n >= sizeof(buf))
		return -PMT_EINVAL;
	memcpy(buf, name, n + 1);
	for (char *q = buf; *q; q++)
		if (*q == '@')
			*q = '/';
	a = strchr(buf, '/');
	if (a) {
		*a++ = 0;
		b = strchr(a, '/');
		if (b)
			*b++ = 0;
		lower_copy(key->pmu, sizeof(key->pmu), buf, strlen(buf));
		lower_copy(key->event, sizeof(key->event), a, strlen(a));
		if (b) {
			/* ":R" after the closing slash is perf's spelling too */
			if (*b == ':')
				b++;
			key->retire_latency = (uint8_t)strip_r(b);
			lower_copy(key->mods, sizeof(key->mods), b, strlen(b));
		}
	} else {
		char *colon = strchr(buf, ':');

		if (colon) {
			*colon++ = 0;
			key->retire_latency = (uint8_t)strip_r(colon);
			lower_copy(key->mods, sizeof(key->mods), colon, strlen(colon));
		}
		lower_copy(key->event, sizeof(key->event), buf, strlen(buf));
	}
	return 0;
}

static int core_pmu(const char *pmu)
{
	return !pmu[0] || !strcmp(pmu, "cpu") || !strcmp(pmu, "cpu_core");
}

int pmt_event_key_match(const struct pmt_event_key *a, const struct pmt_event_key *b)
{
	if (strcmp(a->event, b->event) || strcmp(a->mods, b->mods))
		return 0;
	if (!strcmp(a->pmu, b->pmu))
		return 2;
	return core_pmu(a->pmu) && core_pmu(b->pmu) ? 1 : 0;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static uint64_t unit_hash(const char *interval, const char *aggr)
{
	return hash_str(hash_str(0xcbf29ce484222325ULL, interval) * 31 + 1, aggr);
}

static uint64_t event_hash(const char *name)
{
	return hash_str(0xcbf29ce484222325ULL, name);
}

/* Find the slot holding an index for which eq() holds, or the empty slot to insert at. */
#define HASH_PROBE(tab, cap, h, eq)                                                     \
	({                                                                              \
		size_t i_ = (size_t)(h) & ((cap) - 1);                                  \
		while ((tab)[i_] && !(eq((tab)[i_] - 1)))                               \
			i_ = (i_ + 1) & ((cap) - 1);                                    \
		i_;                                                                     \
	})

static int rehash(uint32_t **tab, size_t *cap, size_t n, int units, struct pmt_counts *c)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	uint32_t *t;

	while (ncap < n * 2 + 2)
		ncap *= 2;
	t = calloc(ncap, sizeof(*t));
	if (!t)
		return -PMT_ENOMEM;
	for (size_t k = 0; k < n; k++) {
		uint64_t h = units ? unit_hash(c->units[k].interval, c->units[k].aggr)
				   : event_hash(c->events[k].name);
		size_t i = (size_t)h & (ncap - 1);

		while (t[i])
			i = (i + 1) & (ncap - 1);
		t[i] = (uint32_t)k + 1;
	}
	free(*tab);
	*tab = t;
	*cap = ncap;
	return 0;
}

int pmt_counts_new(struct pmt_counts **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -PMT_ENOMEM;
}

void pmt_counts_free(struct pmt_counts *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_events; i++)
		free(c->events[i].name);
	for (size_t i = 0; i < c->nr_units; i++) {
		free(c->units[i].interval);
		free(c->units[i].aggr);
	}
	free(c->events);
	free(c->units);
	free(c->val);
	free(c->src);
	free(c->ehash);
	free(c->uhash);
	free(c);
}

/* Re-lay the dense matrix when either dimension outgrows its capacity. */
static int regrow(struct pmt_counts *c, size_t ucap, size_t ecap)
{
	double *v = malloc(ucap * ecap * sizeof(*v));
	uint32_t *s = calloc(ucap * ecap, sizeof(*s));

	if (!v || !s) {
		free(v);
		free(s);
		return -PMT_ENOMEM;
	}
	for (size_t i = 0; i < ucap * ecap; i++)
		v[i] = NAN;
	for (size_t u = 0; u < c->nr_units; u++) {
		memcpy(v + u * ecap, c->val + u * c->ecap, c->nr_events * sizeof(*v));
		memcpy(s + u * ecap, c->src + u * c->ecap, c->nr_events * sizeof(*s));
	}
	free(c->val);
	free(c->src);
	c->val = v;
	c->src = s;
	c->ucap = ucap;
	c->ecap = ecap;
	return 0;
}

static char *dupz(const char *s)
{
	return strdup(s ? s : "");
}

int pmt_counts_unit(struct pmt_counts *c, const char *interval, const char *aggr)
{
	struct pmt_counts_unit *u;
	uint64_t h;
	size_t slot;

	interval = interval ? interval : "";
	aggr = aggr ? aggr : "";
	if (c->nr_units * 2 + 2 > c->uhcap)
		PMT_FORWARD_IF_ERROR(rehash(&c->uhash, &c->uhcap, c->nr_units, 1, c));
	h = unit_hash(interval, aggr);
#define UNIT_EQ(k) (!strcmp(c->units[k].interval, interval) && !strcmp(c->units[k].aggr, aggr))
	slot = HASH_PROBE(c->uhash, c->uhcap, h, UNIT_EQ);
#undef UNIT_EQ
	if (c->uhash[slot])
		return (int)c->uhash[slot] - 1;
	if (c->nr_units == c->ucap || !c->units) {
		size_t cap = c->ucap ? c->ucap * 2 : 4;

		u = realloc(c->units, cap * sizeof(*u));
		if (!u)
			return -PMT_ENOMEM;
		c->units = u;
		PMT_FORWARD_IF_ERROR(regrow(c, cap, c->ecap ? c->ecap : 8));
	}
	u = &c->units[c->nr_units];
	u->interval = dupz(interval);
	u->aggr = dupz(aggr);
	if (!u->interval || !u->aggr) {
		free(u->interval);
		free(u->aggr);
		return -PMT_ENOMEM;
	}
	c->uhash[slot] = (uint32_t)c->nr_units + 1;
	return (int)c->nr_units++;
}

int pmt_counts_event(struct pmt_counts *c, const char *name)
{
	struct pmt_counts_event *e;
	size_t slot;

	if (c->nr_events * 2 + 2 > c->ehcap)
		PMT_FORWARD_IF_ERROR(rehash(&c->ehash, &c->ehcap, c->nr_events, 0, c));
#define EVENT_EQ(k) (!strcmp(c->events[k].name, name))
	slot = HASH_PROBE(c->ehash, c->ehcap, event_hash(name), EVENT_EQ);
#undef EVENT_EQ
	if (c->ehash[slot])
		return (int)c->ehash[slot] - 1;
	if (c->nr_events == c->ecap || !c->events) {
		size_t cap = c->ecap ? c->ecap * 2 : 8;

		e = realloc(c->events, cap * sizeof(*e));
		if (!e)
			return -PMT_ENOMEM;
		c->events = e;
		PMT_FORWARD_IF_ERROR(regrow(c, c->ucap ? c->ucap : 4, cap));
	}
	e = &c->events[c->nr_events];
	e->name = strdup(name);
	if (!e->name)
		return -PMT_ENOMEM;
	if (pmt_event_key_parse(name, &e->key) < 0)
		memset(&e->key, 0, sizeof(e->key));
	c->ehash[slot] = (uint32_t)c->nr_events + 1;
	return (int)c->nr_events++;
}

int pmt_counts_add(struct pmt_counts *c, int unit, int event, double v)
{
	size_t i;

	PMT_RETURN_IF(unit < 0 || (size_t)unit >= c->nr_units, PMT_EINVAL);
	PMT_RETURN_IF(event < 0 || (size_t)event >= c->nr_events, PMT_EINVAL);
	i = (size_t)unit * c->ecap + (size_t)event;
	if (!c->src[i] || isnan(c->val[i]))
		c->val[i] = v;
	else if (!isnan(v))
		c->val[i] += v;
	c->src[i]++;
	return 0;
}

size_t pmt_counts_nr_units(const struct pmt_counts *c) { return c->nr_units; }
size_t pmt_counts_nr_events(const struct pmt_counts *c) { return c->nr_events; }
const char *pmt_counts_event_name(const struct pmt_counts *c, size_t e) { return c->events[e].name; }
const char *pmt_counts_unit_interval(const struct pmt_counts *c, size_t u) { return c->units[u].interval; }
const char *pmt_counts_unit_aggr(const struct pmt_counts *c, size_t u) { return c->units[u].aggr; }

double pmt_counts_get(const struct pmt_counts *c, size_t unit, size_t event)
{
	if (unit >= c->nr_units || event >= c->nr_events)
		return NAN;
	return c->val[unit * c->ecap + event];
}

unsigned pmt_counts_sources(const struct pmt_counts *c, size_t unit, size_t event)
{
	if (unit >= c->nr_units || event >= c->nr_events)
		return 0;
	return c->src[unit * c->ecap + event];
}

int pmt_counts_find(const struct pmt_counts *c, const char *id)
{
	struct pmt_event_key k;
	int best = -PMT_ENOT_FOUND, best_score = 0;

	if (c->ehcap) {
#define EVENT_EQ(k) (!strcmp(c->events[k].name, id))
		size_t slot = HASH_PROBE(c->ehash, c->ehcap, event_hash(id), EVENT_EQ);
#undef EVENT_EQ

		if (c->ehash[slot])
			return (int)c->ehash[slot] - 1;
	}
	if (pmt_event_key_parse(id, &k) < 0)
		return -PMT_ENOT_FOUND;
	for (size_t i = 0; i < c->nr_events; i++) {
		int s;

		if (c->events[i].key.retire_latency != k.retire_latency)
			continue;
		s = pmt_event_key_match(&k, &c->events[i].key);
		if (s > best_score) {
			best_score = s;
			best = (int)i;
		}
	}
	return best;
}

void pmt_counts_clear_units(struct pmt_counts *c)
{
	for (size_t u = 0; u < c->nr_units; u++) {
		free(c->units[u].interval);
		free(c->units[u].aggr);
		for (size_t e = 0; e < c->nr_events; e++) {
			c->val[u * c->ecap + e] = NAN;
			c->src[u * c->ecap + e] = 0;
		}
	}
	c->nr_units = 0;
	if (c->uhash)
		memset(c->uhash, 0, c->uhcap * sizeof(*c->uhash));
}
