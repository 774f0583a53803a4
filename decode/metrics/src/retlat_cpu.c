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

		if (!v)
			return -PMT_ENOMEM;
		cv->v = v;
		cv->cap = cap;
	}
	cv->v[cv->n++] = lat;
	return 0;
}

int pmt_retlat_value_cpu(const struct pmt_retlat_samples *s, const char *event, int32_t cpu,
			 enum pmt_retlat_stat stat, double pct, double *out)
{
	const struct pmt_retlat_cpu_vals *cv = NULL;
	struct pmt_retlat_samples one = { 0 };
	int i = s ? pmt_retlat_dist_find(s, event) : -1;
	int rc;

	for (size_t k = 0; i >= 0 && k < s->ev[i].nr_cpu && !cv; k++)
		if (s->ev[i].per_cpu[k].cpu == cpu)
			cv = &s->ev[i].per_cpu[k];
	if (!cv || !cv->n)
		return 0;
	/* that CPU's samples as a distribution of their own: the statistic is then computed
	 * exactly as for all CPUs (rint(mean), median, pNN, last) */
	rc = 0;
	for (uint64_t k = 0; k < cv->n && rc >= 0; k++)
		rc = pmt_retlat_samples_add(&one, s->ev[i].name, cv->v[k]);
	if (rc >= 0)
		rc = pmt_retlat_value(&one, NULL, s->ev[i].name, stat, pct, out);
	pmt_retlat_samples_fini(&one);
	return rc < 0 ? rc : 1;
}
