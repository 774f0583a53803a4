/* Two CPUs' AUX data in one perf.data: pmutrace must merge the queues by timestamp like
 * perf does. Checked against the invariant (times never go back, every record of both
 * streams appears) and, when perf is installed, sample by sample against perf script. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/spe_decode.h"
#include "spe_test_util.h"

#define MAXS 20000

struct got {
	uint32_t cpu[MAXS];
	uint64_t time[MAXS], ip[MAXS];
	char ev[MAXS][16];
	int n;
};

static int collect(const struct pmt_spe_sample *s, void *ctx)
{
	struct got *g = ctx;

	if (g->n >= MAXS)
		return -PMT_ERANGE;
	g->cpu[g->n] = s->cpu;
	g->time[g->n] = s->time;
	g->ip[g->n] = s->ip;
	snprintf(g->ev[g->n], sizeof(g->ev[0]), "%s", pmt_spe_event_name(s->event, PMT_PERF_6_1));
	g->n++;
	return 0;
}

static void write_trace(const char *path)
{
	struct pmt_spe_synth_opts so;
	struct pmt_spe_synth sy;
	struct pmt_perf_writer *w;
	static uint8_t buf[2][64 * 300];
	uint8_t attr[136];
	uint64_t id = 1;

	test_spe_attr(attr);
	assert_int_equal(pmt_perf_writer_open(path, NULL, &w), 0);
	assert_int_equal(pmt_perf_writer_add_attr(w, attr, sizeof(attr), &id, 1, NULL), 0);
	assert_int_equal(pmt_perf_writer_set_feature_str(w, PMT_FEAT_CPUID, "0x00000000410fd0c0"), 0);
	assert_int_equal(pmt_perf_writer_set_nrcpus(w, 2, 2), 0);
	assert_int_equal(pmt_perf_writer_write_auxtrace_info_spe_v1(w, 8, true), 0);
	for (int cpu = 0; cpu < 2; cpu++) {
		pmt_spe_synth_opts_init(&so);
		so.seed = cpu ? 3 : 1; /* these two seeds cover overlapping time ranges */
		so.context = 1;
		assert_int_equal(pmt_spe_synth_init(&sy, &so), 0);
		assert_true(pmt_spe_synth_fill(&sy, buf[cpu], sizeof(buf[cpu])) > 0);
	}
	/* file order: cpu0 half, cpu1 half, cpu0 rest, cpu1 rest, as AUX flushes come */
	for (int part = 0; part < 2; part++)
		for (int cpu = 0; cpu < 2; cpu++)
			assert_int_equal(pmt_perf_writer_write_auxtrace(
				w, buf[cpu] + part * sizeof(buf[0]) / 2, sizeof(buf[0]) / 2,
				part * sizeof(buf[0]) / 2, 0, (uint32_t)cpu, 1234, (uint32_t)cpu), 0);
	assert_int_equal(pmt_perf_writer_close(w), 0);
}

static void test_merge(void **state)
{
	char path[] = "/tmp/pmt_multicpu_XXXXXX";
	int fd = mkstemp(path);
	struct pmt_source *src;
	struct pmt_spe_run_opts o;
	struct pmt_spe_rec_stats st;
	static struct got g;
	int seen[2] = { 0, 0 };
	char cmd[512];
	FILE *fp;
	int i = 0, mism = 0, switches = 0;

	assert_true(fd >= 0);
	close(fd);
	write_trace(path);
	assert_int_equal(pmt_source_open(path, &src, NULL), 0);
	o = PMT_OPTS_INIT(pmt_spe_run_opts);
	pmt_itrace_parse("bfmtaMi1i", &o.itrace, NULL);
	o.compat = PMT_PERF_6_1;
	g.n = 0;
	assert_int_equal(pmt_spe_run_source(src, &o, collect, &g, &st, NULL), 0);
	pmt_source_close(src);
	assert_int_equal(st.records, 600);
	for (int k = 0; k < g.n; k++) {
		seen[g.cpu[k]]++;
		if (k)
			assert_true(g.time[k] >= g.time[k - 1]);
		if (k && g.cpu[k] != g.cpu[k - 1])
			switches++;
	}
	assert_true(seen[0] > 300 && seen[1] > 300);
	/* the streams overlap in time, so a merge alternates CPUs many times */
	assert_true(switches > 50);

	if (system("perf version >/dev/null 2>&1") != 0) {
		unlink(path);
		skip();
	}
	snprintf(cmd, sizeof(cmd),
		 "perf script -i %s --itrace=bfmtaMi1i -F cpu,event,ip 2>/dev/null", path);
	fp = popen(cmd, "r");
	assert_non_null(fp);
	for (;;) {
		unsigned cpu;
		char ev[40];
		unsigned long long ip;

		if (fscanf(fp, " [%u] %39s %llx", &cpu, ev, &ip) != 3)
			break;
		ev[strlen(ev) - 1] = 0; /* "event:" */
		if (i < g.n && (cpu != g.cpu[i] || ip != g.ip[i] || strcmp(ev, g.ev[i]))) {
			if (!mism++)
				print_error("first difference at sample %d: perf [%u] %s %llx, "
					    "pmutrace [%u] %s %llx\n", i, cpu, ev, ip, g.cpu[i],
					    g.ev[i], (unsigned long long)g.ip[i]);
		}
		i++;
	}
	pclose(fp);
	unlink(path);
	assert_int_equal(i, g.n);
	assert_int_equal(mism, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
