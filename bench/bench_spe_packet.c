/* SPE packet-decode throughput: iterate every packet of a >= 64 MB synthetic N1 stream (made
 * in memory with the synth API) and fold type/payload into a checksum so nothing is optimised
 * away. Prints the best of 5 runs. Usage: bench_spe_packet [MB] [mix] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_spe_stream.h"

int main(int argc, char **argv)
{
	size_t len = 0;
	uint8_t *buf = bench_spe_stream(argc, argv, &len);
	double best[3] = { 1e9, 1e9, 1e9 };
	uint64_t pkts = 0, sum = 0;

	if (!buf)
		return 1;
	/* pass 0: PAD coalescing on (as dump does); pass 1: one packet per PAD byte;
	 * pass 2: coalescing, through the inline fast path */
	for (int pass = 0; pass < 3; pass++) {
		for (int run = 0; run < 5; run++) {
			struct pmt_spe_pkt_iter it;
			struct pmt_spe_packet pkt;
			uint64_t cnt = 0, x = 0;
			double t0 = bench_cpu_seconds(), dt;
			int r;

			pmt_spe_pkt_iter_init(&it, buf, len, 0);
			it.coalesce_pad = (uint8_t)(pass != 1);
			while ((r = pass == 2 ? pmt_spe_pkt_next_inline(&it, &pkt)
					      : pmt_spe_pkt_next(&it, &pkt)) != -PMT_EEOS) {
				if (r < 0) {
					pmt_spe_pkt_iter_skip(&it, 1);
					continue;
				}
				x += pkt.payload ^ pkt.type;
				cnt++;
			}
			dt = bench_cpu_seconds() - t0;
			if (dt < best[pass])
				best[pass] = dt;
			pkts = cnt;
			sum += x;
		}
		printf("%s: %zu bytes, %llu packets, best of 5: %.1f MB/s, %.1f Mpackets/s\n",
		       pass == 0 ? "next, coalesced PAD" : pass == 1 ? "next, PAD per byte" :
		       "next_inline, coalesced PAD", len, (unsigned long long)pkts,
		       len / best[pass] / 1e6, pkts / best[pass] / 1e6);
	}
	printf("checksum %llx\n", (unsigned long long)sum);
	free(buf);
	return 0;
}
