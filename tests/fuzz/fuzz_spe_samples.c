/* bytes -> samples with the sample-layer rules that depend on the perf version: branch
 * stacks (l, >= 6.15), equal decimation and period on every sample (>= 6.18), the HiSilicon
 * HIP12 table (>= 6.19), through every sink with the brstack column on. The first byte
 * picks the options; the rest is the SPE stream. */
#include <stddef.h>
#include <stdint.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"

static int to_sinks(const struct pmt_spe_sample *s, void *ctx)
{
	struct pmt_spe_sink **k = ctx;

	for (int i = 0; i < 3; i++)
		pmt_spe_sink_write(k[i], s);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const itr[] = { "bl", "bMi1il", "i3il1", "", "bM", "fmtal64", "i1il",
					   "bi2il2" };
	static const int compat[] = { 614, PMT_PERF_6_15, PMT_PERF_6_18, PMT_PERF_NEWEST };
	static const uint64_t midrs[] = { 0x480fd060, 0x410fd0c0, 0, 0x481fd061 };
	static FILE *devnull;
	struct pmt_spe_sink *k[3] = { NULL, NULL, NULL };
	struct pmt_spe_run_opts o;
	bool brstack;
	struct pmt_out out;
	uint32_t en;

	if (!size)
		return 0;
	o = PMT_OPTS_INIT(pmt_spe_run_opts);
	pmt_itrace_parse(itr[data[0] & 7], &o.itrace, NULL);
	o.compat = compat[(data[0] >> 3) & 3];
	o.midr = midrs[(data[0] >> 5) & 3];
	o.raw_timed = data[0] >> 7;
	o.tid = 1;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull || pmt_out_init(&out, devnull, 4096) < 0)
		return 0;
	pmt_spe_itrace_events(&o.itrace, o.compat, &brstack);
	for (int i = 0; i < 3; i++) {
		struct pmt_spe_sink_opts so = { .sz = sizeof(so), .fmt = (enum pmt_sink_format)i,
						.compat = o.compat, .show_time = o.raw_timed,
						.brstack = brstack };

		if (pmt_spe_sink_new(&out, &so, &k[i]) < 0)
			goto done;
		pmt_spe_sink_header(k[i]);
	}
	pmt_spe_run_raw(data + 1, size - 1, &o, to_sinks, k, NULL, &en);
done:
	for (int i = 0; i < 3; i++)
		pmt_spe_sink_free(k[i]);
	pmt_out_fini(&out);
	return 0;
}
