/* Writes the recording of bench/stat_metrics.sh: a container with perf stat record's records
 * for every count event of a metric table, INTERVALS rounds of NCPUS CPUs (-a -A -I 1000),
 * counts drawn from a fixed seed. Not a test and not timed itself: the script times
 * `pmutrace metrics` on the file.
 *   bench_stat_trace METRICS.json OUT.pmt [INTERVALS] [NCPUS] [MIX] [ODD]
 * ODD 1 (tests/cli/counts_columns.sh): rounds as perf does not write them but a reader must
 * take: every 7th round event 1's CPUs in reverse order, every 5th event 2's CPU 0 twice
 * (a smaller count first), every 11th event 4's CPU 1 left out, and every event 4k + 3
 * multiplexed (running 3/4 of enabled: its counts scaled). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/container.h"
#include "pmutrace/metrics.h"
#include "pmutrace/perfdata.h"

static void hdr(uint8_t *b, uint32_t type, uint16_t size)
{
	memset(b, 0, size);
	memcpy(b, &type, 4);
	memcpy(b + 6, &size, 2);
}

int main(int argc, char **argv)
{
	struct pmt_metric_set ms = { 0 };
	struct pmt_metric_plan *plan;
	struct pmt_expr_ctx ctx;
	struct pmt_ctr_writer_opts co = { .sz = sizeof(co), .level = 1, .threads = 0 };
	struct pmt_perf_writer_opts wo = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = 1);
	struct pmt_ctr_writer *ctr;
	struct pmt_perf_writer *w;
	struct pmt_diag d = PMT_DIAG_INIT;
	char **names;
	uint32_t intervals = argc > 3 ? (uint32_t)atoi(argv[3]) : 3600;
	uint32_t ncpus = argc > 4 ? (uint32_t)atoi(argv[4]) : 64, nev = 0;
	/* MIX: that many 16-byte SAMPLE records after each event's STAT records and a
	 * FINISHED_ROUND before each STAT_ROUND, as a recording with samples and counts has
	 * them (counts frames of version 2, FORMAT.md) */
	uint32_t mix = argc > 5 ? (uint32_t)atoi(argv[5]) : 0;
	bool odd = argc > 6 && atoi(argv[6]) == 1;
	uint64_t *cum, seed = 42;
	FILE *fp, *stream;
	uint8_t rec[256];

	if (argc < 3) {
		fprintf(stderr, "usage: bench_stat_trace METRICS.json OUT.pmt [INTERVALS] [NCPUS] "
			"[MIX]\n");
		return 2;
	}
	pmt_expr_ctx_default(&ctx);
	if (pmt_metric_set_load(&ms, argv[1], &d) < 0 ||
	    pmt_metric_plan_new(&ms, NULL, 0, &ctx, &plan, &d) < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], d.msg);
		return 1;
	}
	names = calloc(pmt_metric_plan_nr_inputs(plan) + 1, sizeof(*names));
	for (size_t i = 0; i < pmt_metric_plan_nr_inputs(plan); i++) {
		struct pmt_metric_input *in = pmt_metric_plan_input(plan, i);
		bool dup = false;

		if (in->kind != PMT_MIN_COUNT)
			continue;
		for (uint32_t k = 0; k < nev; k++)
			dup |= !strcmp(names[k], in->id);
		if (!dup)
			names[nev++] = in->id;
	}
	fp = fopen(argv[2], "wb");
	if (!fp || pmt_ctr_writer_new(fp, &co, &ctr, &d) < 0)
		return 1;
	stream = pmt_perf_container_stream(ctr);
	if (!stream || pmt_perf_writer_new(stream, &wo, &w) < 0)
		return 1;
	for (uint32_t e = 0; e < nev; e++) {
		uint64_t *ids = malloc(ncpus * sizeof(*ids));
		struct pmt_perf_attr a = { .type = 4, .config = e,
					   .read_format = PMT_READ_TOTAL_ENABLED |
							  PMT_READ_TOTAL_RUNNING };

		for (uint32_t c = 0; c < ncpus; c++)
			ids[c] = 1 + (uint64_t)e * ncpus + c;
		pmt_perf_writer_add_attr(w, &a, PMT_ATTR_SIZE_MAX, ids, ncpus, names[e]);
		free(ids);
	}
	for (uint32_t e = 0; e < nev; e++) { /* EVENT_UPDATE NAME */
		size_t len = strlen(names[e]), size = 40 + ((len + 8) & ~(size_t)7);
		uint64_t t = 2, id = 1 + (uint64_t)e * ncpus;

		hdr(rec, 78, (uint16_t)size);
		memcpy(rec + 8, &t, 8);
		memcpy(rec + 16, &id, 8);
		memcpy(rec + 24, names[e], len);
		pmt_perf_writer_write_record(w, rec, size);
	}
	{ /* THREAD_MAP {-1}, CPU_MAP 0..ncpus-1, STAT_CONFIG: per CPU, interval 1000 ms */
		uint64_t one = 1, any = (uint64_t)-1, cfg[7] = { 3, 0, 0, 1, 1000, 2, 1 };
		uint16_t n16 = (uint16_t)ncpus, sz = (uint16_t)((8 + 4 + 2 * ncpus + 7) & ~7u);

		hdr(rec, 73, 40);
		memcpy(rec + 8, &one, 8);
		memcpy(rec + 16, &any, 8);
		pmt_perf_writer_write_record(w, rec, 40);
		hdr(rec, 74, sz);
		memcpy(rec + 10, &n16, 2);
		for (uint16_t c = 0; c < ncpus; c++)
			memcpy(rec + 12 + 2 * c, &c, 2);
		pmt_perf_writer_write_record(w, rec, sz);
		hdr(rec, 75, 64);
		memcpy(rec + 8, cfg, sizeof(cfg));
		pmt_perf_writer_write_record(w, rec, 64);
	}
	cum = calloc((size_t)nev * ncpus, sizeof(*cum));
	for (uint32_t r = 1; r <= intervals; r++) {
		uint64_t t = (uint64_t)r * 1000000000ull;

		for (uint32_t e = 0; e < nev; e++) {
			for (uint32_t i = 0; i < ncpus; i++) {
				uint32_t c = odd && e == 1 && r % 7 == 0 ? ncpus - 1 - i : i;
				uint64_t id = 1 + (uint64_t)e * ncpus + c, run = t, v[3];

				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				cum[(size_t)e * ncpus + c] += (seed >> 40) + 1;
				v[0] = cum[(size_t)e * ncpus + c];
				v[1] = t;
				v[2] = odd && e % 4 == 3 ? t / 4 * 3 : run;
				if (odd && e == 4 && c == 1 && r % 11 == 0)
					continue;
				hdr(rec, 76, 48);
				memcpy(rec + 8, &id, 8);
				memcpy(rec + 16, &c, 4);
				if (odd && e == 2 && c == 0 && r % 5 == 0) {
					uint64_t early[3] = { v[0] - 7, v[1] - 5, v[2] - 5 };

					memcpy(rec + 24, early, sizeof(early));
					pmt_perf_writer_write_record(w, rec, 48);
				}
				memcpy(rec + 24, v, sizeof(v));
				pmt_perf_writer_write_record(w, rec, 48);
			}
			for (uint32_t m = 0; m < mix; m++) {
				hdr(rec, 9, 16);
				memcpy(rec + 8, &t, 8);
				pmt_perf_writer_write_record(w, rec, 16);
			}
			if (mix && r == intervals && e == 0) {
				/* the reader warns of these with their stream offsets: an id no
				 * attr has, a CPU index outside the map */
				uint64_t bad_id = 999999999, id0 = 1;
				uint32_t bad_cpu = ncpus + 5;

				hdr(rec, 76, 48);
				memcpy(rec + 8, &bad_id, 8);
				pmt_perf_writer_write_record(w, rec, 48);
				hdr(rec, 76, 48);
				memcpy(rec + 8, &id0, 8);
				memcpy(rec + 16, &bad_cpu, 4);
				pmt_perf_writer_write_record(w, rec, 48);
			}
		}
		if (mix) {
			hdr(rec, 68, 8);
			pmt_perf_writer_write_record(w, rec, 8);
		}
		hdr(rec, 77, 24);
		memcpy(rec + 16, &t, 8);
		pmt_perf_writer_write_record(w, rec, 24);
	}
	pmt_perf_writer_close(w);
	fclose(stream);
	pmt_ctr_writer_close(ctr, &d);
	fclose(fp);
	fprintf(stderr, "%u events x %u CPUs x %u intervals = %llu STAT records\n", nev, ncpus,
		intervals, (unsigned long long)nev * ncpus * intervals);
	free(cum);
	free(names);
	pmt_metric_plan_free(plan);
	pmt_metric_set_fini(&ms);
	return 0;
}
