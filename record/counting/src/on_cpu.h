/* Which CPUs an event is opened on: a hybrid core PMU's (cpu_core, cpu_atom: its cpus file)
 * only, as perf 7.3 opens each on its own PMU's CPUs (intel-hybrid.txt); a tool event
 * (duration_time) on the plan's first CPU alone, where perf 7.3 prints it, but
 * user_time and system_time on every CPU (a line of /proc/stat each); any CPU otherwise */
#ifndef PMT_COUNTING_ON_CPU_H
#define PMT_COUNTING_ON_CPU_H

#include "pmutrace/counting.h"

static inline bool pmt_count_on_cpu(const struct pmt_count_plan *p, const struct pmt_evsel *e,
				    uint32_t ci)
{
	int32_t cpu = p->cpu[ci];

	if (pmt_evsel_tool(e))
		return ci == 0 || (pmt_evsel_tool_cpu_time(e) && cpu >= 0);
	return cpu < 0 || !e->pmu || !e->pmu->core || !e->pmu->has_cpus ||
	       pmt_cpumask_has(&e->pmu->cpus, (unsigned)cpu);
}

#endif
