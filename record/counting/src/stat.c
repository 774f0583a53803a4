/* Reads into what perf stat prints: per-interval deltas, perf_counts_values__scale() per
 * counter, then sums per aggregation unit (util/stat.c process_counter_values()). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/counting.h"

struct pmt_stat {
	const struct pmt_count_plan *plan;
	enum pmt_aggr aggr;
	uint32_t nr_threads, nr_units;
	uint32_t *unit_of_cpu;          /* [cpu index] */
	char (*name)[32];               /* [unit] */
	uint32_t *unit_nr;              /* [unit] CPUs in it (perf's "ctrs") */
	struct pmt_count_value *prev;   /* [ev][cpu][thread] the last read, for deltas */
	struct pmt_stat_cell *cell;     /* [unit][ev] */
	bool *supported;                /* [ev] */
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
	s->aggr = plan->per_cpu ? aggr : PMT_AGGR_GLOBAL;
	s->nr_threads = nr_threads ? nr_threads : 1;
	if (!topo) {
		own = calloc(plan->nr_cpus, sizeof(*own));
		if (!own) {
			free(s);
			return -PMT_ENOMEM;
		}
		pmt_cpu_topo_load(NULL, plan->cpu, plan->nr_cpus, own);
		topo = own;
	}
	rc = build_units(s, topo);
	free(own);
	s->prev = calloc((size_t)plan->ev.nr * plan->nr_cpus * s->nr_threads, sizeof(*s->prev));
	s->cell = calloc((size_t)s->nr_units * plan->ev.nr, sizeof(*s->cell));
	s->supported = calloc(plan->ev.nr, sizeof(*s->supported));
	if (rc < 0 || !s->prev || !s->cell || !s->supported) {
		pmt_stat_free(s);
		return -PMT_ENOMEM;
	}
	for (uint32_t e = 0; e < plan->ev.nr; e++)
		s->supported[e] = true;
	*out = s;
	return 0;
}

void pmt_stat_set_supported(struct pmt_stat *s, uint32_t e, bool supported)
{
	if (e < s->plan->ev.nr)
		s->supported[e] = supported;
}

int pmt_stat_update(struct pmt_stat *s, pmt_count_get_fn get, void *ctx, bool interval)
{
	const struct pmt_count_plan *p = s->plan;
	uint32_t ne = p->ev.nr;

	memset(s->cell, 0, (size_t)s->nr_units * ne * sizeof(*s->cell));
	for (uint32_t e = 0; e < ne; e++) {
		for (uint32_t ci = 0; ci < p->nr_cpus; ci++) {
			struct pmt_stat_cell *cell = &s->cell[(size_t)s->unit_of_cpu[ci] * ne + e];

			for (uint32_t ti = 0; ti < s->nr_threads; ti++) {
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

			cell->val *= p->scale[e];
			cell->supported = s->supported[e];
			cell->counted = cell->supported && cell->run && cell->ena;
			cell->nr = s->unit_nr[u];
		}
	}
	return 0;
}

uint32_t pmt_stat_nr_units(const struct pmt_stat *s)
{
	return s->nr_units;
}

const char *pmt_stat_unit_name(const struct pmt_stat *s, uint32_t u)
{
	return u < s->nr_units ? s->name[u] : "";
}

const struct pmt_stat_cell *pmt_stat_cell(const struct pmt_stat *s, uint32_t u, uint32_t e)
{
	return &s->cell[(size_t)u * s->plan->ev.nr + e];
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
	free(s);
}
