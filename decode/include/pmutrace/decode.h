/* pmutrace decode layer: SPE records and synthetic samples, sinks and reports,
 * symbols, metrics (expression engine, metric tables, retire latency, topdown).
 */
#ifndef PMUTRACE_DECODE_H
#define PMUTRACE_DECODE_H

#include "pmutrace/formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* =====================================================================================
 * SPE records, synthetic samples, sinks, reports
 * ===================================================================================== */

/* ---- perf compatibility model ------------------------------------------------------
 * Sample synthesis follows the newest perf by default. A compat level (perf version as
 * major*100+minor, e.g. 601) switches every version-dependent rule to that perf: event
 * names ("branch-miss" <= 6.12, "branch" >= 6.13), when "memory" samples are made (6.1:
 * data_src != 0), instructions.addr (6.1..6.12: VA), --itrace=l branch stacks (>= 6.15),
 * the MIDR lists and the fallback data-source rules (<= 6.15; >= 6.18 the EVENTS bits
 * fill whatever the MIDR table left open), the HiSilicon HIP12 table (>= 6.19), the --itrace period and default (>= 6.18: every sample kind decimated, period
 * on every sample, i1i by default), the data_src text layout, and the
 * two quirks every perf has but pmutrace drops by default: samples from records cut
 * short by a bad byte, and (timeless mode) one all-zero record before the first. */
#define PMT_PERF_NEWEST 9999
#define PMT_PERF_6_1 601
/* --itrace=l attaches a 2-entry branch stack (TGT + PBT) to branch and instruction
 * samples: Leo Yan's "perf arm-spe: Add branch stack" and "Support previous branch target
 * (PBT) address" (with "perf script: Add not taken event for branch stack") sit in
 * perf-tools-next after its "Merge tag 'v6.14-rc1'" (tip post-receive of 2025-04-01), so
 * v6.15. (LLVM BOLT's perf2bolt docs say "since Linux 6.14"; the tree history says 6.15.) */
#define PMT_PERF_6_15 615
/* James Clark's "perf arm-spe: Show instruction sample types by default", "Downsample all
 * sample types equally", "Display --itrace period warnings for all sample types": listed
 * in Arnaldo's "[GIT PULL] perf tools changes for v6.18" (tag
 * perf-tools-for-v6.18-1-2025-10-08, Message-ID 20251008202804.852200-1-acme@kernel.org). */
#define PMT_PERF_6_18 618
/* HiSilicon HIP12 data-source table: in the newest tree (arm-spe.c at 08dbfad3), absent from
 * the v6.18 pull above, so not before 6.19 (the exact release is not verified). */
#define PMT_PERF_6_19 619

/* ---- records ------------------------------------------------------------------------*/
/* op bits, laid out as perf >= 6.16 stores them (arm-spe-decoder.h) */
enum {
	PMT_SPE_OP_F_OTHER = 1u << 0,
	PMT_SPE_OP_F_LDST = 1u << 1,
	PMT_SPE_OP_F_BRANCH = 1u << 2,
	/* LDST subclasses */
	PMT_SPE_OP_F_GP_REG = 1u << 8,
	PMT_SPE_OP_F_UNSPEC_REG = 1u << 9,
	PMT_SPE_OP_F_NV_SYSREG = 1u << 10,
	PMT_SPE_OP_F_SIMD_FP = 1u << 11,
	PMT_SPE_OP_F_SVE = 1u << 12,
	PMT_SPE_OP_F_MTE_TAG = 1u << 13,
	PMT_SPE_OP_F_MEMCPY = 1u << 14,
	PMT_SPE_OP_F_MEMSET = 1u << 15,
	PMT_SPE_OP_F_GCS = 1u << 16,
	/* modifiers */
	PMT_SPE_OP_F_LD = 1u << 20,
	PMT_SPE_OP_F_ST = 1u << 21,
	PMT_SPE_OP_F_ATOMIC = 1u << 22,
	PMT_SPE_OP_F_EXCL = 1u << 23,
	PMT_SPE_OP_F_AR = 1u << 24,
	PMT_SPE_OP_F_PRED = 1u << 26,
	PMT_SPE_OP_F_SG = 1u << 27,
	PMT_SPE_OP_F_FP = 1u << 29,
	PMT_SPE_OP_F_COND = 1u << 30,
	/* branch subclasses share bits 8..13 with LDST ones, as in perf */
	PMT_SPE_OP_F_BR_COND = 1u << 8,
	PMT_SPE_OP_F_BR_INDIRECT = 1u << 9,
	PMT_SPE_OP_F_BR_GCS = 1u << 10,
	PMT_SPE_OP_F_BR_CR_BL = 1u << 11,
	PMT_SPE_OP_F_BR_CR_RET = 1u << 12,
	PMT_SPE_OP_F_BR_CR_NON_BL_RET = 1u << 13,
};

/* One SPE record: the packets up to a TIMESTAMP or END, as perf's arm_spe_record. */
struct pmt_spe_record {
	uint64_t offset;      /* stream offset of the record's first packet */
	uint64_t events;      /* EVENTS payload (Arm bit numbering, enum pmt_spe_event_bit) */
	uint64_t from_ip, to_ip, prev_br_tgt, virt_addr, phys_addr;
	uint64_t timestamp;   /* TIMESTAMP payload, 0 when the record ended in END */
	uint64_t context_id;  /* CONTEXT payload, UINT64_MAX when none */
	uint32_t op;          /* PMT_SPE_OP_F_* */
	uint32_t latency;     /* COUNTER TOT */
	uint16_t issue_lat;   /* COUNTER ISSUE */
	uint16_t xlat_lat;    /* COUNTER XLAT */
	uint16_t source;      /* DATA_SOURCE payload */
	uint8_t op_class;     /* OP_TYPE class of the last OP_TYPE packet, 0xff when none */
	uint8_t op_payload;
	uint8_t has_ts;
	uint8_t partial;      /* ended by a bad byte, not by TIMESTAMP/END (compat only) */
	uint16_t npackets;    /* packets other than PAD */
};

/* Damage seen by a record decoder. */
struct pmt_spe_rec_stats {
	uint64_t records;          /* complete records returned */
	uint64_t bytes_skipped;    /* bytes that started no valid packet */
	uint64_t bad_ranges;       /* runs of consecutive skipped bytes */
	uint64_t records_dropped;  /* partial records discarded at a bad byte */
	uint64_t first_bad_offset; /* stream offset of the first skipped byte */
	uint8_t have_bad;
};

/* Private to the record decoder: the byte layout of a record seen before (its header and
 * PAD bytes, packet offsets). A CPU writes few distinct layouts, so most records can be
 * checked against one with a few word compares instead of being walked packet by packet. */
#define PMT_SPE_REC_SHAPES 8
struct pmt_spe_rec_shape {
	uint64_t hmask[8], hval[8]; /* header/PAD bytes of the record's first 64 bytes */
	uint64_t fmask[12];         /* per record field: payload byte mask, 0 = no packet */
	uint64_t ctx_none;          /* all ones when no CONTEXT packet */
	uint8_t foff[12];           /* per record field: payload offset of its last packet */
	uint8_t npk, end_off, op_hdr;
};

/* Pull decoder packets -> records. Plain struct, no allocation; a record may continue
 * across pmt_spe_rec_feed() calls (consecutive AUX chunks of one CPU). */
struct pmt_spe_rec_decoder {
	struct pmt_spe_pkt_iter it;
	struct pmt_spe_record cur;  /* record being assembled */
	struct pmt_spe_rec_stats stats;
	uint8_t emit_partial;       /* return records cut by bad bytes (perf's behaviour) */
	uint8_t in_bad;             /* previous byte was skipped */
	uint8_t cur_open;           /* cur holds packets (its count may have wrapped to 0) */
	uint8_t reference;          /* decode through the generic packet iterator only: the
				     * slow reference the fused path is tested against */
	uint8_t nshapes, next_shape;
	struct pmt_spe_rec_shape shapes[PMT_SPE_REC_SHAPES];
};
PMT_API void pmt_spe_rec_init(struct pmt_spe_rec_decoder *d, const uint8_t *buf, size_t len,
			      uint64_t base);
/* Continue with the next buffer; the record in progress is kept. */
PMT_API void pmt_spe_rec_feed(struct pmt_spe_rec_decoder *d, const uint8_t *buf, size_t len,
			      uint64_t base);
/* Next record. Returns 1 with *rec filled, or -PMT_EEOS when the buffer is used up (an
 * unterminated record stays pending for the next feed). Bad bytes are skipped one by one
 * as perf does and counted in d->stats; never returns another error. */
PMT_API int pmt_spe_rec_next(struct pmt_spe_rec_decoder *d, struct pmt_spe_record *rec);
/* One-line summary of d's damage ("" when none): "N bytes skipped in M ranges, K partial
 * records dropped, first bad byte at AUX stream offset 0x..". Returns the length. */
PMT_API int pmt_spe_rec_stats_str(const struct pmt_spe_rec_stats *s, char *out, size_t cap);
PMT_API void pmt_spe_rec_stats_add(struct pmt_spe_rec_stats *to,
				   const struct pmt_spe_rec_stats *from);

/* ---- data source (struct perf_mem_data_src) ------------------------------------------*/
/* data_src of a record as perf computes it for the CPU's MIDR (0 = unknown). */
PMT_API uint64_t pmt_spe_data_source(const struct pmt_spe_record *rec, uint64_t midr,
				     int compat);
/* Same, given the CPU's recorded caps/event_filter (0 = not recorded): from perf 6.18 a
 * load or store without SNOOPED gets snoop "None" when the CPU can report SNOOPED at all,
 * "N/A" otherwise. */
PMT_API uint64_t pmt_spe_data_source_caps(const struct pmt_spe_record *rec, uint64_t midr,
					  uint64_t event_filter, int compat);
/* perf script's meminfo text, e.g. "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB Walker hit|LCK
 * No|BLK  N/A" (6.1 layout when compat <= 601). Returns the length. */
PMT_API int pmt_mem_data_src_str(uint64_t data_src, int compat, char *out, size_t cap);
/* The parts alone, as perf_mem__{op,lvl,snp,tlb}_scnprintf. */
PMT_API int pmt_mem_op_str(uint64_t data_src, char *out, size_t cap);
PMT_API int pmt_mem_lvl_str(uint64_t data_src, int compat, char *out, size_t cap);
PMT_API int pmt_mem_snoop_str(uint64_t data_src, char *out, size_t cap);
PMT_API int pmt_mem_tlb_str(uint64_t data_src, char *out, size_t cap);

/* ---- --itrace options -----------------------------------------------------------------*/
enum {
	PMT_ITRACE_INSN = 1u << 0,   /* i */
	PMT_ITRACE_BRANCH = 1u << 1, /* b */
	PMT_ITRACE_FLC = 1u << 2,    /* f: l1d-miss, l1d-access */
	PMT_ITRACE_LLC = 1u << 3,    /* m: llc-miss, llc-access */
	PMT_ITRACE_TLB = 1u << 4,    /* t */
	PMT_ITRACE_REMOTE = 1u << 5, /* a */
	PMT_ITRACE_MEM = 1u << 6,    /* M */
	PMT_ITRACE_LBR = 1u << 7,    /* l */
};
enum { PMT_ITRACE_PERIOD_INSNS = 0, PMT_ITRACE_PERIOD_TICKS, PMT_ITRACE_PERIOD_NS };
struct pmt_itrace {
	uint32_t flags;
	/* as perf's itrace_synth_opts holds them: without 'i' or 'y' in the string both stay
	 * 0 (instructions, period 0); 'i'/'y' default to 100000 ns */
	uint32_t period_type;
	uint64_t period;
	uint32_t last_branch_sz;
	uint8_t insn_rejected; /* 'i' given with a non-instruction period: perf <= 6.17 warns
				* and drops it, later perf refuses (pmt_itrace_check) */
	uint8_t defaulted;     /* no --itrace: each perf version picks its own default */
};
/* perf's default (no --itrace): every sample kind; instructions with a 100000 ns period,
 * which SPE before 6.18 rejects, so in effect all but instructions. From 6.18 the SPE
 * decoder turns the default into instructions with period 1 (see pmt_spe_sampler_init). */
PMT_API void pmt_itrace_default(struct pmt_itrace *it);
/* What perf's arm_spe_process_auxtrace_info() says about these options at a compat level:
 * 0 = fine; 1 = *msg is a warning to print (period > 1, perf >= 6.18); -PMT_EINVAL = perf
 * refuses to decode (non-instruction period, perf >= 6.18), *msg is its error text. The
 * older "Only instruction-based sampling period" warning is the caller's (insn_rejected). */
PMT_API int pmt_itrace_check(const struct pmt_itrace *it, int compat, const char **msg);
/* Parse a --itrace string ("" = default). Letters SPE ignores (c r x w p o e d g G L s q
 * Z A T) are accepted. Returns 0 or -PMT_EPARSE with a message in err. */
PMT_API int pmt_itrace_parse(const char *s, struct pmt_itrace *it, char *err, size_t errcap);

/* ---- synthetic samples ----------------------------------------------------------------*/
enum pmt_spe_event {
	PMT_SPE_SE_L1D_MISS = 0,
	PMT_SPE_SE_L1D_ACCESS,
	PMT_SPE_SE_LLC_MISS,
	PMT_SPE_SE_LLC_ACCESS,
	PMT_SPE_SE_TLB_MISS,
	PMT_SPE_SE_TLB_ACCESS,
	PMT_SPE_SE_BRANCH,   /* "branch-miss" (<= 6.12) or "branch" (>= 6.13) */
	PMT_SPE_SE_REMOTE,
	PMT_SPE_SE_MEMORY,
	PMT_SPE_SE_INSN,
	PMT_SPE_SE_COUNT
};
#define PMT_SPE_MAX_SAMPLES_PER_RECORD PMT_SPE_SE_COUNT
/* Event name under a compat level. */
PMT_API const char *pmt_spe_event_name(unsigned ev, int compat);

/* perf's sample flags (PERF_IP_FLAG_*) for branch samples */
enum {
	PMT_IP_FLAG_BRANCH = 1u << 0, PMT_IP_FLAG_CALL = 1u << 1, PMT_IP_FLAG_RETURN = 1u << 2,
	PMT_IP_FLAG_CONDITIONAL = 1u << 3, PMT_IP_FLAG_IN_TX = 1u << 10,
	PMT_IP_FLAG_BRANCH_MISS = 1u << 17, PMT_IP_FLAG_NOT_TAKEN = 1u << 18,
};

/* perf's enum perf_branch_sample_type (PERF_BR_*) values SPE uses */
enum {
	PMT_BR_UNKNOWN = 0, PMT_BR_COND = 1, PMT_BR_UNCOND = 2, PMT_BR_CALL = 4, PMT_BR_RET = 6,
	PMT_BR_COND_CALL = 9, PMT_BR_COND_RET = 10,
};
enum {
	PMT_BRF_MISPRED = 1u << 0, PMT_BRF_PREDICTED = 1u << 1, PMT_BRF_NOT_TAKEN = 1u << 2,
	PMT_BRF_IN_TX = 1u << 3,
};
/* One perf branch_entry: from, to, flags (mispred/predicted/not_taken/in_tx, cycles, type) */
struct pmt_branch_entry {
	uint64_t from, to;
	uint16_t cycles;
	uint8_t type;   /* PMT_BR_* */
	uint8_t flags;  /* PMT_BRF_* */
};
/* perf's branch_stack for SPE (--itrace=l, perf >= 6.15): at most the sampled branch
 * (TGT) and the previous branch target (PBT); hw_idx is -1 in perf. */
#define PMT_SPE_BRSTACK_MAX 2
struct pmt_spe_brstack {
	uint32_t nr;
	struct pmt_branch_entry e[PMT_SPE_BRSTACK_MAX];
};
/* "0xFROM/0xTO/P/-/-/CYC/TYPE/-" entries as perf script -F brstack prints them
 * (bstack_event_str(), print_bstack_flags(), get_branch_type()), separated by sep.
 * Returns the length (output truncated to cap - 1). */
PMT_API int pmt_spe_brstack_str(const struct pmt_spe_brstack *b, const char *sep, char *out,
				size_t cap);
/* perf's branch_type_name(); "" for PMT_BR_UNKNOWN as get_branch_type() */
PMT_API const char *pmt_branch_type_name(unsigned type);

struct pmt_spe_sample {
	uint32_t event;   /* enum pmt_spe_event */
	uint32_t cpu;
	int32_t pid, tid;
	uint32_t flags;   /* PMT_IP_FLAG_* */
	uint32_t op;      /* record op bits */
	uint64_t time, ip, addr, phys_addr, period, weight, data_src;
	uint16_t issue_lat, xlat_lat;
	const struct pmt_spe_record *rec; /* valid until the next record */
	/* branch stack (NULL: none, as perf's NULL sample.branch_stack); a fixed array in
	 * the queue, valid until the next record: samples are copied per event, the array
	 * is not */
	const struct pmt_spe_brstack *brstack;
};

/* Per-CPU (or per-thread) decode queue with perf's per-queue state. */
struct pmt_spe_queue {
	struct pmt_spe_rec_decoder dec;
	uint32_t cpu;
	int32_t pid, tid;
	uint64_t midr;
	uint64_t event_filter; /* the CPU's caps/event_filter from the trace, 0 when unknown */
	uint64_t insn_count;  /* perf's period_instructions, from 6.18 its sample_count */
	uint8_t started;      /* first record seen (timeless artefact done) */
	struct pmt_spe_brstack brstack; /* perf's speq->last_branch */
};

struct pmt_spe_sampler {
	struct pmt_itrace itrace;
	int compat;
	uint8_t timeless;
	uint8_t have_time_conv;
	uint8_t decimate_all; /* perf >= 6.18: the period drops whole records */
	uint8_t brstack;      /* --itrace=l honoured (perf >= 6.15) */
	struct pmt_time_conv tc;
	uint32_t enabled;     /* bit per enum pmt_spe_event */
	uint64_t period;      /* period of every sample (perf >= 6.18, may be 0) or of the
			       * memory and branch samples (1) */
};
PMT_API void pmt_spe_sampler_init(struct pmt_spe_sampler *s, const struct pmt_itrace *it,
				  int compat);
PMT_API void pmt_spe_queue_init(struct pmt_spe_queue *q, uint32_t cpu, int32_t pid,
				int32_t tid, uint64_t midr, int compat);
/* Samples of one record, in perf's order, into out[PMT_SPE_MAX_SAMPLES_PER_RECORD].
 * Returns the count (0..PMT_SPE_MAX_SAMPLES_PER_RECORD). Updates the queue's tid from a
 * CONTEXT packet when decoding is not timeless, as perf does. */
PMT_API int pmt_spe_sampler_run(struct pmt_spe_sampler *s, struct pmt_spe_queue *q,
				const struct pmt_spe_record *rec, struct pmt_spe_sample *out);

/* ---- sinks ------------------------------------------------------------------------------*/
enum pmt_sink_format { PMT_SINK_TEXT = 0, PMT_SINK_CSV, PMT_SINK_JSONL };
struct pmt_spe_sink {
	struct pmt_out *out;
	enum pmt_sink_format fmt;
	int compat;
	uint8_t show_time;
	uint8_t brstack;      /* print branch stacks (--itrace=l honoured); set after init */
	uint32_t name_width;  /* text: width of the event column */
	uint32_t dsrc_maxlen; /* text: perf pads data_src to the longest seen so far */
	uint64_t nsamples;
	/* decoded data_src columns, direct-mapped by value: a trace has few distinct ones */
	struct pmt_spe_dsrc_text {
		uint64_t key;
		uint16_t len;
		uint8_t valid;
		char text[229]; /* fields are capped at 39 chars: 4 of them always fit */
	} dsrc[16];
	/* CSV/JSONL: everything after the event name, for the last sample; the samples of
	 * one record differ only in event (and addr/period/flags for some) */
	struct pmt_spe_sample last;
	uint64_t last_offset;
	uint16_t tail_len;
	uint16_t addr_at, addr_end; /* where the tail's addr value is */
	uint8_t tail_valid;
	size_t tail_pos;      /* CSV/JSONL: the cached tail is at out->buf + tail_pos */
	char tail[1024];
	/* text: the columns from addr to phys_addr of the last sample, at tail + 512 */
	uint32_t sfx_dsrc_maxlen;
	uint16_t sfx_len;
	uint8_t sfx_valid;
	/* CSV: ",cpu,pid,tid," and the time's digits but its last 8, shared by records */
	uint32_t pre_cpu;
	int32_t pre_pid, pre_tid;
	uint64_t pre_hi;
	uint8_t pre_len, pre_valid;
	char pre[64];
	/* CSV: the event name, JSONL: '{"event":"NAME"', per event at this compat level */
	uint8_t head_len[PMT_SPE_SE_COUNT];
	char head[PMT_SPE_SE_COUNT][32];
};
PMT_API void pmt_spe_sink_init(struct pmt_spe_sink *k, struct pmt_out *out,
			       enum pmt_sink_format fmt, int compat, int show_time);
PMT_API void pmt_spe_sink_header(struct pmt_spe_sink *k); /* CSV header row (+ brstack) */
PMT_API void pmt_spe_sink_write(struct pmt_spe_sink *k, const struct pmt_spe_sample *s);

/* ---- report ----------------------------------------------------------------------------*/
struct pmt_spe_report;
PMT_API int pmt_spe_report_new(struct pmt_spe_report **out);
PMT_API void pmt_spe_report_free(struct pmt_spe_report *r);
PMT_API int pmt_spe_report_add(struct pmt_spe_report *r, const struct pmt_spe_sample *s);
/* "Available samples" counts and the top `top` ips per event group. */
PMT_API void pmt_spe_report_print(struct pmt_spe_report *r, struct pmt_out *out, int json,
				  unsigned top, int compat, const uint32_t enabled);

/* ---- driving a whole trace --------------------------------------------------------------*/
/* Options for decoding a trace source or a raw buffer into samples. */
struct pmt_spe_run_opts {
	struct pmt_itrace itrace;
	int compat;
	/* raw buffers only */
	uint64_t midr;
	uint32_t cpu;
	int32_t tid;
	uint8_t raw_timed;   /* raw buffer: keep SPE timestamps as sample time */
	/* optional: called once per record with its n >= 1 samples in perf's order, instead
	 * of fn per sample (one indirect call per record on the hot path); < 0 stops */
	int (*record_fn)(const struct pmt_spe_sample *s, int n, void *ctx);
};
typedef int (*pmt_spe_sample_fn)(const struct pmt_spe_sample *s, void *ctx);
/* Decode every AUXTRACE chunk of src (per-CPU queues) or one raw buffer and call fn for
 * each sample; fn returning < 0 stops. stats receives the summed damage. */
PMT_API int pmt_spe_run_source(struct pmt_source *src, const struct pmt_spe_run_opts *o,
			       pmt_spe_sample_fn fn, void *ctx, struct pmt_spe_rec_stats *stats,
			       uint32_t *enabled);
PMT_API int pmt_spe_run_raw(const uint8_t *buf, size_t len, const struct pmt_spe_run_opts *o,
			    pmt_spe_sample_fn fn, void *ctx, struct pmt_spe_rec_stats *stats,
			    uint32_t *enabled);

/* =====================================================================================
 * Metrics: expressions, metric tables, retire latency, topdown, calibration
 * ===================================================================================== */

/* ---- expression engine (Linux perf's metric language) ----------------------------------
 * Compile once into postfix code with resolved slot indexes, evaluate many times with no
 * allocation. Semantics follow perf's expr.y: unknown IDs are NaN, "/" by 0 is NaN, "%" by 0
 * is an error, "A if C else B" is false only for C == +-0.0, | & ^ are logical. */

/* Values of the #literals (matched with strcasecmp) and of '?' and strcmp_cpuid_str(). */
struct pmt_expr_ctx {
	double num_cpus, num_cpus_online, num_cores, num_dies, num_packages;
	double slots, smt_on, system_tsc_freq, has_pmem, core_wide, target_cpu;
	double chas_per_socket;  /* Intel-format constant CHAS_PER_SOCKET */
	int runtime;             /* substituted for '?' in IDs */
	const char *cpuid;       /* for strcmp_cpuid_str(); NULL gives NaN */
};
/* Fill with plausible values for this machine (sysconf CPU counts, smt_on 0, ...). */
PMT_API void pmt_expr_ctx_default(struct pmt_expr_ctx *ctx);
/* Read or set a literal by name (leading '#' optional, case-insensitive; "chas_per_socket"
 * too). Return 0 or -PMT_ENOT_FOUND. */
PMT_API int pmt_expr_ctx_get(const struct pmt_expr_ctx *ctx, const char *name, double *val);
PMT_API int pmt_expr_ctx_set(struct pmt_expr_ctx *ctx, const char *name, double val);

enum pmt_expr_ref_kind {
	PMT_EXPR_REF_VALUE = 0,    /* plain ID */
	PMT_EXPR_REF_SOURCE_COUNT, /* source_count(ID) */
	PMT_EXPR_REF_HAS_EVENT,    /* has_event(ID) */
};
/* Binds a (normalised) ID to a slot of the evaluation array: return the slot index (>= 0),
 * or PMT_EXPR_CONST after storing a constant in *val (unknown IDs: NAN), or -PMT_E*. */
#define PMT_EXPR_CONST (-1000000)
typedef int (*pmt_expr_resolve_fn)(void *arg, const char *id, enum pmt_expr_ref_kind kind,
				   double *val);

enum pmt_expr_flags {
	/* Intel perfmon "Formula" text: accept ">=", "<=", "==" (also written "> ="), and
	 * drop "[n]" instance subscripts. Plain perf text ignores a stray '=' as perf does. */
	PMT_EXPR_INTEL = 1,
};

struct pmt_expr_error {
	int column;              /* 1-based position of the problem, 0 when not positional */
	char msg[160];
};

struct pmt_expr;
PMT_API int pmt_expr_compile(const char *text, unsigned flags, const struct pmt_expr_ctx *ctx,
			     pmt_expr_resolve_fn resolve, void *arg, struct pmt_expr **out,
			     struct pmt_expr_error *err);
/* Evaluate with slots[] as bound by the resolver. Returns 0, or -PMT_EDIV_ZERO for "%" by 0
 * (*out is then NaN). Thread-safe: uses only the caller's stack. */
PMT_API int pmt_expr_eval(const struct pmt_expr *e, const double *slots, double *out);
PMT_API void pmt_expr_free(struct pmt_expr *e);
/* Largest slot index referenced + 1; number of postfix ops. */
PMT_API int pmt_expr_nr_slots(const struct pmt_expr *e);
PMT_API int pmt_expr_nr_ops(const struct pmt_expr *e);
/* One-shot helper: IDs looked up (exact match) in names[]/vals[]; unknown IDs are NaN. */
PMT_API int pmt_expr_eval_str(const char *text, unsigned flags, const struct pmt_expr_ctx *ctx,
			      const char *const *names, const double *vals, size_t n,
			      double *out, struct pmt_expr_error *err);

/* ---- event keys ------------------------------------------------------------------------
 * perf writes one event in many ways: "MEM_LOAD_RETIRED.L2_HIT:R", "cpu_core@mem_load_retired.l2_hit@R",
 * "cpu_core/MEM_LOAD_RETIRED.L2_HIT/". A key splits that into lower-case pmu, event and
 * modifiers, with the retire-latency modifier R (perf) or ":retire_latency" (Intel) lifted out. */
struct pmt_event_key {
	char pmu[32];
	char event[128];
	char mods[64];
	uint8_t retire_latency;
};
PMT_API int pmt_event_key_parse(const char *name, struct pmt_event_key *key);
/* 2 = same pmu, event and modifiers; 1 = same event and modifiers where one side names no
 * pmu or a core pmu (cpu, cpu_core); 0 = different. */
PMT_API int pmt_event_key_match(const struct pmt_event_key *a, const struct pmt_event_key *b);

/* ---- counts: aggregation units x event values -------------------------------------------
 * The input interface of the metric evaluator. Loaded from perf stat output or filled by a
 * recorder; a unit is one (interval, aggregation id) pair, e.g. ("1.000", "CPU3"). */
struct pmt_counts;
PMT_API int pmt_counts_new(struct pmt_counts **out);
PMT_API void pmt_counts_free(struct pmt_counts *c);
/* Find or add; return the index. interval/aggr may be NULL (= ""). */
PMT_API int pmt_counts_unit(struct pmt_counts *c, const char *interval, const char *aggr);
PMT_API int pmt_counts_event(struct pmt_counts *c, const char *name);
/* Adds v to the cell (perf prints one line per merged source); NaN marks "not counted". */
PMT_API int pmt_counts_add(struct pmt_counts *c, int unit, int event, double v);
PMT_API size_t pmt_counts_nr_units(const struct pmt_counts *c);
PMT_API size_t pmt_counts_nr_events(const struct pmt_counts *c);
PMT_API const char *pmt_counts_event_name(const struct pmt_counts *c, size_t event);
PMT_API const char *pmt_counts_unit_interval(const struct pmt_counts *c, size_t unit);
PMT_API const char *pmt_counts_unit_aggr(const struct pmt_counts *c, size_t unit);
/* Value of a cell; NaN when never set. Number of lines merged into it (source_count). */
PMT_API double pmt_counts_get(const struct pmt_counts *c, size_t unit, size_t event);
PMT_API unsigned pmt_counts_sources(const struct pmt_counts *c, size_t unit, size_t event);
/* Best event for a metric ID (pmt_event_key_match), -PMT_ENOT_FOUND when none. */
PMT_API int pmt_counts_find(const struct pmt_counts *c, const char *id);
/* perf stat -x<sep> CSV (any aggregation mode, -I) or perf stat -j JSON lines; the format
 * is detected. Errors name the line. */
PMT_API int pmt_counts_load(struct pmt_counts *c, const char *path);
PMT_API int pmt_counts_load_mem(struct pmt_counts *c, const char *text, size_t len,
				const char *what);

/* ---- retire latency -------------------------------------------------------------------- */
enum pmt_retlat_stat {
	PMT_RETLAT_MEAN = 0, PMT_RETLAT_MIN, PMT_RETLAT_MAX, PMT_RETLAT_LAST, PMT_RETLAT_MEDIAN,
	PMT_RETLAT_PCT, /* with a percentile 0 < p <= 100 */
};
/* "mean", "min", "max", "last", "median", "p90", "p99.9" (case-insensitive). */
PMT_API int pmt_retlat_stat_parse(const char *s, enum pmt_retlat_stat *stat, double *pct);

/* Distribution statistics, named as pmu-tools genretlat.py names them (MEDIAN is the upper
 * median sorted[n/2]; MEAN is not rounded here). */
struct pmt_retlat_stats {
	uint64_t count, nz_count;
	double min, max, mean, median, mode, p90, p99;
	uint64_t mode_count, nz_mode_count, buckets;
	double min_nz, nz_mean, nz_median, nz_mode;
	double last;
};

/* Per-event retire-latency histograms built from samples (65536 bins: the field is 16 bit). */
struct pmt_retlat_dist {
	char name[128];           /* event name without pmu/modifiers, as sampled */
	uint32_t *hist;           /* [65536] */
	uint64_t count;
	uint16_t last;
};
struct pmt_retlat_samples {
	struct pmt_retlat_dist *ev;
	size_t nr, cap;
	uint64_t nr_samples, nr_skipped; /* skipped: no WEIGHT_STRUCT or no event name */
};
PMT_API int pmt_retlat_samples_add(struct pmt_retlat_samples *s, const char *event,
				   uint16_t retire_latency);
/* Pull every sample of a trace: retire latency = weight bits 63:48 of samples whose attr
 * has PERF_SAMPLE_WEIGHT_STRUCT. Returns the number of samples used. */
PMT_API int pmt_retlat_samples_from_trace(struct pmt_retlat_samples *s, const char *path);
PMT_API void pmt_retlat_samples_free(struct pmt_retlat_samples *s);
PMT_API int pmt_retlat_dist_find(const struct pmt_retlat_samples *s, const char *event);
PMT_API void pmt_retlat_dist_stats(const struct pmt_retlat_dist *d, struct pmt_retlat_stats *st);
/* Value at percentile p (nearest rank). */
PMT_API double pmt_retlat_dist_pct(const struct pmt_retlat_dist *d, double p);

/* Tables of default retire latencies: perf event JSON (RetirementLatencyMean/Min/Max),
 * Intel *_retire_latency.json (Platform/Data MIN/MAX/MEAN), pmu-tools *-retlat.json
 * (COUNT/MIN/MAX/MEAN/MEDIAN/..., optional "Values" histogram {"latency": count}). */
struct pmt_retlat_entry {
	char name[128];
	double mean, min, max, median; /* NaN when the file lacks it */
	uint64_t count;
	uint32_t *values; /* optional [65536] histogram, NULL when absent */
};
struct pmt_retlat_table {
	struct pmt_retlat_entry *e;
	size_t nr, cap;
};
PMT_API int pmt_retlat_table_load(struct pmt_retlat_table *t, const char *path);
PMT_API void pmt_retlat_table_free(struct pmt_retlat_table *t);
PMT_API int pmt_retlat_table_find(const struct pmt_retlat_table *t, const char *event);
/* perf's evsel__tpebs_read rules: from samples when the event has any (mean = rint(mean)),
 * else from the table (rint(mean|min|max), last = rint(mean)). Returns 1 = from samples,
 * 0 = from table, -PMT_ENOT_FOUND = neither (*out = 0, as perf before v6.16). */
PMT_API int pmt_retlat_value(const struct pmt_retlat_samples *s, const struct pmt_retlat_table *t,
			     const char *event, enum pmt_retlat_stat stat, double pct, double *out);

/* Writers for `pmutrace calibrate`: Intel MIN/MAX/MEAN format or pmu-tools format with
 * every statistic (and "Values" when full). */
enum pmt_retlat_format { PMT_RETLAT_FMT_INTEL = 0, PMT_RETLAT_FMT_PMU_TOOLS };
PMT_API int pmt_retlat_write(const struct pmt_retlat_samples *s, enum pmt_retlat_format fmt,
			     int full, const char *path);

/* ---- metric tables ----------------------------------------------------------------------*/
struct pmt_metric {
	char *name, *expr, *groups, *scale_unit, *threshold, *constraint, *desc, *legacy_name;
	double scale;    /* from ScaleUnit: "100%" -> 100 */
	char *pmu;       /* perf JSON "Unit" (cpu_core, cpu_atom) of hybrid tables, or NULL */
	char *base_formula; /* Intel: the formula with event/metric names (for display) */
	char *unit;      /* from ScaleUnit ("%") or UnitOfMeasure */
	uint8_t intel;   /* expr/threshold use Intel aliases */
	/* Intel: alias -> name pairs for the formula and for the threshold */
	char **alias, **alias_to;
	size_t nr_alias;
	char **talias, **talias_to;
	size_t nr_talias;
};
struct pmt_metric_set {
	struct pmt_metric *m;
	size_t nr, cap;
};
/* perf pmu-events metric JSON (array) or Intel perfmon metrics JSON ({Header, Metrics});
 * detected from the content. Adds to the set. Returns the number of metrics added. */
PMT_API int pmt_metric_set_load(struct pmt_metric_set *ms, const char *path);
PMT_API int pmt_metric_set_load_mem(struct pmt_metric_set *ms, const char *json, size_t len,
				    const char *what);
PMT_API int pmt_metric_set_add(struct pmt_metric_set *ms, const char *name, const char *expr,
			       const char *scale_unit, const char *threshold);
PMT_API int pmt_metric_set_find(const struct pmt_metric_set *ms, const char *name);
PMT_API void pmt_metric_set_free(struct pmt_metric_set *ms);

/* An evaluation plan: selected metrics compiled with everything they reference (other
 * metrics, recursively, each once; cycles are errors), bound to a count set. */
enum pmt_metric_input_kind {
	PMT_MIN_COUNT = 0,   /* an event count from the counts (NaN when absent) */
	PMT_MIN_SOURCES,     /* source_count(): merged lines of the event */
	PMT_MIN_HAS_EVENT,   /* has_event(): 1 if the counts have the event */
	PMT_MIN_RETLAT,      /* an :R value, the same for every unit */
	PMT_MIN_DURATION,    /* duration_time scaled by `scale` (perf uses seconds) */
};
struct pmt_metric_input {
	char *id;            /* as written in the metric, normalised */
	uint8_t kind;
	double scale;
	int count_idx;       /* bound event column, -1 when absent */
	double value;        /* RETLAT value */
	struct pmt_event_key key;
};
struct pmt_metric_plan;
/* select: metric names or group names (a metric is in a group when MetricGroup lists it);
 * nsel 0 = every metric. err receives "metric NAME: column N: ..." on failure. */
PMT_API int pmt_metric_plan_new(const struct pmt_metric_set *ms, const char *const *select,
				size_t nsel, const struct pmt_expr_ctx *ctx,
				struct pmt_metric_plan **out, char *err, size_t errlen);
PMT_API void pmt_metric_plan_free(struct pmt_metric_plan *p);
PMT_API size_t pmt_metric_plan_nr_metrics(const struct pmt_metric_plan *p); /* selected */
PMT_API const struct pmt_metric *pmt_metric_plan_metric(const struct pmt_metric_plan *p, size_t i);
PMT_API size_t pmt_metric_plan_nr_inputs(const struct pmt_metric_plan *p);
PMT_API struct pmt_metric_input *pmt_metric_plan_input(struct pmt_metric_plan *p, size_t i);
/* Bind count inputs to the columns of c (by pmt_counts_find). */
PMT_API int pmt_metric_plan_bind(struct pmt_metric_plan *p, const struct pmt_counts *c);
/* Evaluate every selected metric for one unit: values[i] (ScaleUnit applied) and
 * thresh[i] (1 over, 0 not, -1 no threshold or NaN). Returns the number of metrics whose
 * evaluation failed ("%" by 0); their value is NaN. No allocation; the plan holds the
 * working slots, so use one plan per thread. */
PMT_API int pmt_metric_plan_eval(struct pmt_metric_plan *p, const struct pmt_counts *c,
				 size_t unit, double *values, int8_t *thresh);

/* ---- topdown: SLOTS + PERF_METRICS ---------------------------------------------------------*/
struct pmt_topdown {
	double slots;                                    /* slots of the period */
	double retiring, bad_spec, fe_bound, be_bound;   /* level 1 ratios */
	double heavy_ops, br_mispredict, fetch_lat, mem_bound;          /* level 2 */
	double light_ops, machine_clears, fetch_bw, core_bound;         /* complements */
	/* per-metric slots as the kernel computes them: slots * byte / 0xff (integer) */
	uint64_t slots_of[8];
};
/* Decode one read (prev_slots = prev_metrics = 0) or the delta between two reads, as
 * Documentation/topdown.txt: metric_slots_i = byte_i * slots, ratio = delta / slots delta;
 * L2 complements are parent - child. Returns 0, or -PMT_EINVAL when the slots delta is 0. */
PMT_API int pmt_topdown_decode(uint64_t slots, uint64_t metrics, uint64_t prev_slots,
			       uint64_t prev_metrics, struct pmt_topdown *out);

#ifdef __cplusplus
}
#endif
#endif
