/* Reads into what perf stat prints: per-interval deltas, perf_counts_values__scale() per
 * counter, then sums per aggregation unit (util/stat.c process_counter_values()). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/counting.h"
#include "on_cpu.h"

struct pmt_stat {
	const struct pmt_count_plan *plan;
	enum pmt_aggr aggr;
	uint32_t nr_threads, nr_units;
	uint32_t *unit_of_cpu;          /* [cpu index] */
	char (*name)[80];               /* [unit] (a kworker's comm names its workqueue too) */
	uint32_t *unit_nr;              /* [unit] CPUs in it */
	uint32_t *ctrs;                 /* [unit][ev] its CPUs the event is opened on (perf's
					 * "ctrs"; 0: the event has no line for the unit) */
	struct pmt_count_value *prev;   /* [ev][cpu][thread] the last read, for deltas */
	struct pmt_stat_cell *cell;     /* [unit][ev] */
	bool *supported;                /* [ev] */
	bool *unread;                   /* [ev] pmt_stat_set_unread */
	double *raw;                    /* [unit][ev] the last update before perf's scale */
	struct pmt_run_stats *runs;     /* [ev] -r: the total's counts per run */
	bool per_thread;                /* units are the threads */
	bool *failed;                   /* [unit] a counter of the event being summed never
					 * ran in it */
};

static int read_int(const char *root, int cpu, const char *file, int32_t *out)
{
	char path[1200];
	FILE *f;
	int v, ok;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/%s", root, cpu, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%d", &v) == 1;
	fclose(f);
	if (!ok)
		return -1;
	*out = v;
	return 0;
}

int pmt_cpu_topo_load(const char *root, const int32_t *cpus, uint32_t nr,
		      struct pmt_cpu_topo *out)
{
	if (!root)
		root = pmt_sysfs_root();
	for (uint32_t i = 0; i < nr; i++) {
		out[i] = (struct pmt_cpu_topo){ 0, 0, cpus[i] };
		if (cpus[i] < 0)
			continue;
		read_int(root, cpus[i], "physical_package_id", &out[i].socket);
		read_int(root, cpus[i], "die_id", &out[i].die);
		read_int(root, cpus[i], "core_id", &out[i].core);
	}
	return 0;
}

static void unit_name(enum pmt_aggr aggr, int32_t cpu, const struct pmt_cpu_topo *t,
		      char *buf, size_t cap)
{
	switch (aggr) {
	case PMT_AGGR_CPU:
		snprintf(buf, cap, "CPU%d", cpu);
		break;
	case PMT_AGGR_CORE:
		snprintf(buf, cap, "S%d-D%d-C%d", t->socket, t->die, t->core);
		break;
	case PMT_AGGR_DIE:
		snprintf(buf, cap, "S%d-D%d", t->socket, t->die);
		break;
	case PMT_AGGR_SOCKET:
		snprintf(buf, cap, "S%d", t->socket);
		break;
	default:
		buf[0] = 0;
	}
}

/* perf orders cores and sockets by (socket, die, core), CPUs by number */
static int topo_cmp(enum pmt_aggr aggr, const struct pmt_cpu_topo *a, const struct pmt_cpu_topo *b)
{
	if (a->socket != b->socket)
		return a->socket < b->socket ? -1 : 1;
	if (aggr == PMT_AGGR_SOCKET)
		return 0;
	if (a->die != b->die)
		return a->die < b->die ? -1 : 1;
	if (aggr == PMT_AGGR_DIE)
		return 0;
	return a->core < b->core ? -1 : a->core > b->core;
}

static int build_units(struct pmt_stat *s, const struct pmt_cpu_topo *topo)
{
	const struct pmt_count_plan *p = s->plan;
	uint32_t n = p->nr_cpus;
	uint32_t *rep = calloc(n, sizeof(*rep)); /* each unit's first CPU index */

	s->unit_of_cpu = calloc(n, sizeof(*s->unit_of_cpu));
	s->name = calloc(n, sizeof(*s->name));
	s->unit_nr = calloc(n, sizeof(*s->unit_nr));
	if (!rep || !s->unit_of_cpu || !s->name || !s->unit_nr) {
		free(rep);
		return -PMT_ENOMEM;
	}
	for (uint32_t ci = 0; ci < n; ci++) {
		uint32_t u = 0;

		if (s->aggr == PMT_AGGR_CPU) {
			u = s->nr_units++;
			rep[u] = ci;
		} else if (s->aggr == PMT_AGGR_CORE || s->aggr == PMT_AGGR_DIE ||
			   s->aggr == PMT_AGGR_SOCKET) {
			for (u = 0; u < s->nr_units; u++)
				if (!topo_cmp(s->aggr, &topo[rep[u]], &topo[ci]))
					break;
			if (u == s->nr_units)
				rep[s->nr_units++] = ci;
		} else if (!s->nr_units) {
			s->nr_units = 1;
		}
		s->unit_of_cpu[ci] = u;
		s->unit_nr[u]++;
	}
	/* units in perf's order; an insertion sort keeps the CPU -> unit map right */
	for (uint32_t i = 1; s->aggr != PMT_AGGR_GLOBAL && i < s->nr_units; i++) {
		for (uint32_t j = i; j > 0 && topo_cmp(s->aggr, &topo[rep[j]], &topo[rep[j - 1]]) < 0 &&
				     s->aggr != PMT_AGGR_CPU; j--) {
			uint32_t t = rep[j], tn = s->unit_nr[j];

			rep[j] = rep[j - 1];
			rep[j - 1] = t;
			s->unit_nr[j] = s->unit_nr[j - 1];
			s->unit_nr[j - 1] = tn;
			for (uint32_t ci = 0; ci < n; ci++)
				s->unit_of_cpu[ci] = s->unit_of_cpu[ci] == j ? j - 1
						     : s->unit_of_cpu[ci] == j - 1 ? j
						     : s->unit_of_cpu[ci];
		}
	}
	for (uint32_t u = 0; u < s->nr_units; u++)
		unit_name(s->aggr, p->cpu[rep[u]], &topo[rep[u]], s->name[u], sizeof(s->name[u]));
	free(rep);
	return 0;
}

int pmt_stat_new(const struct pmt_count_plan *plan, uint32_t nr_threads, enum pmt_aggr aggr,
		 const struct pmt_cpu_topo *topo, struct pmt_stat **out)
{
	struct pmt_stat *s = calloc(1, sizeof(*s));
	struct pmt_cpu_topo *own = NULL;
	int rc;

	*out = NULL;
	if (!s)
		return -PMT_ENOMEM;
	s->plan = plan;
	/* without CPUs (per task) every aggregation is the total, as perf's */
	s->aggr = plan->per_cpu || aggr == PMT_AGGR_THREAD ? aggr : PMT_AGGR_GLOBAL;
	s->nr_threads = nr_threads ? nr_threads : 1;
	/* per thread: counters are opened per thread (cpu -1), one unit each */
	s->per_thread = aggr == PMT_AGGR_THREAD && !plan->per_cpu;
	if (aggr == PMT_AGGR_THREAD && !s->per_thread) {
		free(s);
		return -PMT_EINVAL;
	}
	if (!topo) {
		own = calloc(plan->nr_cpus, sizeof(*own));
		if (!own) {
			free(s);
			return -PMT_ENOMEM;
		}
		pmt_cpu_topo_load(NULL, plan->cpu, plan->nr_cpus, own);
		topo = own;
	}
	rc = s->per_thread ? 0 : build_units(s, topo);
	free(own);
	if (s->per_thread && rc >= 0) {
		s->nr_units = s->nr_threads;
		s->unit_of_cpu = calloc(1, sizeof(*s->unit_of_cpu));
		s->name = calloc(s->nr_units, sizeof(*s->name));
		s->unit_nr = calloc(s->nr_units, sizeof(*s->unit_nr));
		for (uint32_t u = 0; s->unit_nr && u < s->nr_units; u++)
			s->unit_nr[u] = 1;
		if (!s->unit_of_cpu || !s->name || !s->unit_nr)
			rc = -PMT_ENOMEM;
	}
	s->prev = calloc((size_t)plan->ev.nr * plan->nr_cpus * s->nr_threads, sizeof(*s->prev));
	s->cell = calloc((size_t)s->nr_units * plan->ev.nr, sizeof(*s->cell));
	s->supported = calloc(plan->ev.nr, sizeof(*s->supported));
	s->unread = calloc(plan->ev.nr, sizeof(*s->unread));
	s->raw = calloc((size_t)s->nr_units * plan->ev.nr, sizeof(*s->raw));
	s->runs = calloc(plan->ev.nr, sizeof(*s->runs));
	s->ctrs = calloc((size_t)s->nr_units * plan->ev.nr, sizeof(*s->ctrs));
	s->failed = calloc(s->nr_units + 1, sizeof(*s->failed));
	if (rc < 0 || !s->prev || !s->cell || !s->supported || !s->unread || !s->raw ||
	    !s->runs || !s->ctrs || !s->failed) {
		pmt_stat_free(s);
		return -PMT_ENOMEM;
	}
	for (uint32_t e = 0; e < plan->ev.nr; e++) {
		s->supported[e] = true;
		for (uint32_t u = 0; s->per_thread && u < s->nr_units; u++)
			s->ctrs[(size_t)u * plan->ev.nr + e] = 1;
		for (uint32_t ci = 0; !s->per_thread && ci < plan->nr_cpus; ci++)
			if (pmt_count_on_cpu(plan, &plan->ev.ev[e], ci))
				s->ctrs[(size_t)s->unit_of_cpu[ci] * plan->ev.nr + e]++;
	}
	*out = s;
	return 0;
}

void pmt_stat_set_supported(struct pmt_stat *s, uint32_t e, bool supported)
{
	if (e < s->plan->ev.nr)
		s->supported[e] = supported;
}

void pmt_stat_not_counted(struct pmt_stat *s, uint32_t e)
{
	uint32_t ne = s->plan->ev.nr;

	for (uint32_t u = 0; e < ne && u < s->nr_units; u++) {
		struct pmt_stat_cell *cell = &s->cell[(size_t)u * ne + e];

		cell->val = 0;
		cell->ena = cell->run = 0;
		cell->counted = false;
		s->raw[(size_t)u * ne + e] = 0;
	}
}

void pmt_stat_set_unread(struct pmt_stat *s, uint32_t e, bool unread)
{
	if (e < s->plan->ev.nr)
		s->unread[e] = unread;
}

int pmt_stat_update(struct pmt_stat *s, pmt_count_get_fn get, void *ctx, bool interval)
{
	const struct pmt_count_plan *p = s->plan;
	uint32_t ne = p->ev.nr;

	/* perf's evsel__count_has_error(): a counter that never ran (an :R event's on every
	 * CPU but the first) makes its CPU, core, die or socket <not counted>; the total
	 * sums what ran */
	bool fail_unit = s->aggr != PMT_AGGR_GLOBAL && !s->per_thread;

	memset(s->cell, 0, (size_t)s->nr_units * ne * sizeof(*s->cell));
	for (uint32_t e = 0; e < ne; e++) {
		memset(s->failed, 0, s->nr_units * sizeof(*s->failed));
		for (uint32_t ci = 0; ci < p->nr_cpus; ci++) {
			struct pmt_stat_cell *cell = &s->cell[(size_t)s->unit_of_cpu[ci] * ne + e];

			if (!pmt_count_on_cpu(p, &p->ev.ev[e], ci))
				continue;
			for (uint32_t ti = 0; ti < s->nr_threads; ti++) {
				if (s->per_thread)
					cell = &s->cell[(size_t)ti * ne + e];
				const struct pmt_count_value *v = get(ctx, e, ci, ti);
				struct pmt_count_value *prev =
					&s->prev[((size_t)e * p->nr_cpus + ci) * s->nr_threads + ti];
				struct pmt_count_value d;
				double val;

				if (!v)
					return -PMT_EINVAL;
				d = *v;
				if (interval) {
					d.val -= prev->val;
					d.ena -= prev->ena;
					d.run -= prev->run;
				}
				*prev = *v;
				if (fail_unit && (!d.ena || !d.run))
					s->failed[s->unit_of_cpu[ci]] = true;
				/* perf_counts_values__scale(): a u64 again after scaling */
				if (d.run == 0)
					val = 0;
				else if (d.run < d.ena) {
					double sc = (double)d.val * (double)d.ena / (double)d.run;

					/* past 2^64 (a tiny running time) there is no u64 */
					val = sc < 0x1p64 ? (double)(uint64_t)sc : sc;
				}
				else
					val = (double)d.val;
				cell->val += val;
				cell->ena += d.ena;
				cell->run += d.run;
			}
			cell->nr++;
		}
		for (uint32_t u = 0; u < s->nr_units; u++) {
			struct pmt_stat_cell *cell = &s->cell[(size_t)u * ne + e];

			if (s->failed[u])
				cell->val = 0, cell->ena = cell->run = 0;
			s->raw[(size_t)u * ne + e] = cell->val;
			cell->val *= p->scale[e];
			cell->supported = s->supported[e];
			cell->counted = cell->supported && cell->run && cell->ena;
			cell->nr = s->ctrs[(size_t)u * ne + e];
			cell->ctrs = s->unread[e] ? 0 : cell->nr;
		}
	}
	return 0;
}

void pmt_stat_set_threads(struct pmt_stat *s, const int32_t *tids, uint32_t nr)
{
	for (uint32_t u = 0; s->per_thread && u < s->nr_units && u < nr; u++) {
		char path[64], comm[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", (int)tids[u]);
		f = fopen(path, "r");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = 0;
			fclose(f);
		}
		snprintf(s->name[u], sizeof(s->name[u]), "%s-%d", comm, (int)tids[u]);
	}
}

void pmt_run_stats_add(struct pmt_run_stats *r, double x)
{
	/* Welford's update, as perf's update_stats() */
	double delta = x - r->mean;

	r->n++;
	r->mean += delta / r->n;
	r->m2 += delta * (x - r->mean);
}

double pmt_run_stats_stddev(const struct pmt_run_stats *r)
{
	if (r->n < 2)
		return 0;
	return sqrt(r->m2 / (r->n - 1) / r->n);
}

double pmt_run_stats_noise_pct(const struct pmt_run_stats *r)
{
	return r->mean ? 100.0 * pmt_run_stats_stddev(r) / r->mean : 0;
}

int pmt_stat_add_run(struct pmt_stat *s)
{
	/* perf_stat_process_counter() keeps res_stats for AGGR_GLOBAL alone */
	if (s->aggr != PMT_AGGR_GLOBAL)
		return 0;
	for (uint32_t e = 0; e < s->plan->ev.nr; e++)
		pmt_run_stats_add(&s->runs[e], s->raw[e]);
	return 0;
}

void pmt_stat_end_runs(struct pmt_stat *s)
{
	if (s->aggr != PMT_AGGR_GLOBAL)
		return;
	for (uint32_t e = 0; e < s->plan->ev.nr; e++) {
		struct pmt_stat_cell *cell = &s->cell[e];
		double mean = s->runs[e].mean;

		/* evlist__copy_res_stats(): the mean into the u64 count */
		cell->val = (mean < 0x1p64 ? (double)(uint64_t)mean : mean) * s->plan->scale[e];
		cell->noise = pmt_run_stats_noise_pct(&s->runs[e]);
	}
}

uint32_t pmt_stat_nr_units(const struct pmt_stat *s)
{
	return s->nr_units;
}

bool pmt_stat_unit_has_cpu(const struct pmt_stat *s, uint32_t u, int32_t cpu)
{
	for (uint32_t ci = 0; !s->per_thread && ci < s->plan->nr_cpus; ci++)
		if (s->plan->cpu[ci] == cpu && s->unit_of_cpu[ci] == u)
			return true;
	return false;
}

const char *pmt_stat_unit_name(const struct pmt_stat *s, uint32_t u)
{
	return u < s->nr_units ? s->name[u] : "";
}

const struct pmt_stat_cell *pmt_stat_cell(const struct pmt_stat *s, uint32_t u, uint32_t e)
{
	return &s->cell[(size_t)u * s->plan->ev.nr + e];
}

double pmt_stat_metric_input(const struct pmt_stat *s, uint32_t u, uint32_t e)
{
	const struct pmt_stat_cell *cell = pmt_stat_cell(s, u, e);

	const struct pmt_evsel *ev = &s->plan->ev.ev[e];
	bool first_only = pmt_evsel_tool(ev) && !pmt_evsel_tool_cpu_time(ev);

	/* duration_time is counted on the first CPU's unit alone */
	for (uint32_t k = 0; first_only && k < s->nr_units; k++)
		if (pmt_stat_cell(s, k, e)->counted)
			return pmt_stat_cell(s, k, e)->val;
	return cell->counted && !first_only ? cell->val : NAN;
}

enum pmt_aggr pmt_stat_aggr(const struct pmt_stat *s)
{
	return s->aggr;
}

const struct pmt_count_plan *pmt_stat_plan(const struct pmt_stat *s)
{
	return s->plan;
}

void pmt_stat_free(struct pmt_stat *s)
{
	if (!s)
		return;
	free(s->unit_of_cpu);
	free(s->name);
	free(s->unit_nr);
	free(s->prev);
	free(s->cell);
	free(s->supported);
	free(s->unread);
	free(s->raw);
	free(s->runs);
	free(s->ctrs);
	free(s->failed);
	free(s);
}
