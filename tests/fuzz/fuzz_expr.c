/* Fuzz the metric expression compiler and evaluator; the first byte picks the mode:
 * 0 perf expression, 1 Intel-mode expression, 2 metric JSON (load, plan every metric,
 * evaluate), 3 perf stat counts text. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

struct ids {
	char name[8][64];
	int n;
};

static int resolve(void *arg, const char *id, enum pmt_expr_ref_kind kind, double *val)
{
	struct ids *t = arg;

	for (int i = 0; i < t->n; i++)
		if (!strcmp(t->name[i], id))
			return i;
	if (t->n < 8 && strlen(id) < 64) {
		strcpy(t->name[t->n], id);
		return t->n++;
	}
	*val = NAN;
	return PMT_EXPR_CONST;
}

static void fuzz_expr(const char *text, unsigned flags)
{
	static const double slots[8] = { 1, 0, -2.5, NAN, 1e300, 7, 64, -0.0 };
	struct pmt_expr_ctx ctx;
	struct pmt_expr_error err;
	struct pmt_expr *e;
	struct ids t = { .n = 0 };
	double v;

	pmt_expr_ctx_default(&ctx);
	ctx.cpuid = "GenuineIntel-6-AD";
	if (pmt_expr_compile(text, flags, &ctx, resolve, &t, &e, &err) < 0)
		return;
	if (pmt_expr_nr_slots(e) > 8)
		abort();
	pmt_expr_eval(e, slots, &v);
	pmt_expr_free(e);
}

static void fuzz_metrics(const char *text, size_t len)
{
	struct pmt_metric_set ms = { 0 };
	struct pmt_metric_plan *p;
	struct pmt_counts *c;
	char err[128];

	if (pmt_metric_set_load_mem(&ms, text, len, "fuzz") > 0 &&
	    pmt_metric_plan_new(&ms, NULL, 0, NULL, &p, err, sizeof(err)) == 0) {
		size_t n = pmt_metric_plan_nr_metrics(p);
		double *v = calloc(n + 1, sizeof(*v));
		int8_t *th = calloc(n + 1, 1);

		if (v && th && pmt_counts_new(&c) == 0) {
			pmt_counts_unit(c, NULL, NULL);
			pmt_metric_plan_bind(p, c);
			pmt_metric_plan_eval(p, c, 0, v, th);
			pmt_counts_free(c);
		}
		free(v);
		free(th);
		pmt_metric_plan_free(p);
	}
	pmt_metric_set_fini(&ms);
}

static void fuzz_counts(const char *text, size_t len)
{
	struct pmt_counts *c;

	if (pmt_counts_new(&c))
		return;
	pmt_counts_load_mem(c, text, len, "fuzz");
	for (size_t i = 0; i < pmt_counts_nr_events(c); i++)
		pmt_counts_find(c, pmt_counts_event_name(c, i));
	pmt_counts_free(c);
}

static void quiet(enum pmt_log_level level, const char *msg, void *ctx)
{
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (!size)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	pmt_log_set_sink(quiet, NULL);
	switch (data[0] & 3) {
	case 0: fuzz_expr(text, 0); break;
	case 1: fuzz_expr(text, PMT_EXPR_INTEL); break;
	case 2: fuzz_metrics(text, size - 1); break;
	default: fuzz_counts(text, size - 1); break;
	}
	free(text);
	return 0;
}
