/* Writes a pipe-mode perf.data of a per-CPU SPE recording (perf record -a -e arm_spe//):
 * ROUNDS rounds, each one AUX chunk per CPU then FINISHED_ROUND, timestamps growing across
 * rounds, a TIME_CONV that is no identity. With "cut", the chunks of CPU 1 end inside an SPE
 * record (the next chunk begins with its tail), so a record spans two AUXTRACE records and
 * often two container frames. The input of tests/cli/container_slice.sh. With "switch",
 * the SPE records carry no CONTEXT packet and each chunk is followed by a context switch
 * (SWITCH_CPU_WIDE, switch-in) of its CPU in the middle of its time range, naming one of
 * three threads: the samples' pid/tid come from the switches. "own" adds a cpu-clock event
 * with a SAMPLE of its own per chunk, at the same time, which perf merges with SPE's.
 * RECORDS sets the records per CPU and round (1000; up to RECORDS_MAX, for AUX chunks of
 * several MiB as perf record -m ,16M writes them).
 * Usage: spe_cpus OUT.data [cut|whole|switch|own [ROUNDS [RECORDS]]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/perfdata.h"
#include "pmutrace/spe.h"

#define NCPUS 4
#define ROUNDS 48 /* default; the third argument sets it (the benchmark's larger trace) */
#define RECORDS 1000 /* per CPU and round, the default */
#define RECORDS_MAX 200000
#define PID 4321

/* SWITCH_CPU_WIDE: thread 100 + (cpu + round) % 3 switched in on cpu at time (a switch-in
 * names its thread in the record's sample_id, pid and tid) */
static int write_switch(struct pmt_perf_writer *w, unsigned cpu, unsigned round,
			uint64_t time, uint64_t id)
{
	uint32_t tid = 100 + (cpu + round) % 3;
	uint64_t rec[6];
	uint32_t hdr[2] = { PMT_REC_SWITCH_CPU_WIDE, sizeof(rec) << 16 };

	/* header, next_prev pid/tid (the thread switched out: PID), then the sample_id of
	 * SPE's attr: pid/tid, time, cpu/res, identifier */
	memcpy(&rec[0], hdr, 8);
	rec[1] = (uint64_t)PID << 32 | PID;
	rec[2] = (uint64_t)tid << 32 | tid;
	rec[3] = time;
	rec[4] = cpu;
	rec[5] = id;
	return pmt_perf_writer_write_record(w, rec, sizeof(rec));
}

int main(int argc, char **argv)
{
	static const uint8_t fin[8] = { PMT_REC_FINISHED_ROUND, 0, 0, 0, 0, 0, 8, 0 };
	uint8_t *buf[NCPUS];
	size_t buf_size;
	struct pmt_time_conv tc = { .time_shift = 2, .time_mult = 5, .time_zero = 1000000,
				    .cap_user_time_zero = 1 };
	struct pmt_sample_id sid = { .valid = 1, .pid = PID, .tid = PID, .id = 1 };
	struct pmt_perf_writer_opts wo = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = 1);
	struct pmt_spe_synth syn[NCPUS];
	struct pmt_perf_writer *w;
	uint8_t attr[136] = { 0 };
	uint64_t aux_off[NCPUS] = { 0 }, spe_id = 1;
	size_t carry[NCPUS] = { 0 }; /* bytes of a cut record held for the next chunk */
	uint64_t own_id = 2;
	uint32_t late_tid = 0;
	int cut = argc >= 3 && !strcmp(argv[2], "cut");
	int own = argc >= 3 && !strcmp(argv[2], "own");
	int sw = own || (argc >= 3 && !strcmp(argv[2], "switch"));
	unsigned rounds = argc >= 4 ? (unsigned)strtoul(argv[3], NULL, 10) : ROUNDS;
	unsigned records = argc >= 5 ? (unsigned)strtoul(argv[4], NULL, 10) : RECORDS;
	int rc = 0;

	if (argc < 2 || argc > 5 || !rounds || !records || records > RECORDS_MAX) {
		fprintf(stderr, "usage: spe_cpus OUT.data [cut|whole|switch|own [ROUNDS [RECORDS]]]\n");
		return 2;
	}
	buf_size = ((size_t)records + 1) * PMT_SPE_SYNTH_RECORD_MAX;
	for (unsigned c = 0; c < NCPUS; c++) {
		struct pmt_spe_synth_opts so;

		buf[c] = malloc(buf_size);
		if (!buf[c])
			return 1;

		pmt_spe_synth_opts_init(&so);
		so.seed = 11 + c;
		so.context = !sw;
		if (pmt_spe_synth_init(&syn[c], &so) < 0)
			return 1;
	}
	if (pmt_perf_writer_open(argv[1], &wo, &w) < 0)
		return 1;
	pmt_attr_init_spe(attr, 8, true);
	rc |= pmt_perf_writer_add_attr(w, attr, sizeof(attr), &spe_id, 1, "arm_spe_0//");
	if (own) {
		/* PERF_TYPE_SOFTWARE / PERF_COUNT_SW_CPU_CLOCK, sampling what SPE's attr does */
		uint8_t clk[136];

		pmt_attr_init_spe(clk, 1, true);
		memset(clk + PMT_ATTR_CONFIG, 0, 8);
		rc |= pmt_perf_writer_add_attr(w, clk, sizeof(clk), &own_id, 1, "cpu-clock");
	}
	rc |= pmt_perf_writer_set_feature_str(w, PMT_FEAT_CPUID, "0x00000000410fd0c0");
	rc |= pmt_perf_writer_set_nrcpus(w, NCPUS, NCPUS);
	rc |= pmt_perf_writer_write_time_conv(w, &tc);
	rc |= pmt_perf_writer_write_auxtrace_info_spe_v1(w, 8, true);
	rc |= pmt_perf_writer_write_comm(w, PID, PID, "spe-cpus", false, &sid);
	for (unsigned r = 0; r < rounds && rc >= 0; r++) {
		for (unsigned c = 0; c < NCPUS; c++) {
			size_t len = carry[c], send, last = 0;
			uint64_t mid_ts = 0;

			for (unsigned i = 0; i < records; i++) {
				int n = pmt_spe_synth_next_record(&syn[c], buf[c] + len,
								  buf_size - len);

				if (n < 0)
					return 1;
				if (i == records / 2)
					mid_ts = syn[c].ts;
				last = len;
				len += (size_t)n;
			}
			send = len;
			if (cut && c == 1 && r + 1 < rounds) {
				/* after the last record's second or third packet: the zeros that pad
				 * the chunk to 8 bytes are PAD packets inside the record, which
				 * perf and pmutrace pass over */
				struct pmt_spe_pkt_iter it;
				struct pmt_spe_packet pkt;

				pmt_spe_pkt_iter_init(&it, buf[c] + last, len - last, 0);
				for (unsigned k = 0; k < 2 + r % 2; k++)
					if (pmt_spe_pkt_next(&it, &pkt) < 0)
						return 1;
				send = last + it.pos;
			}
			rc |= pmt_perf_writer_write_auxtrace(w, buf[c], send, aux_off[c], 0, c,
							     (uint32_t)-1, c);
			if (sw)
				rc |= write_switch(w, c, r, pmt_time_conv_to_perf(&tc, mid_ts),
						   spe_id);
			if (own) {
				struct pmt_sample smp = { .id = own_id, .ip = 0x400000 + 4 * r,
							  .pid = PID, .tid = PID,
							  .time = pmt_time_conv_to_perf(&tc, mid_ts),
							  .cpu = c, .period = 1000 };

				rc |= pmt_perf_writer_write_sample(w, &smp);
			}
			if (r == 5 && c == 0) {
				/* the thread of the round's first CONTEXT packet (not 0) on CPU 0 */
				struct pmt_spe_pkt_iter it;
				struct pmt_spe_packet pkt;

				pmt_spe_pkt_iter_init(&it, buf[c], send, 0);
				while (pmt_spe_pkt_next(&it, &pkt) > 0 &&
				       (pkt.type != PMT_SPE_CONTEXT || !pkt.payload))
					;
				late_tid = (uint32_t)pkt.payload;
			}
			if (r == 5 && c == 1) {
				/* its COMM after CPU 1's chunk, in a frame of CPU 1's: the samples of
				 * that thread take their pid from it, so a CPU 0 slice that passed
				 * over the frame would differ */
				rc |= pmt_perf_writer_write_comm(w, late_tid, late_tid, "spe-late",
								 false, &sid);
			}
			aux_off[c] += send;
			carry[c] = len - send;
			memmove(buf[c], buf[c] + send, carry[c]);
		}
		rc |= pmt_perf_writer_write_record(w, fin, sizeof(fin));
	}
	for (unsigned c = 0; c < NCPUS; c++)
		free(buf[c]);
	if (rc < 0) {
		fprintf(stderr, "spe_cpus: write failed\n");
		pmt_perf_writer_close(w);
		return 1;
	}
	return pmt_perf_writer_close(w) < 0;
}
