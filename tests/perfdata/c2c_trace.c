/* Writes a file-mode perf.data of a per-CPU SPE recording made for cache-to-cache analysis:
 * 4 CPUs on 2 NUMA nodes (HEADER_NUMA_TOPOLOGY, HEADER_ARCH aarch64, a Neoverse N1 MIDR),
 * 4 threads of one process, loads and stores whose data addresses fall in a few cache
 * lines that several threads and CPUs share (and in lines private to one thread), with
 * every N1 data source (L1D, L2, peer core, local cluster, system cache, peer cluster,
 * remote, DRAM). PCs fall in [TEXT, TEXT+LEN), mapped from the fixture executable by a
 * build-id MMAP2; the data addresses in an anonymous map. With "hip12" the CPUs are
 * HiSilicon HIP12 cores, whose data sources also say HITM (local, peer cluster, remote
 * socket), so perf c2c's HITM displays have lines to show. The input of
 * tests/diff/c2c_vs_perf.sh. Deterministic for a seed. With C2C_TRACE_PROCS=2 in the
 * environment, threads 1 and 3 belong to a second process (PID2, a lower pid, so that
 * orders by pid show) that maps the same executable under another name (app-copy), for
 * perf c2c's -c pid and -c dso.
 * Usage: c2c_trace OUT.data TEXT LEN BUILDID_HEX [SEED [RECORDS_PER_CPU [n1|hip12]]] */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/perfdata.h"
#include "pmutrace/spe.h"

#define NCPUS 4
#define NTHREADS 4
#define PID 5000
#define PID2 4000
#define ROUNDS 8
#define APP_BASE 0xaaaad0000000ULL
#define DATA_BASE 0xffff90000000ULL
#define SHARED_LINES 24

static uint64_t rng;

static uint32_t below(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 11) % n);
}

struct rec {
	uint8_t *p;
	size_t len;
};

static void put(struct rec *r, uint8_t type, uint8_t index, uint8_t size, uint64_t payload)
{
	struct pmt_spe_packet pkt = { .type = type, .index = index, .payload_size = size,
				      .payload = payload };
	int n = pmt_spe_packet_encode(&pkt, r->p + r->len, PMT_SPE_PKT_MAX_SZ);

	if (n > 0)
		r->len += (size_t)n;
}

/* N1 data-source codes (arm-spe.md), weighted so that peer and remote hits are common
 * enough to make shared lines */
static const uint8_t sources_n1[] = { 0x0, 0x0, 0x0, 0x0, 0x8, 0x8, 0x9, 0x9, 0x9, 0xa,
				      0xb, 0xb, 0xc, 0xc, 0xd, 0xd, 0xe };
/* HIP12 (perf's arm_spe__synth_data_source_hisi_hip): 18 L1, 16/17 L2 (HITM), 0/1 peer CPU
 * (HITM), 2/3 L3 (HITM), 4/5 peer cluster (HITM), 6/7 remote socket (HITM), 8/9 local and
 * remote memory */
static const uint8_t sources_hip12[] = { 18, 18, 18, 18, 16, 16, 17, 0, 1, 2, 3, 3, 4, 5, 5,
					 6, 7, 7, 8, 9 };
static const uint8_t *sources = sources_n1;
static unsigned nsources = sizeof(sources_n1);

static size_t one_record(uint8_t *buf, unsigned cpu, uint64_t text, uint64_t len, uint64_t *ts)
{
	struct rec r = { buf, 0 };
	unsigned tid = PID + 1 + (below(10) < 8 ? cpu : below(NTHREADS));
	int store = below(10) < 3;
	uint64_t va, pc, ev = 1u << PMT_SPE_EV_RETIRED | 1u << PMT_SPE_EV_L1D_ACCESS |
			      1u << PMT_SPE_EV_TLB_ACCESS;
	unsigned line = below(SHARED_LINES), ds = sources[below(nsources)];
	unsigned tot = 4 + below(8);

	if (below(4) == 0)
		/* a line only this thread touches */
		va = DATA_BASE + 0x10000 + (uint64_t)tid * 0x1000 + below(64) * 8;
	else
		va = DATA_BASE + 0x1000 + (uint64_t)line * 64 + below(8) * 8;
	/* a few code addresses per line, so offsets and code addresses group */
	pc = text + (((uint64_t)line * 7 + below(3) + (store ? 3 : 0)) % (len / 4)) * 4;
	if (ds)
		ev |= 1u << PMT_SPE_EV_L1D_REFILL;
	if (ds >= 0xa)
		ev |= 1u << PMT_SPE_EV_LLC_ACCESS;
	if (ds >= 0xd)
		ev |= 1u << PMT_SPE_EV_LLC_MISS;
	if (ds == 0xd)
		ev |= 1u << PMT_SPE_EV_REMOTE_ACCESS;
	tot += ds == 0x9 ? 30 + below(30) : ds == 0xc ? 60 + below(60) : ds == 0xd ? 300 + below(300) :
	       ds == 0xe ? 150 + below(200) : ds ? 11 + below(30) : 0;
	put(&r, PMT_SPE_ADDRESS, PMT_SPE_ADDR_PC, 8, (0x80ULL << 56) | pc);
	put(&r, PMT_SPE_CONTEXT, PMT_SPE_CTX_EL1, 4, tid);
	put(&r, PMT_SPE_OP_TYPE, PMT_SPE_OP_LDST, 1, (uint64_t)store);
	put(&r, PMT_SPE_EVENTS, 2, 2, ev);
	put(&r, PMT_SPE_COUNTER, PMT_SPE_CNT_ISSUE, 2, 1 + below(4));
	put(&r, PMT_SPE_COUNTER, PMT_SPE_CNT_TOT, 2, tot);
	put(&r, PMT_SPE_ADDRESS, PMT_SPE_ADDR_VA, 8, va);
	put(&r, PMT_SPE_COUNTER, PMT_SPE_CNT_XLAT, 2, 1);
	if (!store)
		put(&r, PMT_SPE_DATA_SOURCE, 0, 1, ds);
	*ts += 100 + below(900);
	put(&r, PMT_SPE_TIMESTAMP, 0, 8, *ts);
	return r.len;
}

int main(int argc, char **argv)
{
	static const uint8_t fin[8] = { PMT_REC_FINISHED_ROUND, 0, 0, 0, 0, 0, 8, 0 };
	static uint8_t buf[64 * 1024];
	struct pmt_time_conv tc = { .time_shift = 0, .time_mult = 1, .time_zero = 0,
				    .cap_user_time_zero = 1 };
	struct pmt_sample_id sid = { .valid = 1, .pid = PID, .tid = PID + 1, .id = 1 };
	struct pmt_perf_writer_opts wo = PMT_OPTS_INIT(pmt_perf_writer_opts);
	struct pmt_perf_writer *w;
	uint8_t attr[136] = { 0 }, bid[20];
	uint64_t aux_off[NCPUS] = { 0 }, ts[NCPUS], spe_id = 1, text, len, midr = 0x410fd0c0;
	unsigned per_cpu, nbid = 0;
	const char *procs = getenv("C2C_TRACE_PROCS");
	bool two = procs && !strcmp(procs, "2");
	/* C2C_TRACE_DATA_BID=1: the data lies in a private file map named by a build-id
	 * MMAP2 (no device or inode) instead of anonymous memory */
	bool data_bid = getenv("C2C_TRACE_DATA_BID") != NULL;
	static const uint8_t dbid[20] = { 0xda, 0x7a, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
					  13, 14, 15, 16, 17, 18 };
	int rc = 0;

	if (argc < 5 || argc > 8 || (argc == 8 && strcmp(argv[7], "n1") && strcmp(argv[7], "hip12"))) {
		fprintf(stderr, "usage: c2c_trace OUT.data TEXT LEN BUILDID_HEX [SEED [RECORDS "
				"[n1|hip12]]]\n");
		return 2;
	}
	if (argc == 8 && !strcmp(argv[7], "hip12")) {
		sources = sources_hip12;
		nsources = sizeof(sources_hip12);
		midr = 0x480fd060; /* implementer 0x48, part 0xd06 */
	}
	text = strtoull(argv[2], NULL, 0);
	len = strtoull(argv[3], NULL, 0);
	rng = argc > 5 ? strtoull(argv[5], NULL, 0) * 0x9e3779b97f4a7c15ULL + 1 : 88172645463325252ULL;
	per_cpu = argc > 6 ? (unsigned)strtoul(argv[6], NULL, 0) : 2000;
	if (len < 64 || !per_cpu || per_cpu > 1000000)
		return 2;
	for (const char *h = argv[4]; h[0] && h[1] && nbid < sizeof(bid); h += 2) {
		unsigned v;

		if (sscanf(h, "%2x", &v) != 1)
			return 2;
		bid[nbid++] = (uint8_t)v;
	}
	for (unsigned c = 0; c < NCPUS; c++)
		ts[c] = 1000000 + c * 37;
	if (pmt_perf_writer_open(argv[1], &wo, &w) < 0)
		return 1;
	pmt_attr_init_spe(attr, 8, true);
	rc |= pmt_perf_writer_add_attr(w, attr, sizeof(attr), &spe_id, 1, "arm_spe_0//");
	rc |= pmt_perf_writer_set_midr(w, midr);
	rc |= pmt_perf_writer_set_feature_str(w, PMT_FEAT_ARCH, "aarch64");
	rc |= pmt_perf_writer_set_nrcpus(w, NCPUS, NCPUS);
	rc |= pmt_perf_writer_set_numa_nodes(w, "0-1;2-3");
	rc |= pmt_perf_writer_write_time_conv(w, &tc);
	rc |= pmt_perf_writer_write_auxtrace_info_spe_v1(w, 8, true);
	for (unsigned t = 0; t < NTHREADS; t++) {
		sid.pid = two && t % 2 ? PID2 : PID;
		sid.tid = PID + 1 + t;
		rc |= pmt_perf_writer_write_comm(w, (uint32_t)sid.pid, PID + 1 + t,
						 t ? "c2c-worker" : "c2c-main", false, &sid);
	}
	for (unsigned p = 0; p < (two ? 2u : 1u); p++) {
		sid.pid = p ? PID2 : PID;
		sid.tid = PID + 1 + p;
		rc |= pmt_perf_writer_write_mmap2_build_id(w, (uint32_t)sid.pid, (uint32_t)sid.tid,
							   APP_BASE, 0x10000, 0, 5, 2, bid, nbid,
							   p ? "/usr/bin/app-copy" : "/usr/bin/app",
							   &sid);
		if (data_bid)
			rc |= pmt_perf_writer_write_mmap2_build_id(w, (uint32_t)sid.pid,
								   (uint32_t)sid.tid, DATA_BASE,
								   0x100000, 0, 3, 0x02, dbid,
								   sizeof(dbid), "/var/data.bin", &sid);
		else
			rc |= pmt_perf_writer_write_mmap2(w, (uint32_t)sid.pid, (uint32_t)sid.tid,
							  DATA_BASE, 0x100000, 0, 3, 0x22, "//anon",
							  &sid);
	}
	sid.pid = PID;
	sid.tid = PID + 1;
	text += APP_BASE;
	for (unsigned r = 0; r < ROUNDS && rc >= 0; r++) {
		for (unsigned c = 0; c < NCPUS; c++) {
			size_t n = 0;

			for (unsigned i = 0; i < per_cpu / ROUNDS; i++) {
				if (n + 128 > sizeof(buf)) {
					rc |= pmt_perf_writer_write_auxtrace(w, buf, n, aux_off[c], 0, c,
									     (uint32_t)-1, c);
					aux_off[c] += (n + 7) & ~(size_t)7;
					n = 0;
				}
				n += one_record(buf + n, c, text, len, &ts[c]);
			}
			if (n)
				rc |= pmt_perf_writer_write_auxtrace(w, buf, n, aux_off[c], 0, c,
								     (uint32_t)-1, c);
			aux_off[c] += (n + 7) & ~(size_t)7;
		}
		rc |= pmt_perf_writer_write_record(w, fin, sizeof(fin));
	}
	if (rc < 0) {
		fprintf(stderr, "c2c_trace: write failed\n");
		pmt_perf_writer_close(w);
		return 1;
	}
	return pmt_perf_writer_close(w) < 0;
}
