/* struct perf_event_attr in perf's -vv layout (tools/perf/util/perf_event_attr_fprintf.c):
 * "  KEY<pad to 32> VALUE", non-zero fields only, in perf's order, with its number formats
 * and the annotations perf 7.3 adds to type and config. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pmutrace/perfdata.h"

struct bit_name {
	uint64_t bit;
	const char *name;
};

static const struct bit_name sample_bits[] = {
	{ PMT_SAMPLE_IP, "IP" }, { PMT_SAMPLE_TID, "TID" }, { PMT_SAMPLE_TIME, "TIME" },
	{ PMT_SAMPLE_ADDR, "ADDR" }, { PMT_SAMPLE_READ, "READ" },
	{ PMT_SAMPLE_CALLCHAIN, "CALLCHAIN" }, { PMT_SAMPLE_ID, "ID" }, { PMT_SAMPLE_CPU, "CPU" },
	{ PMT_SAMPLE_PERIOD, "PERIOD" }, { PMT_SAMPLE_STREAM_ID, "STREAM_ID" },
	{ PMT_SAMPLE_RAW, "RAW" }, { PMT_SAMPLE_BRANCH_STACK, "BRANCH_STACK" },
	{ PMT_SAMPLE_REGS_USER, "REGS_USER" }, { PMT_SAMPLE_STACK_USER, "STACK_USER" },
	{ PMT_SAMPLE_IDENTIFIER, "IDENTIFIER" }, { PMT_SAMPLE_REGS_INTR, "REGS_INTR" },
	{ PMT_SAMPLE_DATA_SRC, "DATA_SRC" }, { PMT_SAMPLE_WEIGHT, "WEIGHT" },
	{ PMT_SAMPLE_PHYS_ADDR, "PHYS_ADDR" }, { PMT_SAMPLE_AUX, "AUX" },
	{ PMT_SAMPLE_CGROUP, "CGROUP" }, { PMT_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE" },
	{ PMT_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE" },
	{ PMT_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT" }, { 0, NULL },
};
static const struct bit_name read_bits[] = {
	{ PMT_READ_TOTAL_ENABLED, "TOTAL_TIME_ENABLED" },
	{ PMT_READ_TOTAL_RUNNING, "TOTAL_TIME_RUNNING" }, { PMT_READ_ID, "ID" },
	{ PMT_READ_GROUP, "GROUP" }, { PMT_READ_LOST, "LOST" }, { 0, NULL },
};
/* the one-bit flags, in perf's print order (precise_ip, two bits, sits between) */
static const char *const flag_names[38] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
	"exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat", "enable_on_exec",
	"task", "watermark", NULL, NULL, "mmap_data", "sample_id_all", "exclude_host",
	"exclude_guest", "exclude_callchain_kernel", "exclude_callchain_user", "mmap2",
	"comm_exec", "use_clockid", "context_switch", "write_backward", "namespaces", "ksymbol",
	"bpf_event", "aux_output", "cgroup", "text_poke", "build_id", "inherit_thread",
	"remove_on_exec", "sigtrap",
};
static const char *const type_names[] = {
	"PERF_TYPE_HARDWARE", "PERF_TYPE_SOFTWARE", "PERF_TYPE_TRACEPOINT", "PERF_TYPE_HW_CACHE",
	"PERF_TYPE_RAW", "PERF_TYPE_BREAKPOINT",
};
static const char *const hw_names[] = {
	"PERF_COUNT_HW_CPU_CYCLES", "PERF_COUNT_HW_INSTRUCTIONS",
	"PERF_COUNT_HW_CACHE_REFERENCES", "PERF_COUNT_HW_CACHE_MISSES",
	"PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "PERF_COUNT_HW_BRANCH_MISSES",
	"PERF_COUNT_HW_BUS_CYCLES", "PERF_COUNT_HW_STALLED_CYCLES_FRONTEND",
	"PERF_COUNT_HW_STALLED_CYCLES_BACKEND", "PERF_COUNT_HW_REF_CPU_CYCLES",
};
static const char *const sw_names[] = {
	"PERF_COUNT_SW_CPU_CLOCK", "PERF_COUNT_SW_TASK_CLOCK", "PERF_COUNT_SW_PAGE_FAULTS",
	"PERF_COUNT_SW_CONTEXT_SWITCHES", "PERF_COUNT_SW_CPU_MIGRATIONS",
	"PERF_COUNT_SW_PAGE_FAULTS_MIN", "PERF_COUNT_SW_PAGE_FAULTS_MAJ",
	"PERF_COUNT_SW_ALIGNMENT_FAULTS", "PERF_COUNT_SW_EMULATION_FAULTS",
	"PERF_COUNT_SW_DUMMY", "PERF_COUNT_SW_BPF_OUTPUT", "PERF_COUNT_SW_CGROUP_SWITCHES",
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void line(FILE *fp, const char *key, const char *val)
{
	fprintf(fp, "  %-32s %s\n", key, val);
}

static void bits(FILE *fp, const char *key, uint64_t v, const struct bit_name *names)
{
	char buf[512];
	size_t n = 0;

	if (!v)
		return;
	buf[0] = 0;
	for (; names->name; names++)
		if (v & names->bit)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "|" : "",
					      names->name);
	line(fp, key, buf);
}

static void u64_line(FILE *fp, const char *key, uint64_t v, bool hex)
{
	char buf[32];

	if (!v)
		return;
	snprintf(buf, sizeof(buf), hex ? "%#" PRIx64 : "%" PRIu64, v);
	line(fp, key, buf);
}

void pmt_perf_attr_print(FILE *fp, const struct pmt_perf_attr *a, const char *pmu_name)
{
	char buf[96];

	if (a->type < N_OF(type_names))
		snprintf(buf, sizeof(buf), "%u (%s)", a->type, type_names[a->type]);
	else if (pmu_name)
		snprintf(buf, sizeof(buf), "%u (%s)", a->type, pmu_name);
	else
		snprintf(buf, sizeof(buf), "%u", a->type);
	line(fp, "type", buf);
	u64_line(fp, "size", a->size, false);
	{
		/* perf 7.3 prints config even when 0, with the generic event's name */
		const char *cn = NULL;

		if (a->type == PMT_TYPE_SOFTWARE && a->config < N_OF(sw_names))
			cn = sw_names[a->config];
		else if (a->type == PMT_TYPE_HARDWARE && a->config < N_OF(hw_names))
			cn = hw_names[a->config];
		if (cn)
			snprintf(buf, sizeof(buf), "%#" PRIx64 " (%s)", a->config, cn);
		else
			snprintf(buf, sizeof(buf), "%#" PRIx64, a->config);
		line(fp, "config", buf);
	}
	u64_line(fp, "{ sample_period, sample_freq }", a->sample_period, false);
	bits(fp, "sample_type", a->sample_type, sample_bits);
	bits(fp, "read_format", a->read_format, read_bits);
	for (unsigned b = 0; b < N_OF(flag_names); b++) {
		if (b == PMT_ATTR_PRECISE_SHIFT)
			u64_line(fp, "precise_ip", (a->flags >> PMT_ATTR_PRECISE_SHIFT) & 3, false);
		if (flag_names[b] && (a->flags >> b & 1))
			line(fp, flag_names[b], "1");
	}
	u64_line(fp, "{ wakeup_events, wakeup_watermark }", a->wakeup_events, false);
	u64_line(fp, "bp_type", a->bp_type, false);
	u64_line(fp, "{ bp_addr, config1 }", a->config1, true);
	u64_line(fp, "{ bp_len, config2 }", a->config2, true);
	u64_line(fp, "branch_sample_type", a->branch_sample_type, true);
	u64_line(fp, "sample_regs_user", a->sample_regs_user, true);
	u64_line(fp, "sample_stack_user", a->sample_stack_user, false);
	if (a->clockid) {
		snprintf(buf, sizeof(buf), "%d", a->clockid);
		line(fp, "clockid", buf);
	}
	u64_line(fp, "sample_regs_intr", a->sample_regs_intr, true);
	u64_line(fp, "aux_watermark", a->aux_watermark, false);
	u64_line(fp, "sample_max_stack", a->sample_max_stack, false);
	u64_line(fp, "aux_sample_size", a->aux_sample_size, false);
	u64_line(fp, "sig_data", a->sig_data, false);
	/* perf 7.3 does not print these two; they are what SPE's inverted filters set */
	u64_line(fp, "config3", a->config3, true);
	u64_line(fp, "config4", a->config4, true);
}
