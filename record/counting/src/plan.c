/* What perf 7.3's `perf stat` opens for a command line: create_perf_stat_counter() in
 * builtin-stat.c, checked against `perf stat -vv` (tests/oracles/stat_attrs.sh). */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/counting.h"
#include "on_cpu.h"

double pmt_count_scale(const struct pmt_evsel *e, const char **unit)
{
	/* perf's software clocks count nanoseconds and print milliseconds (perf_event__sw
	 * "msec" alias scale 1e-6) */
	bool clock = e->attr.type == PMT_TYPE_SOFTWARE &&
		     (e->attr.config == PMT_SW_CPU_CLOCK || e->attr.config == PMT_SW_TASK_CLOCK);

	if (unit)
		*unit = clock ? "msec" : "";
	return clock ? 1e-6 : 1.0;
}

static int cpus_of(struct pmt_count_plan *p, const struct pmt_pmus *pmus,
		   const struct pmt_count_opts *o, struct pmt_diag *diag)
{
	struct pmt_cpumask m;
	unsigned n;

	if (o->target == PMT_COUNT_SYSTEM)
		m = pmus->online;
	else
		m = o->cpus;
	n = pmt_cpumask_count(&m);
	if (!n)
		return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
				    o->target == PMT_COUNT_SYSTEM
					    ? "no online CPUs in %s/devices/system/cpu/online"
					    : "-C: no CPU given%s", pmus->root);
	p->cpu = calloc(n, sizeof(*p->cpu));
	if (!p->cpu)
		return -PMT_ENOMEM;
	for (int c = pmt_cpumask_next(&m, 0); c >= 0; c = pmt_cpumask_next(&m, (unsigned)c + 1)) {
		if (o->target == PMT_COUNT_CPUS && !pmt_cpumask_has(&pmus->online, (unsigned)c)) {
			free(p->cpu);
			p->cpu = NULL;
			return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
					    "-C: CPU %d is not online (online CPUs in "
					    "%s/devices/system/cpu/online)", c, pmus->root);
		}
		p->cpu[p->nr_cpus++] = c;
	}
	return 0;
}

/* An :R event is read from its table, not the kernel (perf 7.3 opens nothing for it): out
 * of its group, so that the group's read covers the counters the kernel has; a leader's
 * group goes on under its next member. */
static void ungroup_retlat(struct pmt_evlist *l)
{
	for (uint32_t i = 0; i < l->nr; i++) {
		struct pmt_evsel *e = &l->ev[i];
		uint32_t lead = e->leader < l->nr ? e->leader : i, next = i;

		if (!e->retire_lat)
			continue;
		if (lead != i) {
			l->ev[lead].nr_members--;
		} else if (e->nr_members > 1) {
			while (++next < l->nr && l->ev[next].leader != i)
				;
			for (uint32_t k = next; k < l->nr; k++)
				if (l->ev[k].leader == i)
					l->ev[k].leader = next;
			if (next < l->nr) {
				l->ev[next].nr_members = e->nr_members - 1;
				l->ev[next].weak_group = e->weak_group;
			}
		}
		e->leader = i;
		e->nr_members = 1;
		e->weak_group = false;
	}
}

int pmt_count_plan_build(struct pmt_count_plan *p, struct pmt_evlist *events,
			 const struct pmt_pmus *pmus, const struct pmt_count_opts *o,
			 struct pmt_diag *diag)
{
	int rc;

	memset(p, 0, sizeof(*p));
	if (!o || o->sz < sizeof(*o) || !events || !pmus)
		return -PMT_EINVAL;
	if (!events->nr)
		return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET, "no events");
	p->per_cpu = o->target == PMT_COUNT_SYSTEM || o->target == PMT_COUNT_CPUS;
	p->hybrid = pmt_pmus_nr_core(pmus) > 1;
	/* threads listed before their counters open may end in between (perf stat's
	 * ignore_missing_thread for -p and --per-thread -a); a -t TID is named, so it must be */
	p->skip_gone_threads = o->target == PMT_COUNT_PID || o->target == PMT_COUNT_ALL_THREADS;
	if (p->per_cpu) {
		rc = cpus_of(p, pmus, o, diag);
		if (rc < 0)
			return rc;
	} else {
		p->cpu = calloc(1, sizeof(*p->cpu));
		if (!p->cpu)
			return -PMT_ENOMEM;
		p->cpu[0] = -1;
		p->nr_cpus = 1;
	}
	p->ev = *events;
	memset(events, 0, sizeof(*events));
	ungroup_retlat(&p->ev);
	p->scale = calloc(p->ev.nr, sizeof(*p->scale));
	p->unit = calloc(p->ev.nr, sizeof(*p->unit));
	p->retlat = calloc(p->ev.nr, sizeof(*p->retlat));
	if (!p->scale || !p->unit || !p->retlat) {
		pmt_count_plan_fini(p);
		return -PMT_ENOMEM;
	}
	for (uint32_t i = 0; i < p->ev.nr; i++) {
		struct pmt_evsel *e = &p->ev.ev[i];
		const struct pmt_evsel *leader = &p->ev.ev[e->leader < p->ev.nr ? e->leader : i];
		bool is_leader = e->leader == i || e->leader >= p->ev.nr;

		p->scale[i] = pmt_count_scale(e, &p->unit[i]);
		e->attr.read_format = PMT_READ_TOTAL_ENABLED | PMT_READ_TOTAL_RUNNING;
		if (leader->nr_members > 1)
			e->attr.read_format |= PMT_READ_ID | PMT_READ_GROUP;
		/* counting, not sampling: perf clears what the parser set for record */
		e->attr.sample_period = 0;
		e->attr.sample_type = o->record_pipe ? 0 : PMT_SAMPLE_IDENTIFIER;
		e->attr.flags &= ~(PMT_ATTR_FLAG_FREQ | PMT_ATTR_FLAG_DISABLED |
				   PMT_ATTR_FLAG_ENABLE_ON_EXEC | PMT_ATTR_FLAG_INHERIT);
		if (!o->no_inherit)
			e->attr.flags |= PMT_ATTR_FLAG_INHERIT;
		if (is_leader) {
			e->attr.flags |= PMT_ATTR_FLAG_DISABLED;
			if (o->target == PMT_COUNT_WORKLOAD)
				e->attr.flags |= PMT_ATTR_FLAG_ENABLE_ON_EXEC;
		}
	}
	return 0;
}

void pmt_count_plan_fini(struct pmt_count_plan *p)
{
	pmt_evlist_fini(&p->ev);
	free(p->cpu);
	free(p->scale);
	free(p->unit);
	free(p->retlat);
	memset(p, 0, sizeof(*p));
}

void pmt_count_plan_print(FILE *fp, const struct pmt_count_plan *p, const int32_t *threads,
			  uint32_t nr_threads)
{
	static const char dashes[] =
		"------------------------------------------------------------\n";
	static const int32_t no_thread = -1;

	/* per CPU the kernel is given pid -1 whatever the target */
	if (p->per_cpu || !threads || !nr_threads) {
		threads = &no_thread;
		nr_threads = 1;
	}
	/* perf 7.3 opens CPU by CPU, every event on each (evlist__for_each_cpu), and prints
	 * the attr once before it opens that event on every thread of its map */
	for (uint32_t c = 0; c < p->nr_cpus; c++) {
		for (uint32_t i = 0; i < p->ev.nr; i++) {
			const struct pmt_evsel *e = &p->ev.ev[i];

			/* perf -vv prints no attr for an :R event: it opens none */
			if (!pmt_count_on_cpu(p, e, c) || e->retire_lat)
				continue;
			fputs(dashes, fp);
			fputs("perf_event_attr:\n", fp);
			pmt_perf_attr_print(fp, &e->attr, e->pmu ? e->pmu->name : NULL);
			fputs(dashes, fp);
			for (uint32_t t = 0; t < nr_threads && !pmt_evsel_tool(e); t++)
				fprintf(fp, "sys_perf_event_open: pid %d  cpu %d  group_fd %s  "
					"flags 0x8\n", (int)threads[t], p->cpu[c],
					e->leader == i || e->leader >= p->ev.nr ? "-1" : "LEADER");
		}
	}
}

const char *pmt_count_display_name(const struct pmt_count_plan *p, uint32_t e, char *buf,
				   size_t cap)
{
	const struct pmt_evsel *ev = &p->ev.ev[e];
	const char *pmu = ev->pmu ? ev->pmu->name : NULL, *name = ev->name, *cut;
	size_t pl = pmu ? strlen(pmu) : 0;

	if (!p->hybrid || !pmu || !ev->pmu->core || ev->named || !strncmp(name, pmu, pl))
		return name;
	/* event// -> pmu/event/, event/terms/ -> pmu/event,terms/, event:mods ->
	 * pmu/event/mods, event -> pmu/event/ */
	if ((cut = strchr(name, '/')))
		snprintf(buf, cap, cut[1] == '/' ? "%s/%.*s/%s" : "%s/%.*s,%s", pmu,
			 (int)(cut - name), name, cut + (cut[1] == '/' ? 2 : 1));
	else if ((cut = strchr(name, ':')))
		snprintf(buf, cap, "%s/%.*s/%s", pmu, (int)(cut - name), name, cut + 1);
	else
		snprintf(buf, cap, "%s/%s/", pmu, name);
	return buf;
}
