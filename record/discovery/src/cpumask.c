#include <stdlib.h>
#include <string.h>

#include "pmutrace/pmu.h"
#include "range.h"

int pmt_cpumask_parse(const char *list, struct pmt_cpumask *m)
{
	const char *p = list;

	memset(m, 0, sizeof(*m));
	while (*p == ' ' || *p == '\n')
		p++;
	while (*p && *p != '\n') {
		unsigned long lo, hi;

		if (parse_range(&p, PMT_CPUS_MAX - 1, &lo, &hi) < 0)
			return -PMT_EPARSE;
		for (unsigned long c = lo; c <= hi; c++)
			m->bits[c / 64] |= 1ULL << (c % 64);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -PMT_EPARSE;
	}
	return 0;
}

bool pmt_cpumask_has(const struct pmt_cpumask *m, unsigned cpu)
{
	return cpu < PMT_CPUS_MAX && (m->bits[cpu / 64] >> (cpu % 64) & 1);
}

unsigned pmt_cpumask_count(const struct pmt_cpumask *m)
{
	unsigned n = 0;

	for (unsigned i = 0; i < PMT_CPUS_MAX / 64; i++)
		n += (unsigned)__builtin_popcountll(m->bits[i]);
	return n;
}

int pmt_cpumask_next(const struct pmt_cpumask *m, unsigned from)
{
	for (unsigned c = from; c < PMT_CPUS_MAX; c++) {
		uint64_t w = m->bits[c / 64] >> (c % 64);

		if (w)
			return (int)(c + (unsigned)__builtin_ctzll(w));
		c |= 63;
	}
	return -1;
}
