/* perf 7.3's user_time and system_time tool events (tool_pmu.c): with -a or -C a CPU's
 * user or system ticks from its line of /proc/stat, per thread (a workload, -p, -t) the
 * thread's utime or stime from /proc/PID/stat; counted from the open, in nanoseconds. */
#ifndef PMT_COUNTING_TOOL_TIME_H
#define PMT_COUNTING_TOOL_TIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tool_time {
	char *text;      /* /proc/stat as last read, reused (no allocation per read) */
	size_t cap;
};

/* read /proc/stat into t (grown as needed); -PMT_E* on failure */
int tool_time_load(struct tool_time *t);
/* the CPU's user (system: system) ticks from the loaded /proc/stat; false when it has no
 * line for that CPU (a fake sysfs tree listing more CPUs than the host has) */
bool tool_time_cpu(const struct tool_time *t, int cpu, bool system, uint64_t *ticks);
/* the thread's utime (system: stime) ticks; false when it is gone */
bool tool_time_pid(int pid, bool system, uint64_t *ticks);
/* ticks in nanoseconds, as perf scales them (sysconf(_SC_CLK_TCK)) */
uint64_t tool_time_ns(uint64_t ticks);
void tool_time_fini(struct tool_time *t);

#endif
