/* perf's built-in event names: software, hardware (evsel__hw_names) and the hardware
 * cache events (evsel__hw_cache and its op and result aliases), and the near names offered
 * for a name that is none of them */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "events_priv.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} legacy[] = {
	{ "cpu-clock", PMT_TYPE_SOFTWARE, PMT_SW_CPU_CLOCK },
	{ "task-clock", PMT_TYPE_SOFTWARE, PMT_SW_TASK_CLOCK },
	{ "page-faults", PMT_TYPE_SOFTWARE, PMT_SW_PAGE_FAULTS },
	{ "faults", PMT_TYPE_SOFTWARE, PMT_SW_PAGE_FAULTS },
	{ "context-switches", PMT_TYPE_SOFTWARE, PMT_SW_CONTEXT_SWITCHES },
	{ "cs", PMT_TYPE_SOFTWARE, PMT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PMT_TYPE_SOFTWARE, PMT_SW_CPU_MIGRATIONS },
	{ "migrations", PMT_TYPE_SOFTWARE, PMT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PMT_TYPE_SOFTWARE, PMT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PMT_TYPE_SOFTWARE, PMT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PMT_TYPE_SOFTWARE, PMT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PMT_TYPE_SOFTWARE, PMT_SW_EMULATION_FAULTS },
	{ "dummy", PMT_TYPE_SOFTWARE, PMT_SW_DUMMY },
	{ "bpf-output", PMT_TYPE_SOFTWARE, PMT_SW_BPF_OUTPUT },
	{ "cgroup-switches", PMT_TYPE_SOFTWARE, PMT_SW_CGROUP_SWITCHES },
	{ "cycles", PMT_TYPE_HARDWARE, 0 },
	{ "cpu-cycles", PMT_TYPE_HARDWARE, 0 },
	{ "instructions", PMT_TYPE_HARDWARE, 1 },
	{ "cache-references", PMT_TYPE_HARDWARE, 2 },
	{ "cache-misses", PMT_TYPE_HARDWARE, 3 },
	{ "branch-instructions", PMT_TYPE_HARDWARE, 4 },
	{ "branches", PMT_TYPE_HARDWARE, 4 },
	{ "branch-misses", PMT_TYPE_HARDWARE, 5 },
	{ "bus-cycles", PMT_TYPE_HARDWARE, 6 },
	{ "stalled-cycles-frontend", PMT_TYPE_HARDWARE, 7 },
	{ "idle-cycles-frontend", PMT_TYPE_HARDWARE, 7 },
	{ "stalled-cycles-backend", PMT_TYPE_HARDWARE, 8 },
	{ "idle-cycles-backend", PMT_TYPE_HARDWARE, 8 },
	{ "ref-cycles", PMT_TYPE_HARDWARE, 9 },
};
#define N_LEGACY (sizeof(legacy) / sizeof(legacy[0]))

bool pmt_legacy_find(const char *name, size_t n, uint32_t *type, uint64_t *config)
{
	for (size_t i = 0; i < N_LEGACY; i++) {
		if (strlen(legacy[i].name) == n && !strncasecmp(legacy[i].name, name, n)) {
			*type = legacy[i].type;
			*config = legacy[i].config;
			return true;
		}
	}
	return false;
}

/* PERF_COUNT_HW_CACHE_{L1D, L1I, LL, DTLB, ITLB, BPU, NODE}, first name canonical */
static const char *const cache_names[][4] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2", NULL, NULL },
	{ "dTLB", "d-tlb", "Data-TLB", NULL },
	{ "iTLB", "i-tlb", "Instruction-TLB", NULL },
	{ "branch", "branches", "bpu", "btb" },
	{ "node", NULL, NULL, NULL },
};
static const char *const cache_ops[][4] = {
	{ "load", "loads", "read", NULL },
	{ "store", "stores", "write", NULL },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};
static const char *const cache_results[][4] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss", NULL, NULL },
};
/* evsel__hw_cache_stat: the ops each cache has (bit per op) */
static const uint8_t cache_op_valid[] = { 7, 5, 7, 7, 1, 1, 7 };

/* the longest alias of `names` that s starts with, followed by '-' or the end */
static int match_alias(const char *const (*names)[4], size_t nr, const char *s, size_t n,
		       size_t *len)
{
	int best = -1;

	*len = 0;
	for (size_t i = 0; i < nr; i++) {
		for (size_t j = 0; j < 4 && names[i][j]; j++) {
			size_t l = strlen(names[i][j]);

			if (l <= n && l > *len && !strncasecmp(names[i][j], s, l) &&
			    (l == n || s[l] == '-')) {
				best = (int)i;
				*len = l;
			}
		}
	}
	return best;
}

/* perf's parse_events__decode_legacy_cache: CACHE[-OP][-RESULT], OP defaults to load and
 * RESULT to access; an op the cache has not is no cache event */
bool pmt_cache_find(const char *name, size_t n, uint64_t *config)
{
	size_t len;
	int cache = match_alias(cache_names, 7, name, n, &len), op = -1, result = -1;

	if (cache < 0)
		return false;
	name += len;
	n -= len;
	while (n) {
		int v;

		name++, n--; /* the '-' */
		if (op < 0 && (v = match_alias(cache_ops, 3, name, n, &len)) >= 0)
			op = v;
		else if (result < 0 && (v = match_alias(cache_results, 2, name, n, &len)) >= 0)
			result = v;
		else
			return false;
		name += len;
		n -= len;
	}
	if (op < 0)
		op = 0;
	if (result < 0)
		result = 0;
	if (!(cache_op_valid[cache] & (1u << op)))
		return false;
	*config = (uint64_t)cache | (uint64_t)op << 8 | (uint64_t)result << 16;
	return true;
}

void pmt_events_suggest(const char *want, const struct pmt_pmus *pmus,
			const struct pmt_event_table *table, const struct pmt_pmu *terms_of,
			char *out, size_t cap)
{
	struct pmt_near nr;
	char buf[96];
	size_t len;

	pmt_near_init(&nr, want, strlen(want) > 8 ? (unsigned)strlen(want) / 4 : 2, false);
	for (size_t i = 0; i < N_LEGACY; i++)
		pmt_near_consider(&nr, legacy[i].name);
	for (size_t c = 0; c < 7; c++) {
		for (size_t o = 0; o < 3; o++) {
			if (!(cache_op_valid[c] & (1u << o)))
				continue;
			snprintf(buf, sizeof(buf), "%s-%s", cache_names[c][0], cache_ops[o][1]);
			pmt_near_consider(&nr, buf);
			snprintf(buf, sizeof(buf), "%s-%s-misses", cache_names[c][0],
				 cache_ops[o][0]);
			pmt_near_consider(&nr, buf);
		}
	}
	for (uint32_t p = 0; p < pmus->nr; p++) {
		pmt_near_consider(&nr, pmus->pmu[p].name);
		for (uint32_t a = 0; a < pmus->pmu[p].nr_aliases; a++)
			pmt_near_consider(&nr, pmus->pmu[p].aliases[a].name);
	}
	for (uint32_t f = 0; terms_of && f < terms_of->nr_formats; f++)
		pmt_near_consider(&nr, terms_of->formats[f].name);
	for (uint32_t i = 0; table && i < pmt_event_table_size(table); i++)
		pmt_near_consider(&nr, pmt_event_table_name(table, i));
	len = (size_t)snprintf(out, cap, "; did you mean ");
	if (!pmt_near_list(&nr, out + (len < cap ? len : cap), len < cap ? cap - len : 0))
		out[0] = 0;
	else if (strlen(out) + 1 < cap)
		strcat(out, "?");
}
