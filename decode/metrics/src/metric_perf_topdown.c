/* The columns of perf 7.3's stat --topdown for a table's TopdownLN group, in its order.
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

int pmt_metric_set_perf_topdown(const struct pmt_metric_set *ms, const char *group,
				const struct pmt_expr_ctx *ctx, bool nmi_watchdog,
				const struct pmt_metric **metric)
{
	struct roots rs;
	struct phm combined = { 0 };
	struct evl comb = { 0 }, *own = NULL;
	int *list = NULL, *lead = NULL, out = 0;
	bool used[sizeof(tools) / sizeof(tools[0])] = { false };
	int rc = roots_build(ms, &group, 1, false, ctx,
			     PO_MANY_GROUPS | (nmi_watchdog ? PO_NMI_WATCHDOG : 0), &rs);

	if (rc < 0)
		return rc;
	own = calloc(rs.nm + 1, sizeof(*own));
	list = calloc(rs.nm + 1, sizeof(*list));
	lead = calloc(rs.nm + 1, sizeof(*lead));
	if (!own || !list || !lead) {
		rc = -PMT_ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < rs.nm; k++)
		for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
			used[i] |= phm_find(&rs.r[k].ids, tools[i]) >= 0;
	/* build_combined_expr_ctx(): the ungrouped metrics' IDs, in metric-list order */
	for (size_t k = 0; k < rs.nm && rc >= 0; k++) {
		size_t w = rs.r[k].grouped ? 0 : phm_walk(&rs.r[k].ids, rs.walk);

		for (size_t i = 0; i < w && rc >= 0; i++)
			rc = phm_add(&combined, rs.walk[i]);
	}
	if (rc >= 0 && combined.sz)
		rc = add_tools(&combined, used);
	if (rc >= 0 && combined.sz)
		rc = evl_make(&comb, &combined, rs.walk);
	for (size_t k = 0; k < rs.nm && rc >= 0; k++) {
		const struct root *r = &rs.r[k];

		list[k] = r->grouped || !comb.n ? (int)k : -1;
		for (size_t n = 0; list[k] >= 0 && n < k; n++)
			if (own[n].ev && same_pmu(r->pmu, rs.r[n].pmu) &&
			    subset(&r->ids, &rs.r[n].ids, rs.walk)) {
				list[k] = (int)n;
				break;
			}
		if (list[k] == (int)k)
			rc = add_tools(&rs.r[k].ids, used);
		if (list[k] == (int)k && rc >= 0)
			rc = evl_make(&own[k], &r->ids, rs.walk);
		if (rc >= 0)
			lead[k] = pick_display(&rs, r, list[k] < 0 ? &comb : &own[list[k]]);
	}
	if (rc < 0)
		goto out;
	/* the event list walked as perf's metric-only output walks it */
	for (int li = -1; li < (int)rs.nm; li++) {
		const struct evl *l = li < 0 ? &comb : &own[li];

		for (size_t i = 0; i < l->n; i++)
			for (size_t k = 0; k < rs.nm; k++)
				if (list[k] == li && lead[k] == (int)i)
					metric[out++] = rs.r[k].m;
	}
	rc = out;
out:
	for (size_t k = 0; own && k < rs.nm; k++)
		free(own[k].ev);
	free(own);
	free(comb.ev);
	free(list);
	free(lead);
	phm_fini(&combined);
	roots_fini(&rs);
	return rc;
}
