/* Count sets from perf stat output. The fixtures in fixtures/metrics/perf-*.{csv,jsonl}
 * were printed by perf 6.1 (software events) on the build machine; expected values are
 * read off those files by eye. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

#define FIX PMT_SOURCE_DIR "/fixtures/metrics/"

static struct pmt_counts *load(const char *path)
{
	struct pmt_counts *c;

	assert_int_equal(pmt_counts_new(&c), 0);
	assert_int_equal(pmt_counts_load(c, path, NULL), 0);
	return c;
}

static double get(struct pmt_counts *c, size_t unit, const char *ev)
{
	int e = pmt_counts_find(c, ev);

	assert_true(e >= 0);
	return pmt_counts_get(c, unit, (size_t)e);
}

static void plain_csv(void **state)
{
	struct pmt_counts *c = load(FIX "perf-plain.csv");

	assert_int_equal(pmt_counts_nr_units(c), 1);
	assert_int_equal(pmt_counts_nr_events(c), 3);
	assert_string_equal(pmt_counts_unit_aggr(c, 0), "");
	assert_true(get(c, 0, "task-clock") == 0.94);
	assert_true(get(c, 0, "context-switches") == 0);
	assert_true(get(c, 0, "duration_time") == 1594779);
	assert_int_equal(pmt_counts_find(c, "cycles"), -PMT_ENOT_FOUND);
	pmt_counts_free(c);
}

static void per_cpu_and_per_core_csv(void **state)
{
	struct pmt_counts *c = load(FIX "perf-percpu.csv");

	assert_int_equal(pmt_counts_nr_units(c), 2);
	assert_string_equal(pmt_counts_unit_aggr(c, 1), "CPU1");
	assert_true(get(c, 0, "task-clock") == 11.75);
	assert_true(get(c, 1, "context-switches") == 22);
	pmt_counts_free(c);

	c = load(FIX "perf-percore.csv"); /* S0-D0-C0,1,value,...: the "1" is the CPU count */
	assert_int_equal(pmt_counts_nr_units(c), 2);
	assert_string_equal(pmt_counts_unit_aggr(c, 0), "S0-D0-C0");
	assert_true(get(c, 0, "context-switches") == 3);
	assert_true(get(c, 1, "task-clock") == 11.63);
	pmt_counts_free(c);
}

static void interval_csv(void **state)
{
	struct pmt_counts *c = load(FIX "perf-interval-percpu.csv");

	assert_int_equal(pmt_counts_nr_units(c), 6);
	assert_string_equal(pmt_counts_unit_interval(c, 0), "0.100211277");
	assert_string_equal(pmt_counts_unit_aggr(c, 0), "CPU0");
	assert_string_equal(pmt_counts_unit_interval(c, 5), "0.251659484");
	assert_true(get(c, 0, "task-clock") == 101.20);
	assert_true(get(c, 5, "task-clock") == 50.54);
	pmt_counts_free(c);
}

static void not_supported_and_comments(void **state)
{
	struct pmt_counts *c = load(FIX "perf-notsupported.csv");

	assert_true(isnan(get(c, 0, "cycles")));
	assert_true(get(c, 0, "task-clock") == 0.93);
	pmt_counts_free(c);

	c = load(FIX "counts-lock-percpu.csv"); /* starts with a '#' comment line */
	assert_true(isnan(get(c, 1, "CPU_CLK_UNHALTED.THREAD")));
	assert_true(get(c, 1, "MEM_INST_RETIRED.LOCK_LOADS") == 500000);
	pmt_counts_free(c);
}

static void json_lines(void **state)
{
	struct pmt_counts *c = load(FIX "perf-percpu.jsonl");

	assert_int_equal(pmt_counts_nr_units(c), 2);
	assert_string_equal(pmt_counts_unit_aggr(c, 0), "CPU0");
	assert_true(get(c, 0, "task-clock") == 11.837807);
	assert_true(get(c, 1, "context-switches") == 9);
	pmt_counts_free(c);
}

static void json_interval_core_and_not_counted(void **state)
{
	/* perf stat -j -I --per-core layout (keys as perf 6.1 prints them) */
	static const char text[] =
		"{\"interval\" : 1.000123456, \"core\" : \"S0-D0-C1\", \"aggregate-number\" : 2, "
		"\"counter-value\" : \"1234.000000\", \"unit\" : \"\", \"event\" : \"cycles\"}\n"
		"{\"interval\" : 1.000123456, \"core\" : \"S0-D0-C1\", \"aggregate-number\" : 2, "
		"\"counter-value\" : \"<not counted>\", \"unit\" : \"\", \"event\" : \"instructions\"}\n";
	struct pmt_counts *c;

	assert_int_equal(pmt_counts_new(&c), 0);
	assert_int_equal(pmt_counts_load_mem(c, text, sizeof(text) - 1, "mem", NULL), 0);
	assert_int_equal(pmt_counts_nr_units(c), 1);
	assert_string_equal(pmt_counts_unit_interval(c, 0), "1.000123456");
	assert_string_equal(pmt_counts_unit_aggr(c, 0), "S0-D0-C1");
	assert_true(get(c, 0, "cycles") == 1234);
	assert_true(isnan(get(c, 0, "instructions")));
	pmt_counts_free(c);
}

static char last_msg[256];
static int nr_msgs;
static void keep_msg(enum pmt_log_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)ctx;
	nr_msgs++;
	snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

/* What perf stat -x writes besides counts (comments, "Failed to read max cpus", blank and
 * continuation lines) is skipped and said once; negative or non-numeric counter values
 * (also nan and inf, which perf never prints) are errors naming the line; an event
 * repeated for the same unit is summed and said. */
static void bad_input_names_the_line(void **state)
{
	static const char text[] = "# started on Mon\n\nFailed to read max cpus, using default of 4096\n"
				   "1,,cycles,1,100.00,,\nnot a count line\n";
	static const char neg[] = "1,,cycles,1,100.00,,\n-5,,instructions,1,100.00,,\n";
	static const char dup[] = "1,,cycles,1,100.00,,\n2,,cycles,1,100.00,,\n";
	static const char js[] = "{\"event\" : \"x\", \"counter-value\" : \"abc\"}\n";
	static const char *const nonnum[] = {
		"1,,instructions,1,100.00,,\n12abc,,cycles,1,100.00,,\n",
		"1,,instructions,1,100.00,,\nnan,,cycles,1,100.00,,\n",
		"CPU0,1,,instructions,1,100.00,,\nCPU0,x,,cycles,1,100.00,,\n",
		"S0-D0-C0,1,1,,instructions,1,100.00,,\nS0-D0-C0,1,inf,,cycles,1,100.00,,\n",
		"0.1,1,,instructions,1,100.00,,\n0.1,abc,,cycles,1,100.00,,\n",
	};
	struct pmt_counts *c;
	struct pmt_diag d = PMT_DIAG_INIT;
	char text_of_d[1200];

	pmt_log_set_sink(keep_msg, NULL);
	assert_int_equal(pmt_counts_new(&c), 0);
	nr_msgs = 0;
	/* damage read past: the load succeeds, says it once, and leaves it in the diag */
	assert_int_equal(pmt_counts_load_mem(c, text, sizeof(text) - 1, "mem", &d), 0);
	assert_true(get(c, 0, "cycles") == 1);
	assert_int_equal(nr_msgs, 1);
	assert_string_equal(last_msg, "mem: 2 lines that are not counts skipped (first: line 3)");
	assert_int_equal(d.code, -PMT_EPARSE);
	assert_string_equal(d.file, "mem");
	assert_string_equal(d.msg, "2 lines that are not counts skipped (first: line 3)");
	pmt_counts_free(c);

	/* an error: nothing logged, the diag names file and line */
	assert_int_equal(pmt_counts_new(&c), 0);
	nr_msgs = 0;
	d = (struct pmt_diag)PMT_DIAG_INIT;
	assert_int_equal(pmt_counts_load_mem(c, neg, sizeof(neg) - 1, "mem", &d), -PMT_EPARSE);
	assert_int_equal(nr_msgs, 0);
	assert_int_equal(d.code, -PMT_EPARSE);
	assert_string_equal(d.file, "mem");
	assert_int_equal(d.line, 2);
	assert_string_equal(d.msg, "negative count -5 for instructions");
	pmt_diag_format(&d, text_of_d, sizeof(text_of_d));
	assert_string_equal(text_of_d, "mem:2: negative count -5 for instructions");
	pmt_counts_free(c);

	/* a count line whose value is no number (nor <not counted>) is an error, in every
	 * aggregation layout; perf's messages and metric-only lines are not */
	for (size_t k = 0; k < sizeof(nonnum) / sizeof(nonnum[0]); k++) {
		assert_int_equal(pmt_counts_new(&c), 0);
		d = (struct pmt_diag)PMT_DIAG_INIT;
		assert_int_equal(pmt_counts_load_mem(c, nonnum[k], strlen(nonnum[k]), "mem", &d),
				 -PMT_EPARSE);
		assert_int_equal(d.line, 2);
		assert_non_null(strstr(d.msg, "count '"));
		assert_non_null(strstr(d.msg, "' for cycles is not a number"));
		pmt_counts_free(c);
	}
	assert_int_equal(pmt_counts_new(&c), 0);
	assert_int_equal(pmt_counts_load_mem(c, dup, sizeof(dup) - 1, "mem", NULL), 0);
	assert_true(get(c, 0, "cycles") == 3);
	assert_non_null(strstr(last_msg, "1 line repeats an event already counted"));
	d = (struct pmt_diag)PMT_DIAG_INIT;
	assert_int_equal(pmt_counts_load_mem(c, js, sizeof(js) - 1, "mem", &d), -PMT_EPARSE);
	assert_int_equal(d.code, -PMT_EPARSE);
	assert_int_equal(d.line, 1);
	d = (struct pmt_diag)PMT_DIAG_INIT;
	assert_int_equal(pmt_counts_load(c, FIX "does-not-exist.csv", &d), -PMT_EIO);
	assert_int_equal(d.code, -PMT_EIO);
	assert_string_equal(d.file, FIX "does-not-exist.csv");
	pmt_counts_free(c);
	pmt_log_set_sink(NULL, NULL);
}

/* A recording's counts whose CPU map is damaged (fuzz corpus): read past with a warning,
 * the first damage kept with its record's file offset, 0xb40 (perf 7.3 report -D says
 * 0xb30 for it: in a pipe-mode file perf counts from the end of the 16-byte pipe header,
 * and warns "nr 60000 exceeds payload (max 2)" of the same record) */
static void trace_damage_is_kept(void **state)
{
	static const char path[] = PMT_SOURCE_DIR
		"/tests/fuzz/corpus/counts_trace/bad-cpu-index-and-map.data";
	struct pmt_counts_trace *t;
	struct pmt_counts *c;
	const struct pmt_diag *d;

	(void)state;
	pmt_log_set_sink(keep_msg, NULL);
	nr_msgs = 0;
	assert_int_equal(pmt_counts_new(&c), 0);
	assert_int_equal(pmt_counts_trace_open(path, c, &t, NULL), 0);
	while (pmt_counts_trace_next(t, c) > 0)
		;
	d = pmt_counts_trace_damage(t);
	assert_int_equal(d->code, -PMT_ECORRUPT);
	assert_string_equal(d->file, path);
	assert_int_equal(d->offset, 0xb40);
	assert_string_equal(d->msg, "PERF_RECORD_CPU_MAP record of 16 bytes is damaged (more CPUs "
				    "than the record holds); skipped");
	assert_true(nr_msgs >= 1);
	pmt_counts_trace_close(t);
	pmt_counts_free(c);
	pmt_log_set_sink(NULL, NULL);
}

static void other_separator(void **state)
{
	static const char text[] = "CPU0;5;;cycles;1;100.00;;\nCPU1;7;;cycles;1;100.00;;\n";
	struct pmt_counts *c;

	assert_int_equal(pmt_counts_new(&c), 0);
	assert_int_equal(pmt_counts_load_mem(c, text, sizeof(text) - 1, "mem", NULL), 0);
	assert_int_equal(pmt_counts_nr_units(c), 2);
	assert_true(get(c, 1, "cycles") == 7);
	pmt_counts_free(c);
}

static void merged_sources_add_up(void **state)
{
	/* uncore: one line per PMU instance for the same event and unit */
	static const char text[] = "10,,uncore_x/ev/,1,100.00,,\n32,,uncore_x/ev/,1,100.00,,\n";
	struct pmt_counts *c;

	assert_int_equal(pmt_counts_new(&c), 0);
	assert_int_equal(pmt_counts_load_mem(c, text, sizeof(text) - 1, "mem", NULL), 0);
	assert_true(get(c, 0, "uncore_x@ev@") == 42);
	assert_int_equal(pmt_counts_sources(c, 0, 0), 2);
	pmt_counts_free(c);
}

static void event_keys(void **state)
{
	struct pmt_event_key a, b;

	assert_int_equal(pmt_event_key_parse("cpu_core@MEM_LOAD_RETIRED.L2_HIT@R", &a), 0);
	assert_string_equal(a.pmu, "cpu_core");
	assert_string_equal(a.event, "mem_load_retired.l2_hit");
	assert_string_equal(a.mods, "");
	assert_int_equal(a.retire_latency, 1);
	assert_int_equal(pmt_event_key_parse("MEM_LOAD_RETIRED.L2_HIT:R", &b), 0);
	assert_int_equal(b.retire_latency, 1);
	assert_int_equal(pmt_event_key_match(&a, &b), 1); /* no pmu vs core pmu */
	assert_int_equal(pmt_event_key_parse("MEM_INST_RETIRED.LOCK_LOADS:retire_latency", &b), 0);
	assert_int_equal(b.retire_latency, 1);
	assert_string_equal(b.event, "mem_inst_retired.lock_loads");
	assert_int_equal(pmt_event_key_parse("msr/tsc/", &a), 0);
	assert_int_equal(pmt_event_key_parse("msr@tsc@", &b), 0);
	assert_int_equal(pmt_event_key_match(&a, &b), 2);
	assert_int_equal(pmt_event_key_parse("cpu_atom@tsc@", &b), 0);
	assert_int_equal(pmt_event_key_match(&a, &b), 0);
	/* Intel qualifiers are not perf modifiers: ":USER" is no retire latency */
	assert_int_equal(pmt_event_key_parse("INST_RETIRED.ANY:USER", &a), 0);
	assert_int_equal(a.retire_latency, 0);
	assert_string_equal(a.mods, "user");
	assert_int_equal(pmt_event_key_parse("MEM_LOAD_RETIRED.L3_HIT:pR", &a), 0);
	assert_int_equal(a.retire_latency, 1);
	assert_string_equal(a.mods, "p");
	assert_int_equal(pmt_event_key_parse("cycles:k", &a), 0);
	assert_string_equal(a.mods, "k");
	assert_int_equal(a.retire_latency, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plain_csv),
		cmocka_unit_test(per_cpu_and_per_core_csv),
		cmocka_unit_test(interval_csv),
		cmocka_unit_test(not_supported_and_comments),
		cmocka_unit_test(json_lines),
		cmocka_unit_test(json_interval_core_and_not_counted),
		cmocka_unit_test(bad_input_names_the_line),
		cmocka_unit_test(trace_damage_is_kept),
		cmocka_unit_test(other_separator),
		cmocka_unit_test(merged_sources_add_up),
		cmocka_unit_test(event_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
