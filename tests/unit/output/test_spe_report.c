/* The report's per-ip counts: exact across the table's packed/spilled count forms, the
 * table's growth, and ips that arrive interleaved. Expected values are counted by hand
 * from the sample sequences below. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"

static char *print_json(struct pmt_spe_report *r, unsigned top)
{
	char *mem = NULL;
	size_t sz = 0;
	FILE *fp = open_memstream(&mem, &sz);
	struct pmt_out o;

	assert_non_null(fp);
	assert_int_equal(pmt_out_init(&o, fp, 4096), 0);
	pmt_spe_report_print(r, &o, 1, top, PMT_PERF_NEWEST, 0);
	assert_int_equal(pmt_out_fini(&o), 0);
	fclose(fp);
	return mem;
}

static void add(struct pmt_spe_report *r, uint64_t ip, unsigned ev, unsigned times)
{
	struct pmt_spe_sample s = { 0 };

	s.ip = ip;
	s.event = ev;
	s.period = 1;
	for (unsigned i = 0; i < times; i++)
		assert_int_equal(pmt_spe_report_add(r, &s), 0);
}

/* Counts around the packed limit (63/64 samples of one group), one ip whose other group
 * stays small, and samples of two ips alternating (no run merging). */
static void test_counts_exact(void **state)
{
	struct pmt_spe_report *r;
	char *got;

	(void)state;
	assert_int_equal(pmt_spe_report_new(&r), 0);
	add(r, 0xa, PMT_SPE_SE_INSN, 100);
	add(r, 0xa, PMT_SPE_SE_L1D_ACCESS, 5);
	add(r, 0xb, PMT_SPE_SE_INSN, 64);
	add(r, 0xc, PMT_SPE_SE_INSN, 63);
	for (int i = 0; i < 70; i++) {
		add(r, 0xd, PMT_SPE_SE_INSN, 1);
		add(r, 0xe, PMT_SPE_SE_INSN, 1);
	}
	add(r, 0xf, PMT_SPE_SE_INSN, 1);
	add(r, 0xa, PMT_SPE_SE_L1D_ACCESS, 2); /* after 0xa spilled: 7 in all */
	got = print_json(r, 10);
	/* instructions: 100 + 64 + 63 + 70 + 70 + 1 = 368 over 6 ips; ties by ip */
	assert_string_equal(got,
			    "{\"groups\":[{\"event\":\"l1d-access\",\"samples\":7,\"period\":7,"
			    "\"distinct_ips\":1,\"top\":[{\"ip\":\"0xa\",\"samples\":7}]},"
			    "{\"event\":\"instructions\",\"samples\":368,\"period\":368,"
			    "\"distinct_ips\":6,\"top\":[{\"ip\":\"0xa\",\"samples\":100},"
			    "{\"ip\":\"0xd\",\"samples\":70},{\"ip\":\"0xe\",\"samples\":70},"
			    "{\"ip\":\"0xb\",\"samples\":64},{\"ip\":\"0xc\",\"samples\":63},"
			    "{\"ip\":\"0xf\",\"samples\":1}]}]}\n");
	free(got);
	pmt_spe_report_free(r);
}

/* Many distinct ips (the table grows several times) and one hot ip among them. */
static void test_growth(void **state)
{
	struct pmt_spe_report *r;
	char *got;

	(void)state;
	assert_int_equal(pmt_spe_report_new(&r), 0);
	for (uint64_t i = 0; i < 300000; i++) {
		add(r, 0x400000 + 4 * i, PMT_SPE_SE_BRANCH, 1);
		if (i % 1000 == 0)
			add(r, 0x1000, PMT_SPE_SE_BRANCH, 1);
	}
	got = print_json(r, 2);
	/* 300 hot samples at 0x1000; then the lowest ip among the 1-sample ones */
	assert_string_equal(got,
			    "{\"groups\":[{\"event\":\"branch\",\"samples\":300300,\"period\":300300,"
			    "\"distinct_ips\":300001,\"top\":[{\"ip\":\"0x1000\",\"samples\":300},"
			    "{\"ip\":\"0x400000\",\"samples\":1}]}]}\n");
	free(got);
	pmt_spe_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_exact),
		cmocka_unit_test(test_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
