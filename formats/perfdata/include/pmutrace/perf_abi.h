/* perf's ABI as pmutrace reads and writes it: the perf.data file and pipe headers, struct
 * perf_event_attr's layout (byte offsets: the attr is kept as the bytes the file holds, so
 * any attr size and either byte order can be carried), PERF_SAMPLE_* / PERF_FORMAT_* bits,
 * record types (kernel and perf tool), header feature ids, AUX flags and the Arm SPE
 * AUXTRACE_INFO layout. Values follow include/uapi/linux/perf_event.h and
 * tools/perf/util/{header.h,event.h,arm-spe.h}; what the recorder writes and the decoder
 * reads, so both take it from here.
 */
#ifndef PMUTRACE_PERF_ABI_H
#define PMUTRACE_PERF_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PMT_PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" read as a little-endian u64 */
#define PMT_PERF_FILE_HEADER_SIZE 104
#define PMT_PERF_PIPE_HEADER_SIZE 16
#define PMT_ATTR_SIZE_VER0 64
#define PMT_ATTR_SIZE_MAX 136 /* what struct pmt_trace_attr keeps */

/* byte offsets inside struct perf_event_attr */
enum {
	PMT_ATTR_TYPE = 0, PMT_ATTR_SIZE = 4, PMT_ATTR_CONFIG = 8, PMT_ATTR_PERIOD = 16,
	PMT_ATTR_SAMPLE_TYPE = 24, PMT_ATTR_READ_FORMAT = 32, PMT_ATTR_FLAGS = 40,
	PMT_ATTR_WAKEUP = 48, PMT_ATTR_BP_TYPE = 52, PMT_ATTR_CONFIG1 = 56,
	PMT_ATTR_CONFIG2 = 64, PMT_ATTR_BRANCH_SAMPLE_TYPE = 72, PMT_ATTR_REGS_USER = 80,
	PMT_ATTR_STACK_USER = 88, PMT_ATTR_CLOCKID = 92, PMT_ATTR_REGS_INTR = 96,
	PMT_ATTR_AUX_WATERMARK = 104, PMT_ATTR_MAX_STACK = 108, PMT_ATTR_RESERVED2 = 110,
	PMT_ATTR_AUX_SAMPLE_SIZE = 112, PMT_ATTR_RESERVED3 = 116, PMT_ATTR_SIG_DATA = 120,
	PMT_ATTR_CONFIG3 = 128,
};
/* bits of the attr flags word (little-endian bitfield numbering, as the kernel's) */
#define PMT_ATTR_FLAG_DISABLED (1ULL << 0)
#define PMT_ATTR_FLAG_INHERIT (1ULL << 1)
#define PMT_ATTR_FLAG_PINNED (1ULL << 2)
#define PMT_ATTR_FLAG_EXCLUSIVE (1ULL << 3)
#define PMT_ATTR_FLAG_EXCLUDE_USER (1ULL << 4)
#define PMT_ATTR_FLAG_EXCLUDE_KERNEL (1ULL << 5)
#define PMT_ATTR_FLAG_EXCLUDE_HV (1ULL << 6)
#define PMT_ATTR_FLAG_EXCLUDE_IDLE (1ULL << 7)
#define PMT_ATTR_FLAG_MMAP (1ULL << 8)
#define PMT_ATTR_FLAG_COMM (1ULL << 9)
#define PMT_ATTR_FLAG_FREQ (1ULL << 10)
#define PMT_ATTR_FLAG_INHERIT_STAT (1ULL << 11)
#define PMT_ATTR_FLAG_ENABLE_ON_EXEC (1ULL << 12)
#define PMT_ATTR_FLAG_TASK (1ULL << 13)
#define PMT_ATTR_FLAG_WATERMARK (1ULL << 14)
#define PMT_ATTR_PRECISE_SHIFT 15 /* precise_ip: 2 bits */
#define PMT_ATTR_FLAG_MMAP_DATA (1ULL << 17)
#define PMT_ATTR_FLAG_SAMPLE_ID_ALL (1ULL << 18)
#define PMT_ATTR_FLAG_EXCLUDE_HOST (1ULL << 19)
#define PMT_ATTR_FLAG_EXCLUDE_GUEST (1ULL << 20)
#define PMT_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER (1ULL << 22)
#define PMT_ATTR_FLAG_MMAP2 (1ULL << 23)
#define PMT_ATTR_FLAG_COMM_EXEC (1ULL << 24)
#define PMT_ATTR_FLAG_USE_CLOCKID (1ULL << 25)
#define PMT_ATTR_FLAG_CONTEXT_SWITCH (1ULL << 26)
#define PMT_ATTR_FLAG_WRITE_BACKWARD (1ULL << 27)
#define PMT_ATTR_FLAG_KSYMBOL (1ULL << 29)
#define PMT_ATTR_FLAG_BPF_EVENT (1ULL << 30)
#define PMT_ATTR_FLAG_AUX_OUTPUT (1ULL << 31)
#define PMT_ATTR_FLAG_BUILD_ID (1ULL << 34)

/* struct perf_event_attr as the kernel takes it (PERF_ATTR_SIZE_VER9, 144 bytes, the size
 * perf 7.3 passes), on a little-endian host: the flags word is the kernel's bitfield word */
#define PMT_ATTR_SIZE_VER9 144
struct pmt_perf_attr {
	uint32_t type, size;
	uint64_t config;
	uint64_t sample_period; /* sample_freq when PMT_ATTR_FLAG_FREQ */
	uint64_t sample_type, read_format;
	uint64_t flags;         /* PMT_ATTR_FLAG_* */
	uint32_t wakeup_events; /* or wakeup_watermark */
	uint32_t bp_type;
	uint64_t config1;       /* or bp_addr */
	uint64_t config2;       /* or bp_len */
	uint64_t branch_sample_type, sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack, reserved_2;
	uint32_t aux_sample_size, aux_action;
	uint64_t sig_data;
	uint64_t config3, config4;
};
/* PERF_TYPE_* and the software event configs perf names */
enum { PMT_TYPE_HARDWARE = 0, PMT_TYPE_SOFTWARE = 1, PMT_TYPE_TRACEPOINT = 2,
       PMT_TYPE_HW_CACHE = 3, PMT_TYPE_RAW = 4, PMT_TYPE_BREAKPOINT = 5 };
enum { PMT_SW_CPU_CLOCK = 0, PMT_SW_TASK_CLOCK = 1, PMT_SW_PAGE_FAULTS = 2,
       PMT_SW_CONTEXT_SWITCHES = 3, PMT_SW_CPU_MIGRATIONS = 4, PMT_SW_PAGE_FAULTS_MIN = 5,
       PMT_SW_PAGE_FAULTS_MAJ = 6, PMT_SW_ALIGNMENT_FAULTS = 7, PMT_SW_EMULATION_FAULTS = 8,
       PMT_SW_DUMMY = 9, PMT_SW_BPF_OUTPUT = 10, PMT_SW_CGROUP_SWITCHES = 11 };

/* PERF_SAMPLE_* */
enum {
	PMT_SAMPLE_IP = 1 << 0, PMT_SAMPLE_TID = 1 << 1, PMT_SAMPLE_TIME = 1 << 2,
	PMT_SAMPLE_ADDR = 1 << 3, PMT_SAMPLE_READ = 1 << 4, PMT_SAMPLE_CALLCHAIN = 1 << 5,
	PMT_SAMPLE_ID = 1 << 6, PMT_SAMPLE_CPU = 1 << 7, PMT_SAMPLE_PERIOD = 1 << 8,
	PMT_SAMPLE_STREAM_ID = 1 << 9, PMT_SAMPLE_RAW = 1 << 10,
	PMT_SAMPLE_BRANCH_STACK = 1 << 11, PMT_SAMPLE_REGS_USER = 1 << 12,
	PMT_SAMPLE_STACK_USER = 1 << 13, PMT_SAMPLE_WEIGHT = 1 << 14,
	PMT_SAMPLE_DATA_SRC = 1 << 15, PMT_SAMPLE_IDENTIFIER = 1 << 16,
	PMT_SAMPLE_TRANSACTION = 1 << 17, PMT_SAMPLE_REGS_INTR = 1 << 18,
	PMT_SAMPLE_PHYS_ADDR = 1 << 19, PMT_SAMPLE_AUX = 1 << 20, PMT_SAMPLE_CGROUP = 1 << 21,
	PMT_SAMPLE_DATA_PAGE_SIZE = 1 << 22, PMT_SAMPLE_CODE_PAGE_SIZE = 1 << 23,
	PMT_SAMPLE_WEIGHT_STRUCT = 1 << 24,
};
/* PERF_FORMAT_* */
enum {
	PMT_READ_TOTAL_ENABLED = 1, PMT_READ_TOTAL_RUNNING = 2, PMT_READ_ID = 4, PMT_READ_GROUP = 8,
	PMT_READ_LOST = 16,
};
#define PMT_BRANCH_HW_INDEX (1ULL << 17)
#define PMT_BRANCH_COUNTERS (1ULL << 19)

/* Arm SPE AUXTRACE_INFO (tools/perf/util/arm-spe.h) */
#define PMT_AUXTRACE_ARM_SPE 4
#define PMT_SPE_V2_MAGIC 0x1010101010101010ULL
/* header.misc bits */
#define PMT_MISC_COMM_EXEC (1 << 13)
#define PMT_MISC_SWITCH_OUT (1 << 13)
#define PMT_MISC_SWITCH_OUT_PREEMPT (1 << 14)
#define PMT_MISC_MMAP_BUILD_ID (1 << 14)

/* HEADER_* feature ids (bit numbers of the perf.data feature bitmap) */
enum {
	PMT_FEAT_BUILD_ID = 2, PMT_FEAT_HOSTNAME = 3, PMT_FEAT_OSRELEASE = 4, PMT_FEAT_VERSION = 5,
	PMT_FEAT_ARCH = 6, PMT_FEAT_NRCPUS = 7, PMT_FEAT_CPUDESC = 8, PMT_FEAT_CPUID = 9,
	PMT_FEAT_TOTAL_MEM = 10, PMT_FEAT_CMDLINE = 11, PMT_FEAT_EVENT_DESC = 12,
	PMT_FEAT_CPU_TOPOLOGY = 13, PMT_FEAT_NUMA_TOPOLOGY = 14,
	PMT_FEAT_PMU_MAPPINGS = 16, PMT_FEAT_AUXTRACE = 18, PMT_FEAT_CLOCKID = 23, PMT_FEAT_COMPRESSED = 27,
	PMT_FEAT_CLOCK_DATA = 29,
	PMT_FEAT_BITS = 256,
};

/* struct perf_mem_data_src (linux/perf_event.h): field shifts and the bits perf c2c reads */
enum {
	PMT_MEM_OP_SHIFT = 0, PMT_MEM_LVL_SHIFT = 5, PMT_MEM_SNOOP_SHIFT = 19,
	PMT_MEM_LOCK_SHIFT = 24, PMT_MEM_REMOTE_SHIFT = 37, PMT_MEM_SNOOPX_SHIFT = 38,
	PMT_MEM_BLK_SHIFT = 40, PMT_MEM_HOPS_SHIFT = 43,
	PMT_MEM_OP_LOAD = 0x02, PMT_MEM_OP_STORE = 0x04,
	PMT_MEM_LVL_NA = 0x01, PMT_MEM_LVL_HIT = 0x02, PMT_MEM_LVL_MISS = 0x04,
	PMT_MEM_LVL_L1 = 0x08, PMT_MEM_LVL_LFB = 0x10, PMT_MEM_LVL_L2 = 0x20,
	PMT_MEM_LVL_L3 = 0x40, PMT_MEM_LVL_LOC_RAM = 0x80, PMT_MEM_LVL_REM_RAM1 = 0x100,
	PMT_MEM_LVL_REM_RAM2 = 0x200, PMT_MEM_LVL_REM_CCE1 = 0x400,
	PMT_MEM_LVL_REM_CCE2 = 0x800, PMT_MEM_LVL_IO = 0x1000, PMT_MEM_LVL_UNC = 0x2000,
	PMT_MEM_SNOOP_HIT = 0x04, PMT_MEM_SNOOP_HITM = 0x10, PMT_MEM_SNOOPX_PEER = 0x02,
	PMT_MEM_LOCK_LOCKED = 0x02, PMT_MEM_BLK_DATA = 0x02, PMT_MEM_BLK_ADDR = 0x04,
};

/* PERF_RECORD_* numbers used by the decoders (kernel and perf tool records). */
enum {
	PMT_REC_MMAP = 1, PMT_REC_LOST = 2, PMT_REC_COMM = 3, PMT_REC_EXIT = 4,
	PMT_REC_FORK = 7, PMT_REC_SAMPLE = 9, PMT_REC_MMAP2 = 10, PMT_REC_AUX = 11,
	PMT_REC_ITRACE_START = 12, PMT_REC_LOST_SAMPLES = 13, PMT_REC_SWITCH = 14,
	PMT_REC_SWITCH_CPU_WIDE = 15,
	PMT_REC_HEADER_ATTR = 64, PMT_REC_FINISHED_ROUND = 68, PMT_REC_ID_INDEX = 69,
	PMT_REC_AUXTRACE_INFO = 70, PMT_REC_AUXTRACE = 71, PMT_REC_AUXTRACE_ERROR = 72,
	PMT_REC_TIME_CONV = 79, PMT_REC_HEADER_FEATURE = 80, PMT_REC_COMPRESSED = 81,
	PMT_REC_THREAD_MAP = 73, PMT_REC_FINISHED_INIT = 82, PMT_REC_COMPRESSED2 = 83,
	PMT_REC_CPU_MAP = 74, PMT_REC_STAT_CONFIG = 75, PMT_REC_STAT = 76,
	PMT_REC_STAT_ROUND = 77, PMT_REC_EVENT_UPDATE = 78,
};
/* PERF_RECORD_EVENT_UPDATE kinds (PERF_EVENT_UPDATE__*): NAME carries the event's name */
enum { PMT_EVENT_UPDATE_NAME = 2 };

/* PERF_RECORD_AUX flags (PERF_AUX_FLAG_*) */
enum {
	PMT_AUX_FLAG_TRUNCATED = 0x01, PMT_AUX_FLAG_OVERWRITE = 0x02, PMT_AUX_FLAG_PARTIAL = 0x04,
	PMT_AUX_FLAG_COLLISION = 0x08,
};

_Static_assert(sizeof(struct pmt_perf_attr) == PMT_ATTR_SIZE_VER9, "perf_event_attr layout");

#ifdef __cplusplus
}
#endif
#endif
