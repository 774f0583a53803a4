/* SPE decode throughput, records -> samples, no output: a >= 64 MB synthetic stream made in
 * memory with the synth API is decoded with --itrace=bfmtaMi1i semantics (every sample kind,
 * instructions at period 1). Prints the best of 5 runs per configuration, in thread CPU
 * time (MB/s per core).
 * Usage: bench_spe_decode [MB] [mix] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pmutrace/decode.h"

static double now(void)
{
	struct timespec ts;

	/* thread CPU time: the figure per core, robust to other load on the machine */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int count(const struct pmt_spe_sample *s, void *ctx)
{
	uint64_t *c = ctx;

	c[0]++;
	c[1] += s->ip ^ s->data_src ^ s->addr;
	return 0;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 0) : 64, len = mb << 20;
	static const char *const cfgs[][2] = { { "records only", NULL },
					       { "samples bfmtaMi1i", "bfmtaMi1i" },
					       { "samples default itrace", "" } };
	struct pmt_spe_synth_opts o;
	struct pmt_spe_synth s;
	uint8_t *buf = malloc(len);
	int64_t n;

	if (!buf || mb < 1)
		return 1;
	pmt_spe_synth_opts_init(&o);
	if (argc > 2 && pmt_spe_synth_mix_parse(argv[2], &o.mix) < 0)
		return 1;
	o.context = 1;
	pmt_spe_synth_init(&s, &o);
	n = pmt_spe_synth_fill(&s, buf, len);
	if (n <= 0)
		return 1;
	len = (size_t)n;
	printf("stream: %.1f MB, mix %s\n", len / 1048576.0, argc > 2 ? argv[2] : "n1");
	for (size_t c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
		double best = 1e9;
		uint64_t recs = 0, cnt[2] = { 0, 0 };

		for (int run = 0; run < 5; run++) {
			double t0 = now(), dt;

			cnt[0] = cnt[1] = 0;
			if (!cfgs[c][1]) {
				struct pmt_spe_rec_decoder d;
				struct pmt_spe_record r;

				pmt_spe_rec_init(&d, buf, len, 0);
				while (pmt_spe_rec_next(&d, &r) == 1)
					cnt[1] += r.from_ip ^ r.events;
				recs = d.stats.records;
			} else {
				struct pmt_spe_run_opts ro;
				struct pmt_spe_rec_stats st;

				memset(&ro, 0, sizeof(ro));
				pmt_itrace_parse(cfgs[c][1], &ro.itrace, NULL, 0);
				ro.compat = PMT_PERF_NEWEST;
				ro.midr = 0x410fd0c0;
				ro.raw_timed = 1;
				pmt_spe_run_raw(buf, len, &ro, count, cnt, &st, NULL);
				recs = st.records;
			}
			dt = now() - t0;
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
