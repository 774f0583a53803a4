/* Container write throughput: synthetic N1 SPE bytes in 1 MiB records through
 * pmt_ctr_write() to /dev/null, per zstd level, thread count and frame size: as AUXTRACE
 * records of a pipe-mode perf.data (what convert and record write: the frame infos walk
 * their SPE packets) and, with "bare", as bare bytes (no records to walk: the difference
 * is the frame infos' cost, and zstd's parameters: bare bytes are no AUX frames, so they
 * take zstd's own level-1 hash table, FORMAT.md). Each run prints wall and CPU time (the machine is
 * shared: CPU time says what the work costs, wall what a recorder gets) and the file's size
 * against one zstd frame of the same pipe-mode stream at the same level (what `zstd -N`
 * of the perf.data makes). With "params", one thread's throughput and size of zstd on 4 MiB
 * frames of the same stream per strategy and window, outside the writer.
 *   bench_container [MiB] [LEVELS=1,3] [THREADS=1,2] [FRAME_MiB=4] [bare|params] [RUNS=1] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "pmutrace/container.h"
#include "pmutrace/spe.h"

#define REC (1u << 20)

static double now(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The pipe-mode stream the writer is given: the pipe header, then AUXTRACE records
 * {type 71, size 48, AUX size, offset, reference, idx, tid, cpu} of 4 CPUs in turn */
static uint8_t *make_stream(const uint8_t *spe, size_t len, size_t *out_len)
{
	size_t n = 16 + len / REC * (48 + REC), at = 16;
	uint8_t *s = calloc(1, n);

	if (!s)
		return NULL;
	memcpy(s, "PERFILE2", 8);
	pmt_put_le64(s + 8, 16);
	for (size_t off = 0; off < len; off += REC, at += 48 + REC) {
		pmt_put_le32(s + at, 71);
		pmt_put_le16(s + at + 6, 48);
		pmt_put_le64(s + at + 8, REC);
		pmt_put_le64(s + at + 16, off);
		pmt_put_le32(s + at + 40, (uint32_t)(off / REC % 4));
		memcpy(s + at + 48, spe + off, REC);
	}
	*out_len = n;
	return s;
}

static int parse_list(const char *s, int *v, int max)
{
	int n = 0;

	while (n < max && *s) {
		char *end;

		v[n++] = (int)strtol(s, &end, 10);
		s = *end == ',' ? end + 1 : end;
		if (end == s && *s)
			break;
	}
	return n;
}

static int write_run(const uint8_t *stream, size_t slen, const uint8_t *spe, size_t len,
		     int level, uint32_t threads, uint32_t frame, int bare)
{
	struct pmt_ctr_writer_opts o = PMT_OPTS_INIT(pmt_ctr_writer_opts, .level = level,
						     .threads = threads, .frame_size = frame);
	FILE *out = tmpfile();
	struct pmt_ctr_writer *w;
	double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID), t, c;
	long size;

	if (!out || pmt_ctr_writer_new(out, &o, &w, NULL) < 0)
		return 1;
	if (bare) {
		for (size_t off = 0; off < len; off += REC)
			pmt_ctr_write(w, spe + off, REC);
	} else {
		pmt_ctr_write(w, stream, 16);
		for (size_t at = 16; at < slen; at += 48 + REC)
			pmt_ctr_write(w, stream + at, 48 + REC);
	}
	if (pmt_ctr_writer_close(w, NULL) < 0)
		return 1;
	t = now(CLOCK_MONOTONIC) - t0;
	c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	size = ftell(out);
	fclose(out);
	printf("level %3d, %u thread%s, %u MiB frames, %s: %5.0f MB/s wall (%.3f s), %5.0f MB/s "
	       "of CPU (%.3f s); %ld bytes\n", level, threads, threads > 1 ? "s" : " ",
	       frame >> 20, bare ? "bare bytes      " : "AUXTRACE records", (double)len / 1e6 / t,
	       t, (double)len / 1e6 / c, c, size);
	return 0;
}

/* zstd alone on FRAME-byte frames of the stream, one thread: per strategy (0: the level's)
 * and window log (0: the level's) */
static void params_run(const uint8_t *stream, size_t slen, int level, uint32_t frame)
{
	static const int strategies[] = { 0, ZSTD_fast, ZSTD_dfast, ZSTD_greedy };
	static const int wlogs[] = { 0, 17, 20, 22 };
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(frame);
	uint8_t *z = malloc(cap);

	for (unsigned si = 0; si < sizeof(strategies) / sizeof(*strategies); si++) {
		for (unsigned wi = 0; wi < sizeof(wlogs) / sizeof(*wlogs); wi++) {
			double c0 = now(CLOCK_PROCESS_CPUTIME_ID), c;
			size_t total = 0;

			ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
			ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
			ZSTD_CCtx_setParameter(cctx, ZSTD_c_strategy, strategies[si]);
			ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, wlogs[wi]);
			ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
			for (size_t at = 0; at < slen; at += frame) {
				size_t n = slen - at < frame ? slen - at : frame;

				total += ZSTD_compress2(cctx, z, cap, stream + at, n);
			}
			c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
			printf("zstd level %3d, strategy %d, windowLog %2d, %u MiB frames: %5.0f MB/s "
			       "of CPU, %zu bytes\n", level, strategies[si], wlogs[wi], frame >> 20,
			       (double)slen / 1e6 / c, total);
		}
	}
	free(z);
	ZSTD_freeCCtx(cctx);
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 64, len = mib << 20, slen;
	int levels[16], threads[8], nl = parse_list(argc > 2 ? argv[2] : "1,3", levels, 16);
	int nt = parse_list(argc > 3 ? argv[3] : "1,2", threads, 8);
	uint32_t frame = (uint32_t)(argc > 4 ? atoi(argv[4]) : 4) << 20;
	const char *mode = argc > 5 ? argv[5] : "";
	int runs = argc > 6 ? atoi(argv[6]) : 1;
	struct pmt_spe_synth_opts so;
	struct pmt_spe_synth s;
	uint8_t *spe = malloc(len), *stream;

	if (!spe || !len || !frame)
		return 1;
	pmt_spe_synth_opts_init(&so);
	so.context = 1;
	pmt_spe_synth_init(&s, &so);
	pmt_spe_synth_fill(&s, spe, len);
	stream = make_stream(spe, len, &slen);
	if (!stream)
		return 1;
	for (int li = 0; li < nl; li++) {
		size_t zcap = ZSTD_compressBound(slen), z;
		uint8_t *zbuf = malloc(zcap);

		/* what `zstd -N` of the pipe-mode stream makes: one frame */
		z = zbuf ? ZSTD_compress(zbuf, zcap, stream, slen, levels[li]) : 0;
		printf("level %3d: one zstd frame of the %zu-byte stream: %zu bytes\n", levels[li],
		       slen, ZSTD_isError(z) ? 0 : z);
		free(zbuf);
		if (!strcmp(mode, "params")) {
			params_run(stream, slen, levels[li], frame);
			continue;
		}
		for (int r = 0; r < runs; r++)
			for (int ti = 0; ti < nt; ti++)
				if (write_run(stream, slen, spe, len, levels[li], (uint32_t)threads[ti],
					      frame, !strcmp(mode, "bare")))
					return 1;
	}
	free(stream);
	free(spe);
	return 0;
}
