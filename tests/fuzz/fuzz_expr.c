/* Fuzz the metric expression compiler and evaluator; the first byte's low bit picks perf
 * (0) or Intel (1) syntax. Metric tables, counts and retire-latency tables have targets of
 * their own (fuzz_metric_table.c, fuzz_counts.c, fuzz_retlat_table.c). */
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
	fuzz_expr(text, data[0] & 1 ? PMT_EXPR_INTEL : 0);
	free(text);
	return 0;
}
