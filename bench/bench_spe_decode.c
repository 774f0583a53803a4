/* SPE decode throughput, records -> samples, no output: a >= 64 MB synthetic stream made in
 * memory with the synth API is decoded with --itrace=bfmtaMi1i semantics (every sample kind,
 * instructions at period 1). Prints the best of 5 runs per configuration, in thread CPU
 * time (MB/s per core).
 * Usage: bench_spe_decode [MB] [mix] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_spe_stream.h"
#include "pmutrace/spe_decode.h"

static int count(const struct pmt_spe_sample *s, void *ctx)
{
	uint64_t *c = ctx;

	c[0]++;
	c[1] += s->ip ^ s->data_src ^ s->addr;
	return 0;
}

int main(int argc, char **argv)
{
	size_t len = 0;
	static const char *const cfgs[][2] = { { "records only", NULL },
					       { "samples bfmtaMi1i", "bfmtaMi1i" },
					       { "samples default itrace", "" } };
	uint8_t *buf = bench_spe_stream(argc, argv, &len);

	if (!buf)
		return 1;
	for (size_t c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
		double best = 1e9;
		uint64_t recs = 0, cnt[2] = { 0, 0 };

		for (int run = 0; run < 5; run++) {
			double t0 = bench_cpu_seconds(), dt;

			cnt[0] = cnt[1] = 0;
			if (!cfgs[c][1]) {
				struct pmt_spe_rec_decoder *d;
				struct pmt_spe_record r;

				if (pmt_spe_rec_new(NULL, &d) < 0)
					return 1;
				pmt_spe_rec_feed(d, buf, len, 0);
				while (pmt_spe_rec_next(d, &r) == 1)
					cnt[1] += r.from_ip ^ r.events;
				recs = pmt_spe_rec_stats(d)->records;
				pmt_spe_rec_free(d);
			} else {
				struct pmt_spe_run_opts ro;
				struct pmt_spe_rec_stats st;

				ro = PMT_OPTS_INIT(pmt_spe_run_opts);
				pmt_itrace_parse(cfgs[c][1], &ro.itrace, NULL);
				ro.compat = PMT_PERF_NEWEST;
				ro.midr = 0x410fd0c0;
				ro.raw_timed = 1;
				pmt_spe_run_raw(buf, len, &ro, count, cnt, &st, NULL);
				recs = st.records;
			}
			dt = bench_cpu_seconds() - t0;
			if (dt < best)
				best = dt;
		}
		printf("%-24s %8.0f MB/s  %6.1f Mrecords/s  %" PRIu64 " records, %" PRIu64
		       " samples (checksum %" PRIx64 ")\n",
		       cfgs[c][0], len / 1048576.0 / best, recs / best / 1e6, recs, cnt[0],
		       cnt[1]);
	}
	free(buf);
	return 0;
}
