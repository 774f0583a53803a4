/* The pprof writer and the PostgreSQL export's contract. The profile is read back with zlib
 * and protobuf-c's own unpacker (the writer frames the Profile message by hand, field by
 * field: the unpacker is the check of that framing): identical samples are one Sample with
 * summed values, different labels are not; the sample types, labels (with their unit) and
 * string table are as the header says. Options, unwritable paths and an unreachable server
 * are diagnostics; a connection string is not repeated in a message. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include <zlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/export.h"
#include "profile.pb-c.h"

static Perftools__Profiles__Profile *read_profile(const char *path)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	Perftools__Profiles__Profile *p;
	int n;

	assert_non_null(gz);
	while ((n = gzread(gz, buf + len, (unsigned)(cap - len))) > 0) {
		len += (size_t)n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	gzclose(gz);
	p = perftools__profiles__profile__unpack(NULL, len, buf);
	free(buf);
	assert_non_null(p);
	return p;
}

static const char *str(const Perftools__Profiles__Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

/* the label key's value: its string, or its number printed */
static const char *label(const Perftools__Profiles__Profile *p,
			 const Perftools__Profiles__Sample *s, const char *key, char *num)
{
	for (size_t i = 0; i < s->n_label; i++) {
		if (strcmp(str(p, s->label[i]->key), key))
			continue;
		if (s->label[i]->str)
			return str(p, s->label[i]->str);
		assert_string_equal(str(p, s->label[i]->num_unit), "id");
		sprintf(num, "%lld", (long long)s->label[i]->num);
		return num;
	}
	return "-";
}

static void test_aggregate(void **state)
{
	char path[] = "/tmp/pmt-pprof-XXXXXX";
	int fd = mkstemp(path);
	struct pmt_export *x;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_export_opts o = PMT_OPTS_INIT(pmt_export_opts, .trace_path = "t.data",
						 .compat = PMT_PERF_NEWEST);
	struct pmt_spe_sample s = { 0 };
	Perftools__Profiles__Profile *p;
	char n1[24], n2[24], n3[24];

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(pmt_export_pprof_new(path, &o, &x, &d), 0);
	/* two loads at one ip of tid 0 on cpu 0 (labels of value 0 kept): one Sample of 2 */
	s.event = PMT_SPE_SE_MEMORY;
	s.pid = 0;
	s.tid = 0;
	s.ip = 0xffff800008001234ULL;
	s.weight = 14;
	s.issue_lat = 8;
	s.xlat_lat = 1;
	s.data_src = 0x288100142ULL; /* L1 hit (test_export_sqlite.c decodes it) */
	assert_int_equal(pmt_export_sample(x, &s), 0);
	s.time = 500;
	s.weight = 6;
	s.issue_lat = 2;
	s.xlat_lat = 3;
	assert_int_equal(pmt_export_sample(x, &s), 0);
	/* the same ip on cpu 2: a Sample of its own, at the same location */
	s.cpu = 2;
	assert_int_equal(pmt_export_sample(x, &s), 0);
	/* another event without a data source: no mem_lvl label */
	s.event = PMT_SPE_SE_BRANCH;
	s.data_src = 0;
	s.ip = 0x400000;
	assert_int_equal(pmt_export_sample(x, &s), 0);
	assert_int_equal(pmt_export_finish(x, NULL, 0, &d), 4);
	pmt_export_free(x);

	p = read_profile(path);
	assert_string_equal(p->string_table[0], "");
	assert_int_equal(p->n_sample_type, 4);
	assert_string_equal(str(p, p->sample_type[0]->type), "samples");
	assert_string_equal(str(p, p->sample_type[0]->unit), "count");
	assert_string_equal(str(p, p->sample_type[1]->type), "total_latency");
	assert_string_equal(str(p, p->sample_type[3]->type), "translation_latency");
	assert_string_equal(str(p, p->sample_type[3]->unit), "cycles");
	assert_string_equal(str(p, p->default_sample_type), "samples");
	assert_int_equal(p->duration_nanos, 500);
	assert_int_equal(p->n_comment, 1);
	assert_non_null(strstr(str(p, p->comment[0]), "t.data"));
	assert_int_equal(p->n_sample, 3);
	assert_int_equal(p->n_location, 2);
	assert_int_equal(p->n_mapping, 0); /* no symbols: no mapping known */
	/* sample 1: both loads of cpu 0: values summed */
	assert_int_equal(p->sample[0]->n_value, 4);
	assert_int_equal(p->sample[0]->value[0], 2);
	assert_int_equal(p->sample[0]->value[1], 20);
	assert_int_equal(p->sample[0]->value[2], 10);
	assert_int_equal(p->sample[0]->value[3], 4);
	assert_string_equal(label(p, p->sample[0], "event", n1), "memory");
	assert_string_equal(label(p, p->sample[0], "mem_lvl", n1), "L1 hit");
	assert_string_equal(label(p, p->sample[0], "cpu", n1), "0");
	assert_string_equal(label(p, p->sample[0], "tid", n2), "0");
	assert_string_equal(label(p, p->sample[1], "cpu", n3), "2");
	assert_int_equal(p->sample[1]->value[0], 1);
	assert_int_equal(p->sample[0]->location_id[0], p->sample[1]->location_id[0]);
	assert_int_equal(p->location[p->sample[0]->location_id[0] - 1]->address,
			 0xffff800008001234ULL);
	assert_string_equal(label(p, p->sample[2], "event", n1), "branch");
	assert_string_equal(label(p, p->sample[2], "mem_lvl", n1), "-");
	assert_int_equal(p->location[p->sample[2]->location_id[0] - 1]->address, 0x400000);
	perftools__profiles__profile__free_unpacked(p, NULL);
	unlink(path);
}

static void test_errors(void **state)
{
	struct pmt_export *x = (struct pmt_export *)1;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_export_opts o = { 0 };
	struct pmt_spe_sample s = { 0 };

	(void)state;
	/* sz 0: options the library cannot read; a NULL out */
	assert_int_equal(pmt_export_pprof_new("/tmp/x.pb.gz", &o, &x, &d), -PMT_EINVAL);
	assert_null(x);
	assert_int_equal(pmt_export_postgresql_new("dbname=x", &o, &x, &d), -PMT_EINVAL);
	o.sz = sizeof(o);
	assert_int_equal(pmt_export_pprof_new("/tmp/x.pb.gz", &o, NULL, &d), -PMT_EINVAL);
	/* the file is written by finish: an unwritable path fails there */
	d = (struct pmt_diag)PMT_DIAG_INIT;
	assert_int_equal(pmt_export_pprof_new("/nonexistent-dir/x.pb.gz", &o, &x, &d), 0);
	assert_int_equal(pmt_export_sample(x, &s), 0);
	assert_int_equal(pmt_export_finish(x, NULL, 0, &d), -PMT_EIO);
	assert_non_null(strstr(d.msg, "cannot open the profile"));
	pmt_export_free(x);
	/* no server: the message is libpq's, the connection string is not repeated */
	d = (struct pmt_diag)PMT_DIAG_INIT;
	x = (struct pmt_export *)1;
	assert_int_equal(pmt_export_postgresql_new("host=/nonexistent-dir port=7 password=hush",
						   &o, &x, &d), -PMT_EIO);
	assert_null(x);
	assert_non_null(strstr(d.msg, "PostgreSQL: cannot connect"));
	assert_null(strstr(d.msg, "hush"));
	assert_null(d.file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aggregate),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
