/* report takes a record's samples in one call (pmt_hist_add_record: one lookup for the
 * record, the counts of each of its events); the table it fills must be the one that
 * pmt_hist_add of each sample fills, for every sort key, the same text printed. The
 * samples come from the decode of a synthetic trace through record_fn: several events a
 * record, addresses that repeat in a mapped file (whose file is missing: an entry per
 * address, the DSO known) and 10% in the unmapped kernel. The same for the records in brief
 * (pmt_hist_add_brief through brief_fn), for the keys that take them. */
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

static int add_brief(const struct pmt_spe_brief *b, void *ctx)
{
	return pmt_hist_add_brief(ctx, b);
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

/* itrace, compat: perf 6.17 with an instructions period of 3 gives the instructions
 * samples another period than the others' */
static void same_table_at(const char *sort, bool mem, const char *itrace, int compat)
{
	static uint8_t buf[64 * 6000];
	struct pmt_symbols *syms = test_symbols_new();
	struct pmt_spe_synth_opts so;
	struct pmt_spe_synth sy;
	struct pmt_spe_run_opts o = PMT_OPTS_INIT(pmt_spe_run_opts);
	struct pair p = { 0 };
	struct pmt_trace_event app = test_mmap_event(PID, 0x400000, "/nonexistent/app", 0);
	struct pmt_hist *brief;
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
	assert_int_equal(pmt_itrace_parse(itrace, &o.itrace, NULL), 0);
	o.compat = compat;
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
	assert_true(p.records > 1000 && 2 * p.samples > 3 * p.records);
	assert_int_equal(pmt_hist_new(sort, syms, &brief, NULL), 0);
	pmt_hist_set_mode(brief, PMT_PERF_NEWEST, mem);
	assert_int_equal(pmt_hist_takes_brief(brief), strstr(sort, "mem") == NULL &&
			 strstr(sort, "snoop") == NULL && strstr(sort, "tlb") == NULL);
	if (pmt_hist_takes_brief(brief)) {
		o.brief_fn = add_brief;
		assert_int_equal(pmt_spe_run_raw(buf, (size_t)len, &o, NULL, brief, NULL, NULL), 0);
	}
	for (int fmt = PMT_SINK_TEXT; fmt <= PMT_SINK_JSONL; fmt++) {
		char *a = text_of(p.each, (enum pmt_sink_format)fmt);
		char *b = text_of(p.record, (enum pmt_sink_format)fmt);

		assert_true(strlen(a) > 1000);
		assert_string_equal(a, b);
		free(b);
		if (pmt_hist_takes_brief(brief)) {
			b = text_of(brief, (enum pmt_sink_format)fmt);
			assert_string_equal(a, b);
			free(b);
		}
		free(a);
	}
	pmt_hist_free(brief);
	pmt_hist_free(p.each);
	pmt_hist_free(p.record);
	pmt_symbols_free(syms);
}

static void same_table(const char *sort, bool mem)
{
	same_table_at(sort, mem, "bfmtaMi1i", PMT_PERF_NEWEST);
}

static void by_symbol(void **state)
{
	(void)state;
	same_table("sym,dso", false);
	same_table("dso,sym", false);
	same_table_at("sym,dso", false, "bfmtaMi3i", 617);
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
