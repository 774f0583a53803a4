/* The order in which perf 7.3 parses the events of a metric group (stat --topdown).
 *
 * perf's metricgroup.c keeps a metric's IDs in a libbpf hashmap (tools/lib/bpf/hashmap.c,
 * keys hashed by expr.c's key_hash, h = h * 31 + c over signed chars) and writes its event
 * string by walking that map bucket by bucket, newest entry of a bucket first. The event
 * list, and so the attrs perf opens and their order, follow from: each metric's IDs
 * (parsed from its name, as --topdown sets metric_no_threshold, then every metric it names
 * resolved in the map's order; metric_perf_ids.c parses as expr.y does), the metric list (table order, each added at the head, then
 * sorted by number of IDs, most first, stably), and the IDs of the ungrouped metrics merged
 * in that list's order into one map. Reproduced here map operation by map operation. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"
#include "perf_order_priv.h"

static size_t key_hash(const char *s)
{
	size_t h = 0;

	for (; *s; s++)
		h = h * 31 + (size_t)(long)(signed char)*s;
	return h;
}

static size_t hash_bits(size_t h, unsigned bits)
{
	return bits ? (size_t)((uint64_t)h * 11400714819323198485ull) >> (64 - bits) : 0;
}

int phm_find(const struct phm *m, const char *k)
{
	if (!m->bits)
		return -1;
	for (int e = m->head[hash_bits(key_hash(k), m->bits)]; e >= 0; e = m->next[e])
		if (!strcmp(m->key[e], k))
			return e;
	return -1;
}

static int phm_grow(struct phm *m)
{
	unsigned bits = m->bits + 1 < 2 ? 2 : m->bits + 1;
	size_t cap = (size_t)1 << bits, old = m->bits ? (size_t)1 << m->bits : 0;
	int *head = malloc(cap * sizeof(*head));

	if (!head)
		return -PMT_ENOMEM;
	for (size_t b = 0; b < cap; b++)
		head[b] = -1;
	for (size_t b = 0; b < old; b++) {
		for (int e = m->head[b], nx; e >= 0; e = nx) {
			size_t nb = hash_bits(key_hash(m->key[e]), bits);

			nx = m->next[e];
			m->next[e] = head[nb];
			head[nb] = e;
		}
	}
	free(m->head);
	m->head = head;
	m->bits = bits;
	return 0;
}

/* hashmap__set: an existing key keeps its place */
int phm_add(struct phm *m, const char *k)
{
	size_t cap = m->bits ? (size_t)1 << m->bits : 0;
	size_t b;
	char *dup;

	if (phm_find(m, k) >= 0)
		return 0;
	if ((!cap || (m->sz + 1) * 4 / 3 > cap) && phm_grow(m) < 0)
		return -PMT_ENOMEM;
	if (m->nr == m->cap_entries) {
		size_t n = m->cap_entries ? m->cap_entries * 2 : 16;
		char **key = realloc(m->key, n * sizeof(*key));
		int *next;

		if (!key)
			return -PMT_ENOMEM;
		m->key = key;
		next = realloc(m->next, n * sizeof(*next));
		if (!next)
			return -PMT_ENOMEM;
		m->next = next;
		m->cap_entries = n;
	}
	dup = strdup(k);
	if (!dup)
		return -PMT_ENOMEM;
	b = hash_bits(key_hash(k), m->bits);
	m->key[m->nr] = dup;
	m->next[m->nr] = m->head[b];
	m->head[b] = (int)m->nr++;
	m->sz++;
	return 0;
}

static void phm_del(struct phm *m, const char *k)
{
	int *link;

	if (!m->bits)
		return;
	for (link = &m->head[hash_bits(key_hash(k), m->bits)]; *link >= 0;
	     link = &m->next[*link]) {
		if (!strcmp(m->key[*link], k)) {
			*link = m->next[*link];
			m->sz--;
			return;
		}
	}
}

/* hashmap__for_each_entry: the live entries, bucket by bucket */
size_t phm_walk(const struct phm *m, const char **out)
{
	size_t n = 0;

	for (size_t b = 0; m->bits && b < (size_t)1 << m->bits; b++)
		for (int e = m->head[b]; e >= 0; e = m->next[e])
			out[n++] = m->key[e];
	return n;
}

void phm_fini(struct phm *m)
{
	for (size_t i = 0; i < m->nr; i++)
		free(m->key[i]);
	free(m->key);
	free(m->next);
	free(m->head);
	memset(m, 0, sizeof(*m));
}

/* perf 7.3's tool PMU events: counted by perf itself, never in a metric's event group */
bool tool_event(const char *id)
{
	static const char *const tool[] = { "duration_time", "user_time", "system_time" };

	for (size_t i = 0; i < sizeof(tool) / sizeof(tool[0]); i++)
		if (!strcmp(id, tool[i]))
			return true;
	return false;
}

/* match_metric(): "name" or a ';'-separated list holding it, case-insensitive */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		while (*p == ' ')
			p++;
		if (!strncasecmp(p, name, n) && (p[n] == 0 || p[n] == ';'))
			return true;
		p = strchr(p, ';');
		if (p)
			p++;
	}
	return false;
}

static bool same_pmu(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* a hybrid table has a metric of each name per PMU (its Unit): perf resolves a reference
 * in the referring metric's PMU table */
static int find_metric(const struct pmt_metric_set *ms, const char *name, const char *pmu)
{
	int any = -1;

	for (size_t i = 0; i < ms->nr; i++)
		if (!strcasecmp(ms->m[i].name, name)) {
			if (same_pmu(ms->m[i].pmu, pmu))
				return (int)i;
			if (any < 0)
				any = (int)i;
		}
	return any;
}


/* resolve_metric(): the map's metric names, in walk order, replaced by their IDs */
static int resolve(const struct pmt_metric_set *ms, struct root *r, const char **walk,
		   const struct pmt_expr_ctx *ctx)
{
	size_t n = phm_walk(&r->ids, walk), np = 0;
	int *pending = calloc(n + 1, sizeof(*pending));
	const char **key = calloc(n + 1, sizeof(*key));
	int rc = 0;

	if (!pending || !key) {
		free(pending);
		free(key);
		return -PMT_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		int k = find_metric(ms, walk[i], r->pmu);

		if (k >= 0) {
			key[np] = walk[i]; /* the map's own string: unlinked, not freed */
			pending[np++] = k;
		}
	}
	for (size_t i = 0; i < np; i++)
		phm_del(&r->ids, key[i]);
	for (size_t i = 0; i < np && rc >= 0; i++) {
		const struct pmt_metric *pm = &ms->m[pending[i]];
		bool seen = false;

		for (size_t j = 0; j < r->nr_refs; j++)
			seen |= !strcasecmp(r->refs[j], pm->name);
		if (seen)
			continue;
		r->refs[r->nr_refs++] = pm->name;
		if (pm->intel)
			rc = -PMT_EUNSUPPORTED; /* Intel aliases: not perf's JSON */
		else
			rc = perf_add_ids(&r->ids, pm->expr, ctx);
		if (rc >= 0)
			rc = resolve(ms, r, walk, ctx);
	}
	free(pending);
	free(key);
	return rc;
}

/* perf's table is sorted by metric name (jevents), and metricgroup__add_metric_list()
 * takes -M's names one by one, each name's metrics put before the earlier names' (a
 * list_splice at the head): idx[] sorted by the first name of sel that chooses it, then by
 * name; an insertion sort keeps it simple for the tens of metrics of a group */
/* the (metric, name) pairs in the order metricgroup__add_metric_list() adds them: the
 * names in -M's order, a name's metrics by name */
static void sort_by_name(int *idx, size_t *item, bool *nog, size_t n,
			 const struct pmt_metric_set *ms)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && (item[j - 1] > item[j] ||
					     (item[j - 1] == item[j] &&
					      strcmp(ms->m[idx[j - 1]].name, ms->m[idx[j]].name) > 0));
		     j--) {
			int t = idx[j];
			size_t ti = item[j];
			bool tn = nog[j];

			idx[j] = idx[j - 1], item[j] = item[j - 1], nog[j] = nog[j - 1];
			idx[j - 1] = t, item[j - 1] = ti, nog[j - 1] = tn;
		}
}

int pmt_metric_set_perf_events(const struct pmt_metric_set *ms, const char *group, char ***ids)
{
	bool grouped;
	int rc = pmt_metric_set_perf_events_sel(ms, &group, 1, false, ids, &grouped);

	/* --topdown's groups: every metric in MetricgroupNoGroup, else perf's own groups */
	if (rc >= 0 && grouped) {
		pmt_perf_events_free(*ids);
		*ids = NULL;
		return -PMT_EUNSUPPORTED;
	}
	return rc;
}

/* match_pm_metric(): a metric's name or one of its groups */
static bool selects(const struct pmt_metric *m, const char *name)
{
	return in_list(m->name, name) || (m->groups && in_list(m->groups, name));
}

static bool one_per_pmu(const struct pmt_metric_set *ms, const int *idx, size_t nm)
{
	for (size_t i = 0; i < nm; i++)
		for (size_t j = 0; j < i; j++)
			if (!ms->m[idx[i]].pmu || same_pmu(ms->m[idx[i]].pmu, ms->m[idx[j]].pmu))
				return false;
	return true;
}

void roots_fini(struct roots *rs)
{
	for (size_t k = 0; rs->r && k < rs->nm; k++) {
		phm_fini(&rs->r[k].ids);
		free(rs->r[k].refs);
	}
	free(rs->r);
	free(rs->walk);
	memset(rs, 0, sizeof(*rs));
}

/* metric_no_group_events(): the MetricConstraint that keeps a metric's events out of a
 * group (the NMI one while the watchdog holds a counter, the SMT one with SMT on) */
static bool groups_events(const struct pmt_metric *m, const struct pmt_expr_ctx *ctx,
			  unsigned flags)
{
	const char *c = m->constraint;

	if (!c)
		return true;
	if (!strcmp(c, "NO_GROUP_EVENTS"))
		return false;
	if (!strcmp(c, "NO_GROUP_EVENTS_NMI") || !strcmp(c, "NO_NMI_WATCHDOG") ||
	    !strcmp(c, "NO_THRESHOLD_AND_NMI"))
		return !(flags & PO_NMI_WATCHDOG);
	if (!strcmp(c, "NO_GROUP_EVENTS_SMT"))
		return !(ctx && ctx->smt_on);
	return true;
}

int roots_build(const struct pmt_metric_set *ms, const char *const *sel, size_t nsel,
		bool thresholds, const struct pmt_expr_ctx *ctx, unsigned flags,
		struct roots *rs)
{
	size_t nm = 0, total = 0, cap = nsel * ms->nr + 1;
	int *idx = calloc(cap, sizeof(*idx));
	size_t *item = calloc(cap, sizeof(*item));
	bool *nog = calloc(cap, sizeof(*nog));
	bool grouped = false;
	int rc = 0;

	memset(rs, 0, sizeof(*rs));
	rs->r = calloc(cap, sizeof(*rs->r));
	if (!idx || !item || !nog || !rs->r) {
		rc = -PMT_ENOMEM;
		goto out;
	}
	/* every name adds each metric it chooses, as perf 7.3's parse_groups() does: a metric
	 * chosen twice (-M TopdownL1 -M tma_retiring) is in its list twice, each time
	 * ungrouped when that name is in its MetricgroupNoGroup (metric_no_group per name) */
	for (size_t k = 0; k < nsel; k++)
		for (size_t i = 0; i < ms->nr; i++) {
			const struct pmt_metric *m = &ms->m[i];

			if (!selects(m, sel[k]))
				continue;
			if (m->intel) {
				rc = -PMT_EUNSUPPORTED;
				goto out;
			}
			nog[nm] = m->nogroup && in_list(m->nogroup, sel[k]);
			grouped |= !nog[nm] && groups_events(m, ctx, flags);
			item[nm] = k;
			idx[nm++] = (int)i;
		}
	if (!nm) {
		rc = -PMT_ENOT_FOUND;
		goto out;
	}
	/* a metric perf groups ({...}:W) gets an event list of its own, deduplicated against
	 * the others': reproduced for one metric alone, whose list is its map's walk, or for
	 * one per PMU of a hybrid table (each reads its own PMU's events: nothing to share) */
	if (grouped && nm > 1 && !(flags & PO_MANY_GROUPS) && !one_per_pmu(ms, idx, nm)) {
		rc = -PMT_EUNSUPPORTED;
		goto out;
	}
	rs->grouped = grouped;
	sort_by_name(idx, item, nog, nm, ms);
	for (size_t i = 0; i < ms->nr; i++)
		total += strlen(ms->m[i].expr) / 2 + 2; /* a bound on any map's IDs */
	rs->walk = calloc(total + ms->nr + 1, sizeof(*rs->walk));
	if (!rs->walk) {
		rc = -PMT_ENOMEM;
		goto out;
	}
	rs->nm = nm;
	/* __add_metric() per metric, each put at the list's head */
	for (size_t k = 0; k < nm && rc >= 0; k++) {
		struct root *r = &rs->r[nm - 1 - k];
		const struct pmt_metric *pm = &ms->m[idx[k]];

		r->name = pm->name;
		r->pmu = pm->pmu;
		r->grouped = !nog[k] && groups_events(pm, ctx, flags);
		r->m = pm;
		r->refs = calloc(ms->nr + 1, sizeof(*r->refs));
		if (!r->refs) {
			rc = -PMT_ENOMEM;
			break;
		}
		/* a root metric's threshold names the metric itself: perf parses the threshold,
		 * or with metric_no_threshold the name, which resolves to its expression */
		rc = perf_add_ids(&r->ids, !pm->threshold ? pm->expr : thresholds ? pm->threshold
									  : pm->name, ctx);
		if (rc >= 0)
			rc = resolve(ms, r, rs->walk, ctx);
		if (rc >= 0) {
			size_t w = phm_walk(&r->ids, rs->walk);

			r->count = 0;
			for (size_t i = 0; i < w; i++)
				r->count += !tool_event(rs->walk[i]);
		}
	}
	if (rc < 0)
		goto out;
	/* list_sort(metric_list_cmp): most IDs first, a stable merge sort */
	for (size_t i = 1; i < nm; i++)
		for (size_t j = i; j > 0 && rs->r[j - 1].count < rs->r[j].count; j--) {
			struct root t = rs->r[j];

			rs->r[j] = rs->r[j - 1];
			rs->r[j - 1] = t;
		}
out:
	free(idx);
	free(item);
	free(nog);
	if (rc < 0)
		roots_fini(rs);
	return rc;
}

int pmt_metric_set_perf_events_sel(const struct pmt_metric_set *ms, const char *const *sel,
				   size_t nsel, bool thresholds, char ***ids, bool *grouped)
{
	struct roots rs;
	struct phm combined = { 0 };
	char **out = NULL;
	size_t n;
	int rc = roots_build(ms, sel, nsel, thresholds, NULL, 0, &rs);

	*ids = NULL;
	if (rc < 0)
		return rc;
	*grouped = rs.grouped;
	/* build_combined_expr_ctx() for the ungrouped; a grouped metric's own map */
	for (size_t k = 0; k < rs.nm && rc >= 0 && !rs.grouped; k++) {
		size_t w = phm_walk(&rs.r[k].ids, rs.walk);

		for (size_t i = 0; i < w && rc >= 0; i++)
			rc = phm_add(&combined, rs.walk[i]);
	}
	if (rc < 0)
		goto out;
	/* grouped: each root's group in the sorted list's order (one per PMU) */
	n = 0;
	for (size_t k = 0; k < (rs.grouped ? rs.nm : 1); k++)
		n += phm_walk(rs.grouped ? &rs.r[k].ids : &combined, rs.walk);
	out = calloc(n + 1, sizeof(*out));
	if (!out) {
		rc = -PMT_ENOMEM;
		goto out;
	}
	rc = 0;
	for (size_t k = 0; k < (rs.grouped ? rs.nm : 1); k++) {
		n = phm_walk(rs.grouped ? &rs.r[k].ids : &combined, rs.walk);
		for (size_t i = 0; i < n; i++) {
			if (tool_event(rs.walk[i]))
				continue;
			out[rc] = strdup(rs.walk[i]);
			if (!out[rc]) {
				pmt_perf_events_free(out);
				out = NULL;
				rc = -PMT_ENOMEM;
				goto out;
			}
			rc++;
		}
	}
	*ids = out;
out:
	roots_fini(&rs);
	phm_fini(&combined);
	return rc;
}

/* an opened event in a metric's IDs: its name, or a hybrid table's "pmu@EVENT@" for the
 * event pmu/EVENT/ */
int find_event(const struct phm *ids, const char *ev)
{
	char at[256];
	size_t n = strlen(ev);
	int i = phm_find(ids, ev);

	if (i >= 0 || n >= sizeof(at) || n < 2 || ev[n - 1] != '/' || !strchr(ev, '/') ||
	    strchr(ev, '/') == ev + n - 1)
		return i;
	for (size_t k = 0; k <= n; k++)
		at[k] = ev[k] == '/' ? '@' : ev[k];
	return phm_find(ids, at);
}

/* count_uses(): how many of the metrics read an event */
size_t uses(const struct roots *rs, const char *ev)
{
	size_t n = 0;

	for (size_t k = 0; k < rs->nm; k++)
		n += find_event(&rs->r[k].ids, ev) >= 0;
	return n;
}

int pmt_metric_set_perf_display(const struct pmt_metric_set *ms, const char *const *sel,
				size_t nsel, bool thresholds, const char *const *evnames,
				size_t nev, const struct pmt_metric **metric, int *ev)
{
	struct roots rs;
	int rc = roots_build(ms, sel, nsel, thresholds, NULL, 0, &rs);

	if (rc < 0)
		return rc;
	/* setup_metric_events() matches the events in list order, a name once;
	 * pick_display_evsel() keeps the first of those the fewest metrics read */
	for (size_t k = 0; k < rs.nm; k++) {
		size_t best = 0;

		ev[k] = -1;
		metric[k] = rs.r[k].m;
		for (size_t e = 0; e < nev; e++) {
			bool dup = false;
			size_t u;

			for (size_t j = 0; j < e; j++)
				dup |= !strcmp(evnames[j], evnames[e]);
			if (dup || find_event(&rs.r[k].ids, evnames[e]) < 0)
				continue;
			u = uses(&rs, evnames[e]);
			if (ev[k] < 0 || u < best) {
				ev[k] = (int)e;
				best = u;
			}
		}
	}
	rc = (int)rs.nm;
	roots_fini(&rs);
	return rc;
}

void pmt_perf_events_free(char **ids)
{
	for (size_t i = 0; ids && ids[i]; i++)
		free(ids[i]);
	free(ids);
}
