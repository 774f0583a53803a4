/* Evaluate every metric of the GNR perf table for 10,000 aggregation units.
 * usage: bench_metrics [METRICS.json [UNITS]]; default: gnr-metrics.json of the shared data
 * (PMT_SHARED_DIR), falling back to the project's fixture when the shared data is absent. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "pmutrace/metrics.h"


static double clk(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
	return clk(CLOCK_MONOTONIC);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : PMT_BENCH_SHARED "/data/tpebs/gnr-metrics.json";
	size_t units = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000;
	struct pmt_metric_set ms = { 0 };
	struct pmt_metric_plan *p;
	struct pmt_counts *c;
	struct pmt_expr_ctx ctx;
	double t0, t1, t2, t3, c2, c3, *v, sum = 0;
	int8_t *th;
	struct pmt_diag d = PMT_DIAG_INIT;
	size_t n, finite = 0;

	if (access(path, R_OK)) {
		printf("note: %s absent, using the project fixture (4 metrics)\n", path);
		path = "fixtures/metrics/tiny-metrics.json";
	}
	pmt_expr_ctx_default(&ctx);
	ctx.smt_on = 1;
	t0 = now();
	if (pmt_metric_set_load(&ms, path, &d) <= 0 ||
	    pmt_metric_plan_new(&ms, NULL, 0, &ctx, &p, &d) < 0) {
		fprintf(stderr, "bench_metrics: %s: %s\n", path, d.msg);
		return 1;
	}
	t1 = now();
	n = pmt_metric_plan_nr_metrics(p);
	if (pmt_counts_new(&c))
		return 1;
	for (size_t u = 0; u < units; u++) {
		char id[32];
		int ui;

		snprintf(id, sizeof(id), "CPU%zu", u);
		ui = pmt_counts_unit(c, "", id);
		for (size_t i = 0; i < pmt_metric_plan_nr_inputs(p); i++) {
			struct pmt_metric_input *in = pmt_metric_plan_input(p, i);

			if (in->kind == PMT_MIN_RETLAT) {
				in->value = 50;
				continue;
			}
			pmt_counts_add(c, ui, pmt_counts_event(c, in->id),
				       1e6 * (1 + (double)((i * 31 + u * 7) % 101) / 10));
		}
	}
	pmt_metric_plan_bind(p, c);
	v = calloc(n, sizeof(*v));
	th = calloc(n, 1);
	if (!v || !th)
		return 1;
	t2 = now();
	c2 = clk(CLOCK_PROCESS_CPUTIME_ID);
	for (size_t u = 0; u < units; u++) {
		pmt_metric_plan_eval(p, c, u, v, th);
		for (size_t i = 0; i < n; i++) {
			if (isfinite(v[i])) {
				finite++;
				sum += v[i];
			}
		}
	}
	t3 = now();
	c3 = clk(CLOCK_PROCESS_CPUTIME_ID);
	printf("%s: %zu metrics, %zu inputs; load + compile %.3f ms\n", path, n,
	       pmt_metric_plan_nr_inputs(p), (t1 - t0) * 1e3);
	/* CPU time is reported too: wall time on a shared machine includes waiting */
	printf("evaluated %zu metrics x %zu units (values and thresholds) in %.3f s wall, "
	       "%.3f s CPU (%.1f ns CPU per metric); %zu finite, checksum %g\n", n, units,
	       t3 - t2, c3 - c2, (c3 - c2) * 1e9 / (double)(n * units), finite, sum);
	free(v);
	free(th);
	pmt_counts_free(c);
	pmt_metric_plan_free(p);
	pmt_metric_set_fini(&ms);
	return 0;
}
