/* Issue 9 item 5: would an SPE-aware transform before zstd make containers smaller? The
 * stream is split into columns (packet headers; PCs and data addresses as zigzag varint
 * deltas from the previous one of their kind; timestamp deltas; counters; the other
 * payloads), each column is compressed on its own, and the sizes and times are compared
 * with zstd of the bytes as they are. The inverse is run and checked byte for byte, so a
 * figure is only printed for a transform that is exact.
 *   bench_spe_columns FILE [LEVEL]          FILE: raw SPE bytes
 *   bench_spe_columns --synth MIX MB [LEVEL]
 *   bench_spe_columns --lackey TRACE MB [LEVEL]
 * --lackey builds the bytes from a real program's execution: valgrind --tool=lackey
 * --trace-mem=yes output (I/L/S/M lines), one SPE record per 64th instruction with its PC,
 * and for loads and stores the data address, so PCs and addresses have a real program's
 * locality (counters, events and timestamps are synthetic). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "pmutrace/spe.h"

enum { C_HDR, C_PC, C_VA, C_ADDR, C_TS, C_CNT, C_MISC, C_PAD, C_N };
static const char *const col_name[C_N] = { "headers", "pc", "va", "other-addr", "timestamp",
					   "counter", "other", "pad-runs" };

struct col {
	uint8_t *b;
	size_t n, cap, rd;
};

static inline void put(struct col *c, const void *p, size_t n)
{
	if (__builtin_expect(c->n + n > c->cap, 0)) {
		c->cap = (c->n + n) * 2 + 4096;
		c->b = realloc(c->b, c->cap);
		if (!c->b) {
			perror("realloc");
			exit(1);
		}
	}
	memcpy(c->b + c->n, p, n);
	c->n += n;
}

static inline void put_varint(struct col *c, int64_t d)
{
	uint64_t z = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
	uint8_t *b;

	if (__builtin_expect(c->n + 10 > c->cap, 0)) {
		put(c, "0123456789", 10); /* grows the column; the bytes are taken back */
		c->n -= 10;
	}
	b = c->b + c->n;
	while (z > 0x7f) {
		*b++ = (uint8_t)(z | 0x80);
		z >>= 7;
	}
	*b++ = (uint8_t)z;
	c->n = (size_t)(b - c->b);
}

static int64_t get_varint(struct col *c)
{
	uint64_t z = 0;
	unsigned sh = 0;
	uint8_t b;

	do {
		b = c->b[c->rd++];
		z |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
	} while (b & 0x80);
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

static void get(struct col *c, void *p, size_t n)
{
	memcpy(p, c->b + c->rd, n);
	c->rd += n;
}

static int forward(const uint8_t *buf, size_t len, struct col *cols)
{
	struct pmt_spe_pkt_iter it;
	struct pmt_spe_packet pk;
	uint64_t prev_pc = 0, prev_va = 0, prev_ts = 0;
	int rc;

	pmt_spe_pkt_iter_init(&it, buf, len, 0);
	while ((rc = pmt_spe_pkt_next_inline(&it, &pk)) > 0) {
		const uint8_t *raw = buf + it.pos - pk.len;
		size_t hl = pk.ext ? 2 : 1;

		put(&cols[C_HDR], raw, hl);
		if (pk.type == PMT_SPE_ALIGN_PAD) {
			put(&cols[C_MISC], raw + hl, pk.len - hl);
			continue;
		}
		if (pk.type == PMT_SPE_PAD) {
			/* a run of PAD bytes (records padded to their size): one header and
			 * the run's length */
			size_t end = it.pos;

			while (end < len && buf[end] == 0)
				end++;
			put_varint(&cols[C_PAD], (int64_t)(end - it.pos + 1));
			pmt_spe_pkt_iter_skip(&it, end - it.pos);
			continue;
		}
		if (pk.type == PMT_SPE_ADDRESS && pk.index == PMT_SPE_ADDR_PC) {
			put_varint(&cols[C_PC], (int64_t)(pk.payload - prev_pc));
			prev_pc = pk.payload;
		} else if (pk.type == PMT_SPE_ADDRESS && pk.index == PMT_SPE_ADDR_VA) {
			put_varint(&cols[C_VA], (int64_t)(pk.payload - prev_va));
			prev_va = pk.payload;
		} else if (pk.type == PMT_SPE_ADDRESS) {
			put(&cols[C_ADDR], raw + hl, pk.payload_size);
		} else if (pk.type == PMT_SPE_TIMESTAMP) {
			put_varint(&cols[C_TS], (int64_t)(pk.payload - prev_ts));
			prev_ts = pk.payload;
		} else if (pk.type == PMT_SPE_COUNTER) {
			put(&cols[C_CNT], raw + hl, pk.payload_size);
		} else {
			put(&cols[C_MISC], raw + hl, pk.payload_size);
		}
	}
	return rc == -PMT_EEOS ? 0 : -1;
}

static size_t inverse(struct col *cols, uint8_t *out, size_t cap)
{
	uint64_t prev_pc = 0, prev_va = 0, prev_ts = 0;
	size_t o = 0;

	for (int i = 0; i < C_N; i++)
		cols[i].rd = 0;
	while (cols[C_HDR].rd < cols[C_HDR].n && o < cap) {
		uint8_t scratch[PMT_SPE_PKT_MAX_SZ + 8] = { 0 };
		struct pmt_spe_packet pk;
		size_t hl;
		uint64_t v;

		scratch[0] = cols[C_HDR].b[cols[C_HDR].rd];
		/* the second header byte of an extended header is in the column too */
		if (cols[C_HDR].rd + 1 < cols[C_HDR].n)
			scratch[1] = cols[C_HDR].b[cols[C_HDR].rd + 1];
		if (pmt_spe_packet_decode(scratch, sizeof(scratch), o, &pk) <= 0)
			return 0;
		hl = pk.ext ? 2 : 1;
		get(&cols[C_HDR], out + o, hl);
		if (pk.type == PMT_SPE_ALIGN_PAD) {
			get(&cols[C_MISC], out + o + hl, pk.len - hl);
		} else if (pk.type == PMT_SPE_PAD) {
			pk.len = (uint8_t)0; /* the run's length is not a packet length */
			{
				size_t run = (size_t)get_varint(&cols[C_PAD]);

				if (o + run > cap)
					return 0;
				memset(out + o, 0, run);
				o += run;
				continue;
			}
		} else if (pk.type == PMT_SPE_ADDRESS && pk.index == PMT_SPE_ADDR_PC) {
			v = prev_pc += (uint64_t)get_varint(&cols[C_PC]);
			memcpy(out + o + hl, &v, 8);
		} else if (pk.type == PMT_SPE_ADDRESS && pk.index == PMT_SPE_ADDR_VA) {
			v = prev_va += (uint64_t)get_varint(&cols[C_VA]);
			memcpy(out + o + hl, &v, 8);
		} else if (pk.type == PMT_SPE_ADDRESS) {
			get(&cols[C_ADDR], out + o + hl, pk.payload_size);
		} else if (pk.type == PMT_SPE_TIMESTAMP) {
			v = prev_ts += (uint64_t)get_varint(&cols[C_TS]);
			memcpy(out + o + hl, &v, 8);
		} else if (pk.type == PMT_SPE_COUNTER) {
			get(&cols[C_CNT], out + o + hl, pk.payload_size);
		} else {
			get(&cols[C_MISC], out + o + hl, pk.payload_size);
		}
		o += pk.len;
	}
	return o;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t zsize(const void *p, size_t n, int level)
{
	size_t cap = ZSTD_compressBound(n);
	void *z = malloc(cap);
	size_t r = ZSTD_compress(z, cap, p, n, level);

	free(z);
	if (ZSTD_isError(r)) {
		fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(r));
		exit(1);
	}
	return r;
}

/* one SPE record for a sampled operation: PC, [VA], counters, events, op type, timestamp */
static size_t emit_record(uint8_t *out, uint64_t pc, int mem, uint64_t va, uint64_t ts,
			  uint64_t *rng)
{
	struct pmt_spe_packet p;
	size_t n = 0;
	int r;

	*rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
#define EMIT(T, I, V, S)                                                              \
	do {                                                                           \
		memset(&p, 0, sizeof(p));                                              \
		p.type = (T);                                                          \
		p.index = (I);                                                         \
		p.payload = (V);                                                       \
		p.payload_size = (S);                                                  \
		r = pmt_spe_packet_encode(&p, out + n, 64 - n);                        \
		if (r > 0)                                                             \
			n += (size_t)r;                                                \
	} while (0)
	EMIT(PMT_SPE_ADDRESS, PMT_SPE_ADDR_PC, pc | (1ULL << 63) | (1ULL << 62), 8);
	EMIT(PMT_SPE_EVENTS, 2, mem ? ((*rng >> 40) & 1 ? 0x6 : 0xe) : 0x2, 2);
	EMIT(PMT_SPE_COUNTER, PMT_SPE_CNT_TOT, 8 + ((*rng >> 33) & (mem ? 63 : 7)), 2);
	if (mem) {
		EMIT(PMT_SPE_OP_TYPE, PMT_SPE_OP_LDST, mem == 2 ? 0x01 : 0x00, 1);
		EMIT(PMT_SPE_ADDRESS, PMT_SPE_ADDR_VA, va, 8);
		EMIT(PMT_SPE_COUNTER, PMT_SPE_CNT_XLAT, (*rng >> 50) & 3, 2);
		EMIT(PMT_SPE_DATA_SOURCE, 0, (*rng >> 45) & 1 ? 0 : 8, 2);
	} else {
		EMIT(PMT_SPE_OP_TYPE, PMT_SPE_OP_OTHER, 0x00, 1);
	}
	EMIT(PMT_SPE_TIMESTAMP, 0, ts, 8);
#undef EMIT
	/* records padded to 64 bytes, as the synth and many drivers' buffers are */
	memset(out + n, 0, 64 - n);
	return 64;
}

static uint8_t *from_lackey(const char *path, size_t want, size_t *len)
{
	FILE *fp = fopen(path, "r");
	char line[256];
	uint8_t *buf = malloc(want + 64);
	uint64_t insns = 0, ts = 1000000, rng = 7, pc = 0;
	int pending = 0;
	size_t n = 0;

	if (!fp || !buf) {
		perror(path);
		exit(1);
	}
	while (n + 64 <= want) {
		if (!fgets(line, sizeof(line), fp)) {
			/* the program's trace is shorter than asked: run it again */
			rewind(fp);
			continue;
		}
		if (line[0] == 'I') {
			if (pending) /* the sampled instruction had no data access */
				n += emit_record(buf + n, pc, 0, 0, ts, &rng), pending = 0;
			if (++insns % 64 == 0) {
				pc = strtoull(line + 3, NULL, 16);
				pending = 1;
				ts += 60 + (rng >> 59);
			}
		} else if (pending && (line[1] == 'L' || line[1] == 'S' || line[1] == 'M')) {
			n += emit_record(buf + n, pc, line[1] == 'L' ? 1 : 2,
					 strtoull(line + 3, NULL, 16), ts, &rng);
			pending = 0;
		}
	}
	fclose(fp);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	uint8_t *buf = NULL, *back;
	size_t len = 0, zraw, zcols = 0, outn;
	struct col cols[C_N];
	int level = 3;
	double t0, t_raw, t_cols, t_fwd = 1e30, t_fwd0;
	const char *what = argv[1];

	memset(cols, 0, sizeof(cols));
	if (argc >= 4 && !strcmp(argv[1], "--synth")) {
		struct pmt_spe_synth_opts o;
		struct pmt_spe_synth s;
		uint32_t mix;

		if (pmt_spe_synth_mix_parse(argv[2], &mix) < 0)
			return fprintf(stderr, "unknown mix %s\n", argv[2]), 2;
		pmt_spe_synth_opts_init(&o);
		o.mix = mix;
		pmt_spe_synth_init(&s, &o);
		len = (size_t)atof(argv[3]) << 20;
		buf = malloc(len);
		len = (size_t)pmt_spe_synth_fill(&s, buf, len);
		level = argc > 4 ? atoi(argv[4]) : 3;
		what = argv[2];
	} else if (argc >= 4 && !strcmp(argv[1], "--lackey")) {
		buf = from_lackey(argv[2], (size_t)atof(argv[3]) << 20, &len);
		level = argc > 4 ? atoi(argv[4]) : 3;
		what = "lackey";
	} else if (argc >= 2) {
		FILE *fp = fopen(argv[1], "rb");

		if (!fp)
			return perror(argv[1]), 1;
		fseek(fp, 0, SEEK_END);
		len = (size_t)ftell(fp);
		rewind(fp);
		buf = malloc(len ? len : 1);
		if (fread(buf, 1, len, fp) != len)
			return perror(argv[1]), 1;
		fclose(fp);
		level = argc > 2 ? atoi(argv[2]) : 3;
	} else {
		fprintf(stderr, "usage: bench_spe_columns FILE [LEVEL] | --synth MIX MB [LEVEL] | "
				"--lackey TRACE MB [LEVEL]\n");
		return 2;
	}
	/* the best of 5 runs each: the machine is shared, the minimum is the cost */
	t_raw = t_cols = 1e30;
	for (int rep = 0; rep < 5; rep++) {
		double t;

		t0 = now();
		zraw = zsize(buf, len, level);
		t = now() - t0;
		t_raw = t < t_raw ? t : t_raw;
		for (int i = 0; i < C_N; i++)
			cols[i].n = 0;
		zcols = 0;
		t0 = now();
		t_fwd0 = t0;
		if (forward(buf, len, cols) < 0) {
			fprintf(stderr, "%s: undecodable bytes: the transform would store this "
					"frame as it is\n", what);
			return 1;
		}
		t = now() - t_fwd0;
		t_fwd = t < t_fwd ? t : t_fwd;
		for (int i = 0; i < C_N; i++)
			zcols += cols[i].n ? zsize(cols[i].b, cols[i].n, level) + 4 : 0;
		t = now() - t0;
		t_cols = t < t_cols ? t : t_cols;
	}
	back = malloc(len + 64);
	outn = inverse(cols, back, len + 64);
	if (outn != len || memcmp(back, buf, len)) {
		fprintf(stderr, "%s: the inverse differs (%zu of %zu bytes)\n", what, outn, len);
		return 1;
	}
	printf("%-10s %8.2f MB  zstd -%d: %8.3f MB %6.0f MB/s   columns: %8.3f MB %6.0f MB/s "
	       "(split alone %4.0f MB/s)  ratio %.2fx  (exact)\n", what, (double)len / 1e6, level,
	       (double)zraw / 1e6, (double)len / 1e6 / t_raw, (double)zcols / 1e6,
	       (double)len / 1e6 / t_cols, (double)len / 1e6 / t_fwd, (double)zraw / (double)zcols);
	for (int i = 0; i < C_N; i++)
		if (cols[i].n)
			printf("           %-11s %9zu bytes -> %9zu\n", col_name[i], cols[i].n,
			       zsize(cols[i].b, cols[i].n, level));
	for (int i = 0; i < C_N; i++)
		free(cols[i].b);
	free(buf);
	free(back);
	return 0;
}
