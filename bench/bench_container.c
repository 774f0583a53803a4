/* Container write throughput: 64 MiB of synthetic N1 SPE bytes in 1 MiB records through
 * pmt_ctr_write() to /dev/null, per zstd level and thread count: as AUXTRACE records of a
 * pipe-mode perf.data (what convert and record write: the writer walks their SPE packets
 * for the frame infos) and as bare bytes (no records to walk), so the difference is the
 * frame infos' cost.
 *   bench_container [MiB] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmutrace/container.h"
#include "pmutrace/spe.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 64, len = mib << 20, rec = 1 << 20;
	struct pmt_spe_synth_opts so;
	struct pmt_spe_synth s;
	uint8_t *buf = malloc(len), *aux = malloc(48 + (1 << 20));
	FILE *null = fopen("/dev/null", "w");

	if (!buf || !aux || !null)
		return 1;
	pmt_spe_synth_opts_init(&so);
	so.context = 1;
	pmt_spe_synth_init(&s, &so);
	pmt_spe_synth_fill(&s, buf, len);
	for (int level = 1; level <= 3; level += 2) {
		for (uint32_t threads = 1; threads <= 2; threads++) {
		for (int records = 1; records >= 0; records--) {
			struct pmt_ctr_writer_opts o = { .sz = sizeof(o), .level = level,
							 .threads = threads };
			struct pmt_ctr_writer *w;
			long before = ftell(null);
			double t0 = now(), t;

			if (pmt_ctr_writer_new(null, &o, &w, NULL) < 0)
				return 1;
			if (records) {
				/* the pipe header: "PERFILE2", u64 16 */
				uint8_t hdr[16] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 16 };

				pmt_ctr_write(w, hdr, sizeof(hdr));
			}
			for (size_t off = 0; off < len; off += rec) {
				if (records) {
					/* AUXTRACE {type 71, size 48}, AUX size, offset, reference,
					 * idx, tid, cpu: 4 CPUs in turn */
					uint8_t *r = aux;

					memset(r, 0, 48);
					pmt_put_le32(r, 71);
					pmt_put_le16(r + 6, 48);
					pmt_put_le64(r + 8, rec);
					pmt_put_le64(r + 16, off);
					pmt_put_le32(r + 40, (uint32_t)(off / rec % 4));
					memcpy(r + 48, buf + off, rec);
					pmt_ctr_write(w, r, 48 + rec);
				} else {
					pmt_ctr_write(w, buf + off, rec);
				}
			}
			pmt_ctr_writer_close(w, NULL);
			t = now() - t0;
			printf("level %d, %u thread%s, %s: %6.0f MB/s (%zu MiB in %.3f s)\n", level,
			       threads, threads > 1 ? "s" : " ",
			       records ? "AUXTRACE records" : "bare bytes      ",
			       (double)len / 1e6 / t, mib, t);
			(void)before;
		}
		}
	}
	free(aux);
	fclose(null);
	free(buf);
	return 0;
}
