/* Which CPUs an event is opened on: a hybrid core PMU's (cpu_core, cpu_atom: its cpus file)
 * only, as perf 7.3 opens each on its own PMU's CPUs (intel-hybrid.txt); any CPU otherwise */
#ifndef PMT_COUNTING_ON_CPU_H
#define PMT_COUNTING_ON_CPU_H

#include "pmutrace/counting.h"

static inline bool pmt_count_on_cpu(const struct pmt_evsel *e, int32_t cpu)
{
	return cpu < 0 || !e->pmu || !e->pmu->core || !e->pmu->has_cpus ||
	       pmt_cpumask_has(&e->pmu->cpus, (unsigned)cpu);
}

#endif
