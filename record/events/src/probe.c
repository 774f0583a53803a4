/* Kernel support that changes the attrs perf asks for, probed as perf probes it */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmutrace/events.h"

void pmt_pmus_probe_extended_type(struct pmt_pmus *set)
{
	struct pmt_perf_attr attr;
	long fd;

	set->extended_type = false;
	if (pmt_pmus_nr_core(set) < 2)
		return;
	for (uint32_t i = 0; i < set->nr; i++) {
		if (!set->pmu[i].core)
			continue;
		memset(&attr, 0, sizeof(attr));
		attr.size = PMT_ATTR_SIZE_VER9;
		attr.type = PMT_TYPE_HARDWARE;
		attr.config = (uint64_t)set->pmu[i].type << 32;
		attr.flags = PMT_ATTR_FLAG_DISABLED | PMT_ATTR_FLAG_EXCLUDE_KERNEL |
			     PMT_ATTR_FLAG_EXCLUDE_HV;
		fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0x8 /* CLOEXEC */);
		if (fd >= 0) {
			close((int)fd);
			set->extended_type = true;
		}
		return;
	}
}
