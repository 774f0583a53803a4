/* perf's parse_events__sort_events_and_fix_groups with x86's arch_evlist__cmp: the order
 * and the groups of one -e string's events after hybrid events were made per PMU */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "events_priv.h"

struct key {
	uint32_t idx;      /* position as parsed */
	uint32_t gkey;     /* the group's position: its leader's, or the forced group's */
	bool grouped;
	const char *pmu;   /* group_pmu_name */
};

bool pmt_evsel_is_slots(const struct pmt_evsel *e)
{
	return e->topdown && strcasestr(e->name, "slots") && !strcasestr(e->name, "uops_retired");
}

static int cmp(const struct pmt_evsel *ev, const struct key *a, const struct key *b)
{
	const struct pmt_evsel *ea = &ev[a->idx], *eb = &ev[b->idx];
	int r;

	if (a->gkey != b->gkey)
		return a->gkey < b->gkey ? -1 : 1;
	/* groups do not span PMUs */
	if (a->grouped && b->grouped && (r = strcmp(a->pmu, b->pmu)))
		return r;
	/* perf 7.3 puts a group's retire-latency (:R) events after the others, so a :R
	 * event does not lead its group */
	if (a->grouped && b->grouped && ea->retire_lat != eb->retire_lat)
		return ea->retire_lat ? 1 : -1;
	/* the topdown metrics need slots as their leader */
	if (ea->topdown || eb->topdown) {
		if (pmt_evsel_is_slots(ea) != pmt_evsel_is_slots(eb))
			return pmt_evsel_is_slots(ea) ? -1 : 1;
	}
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* perf_pmu__is_software(): the software type, and the PMUs it knows to be software by
 * name (msr's tsc joins a metric's group of core events, as in perf 7.3's TopdownL4), the
 * tool PMU's duration_time too */
static bool is_software(const struct pmt_evsel *e)
{
	if (!e->pmu)
		return e->attr.type == PMT_TYPE_SOFTWARE || pmt_evsel_tool(e);
	return !e->pmu->core && (!strcmp(e->pmu->name, "msr") || !strcmp(e->pmu->name, "kprobe") ||
				 !strcmp(e->pmu->name, "uprobe"));
}

static const char *pmu_name(const struct pmt_evsel *e)
{
	if (e->pmu)
		return e->pmu->name;
	if (pmt_evsel_tool(e))
		return "tool";
	return is_software(e) ? "software" : "cpu";
}

/* perf's evsel__group_pmu_name: a software event goes with the first event of its group
 * (from the leader on) that is not software, so it stays in the group */
static const char *group_pmu_name(const struct pmt_evlist *l, const struct pmt_evsel *e)
{
	const struct pmt_evsel *leader = &l->ev[e->leader];

	if (is_software(e))
		for (uint32_t m = 0; m < leader->nr_members; m++)
			if (!is_software(leader + m))
				return pmu_name(leader + m);
	return pmu_name(e);
}

/* perf stat's evlist__check_cpu_maps(): a tool event counts on one CPU, not on its
 * leader's, so it leaves the group (moved after the group's other events), and the group
 * is named in l->cpus_warning as perf names it ("  anon group { slots, duration_time }") */
static void ungroup_tools(struct pmt_evlist *l, uint32_t first)
{
	for (uint32_t g = first; g < l->nr; g += l->ev[g].nr_members) {
		struct pmt_evsel *ev = &l->ev[g], t;
		uint32_t n = ev->nr_members, tools = 0, k;
		size_t len = strlen(l->cpus_warning);

		for (k = 0; k < n; k++)
			tools += pmt_evsel_tool(&ev[k]);
		if (n < 2 || !tools)
			continue;
		len += (size_t)snprintf(l->cpus_warning + len, sizeof(l->cpus_warning) - len,
					"  anon group {");
		for (k = 0; k < n && len < sizeof(l->cpus_warning); k++)
			len += (size_t)snprintf(l->cpus_warning + len,
						sizeof(l->cpus_warning) - len, "%s %s",
						k ? "," : "", ev[k].name);
		if (len < sizeof(l->cpus_warning))
			snprintf(l->cpus_warning + len, sizeof(l->cpus_warning) - len, " }\n");
		/* stable: the others keep their order, the tools go last, each on its own */
		for (uint32_t done = 0; done < tools; done++) {
			for (k = 0; k + done < n && !pmt_evsel_tool(&ev[k]); k++)
				;
			t = ev[k];
			memmove(&ev[k], &ev[k + 1], (n - k - 1) * sizeof(*ev));
			ev[n - 1] = t;
		}
		for (k = 0; k < n; k++) {
			ev[k].leader = k < n - tools ? g : g + k;
			ev[k].nr_members = k < n - tools ? 1 : 1;
		}
		ev[0].nr_members = n - tools;
		if (n - tools == 0)
			ev[0].nr_members = 1;
	}
}

int pmt_events_fix_groups(struct pmt_evlist *l, uint32_t first, const struct pmt_pmus *pmus,
			  struct pmt_diag *diag)
{
	uint32_t n = l->nr - first, force = UINT32_MAX;
	struct pmt_evsel *ev = l->ev + first, *sorted;
	struct key *k;
	bool regrouped = false;
	uint32_t leaders_before = 0, leaders_after = 0;

	(void)pmus;
	(void)diag;
	if (n < 2)
		return 0;
	k = calloc(n, sizeof(*k));
	sorted = malloc(n * sizeof(*sorted));
	if (!k || !sorted) {
		free(k);
		free(sorted);
		return -PMT_ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct pmt_evsel *leader = &l->ev[ev[i].leader];

		k[i].idx = i;
		k[i].gkey = ev[i].leader - first;
		k[i].grouped = leader->nr_members > 1;
		k[i].pmu = group_pmu_name(l, &ev[i]);
		leaders_before += ev[i].leader == first + i;
		if (ev[i].topdown && !k[i].grouped && force == UINT32_MAX)
			force = i;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (ev[i].topdown && !k[i].grouped) {
			k[i].gkey = force;
			k[i].grouped = true;
		}
	}
	/* insertion sort: stable and the lists are short */
	for (uint32_t i = 1; i < n; i++) {
		struct key t = k[i];
		uint32_t j = i;

		while (j && cmp(ev, &t, &k[j - 1]) < 0) {
			k[j] = k[j - 1];
			j--;
		}
		k[j] = t;
	}
	for (uint32_t i = 0, start = 0; i < n; i++) {
		bool same = i && k[i].grouped && k[i - 1].grouped && k[i].gkey == k[i - 1].gkey &&
			    !strcmp(k[i].pmu, k[i - 1].pmu);

		sorted[i] = ev[k[i].idx];
		/* perf warns when an event moved or the groups changed in number (a group
		 * split, topdown events grouped with slots): its idx_changed, num_leaders */
		regrouped |= k[i].idx != i;
		if (!same) {
			leaders_after++;
			start = i;
		}
		sorted[i].leader = first + start;
		sorted[i].nr_members = 1;
		sorted[start].nr_members = i - start + 1;
	}
	memcpy(ev, sorted, n * sizeof(*sorted));
	free(sorted);
	free(k);
	ungroup_tools(l, first);
	l->regrouped |= regrouped || leaders_before != leaders_after;
	return 0;
}
