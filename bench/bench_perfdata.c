/* perf.data reader throughput: a synthetic TPEBS-style file (SAMPLE records with
 * IDENTIFIER|IP|TID|TIME|ADDR|CPU|WEIGHT_STRUCT|DATA_SRC plus COMM/MMAP2 sideband), read
 * plain, zstd-compressed (COMPRESSED records as `perf record -z` writes them) and
 * byte-swapped. Prints records/s, MB/s and the peak RSS; when perf is installed, also the
 * time of `perf report --stats` on the same files for reference.
 * usage: bench_perfdata [samples (default 2000000)] [dir (default /tmp)]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>
#include <zstd.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void make_attr(uint8_t *attr)
{
	uint32_t type = 4; /* PERF_TYPE_RAW */
	uint64_t config = 0x1cd, st = (1u << 16) | 1 | 2 | 4 | 8 | 128 | (1u << 24) | (1u << 15);
	uint64_t flags = 1ULL << 18, period = 1000;

	memset(attr, 0, 136);
	memcpy(attr, &type, 4);
	memcpy(attr + 8, &config, 8);
	memcpy(attr + 16, &period, 8);
	memcpy(attr + 24, &st, 8);
	memcpy(attr + 40, &flags, 8);
}

static int write_file(const char *path, uint64_t n, bool swap)
{
	struct pmt_perf_writer_opts o = PMT_OPTS_INIT(pmt_perf_writer_opts, .swap = swap);
	struct pmt_perf_writer *w;
	uint8_t attr[136];
	uint64_t id = 7;
	struct pmt_sample_id sid = { .valid = 1, .id = 7 };
	int rc;

	rc = pmt_perf_writer_open(path, &o, &w);
	if (rc < 0)
		return rc;
	make_attr(attr);
	pmt_perf_writer_add_attr(w, attr, sizeof(attr), &id, 1, "cpu_core/mem-loads/");
	pmt_perf_writer_set_nrcpus(w, 8, 8);
	for (uint64_t i = 0; i < n && rc >= 0; i++) {
		struct pmt_sample s = { .id = 7, .ip = 0x401000 + (i * 64) % 65536,
					.pid = 100 + (uint32_t)(i / 100000),
					.tid = 100 + (uint32_t)(i / 100000), .time = 1000000 + i * 997,
					.addr = 0x7f0000000000ULL + i * 8, .cpu = (uint32_t)(i % 8),
					.weight = (uint64_t)(i % 300) << 48 | (i % 50),
					.data_src = 0x288100142ULL };

		if (i % 100000 == 0) {
			sid.pid = sid.tid = s.pid;
			pmt_perf_writer_write_comm(w, s.pid, s.tid, "bench", true, &sid);
			pmt_perf_writer_write_mmap2(w, s.pid, s.tid, 0x400000, 0x10000, 0, 5, 2,
						    "/usr/bin/bench", &sid);
		}
		rc = pmt_perf_writer_write_sample(w, &s);
	}
	return rc < 0 ? rc : pmt_perf_writer_close(w);
}

/* Re-pack the data section of `in` as COMPRESSED records of 32 KiB input each (level 1,
 * one zstd stream flushed per record, as perf record -z does). */
static int compress_file(const char *in, const char *out)
{
	struct pmt_file_map m;
	struct pmt_perf_writer_opts o = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = 0);
	struct pmt_perf_writer *w;
	uint8_t attr[136], *rec;
	uint64_t id = 7, doff, dsz;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	const size_t cap = 65536;
	int rc;

	if (!cc || pmt_file_map(in, &m, NULL) < 0)
		return -PMT_EIO;
	memcpy(&doff, m.data + 40, 8);
	memcpy(&dsz, m.data + 48, 8);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
	rec = malloc(cap);
	rc = pmt_perf_writer_open(out, &o, &w);
	if (rc < 0 || !rec)
		return rc < 0 ? rc : -PMT_ENOMEM;
	make_attr(attr);
	pmt_perf_writer_add_attr(w, attr, sizeof(attr), &id, 1, "cpu_core/mem-loads/");
	pmt_perf_writer_set_compressed(w, 1, 10, 528384);
	for (uint64_t off = 0; off < dsz && rc >= 0;) {
		/* a COMPRESSED record's size is a u16: feed small slices, flush per record */
		ZSTD_inBuffer zin = { m.data + doff + off, dsz - off < 32768 ? dsz - off : 32768, 0 };
		ZSTD_outBuffer zout = { rec + 8, 65535 - 8 - 16, 0 };
		uint32_t type = 81;
		uint16_t size;
		size_t left;

		do
			left = ZSTD_compressStream2(cc, &zout, &zin, ZSTD_e_flush);
		while (!ZSTD_isError(left) && left && zout.pos < zout.size);
		if (ZSTD_isError(left) || left) {
			rc = -PMT_ECOMPRESS;
			break;
		}
		off += zin.pos;
		size = (uint16_t)(8 + zout.pos);
		memcpy(rec, &type, 4);
		memset(rec + 4, 0, 2);
		memcpy(rec + 6, &size, 2);
		rc = pmt_perf_writer_write_record(w, rec, size);
	}
	pmt_perf_writer_close(w);
	free(rec);
	pmt_file_unmap(&m);
	ZSTD_freeCCtx(cc);
	return rc;
}

static int read_file(const char *label, const char *path, uint64_t expect)
{
	struct pmt_source *s;
	struct pmt_trace_event ev;
	struct pmt_file_map m;
	uint64_t recs = 0, samples = 0, wsum = 0;
	double t0, t1;
	size_t bytes;
	int rc;

	if (pmt_file_map(path, &m, NULL) < 0)
		return -PMT_EIO;
	bytes = m.size;
	pmt_file_unmap(&m);
	t0 = now();
	rc = pmt_source_open(path, &s, NULL);
	if (rc < 0)
		return rc;
	while ((rc = pmt_source_next(s, &ev)) != -PMT_EEOS) {
		if (rc < 0)
			return rc;
		recs++;
		if (ev.type == PMT_REC_SAMPLE) {
			samples++;
			wsum += ev.u.sample.weight >> 48;
		}
	}
	pmt_source_close(s);
	t1 = now();
	printf("%-12s %10.1f MB file  %9llu records  %7.3f s  %7.2f Mrec/s  %8.1f MB/s  (retire-latency sum %llu)\n",
	       label, bytes / 1e6, (unsigned long long)recs, t1 - t0, recs / (t1 - t0) / 1e6,
	       bytes / (t1 - t0) / 1e6, (unsigned long long)wsum);
	if (samples != expect) {
		fprintf(stderr, "%s: %llu samples, expected %llu\n", label,
			(unsigned long long)samples, (unsigned long long)expect);
		return -PMT_EINTERNAL;
	}
	return 0;
}

static void perf_ref(const char *label, const char *path)
{
	char cmd[512];
	double t0, t1;

	snprintf(cmd, sizeof(cmd), "perf report --stats -i %s >/dev/null 2>&1", path);
	t0 = now();
	if (system(cmd) != 0)
		return;
	t1 = now();
	printf("%-12s perf report --stats: %7.3f s\n", label, t1 - t0);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000000;
	const char *dir = argc > 2 ? argv[2] : "/tmp";
	char plain[256], swapped[256], comp[256];
	struct rusage ru;
	int status;
	bool have_perf = system("command -v perf >/dev/null 2>&1") == 0;

	snprintf(plain, sizeof(plain), "%s/bench_perfdata.plain", dir);
	snprintf(swapped, sizeof(swapped), "%s/bench_perfdata.swapped", dir);
	snprintf(comp, sizeof(comp), "%s/bench_perfdata.zst", dir);
	if (write_file(plain, n, false) < 0 || write_file(swapped, n, true) < 0 ||
	    compress_file(plain, comp) < 0) {
		fprintf(stderr, "bench_perfdata: cannot write the files in %s\n", dir);
		return 1;
	}
	fflush(stdout);
	/* read in a child so that its peak RSS is the reader's alone */
	if (fork() == 0) {
		if (read_file("plain", plain, n) < 0 || read_file("swapped", swapped, n) < 0 ||
		    read_file("compressed", comp, n) < 0)
			_exit(1);
		getrusage(RUSAGE_SELF, &ru);
		printf("reader peak RSS %ld KiB for %.1f MB files (mapped pages are dropped behind "
		       "the read position every 8 MiB)\n", ru.ru_maxrss, n * 72 / 1e6);
		fflush(stdout);
		_exit(0);
	}
	if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	if (have_perf) {
		perf_ref("plain", plain);
		perf_ref("compressed", comp);
	}
	if (!getenv("BENCH_KEEP")) {
		remove(plain);
		remove(swapped);
		remove(comp);
	}
	return 0;
}
