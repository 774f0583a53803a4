/* The per-record callback (pmt_spe_run_opts.record_fn, taken by script's sinks) must see
 * exactly the samples, in the order, that the per-sample callback sees, grouped by the
 * record they come from (the sinks reuse a record's formatted columns on that basis);
 * and the rows written must not depend on where the output buffer was flushed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"

#define MAXS 8000

struct seen {
	struct pmt_spe_sample s[MAXS];
	uint64_t off[MAXS];
	int n, calls;
};

static int keep(struct seen *g, const struct pmt_spe_sample *s)
{
	if (g->n >= MAXS)
		return -PMT_ERANGE;
	g->s[g->n] = *s;
	g->off[g->n] = s->rec ? s->rec->offset : UINT64_MAX;
	g->s[g->n].rec = NULL; /* only valid during the call */
	g->s[g->n].brstack = NULL;
	g->n++;
	return 0;
}

static int per_sample(const struct pmt_spe_sample *s, void *ctx)
{
	return keep(ctx, s);
}

static int per_record(const struct pmt_spe_sample *s, int n, void *ctx)
{
	struct seen *g = ctx;

	assert_true(n >= 1 && n <= PMT_SPE_MAX_SAMPLES_PER_RECORD);
	g->calls++;
	for (int i = 0; i < n; i++) {
		/* one record per call */
		assert_true(s[i].rec == s[0].rec);
		if (keep(g, &s[i]) < 0)
			return -PMT_ERANGE;
	}
	return 0;
}

static void check_mix(uint32_t mix, const char *itrace, int compat, int grouped)
{
	static uint8_t buf[64 * 1000];
	static struct seen a, b;
	struct pmt_spe_synth_opts so;
	struct pmt_spe_synth sy;
	struct pmt_spe_run_opts o;
	int64_t len;

	pmt_spe_synth_opts_init(&so);
	so.seed = 11;
	so.mix = mix;
	so.context = 1;
	assert_int_equal(pmt_spe_synth_init(&sy, &so), 0);
	len = pmt_spe_synth_fill(&sy, buf, sizeof(buf));
	assert_true(len > 0);
	o = PMT_OPTS_INIT(pmt_spe_run_opts);
	assert_int_equal(pmt_itrace_parse(itrace, &o.itrace, NULL), 0);
	o.compat = compat;
	o.midr = 0x410fd0c0;
	o.tid = 1234;
	o.raw_timed = 1;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	assert_int_equal(pmt_spe_run_raw(buf, (size_t)len, &o, per_sample, &a, NULL, NULL), 0);
	o.record_fn = per_record;
	assert_int_equal(pmt_spe_run_raw(buf, (size_t)len, &o, NULL, &b, NULL, NULL), 0);
	assert_true(a.n > 0);
	assert_int_equal(a.n, b.n);
	/* grouped: several samples per record on average, so the calls really group them;
	 * else one sample (the branch) per record */
	assert_true(grouped ? b.calls < b.n : b.calls == b.n);
	for (int i = 0; i < a.n; i++) {
		const struct pmt_spe_sample *x = &a.s[i], *y = &b.s[i];

		assert_int_equal(x->event, y->event);
		assert_int_equal(x->tid, y->tid);
		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->flags, y->flags);
		assert_true(x->time == y->time && x->ip == y->ip && x->addr == y->addr);
		assert_true(x->phys_addr == y->phys_addr && x->period == y->period);
		assert_true(x->weight == y->weight && x->data_src == y->data_src);
		assert_true(a.off[i] == b.off[i]);
	}
}

static void test_n1_all_events(void **state)
{
	(void)state;
	check_mix(PMT_SPE_MIX_N1, "bfmtaMi1i", PMT_PERF_NEWEST, 1);
	check_mix(PMT_SPE_MIX_N1, "bfmtaMi1i", PMT_PERF_6_1, 1);
}

static void test_loads_and_branches(void **state)
{
	(void)state;
	check_mix(PMT_SPE_MIX_LOADS, "bfmtaMi1i", PMT_PERF_NEWEST, 1);
	check_mix(PMT_SPE_MIX_BRANCHES, "bl", PMT_PERF_NEWEST, 0);
}

struct sink_run {
	struct pmt_spe_sink *k;
	struct pmt_out out;
};

static int to_sink(const struct pmt_spe_sample *s, int n, void *ctx)
{
	struct sink_run *r = ctx;

	for (int i = 0; i < n; i++)
		pmt_spe_sink_write(r->k, &s[i]);
	return 0;
}

/* CSV/JSONL rows reuse the previous row's columns from the output buffer: a flush in
 * between (small buffer) must not change a byte of the output */
static char *sink_bytes(const uint8_t *buf, size_t len, enum pmt_sink_format fmt,
			size_t cap, size_t *n)
{
	static struct sink_run r;
	struct pmt_spe_run_opts o;
	char *text = NULL;
	FILE *fp = open_memstream(&text, n);

	assert_non_null(fp);
	o = PMT_OPTS_INIT(pmt_spe_run_opts);
	assert_int_equal(pmt_itrace_parse("bfmtaMi1i", &o.itrace, NULL), 0);
	o.compat = PMT_PERF_NEWEST;
	o.midr = 0x410fd0c0;
	o.raw_timed = 1;
	o.record_fn = to_sink;
	assert_int_equal(pmt_out_init(&r.out, fp, cap), 0);
	struct pmt_spe_sink_opts so = { .sz = sizeof(so), .fmt = fmt, .compat = o.compat,
					.show_time = true };

	assert_int_equal(pmt_spe_sink_new(&r.out, &so, &r.k), 0);
	pmt_spe_sink_header(r.k);
	assert_int_equal(pmt_spe_run_raw(buf, len, &o, NULL, &r, NULL, NULL), 0);
	pmt_spe_sink_free(r.k);
	assert_int_equal(pmt_out_fini(&r.out), 0);
	fclose(fp);
	return text;
}

static void test_rows_across_flushes(void **state)
{
	static uint8_t buf[64 * 2000];
	struct pmt_spe_synth_opts so;
	struct pmt_spe_synth sy;
	int64_t len;

	(void)state;
	pmt_spe_synth_opts_init(&so);
	so.seed = 5;
	so.context = 1;
	assert_int_equal(pmt_spe_synth_init(&sy, &so), 0);
	len = pmt_spe_synth_fill(&sy, buf, sizeof(buf));
	assert_true(len > 0);
	for (int fmt = PMT_SINK_CSV; fmt <= PMT_SINK_JSONL; fmt++) {
		size_t n_small, n_big;
		char *small = sink_bytes(buf, (size_t)len, fmt, 4096, &n_small);
		char *big = sink_bytes(buf, (size_t)len, fmt, 64u << 20, &n_big);

		/* thousands of rows: many flushes of the 4 KiB buffer */
		assert_true(n_big > 40 * 4096);
		assert_int_equal(n_small, n_big);
		assert_memory_equal(small, big, n_big);
		free(small);
		free(big);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_n1_all_events),
		cmocka_unit_test(test_loads_and_branches),
		cmocka_unit_test(test_rows_across_flushes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
