/* report --sort sym,dso remembers the entry of each (pid, address) it has resolved. The
 * address spaces grow while the trace is read (the decode feeds MMAP records between
 * samples), so a remembered entry must not outlive the address space it was made in: a
 * sample at an address that had no map, then a map over it, then a sample there again, are
 * two entries, [unknown] and the map's file, each half of the samples (perf's answer: it
 * resolves each sample against the maps it has read so far). A sample older than a map
 * (the file is not in time order) does not see it, nor a sample of another process. */
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

#define PID 100
#define ADDR 0x401000ULL

static void add_mmap(struct pmt_symbols *s, uint64_t time)
{
	struct pmt_trace_event ev = test_mmap_event(PID, 0x400000, "/nonexistent/bin/tool", time);

	assert_int_equal(pmt_symbols_add_event(s, &ev), 0);
}

/* a record's two samples (instructions, then memory) of a process, as the SPE decode gives
 * them */
static void add_record_of(struct pmt_hist *h, int32_t pid, uint64_t time)
{
	struct pmt_spe_sample smp = { .cpu = 0, .pid = pid, .tid = pid, .time = time,
				      .ip = ADDR, .period = 1 };

	smp.event = PMT_SPE_SE_INSN;
	assert_int_equal(pmt_hist_add(h, &smp), 0);
	smp.event = PMT_SPE_SE_MEMORY;
	assert_int_equal(pmt_hist_add(h, &smp), 0);
}

static void add_record(struct pmt_hist *h, uint64_t time)
{
	add_record_of(h, PID, time);
}

/* the text report's rows of the instructions event */
static char *report(struct pmt_hist *h)
{
	char *text = NULL, *at;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	struct pmt_out out;

	assert_non_null(fp);
	assert_int_equal(pmt_out_init(&out, fp, 4096), 0);
	assert_int_equal(pmt_hist_print(h, &out, 0, 0), 0);
	assert_int_equal(pmt_out_fini(&out), 0);
	fclose(fp);
	at = strstr(text, "of event 'instructions'");
	assert_non_null(at);
	memmove(text, at, strlen(at) + 1);
	return text;
}

struct fixture {
	struct pmt_symbols *syms;
	struct pmt_hist *hist;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->syms = test_symbols_new();
	assert_int_equal(pmt_hist_new("sym,dso", f->syms, &f->hist, NULL), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pmt_hist_free(f->hist);
	pmt_symbols_free(f->syms);
	free(f);
	return 0;
}

/* the rows as perf prints them: "%7.2f%%" Children and Self (SPE's samples alone in the
 * trace), the address in the file for a mapped one; tool_pct NULL: no row of the file */
static void check_rows(struct pmt_hist *h, const char *unknown_pct, const char *tool_pct)
{
	char *text = report(h), want[128];

	snprintf(want, sizeof(want), "%s  [.] 0x0000000000401000  [unknown]", unknown_pct);
	assert_non_null(strstr(text, want));
	if (tool_pct) {
		snprintf(want, sizeof(want), "%s  [.] 0x0000000000001000  tool", tool_pct);
		assert_non_null(strstr(text, want));
	} else {
		assert_null(strstr(text, "tool"));
	}
	free(text);
}

static void new_map_is_seen(void **state)
{
	struct fixture *f = *state;

	add_record(f->hist, 10);
	add_record(f->hist, 11); /* a second record at the address: the remembered entry */
	add_mmap(f->syms, 12);
	add_record(f->hist, 20);
	add_record(f->hist, 21);
	check_rows(f->hist, "    50.00%    50.00%", "    50.00%    50.00%");
}

static void older_sample_misses_map(void **state)
{
	struct fixture *f = *state;

	add_mmap(f->syms, 30);
	add_record(f->hist, 40); /* after the map: in the file */
	add_record(f->hist, 41);
	add_record(f->hist, 20); /* before it: no map yet at that time */
	add_record(f->hist, 42);
	check_rows(f->hist, "    25.00%    25.00%", "    75.00%    75.00%");
}

static void no_map_at_all(void **state)
{
	struct fixture *f = *state;

	add_record(f->hist, 10);
	add_record(f->hist, 11);
	check_rows(f->hist, "   100.00%   100.00%", NULL);
}

/* the same address in another process, which has no map there */
static void other_process(void **state)
{
	struct fixture *f = *state;

	add_mmap(f->syms, 5);
	add_record(f->hist, 10);
	add_record_of(f->hist, PID + 1, 11);
	add_record(f->hist, 12);
	add_record_of(f->hist, PID + 1, 13);
	check_rows(f->hist, "    50.00%    50.00%", "    50.00%    50.00%");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(new_map_is_seen, setup, teardown),
		cmocka_unit_test_setup_teardown(older_sample_misses_map, setup, teardown),
		cmocka_unit_test_setup_teardown(no_map_at_all, setup, teardown),
		cmocka_unit_test_setup_teardown(other_process, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
