/* bytes -> records -> samples under every itrace option and compat level. The first
 * byte picks the options; the rest is the SPE stream. */
#include <stddef.h>
#include <stdint.h>

#include "pmutrace/decode.h"

static int count_sample(const struct pmt_spe_sample *s, void *ctx)
{
	char buf[200];

	*(uint64_t *)ctx += s->ip ^ s->addr;
	pmt_mem_data_src_str(s->data_src, 601, buf, sizeof(buf));
	pmt_mem_data_src_str(s->data_src, PMT_PERF_NEWEST, buf, sizeof(buf));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const itr[] = { "bfmtaMi1i", "", "i3i", "bl", "Mi1i", "fmt", "a",
					   "i10us" };
	static const uint64_t midrs[] = { 0, 0x410fd0c0, 0x410fd4f0, 0xc00fac40 };
	struct pmt_spe_run_opts o;
	struct pmt_spe_rec_stats st;
	uint64_t sink = 0;
	uint32_t en;
	char line[200];

	if (!size)
		return 0;
	memset(&o, 0, sizeof(o));
	pmt_itrace_parse(itr[data[0] & 7], &o.itrace, NULL, 0);
	o.compat = (data[0] & 8) ? PMT_PERF_6_1 : PMT_PERF_NEWEST;
	o.midr = midrs[(data[0] >> 4) & 3];
	o.raw_timed = (data[0] >> 6) & 1;
	o.tid = 1;
	pmt_spe_run_raw(data + 1, size - 1, &o, count_sample, &sink, &st, &en);
	pmt_spe_rec_stats_str(&st, line, sizeof(line));
	return 0;
}
