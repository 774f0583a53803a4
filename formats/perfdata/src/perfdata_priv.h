/* Private perf.data layout shared by the reader (source.c) and the writer (perfdata_write.c).
 * Offsets follow include/uapi/linux/perf_event.h and tools/perf/util/header.c. */
#ifndef PMUTRACE_PERFDATA_PRIV_H
#define PMUTRACE_PERFDATA_PRIV_H

#include "pmutrace/perfdata.h"

#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" read as a little-endian u64 */
#define PERF_FILE_HEADER_SIZE 104
#define PERF_PIPE_HEADER_SIZE 16
#define PERF_ATTR_SIZE_VER0 64
#define PERF_ATTR_SIZE_MAX 136 /* what struct pmt_trace_attr keeps */

/* byte offsets inside struct perf_event_attr */
enum {
	ATTR_TYPE = 0, ATTR_SIZE = 4, ATTR_CONFIG = 8, ATTR_PERIOD = 16, ATTR_SAMPLE_TYPE = 24,
	ATTR_READ_FORMAT = 32, ATTR_FLAGS = 40, ATTR_WAKEUP = 48, ATTR_BP_TYPE = 52,
	ATTR_CONFIG1 = 56, ATTR_CONFIG2 = 64, ATTR_BRANCH_SAMPLE_TYPE = 72,
	ATTR_REGS_USER = 80, ATTR_STACK_USER = 88, ATTR_CLOCKID = 92, ATTR_REGS_INTR = 96,
	ATTR_AUX_WATERMARK = 104, ATTR_MAX_STACK = 108, ATTR_RESERVED2 = 110,
	ATTR_AUX_SAMPLE_SIZE = 112, ATTR_RESERVED3 = 116, ATTR_SIG_DATA = 120, ATTR_CONFIG3 = 128,
};
/* bits of the attr flags word (little-endian bitfield numbering) */
#define ATTR_FLAG_DISABLED (1ULL << 0)
#define ATTR_FLAG_EXCLUDE_KERNEL (1ULL << 5)
#define ATTR_FLAG_EXCLUDE_HV (1ULL << 6)
#define ATTR_FLAG_SAMPLE_ID_ALL (1ULL << 18)
#define ATTR_FLAG_MMAP2 (1ULL << 23)
#define ATTR_FLAG_COMM_EXEC (1ULL << 24)
#define ATTR_FLAG_CONTEXT_SWITCH (1ULL << 26)
#define ATTR_FLAG_BUILD_ID (1ULL << 34)

/* PERF_SAMPLE_* */
enum {
	PS_IP = 1 << 0, PS_TID = 1 << 1, PS_TIME = 1 << 2, PS_ADDR = 1 << 3, PS_READ = 1 << 4,
	PS_CALLCHAIN = 1 << 5, PS_ID = 1 << 6, PS_CPU = 1 << 7, PS_PERIOD = 1 << 8,
	PS_STREAM_ID = 1 << 9, PS_RAW = 1 << 10, PS_BRANCH_STACK = 1 << 11,
	PS_REGS_USER = 1 << 12, PS_STACK_USER = 1 << 13, PS_WEIGHT = 1 << 14,
	PS_DATA_SRC = 1 << 15, PS_IDENTIFIER = 1 << 16, PS_TRANSACTION = 1 << 17,
	PS_REGS_INTR = 1 << 18, PS_PHYS_ADDR = 1 << 19, PS_AUX = 1 << 20, PS_CGROUP = 1 << 21,
	PS_DATA_PAGE_SIZE = 1 << 22, PS_CODE_PAGE_SIZE = 1 << 23, PS_WEIGHT_STRUCT = 1 << 24,
};
/* PERF_FORMAT_* */
enum { RF_TOTAL_ENABLED = 1, RF_TOTAL_RUNNING = 2, RF_ID = 4, RF_GROUP = 8, RF_LOST = 16 };
#define BRANCH_HW_INDEX (1ULL << 17)
#define BRANCH_COUNTERS (1ULL << 19)

/* HEADER_* feature bits */
enum {
	FEAT_BUILD_ID = 2, FEAT_HOSTNAME = 3, FEAT_OSRELEASE = 4, FEAT_VERSION = 5, FEAT_ARCH = 6,
	FEAT_NRCPUS = 7, FEAT_CPUDESC = 8, FEAT_CPUID = 9, FEAT_TOTAL_MEM = 10, FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12, FEAT_PMU_MAPPINGS = 16, FEAT_AUXTRACE = 18, FEAT_COMPRESSED = 27,
	FEAT_BITS = 256,
};

#define PERF_AUXTRACE_ARM_SPE 4
#define REC_THREAD_MAP 73
#define SPE_V2_MAGIC 0x1010101010101010ULL
#define MISC_COMM_EXEC (1 << 13)
#define MISC_SWITCH_OUT (1 << 13)
#define MISC_SWITCH_OUT_PREEMPT (1 << 14)
#define MISC_MMAP_BUILD_ID (1 << 14)

static inline uint16_t pd_bswap16(uint16_t v) { return (uint16_t)(v >> 8 | v << 8); }

/* Convert an attr between byte orders in place (`size` bytes valid). The flags word is a
 * bitfield: its bytes stay in place and each byte's bits are mirrored, as perf's
 * perf_event__attr_swap() does. */
void pd_attr_swap(uint8_t *attr, size_t size);

#endif
