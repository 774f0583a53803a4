/* LD_PRELOAD for the attr oracle. perf probes what the kernel supports (cloexec, build-id
 * mmaps, comm_exec, sample IDENTIFIER, ...) by opening cpu-clock or dummy events, and falls
 * back to older attrs when those fail. Under qemu-user (no perf_event_open) every probe
 * fails, so perf would print the attrs of an old kernel. This answers opens of the
 * software and hardware types, which the probes use, with a file descriptor, and leaves
 * every other open to the kernel: an event of a fake sysfs PMU fails after perf printed
 * its attr, which is what the oracle reads. PROBE_OK_TYPES="3,4,10" answers those types too,
 * so perf goes on to open every event of a list (a failed open drops an event or stops a
 * group, and a fallback such as cycles -> task-clock adds attrs of its own). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload_syscall.h"

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];

	PRELOAD_SYSCALL_ARGS(nr, a);
	if (nr == SYS_perf_event_open) {
		uint32_t type = *(const uint32_t *)a[0]; /* perf_event_attr.type */
		const char *more = getenv("PROBE_OK_TYPES");
		bool ok = type <= 1; /* PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE */
		char *end;

		while (!ok && more && *more) {
			ok = strtoul(more, &end, 0) == type;
			more = *end == ',' ? end + 1 : NULL;
		}
		if (ok)
			return open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
