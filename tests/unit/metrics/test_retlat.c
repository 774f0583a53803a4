/* Retire latency: sample distributions from perf.data (made with the project's perf.data
 * writer), statistics, tables in three formats, value selection (perf's evsel__tpebs_read
 * rules) and the calibrate round trip. Expected statistics are recomputed in the test
 * from the raw sample list with plain loops and qsort. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/metrics.h"

#define FIX PMT_SOURCE_DIR "/fixtures/metrics/"
#define TPEBS PMT_SHARED_DIR "/data/tpebs/"

#define SAMPLE_IDENTIFIER (1ULL << 16)
#define SAMPLE_IP (1ULL << 0)
#define SAMPLE_TID (1ULL << 1)
#define SAMPLE_TIME (1ULL << 2)
#define SAMPLE_WEIGHT (1ULL << 14)
#define SAMPLE_WEIGHT_STRUCT (1ULL << 24)

static const uint16_t lock_lat[] = { 15, 20, 20, 100, 5156, 0, 37, 20, 65535, 3 };
static const uint16_t l3_lat[] = { 2, 2, 57, 300, 1, 0, 0 };

struct attr {
	uint32_t type, size;
	uint64_t config, sample_period, sample_type, read_format, flags;
	uint8_t rest[136 - 48];
};

static int cmp_u16(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* Three events: two with WEIGHT_STRUCT (ids 100, 200), one with plain WEIGHT (id 300,
 * must be skipped: retire latency is only reported with WEIGHT_STRUCT). */
static void write_trace(const char *path)
{
	struct pmt_perf_writer *w;
	struct attr a = { 0 };
	uint64_t id1 = 100, id2 = 200, id3 = 300;
	size_t n1 = sizeof(lock_lat) / 2, n2 = sizeof(l3_lat) / 2;

	assert_int_equal(pmt_perf_writer_open(path, NULL, &w), 0);
	a.type = 4; /* PERF_TYPE_RAW */
	a.config = 0x21d0;
	a.sample_period = 100007;
	a.sample_type = SAMPLE_IDENTIFIER | SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME |
			SAMPLE_WEIGHT_STRUCT;
	a.flags = 1ULL << 15; /* precise_ip = 1 */
	assert_int_equal(pmt_perf_writer_add_attr(w, &a, sizeof(a), &id1, 1,
						  "MEM_INST_RETIRED.LOCK_LOADS:p"), 0);
	a.config = 0x04d1;
	assert_int_equal(pmt_perf_writer_add_attr(w, &a, sizeof(a), &id2, 1,
						  "cpu_core/MEM_LOAD_RETIRED.L3_HIT/p"), 0);
	a.sample_type = SAMPLE_IDENTIFIER | SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_WEIGHT;
	assert_int_equal(pmt_perf_writer_add_attr(w, &a, sizeof(a), &id3, 1, "cycles:p"), 0);
	for (size_t i = 0; i < n1 || i < n2; i++) {
		struct pmt_sample s = { 0 };

		s.pid = s.tid = 42;
		s.ip = 0x401000 + i;
		if (i < n1) {
			s.id = 100;
			s.time = 1000 + i * 10;
			/* var3_w (bits 63:48) = retire latency, var1_dw = an unrelated load latency */
			s.weight = (uint64_t)lock_lat[i] << 48 | 0x1234;
			assert_int_equal(pmt_perf_writer_write_sample(w, &s), 0);
		}
		if (i < n2) {
			s.id = 200;
			s.time = 1001 + i * 10;
			s.weight = (uint64_t)l3_lat[i] << 48 | (uint64_t)7 << 32;
			assert_int_equal(pmt_perf_writer_write_sample(w, &s), 0);
		}
		s.id = 300;
		s.weight = 999;
		assert_int_equal(pmt_perf_writer_write_sample(w, &s), 0);
	}
	assert_int_equal(pmt_perf_writer_close(w), 0);
}

struct expect {
	double mean, min, max, median;
};

static struct expect expected(const uint16_t *v, size_t n)
{
	uint16_t s[64];
	struct expect e = { 0, 1e9, -1, 0 };

	memcpy(s, v, n * 2);
	for (size_t i = 0; i < n; i++) {
		e.mean += v[i];
		e.min = v[i] < e.min ? v[i] : e.min;
		e.max = v[i] > e.max ? v[i] : e.max;
	}
	e.mean /= (double)n;
	qsort(s, n, 2, cmp_u16);
	e.median = s[n / 2]; /* genretlat.py: sorted(samples)[len//2] */
	return e;
}

static char trace_path[64];

static int setup(void **state)
{
	int fd;

	strcpy(trace_path, "/tmp/pmt_retlat_XXXXXX");
	fd = mkstemp(trace_path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(trace_path);
	return 0;
}

static void samples_from_perf_data(void **state)
{
	struct pmt_retlat_samples s = { 0 };
	struct pmt_retlat_stats st;
	struct expect e1 = expected(lock_lat, sizeof(lock_lat) / 2);
	struct expect e2 = expected(l3_lat, sizeof(l3_lat) / 2);
	int i;

	write_trace(trace_path);
	assert_int_equal(pmt_retlat_samples_from_trace(&s, trace_path, NULL),
			 (int)(sizeof(lock_lat) + sizeof(l3_lat)) / 2);
	assert_int_equal(s.nr, 2);
	assert_int_equal(s.nr_skipped, sizeof(lock_lat) / 2); /* the WEIGHT (not STRUCT) ones */
	i = pmt_retlat_dist_find(&s, "MEM_INST_RETIRED.LOCK_LOADS:R");
	assert_true(i >= 0);
	pmt_retlat_dist_stats(&s.ev[i], &st);
	assert_int_equal(st.count, sizeof(lock_lat) / 2);
	assert_true(fabs(st.mean - e1.mean) < 1e-9);
	assert_true(st.min == e1.min && st.max == e1.max && st.median == e1.median);
	assert_true(st.last == 3);
	/* 20 appears three times */
	assert_true(st.mode == 20 && st.mode_count == 3);
	assert_true(st.min_nz == 3);
	/* pNN = sorted[floor(NN/100 * count)], so that p50 is genretlat's MEDIAN
	 * (sorted[count // 2]): sorted = 0 3 15 20 20 20 37 100 5156 65535 */
	assert_true(st.p90 == 65535 && st.p99 == 65535);
	assert_true(pmt_retlat_dist_pct(&s.ev[i], 50) == st.median);
	assert_true(pmt_retlat_dist_pct(&s.ev[i], 80) == 5156);
	i = pmt_retlat_dist_find(&s, "cpu_core@MEM_LOAD_RETIRED.L3_HIT@R");
	assert_true(i >= 0);
	pmt_retlat_dist_stats(&s.ev[i], &st);
	assert_true(fabs(st.mean - e2.mean) < 1e-9);
	assert_true(st.min == e2.min && st.max == e2.max && st.median == e2.median);
	/* ties between 0 and 2 (two each) keep the smaller value */
	assert_true(st.mode == 0 && st.nz_mode == 2 && st.nz_count == 5);
	pmt_retlat_samples_fini(&s);
}

/* perf's rules: mean = rint(mean) from samples; from tables rint() of the field. */
/* Per-CPU statistics, by hand: CPU 1 has 10, 31, 20 (mean 20.33 -> 20, median sorted[1]
 * = 20, last 20), CPU 3 has 7 (all five: mean 17, max 31); CPU 2 has none; a sample without
 * a CPU counts for all CPUs only. */
static void per_cpu_values(void **state)
{
	struct pmt_retlat_samples s = { 0 };
	double v = -1;

	(void)state;
	assert_int_equal(pmt_retlat_samples_add_cpu(&s, "A.B:p", 1, 10), 0);
	assert_int_equal(pmt_retlat_samples_add_cpu(&s, "A.B:p", 3, 7), 0);
	assert_int_equal(pmt_retlat_samples_add_cpu(&s, "A.B:p", 1, 31), 0);
	assert_int_equal(pmt_retlat_samples_add_cpu(&s, "A.B:p", 1, 20), 0);
	assert_int_equal(pmt_retlat_samples_add(&s, "A.B:p", 17), 0);
	assert_int_equal(pmt_retlat_value_cpu(&s, "A.B:R", 1, PMT_RETLAT_MEAN, 0, &v), 1);
	assert_true(v == 20);
	assert_int_equal(pmt_retlat_value_cpu(&s, "A.B:R", 1, PMT_RETLAT_MEDIAN, 0, &v), 1);
	assert_true(v == 20);
	assert_int_equal(pmt_retlat_value_cpu(&s, "A.B:R", 1, PMT_RETLAT_LAST, 0, &v), 1);
	assert_true(v == 20);
	assert_int_equal(pmt_retlat_value_cpu(&s, "A.B:R", 3, PMT_RETLAT_MAX, 0, &v), 1);
	assert_true(v == 7);
	v = -1;
	assert_int_equal(pmt_retlat_value_cpu(&s, "A.B:R", 2, PMT_RETLAT_MEAN, 0, &v), 0);
	assert_true(v == -1);
	assert_int_equal(pmt_retlat_value_cpu(&s, "C.D:R", 1, PMT_RETLAT_MEAN, 0, &v), 0);
	assert_int_equal(pmt_retlat_value(&s, NULL, "A.B:R", PMT_RETLAT_MEAN, 0, &v), 1);
	assert_true(v == 17); /* (10 + 7 + 31 + 20 + 17) / 5 */
	assert_int_equal(pmt_retlat_value(&s, NULL, "A.B:R", PMT_RETLAT_MAX, 0, &v), 1);
	assert_true(v == 31);
	pmt_retlat_samples_fini(&s);
}

static void value_selection(void **state)
{
	struct pmt_retlat_samples s = { 0 };
	struct pmt_retlat_table t = { 0 };
	struct expect e1 = expected(lock_lat, sizeof(lock_lat) / 2);
	double v;

	write_trace(trace_path);
	assert_true(pmt_retlat_samples_from_trace(&s, trace_path, NULL) > 0);
	assert_int_equal(pmt_retlat_table_load(&t, FIX "retlat-intel.json", NULL), 2);
	assert_int_equal(pmt_retlat_value(&s, &t, "MEM_INST_RETIRED.LOCK_LOADS:R", PMT_RETLAT_MEAN,
					  0, &v), 1);
	assert_true(v == rint(e1.mean));
	assert_int_equal(pmt_retlat_value(&s, &t, "MEM_INST_RETIRED.LOCK_LOADS:R", PMT_RETLAT_LAST,
					  0, &v), 1);
	assert_true(v == 3);
	assert_int_equal(pmt_retlat_value(&s, &t, "MEM_INST_RETIRED.LOCK_LOADS:R", PMT_RETLAT_MAX,
					  0, &v), 1);
	assert_true(v == 65535);
	/* no samples: the table's MEAN 57.64 -> 58, MIN 0, MAX 5630, last = mean */
	pmt_retlat_samples_fini(&s);
	assert_int_equal(pmt_retlat_value(&s, &t, "MEM_LOAD_RETIRED.L3_HIT:R", PMT_RETLAT_MEAN, 0,
					  &v), 0);
	assert_true(v == 58);
	pmt_retlat_value(&s, &t, "MEM_LOAD_RETIRED.L3_HIT:R", PMT_RETLAT_MIN, 0, &v);
	assert_true(v == 0);
	pmt_retlat_value(&s, &t, "MEM_LOAD_RETIRED.L3_HIT:R", PMT_RETLAT_MAX, 0, &v);
	assert_true(v == 5630);
	pmt_retlat_value(&s, &t, "MEM_LOAD_RETIRED.L3_HIT:R", PMT_RETLAT_LAST, 0, &v);
	assert_true(v == 58);
	assert_int_equal(pmt_retlat_value(&s, &t, "OTHER.EVENT:R", PMT_RETLAT_MEAN, 0, &v),
			 -PMT_ENOT_FOUND);
	assert_true(v == 0);
	pmt_retlat_table_fini(&t);
}

static void stat_names(void **state)
{
	enum pmt_retlat_stat st;
	double p;

	assert_int_equal(pmt_retlat_stat_parse("MEAN", &st, &p), 0);
	assert_int_equal(st, PMT_RETLAT_MEAN);
	assert_int_equal(pmt_retlat_stat_parse("last", &st, &p), 0);
	assert_int_equal(st, PMT_RETLAT_LAST);
	assert_int_equal(pmt_retlat_stat_parse("p99.9", &st, &p), 0);
	assert_true(st == PMT_RETLAT_PCT && p == 99.9);
	assert_int_equal(pmt_retlat_stat_parse("p0", &st, &p), -PMT_ERANGE);
	assert_int_equal(pmt_retlat_stat_parse("p101", &st, &p), -PMT_ERANGE);
	assert_int_equal(pmt_retlat_stat_parse("px", &st, &p), -PMT_EPARSE);
	assert_int_equal(pmt_retlat_stat_parse("table.json", &st, &p), -PMT_EPARSE);
}

/* pmu-tools fixture: Values {0:1, 10:2, 20:2, 100:1}: MEDIAN 20; p50 nearest rank = 3rd of 6
 * = 10 (from the histogram). */
static void pmu_tools_table(void **state)
{
	struct pmt_retlat_table t = { 0 };
	double v;
	int i;

	assert_int_equal(pmt_retlat_table_load(&t, FIX "retlat-pmutools.json", NULL), 1);
	i = pmt_retlat_table_find(&t, "mem_inst_retired.lock_loads");
	assert_true(i >= 0);
	assert_true(t.e[i].count == 6 && t.e[i].median == 20 && t.e[i].mean == 26.67);
	pmt_retlat_value(NULL, &t, "MEM_INST_RETIRED.LOCK_LOADS:R", PMT_RETLAT_MEDIAN, 0, &v);
	assert_true(v == 20);
	/* p50 of the table's histogram is its MEDIAN: one definition (pmu-tools' sorted[n // 2]) */
	pmt_retlat_value(NULL, &t, "MEM_INST_RETIRED.LOCK_LOADS:R", PMT_RETLAT_PCT, 50, &v);
	assert_true(v == 20);
	pmt_retlat_value(NULL, &t, "MEM_INST_RETIRED.LOCK_LOADS:R", PMT_RETLAT_MEAN, 0, &v);
	assert_true(v == 27);
	pmt_retlat_table_fini(&t);
}

static void shared_tables(void **state)
{
	struct pmt_retlat_table t = { 0 };
	int i;

	if (access(TPEBS "gnr-retlat.json", R_OK)) {
		skip();
		return;
	}
	/* tpebs.md §5: pmu-tools GNR L3_HIT MEAN 204.01, MEDIAN 2, MAX 65535 */
	assert_true(pmt_retlat_table_load(&t, TPEBS "gnr-retlat.json", NULL) > 20);
	i = pmt_retlat_table_find(&t, "MEM_LOAD_RETIRED.L3_HIT");
	assert_true(i >= 0);
	assert_true(t.e[i].mean == 204.01 && t.e[i].median == 2 && t.e[i].max == 65535);
	pmt_retlat_table_fini(&t);
	/* Intel: LOCK_LOADS {15, 5156, 63.76}. The file holds 26 events (python3 json: len of
	 * "Data"); tpebs.md §3 says 25. */
	assert_int_equal(pmt_retlat_table_load(&t, TPEBS "GNR_metrics_graniterapids_retire_latency.json", NULL),
			 26);
	i = pmt_retlat_table_find(&t, "MEM_INST_RETIRED.LOCK_LOADS");
	assert_true(t.e[i].min == 15 && t.e[i].max == 5156 && t.e[i].mean == 63.76);
	pmt_retlat_table_fini(&t);
	/* event JSON: the 26 events with RetirementLatencyMean/Min/Max */
	assert_int_equal(pmt_retlat_table_load(&t, TPEBS "gnr-events-with-RetirementLatency.json", NULL),
			 26);
	i = pmt_retlat_table_find(&t, "MEM_INST_RETIRED.LOCK_LOADS");
	assert_true(t.e[i].min == 15 && t.e[i].max == 5156 && t.e[i].mean == 63.76);
	pmt_retlat_table_fini(&t);
}

/* calibrate writes both formats; each loads back with our loader and gives the mean
 * (rounded to 2 places, as genretlat.py), min and max of the samples. */
static void calibrate_round_trip(void **state)
{
	struct pmt_retlat_samples s = { 0 };
	struct pmt_retlat_table t = { 0 };
	struct expect e1 = expected(lock_lat, sizeof(lock_lat) / 2);
	char out[64];
	int fd, i;

	write_trace(trace_path);
	assert_true(pmt_retlat_samples_from_trace(&s, trace_path, NULL) > 0);
	strcpy(out, "/tmp/pmt_retlat_out_XXXXXX");
	fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	for (int fmt = 0; fmt < 2; fmt++) {
		FILE *fp = fopen(out, "w");

		assert_non_null(fp);
		assert_int_equal(pmt_retlat_write(&s, (enum pmt_retlat_format)fmt, 1, fp), 0);
		fclose(fp);
		assert_int_equal(pmt_retlat_table_load(&t, out, NULL), 2);
		i = pmt_retlat_table_find(&t, "MEM_INST_RETIRED.LOCK_LOADS");
		assert_true(i >= 0);
		assert_true(fabs(t.e[i].mean - round(e1.mean * 100) / 100) < 1e-9);
		assert_true(t.e[i].min == e1.min && t.e[i].max == e1.max);
		if (fmt == PMT_RETLAT_FMT_PMU_TOOLS) {
			assert_true(t.e[i].median == e1.median);
			assert_int_equal(t.e[i].count, sizeof(lock_lat) / 2);
			assert_non_null(t.e[i].values);
			assert_int_equal(t.e[i].values[20], 3);
			/* in genretlat's layout, the one its --merge reads: "Values[20]": 3 */
			{
				char text[4096];
				FILE *in = fopen(out, "r");
				size_t n;

				assert_non_null(in);
				n = fread(text, 1, sizeof(text) - 1, in);
				text[n] = 0;
				fclose(in);
				assert_non_null(strstr(text, "\"Values[20]\": 3"));
				assert_null(strstr(text, "\"Values\":"));
			}
		}
		pmt_retlat_table_fini(&t);
	}
	unlink(out);
	pmt_retlat_samples_fini(&s);
}

/* End to end: metrics with :R from the trace (rint(mean) of LOCK_LOADS samples) and
 * calibrate -o / --compare through the CLI. */
static void cli_metrics_and_calibrate(void **state)
{
	const char *bin = getenv("PMUTRACE");
	struct expect e1 = expected(lock_lat, sizeof(lock_lat) / 2);
	char cmd[1024], line[512], want[128], out[64];
	struct pmt_retlat_table t = { 0 };
	FILE *fp;
	int found = 0, fd;

	if (!bin) {
		skip();
		return;
	}
	write_trace(trace_path);
	/* 1e6 * rint(mean) / 2e9, x100 */
	snprintf(want, sizeof(want), ",,,tma_lock_latency,%.6f,%%,", 1e6 * rint(e1.mean) / 2e9 * 100);
	snprintf(cmd, sizeof(cmd), "%s metrics %s --metrics %s --counts %s -M tma_lock_latency "
		 "--csv 2>/dev/null", bin, trace_path, FIX "tiny-metrics.json", FIX "counts-lock.csv");
	fp = popen(cmd, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, want, strlen(want)))
			found = 1;
	assert_int_equal(pclose(fp), 0);
	if (!found)
		fail_msg("no line starting with %s", want);

	strcpy(out, "/tmp/pmt_cal_XXXXXX");
	fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s calibrate %s -o %s --format intel --compare %s >/dev/null",
		 bin, trace_path, out, FIX "retlat-intel.json");
	/* calibrate says that the trace's plain-WEIGHT samples (id 300) were skipped: exit 2 */
	assert_int_equal(WEXITSTATUS(system(cmd)), 2);
	assert_int_equal(pmt_retlat_table_load(&t, out, NULL), 2);
	pmt_retlat_table_fini(&t);
	unlink(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(samples_from_perf_data),
		cmocka_unit_test(value_selection),
		cmocka_unit_test(per_cpu_values),
		cmocka_unit_test(stat_names),
		cmocka_unit_test(pmu_tools_table),
		cmocka_unit_test(shared_tables),
		cmocka_unit_test(calibrate_round_trip),
		cmocka_unit_test(cli_metrics_and_calibrate),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
