/* Sinks: CSV header and columns, JSON lines checked with an independent parser (jansson),
 * perf-style text checked against perf 6.1's layout; report counts. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"
#include "spe_test_util.h"
#include "sink_render.h"

static struct pmt_spe_sample mk(void)
{
	struct pmt_spe_sample s;

	memset(&s, 0, sizeof(s));
	s.event = PMT_SPE_SE_L1D_ACCESS;
	s.cpu = 0;
	s.pid = 1234;
	s.tid = 1234;
	s.ip = 0xffffffc08420e068ULL;
	s.addr = 0xffffffe5aead80b0ULL;
	s.weight = 8;
	s.period = 1;
	s.data_src = 0x288100142ULL;
	s.op = PMT_SPE_OP_F_LDST | PMT_SPE_OP_F_LD;
	return s;
}

/* Line 2 of perf 6.1's hiperf_TestSpeDecoder.script-N1midr.txt (shared data README) */
static void test_text_like_perf61(void **state)
{
	struct pmt_spe_sample s = mk();
	char *txt = test_render(PMT_SINK_TEXT, PMT_PERF_6_1, &s, 1, 0, 0);

	assert_string_equal(txt,
		" 1234 [000]          1           l1d-access: ffffffe5aead80b0       288100142 "
		"|OP LOAD|LVL L1 or L1 hit|SNP None|TLB Walker hit|LCK No|BLK  N/A               8 "
		"ffffffc08420e068               0\n");
	free(txt);
}

static void test_csv(void **state)
{
	struct pmt_spe_sample s[2] = { mk(), mk() };
	char *csv;

	s[1].event = PMT_SPE_SE_BRANCH;
	s[1].data_src = 0;
	s[1].op = PMT_SPE_OP_F_BRANCH;
	csv = test_render(PMT_SINK_CSV, PMT_PERF_NEWEST, s, 2, 1, 0);
	assert_non_null(strstr(csv, "event,cpu,pid,tid,time,ip,addr,phys_addr,period,weight,"));
	assert_non_null(strstr(csv, "\nl1d-access,0,1234,1234,0,0xffffffc08420e068,"
				    "0xffffffe5aead80b0,0x0,1,8,0,0,0x288100142,LOAD,L1 hit,None,"
				    "Walker hit,LD,"));
	/* no data source: the four decoded columns are empty */
	assert_non_null(strstr(csv, "\nbranch,0,1234,1234,0,0xffffffc08420e068,"
				    "0xffffffe5aead80b0,0x0,1,8,0,0,0x0,,,,,BR,"));
	free(csv);
}

static void test_jsonl(void **state)
{
	struct pmt_spe_sample s[2] = { mk(), mk() };
	char *js = test_render(PMT_SINK_JSONL, PMT_PERF_NEWEST, s, 2, 0, 0);
	char *line = js, *nl;
	int n = 0;

	while ((nl = strchr(line, '\n'))) {
		json_error_t err;
		json_t *o;

		*nl = 0;
		o = json_loads(line, 0, &err);
		assert_non_null(o);
		assert_string_equal(json_string_value(json_object_get(o, "event")), "l1d-access");
		assert_string_equal(json_string_value(json_object_get(o, "ip")),
				    "0xffffffc08420e068");
		assert_string_equal(json_string_value(json_object_get(o, "data_src")),
				    "0x288100142");
		assert_string_equal(json_string_value(json_object_get(o, "mem_snoop")), "None");
		assert_int_equal(json_integer_value(json_object_get(o, "weight")), 8);
		assert_int_equal(json_integer_value(json_object_get(o, "tid")), 1234);
		json_decref(o);
		line = nl + 1;
		n++;
	}
	assert_int_equal(n, 2);
	free(js);
}

static void test_report_json(void **state)
{
	struct pmt_spe_report *r;
	struct pmt_spe_sample s = mk();
	char *mem = NULL;
	size_t sz = 0;
	FILE *fp = open_memstream(&mem, &sz);
	struct pmt_out o;
	json_t *root, *g;
	json_error_t err;

	assert_int_equal(pmt_spe_report_new(&r), 0);
	for (int i = 0; i < 5; i++) {
		s.ip = i < 3 ? 0x1000 : 0x2000; /* 3 at 0x1000, 2 at 0x2000 */
		assert_int_equal(pmt_spe_report_add(r, &s), 0);
	}
	pmt_out_init(&o, fp, 4096);
	pmt_spe_report_print(r, &o, 1, 10, PMT_PERF_NEWEST, 1u << PMT_SPE_SE_L1D_ACCESS);
	pmt_out_fini(&o);
	fclose(fp);
	root = json_loads(mem, 0, &err);
	assert_non_null(root);
	g = json_array_get(json_object_get(root, "groups"), 0);
	assert_string_equal(json_string_value(json_object_get(g, "event")), "l1d-access");
	assert_int_equal(json_integer_value(json_object_get(g, "samples")), 5);
	assert_string_equal(json_string_value(json_object_get(
		json_array_get(json_object_get(g, "top"), 0), "ip")), "0x1000");
	assert_int_equal(json_integer_value(json_object_get(
		json_array_get(json_object_get(g, "top"), 1), "samples")), 2);
	json_decref(root);
	free(mem);
	pmt_spe_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_like_perf61),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_jsonl),
		cmocka_unit_test(test_report_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
