/* -g flat and folded print a report entry's chains by period, and chains of equal period in
 * the order perf 7.3 inserts them (util/callchain.c: __sort_chain_flat walks each node's
 * children in their rb_root_in order, then the node; rb_insert_callchain puts an equal one
 * after). rb_root_in orders siblings by match_chain(), greater first, which compares the
 * frames' dso objects by their address in memory before their addresses: perf makes the
 * dsos of the recording's build-id table first, in its order, then the others as their
 * maps come, so the table's order decides, not the maps'. Here liba is mapped first but
 * listed after libb in the table: two samples with one caller each, in liba and in libb,
 * are printed liba's first (the greater dso), as perf 7.3 printed such a tie in a
 * two-process recording (report --pid -g folded,0). */
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
#define TOOL 0x300000ULL /* the samples' own file */
#define LIBA 0x100000ULL
#define LIBB 0x200000ULL

static void add_map(struct pmt_symbols *s, uint64_t addr, const char *file, uint64_t time)
{
	struct pmt_trace_event ev = test_mmap_event(PID, addr, file, time);

	assert_int_equal(pmt_symbols_add_event(s, &ev), 0);
}


static char *report(const char *spec, bool liba_first_in_table)
{
	static const uint8_t bid_a[20] = { 0xaa }, bid_b[20] = { 0xbb };
	struct pmt_trace_meta meta = { .nr_attrs = 1, .attrs = &hist_test_attr };
	struct pmt_hist_callgraph_opts cgo = PMT_OPTS_INIT(pmt_hist_callgraph_opts,
							   .spec = spec, .children = 0);
	struct pmt_symbols *s = test_symbols_new();
	struct pmt_hist *h = NULL;
	char *text;

	/* the table is read before the sideband, as perf reads its header first */
	if (liba_first_in_table)
		assert_int_equal(pmt_symbols_add_build_id(s, "/nonexistent/liba.so", bid_a, 20), 0);
	assert_int_equal(pmt_symbols_add_build_id(s, "/nonexistent/libb.so", bid_b, 20), 0);
	if (!liba_first_in_table)
		assert_int_equal(pmt_symbols_add_build_id(s, "/nonexistent/liba.so", bid_a, 20), 0);
	add_map(s, TOOL, "/nonexistent/tool", 1);
	add_map(s, LIBA, "/nonexistent/liba.so", 2);
	add_map(s, LIBB, "/nonexistent/libb.so", 3);
	assert_int_equal(pmt_hist_new("dso", s, &h, NULL), 0);
	assert_int_equal(pmt_hist_set_trace(h, &meta), 0);
	assert_int_equal(pmt_hist_set_callgraph(h, &cgo, NULL), 0);
	hist_test_add_call(h, PID, TOOL + 0x10, LIBB + 0x20, 10);
	hist_test_add_call(h, PID, TOOL + 0x10, LIBA + 0x20, 11);
	text = hist_test_print(h);
	pmt_hist_free(h);
	pmt_symbols_free(s);
	return text;
}

/* the chains' lines, in the order printed */
static void check_order(const char *spec, bool liba_first_in_table, const char *first,
			const char *second)
{
	char *text = report(spec, liba_first_in_table);
	const char *a = strstr(text, first), *b = strstr(text, second);

	if (!a || !b || a > b)
		fail_msg("-g %s: '%s' not before '%s' in:\n%s", spec, first, second, text);
	free(text);
}

static void table_order_decides_flat(void **state)
{
	(void)state;
	/* libb listed first: liba's is the greater dso, its chain is printed first */
	check_order("flat,0", false, "0x100020", "0x200020");
	/* and the other way round: the table, not the maps' order (liba mapped first) */
	check_order("flat,0", true, "0x200020", "0x100020");
}

static void table_order_decides_folded(void **state)
{
	(void)state;
	check_order("folded,0", false, "0x300010;0x100020", "0x300010;0x200020");
	check_order("folded,0", true, "0x300010;0x200020", "0x300010;0x100020");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_order_decides_flat),
		cmocka_unit_test(table_order_decides_folded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
