/* report takes a record's samples in one call (pmt_hist_add_record: one lookup for the
 * record, the counts of each of its events); the table it fills must be the one that
 * pmt_hist_add of each sample fills, for every sort key, the same text printed. The
 * samples come from the decode of a synthetic trace through record_fn: several events a
 * record, addresses that repeat in a mapped file (whose file is missing: an entry per
 * address, the DSO known) and 10% in the unmapped kernel. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"
#include "symbols_test_util.h"

#define PID 4242

struct pair {
	struct pmt_hist *each, *record;
	int records, samples;
};

static int add_both(const struct pmt_spe_sample *s, int n, void *ctx)
{
	struct pair *p = ctx;

	p->records++;
	p->samples += n;
	for (int i = 0; i < n; i++)
		assert_int_equal(pmt_hist_add(p->each, &s[i]), 0);
	return pmt_hist_add_record(p->record, s, n);
}

static __attribute__((noinline)) char *text_of(struct pmt_hist *h, enum pmt_sink_format fmt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	struct pmt_out out;

	assert_non_null(fp);
	assert_int_equal(pmt_out_init(&out, fp, 4096), 0);
	assert_int_equal(pmt_hist_print_as(h, &out, PMT_PERF_NEWEST, 0, fmt), 0);
	assert_int_equal(pmt_out_fini(&out), 0);
	fclose(fp);
	return text;
}

static void same_table(const char *sort, bool mem)
{
	static uint8_t buf[64 * 6000];
	struct pmt_symbols *syms = test_symbols_new();
	struct pmt_spe_synth_opts so;
	struct pmt_spe_synth sy;
	struct pmt_spe_run_opts o = PMT_OPTS_INIT(pmt_spe_run_opts);
	struct pair p = { 0 };
	struct pmt_trace_event app = test_mmap_event(PID, 0x400000, "/nonexistent/app", 0);
	int64_t len;

	assert_int_equal(pmt_symbols_add_event(syms, &app), 0);
	pmt_spe_synth_opts_init(&so);
	so.seed = 3;
	so.text_base = 0x400000;
	so.text_len = 0x3000; /* addresses repeat: the address cache is used */
	so.kernel_pct = 10;
	assert_int_equal(pmt_spe_synth_init(&sy, &so), 0);
	len = pmt_spe_synth_fill(&sy, buf, sizeof(buf));
	assert_true(len > 0);
	assert_int_equal(pmt_itrace_parse("bfmtaMi1i", &o.itrace, NULL), 0);
	o.compat = PMT_PERF_NEWEST;
	o.midr = 0x410fd0c0;
	o.tid = PID;
	o.raw_timed = 1;
	o.record_fn = add_both;
	assert_int_equal(pmt_hist_new(sort, syms, &p.each, NULL), 0);
	assert_int_equal(pmt_hist_new(sort, syms, &p.record, NULL), 0);
	pmt_hist_set_mode(p.each, PMT_PERF_NEWEST, mem);
	pmt_hist_set_mode(p.record, PMT_PERF_NEWEST, mem);
	assert_int_equal(pmt_spe_run_raw(buf, (size_t)len, &o, NULL, &p, NULL, NULL), 0);
	/* several samples a record, or the record's one lookup is not what is tested */
	assert_true(p.records > 1000 && p.samples > 2 * p.records);
	for (int fmt = PMT_SINK_TEXT; fmt <= PMT_SINK_JSONL; fmt++) {
		char *a = text_of(p.each, (enum pmt_sink_format)fmt);
		char *b = text_of(p.record, (enum pmt_sink_format)fmt);

		assert_true(strlen(a) > 1000);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	pmt_hist_free(p.each);
	pmt_hist_free(p.record);
	pmt_symbols_free(syms);
}

static void by_symbol(void **state)
{
	(void)state;
	same_table("sym,dso", false);
	same_table("dso,sym", false);
}

static void by_thread_and_cpu(void **state)
{
	(void)state;
	same_table("comm,dso,sym", false);
	same_table("pid,cpu,sym", false);
}

static void by_memory(void **state)
{
	(void)state;
	same_table("mem,sym", true);
	same_table("sym,tlb,snoop", false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(by_symbol),
		cmocka_unit_test(by_thread_and_cpu),
		cmocka_unit_test(by_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
