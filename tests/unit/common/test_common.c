#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmutrace/common.h"

static void errstr_names_every_code(void **state)
{
	for (int e = 0; e < PMT_ERROR_COUNT; e++) {
		assert_string_not_equal(pmt_errstr(e), "unknown error");
		assert_string_equal(pmt_errstr(e), pmt_errstr(-e));
	}
	assert_string_equal(pmt_errstr(PMT_ERROR_COUNT), "unknown error");
	assert_string_equal(pmt_errstr(-1000), "unknown error");
}

static void cursor_reads_both_byte_orders(void **state)
{
	const uint8_t bytes[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09 };
	struct pmt_cursor c;
	uint64_t v64;
	uint32_t v32;
	uint16_t v16;
	uint8_t v8;

	pmt_cursor_init(&c, bytes, sizeof(bytes), false);
	assert_int_equal(pmt_cursor_u64(&c, &v64), 0);
	assert_true(v64 == 0x0807060504030201ULL);
	assert_int_equal(pmt_cursor_u16(&c, &v16), -PMT_ENEED_MORE);
	assert_int_equal(c.pos, 8); /* a failed read leaves the cursor where it was */
	assert_int_equal(pmt_cursor_u8(&c, &v8), 0);
	assert_int_equal(v8, 9);
	assert_int_equal(pmt_cursor_left(&c), 0);

	pmt_cursor_init(&c, bytes, sizeof(bytes), true);
	assert_int_equal(pmt_cursor_u32(&c, &v32), 0);
	assert_true(v32 == 0x01020304u);
	assert_int_equal(pmt_cursor_u16(&c, &v16), 0);
	assert_true(v16 == 0x0506);
	assert_int_equal(pmt_cursor_skip(&c, 4), -PMT_ENEED_MORE);
	assert_int_equal(pmt_cursor_skip(&c, 3), 0);
}

static void parse_numbers_strictly(void **state)
{
	uint64_t v;
	double d;

	assert_int_equal(pmt_parse_u64("4096", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(pmt_parse_u64("0x410fd0c0", &v), 0);
	assert_true(v == 0x410fd0c0);
	assert_int_equal(pmt_parse_u64("12abc", &v), -PMT_EPARSE);
	assert_int_equal(pmt_parse_u64("-1", &v), -PMT_EPARSE);
	assert_int_equal(pmt_parse_u64("", &v), -PMT_EPARSE);
	assert_int_equal(pmt_parse_u64("99999999999999999999999", &v), -PMT_EPARSE);
	assert_int_equal(pmt_parse_size("64M", &v), 0);
	assert_true(v == 64ULL << 20);
	assert_int_equal(pmt_parse_size("4k", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(pmt_parse_size("1KB", &v), 0);
	assert_true(v == 1024);
	assert_int_equal(pmt_parse_size("3X", &v), -PMT_EPARSE);
	assert_int_equal(pmt_parse_double("2.5e3", &d), 0);
	assert_true(d == 2500.0);
	assert_int_equal(pmt_parse_double("2.5x", &d), -PMT_EPARSE);
}

/* The writer's own formatting is checked against snprintf, an independent formatter. */
static void out_formats_like_printf(void **state)
{
	static const uint64_t values[] = { 0, 1, 9, 10, 0xf, 0x10, 0xffffffffULL,
					   0xffffc08420e068ULL, UINT64_MAX };
	char *mem = NULL;
	size_t memlen = 0;
	FILE *fp = open_memstream(&mem, &memlen);
	struct pmt_out o;
	char expect[4096];
	size_t n = 0;

	assert_non_null(fp);
	/* a tiny buffer forces many flushes mid-number */
	assert_int_equal(pmt_out_init(&o, fp, 16), 0);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		pmt_out_u64(&o, values[i]);
		pmt_out_char(&o, ' ');
		pmt_out_hex(&o, values[i]);
		pmt_out_char(&o, ' ');
		pmt_out_0x(&o, values[i]);
		pmt_out_char(&o, ' ');
		pmt_out_i64(&o, -(int64_t)(values[i] >> 1));
		pmt_out_char(&o, '\n');
		n += (size_t)snprintf(expect + n, sizeof(expect) - n, "%llu %llx 0x%llx %lld\n",
				      (unsigned long long)values[i], (unsigned long long)values[i],
				      (unsigned long long)values[i], -(long long)(values[i] >> 1));
	}
	pmt_out_double(&o, 0.25, 3);
	pmt_out_char(&o, ' ');
	pmt_out_double(&o, NAN, 3);
	n += (size_t)snprintf(expect + n, sizeof(expect) - n, "%.3f nan", 0.25);
	assert_int_equal(pmt_out_fini(&o), 0);
	fclose(fp);
	assert_int_equal(memlen, n);
	assert_memory_equal(mem, expect, n);
	free(mem);
}

static void out_quotes_json_and_csv(void **state)
{
	char *mem = NULL;
	size_t memlen = 0;
	FILE *fp = open_memstream(&mem, &memlen);
	struct pmt_out o;

	assert_int_equal(pmt_out_init(&o, fp, 0), 0);
	pmt_out_json_str(&o, "a\"b\\c\n");
	pmt_out_char(&o, '|');
	pmt_out_csv_str(&o, "plain");
	pmt_out_char(&o, '|');
	pmt_out_csv_str(&o, "x,\"y\"");
	assert_int_equal(pmt_out_fini(&o), 0);
	fclose(fp);
	/* RFC 8259 escapes; RFC 4180 doubles quotes inside a quoted field */
	assert_string_equal(mem, "\"a\\\"b\\\\c\\u000a\"|plain|\"x,\"\"y\"\"\"");
	free(mem);
}

static void buf_grows_and_keeps_content(void **state)
{
	struct pmt_buf b = { 0 };

	for (int i = 0; i < 10000; i++) {
		uint8_t byte = (uint8_t)i;

		assert_int_equal(pmt_buf_append(&b, &byte, 1), 0);
	}
	assert_int_equal(b.len, 10000);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(b.data[i], (uint8_t)i);
	assert_int_equal(pmt_buf_reserve(&b, SIZE_MAX), -PMT_ENOMEM);
	pmt_buf_fini(&b);
	assert_null(b.data);
}

static void file_map_reads_what_was_written(void **state)
{
	char path[] = "/tmp/pmt-test-XXXXXX";
	int fd = mkstemp(path);
	struct pmt_file_map m;
	const char text[] = "PERFILE2 and more";

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text)), (ssize_t)sizeof(text));
	close(fd);
	assert_int_equal(pmt_file_map(path, &m, NULL), 0);
	assert_int_equal(m.size, sizeof(text));
	assert_memory_equal(m.data, text, sizeof(text));
	pmt_file_unmap(&m);
	unlink(path);
	assert_int_equal(pmt_file_map(path, &m, NULL), -PMT_EIO);
}

/* An endless device is read into memory only up to a bound, then refused by name. */
static void file_map_bounds_streams(void **state)
{
	struct pmt_file_map m;
	struct pmt_diag d = PMT_DIAG_INIT;
	char msg[300];

	assert_int_equal(pmt_file_map("/dev/zero", &m, &d), -PMT_ERANGE);
	pmt_diag_format(&d, msg, sizeof(msg));
	assert_non_null(strstr(msg, "/dev/zero: more than 256 MiB from a pipe or device"));
	assert_int_equal(pmt_file_map("/nonexistent", &m, &d), -PMT_EIO);
	pmt_diag_format(&d, msg, sizeof(msg));
	assert_string_equal(msg, "/nonexistent: No such file or directory");
}

/* a struct's padding counts as inside (as with libbpf's OPTS_HAS): 8-byte fields avoid it */
struct opts_v1 {
	size_t sz;
	uint64_t a;
};
struct opts_v2 {
	size_t sz;
	uint64_t a;
	uint64_t b;
};

static void diag_names_file_offset_and_line(void **state)
{
	struct pmt_diag d = PMT_DIAG_INIT;
	char buf[256];

	assert_int_equal(pmt_diag_set(&d, PMT_ECORRUPT, "x.data", 0x1f0, "record size %d", 3),
			 -PMT_ECORRUPT);
	pmt_diag_format(&d, buf, sizeof(buf));
	assert_string_equal(buf, "x.data: offset 0x1f0: record size 3");
	assert_int_equal(pmt_diag_set_line(&d, -PMT_EPARSE, "c.csv", 12, "bad count"), -PMT_EPARSE);
	pmt_diag_format(&d, buf, sizeof(buf));
	assert_string_equal(buf, "c.csv:12: bad count");
	/* no message: the code's name */
	d = (struct pmt_diag)PMT_DIAG_INIT;
	d.code = -PMT_ENOMEM;
	pmt_diag_format(&d, buf, sizeof(buf));
	assert_string_equal(buf, pmt_errstr(PMT_ENOMEM));
	/* a NULL diag still gives the code */
	assert_int_equal(pmt_diag_set(NULL, PMT_EIO, "f", 0, "x"), -PMT_EIO);
}

static void opts_sz_tells_which_fields_exist(void **state)
{
	struct opts_v2 o2 = PMT_OPTS_INIT(opts_v2, .b = 7);
	struct opts_v2 *old = (struct opts_v2 *)&(struct opts_v1){ .sz = sizeof(struct opts_v1) };

	assert_int_equal(o2.sz, sizeof(struct opts_v2));
	assert_int_equal(o2.b, 7);
	assert_true(PMT_OPTS_HAS(&o2, b));
	assert_true(PMT_OPTS_HAS(old, a));
	assert_false(PMT_OPTS_HAS(old, b));
	assert_false(PMT_OPTS_HAS((struct opts_v2 *)NULL, a));
}

/* ---- safe output files ---- */
static char out_dir[64];

static void write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static char *read_text(const char *path)
{
	static char buf[256];
	FILE *fp = fopen(path, "r");
	size_t n;

	if (!fp)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = 0;
	fclose(fp);
	return buf;
}

static int count_entries(const char *dir)
{
	char cmd[128];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static void out_file_refuses_an_input_by_any_name(void **state)
{
	char in[96], sym[96], hard[96], other[96];
	const char *inputs[] = { in };
	struct pmt_out_file f;
	struct pmt_diag d = PMT_DIAG_INIT;
	char msg[512];

	strcpy(out_dir, "/tmp/pmt-out-XXXXXX");
	assert_non_null(mkdtemp(out_dir));
	snprintf(in, sizeof(in), "%s/rec.data", out_dir);
	snprintf(sym, sizeof(sym), "%s/link.data", out_dir);
	snprintf(hard, sizeof(hard), "%s/hard.data", out_dir);
	snprintf(other, sizeof(other), "%s/other.data", out_dir);
	write_text(in, "the recording");
	assert_int_equal(symlink(in, sym), 0);
	assert_int_equal(link(in, hard), 0);
	assert_int_equal(pmt_out_file_open(&f, in, inputs, 1, &d), -PMT_EINVAL);
	pmt_diag_format(&d, msg, sizeof(msg));
	assert_non_null(strstr(msg, "is the same file as the input"));
	assert_int_equal(pmt_out_file_open(&f, sym, inputs, 1, NULL), -PMT_EINVAL);
	assert_int_equal(pmt_out_file_open(&f, hard, inputs, 1, NULL), -PMT_EINVAL);
	assert_string_equal(read_text(in), "the recording");
	/* another file is fine */
	assert_int_equal(pmt_out_file_open(&f, other, inputs, 1, &d), 0);
	fputs("new", f.fp);
	assert_int_equal(pmt_out_file_commit(&f, &d), 0);
	assert_string_equal(read_text(other), "new");
	assert_string_equal(read_text(in), "the recording");
}

static void out_file_replaces_only_on_commit(void **state)
{
	char target[96];
	struct pmt_out_file f;
	struct stat st;

	snprintf(target, sizeof(target), "%s/out.json", out_dir);
	write_text(target, "old");
	chmod(target, 0640);
	assert_int_equal(pmt_out_file_open(&f, target, NULL, 0, NULL), 0);
	fputs("half", f.fp);
	fflush(f.fp);
	/* while writing, the target is the old file and the new bytes are elsewhere */
	assert_string_equal(read_text(target), "old");
	assert_non_null(f.tmp);
	assert_non_null(strstr(f.tmp, "/.out.json."));
	pmt_out_file_abort(&f);
	assert_string_equal(read_text(target), "old");
	assert_int_equal(count_entries(out_dir), 5); /* rec hard link other out.json: no tmp */
	assert_int_equal(pmt_out_file_open(&f, target, NULL, 0, NULL), 0);
	fputs("complete", f.fp);
	assert_int_equal(pmt_out_file_commit(&f, NULL), 0);
	assert_string_equal(read_text(target), "complete");
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640); /* the replaced file's mode is kept */
	assert_int_equal(count_entries(out_dir), 5);
}

static void out_file_removes_its_tmp_when_killed(void **state)
{
	char target[96];
	pid_t pid;
	int status;

	snprintf(target, sizeof(target), "%s/killed.data", out_dir);
	write_text(target, "previous");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pmt_out_file f;

		if (pmt_out_file_open(&f, target, NULL, 0, NULL) < 0)
			_exit(3);
		fputs("partial", f.fp);
		fflush(f.fp);
		raise(SIGTERM);
		_exit(4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
	assert_string_equal(read_text(target), "previous");
	assert_int_equal(count_entries(out_dir), 6); /* + killed.data, no tmp left */
}

static void out_file_dash_is_stdout(void **state)
{
	struct pmt_out_file f;

	assert_int_equal(pmt_out_file_open(&f, "-", NULL, 0, NULL), 0);
	assert_ptr_equal(f.fp, stdout);
	assert_null(f.tmp);
	assert_int_equal(pmt_out_file_commit(&f, NULL), 0);
	{
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", out_dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* The distances are the textbook Levenshtein values (kitten/sitting 3), case folded */
static void near_names_closest_first(void **state)
{
	struct pmt_near nr;
	char out[64], longname[200];

	(void)state;
	assert_int_equal(pmt_name_distance("kitten", "sitting"), 3);
	assert_int_equal(pmt_name_distance("", "abc"), 3);
	assert_int_equal(pmt_name_distance("Script", "sCRIPT"), 0);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	assert_int_equal(pmt_name_distance(longname, "a"), PMT_NAME_FAR);

	pmt_near_init(&nr, "repot", 2, false);
	pmt_near_consider(&nr, "report");
	pmt_near_consider(&nr, "record");
	pmt_near_consider(&nr, "repo");
	pmt_near_consider(&nr, "REPORT"); /* the same name again, in other case */
	pmt_near_consider(&nr, "stat");
	pmt_near_consider(&nr, "rep");
	assert_int_equal(pmt_near_list(&nr, out, sizeof(out)), strlen("report, repo, rep"));
	assert_string_equal(out, "report, repo, rep");

	/* "lock" finds the names holding it first, then ones a few edits away */
	pmt_near_init(&nr, "lock", 1, true);
	pmt_near_consider(&nr, "lack");
	pmt_near_consider(&nr, "tma_lock_latency");
	pmt_near_consider(&nr, "unrelated");
	pmt_near_list(&nr, out, sizeof(out));
	assert_string_equal(out, "tma_lock_latency, lack");

	/* a name that changes more than it keeps is not offered; a short buffer is cut */
	pmt_near_init(&nr, "ab", 5, false);
	pmt_near_consider(&nr, "xy");
	assert_int_equal(pmt_near_list(&nr, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	pmt_near_init(&nr, "script", 2, false);
	pmt_near_consider(&nr, "script");
	assert_int_equal(pmt_near_list(&nr, out, 4), strlen("script"));
	assert_string_equal(out, "scr");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(errstr_names_every_code),
		cmocka_unit_test(near_names_closest_first),
		cmocka_unit_test(cursor_reads_both_byte_orders),
		cmocka_unit_test(parse_numbers_strictly),
		cmocka_unit_test(out_formats_like_printf),
		cmocka_unit_test(out_quotes_json_and_csv),
		cmocka_unit_test(buf_grows_and_keeps_content),
		cmocka_unit_test(file_map_reads_what_was_written),
		cmocka_unit_test(file_map_bounds_streams),
		cmocka_unit_test(diag_names_file_offset_and_line),
		cmocka_unit_test(opts_sz_tells_which_fields_exist),
		cmocka_unit_test(out_file_refuses_an_input_by_any_name),
		cmocka_unit_test(out_file_replaces_only_on_commit),
		cmocka_unit_test(out_file_removes_its_tmp_when_killed),
		cmocka_unit_test(out_file_dash_is_stdout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
