/* The columns of perf 7.3's stat --topdown for a table's TopdownLN group, in its order,
 * and the event lists of stat -M with several grouped metrics, from the same lists.
 *
 * perf prints a metric-only column where it would print the metric's `#` value: after the
 * event its pick_display_evsel() chose, the one of the metric's events the fewest metrics
 * of the list read (the first such, a tool event only when nothing else), walking the
 * event list (the ungrouped metrics' combined list first, then each grouped metric's own
 * list in metric-list order) and, on one event, its metrics in metric-list order. A grouped
 * metric whose IDs are all in an earlier grouped metric's reads that metric's list
 * (parse_groups(): "Events in 'a' fully contained within 'b'"). Found by experiment on
 * perf 7.3's output: two metrics of one event swap with their order in the -M list. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"
#include "perf_order_priv.h"

/* an event list as perf's evlist keeps it: x86's sort puts slots first, then the topdown-*
 * events, the rest in parse (map walk) order, the tool events after the group */
struct evl {
	const char **ev;
	size_t n;
};

static int event_class(const char *id)
{
	const char *at = strchr(id, '@');
	const char *name = at ? at + 1 : id;

	if (tool_event(id))
		return 3;
	if (!strncasecmp(name, "TOPDOWN.SLOTS", 13) || !strncmp(name, "slots", 5))
		return 0;
	return strncmp(name, "topdown-", 8) ? 2 : 1;
}

static int evl_make(struct evl *l, const struct phm *ids, const char **walk)
{
	size_t n = phm_walk(ids, walk);

	l->ev = calloc(n + 1, sizeof(*l->ev));
	if (!l->ev)
		return -PMT_ENOMEM;
	for (int cls = 0; cls < 4; cls++)
		for (size_t i = 0; i < n; i++)
			if (event_class(walk[i]) == cls)
				l->ev[l->n++] = walk[i];
	return 0;
}

/* parse_ids(): a tool event any metric of the list reads is added to every list parsed
 * (find_tool_events()), into the metric's own IDs, before its map is walked */
static const char *const tools[] = { "duration_time", "user_time", "system_time" };

static int add_tools(struct phm *ids, const bool *used)
{
	int rc = 0;

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]) && rc >= 0; i++)
		if (used[i])
			rc = phm_add(ids, tools[i]);
	return rc;
}

/* expr__subset_of_ids(): every ID of needles in haystack */
static bool subset(const struct phm *needles, const struct phm *haystack, const char **walk)
{
	size_t n = phm_walk(needles, walk);

	for (size_t i = 0; i < n; i++)
		if (phm_find(haystack, walk[i]) < 0)
			return false;
	return true;
}

static bool same_pmu(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

/* pick_display_evsel() over the list's events the metric reads */
static int pick_display(const struct roots *rs, const struct root *r, const struct evl *l)
{
	int sel = -1;
	size_t sel_uses = 0;
	bool sel_tool = false;

	for (size_t i = 0; i < l->n; i++) {
		size_t u;
		bool tool;

		if (find_event(&r->ids, l->ev[i]) < 0)
			continue;
		u = uses(rs, l->ev[i]);
		tool = tool_event(l->ev[i]);
		if (sel < 0 || (sel_tool && !tool) || u < sel_uses) {
			sel = (int)i;
			sel_uses = u;
			sel_tool = tool;
		}
	}
	return sel;
}

/* parse_groups()' event lists for a selection: the ungrouped metrics' combined list, a
 * grouped metric's own list (or an earlier one holding all its IDs), and the event of its
 * list each metric is shown on */
struct lists {
	struct roots rs;
	struct phm combined;
	struct evl comb, *own;
	int *list;   /* [k]: the list metric k reads: -1 the combined, else a metric's own */
	int *lead;   /* [k]: its display event's index in that list */
};

static void lists_fini(struct lists *ls)
{
	for (size_t k = 0; ls->own && k < ls->rs.nm; k++)
		free(ls->own[k].ev);
	free(ls->own);
	free(ls->comb.ev);
	free(ls->list);
	free(ls->lead);
	phm_fini(&ls->combined);
	roots_fini(&ls->rs);
}

static int lists_build(struct lists *ls, const struct pmt_metric_set *ms, const char *const *sel,
		       size_t nsel, bool thresholds, const struct pmt_expr_ctx *ctx,
		       unsigned flags)
{
	struct roots *rs = &ls->rs;
	bool used[sizeof(tools) / sizeof(tools[0])] = { false };
	int rc;

	memset(ls, 0, sizeof(*ls));
	rc = roots_build(ms, sel, nsel, thresholds, ctx, flags | PO_MANY_GROUPS, rs);
	if (rc < 0)
		return rc;
	ls->own = calloc(rs->nm + 1, sizeof(*ls->own));
	ls->list = calloc(rs->nm + 1, sizeof(*ls->list));
	ls->lead = calloc(rs->nm + 1, sizeof(*ls->lead));
	if (!ls->own || !ls->list || !ls->lead)
		return -PMT_ENOMEM;
	for (size_t k = 0; k < rs->nm; k++)
		for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
			used[i] |= phm_find(&rs->r[k].ids, tools[i]) >= 0;
	/* build_combined_expr_ctx(): the ungrouped metrics' IDs, in metric-list order */
	for (size_t k = 0; k < rs->nm && rc >= 0; k++) {
		size_t w = rs->r[k].grouped ? 0 : phm_walk(&rs->r[k].ids, rs->walk);

		for (size_t i = 0; i < w && rc >= 0; i++)
			rc = phm_add(&ls->combined, rs->walk[i]);
	}
	if (rc >= 0 && ls->combined.sz)
		rc = add_tools(&ls->combined, used);
	if (rc >= 0 && ls->combined.sz)
		rc = evl_make(&ls->comb, &ls->combined, rs->walk);
	for (size_t k = 0; k < rs->nm && rc >= 0; k++) {
		const struct root *r = &rs->r[k];
		int *list = ls->list;

		list[k] = r->grouped || !ls->comb.n ? (int)k : -1;
		for (size_t n = 0; list[k] >= 0 && n < k; n++)
			if (ls->own[n].ev && same_pmu(r->pmu, rs->r[n].pmu) &&
			    subset(&r->ids, &rs->r[n].ids, rs->walk)) {
				list[k] = (int)n;
				break;
			}
		if (list[k] == (int)k)
			rc = add_tools(&rs->r[k].ids, used);
		if (list[k] == (int)k && rc >= 0)
			rc = evl_make(&ls->own[k], &r->ids, rs->walk);
		if (rc >= 0)
			ls->lead[k] = pick_display(rs, r, list[k] < 0 ? &ls->comb : &ls->own[list[k]]);
	}
	return rc;
}

int pmt_metric_set_perf_topdown(const struct pmt_metric_set *ms, const char *group,
				const struct pmt_expr_ctx *ctx, bool nmi_watchdog,
				const struct pmt_metric **metric)
{
	struct lists ls;
	int out = 0, rc = lists_build(&ls, ms, &group, 1, false, ctx,
				      nmi_watchdog ? PO_NMI_WATCHDOG : 0);

	/* the event list walked as perf's metric-only output walks it */
	for (int li = -1; rc >= 0 && li < (int)ls.rs.nm; li++) {
		const struct evl *l = li < 0 ? &ls.comb : &ls.own[li];

		for (size_t i = 0; i < l->n; i++)
			for (size_t k = 0; k < ls.rs.nm; k++)
				if (ls.list[k] == li && ls.lead[k] == (int)i)
					metric[out++] = ls.rs.r[k].m;
	}
	lists_fini(&ls);
	return rc < 0 ? rc : out;
}

void pmt_perf_lists_fini(struct pmt_perf_lists *pl)
{
	pmt_perf_events_free(pl->id);
	free(pl->list);
	free(pl->metric);
	free(pl->show);
	memset(pl, 0, sizeof(*pl));
}

int pmt_metric_set_perf_lists(const struct pmt_metric_set *ms, const char *const *sel,
			      size_t nsel, bool thresholds, struct pmt_perf_lists *pl)
{
	struct lists ls;
	size_t n = 0, nl = 0;
	int rc = lists_build(&ls, ms, sel, nsel, thresholds, NULL, 0);
	int *first = NULL; /* [li + 1]: the list's first event in id[] */

	memset(pl, 0, sizeof(*pl));
	for (size_t k = 0; rc >= 0 && k < ls.rs.nm; k++)
		n += ls.own[k].n;
	if (rc >= 0) {
		n += ls.comb.n;
		pl->id = calloc(n + 1, sizeof(*pl->id));
		pl->list = calloc(n + 1, sizeof(*pl->list));
		pl->metric = calloc(ls.rs.nm + 1, sizeof(*pl->metric));
		pl->show = calloc(ls.rs.nm + 1, sizeof(*pl->show));
		first = calloc(ls.rs.nm + 3, sizeof(*first));
		if (!pl->id || !pl->list || !pl->metric || !pl->show || !first)
			rc = -PMT_ENOMEM;
	}
	/* the combined list (list 0) first, then each own list, as perf splices them, each in
	 * its map's walk order (the event parser sorts a group as perf's parse_events() does);
	 * the tool events left out (perf's parse adds them after the groups) */
	for (int li = -1; rc >= 0 && li < (int)ls.rs.nm; li++) {
		const struct evl *l = li < 0 ? &ls.comb : &ls.own[li];
		size_t w = !l->n ? 0 : phm_walk(li < 0 ? &ls.combined : &ls.rs.r[li].ids,
						ls.rs.walk);

		first[li + 1] = (int)pl->nr_id;
		nl += l->n && li >= 0;
		for (size_t i = 0; i < w && rc >= 0; i++) {
			if (tool_event(ls.rs.walk[i]))
				continue;
			pl->list[pl->nr_id] = li < 0 ? 0 : (int)nl;
			pl->id[pl->nr_id] = strdup(ls.rs.walk[i]);
			if (!pl->id[pl->nr_id++])
				rc = -PMT_ENOMEM;
		}
	}
	if (rc >= 0)
		first[ls.rs.nm + 1] = (int)pl->nr_id;
	for (size_t k = 0; rc >= 0 && k < ls.rs.nm; k++) {
		const struct evl *l = ls.list[k] < 0 ? &ls.comb : &ls.own[ls.list[k]];
		int at = first[ls.list[k] + 1], end = first[ls.list[k] + 2];

		pl->metric[k] = ls.rs.r[k].m;
		pl->show[k] = -1;
		/* its display event's place in id[] (a tool event has none) */
		for (int i = at; ls.lead[k] >= 0 && i < end; i++)
			if (!strcmp(pl->id[i], l->ev[ls.lead[k]]))
				pl->show[k] = i;
	}
	pl->nm = rc >= 0 ? ls.rs.nm : 0;
	free(first);
	lists_fini(&ls);
	if (rc < 0)
		pmt_perf_lists_fini(pl);
	return rc < 0 ? rc : (int)pl->nm;
}
