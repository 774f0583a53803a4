#include "pmutrace/perfdata.h"

/* perf's PERF_RECORD_* names (kernel records 1..21, perf tool records 64..83), as
 * `perf report -D` prints them */
static const char *const record_names[] = {
	[1] = "MMAP", [2] = "LOST", [3] = "COMM", [4] = "EXIT", [5] = "THROTTLE",
	[6] = "UNTHROTTLE", [7] = "FORK", [8] = "READ", [9] = "SAMPLE", [10] = "MMAP2",
	[11] = "AUX", [12] = "ITRACE_START", [13] = "LOST_SAMPLES", [14] = "SWITCH",
	[15] = "SWITCH_CPU_WIDE", [16] = "NAMESPACES", [17] = "KSYMBOL", [18] = "BPF_EVENT",
	[19] = "CGROUP", [20] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID",
	[64] = "HEADER_ATTR", [65] = "HEADER_EVENT_TYPE", [66] = "HEADER_TRACING_DATA",
	[67] = "HEADER_BUILD_ID", [68] = "FINISHED_ROUND", [69] = "ID_INDEX",
	[70] = "AUXTRACE_INFO", [71] = "AUXTRACE", [72] = "AUXTRACE_ERROR", [73] = "THREAD_MAP",
	[74] = "CPU_MAP", [75] = "STAT_CONFIG", [76] = "STAT", [77] = "STAT_ROUND",
	[78] = "EVENT_UPDATE", [79] = "TIME_CONV", [80] = "HEADER_FEATURE", [81] = "COMPRESSED",
	[82] = "FINISHED_INIT", [83] = "COMPRESSED2",
};

const char *pmt_perf_record_name(uint32_t type)
{
	if (type < sizeof(record_names) / sizeof(record_names[0]) && record_names[type])
		return record_names[type];
	return "UNKNOWN";
}
