/* stat --topdown's columns and values (stat_topdown.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/cli_util.h"
#include "pmutrace/metrics.h"
#include "stat_topdown.h"

/* The kernel names the part in the cpu_atom PMU's caps/pmu_name (perf chooses its table by
 * CPUID; the name is what a recording's sysfs and a fake tree carry) */
static const struct pmt_topdown_hybrid *hybrid_layout(const struct pmt_pmus *pmus,
						      unsigned level)
{
	const struct pmt_pmu *atom = pmus ? pmt_pmus_find(pmus, "cpu_atom") : NULL;

	for (uint32_t i = 0; atom && i < atom->nr_caps; i++)
		if (!strcmp(atom->caps[i].name, "pmu_name"))
			return pmt_topdown_hybrid(atom->caps[i].value, level);
	return NULL;
}

/* the level against the deepest there is, in perf's words (an exit status, else 0) */
static int check_level(struct stat_topdown *td, unsigned max, const char *where)
{
	if (!max)
		return pmt_cli_fail("stat", "Topdown requested but the topdown metric groups "
				    "aren't present.\n(See perf list the metric groups have names "
				    "like TopdownL1) (in %s)", where);
	if (!td->level)
		td->level = 1;
	if (td->level > max)
		return pmt_cli_usage_fail("stat", "Invalid top-down metrics level. The max level "
					  "is %u.", max);
	return 0;
}

static int set_heads(struct stat_topdown *td)
{
	for (int k = 0; k < td->cols; k++) {
		const char *n = td->name[k];
		char *h = malloc(strlen(n) + 4);

		if (!h) {
			td->cols = k;
			return PMT_EXIT_ERROR;
		}
		sprintf(h, "%%  %s", n);
		td->head[k] = h;
	}
	return 0;
}

/* perf's sysctl__nmi_watchdog_enabled(): an unreadable file is no watchdog */
static bool nmi_watchdog(void)
{
	FILE *f = fopen("/proc/sys/kernel/nmi_watchdog", "r");
	int v = 0;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v > 0;
}

int stat_td_table_columns(struct stat_topdown *td, unsigned max, const char *where,
			  const struct pmt_metric_set *ms, const struct pmt_expr_ctx *ctx)
{
	const struct pmt_metric **m;
	char group[16];
	int rc = check_level(td, max, where), n;

	if (rc)
		return rc;
	m = calloc(ms->nr + 1, sizeof(*m));
	if (!m)
		return PMT_EXIT_ERROR;
	snprintf(group, sizeof(group), "TopdownL%u", td->level);
	n = pmt_metric_set_perf_topdown(ms, group, ctx, nmi_watchdog(), m);
	if (n < 0 || n > STAT_TD_MAX_COLS) {
		free(m);
		return pmt_cli_fail("stat", "Unsupported top-down metrics level %u: perf 7.3's "
				    "columns of %s's %s are not reproduced (%s).", td->level, where,
				    group, n < 0 ? pmt_errstr(n) : "too many metrics");
	}
	td->cols = n;
	for (int k = 0; k < n; k++) {
		td->name[k] = m[k]->name;
		td->metric[k] = m[k];
		/* a hybrid table's copy of a metric for cpu_atom (its Unit) */
		td->atom[k] = m[k]->pmu && !strcmp(m[k]->pmu, "cpu_atom");
		td->table_hybrid |= td->atom[k];
	}
	free(m);
	return set_heads(td);
}

int stat_td_columns(struct stat_topdown *td, unsigned max, const char *where,
		    const struct pmt_pmus *atom_pmus)
{
	const char *const *core;
	int ncore, rc = check_level(td, max, where);

	if (rc)
		return rc;
	ncore = pmt_topdown_columns(td->level, &core);
	if (ncore < 0)
		return pmt_cli_fail("stat", "Unsupported top-down metrics level %u (%s has %u).",
				    td->level, where, max);
	td->hyb = hybrid_layout(atom_pmus, td->level);
	td->cols = td->hyb ? (int)td->hyb->nr_cols : ncore;
	for (unsigned i = 0; td->hyb && i < td->hyb->nr_events; i++) {
		size_t n = strlen(td->atom_events);
		uint64_t c = td->hyb->event[i].config;

		snprintf(td->atom_events + n, sizeof(td->atom_events) - n,
			 "%scpu_atom/event=%#x,umask=%#x/", n ? "," : "", (unsigned)(c & 0xff),
			 (unsigned)(c >> 8 & 0xff));
	}
	if (td->hyb && td->hyb->core_uop_dropping)
		snprintf(td->core_events, sizeof(td->core_events), "cpu_core/event=%#x,umask=%#x/",
			 (unsigned)(td->hyb->core_uop_dropping & 0xff),
			 (unsigned)(td->hyb->core_uop_dropping >> 8 & 0xff));
	for (int k = 0; k < td->cols; k++) {
		td->name[k] = td->hyb ? td->hyb->col[k].name : core[k];
		td->atom[k] = td->hyb && td->hyb->col[k].atom;
	}
	return set_heads(td);
}

/* does the plan open any of its events on a CPU of that PMU (per thread: every PMU) */
static bool pmu_counted(const struct pmt_pmus *pmus, const char *name,
			const struct pmt_count_plan *plan)
{
	const struct pmt_pmu *pmu = pmt_pmus_find(pmus, name);

	if (!pmu || !pmu->has_cpus || !plan->per_cpu)
		return true;
	for (uint32_t i = 0; i < plan->nr_cpus; i++)
		if (plan->cpu[i] >= 0 && pmt_cpumask_has(&pmu->cpus, (unsigned)plan->cpu[i]))
			return true;
	return false;
}

/* --cputype names the PMU as perf does (core, atom) or in full */
static bool cputype_is(const char *cputype, const char *pmu)
{
	return !cputype || !strcmp(cputype, pmu) || !strcmp(cputype, pmu + 4);
}

bool stat_td_has_pmu(const struct stat_topdown *td, const char *cputype)
{
	return !td->hyb || cputype_is(cputype, "cpu_core") || cputype_is(cputype, "cpu_atom");
}

bool stat_td_counts_core(const struct stat_topdown *td, const char *cputype)
{
	return !td->hyb || cputype_is(cputype, "cpu_core");
}

void stat_td_drop_uncounted(struct stat_topdown *td, const struct pmt_count_plan *plan,
			    const struct pmt_pmus *pmus, const char *cputype)
{
	bool keep[2];
	int n = 0;

	if (!td->hyb && !td->table_hybrid)
		return;
	keep[0] = cputype_is(cputype, "cpu_core") && pmu_counted(pmus, "cpu_core", plan);
	keep[1] = cputype_is(cputype, "cpu_atom") && pmu_counted(pmus, "cpu_atom", plan);
	for (int k = 0; k < td->cols; k++) {
		if (!keep[td->atom[k]]) {
			free((char *)td->head[k]);
			continue;
		}
		td->name[n] = td->name[k];
		td->metric[n] = td->metric[k];
		td->head[n] = td->head[k];
		td->atom[n++] = td->atom[k];
	}
	td->cols = n;
}

const char *stat_td_atom_events(const struct stat_topdown *td, const char *cputype)
{
	return td->atom_events[0] && cputype_is(cputype, "cpu_atom") ? td->atom_events : NULL;
}

const char *stat_td_core_events(const struct stat_topdown *td, const char *cputype)
{
	return td->core_events[0] && cputype_is(cputype, "cpu_core") ? td->core_events : NULL;
}

const char *stat_td_core_group(const struct stat_topdown *td)
{
	/* perf 7.3 parses a hybrid part's level 2 from its built-in table, in the order its
	 * metric list gives (the same on Alder, Meteor, Lunar and Arrow Lake: -vv's opens),
	 * and opens the group in that order; elsewhere without a table, PERF_METRICS' byte
	 * order */
	if (td->level == 2 && td->hyb)
		return "topdown-retiring,topdown-mem-bound,topdown-bad-spec,topdown-heavy-ops,"
		       "topdown-fetch-lat,topdown-br-mispredict,topdown-fe-bound,"
		       "topdown-be-bound";
	if (td->level == 2)
		return "topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound,"
		       "topdown-heavy-ops,topdown-br-mispredict,topdown-fetch-lat,"
		       "topdown-mem-bound";
	return "topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound";
}

int stat_td_alloc(struct stat_topdown *td, uint32_t nr_units)
{
	size_t n = (size_t)nr_units * (size_t)(td->cols + 1);

	td->val = calloc(n, sizeof(*td->val));
	td->cell = calloc(n, sizeof(*td->cell));
	return td->val && td->cell ? 0 : -PMT_ENOMEM;
}

static bool is_on(const struct pmt_evsel *e, const char *pmu, uint64_t config)
{
	return e->pmu && !strcmp(e->pmu->name, pmu) && e->attr.config == config;
}

uint32_t stat_td_ctrs_event(const struct stat_topdown *td, const struct pmt_count_plan *plan)
{
	for (uint32_t e = 0; td->cols && td->atom[0] && e < plan->ev.nr; e++)
		if (plan->ev.ev[e].pmu && !strcmp(plan->ev.ev[e].pmu->name, "cpu_atom"))
			return e;
	return 0;
}

/* a unit's cpu_atom columns: nr 0 where none of the unit's CPUs is an atom one */
static void atom_unit(struct stat_topdown *td, const struct pmt_stat *s,
		      const struct pmt_count_plan *plan, uint32_t u)
{
	bool per_cpu = pmt_stat_aggr(s) == PMT_AGGR_CPU;
	double *v = td->val + (size_t)u * td->cols;
	uint8_t *cell = td->cell + (size_t)u * td->cols;
	double count[PMT_TDA_NR] = { 0 };
	bool counted = true;
	uint32_t nr = 0;
	struct pmt_topdown t;

	for (uint32_t e = 0; e < plan->ev.nr; e++) {
		const struct pmt_evsel *ev = &plan->ev.ev[e];
		const struct pmt_stat_cell *c = pmt_stat_cell(s, u, e);

		for (unsigned i = 0; i < td->hyb->nr_events; i++)
			if (is_on(ev, "cpu_atom", td->hyb->event[i].config)) {
				count[td->hyb->event[i].role] = c->val;
				counted &= c->counted;
				nr += c->nr;
				break;
			}
	}
	/* perf's expression gives NaN for a division by 0 cycles, or counters not read */
	counted = counted && pmt_topdown_atom_eval(td->hyb, count, &t) >= 0;
	for (int k = 0; k < td->cols; k++)
		if (td->atom[k]) {
			v[k] = counted ? pmt_topdown_pct(&t, td->name[k]) : NAN;
			/* a P core's (--per-core) NaN, a P-core CPU's (-A) no cell */
			cell[k] = nr || !per_cpu ? PMT_MO_RATIO : PMT_MO_SKIP;
		}
}

void stat_td_from_counts(struct stat_topdown *td, const struct pmt_stat *s,
			 const struct pmt_count_plan *plan)
{
	/* PERF_METRICS' byte order */
	static const char *const field[8] = {
		"topdown-retiring", "topdown-bad-spec", "topdown-fe-bound", "topdown-be-bound",
		"topdown-heavy-ops", "topdown-br-mispredict", "topdown-fetch-lat",
		"topdown-mem-bound",
	};

	for (uint32_t u = 0; u < pmt_stat_nr_units(s); u++) {
		double td8[8] = { 0 }, slots = 0, uop_dropping = 0;
		struct pmt_topdown t;
		double *v = td->val + (size_t)u * td->cols;
		uint8_t *cell = td->cell + (size_t)u * td->cols;
		bool counted = true;
		uint32_t nr = 0;

		for (uint32_t e = 0; e < plan->ev.nr; e++) {
			const struct pmt_stat_cell *c = pmt_stat_cell(s, u, e);
			const char *name = plan->ev.ev[e].name;

			for (int k = 0; k < 8; k++)
				if (!strcmp(name, field[k])) {
					td8[k] = c->val;
					counted &= c->counted;
					nr += c->nr;
				}
			/* the slots perf adds, named cpu_core/slots/ on a hybrid part */
			if (!strcmp(name, "slots") || !strcmp(name, "cpu_core/slots/"))
				slots = c->val;
			if (td->hyb && td->hyb->core_uop_dropping &&
			    is_on(&plan->ev.ev[e], "cpu_core", td->hyb->core_uop_dropping)) {
				uop_dropping = c->val;
				counted &= c->counted;
			}
		}
		counted = pmt_topdown_from_counts(slots, td8, &t) >= 0 && counted;
		if (td->hyb && td->hyb->core_uop_dropping)
			counted = counted && pmt_topdown_less_uop_dropping(&t, uop_dropping) >= 0;
		if (td->hyb && td->hyb->core_bad_spec_counted)
			pmt_topdown_bad_spec_counted(&t, td8);
		/* an E core of a hybrid part (--per-core) has the core PMU's columns as perf's
		 * formulas give them without counts (NaN, level 1's max(..., 0) 0), an atom
		 * CPU (-A) none */
		bool empty = td->hyb && !nr && pmt_stat_aggr(s) != PMT_AGGR_CPU;

		for (int k = 0; k < td->cols; k++) {
			if (td->atom[k])
				continue;
			v[k] = counted || empty ? pmt_topdown_pct(&t, td->name[k]) : NAN;
			if (isnan(v[k]))
				v[k] = NAN; /* 0/0's sign bit off: perf prints nan, not -nan */
			cell[k] = empty ? PMT_MO_RATIO : td->hyb && !nr ? PMT_MO_SKIP : PMT_MO_VALUE;
		}
		if (td->hyb)
			atom_unit(td, s, plan, u);
	}
}

void stat_td_fini(struct stat_topdown *td)
{
	free(td->val);
	free(td->cell);
	for (int k = 0; k < td->cols; k++)
		free((char *)td->head[k]);
	td->val = NULL;
	td->cell = NULL;
	td->cols = 0;
}

bool stat_has_pmem(void)
{
	char path[1200];

	snprintf(path, sizeof(path), "%s/firmware/acpi/tables/NFIT", pmt_sysfs_root());
	return access(path, F_OK) == 0;
}

bool stat_smt_on(void)
{
	char path[1200];
	struct pmt_cpu_topology t;
	long n = sysconf(_SC_NPROCESSORS_CONF);
	bool on = false;
	int active = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/smt/active", pmt_sysfs_root());
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &active) != 1)
			active = -1;
		fclose(f);
	}
	if (active >= 0)
		return active == 1;
	if (pmt_cpu_topology_read(pmt_sysfs_root(), n < 1 ? 1 : n > PMT_CPUS_MAX ? PMT_CPUS_MAX
										 : (uint32_t)n, &t) >= 0)
		for (uint32_t i = 0; i < t.nr_cores && !on; i++)
			on = strpbrk(t.cores[i], ",-") != NULL;
	pmt_cpu_topology_fini(&t);
	return on;
}
