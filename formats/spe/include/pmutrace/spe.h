/* pmutrace formats/spe: Arm SPE packets (decode, encode, describe) and synthetic SPE
 * streams. No perf.data knowledge: packets are bytes in, fields out. */
#ifndef PMUTRACE_SPE_H
#define PMUTRACE_SPE_H

#include "pmutrace/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMT_SPE_PKT_MAX_SZ 16

enum pmt_spe_pkt_type {
	PMT_SPE_PAD = 0,
	PMT_SPE_END,
	PMT_SPE_TIMESTAMP,
	PMT_SPE_ADDRESS,
	PMT_SPE_COUNTER,
	PMT_SPE_CONTEXT,
	PMT_SPE_OP_TYPE,
	PMT_SPE_EVENTS,
	PMT_SPE_DATA_SOURCE,
	PMT_SPE_ALIGN_PAD, /* extended header with h1 == 0: pad to an alignment boundary */
};

/* ADDRESS packet indexes */
enum { PMT_SPE_ADDR_PC = 0, PMT_SPE_ADDR_TGT = 1, PMT_SPE_ADDR_VA = 2, PMT_SPE_ADDR_PA = 3,
       PMT_SPE_ADDR_PBT = 4 };
/* COUNTER packet indexes */
enum { PMT_SPE_CNT_TOT = 0, PMT_SPE_CNT_ISSUE = 1, PMT_SPE_CNT_XLAT = 2 };
/* CONTEXT packet indexes */
enum { PMT_SPE_CTX_EL1 = 0, PMT_SPE_CTX_EL2 = 1 };
/* OP_TYPE classes */
enum { PMT_SPE_OP_OTHER = 0, PMT_SPE_OP_LDST = 1, PMT_SPE_OP_BRANCH = 2 };

/* EVENTS payload bits (Arm ARM numbering, as perf >= 6.16 stores them) */
enum pmt_spe_event_bit {
	PMT_SPE_EV_EXCEPTION_GEN = 0,
	PMT_SPE_EV_RETIRED = 1,
	PMT_SPE_EV_L1D_ACCESS = 2,
	PMT_SPE_EV_L1D_REFILL = 3,
	PMT_SPE_EV_TLB_ACCESS = 4,
	PMT_SPE_EV_TLB_WALK = 5,
	PMT_SPE_EV_NOT_TAKEN = 6,
	PMT_SPE_EV_MISPRED = 7,
	PMT_SPE_EV_LLC_ACCESS = 8,
	PMT_SPE_EV_LLC_MISS = 9,
	PMT_SPE_EV_REMOTE_ACCESS = 10,
	PMT_SPE_EV_ALIGNMENT = 11,
	PMT_SPE_EV_IMPDEF_12 = 12, /* 12..15 IMPLEMENTATION DEFINED (N1: 12 = LATE-PREFETCH) */
	PMT_SPE_EV_TXN = 16,
	PMT_SPE_EV_SVE_PARTIAL_PRED = 17,
	PMT_SPE_EV_SVE_EMPTY_PRED = 18,
	PMT_SPE_EV_L2D_ACCESS = 19,
	PMT_SPE_EV_L2D_MISS = 20,
	PMT_SPE_EV_CACHE_DATA_MODIFIED = 21, /* HITM */
	PMT_SPE_EV_RECENTLY_FETCHED = 22,    /* LFB */
	PMT_SPE_EV_DATA_SNOOPED = 23,
	PMT_SPE_EV_STREAMING_SVE = 24,
	PMT_SPE_EV_SMCU = 25,
};

/* One decoded packet. No pointers: it can be copied and kept freely. */
struct pmt_spe_packet {
	uint8_t type;         /* enum pmt_spe_pkt_type */
	uint8_t index;        /* ADDRESS/COUNTER/CONTEXT index, OP_TYPE class; EVENTS: payload size */
	uint8_t len;          /* total bytes: header(s) + payload (PAD: coalesced run length) */
	uint8_t payload_size; /* 0, 1, 2, 4 or 8 */
	uint8_t ext;          /* 1 if an extended (2-byte) header was used */
	uint8_t header[2];    /* raw header byte(s) */
	uint64_t payload;     /* little-endian payload, zero-extended */
};

/* Decode one packet at buf[0..len). `offset` is buf's offset in the AUX stream; it only
 * matters for alignment-pad extended headers, whose length runs to the next boundary
 * (align - (offset & (align - 1)); perf uses the host buffer address instead, which agrees
 * when AUX buffers are page aligned). PAD bytes are returned one packet per byte (no
 * coalescing; see the iterator). Returns the packet length (> 0), -PMT_ENEED_MORE if buf
 * ends inside the packet (len 0 included), -PMT_EBAD_PACKET if buf[0] starts no valid packet
 * (as in perf, also an extended header whose second byte is not in buf), -PMT_EINVAL for a
 * NULL pkt, or a NULL buf with len > 0. */
PMT_API int pmt_spe_packet_decode(const uint8_t *buf, size_t len, uint64_t offset,
				  struct pmt_spe_packet *pkt);

/* Pull iterator over an SPE byte stream. Plain struct, no allocation. */
struct pmt_spe_pkt_iter {
	const uint8_t *buf;
	size_t len;
	size_t pos;           /* next byte to decode */
	uint64_t base;        /* stream offset of buf[0] */
	uint64_t pad_base;    /* where alignment pads measure from for buf[0]: base after
			       * _init; perf uses the buffer's address in its memory */
	uint8_t coalesce_pad; /* 1: merge up to 16 PAD bytes into one packet, as perf -D does
			       * (zeros after an alignment pad join it, also as perf does) */
};
PMT_API void pmt_spe_pkt_iter_init(struct pmt_spe_pkt_iter *it, const uint8_t *buf, size_t len,
				   uint64_t base);
/* Decode the next packet. Returns its length (> 0) and advances past it; -PMT_EEOS at the
 * end; -PMT_EBAD_PACKET or -PMT_ENEED_MORE without advancing, leaving the offset of the
 * bad byte in pmt_spe_pkt_iter_offset(); -PMT_EINVAL for NULL arguments. Call
 * pmt_spe_pkt_iter_skip(it, 1) to resync byte by byte as perf does (skip clamps at the
 * end). init/skip ignore a NULL iterator. */
PMT_API int pmt_spe_pkt_next(struct pmt_spe_pkt_iter *it, struct pmt_spe_packet *pkt);
PMT_API void pmt_spe_pkt_iter_skip(struct pmt_spe_pkt_iter *it, size_t n);
static inline uint64_t pmt_spe_pkt_iter_offset(const struct pmt_spe_pkt_iter *it)
{
	return it->base + it->pos;
}

/* Per first header byte: the decoded packet with `payload` = the payload's byte mask, or len 0
 * when the byte needs the full decoder (extended header, bad byte). For the inline path. */
PMT_API extern const struct pmt_spe_packet pmt_spe_hdr_proto[256];

/* The common case of pmt_spe_pkt_next(): a short-header packet with 16 bytes left in the
 * buffer. Returns its length, or 0 when the full decoder must handle the position. */
static inline int pmt_spe_pkt_fast_(struct pmt_spe_pkt_iter *it, struct pmt_spe_packet *pkt)
{
	const uint8_t *p;
	const struct pmt_spe_packet *pr;
	int n;

	if (it->pos >= it->len || it->len - it->pos < 16)
		return 0;
	p = it->buf + it->pos;
	pr = &pmt_spe_hdr_proto[p[0]];
	if (!pr->len)
		return 0;
	n = pr->len;
	*pkt = *pr;
	pkt->payload = pmt_le64(p + 1) & pr->payload;
	if (!p[0] && it->coalesce_pad) {
		/* zero run of at most 16 bytes, 8 at a time */
		uint64_t w = pmt_le64(p);

		if (w) {
			n = __builtin_ctzll(w) >> 3;
		} else {
			w = pmt_le64(p + 8);
			n = w ? 8 + (__builtin_ctzll(w) >> 3) : 16;
		}
		pkt->len = (uint8_t)n;
	}
	it->pos += (size_t)n;
	return n;
}

/* pmt_spe_pkt_next() with its common case inlined into the caller's loop (same results;
 * it, pkt must not be NULL). About 20% faster in bench_spe_packet. */
static inline int pmt_spe_pkt_next_inline(struct pmt_spe_pkt_iter *it, struct pmt_spe_packet *pkt)
{
	int n = pmt_spe_pkt_fast_(it, pkt);

	return n ? n : pmt_spe_pkt_next(it, pkt);
}

/* What a writer's index needs of SPE bytes without decoding their records: the range of
 * their timestamps and where records begin and end (a record ends at a TIMESTAMP or END
 * packet; any other packet but PAD opens or continues one). */
enum {
	PMT_SPE_SCAN_NO_EVENT,    /* no packet that ends or opens a record (PAD only, empty) */
	PMT_SPE_SCAN_END_FIRST,   /* the first such packet is an END */
	PMT_SPE_SCAN_OTHER_FIRST, /* a TIMESTAMP or a packet that opens a record */
};
struct pmt_spe_scan {
	uint64_t ts_lo, ts_hi;    /* TIMESTAMP payloads; 0 when timed is 0 */
	uint8_t timed;
	uint8_t first;            /* PMT_SPE_SCAN_*: the bytes before it belong to a record an
				   * earlier buffer began */
	uint8_t open_out;         /* the bytes end inside a record (first != NO_EVENT) */
	uint8_t untimed;          /* a record ended by END without a TIMESTAMP after the first
				   * event, or bytes that start no packet or a packet the buffer
				   * cuts: the walk stops there */
};
/* Walk buf's packets by their headers only (the lengths of pmt_spe_packet_decode; offset
 * as there, for alignment pads). Stops at the first byte that starts no packet. Reads no
 * byte outside buf. 0, or -PMT_EINVAL for a NULL s or a NULL buf with len > 0. */
PMT_API int pmt_spe_scan(const uint8_t *buf, size_t len, uint64_t offset, struct pmt_spe_scan *s);

/* Encode a packet (inverse of decode). Uses pkt->type/index/payload/payload_size/ext; PAD
 * writes pkt->len zero bytes (1 if 0), ALIGN_PAD writes header[0], 0x00 and zeros up to
 * pkt->len. For types whose header fixes the size, payload_size 0 means that size; an
 * index > 7 selects the extended header. Returns bytes written (<= PMT_SPE_PKT_MAX_SZ) or
 * -PMT_EINVAL (NULL, unknown type, index or size out of range, payload wider than its size,
 * cap too small). */
PMT_API int pmt_spe_packet_encode(const struct pmt_spe_packet *pkt, uint8_t *out, size_t cap);

/* Describe a packet's fields the way `perf report -D` does (without offset and hex),
 * e.g. "PC 0xffffc08420e068 el1 ns=1". Returns the string length or -PMT_EINVAL. */
PMT_API int pmt_spe_packet_desc(const struct pmt_spe_packet *pkt, char *out, size_t cap);

/* Description flavours. Default: the newest perf decoder (about v6.16) without a MIDR, so
 * EVENTS bits 12-15 print as "IMPDEF:n". LEGACY61 reproduces Debian's perf 6.1 text for
 * OP_TYPE (OTHER/LDST/BRANCH) and EVENTS (bits 0-11, 17, 18 only); N1 names EVENTS bit 12
 * "LATE-PREFETCH" as perf does when the CPU is a Neoverse N1. */
enum { PMT_SPE_DESC_LEGACY61 = 1u << 0, PMT_SPE_DESC_N1 = 1u << 1 };
#define PMT_SPE_DESC_MAX 512 /* enough for any packet in any flavour */
/* As pmt_spe_packet_desc() with flags. Returns the length, -PMT_EINVAL (NULL, cap 0), or
 * -PMT_ERANGE when cap is too small (out then holds a truncated, terminated string). */
PMT_API int pmt_spe_packet_desc_flags(const struct pmt_spe_packet *pkt, unsigned flags,
				      char *out, size_t cap);

/* ---- SPE stream synthesis (pmutrace synth) ---- */

/* Record mixes, shaped after what Neoverse cores write (arm-spe.md, real buffers in
 * ../shared/data/spe): N1 = 2-byte EVENTS, loads/stores/branches/other, data sources
 * 0,8..0xE; V2 = 4-byte EVENTS, physical addresses, call/return branch hints. */
enum pmt_spe_synth_mix {
	PMT_SPE_MIX_N1 = 0,
	PMT_SPE_MIX_V2,
	PMT_SPE_MIX_LOADS,
	PMT_SPE_MIX_STORES,
	PMT_SPE_MIX_BRANCHES,
	PMT_SPE_MIX_OTHER,
	PMT_SPE_MIX_HIP12,  /* N1's op mix, HiSilicon HIP12 data-source codes (0..9, 13, 16..18) */
	PMT_SPE_MIX_COUNT
};

struct pmt_spe_synth_opts {
	size_t sz;           /* sizeof(struct pmt_spe_synth_opts): pmt_spe_synth_opts_init sets it */
	uint64_t seed;
	uint32_t mix;        /* enum pmt_spe_synth_mix */
	uint8_t timestamps;  /* 1: records end in TIMESTAMP (ts_enable=1), 0: in END */
	uint8_t context;     /* 1: a CONTEXT packet in every record */
	uint8_t sve;         /* 1: some operations are SVE (SVE-OTHER, SVE loads/stores) */
	uint8_t pa;          /* 1: PA packets for loads/stores (V2 mix sets it) */
	uint16_t record_size;/* records are PAD-filled to this size (0 = no fill); default 64 */
	/* user code addresses: 4-byte aligned PCs in [text_base, text_base + text_len); 0 len =
	 * a 1 MiB range at 0xaaaae4a00000 (so PCs can fall in a real binary's text) */
	uint64_t text_base, text_len;
	uint8_t kernel_pct;  /* share of kernel PCs in percent, 0..100 (default 10) */
};

/* Generator state: plain struct, no allocation. */
struct pmt_spe_synth {
	struct pmt_spe_synth_opts o;
	uint64_t rng;
	uint64_t ts;
	uint64_t records;
	uint32_t pid;
};

#define PMT_SPE_SYNTH_RECORD_MAX 128 /* bytes one record can take */

/* Defaults: seed 1, N1 mix, timestamps on, no CONTEXT, no SVE, 64-byte records, 10% kernel
 * PCs, user PCs in 1 MiB at 0xaaaae4a00000. */
PMT_API void pmt_spe_synth_opts_init(struct pmt_spe_synth_opts *o);
/* Returns 0 or -PMT_EINVAL (NULL, unknown mix, record_size under 64 or over 128 but not 0). */
PMT_API int pmt_spe_synth_init(struct pmt_spe_synth *s, const struct pmt_spe_synth_opts *o);
/* Write the next record at buf (cap >= PMT_SPE_SYNTH_RECORD_MAX). Deterministic for a seed.
 * Returns the bytes written or -PMT_EINVAL. */
PMT_API int pmt_spe_synth_next_record(struct pmt_spe_synth *s, uint8_t *buf, size_t cap);
/* Fill buf with whole records up to len bytes; returns bytes written (a multiple of the
 * record size when records are filled) or -PMT_EINVAL. */
PMT_API int64_t pmt_spe_synth_fill(struct pmt_spe_synth *s, uint8_t *buf, size_t len);
/* "n1", "v2", "loads", "stores", "branches", "other", "hip12" -> enum; -PMT_EPARSE if unknown. */
PMT_API int pmt_spe_synth_mix_parse(const char *name, uint32_t *mix);

/* =====================================================================================
 * Columns: SPE bytes split by packet field so zstd compresses them better (the container's
 * column frames, FORMAT.md). Each chunk is split on its own (deltas restart), its packets
 * into the columns and whatever does not decode (a bad byte, a packet cut by the chunk's
 * end) from there on kept as it is, so any bytes come back exactly.
 * ===================================================================================== */
enum { PMT_SPE_COL_META, PMT_SPE_COL_HDR, PMT_SPE_COL_PC, PMT_SPE_COL_VA, PMT_SPE_COL_ADDR,
       PMT_SPE_COL_TS, PMT_SPE_COL_CNT, PMT_SPE_COL_OTHER, PMT_SPE_COL_PAD, PMT_SPE_COL_RAW,
       PMT_SPE_COLS };
struct pmt_spe_col {
	struct pmt_buf buf;
	size_t rd;           /* reading: next byte */
};
struct pmt_spe_columns {
	struct pmt_spe_col col[PMT_SPE_COLS];
};
/* Split one chunk into c's columns (appended). 0 or -PMT_ENOMEM. */
PMT_API int pmt_spe_columns_put(struct pmt_spe_columns *c, const uint8_t *buf, size_t len);
/* The next chunk back, exactly len bytes into out: 0, or -PMT_ECORRUPT when the columns
 * do not hold it (damaged or not made by put). Columns are read from their rd. */
PMT_API int pmt_spe_columns_get(struct pmt_spe_columns *c, uint8_t *out, size_t len);
/* Empty every column (buffers kept); fini frees them. */
PMT_API void pmt_spe_columns_reset(struct pmt_spe_columns *c);
PMT_API void pmt_spe_columns_fini(struct pmt_spe_columns *c);

/* =====================================================================================
 * Address helpers shared by the decoders
 * ===================================================================================== */
/* perf's arm_spe_calc_ip(): canonical address from an ADDRESS payload by index. */
PMT_API uint64_t pmt_spe_addr_canonical(unsigned index, uint64_t payload);

#ifdef __cplusplus
}
#endif
#endif
