/* A hybrid part's --topdown without a metric table: the columns of both core PMUs in the
 * order perf 7.3 prints them from its built-in table, and the cpu_atom ratios from the
 * TOPDOWN_* events of that table (pmu-events alderlake/adl-metrics.json,
 * meteorlake/mtl-metrics.json, arrowlake/arl-metrics.json, lunarlake/lnl-metrics.json,
 * torvalds/linux; perf 7.3's -vv prints the same formulas and encodings). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

#define C(n) { n, false }
#define A(n) { n, true }
#define N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

/* perf prints the metrics evsel by evsel in the order of its hashed event list, which
 * interleaves the two PMUs: not a rule of the names, so these are perf 7.3's outputs on the
 * simulated hybrid PMU (tests/stat/hybrid_stat.sh), model by model */
static const struct pmt_topdown_column adl_l1[] = {
	C("tma_frontend_bound"), C("tma_bad_speculation"), C("tma_retiring"),
	C("tma_backend_bound"), A("tma_bad_speculation"), A("tma_retiring"),
	A("tma_frontend_bound"), A("tma_backend_bound"),
};
static const struct pmt_topdown_column mtl_l1[] = {
	A("tma_backend_bound"), C("tma_frontend_bound"), C("tma_bad_speculation"),
	C("tma_retiring"), C("tma_backend_bound"), A("tma_retiring"),
	A("tma_bad_speculation"), A("tma_frontend_bound"),
};
static const struct pmt_topdown_column lnl_l1[] = {
	A("tma_backend_bound"), C("tma_retiring"), C("tma_frontend_bound"),
	C("tma_bad_speculation"), C("tma_backend_bound"), A("tma_retiring"),
	A("tma_bad_speculation"), A("tma_frontend_bound"),
};
/* level 2's cpu_core columns in these tables' order (Granite Rapids' differs) */
#define CORE_L2                                                                              \
	C("tma_memory_bound"), C("tma_core_bound"), C("tma_light_operations"),                  \
	C("tma_heavy_operations"), C("tma_fetch_latency"), C("tma_fetch_bandwidth"),            \
	C("tma_machine_clears"), C("tma_branch_mispredicts")
static const struct pmt_topdown_column adl_l2[] = {
	A("tma_machine_clears"), CORE_L2, A("tma_core_bound"), A("tma_branch_mispredicts"),
	A("tma_ifetch_latency"), A("tma_ifetch_bandwidth"), A("tma_resource_bound"),
};
static const struct pmt_topdown_column mtl_l2[] = {
	A("tma_machine_clears"), A("tma_resource_bound"), CORE_L2, A("tma_core_bound"),
	A("tma_branch_mispredicts"), A("tma_ifetch_latency"), A("tma_ifetch_bandwidth"),
};

/* cpu_atom raw configs (umask << 8 | event) in the order perf 7.3 parses them */
static const struct pmt_topdown_atom_event adl_ev1[] = {
	{ 0xc2, PMT_TDA_RETIRING }, { 0x3c, PMT_TDA_CYCLES }, { 0x71, PMT_TDA_FE_BOUND },
	{ 0x74, PMT_TDA_BE_BOUND },
};
static const struct pmt_topdown_atom_event mtl_ev1[] = {
	/* the *.ALL_P events */
	{ 0x74, PMT_TDA_BE_BOUND }, { 0x72, PMT_TDA_RETIRING }, { 0x3c, PMT_TDA_CYCLES },
	{ 0x73, PMT_TDA_BAD_SPEC }, { 0x71, PMT_TDA_FE_BOUND },
};
static const struct pmt_topdown_atom_event lnl_ev1[] = {
	/* TOPDOWN_BE_BOUND.ALL_P is 0xa4/0x02 on Skymont; RETIRING.ALL and FE_BOUND.ALL the
	 * fixed counters' pseudo-encodings */
	{ 0x2a4, PMT_TDA_BE_BOUND }, { 0x700, PMT_TDA_RETIRING }, { 0x3c, PMT_TDA_CYCLES },
	{ 0x73, PMT_TDA_BAD_SPEC }, { 0x600, PMT_TDA_FE_BOUND },
};
static const struct pmt_topdown_atom_event adl_ev2[] = {
	{ 0x373, PMT_TDA_MACHINE_CLEARS }, { 0x174, PMT_TDA_ALLOC_RESTRICTIONS },
	{ 0x473, PMT_TDA_MISPREDICT }, { 0x7271, PMT_TDA_FE_LATENCY }, { 0x3c, PMT_TDA_CYCLES },
	{ 0x8d71, PMT_TDA_FE_BANDWIDTH }, { 0x74, PMT_TDA_BE_BOUND },
};
#define L2_AFTER_BE(be)                                                                      \
	{ 0x373, PMT_TDA_MACHINE_CLEARS }, { be, PMT_TDA_BE_BOUND },                            \
	{ 0x174, PMT_TDA_ALLOC_RESTRICTIONS }, { 0x473, PMT_TDA_MISPREDICT },                   \
	{ 0x7271, PMT_TDA_FE_LATENCY }, { 0x3c, PMT_TDA_CYCLES },                               \
	{ 0x8d71, PMT_TDA_FE_BANDWIDTH }
static const struct pmt_topdown_atom_event mtl_ev2[] = { L2_AFTER_BE(0x74) };
static const struct pmt_topdown_atom_event lnl_ev2[] = { L2_AFTER_BE(0x2a4) };

#define LAYOUT(m, w, cols, ev, uop, bs) { m, w, N(cols), N(ev), cols, ev, uop, bs }
#define UOP_DROPPING 0x10ad /* INT_MISC.UOP_DROPPING */
static const struct {
	const char *pmu_name; /* cpu_atom's caps/pmu_name, as the kernel names the part */
	struct pmt_topdown_hybrid level[2];
} layouts[] = {
	/* Gracemont: 5 slots a cycle; perf 7.3 for GenuineIntel-6-97, 9A, B7, BA, BF */
	{ "alderlake_hybrid", { LAYOUT("Alder Lake", 5, adl_l1, adl_ev1, UOP_DROPPING, false),
				LAYOUT("Alder Lake", 5, adl_l2, adl_ev2, UOP_DROPPING, false) } },
	/* Crestmont: 6; 6-AA, AC */
	{ "meteorlake_hybrid", { LAYOUT("Meteor Lake", 6, mtl_l1, mtl_ev1, UOP_DROPPING, false),
				 LAYOUT("Meteor Lake", 6, mtl_l2, mtl_ev2, UOP_DROPPING, false) } },
	/* Skymont: 8; perf 7.3 prints the same for 6-BD (Lunar Lake), C5 and C6 (Arrow Lake).
	 * The kernel names Lunar Lake's and Arrow Lake-S's (6-C6) PMU lunarlake_hybrid,
	 * Arrow Lake-H's (6-C5) arrowlake_h_hybrid (its cpu_lowpower PMU is not read here). */
	{ "lunarlake_hybrid", { LAYOUT("Lunar Lake", 8, lnl_l1, lnl_ev1, 0, true),
				LAYOUT("Lunar Lake", 8, mtl_l2, lnl_ev2, 0, true) } },
	{ "arrowlake_h_hybrid", { LAYOUT("Arrow Lake-H", 8, lnl_l1, lnl_ev1, 0, true),
				  LAYOUT("Arrow Lake-H", 8, mtl_l2, lnl_ev2, 0, true) } },
};

const struct pmt_topdown_hybrid *pmt_topdown_hybrid(const char *atom_pmu_name, unsigned level)
{
	for (size_t i = 0; atom_pmu_name && i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (!strcmp(atom_pmu_name, layouts[i].pmu_name))
			return level == 1 || level == 2 ? &layouts[i].level[level - 1] : NULL;
	return NULL;
}

int pmt_topdown_atom_eval(const struct pmt_topdown_hybrid *h, const double count[PMT_TDA_NR],
			  struct pmt_topdown *out)
{
	double slots = h->slots_per_cycle * count[PMT_TDA_CYCLES];
	bool bad_spec_counted = false;

	memset(out, 0, sizeof(*out));
	if (!(slots > 0))
		return -PMT_EINVAL;
	for (unsigned i = 0; i < h->nr_events; i++)
		bad_spec_counted |= h->event[i].role == PMT_TDA_BAD_SPEC;
	out->slots = slots;
	out->fe_bound = count[PMT_TDA_FE_BOUND] / slots;
	out->be_bound = count[PMT_TDA_BE_BOUND] / slots;
	out->retiring = count[PMT_TDA_RETIRING] / slots;
	/* Alder Lake's table has no bad speculation event: what the other three leave, not
	 * clamped at 0 as the P-core's is */
	out->bad_spec = bad_spec_counted ? count[PMT_TDA_BAD_SPEC] / slots
					 : (slots - (count[PMT_TDA_FE_BOUND] + count[PMT_TDA_BE_BOUND] +
						     count[PMT_TDA_RETIRING])) / slots;
	out->machine_clears = count[PMT_TDA_MACHINE_CLEARS] / slots;
	out->br_mispredict = count[PMT_TDA_MISPREDICT] / slots;
	out->core_bound = count[PMT_TDA_ALLOC_RESTRICTIONS] / slots;
	out->ifetch_lat = count[PMT_TDA_FE_LATENCY] / slots;
	out->ifetch_bw = count[PMT_TDA_FE_BANDWIDTH] / slots;
	out->resource_bound = out->be_bound - out->core_bound;
	return 0;
}
