/* Writes a perf.data shaped like an Intel PEBS recording (perf record -W -d on the core
 * PMU, PERF_TYPE_RAW): two precise events with PERF_SAMPLE_WEIGHT_STRUCT (var1_dw load
 * latency, var2_w instruction latency, var3_w retire latency), ADDR, DATA_SRC, CPU and
 * PERIOD, and a cpu-clock event beside them; samples interleaved out of time order across
 * two CPUs, as rings read in rounds give them. No PMU here makes such samples, so perf 6.1
 * and 7.3 reading this file are the oracle (tests/diff/pebs_vs_perf.sh).
 * Usage: pebs_like OUT.data [pebs-only] (pebs-only: without the cpu-clock event, for -F
 * lists with fields cpu-clock has not, which perf refuses for such an event) */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pmutrace/perfdata.h"

struct attr {
	uint32_t type, size;
	uint64_t config, sample_period, sample_type, read_format, flags;
	uint8_t rest[136 - 48];
};

#define ST_PEBS (PMT_SAMPLE_IDENTIFIER | PMT_SAMPLE_IP | PMT_SAMPLE_TID | PMT_SAMPLE_TIME | \
		 PMT_SAMPLE_ADDR | PMT_SAMPLE_CPU | PMT_SAMPLE_PERIOD | PMT_SAMPLE_WEIGHT_STRUCT | \
		 PMT_SAMPLE_DATA_SRC)
#define FLAG_SAMPLE_ID_ALL (1ULL << 18)
#define FLAG_PRECISE(n) ((uint64_t)(n) << 15)

int main(int argc, char **argv)
{
	struct pmt_perf_writer *w;
	struct attr a;
	uint64_t ids[3] = { 11, 22, 33 };
	/* L1 hit load, L3 hit load, a store (perf's PERF_MEM_* encodings) */
	static const uint64_t dsrc[3] = { 0x68100142, 0x6a100842, 0x5080021 };
	struct pmt_sample_id sid = { .valid = 1, .pid = 4242, .tid = 4242, .cpu = 0, .time = 900 };
	int rc = 0;

	const bool clock = argc < 3;

	if (argc != 2 && (argc != 3 || strcmp(argv[2], "pebs-only"))) {
		fprintf(stderr, "usage: pebs_like OUT.data [pebs-only]\n");
		return 2;
	}
	if (pmt_perf_writer_open(argv[1], NULL, &w) < 0)
		return 1;
	memset(&a, 0, sizeof(a));
	a.type = PMT_TYPE_RAW;
	a.config = 0x1cd;
	a.sample_period = 1000;
	a.sample_type = ST_PEBS;
	a.flags = FLAG_SAMPLE_ID_ALL | FLAG_PRECISE(2);
	rc |= pmt_perf_writer_add_attr(w, &a, sizeof(a), &ids[0], 1, "cpu/event=0xcd,umask=0x1,ldlat=30/pp");
	a.config = 0x21d0;
	a.sample_period = 100003;
	a.flags = FLAG_SAMPLE_ID_ALL | FLAG_PRECISE(1);
	rc |= pmt_perf_writer_add_attr(w, &a, sizeof(a), &ids[1], 1, "MEM_INST_RETIRED.LOCK_LOADS:p");
	memset(&a, 0, sizeof(a));
	a.type = PMT_TYPE_SOFTWARE;
	a.config = PMT_SW_CPU_CLOCK;
	a.sample_period = 250000;
	a.sample_type = ST_PEBS & ~(PMT_SAMPLE_WEIGHT_STRUCT | PMT_SAMPLE_DATA_SRC | PMT_SAMPLE_ADDR);
	a.flags = FLAG_SAMPLE_ID_ALL;
	if (clock)
		rc |= pmt_perf_writer_add_attr(w, &a, sizeof(a), &ids[2], 1, "cpu-clock");
	sid.id = 11;
	rc |= pmt_perf_writer_write_comm(w, 4242, 4242, "pebs-app", false, &sid);
	for (unsigned i = 0; i < 60 && rc >= 0; i++) {
		struct pmt_sample s = { 0 };
		const bool is_clock = i % 3 == 2;
		unsigned round = i / 10, j = i % 10, k = j < 5 ? 2 * j : 2 * (j - 5) + 1;

		s.pid = s.tid = 4242;
		s.cpu = k & 1;
		/* each round: CPU 0's samples, then CPU 1's, times interleaved */
		s.time = 1000000000ULL + round * 100000 + (k & 1) * 7 + (k / 2) * 13;
		s.ip = 0x401000 + 0x10 * (i % 7);
		s.id = ids[i % 3];
		s.period = i % 3 == 2 ? 250000 : i % 3 ? 100003 : 1000;
		if (i % 3 != 2) {
			s.addr = 0x7ffd0000 + 64 * i;
			s.data_src = dsrc[i % 3];
			s.weight = (uint64_t)(30 + 5 * i) | (uint64_t)(3 + i % 5) << 32 |
				   (uint64_t)(100 + 11 * i) << 48;
		}
		if (clock || !is_clock)
			rc |= pmt_perf_writer_write_sample(w, &s);
		if (j == 9) {
			/* perf record's FINISHED_ROUND after each pass over the rings */
			static const uint8_t fin[8] = { PMT_REC_FINISHED_ROUND, 0, 0, 0, 0, 0, 8, 0 };

			rc |= pmt_perf_writer_write_record(w, fin, sizeof(fin));
		}
	}
	if (rc < 0) {
		fprintf(stderr, "pebs_like: write failed (%d)\n", rc);
		pmt_perf_writer_close(w);
		return 1;
	}
	return pmt_perf_writer_close(w) < 0;
}
