/* Retire latencies per CPU: each event's samples that carried a CPU kept per CPU, and the
 * statistics of one CPU's samples by the same rules as of all of them, for metrics per
 * aggregation unit. */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

#define NBINS 65536

static struct pmt_retlat_cpu_vals *cpu_vals(struct pmt_retlat_dist *d, int32_t cpu)
{
	struct pmt_retlat_cpu_vals *n;

	/* samples come in runs of one CPU's ring: the last one is the likely one */
	for (size_t k = d->nr_cpu; k-- > 0;)
		if (d->per_cpu[k].cpu == cpu)
			return &d->per_cpu[k];
	n = realloc(d->per_cpu, (d->nr_cpu + 1) * sizeof(*n));
	if (!n)
		return NULL;
	d->per_cpu = n;
	n = &d->per_cpu[d->nr_cpu++];
	memset(n, 0, sizeof(*n));
	n->cpu = cpu;
	return n;
}

int pmt_retlat_samples_add_cpu(struct pmt_retlat_samples *s, const char *event, int32_t cpu,
			       uint16_t lat)
{
	return pmt_retlat_samples_add_at(s, event, cpu, 0, lat);
}

int pmt_retlat_samples_add_at(struct pmt_retlat_samples *s, const char *event, int32_t cpu,
			      uint64_t time, uint16_t lat)
{
	struct pmt_retlat_cpu_vals *cv;
	int rc = pmt_retlat_samples_add(s, event, lat);

	if (rc < 0 || cpu < 0)
		return rc;
	cv = cpu_vals(&s->ev[pmt_retlat_dist_find(s, event)], cpu);
	if (!cv)
		return -PMT_ENOMEM;
	if (cv->n == cv->cap) {
		uint64_t cap = cv->cap ? 2 * cv->cap : 256;
		uint16_t *v = realloc(cv->v, cap * sizeof(*v));
		uint64_t *t;

		if (!v)
			return -PMT_ENOMEM;
		cv->v = v;
		t = realloc(cv->t, cap * sizeof(*t));
		if (!t)
			return -PMT_ENOMEM;
		cv->t = t;
		cv->cap = cap;
	}
	cv->t[cv->n] = time;
	cv->v[cv->n++] = lat;
	return 0;
}

static bool sel_has_cpu(const struct pmt_retlat_sel *sel, int32_t cpu)
{
	if (!sel->nr_cpus)
		return true;
	for (size_t k = 0; k < sel->nr_cpus; k++)
		if (sel->cpus[k] == cpu)
			return true;
	return false;
}

int pmt_retlat_value_sel(const struct pmt_retlat_samples *s, const char *event,
			 const struct pmt_retlat_sel *sel, enum pmt_retlat_stat stat, double pct,
			 double *out)
{
	struct pmt_retlat_samples one = { 0 };
	int i = s ? pmt_retlat_dist_find(s, event) : -1;
	int rc = 0, found;

	if (i < 0)
		return 0;
	/* the unit's samples as a distribution of their own: the statistic is then computed
	 * exactly as for all samples (rint(mean), median, pNN, last in sample order per
	 * CPU, the last CPU's last for several) */
	for (size_t k = 0; k < s->ev[i].nr_cpu && rc >= 0; k++) {
		const struct pmt_retlat_cpu_vals *cv = &s->ev[i].per_cpu[k];

		if (!sel_has_cpu(sel, cv->cpu))
			continue;
		for (uint64_t j = 0; j < cv->n && rc >= 0; j++) {
			if (sel->t_until && (!cv->t[j] || cv->t[j] <= sel->t_after ||
					     cv->t[j] > sel->t_until))
				continue;
			rc = pmt_retlat_samples_add(&one, s->ev[i].name, cv->v[j]);
		}
	}
	found = one.nr_samples > 0;
	if (rc >= 0 && found)
		rc = pmt_retlat_value(&one, NULL, s->ev[i].name, stat, pct, out);
	pmt_retlat_samples_fini(&one);
	return rc < 0 ? rc : found;
}

int pmt_retlat_value_cpu(const struct pmt_retlat_samples *s, const char *event, int32_t cpu,
			 enum pmt_retlat_stat stat, double pct, double *out)
{
	struct pmt_retlat_sel sel = { .cpus = &cpu, .nr_cpus = 1 };

	return pmt_retlat_value_sel(s, event, &sel, stat, pct, out);
}
