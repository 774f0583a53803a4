/* Topdown level 1 and 2 from raw SLOTS and PERF_METRICS values
 * (Documentation/topdown.txt, "Decoding metrics values" and the Sapphire Rapids extension).
 */
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

#define GET_METRIC(m, i) (((m) >> ((i) * 8)) & 0xff)

int pmt_topdown_decode(uint64_t slots, uint64_t metrics, uint64_t prev_slots,
		       uint64_t prev_metrics, struct pmt_topdown *out)
{
	double r[8], delta;

	memset(out, 0, sizeof(*out));
	if (slots <= prev_slots)
		return -PMT_EINVAL;
	delta = (double)(slots - prev_slots);
	for (int i = 0; i < 8; i++) {
		/* metric slots of each read; the byte is a fraction of 0xff */
		double b = (double)GET_METRIC(metrics, i) * (double)slots / 0xff;
		double a = (double)GET_METRIC(prev_metrics, i) * (double)prev_slots / 0xff;

		r[i] = (b - a) / delta;
		/* the kernel's mul_u64_u32_div(slots, byte, 0xff), for the current read */
		out->slots_of[i] = (uint64_t)((unsigned __int128)slots * GET_METRIC(metrics, i) / 0xff);
	}
	out->slots = delta;
	out->retiring = r[0];
	out->bad_spec = r[1];
	out->fe_bound = r[2];
	out->be_bound = r[3];
	out->heavy_ops = r[4];
	out->br_mispredict = r[5];
	out->fetch_lat = r[6];
	out->mem_bound = r[7];
	out->light_ops = out->retiring - out->heavy_ops;
	out->machine_clears = out->bad_spec - out->br_mispredict;
	out->fetch_bw = out->fe_bound - out->fetch_lat;
	out->core_bound = out->be_bound - out->mem_bound;
	return 0;
}
