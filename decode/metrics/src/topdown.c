/* Topdown level 1 and 2 from raw SLOTS and PERF_METRICS values
 * (Documentation/topdown.txt, "Decoding metrics values" and the Sapphire Rapids extension).
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

#define GET_METRIC(m, i) (((m) >> ((i) * 8)) & 0xff)

/* The kernel's topdown-* counts: mul_u64_u32_div(slots, byte, 0xff). */
static double metric_slots(uint64_t slots, uint64_t metrics, int i)
{
	return (double)(uint64_t)((unsigned __int128)slots * GET_METRIC(metrics, i) / 0xff);
}

/* perf's expr.y max(a, b) is a > b ? a : b: NaN wins as the second argument only. Its
 * tables write level 1's bad speculation max(1 - ..., 0) (NaN gives 0) and level 2's
 * max(0, x) (NaN stays NaN), so an E core's cpu_core columns (--per-core, no counts) are
 * 0 at level 1 and NaN at level 2, as perf 7.3 prints them */
static double max_nan_0(double v) { return v > 0 ? v : 0; }
static double max_0_nan(double v) { return 0 > v ? 0 : v; }

int pmt_topdown_from_counts(double slots, const double td[8], struct pmt_topdown *out)
{
	double level1 = td[0] + td[1] + td[2] + td[3];

	memset(out, 0, sizeof(*out));
	/* perf's tma_* formulas divide every field by the sum of the four level-1 counts, so
	 * the level-1 fractions add up to 100% even when the hardware's bytes do not add up
	 * to 0xff (the topdown.txt decoding divides by 0xff instead); a sum of 0 still gives
	 * perf's values (NaN, a max(NaN, 0) 0, a max(0, NaN) NaN) with the error */
	out->slots = slots;
	out->retiring = td[0] / level1;
	out->fe_bound = td[2] / level1;
	out->be_bound = td[3] / level1;
	out->bad_spec = max_nan_0(1 - (out->fe_bound + out->be_bound + out->retiring));
	out->heavy_ops = td[4] / level1;
	out->br_mispredict = td[5] / level1;
	out->fetch_lat = td[6] / level1;
	out->mem_bound = td[7] / level1;
	out->light_ops = max_0_nan(out->retiring - out->heavy_ops);
	out->machine_clears = max_0_nan(out->bad_spec - out->br_mispredict);
	out->fetch_bw = max_0_nan(out->fe_bound - out->fetch_lat);
	out->core_bound = max_0_nan(out->be_bound - out->mem_bound);
	return level1 > 0 ? 0 : -PMT_EINVAL;
}

int pmt_topdown_less_uop_dropping(struct pmt_topdown *t, double uop_dropping)
{
	if (!(t->slots > 0))
		return -PMT_EINVAL;
	t->fe_bound -= uop_dropping / t->slots;
	t->fetch_lat -= uop_dropping / t->slots;
	t->bad_spec = max_nan_0(1 - (t->fe_bound + t->be_bound + t->retiring));
	t->machine_clears = max_0_nan(t->bad_spec - t->br_mispredict);
	t->fetch_bw = max_0_nan(t->fe_bound - t->fetch_lat);
	return 0;
}

int pmt_topdown_bad_spec_counted(struct pmt_topdown *t, const double td[8])
{
	double level1 = td[0] + td[1] + td[2] + td[3];

	t->bad_spec = td[1] / level1;
	t->machine_clears = max_0_nan(t->bad_spec - t->br_mispredict);
	return level1 > 0 ? 0 : -PMT_EINVAL;
}

int pmt_topdown_decode(uint64_t slots, uint64_t metrics, uint64_t prev_slots,
		       uint64_t prev_metrics, struct pmt_topdown *out)
{
	double d[8];
	uint64_t of[8];
	int rc;

	memset(out, 0, sizeof(*out));
	if (slots <= prev_slots)
		return -PMT_EINVAL;
	for (int i = 0; i < 8; i++) {
		/* topdown-* counts of each read, as perf stat reads them; the delta between */
		d[i] = metric_slots(slots, metrics, i) - metric_slots(prev_slots, prev_metrics, i);
		of[i] = (uint64_t)metric_slots(slots, metrics, i);
	}
	rc = pmt_topdown_from_counts((double)(slots - prev_slots), d, out);
	memcpy(out->slots_of, of, sizeof(of));
	return rc;
}

/* perf prints the metrics of the evsel each is attached to, evsel by evsel, in the order
 * of its hashed event list: not a rule of the names, so the orders are perf's output's */
static const char *const level1[] = { "tma_frontend_bound", "tma_bad_speculation",
				      "tma_retiring", "tma_backend_bound" };
static const char *const level2[] = { "tma_memory_bound", "tma_core_bound",
				      "tma_light_operations", "tma_heavy_operations",
				      "tma_machine_clears", "tma_branch_mispredicts",
				      "tma_fetch_latency", "tma_fetch_bandwidth" };

int pmt_topdown_columns(unsigned level, const char *const **names)
{
	if (level == 1) {
		*names = level1;
		return 4;
	}
	if (level == 2) {
		*names = level2;
		return 8;
	}
	return -PMT_EINVAL;
}

double pmt_topdown_pct(const struct pmt_topdown *t, const char *name)
{
	static const struct {
		const char *name;
		size_t off;
	} field[] = {
		{ "tma_frontend_bound", offsetof(struct pmt_topdown, fe_bound) },
		{ "tma_bad_speculation", offsetof(struct pmt_topdown, bad_spec) },
		{ "tma_retiring", offsetof(struct pmt_topdown, retiring) },
		{ "tma_backend_bound", offsetof(struct pmt_topdown, be_bound) },
		{ "tma_memory_bound", offsetof(struct pmt_topdown, mem_bound) },
		{ "tma_core_bound", offsetof(struct pmt_topdown, core_bound) },
		{ "tma_light_operations", offsetof(struct pmt_topdown, light_ops) },
		{ "tma_heavy_operations", offsetof(struct pmt_topdown, heavy_ops) },
		{ "tma_machine_clears", offsetof(struct pmt_topdown, machine_clears) },
		{ "tma_branch_mispredicts", offsetof(struct pmt_topdown, br_mispredict) },
		{ "tma_fetch_latency", offsetof(struct pmt_topdown, fetch_lat) },
		{ "tma_fetch_bandwidth", offsetof(struct pmt_topdown, fetch_bw) },
		{ "tma_ifetch_latency", offsetof(struct pmt_topdown, ifetch_lat) },
		{ "tma_ifetch_bandwidth", offsetof(struct pmt_topdown, ifetch_bw) },
		{ "tma_resource_bound", offsetof(struct pmt_topdown, resource_bound) },
	};

	for (size_t i = 0; i < sizeof(field) / sizeof(field[0]); i++)
		if (!strcmp(name, field[i].name))
			return 100 * *(const double *)((const char *)t + field[i].off);
	return NAN;
}

unsigned pmt_metric_set_topdown_max_level(const struct pmt_metric_set *ms)
{
	unsigned max = 0;

	for (size_t i = 0; i < ms->nr; i++) {
		const char *p = ms->m[i].groups ? strstr(ms->m[i].groups, "TopdownL") : NULL;

		if (p && p[8] >= '0' && p[8] <= '9' && (unsigned)(p[8] - '0') > max)
			max = (unsigned)(p[8] - '0');
	}
	return max;
}
