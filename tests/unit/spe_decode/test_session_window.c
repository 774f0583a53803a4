/* The SPE session decodes within a bounded window of queued AUX data (sized from the
 * chunks: 12 MiB here, merged down to 6 MiB) and reads pipes as a stream. With more AUX
 * data than the window, spread over CPUs in interleaved chunks: every record is decoded
 * once, samples come out in time order across CPUs (what perf's per-timestamp queue
 * processing gives), and a mapped file, the same trace in pipe mode, and both read through
 * a FIFO give the very same sample sequence. A CPU that goes
 * quiet for most of the trace must not hold the others back (same sequence everywhere,
 * every record decoded). With decode threads (-j), the records decoded on workers give the
 * very same sequence, windowed merges and the quiet CPU included, and so do the samples
 * made on a thread of their own (with 0, 1 and 3 record workers). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmutrace/spe.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/spe_decode.h"
#include "spe_test_util.h"

#define NCPU 3
#define CHUNK (1u << 20)
#define PER_CPU (16u << 20) /* 3 x 16 MiB > the window */

struct digest {
	uint64_t n, hash, per_cpu[NCPU], back_in_time, cpu_changes;
	uint64_t last_time;
	uint32_t last_cpu;
};

static int collect(const struct pmt_spe_sample *s, void *ctx)
{
	struct digest *d = ctx;
	uint64_t v[4] = { s->cpu, s->time, s->ip, s->event };

	for (int i = 0; i < 4; i++) /* FNV-1a over the fields */
		for (int b = 0; b < 64; b += 8)
			d->hash = (d->hash ^ ((v[i] >> b) & 0xff)) * 0x100000001b3ULL;
	if (d->n && s->time < d->last_time)
		d->back_in_time++;
	if (d->n && s->cpu != d->last_cpu)
		d->cpu_changes++;
	d->last_time = s->time;
	d->last_cpu = s->cpu;
	if (s->cpu < NCPU)
		d->per_cpu[s->cpu]++;
	d->n++;
	return 0;
}

/* quiet: CPU 2 writes one chunk first and all the rest at the very end */
static void write_trace(const char *path, int pipe_mode, int quiet, uint8_t *buf[NCPU])
{
	struct pmt_perf_writer_opts wo = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = (uint8_t)pipe_mode);
	struct pmt_perf_writer *w;
	uint8_t attr[136];
	uint64_t id = 1;

	test_spe_attr(attr);
	assert_int_equal(pmt_perf_writer_open(path, &wo, &w), 0);
	assert_int_equal(pmt_perf_writer_add_attr(w, attr, sizeof(attr), &id, 1, NULL), 0);
	assert_int_equal(pmt_perf_writer_set_nrcpus(w, NCPU, NCPU), 0);
	assert_int_equal(pmt_perf_writer_write_auxtrace_info_spe_v1(w, 8, true), 0);
	for (uint32_t off = 0; off < PER_CPU; off += CHUNK)
		for (uint32_t cpu = 0; cpu < NCPU; cpu++) {
			if (quiet && cpu == 2 && off)
				continue;
			assert_int_equal(pmt_perf_writer_write_auxtrace(w, buf[cpu] + off, CHUNK, off,
									0, cpu, 1234, cpu), 0);
		}
	for (uint32_t off = CHUNK; quiet && off < PER_CPU; off += CHUNK)
		assert_int_equal(pmt_perf_writer_write_auxtrace(w, buf[2] + off, CHUNK, off, 0, 2,
								1234, 2), 0);
	assert_int_equal(pmt_perf_writer_close(w), 0);
}

/* sample_thread: the samples made on a thread of the decoder's too */
static void run_threads(const char *path, uint32_t threads, int sample_thread,
			struct digest *d)
{
	struct pmt_source *src;
	struct pmt_spe_run_opts o;
	struct pmt_spe_rec_stats st;

	memset(d, 0, sizeof(*d));
	d->hash = 0xcbf29ce484222325ULL;
	o = PMT_OPTS_INIT(pmt_spe_run_opts);
	assert_int_equal(pmt_itrace_parse("i1i", &o.itrace, NULL), 0);
	o.compat = PMT_PERF_6_1;
	o.decode_threads = threads;
	o.sample_thread = (uint8_t)sample_thread;
	assert_int_equal(pmt_source_open(path, &src, NULL), 0);
	assert_int_equal(pmt_spe_run_source(src, &o, collect, d, &st, NULL), 0);
	pmt_source_close(src);
	assert_int_equal(st.records, NCPU * (PER_CPU / 64));
	assert_int_equal(st.bytes_skipped, 0);
}

static int fail_at(const struct pmt_spe_sample *s, void *ctx)
{
	unsigned *calls = ctx;

	(void)s;
	return ++*calls == 5000 ? -PMT_EIO : 0;
}

/* A callback's error stops the run with that error, and no sample is handed on after it,
 * whichever thread makes the samples: the 5000th call fails, none follows. */
static void check_stop(const char *path, uint32_t threads, int sample_thread)
{
	struct pmt_source *src;
	struct pmt_spe_run_opts o = PMT_OPTS_INIT(pmt_spe_run_opts, .compat = PMT_PERF_6_1,
						  .decode_threads = threads,
						  .sample_thread = (uint8_t)sample_thread);
	unsigned calls = 0;

	assert_int_equal(pmt_itrace_parse("i1i", &o.itrace, NULL), 0);
	assert_int_equal(pmt_source_open(path, &src, NULL), 0);
	assert_int_equal(pmt_spe_run_source(src, &o, fail_at, &calls, NULL, NULL), -PMT_EIO);
	pmt_source_close(src);
	assert_int_equal(calls, 5000);
}

static void run(const char *path, struct digest *d)
{
	run_threads(path, 0, 0, d);
}

/* The same file through a FIFO: the source must stream it (or spool a file-mode one). */
static void run_fifo(const char *file, const char *fifo, struct digest *d)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *in = fopen(file, "rb"), *out = fopen(fifo, "wb");
		static char b[1 << 16];
		size_t n;

		if (!in || !out)
			_exit(1);
		while ((n = fread(b, 1, sizeof(b), in)) > 0)
			if (fwrite(b, 1, n, out) != n)
				_exit(1);
		_exit(fclose(out) ? 1 : 0);
	}
	run(fifo, d);
	{
		int status;

		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
}

static void check(int quiet)
{
	char dir[] = "/tmp/pmt_window_XXXXXX";
	char file[64], pipef[64], fifo[64];
	struct pmt_spe_synth_opts so;
	struct pmt_spe_synth sy;
	uint8_t *buf[NCPU];
	struct digest ref, d;

	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/f.data", dir);
	snprintf(pipef, sizeof(pipef), "%s/p.data", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	for (int cpu = 0; cpu < NCPU; cpu++) {
		buf[cpu] = malloc(PER_CPU);
		assert_non_null(buf[cpu]);
		pmt_spe_synth_opts_init(&so);
		so.seed = (uint64_t)(1 + 2 * cpu); /* overlapping time ranges */
		so.context = 1;
		assert_int_equal(pmt_spe_synth_init(&sy, &so), 0);
		assert_int_equal(pmt_spe_synth_fill(&sy, buf[cpu], PER_CPU), PER_CPU);
	}
	write_trace(file, 0, quiet, buf);
	write_trace(pipef, 1, quiet, buf);
	for (int cpu = 0; cpu < NCPU; cpu++)
		free(buf[cpu]);
	assert_int_equal(mkfifo(fifo, 0600), 0);

	run(file, &ref);
	for (int cpu = 0; cpu < NCPU; cpu++)
		assert_int_equal(ref.per_cpu[cpu], PER_CPU / 64);
	if (!quiet) {
		/* time order across CPUs, and a real merge (CPUs alternate) */
		assert_int_equal(ref.back_in_time, 0);
		assert_true(ref.cpu_changes > 100000);
	}
	run(pipef, &d);
	assert_int_equal(d.n, ref.n);
	assert_true(d.hash == ref.hash);
	run_fifo(pipef, fifo, &d);
	assert_true(d.hash == ref.hash);
	run_fifo(file, fifo, &d);
	assert_true(d.hash == ref.hash);
	for (uint32_t threads = 0; threads <= 3; threads += 1 + (threads > 0)) {
		for (int st = !threads; st < 2; st++) {
			run_threads(file, threads, st, &d);
			assert_int_equal(d.n, ref.n);
			assert_true(d.hash == ref.hash);
			run_threads(pipef, threads, st, &d);
			assert_true(d.hash == ref.hash);
		}
	}

	for (uint32_t threads = 0; threads < 2; threads++)
		for (int st = 0; st < 2; st++)
			check_stop(file, threads, st);

	unlink(fifo);
	unlink(file);
	unlink(pipef);
	rmdir(dir);
}

static int count_sample(const struct pmt_spe_sample *s, void *ctx)
{
	(*(int *)ctx)++;
	return 0;
}

/* The run options carry their size: a caller's struct without it (memset to zero, as
 * before sz existed) or too small for the fields this build reads is refused, not read. */
static void test_opts_size(void **state)
{
	static const uint8_t end[] = { 0x01 }; /* one END packet: one empty record */
	struct pmt_spe_run_opts o = PMT_OPTS_INIT(pmt_spe_run_opts);
	int n = 0;

	assert_int_equal(pmt_itrace_parse("", &o.itrace, NULL), 0);
	assert_true(pmt_spe_run_raw(end, sizeof(end), &o, count_sample, &n, NULL, NULL) >= 0);
	o.sz = 0;
	assert_int_equal(pmt_spe_run_raw(end, sizeof(end), &o, count_sample, &n, NULL, NULL),
			 -PMT_EINVAL);
	o.sz = offsetof(struct pmt_spe_run_opts, event_ctx);
	assert_int_equal(pmt_spe_run_raw(end, sizeof(end), &o, count_sample, &n, NULL, NULL),
			 -PMT_EINVAL);
}

static void test_balanced(void **state)
{
	(void)state;
	check(0);
}

static void test_quiet_cpu(void **state)
{
	(void)state;
	check(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts_size),
		cmocka_unit_test(test_balanced),
		cmocka_unit_test(test_quiet_cpu),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
