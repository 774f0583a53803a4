/* perf 7.3 compares two entries without a symbol by the wrapped difference of their
 * addresses (sort.c _sort__addr_cmp: (int64_t)(right - left)), which is no order once the
 * addresses span more than half the address space: 0 < 0x6000... < 0xc000... < 0. Callers
 * read off a stack without frame pointers land in no map at such addresses, each an entry
 * of perf's entry tree; when the tree's rebalancing puts a node above an earlier entry
 * that the comparison sends the other way, perf's walk misses that entry and makes a
 * twin (two rows of one address). The report finds most entries through its index and
 * walks perf's tree only where a walk could miss (hist_perftree.c): here it must walk.
 * The expected rows are what perf's walk gives (lib/rbtree.c insertion, traced by hand
 * below), the report before the index was put in front of the tree printed the same. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/output.h"
#include "symbols_test_util.h"
#include "hist_test_util.h"

#define PID 100
#define TOOL 0x300000ULL /* the samples' own file, without symbols */


static char *report(const char *keys, const uint64_t *callers, size_t n)
{
	struct pmt_trace_meta meta = { .nr_attrs = 1, .attrs = &hist_test_attr };
	struct pmt_hist_callgraph_opts cgo = PMT_OPTS_INIT(pmt_hist_callgraph_opts,
							   .spec = "none", .children = 1);
	struct pmt_symbols *s = test_symbols_new();
	struct pmt_trace_event ev = test_mmap_event(PID, TOOL, "/nonexistent/tool", 1);
	struct pmt_hist *h = NULL;
	char *text;

	assert_int_equal(pmt_symbols_add_event(s, &ev), 0);
	assert_int_equal(pmt_hist_new(keys, s, &h, NULL), 0);
	assert_int_equal(pmt_hist_set_trace(h, &meta), 0);
	assert_int_equal(pmt_hist_set_mode(h, PMT_PERF_NEWEST, false), 0);
	assert_int_equal(pmt_hist_set_callgraph(h, &cgo, NULL), 0);
	for (size_t i = 0; i < n; i++)
		hist_test_add_call(h, PID, TOOL + 0x10, callers[i], 10 + i);
	text = hist_test_print(h);
	pmt_hist_free(h);
	pmt_symbols_free(s);
	return text;
}

static size_t rows_of(const char *text, const char *what)
{
	size_t n = 0;

	for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

/* in the tree 0xe000... sits right of 0x7800..., the first caller's entry, as (int64_t)
 * (0xe000... - 0x7800...) > 0; 0x6000..., 0 and 0x3000... rebalance the tree until 0x3000
 * is above it, where (int64_t)(0xe000... - 0x3000...) < 0 sends the next sample's walk
 * left: it misses 0xe000... and makes a twin (the tree's insertions traced with a model of
 * lib/rbtree.c: the twin comes with this order of callers) */
static void wrapped_addresses_twin(void **state)
{
	static const uint64_t callers[] = {
		0x7800000000000000ULL, 0x7000000000000000ULL, 0xe000000000000000ULL,
		0x6000000000000000ULL, 0,			  0x3000000000000000ULL,
		0xe000000000000000ULL,
	};
	char *text;

	(void)state;
	text = report("dso,sym", callers, sizeof(callers) / sizeof(callers[0]));
	if (rows_of(text, "0xe000000000000000\n") != 2)
		fail_msg("not two rows of 0xe000000000000000 (perf's twin):\n%s", text);
	free(text);
}

/* the same addresses within half the address space: one row each, as the index has it */
static void near_addresses_one_row(void **state)
{
	static const uint64_t callers[] = {
		0, 0x2000000000000000ULL, 0x3000000000000000ULL, 0x1000000000000000ULL,
		0x1800000000000000ULL, 0x1c00000000000000ULL, 0x3000000000000000ULL,
	};
	char *text;

	(void)state;
	text = report("dso,sym", callers, sizeof(callers) / sizeof(callers[0]));
	if (rows_of(text, "0x3000000000000000\n") != 1)
		fail_msg("not one row of 0x3000000000000000:\n%s", text);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wrapped_addresses_twin),
		cmocka_unit_test(near_addresses_one_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
