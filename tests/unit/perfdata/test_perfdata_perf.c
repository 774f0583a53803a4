/* perf.data reader on files perf itself records at test time (file, zstd-compressed, pipe):
 * the record counts must equal those `perf report -D` prints. Skips without perf. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "perfdata_test_util.h"

static long perf_count(const char *file, const char *name)
{
	char cmd[512], line[256];
	FILE *p;
	long n = 0;

	snprintf(cmd, sizeof(cmd), "perf report -D -i %s 2>/dev/null | sed -n '/^Aggregated stats/,/stats:$/p'",
		 file);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char nm[64];
		long v;

		if (sscanf(line, " %63s events: %ld", nm, &v) == 2 && !strcmp(nm, name))
			n = v;
	}
	pclose(p);
	return n;
}

static void check_perf_file(const char *path, bool pipe)
{
	struct pmt_source *s;
	struct pmt_trace_event ev;
	const struct pmt_trace_meta *m;
	long n_comm = 0, n_mmap2 = 0, n_sample = 0, n_mmap = 0;
	uint32_t true_pid = 0;
	int rc;

	assert_int_equal(pmt_source_open(path, &s, NULL), 0);
	m = pmt_source_meta(s);
	assert_int_equal(m->pipe_mode, pipe);
	assert_int_equal(m->timeless, 0);
	assert_true(m->nr_attrs >= 1);
	assert_int_equal(m->attrs[0].type, 1); /* PERF_TYPE_SOFTWARE, cpu-clock = 0 */
	assert_int_equal(m->attrs[0].config, 0);
	assert_non_null(m->hostname);
	while ((rc = pmt_source_next(s, &ev)) != -PMT_EEOS) {
		assert_int_equal(rc, 0);
		switch (ev.type) {
		case PMT_REC_COMM:
			n_comm++;
			if (!strcmp(ev.u.comm.comm, "true"))
				true_pid = ev.u.comm.pid;
			break;
		case PMT_REC_MMAP2:
			n_mmap2++;
			assert_true(ev.u.mmap.len > 0);
			assert_true(ev.u.mmap.filename[0] != 0);
			break;
		case PMT_REC_MMAP:
			n_mmap++;
			break;
		case PMT_REC_SAMPLE:
			n_sample++;
			assert_non_null(ev.u.sample.attr);
			assert_true(ev.u.sample.time > 0);
			assert_true(ev.u.sample.period > 0);
			assert_true(ev.u.sample.cpu < m->nr_cpus_avail || m->nr_cpus_avail == 0);
			if (true_pid)
				assert_int_equal(ev.u.sample.pid, true_pid);
			break;
		default:
			break;
		}
	}
	assert_int_equal(n_comm, perf_count(path, "COMM"));
	assert_int_equal(n_mmap2, perf_count(path, "MMAP2"));
	assert_int_equal(n_mmap, perf_count(path, "MMAP"));
	assert_int_equal(n_sample, perf_count(path, "SAMPLE"));
	assert_true(n_comm >= 1);
	pmt_source_close(s);
}

static void test_perf_recorded(void **state)
{
	char f[128], z[128], p[128], cmd[512];

	tmp_path(f, sizeof(f), "perf.data");
	tmp_path(z, sizeof(z), "perfz.data");
	tmp_path(p, sizeof(p), "perf.pipe");
	snprintf(cmd, sizeof(cmd), "perf record -q -e cpu-clock -o %s -- true >/dev/null 2>&1", f);
	if (system("command -v perf >/dev/null 2>&1") || system(cmd)) {
		skip();
		return;
	}
	check_perf_file(f, false);
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -z -e cpu-clock -o %s -- sh -c 'ls /usr/bin >/dev/null' >/dev/null 2>&1",
		 z);
	assert_int_equal(system(cmd), 0);
	check_perf_file(z, false);
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -e cpu-clock -o - -- true 2>/dev/null | cat > %s", p);
	assert_int_equal(system(cmd), 0);
	check_perf_file(p, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_recorded),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
