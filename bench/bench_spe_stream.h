/* Shared by the SPE benchmarks: the synthetic input stream and the clock. */
#ifndef PMUTRACE_BENCH_SPE_STREAM_H
#define PMUTRACE_BENCH_SPE_STREAM_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pmutrace/spe.h"

/* Thread CPU time: the figure per core, robust to other load on the machine. */
static inline double bench_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Builds the stream named by argv: [MB (default 64)] [mix (default n1)], CONTEXT packets on.
 * Returns the malloc'd buffer and its length in *len, or NULL on bad arguments. */
static inline uint8_t *bench_spe_stream(int argc, char **argv, size_t *len)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 0) : 64;
	struct pmt_spe_synth_opts o;
	struct pmt_spe_synth s;
	uint8_t *buf;
	int64_t n;

	if (mb < 1)
		return NULL;
	pmt_spe_synth_opts_init(&o);
	if (argc > 2 && pmt_spe_synth_mix_parse(argv[2], &o.mix) < 0)
		return NULL;
	o.context = 1;
	buf = malloc(mb << 20);
	if (!buf)
		return NULL;
	pmt_spe_synth_init(&s, &o);
	n = pmt_spe_synth_fill(&s, buf, mb << 20);
	if (n <= 0) {
		free(buf);
		return NULL;
	}
	*len = (size_t)n;
	printf("stream: %.1f MB, mix %s\n", *len / 1048576.0, argc > 2 ? argv[2] : "n1");
	return buf;
}

#endif
