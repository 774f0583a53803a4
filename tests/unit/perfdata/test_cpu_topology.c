/* HEADER_CPU_TOPOLOGY through the writer and the reader: every layout (file, pipe, either
 * byte order) gives the lists and ids back; the feature needs NRCPUS' count; a feature
 * whose lengths lie is dropped with the rest of the file read. The byte layout itself is
 * checked against perf 7.3's reading in record.pmusim_pebs_units. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "perfdata_test_util.h"

static char *pk[] = { "0-1", "2-3" }, *co[] = { "0", "1", "2", "3" }, *di[] = { "0-3" };
static const uint8_t finished_round[8] = { 68, 0, 0, 0, 0, 0, 8, 0 }; /* FINISHED_ROUND */
static int32_t core[] = { 0, 1, 0, -1 }, sock[] = { 0, 0, 1, -1 }, die[] = { 0, 0, 0, -1 };

static void write_trace(const char *path, bool pipe, bool swap, uint32_t avail, bool dies)
{
	struct pmt_perf_writer_opts o = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = pipe,
						      .swap = swap);
	struct pmt_cpu_topology t = {
		.nr_cpus = 4, .nr_packages = 2, .nr_cores = 4, .nr_dies = dies ? 1 : 0,
		.packages = pk, .cores = co, .dies = dies ? di : NULL,
		.core_id = core, .socket_id = sock, .die_id = dies ? die : NULL,
	};
	struct pmt_perf_writer *w;
	uint8_t attr[136];
	uint64_t id = 1;

	make_attr(attr, 1, 0, S_IP | S_TID | S_TIME, SID_ALL);
	assert_int_equal(pmt_perf_writer_open(path, &o, &w), 0);
	assert_int_equal(pmt_perf_writer_add_attr(w, attr, sizeof(attr), &id, 1, "cpu-clock"), 0);
	assert_int_equal(pmt_perf_writer_set_nrcpus(w, 3, avail), 0);
	assert_int_equal(pmt_perf_writer_set_cpu_topology(w, &t), 0);
	/* a record, so that the header's data size is not 0 ("not finished") */
	assert_int_equal(pmt_perf_writer_write_record(w, finished_round, sizeof(finished_round)), 0);
	assert_int_equal(pmt_perf_writer_close(w), 0);
}

static void check(const char *path, bool dies)
{
	struct pmt_source *s;
	const struct pmt_cpu_topology *t;

	assert_int_equal(pmt_source_open(path, &s, NULL), 0);
	t = pmt_source_meta(s)->topology;
	assert_non_null(t);
	assert_int_equal(t->nr_cpus, 4);
	assert_int_equal(t->nr_packages, 2);
	assert_string_equal(t->packages[1], "2-3");
	assert_int_equal(t->nr_cores, 4);
	assert_string_equal(t->cores[3], "3");
	for (int c = 0; c < 4; c++) {
		assert_int_equal(t->core_id[c], core[c]);
		assert_int_equal(t->socket_id[c], sock[c]);
		if (dies)
			assert_int_equal(t->die_id[c], die[c]);
	}
	if (dies) {
		assert_int_equal(t->nr_dies, 1);
		assert_string_equal(t->dies[0], "0-3");
	} else {
		assert_int_equal(t->nr_dies, 0);
		assert_null(t->die_id);
	}
	pmt_source_close(s);
}

static void layout(bool pipe, bool swap)
{
	char path[128];

	tmp_path(path, sizeof(path), "topo.data");
	write_trace(path, pipe, swap, 4, true);
	check(path, true);
	write_trace(path, pipe, swap, 4, false);
	check(path, false);
}

static void test_file(void **state) { layout(false, false); }
static void test_pipe(void **state) { layout(true, false); }
static void test_swapped(void **state) { layout(false, true); }
static void test_swapped_pipe(void **state) { layout(true, true); }

/* perf reads the ids by NRCPUS' count: a topology of another count is not written */
static void test_needs_nrcpus_count(void **state)
{
	struct pmt_source *s;
	char path[128];

	tmp_path(path, sizeof(path), "topo8.data");
	write_trace(path, false, false, 8, true);
	assert_int_equal(pmt_source_open(path, &s, NULL), 0);
	assert_null(pmt_source_meta(s)->topology);
	assert_int_equal(pmt_source_meta(s)->nr_cpus_avail, 8);
	pmt_source_close(s);
}

/* a list count that claims more than the section holds: the feature is dropped, the
 * records are read */
static void test_lying_count(void **state)
{
	struct pmt_source *s;
	struct pmt_trace_event ev;
	char path[128];
	uint8_t *buf;
	size_t len;
	FILE *f;
	int n = 0;

	tmp_path(path, sizeof(path), "topo_bad.data");
	write_trace(path, false, false, 4, true);
	f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	buf = malloc(len);
	rewind(f);
	assert_int_equal(fread(buf, 1, len, f), len);
	/* the feature starts with nr packages (2), then the first string's length (64) */
	for (size_t i = 0; i + 8 <= len; i++) {
		if (!memcmp(buf + i, "\2\0\0\0\x40\0\0\0" "0-1", 11)) {
			memcpy(buf + i, "\xff\xff\0\0", 4);
			n++;
		}
	}
	assert_int_equal(n, 1);
	rewind(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
	free(buf);
	assert_int_equal(pmt_source_open(path, &s, NULL), 0);
	assert_null(pmt_source_meta(s)->topology);
	assert_int_equal(pmt_source_meta(s)->nr_attrs, 1);
	assert_int_equal(pmt_source_next(s, &ev), 0);
	assert_int_equal(ev.type, 68);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_EEOS);
	pmt_source_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_swapped),
		cmocka_unit_test(test_swapped_pipe),
		cmocka_unit_test(test_needs_nrcpus_count),
		cmocka_unit_test(test_lying_count),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
