/* bytes -> records -> samples under every itrace option and compat level. The first
 * byte picks the options; the rest is the SPE stream. */
#include <stddef.h>
#include <stdint.h>

#include "pmutrace/decode.h"

struct fctx {
	struct pmt_spe_sink sink[3];
	struct pmt_spe_report *rep;
};

/* every sample through every sink format and the report */
static int count_sample(const struct pmt_spe_sample *s, void *ctx)
{
	struct fctx *c = ctx;

	for (int i = 0; i < 3; i++)
		pmt_spe_sink_write(&c->sink[i], s);
	return pmt_spe_report_add(c->rep, s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const itr[] = { "bfmtaMi1i", "", "i3i", "bl", "Mi1i", "fmt", "a",
					   "i10us" };
	static const uint64_t midrs[] = { 0, 0x410fd0c0, 0x410fd4f0, 0xc00fac40 };
	struct pmt_spe_run_opts o;
	struct pmt_spe_rec_stats st;
	static FILE *devnull;
	static struct fctx c;
	struct pmt_out out;
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
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull || pmt_out_init(&out, devnull, 4096) < 0)
		return 0;
	for (int i = 0; i < 3; i++)
		pmt_spe_sink_init(&c.sink[i], &out, (enum pmt_sink_format)i, o.compat, o.raw_timed);
	if (pmt_spe_report_new(&c.rep) < 0) {
		pmt_out_fini(&out);
		return 0;
	}
	pmt_spe_run_raw(data + 1, size - 1, &o, count_sample, &c, &st, &en);
	pmt_spe_report_print(c.rep, &out, data[0] >> 7, 3, o.compat, en);
	pmt_spe_report_free(c.rep);
	pmt_out_fini(&out);
	pmt_spe_rec_stats_str(&st, line, sizeof(line));
	return 0;
}
