/* Writes a perf.data holding SPE AUX data and a cpu-clock event's samples at times between
 * the SPE records' (arm_spe_0// timed, TIME_CONV identity, AUXTRACE_INFO v1), laid out as
 * perf record writes rounds: each round's samples, then its AUX chunk, then FINISHED_ROUND.
 * perf 6.1 and 7.3 reading it are the oracle for merging a trace's own samples with SPE's
 * in time order (tests/diff/spe_mix_vs_perf.sh). Usage: spe_mix OUT.data */
#include <stdio.h>
#include <string.h>

#include "pmutrace/perfdata.h"
#include "pmutrace/spe.h"

#define ROUNDS 4
#define RECORDS_PER_ROUND 40
#define PID 1234

int main(int argc, char **argv)
{
	static const uint8_t fin[8] = { PMT_REC_FINISHED_ROUND, 0, 0, 0, 0, 0, 8, 0 };
	struct pmt_time_conv ident = { .time_mult = 1, .cap_user_time_zero = 1 };
	struct pmt_sample_id sid = { .valid = 1, .pid = PID, .tid = PID, .id = 1 };
	struct pmt_spe_synth_opts so;
	struct pmt_spe_synth syn;
	struct pmt_perf_writer *w;
	uint8_t attr[136] = { 0 }, buf[RECORDS_PER_ROUND * PMT_SPE_SYNTH_RECORD_MAX];
	uint64_t ts[RECORDS_PER_ROUND], aux_off = 0, spe_id = 1, clock_id = 2;
	struct {
		uint32_t type, size;
		uint64_t config, sample_period, sample_type, read_format, flags;
		uint8_t rest[136 - 48];
	} clk;
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: spe_mix OUT.data\n");
		return 2;
	}
	pmt_spe_synth_opts_init(&so);
	so.seed = 5;
	if (pmt_spe_synth_init(&syn, &so) < 0 || pmt_perf_writer_open(argv[1], NULL, &w) < 0)
		return 1;
	pmt_attr_init_spe(attr, 8, true);
	rc |= pmt_perf_writer_add_attr(w, attr, sizeof(attr), &spe_id, 1, "arm_spe_0//");
	memset(&clk, 0, sizeof(clk));
	clk.type = PMT_TYPE_SOFTWARE;
	clk.config = PMT_SW_CPU_CLOCK;
	clk.sample_period = 100000;
	clk.sample_type = PMT_SAMPLE_IDENTIFIER | PMT_SAMPLE_IP | PMT_SAMPLE_TID | PMT_SAMPLE_TIME |
			  PMT_SAMPLE_CPU | PMT_SAMPLE_PERIOD;
	clk.flags = 1ULL << 18; /* sample_id_all */
	rc |= pmt_perf_writer_add_attr(w, &clk, sizeof(clk), &clock_id, 1, "cpu-clock");
	rc |= pmt_perf_writer_set_feature_str(w, PMT_FEAT_CPUID, "0x00000000410fd0c0");
	rc |= pmt_perf_writer_set_nrcpus(w, 1, 1);
	/* before AUXTRACE_INFO, as perf record writes it (perf copies it from there) */
	rc |= pmt_perf_writer_write_time_conv(w, &ident);
	rc |= pmt_perf_writer_write_auxtrace_info_spe_v1(w, 8, false);
	rc |= pmt_perf_writer_write_comm(w, PID, PID, "spe-app", false, &sid);
	for (unsigned r = 0; r < ROUNDS && rc >= 0; r++) {
		size_t len = 0;

		for (unsigned i = 0; i < RECORDS_PER_ROUND; i++) {
			int n = pmt_spe_synth_next_record(&syn, buf + len, sizeof(buf) - len);

			if (n < 0)
				return 1;
			len += (size_t)n;
			ts[i] = syn.ts;
		}
		/* a cpu-clock sample halfway between every fifth pair of SPE records */
		for (unsigned i = 0; i + 1 < RECORDS_PER_ROUND; i += 5) {
			struct pmt_sample s = { 0 };

			s.id = clock_id;
			s.pid = s.tid = PID;
			s.time = ts[i] + (ts[i + 1] - ts[i]) / 2;
			s.ip = 0xaaaae4a00000 + 0x40 * i + r;
			s.period = 100000;
			rc |= pmt_perf_writer_write_sample(w, &s);
		}
		rc |= pmt_perf_writer_write_auxtrace(w, buf, len, aux_off, 0, 0, PID, 0);
		aux_off += len;
		rc |= pmt_perf_writer_write_record(w, fin, sizeof(fin));
	}
	if (rc < 0) {
		fprintf(stderr, "spe_mix: write failed\n");
		pmt_perf_writer_close(w);
		return 1;
	}
	return pmt_perf_writer_close(w) < 0;
}
