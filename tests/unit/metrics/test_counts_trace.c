/* The STAT-record reader (pmt_counts_trace) on perf stat record's layout written by hand:
 * CPUs named by number (perf), or by place in the CPU map (older pmutrace stat -o), ids in
 * and out of order, interval deltas and enabled/running scaling, and the events left out
 * by pmt_counts_trace_only(). Every expected value is
 * worked out in the comments from the records the test writes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"
#include "pmutrace/perfdata.h"

enum { THREAD_MAP = 73, CPU_MAP = 74, STAT_CONFIG = 75, STAT = 76, STAT_ROUND = 77 };

static void hdr(uint8_t *b, uint32_t type, uint16_t size)
{
	memset(b, 0, size);
	memcpy(b, &type, 4);
	memcpy(b + 6, &size, 2);
}

static void put64(uint8_t *b, uint64_t v) { memcpy(b, &v, 8); }

/* STAT: id, cpu, thread 0, value, enabled, running */
static void stat(struct pmt_perf_writer *w, uint64_t id, uint32_t cpu, uint64_t val,
		 uint64_t ena, uint64_t run)
{
	uint8_t r[48];

	hdr(r, STAT, 48);
	put64(r + 8, id);
	memcpy(r + 16, &cpu, 4);
	put64(r + 24, val);
	put64(r + 32, ena);
	put64(r + 40, run);
	assert_int_equal(pmt_perf_writer_write_record(w, r, 48), 0);
}

static void round_end(struct pmt_perf_writer *w, uint64_t t_ns)
{
	uint8_t r[24];

	hdr(r, STAT_ROUND, 24);
	put64(r + 16, t_ns);
	assert_int_equal(pmt_perf_writer_write_record(w, r, 24), 0);
}

/* Two counters, "ev-a" (ids 10, 11) and "ev-b" (ids 20, 21), on CPUs 2 and 5 (-a -A -I
 * 1000). by_place: the STAT records say 0 and 1 for CPUs 2 and 5, as pmutrace stat -o
 * wrote them before it wrote CPU numbers. */
static char *write_trace(size_t *len, int by_place)
{
	struct pmt_perf_writer_opts wo = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = 1);
	struct pmt_perf_attr a = { .type = 1, .read_format = PMT_READ_TOTAL_ENABLED |
							     PMT_READ_TOTAL_RUNNING };
	uint64_t ids_a[2] = { 10, 11 }, ids_b[2] = { 20, 21 };
	uint32_t c2 = by_place ? 0 : 2, c5 = by_place ? 1 : 5;
	struct pmt_perf_writer *w;
	char *mem = NULL;
	FILE *fp = open_memstream(&mem, len);
	uint8_t r[64];

	assert_non_null(fp);
	assert_int_equal(pmt_perf_writer_new(fp, &wo, &w), 0);
	assert_int_equal(pmt_perf_writer_add_attr(w, &a, PMT_ATTR_SIZE_MAX, ids_a, 2, "ev-a"), 0);
	a.config = 1;
	assert_int_equal(pmt_perf_writer_add_attr(w, &a, PMT_ATTR_SIZE_MAX, ids_b, 2, "ev-b"), 0);
	hdr(r, THREAD_MAP, 40); /* one "thread": -1 */
	put64(r + 8, 1);
	put64(r + 16, UINT64_MAX);
	assert_int_equal(pmt_perf_writer_write_record(w, r, 40), 0);
	hdr(r, CPU_MAP, 16); /* PERF_CPU_MAP__CPUS: 2 CPUs, 2 and 5 */
	memcpy(r + 10, &(uint16_t){ 2 }, 2);
	memcpy(r + 12, &(uint16_t){ 2 }, 2);
	memcpy(r + 14, &(uint16_t){ 5 }, 2);
	assert_int_equal(pmt_perf_writer_write_record(w, r, 16), 0);
	hdr(r, STAT_CONFIG, 48); /* aggr_mode NONE (-A), interval 1000 ms */
	put64(r + 8, 2);
	put64(r + 16, 0);
	put64(r + 24, 0);
	put64(r + 32, 1);
	put64(r + 40, 1000);
	assert_int_equal(pmt_perf_writer_write_record(w, r, 48), 0);
	/* round 1, ids out of order; ev-b on CPU 5 ran half of the time it was enabled */
	stat(w, 21, c5, 300, 1000, 500);
	stat(w, 10, c2, 100, 1000, 1000);
	stat(w, 20, c2, 7, 1000, 1000);
	stat(w, 11, c5, 40, 1000, 1000);
	round_end(w, 1000000000);
	/* round 2 in id order: cumulative values, so the rows are the differences */
	stat(w, 10, c2, 250, 2000, 2000);
	stat(w, 11, c5, 41, 2000, 2000);
	stat(w, 20, c2, 17, 2000, 2000);
	stat(w, 21, c5, 900, 2000, 1300);
	round_end(w, 2000000000);
	assert_int_equal(pmt_perf_writer_close(w), 0);
	fclose(fp);
	return mem;
}

/* the value of event `name` in the unit of CPU `aggr` */
static double cell(const struct pmt_counts *c, const char *aggr, const char *name)
{
	int e = pmt_counts_find(c, name);

	assert_true(e >= 0);
	for (size_t u = 0; u < pmt_counts_nr_units(c); u++)
		if (!strcmp(pmt_counts_unit_aggr(c, u), aggr))
			return pmt_counts_get(c, u, (size_t)e);
	fail_msg("no unit %s", aggr);
	return 0;
}

static void read_rounds(int by_place)
{
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_counts_trace *t;
	struct pmt_counts *c;
	size_t len;
	char *mem = write_trace(&len, by_place);

	assert_int_equal(pmt_counts_new(&c), 0);
	assert_int_equal(pmt_counts_trace_open_mem(mem, len, "trace", c, &t, &d), 0);
	assert_int_equal(pmt_counts_trace_next(t, c), 1);
	assert_int_equal(pmt_counts_nr_units(c), 2);
	assert_string_equal(pmt_counts_unit_interval(c, 0), "1.000000000");
	assert_string_equal(pmt_counts_unit_aggr(c, 0), "CPU2");
	assert_string_equal(pmt_counts_unit_aggr(c, 1), "CPU5");
	assert_true(cell(c, "CPU2", "ev-a") == 100);
	assert_true(cell(c, "CPU5", "ev-a") == 40);
	assert_true(cell(c, "CPU2", "ev-b") == 7);
	assert_true(cell(c, "CPU5", "ev-b") == 600); /* 300 x 1000 / 500 */
	assert_int_equal(pmt_counts_trace_next(t, c), 1);
	assert_string_equal(pmt_counts_unit_interval(c, 0), "2.000000000");
	assert_true(cell(c, "CPU2", "ev-a") == 150); /* 250 - 100 */
	assert_true(cell(c, "CPU5", "ev-a") == 1);
	assert_true(cell(c, "CPU2", "ev-b") == 10);
	assert_true(cell(c, "CPU5", "ev-b") == 750); /* (900 - 300) x 1000 / (1300 - 500) */
	assert_int_equal(pmt_counts_trace_next(t, c), 0);
	pmt_counts_trace_close(t);
	pmt_counts_free(c);
	free(mem);
}

static void cpus_by_number(void **state)
{
	(void)state;
	read_rounds(0);
}

static void cpus_by_place_in_the_map(void **state)
{
	(void)state;
	read_rounds(1);
}

/* pmt_counts_trace_only(): after round 1, ev-b alone; its round-2 differences are those
 * of a full read (its values of round 1 kept), ev-a is unset (NaN, no sources), and every
 * STAT record is still counted as read */
static void only_the_columns_asked_for(void **state)
{
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_counts_trace *t;
	struct pmt_counts *c;
	uint64_t rounds, stats, skipped;
	size_t len;
	char *mem = write_trace(&len, 0);
	int b;

	(void)state;
	assert_int_equal(pmt_counts_new(&c), 0);
	assert_int_equal(pmt_counts_trace_open_mem(mem, len, "trace", c, &t, &d), 0);
	assert_int_equal(pmt_counts_trace_next(t, c), 1);
	assert_true(cell(c, "CPU2", "ev-a") == 100);
	b = pmt_counts_find(c, "ev-b");
	assert_int_equal(pmt_counts_trace_only(t, &b, 1), 1);
	assert_int_equal(pmt_counts_trace_next(t, c), 1);
	assert_true(cell(c, "CPU2", "ev-a") != cell(c, "CPU2", "ev-a")); /* NaN */
	assert_int_equal(pmt_counts_sources(c, 0, (size_t)pmt_counts_find(c, "ev-a")), 0);
	assert_true(cell(c, "CPU2", "ev-b") == 10);
	assert_true(cell(c, "CPU5", "ev-b") == 750);
	assert_int_equal(pmt_counts_trace_next(t, c), 0);
	pmt_counts_trace_stats(t, &rounds, &stats, &skipped);
	assert_int_equal(rounds, 2);
	assert_int_equal(stats, 8);
	assert_int_equal(skipped, 0);
	pmt_counts_trace_close(t);
	pmt_counts_free(c);
	free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpus_by_number),
		cmocka_unit_test(cpus_by_place_in_the_map),
		cmocka_unit_test(only_the_columns_asked_for),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
