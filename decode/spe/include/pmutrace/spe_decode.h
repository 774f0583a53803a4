/* pmutrace decode/spe: SPE packets -> records -> perf's synthetic samples, per-CPU queues,
 * --itrace options, data-source tables and the perf compatibility model. */
#ifndef PMUTRACE_SPE_DECODE_H
#define PMUTRACE_SPE_DECODE_H

#include "pmutrace/spe.h"
#include "pmutrace/perfdata.h"

#ifdef __cplusplus
extern "C" {
#endif

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
/* A record's EVENTS bits are its last EVENTS packet's payload (arm_spe_read_record()
 * assigns record.type where 6.1 ORed bits in), and its op bits are those of all its
 * OP_TYPE packets ORed (record.op |=): perf 7.3 shows both on records with two such
 * packets (diff.spe_random_bytes), 6.1 does neither. 6.16 is when record.type became the
 * raw EV_* bits and op a bit mask (reference/arm-spe.md); that these two rules came with
 * that change is not verified on a perf between 6.1 and 7.3. */
#define PMT_PERF_6_16 616
/* James Clark's "perf arm-spe: Show instruction sample types by default", "Downsample all
 * sample types equally", "Display --itrace period warnings for all sample types": listed
 * in Arnaldo's "[GIT PULL] perf tools changes for v6.18" (tag
 * perf-tools-for-v6.18-1-2025-10-08, Message-ID 20251008202804.852200-1-acme@kernel.org). */
#define PMT_PERF_6_18 618
/* HiSilicon HIP12 data-source table: in the newest tree (arm-spe.c at 08dbfad3), absent from
 * the v6.18 pull above, so not before 6.19 (the exact release is not verified). */
#define PMT_PERF_6_19 619

/* Leo Yan's "SPE v1.3" series ("Synthesize memory samples for SIMD operations", merged for
 * 6.19; checked against perf 7.3.4): SIMD, SVE, SME and ASE operations are memory operations
 * too (memory sample, data source with mem_op NA when neither load nor store). perf tests
 * the op bits without the OP_TYPE class, and a branch's call/return hint bits share those
 * positions (BR_CR_BL = SIMD_FP, BR_CR_RET = SVE), so perf also makes memory samples for
 * call/return branches: reproduced at every explicit compat level from 6.19 on (7.3 does
 * it), dropped by the default (newest) model. */
/* Is this record a memory operation for perf at this compat level? */
PMT_API bool pmt_spe_is_mem_op(uint32_t op, int compat);

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
	PMT_SPE_OP_F_SME = 1u << 17, /* OTHER class only: perf sets it for SME-OTHER */
	PMT_SPE_OP_F_ASE = 1u << 18, /* OTHER class only: Advanced SIMD */
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

/* Pull decoder packets -> records: an opaque handle (its state: the packet iterator, the
 * record being assembled, the record layouts it has learnt). A record may continue across
 * pmt_spe_rec_feed() calls (consecutive AUX chunks of one CPU). */
struct pmt_spe_rec_decoder;
struct pmt_spe_rec_opts {
	size_t sz;             /* sizeof(struct pmt_spe_rec_opts) */
	uint8_t emit_partial;  /* return records cut by bad bytes (perf's behaviour) */
	uint8_t reference;     /* decode through the generic packet iterator only: the slow
				* reference the fused path is tested against */
	uint8_t events_last;   /* a record's last EVENTS packet replaces the earlier ones
				* (perf >= 6.16) instead of ORing with them (perf 6.1) */
	uint8_t op_or;         /* the op bits of all OP_TYPE packets of a record are ORed
				* (perf >= 6.16); else the last packet's */
};
/* A decoder with nothing fed yet (opts may be NULL: the defaults, all 0). Returns 0,
 * -PMT_EINVAL or -PMT_ENOMEM. */
PMT_API int pmt_spe_rec_new(const struct pmt_spe_rec_opts *opts,
			    struct pmt_spe_rec_decoder **out);
PMT_API void pmt_spe_rec_free(struct pmt_spe_rec_decoder *d);
/* Continue with the next buffer; the record in progress is kept. */
PMT_API void pmt_spe_rec_feed(struct pmt_spe_rec_decoder *d, const uint8_t *buf, size_t len,
			      uint64_t base);
/* Next record. Returns 1 with *rec filled, or -PMT_EEOS when the buffer is used up (an
 * unterminated record stays pending for the next feed). Bad bytes are skipped one by one
 * as perf does and counted in the statistics; never returns another error. */
PMT_API int pmt_spe_rec_next(struct pmt_spe_rec_decoder *d, struct pmt_spe_record *rec);
/* The damage seen so far (and the records returned). */
PMT_API const struct pmt_spe_rec_stats *pmt_spe_rec_stats(const struct pmt_spe_rec_decoder *d);
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

/* ---- --itrace options: pmutrace/itrace.h -------------------------------------------------*/
#include "pmutrace/itrace.h"

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

/* A trace's event table: SPE's synthetic kinds (enum pmt_spe_event) first, then one entry
 * per attr of the trace, whose PERF_RECORD_SAMPLEs are samples of that event. */
#define PMT_EV_ATTR(i) (PMT_SPE_SE_COUNT + (i))
/* Events of a trace: PMT_SPE_SE_COUNT + m->nr_attrs (m may be NULL: SPE's only). */
PMT_API unsigned pmt_trace_nr_events(const struct pmt_trace_meta *m);
/* The event's name as perf prints it at a compat level: SPE's synthetic names, an attr's
 * name from EVENT_DESC, else perf's text for an unnamed attr ("unknown attr type: N"
 * before 7.x, "unknown event PMU=N config=0xC" in 7.3). Returns the length. */
PMT_API int pmt_trace_event_name(const struct pmt_trace_meta *m, unsigned ev, int compat,
				 char *buf, size_t cap);
/* Has the trace sampling events of its own (not SPE's event, which samples nothing itself,
 * nor perf's dummy)? perf script then prints SPE's synthetic samples in the default
 * layout of its other events too (comm, tid, cpu, time, period, event, ip, sym, dso). */
PMT_API bool pmt_trace_has_own_samples(const struct pmt_trace_meta *m);
/* The attr of an event of the table, NULL for SPE's synthetic ones. */
PMT_API const struct pmt_trace_attr *pmt_trace_event_attr(const struct pmt_trace_meta *m,
							  unsigned ev);

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

/* A sample of any kind: SPE's synthetic ones and a trace's own PERF_RECORD_SAMPLEs
 * (event PMT_EV_ATTR(attr index); rec and brstack NULL; fields the attr does not sample
 * are 0, pid/tid -1, cpu UINT32_MAX (perf's -1), period the attr's sample_period). */
/* A sample's PERF_SAMPLE_CALLCHAIN in host byte order, PERF_CONTEXT_* markers included. */
struct pmt_callchain {
	uint64_t nr;
	uint64_t ips[];
};

struct pmt_spe_sample {
	uint32_t event;   /* enum pmt_spe_event, or PMT_EV_ATTR(i) */
	uint32_t cpu;
	int32_t pid, tid;
	uint32_t flags;   /* PMT_IP_FLAG_* */
	uint32_t op;      /* record op bits */
	uint64_t time, ip, addr, phys_addr, period, weight, data_src;
	uint16_t issue_lat, xlat_lat;
	/* PERF_SAMPLE_WEIGHT_STRUCT's var2_w and var3_w: instruction latency and (Intel
	 * TPEBS) retire latency, as perf's sample->ins_lat and sample->retire_lat */
	uint16_t ins_lat, retire_lat;
	/* the record's header.misc (cpumode bits) for a trace's own samples, as perf's
	 * sample->misc; 0 for SPE's synthesized samples, which perf leaves without one */
	uint16_t misc;
	/* callchain's user part came from unwinding the sample's stack copy (--call-graph
	 * dwarf), where perf adds the inlined calls as its unwind_entry() does */
	uint8_t user_unwound;
	const struct pmt_spe_record *rec; /* valid until the next record */
	/* branch stack (NULL: none, as perf's NULL sample.branch_stack); a fixed array in
	 * the queue, valid until the next record: samples are copied per event, the array
	 * is not */
	const struct pmt_spe_brstack *brstack;
	/* a trace's own sample's callchain (NULL: the event records none), valid during the
	 * callback */
	const struct pmt_callchain *callchain;
};

/* Per-CPU (or per-thread) decode queue with perf's per-queue state. Caller-owned:
 * pmt_spe_queue_init() / pmt_spe_queue_fini(). */
struct pmt_spe_queue {
	struct pmt_spe_rec_decoder *dec; /* owned */
	uint32_t cpu;
	int32_t pid, tid;
	uint64_t midr;
	uint64_t event_filter; /* the CPU's caps/event_filter from the trace, 0 when unknown */
	uint64_t insn_count;  /* perf's period_instructions, from 6.18 its sample_count */
	uint8_t started;      /* first record seen (timeless artefact done) */
	struct pmt_spe_brstack brstack; /* perf's speq->last_branch */
};

/* Which process each thread belongs to, learned from COMM, FORK and MMAP records as perf's
 * machine does (SPE data and AUXTRACE chunks name threads only). Opaque; new/free. */
struct pmt_spe_threads;
PMT_API int pmt_spe_threads_new(struct pmt_spe_threads **out);
/* Learns from one record (others are ignored): 0, or -PMT_ENOMEM. */
PMT_API int pmt_spe_threads_note(struct pmt_spe_threads *t, const struct pmt_trace_event *ev);
/* the thread's pid, or -1 when no record named the thread */
PMT_API int32_t pmt_spe_threads_pid(const struct pmt_spe_threads *t, int32_t tid);
PMT_API void pmt_spe_threads_free(struct pmt_spe_threads *t);
struct pmt_spe_sampler {
	struct pmt_itrace itrace;
	const struct pmt_spe_threads *threads; /* pid of a CONTEXT packet's thread; NULL: -1 */
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
/* The sample kinds (bit per enum pmt_spe_event) that itrace options make at a compat level,
 * and whether branch stacks are attached (brstack may be NULL). */
PMT_API uint32_t pmt_spe_itrace_events(const struct pmt_itrace *it, int compat, bool *brstack);
/* Returns 0 or -PMT_ENOMEM (then q needs no fini). */
PMT_API int pmt_spe_queue_init(struct pmt_spe_queue *q, uint32_t cpu, int32_t pid,
			       int32_t tid, uint64_t midr, int compat);
PMT_API void pmt_spe_queue_fini(struct pmt_spe_queue *q);
/* Samples of one record, in perf's order, into out[PMT_SPE_MAX_SAMPLES_PER_RECORD].
 * Returns the count (0..PMT_SPE_MAX_SAMPLES_PER_RECORD). Updates the queue's tid from a
 * CONTEXT packet when decoding is not timeless, as perf does. */
PMT_API int pmt_spe_sampler_run(struct pmt_spe_sampler *s, struct pmt_spe_queue *q,
				const struct pmt_spe_record *rec, struct pmt_spe_sample *out);
/* A record's samples in brief, for a consumer that reads nothing else of them (report's
 * table by symbol or DSO): which samples pmt_spe_sampler_run() makes of the record and what
 * they share, without writing each one out (120 bytes a sample, most of them unread). */
struct pmt_spe_brief {
	uint32_t events;      /* bit per enum pmt_spe_event: a sample; their order is perf's */
	uint32_t n;           /* the samples: bits set in events */
	uint32_t cpu;
	int32_t pid, tid;
	uint64_t time, ip;
	uint64_t weight;      /* every sample's */
	uint64_t period;      /* every sample's but the instructions sample's */
	uint64_t insn_period; /* the instructions sample's */
	const struct pmt_spe_record *rec;
};
/* pmt_spe_sampler_run() in brief: the same samples (and the same state after), described
 * in *out; returns their count. */
PMT_API int pmt_spe_sampler_brief(struct pmt_spe_sampler *s, struct pmt_spe_queue *q,
				  const struct pmt_spe_record *rec, struct pmt_spe_brief *out);

/* ---- sample filters (perf's --cpu, --pid, --tid, --time): pmutrace/sample_filter.h ---- */
#include "pmutrace/sample_filter.h"

/* ---- driving a whole trace --------------------------------------------------------------*/
/* Options for decoding a trace source or a raw buffer into samples. */
struct pmt_spe_run_opts {
	size_t sz;           /* sizeof(struct pmt_spe_run_opts) */
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
	/* optional: every record that is not AUX data (MMAP, COMM, ...), in file order and
	 * before the samples that follow it in the file; < 0 stops */
	int (*event_fn)(const struct pmt_trace_event *ev, void *ctx);
	void *event_ctx;
	/* optional: the user frames of a trace's own sample that carries the user registers
	 * and stack (perf record --call-graph dwarf), called while its record is read (after
	 * event_fn saw it): at most max addresses into ips, the pc first; returns how many or
	 * < 0 to stop. They follow the sample's kernel chain after a PERF_CONTEXT_USER mark,
	 * as perf appends its unwinder's frames */
	int (*unwind_fn)(const struct pmt_sample *smp, uint64_t *ips, unsigned max, void *ctx);
	void *unwind_ctx;
	/* threads that decode the AUX queues' packets into records while this thread merges
	 * them (0: none); the samples and their order are the same for every value */
	uint32_t decode_threads;
	/* optional: the address of a CPU's next record, decoded before the samples of its
	 * current one go to fn or record_fn (with fn's ctx): a hint to start loading what
	 * they will need, which then arrives while the current record is counted (report's
	 * address cache: the lookup was a cache miss per record). Per-CPU queues merged by
	 * time only. */
	void (*prefetch_fn)(uint64_t ip, void *ctx);
	/* on a trace that is not timeless (with or without decode_threads): SPE's samples
	 * are made and given to fn or record_fn on a thread of their own (one call at a time, in the
	 * order of the other threads' calls; the trace's own samples come in between from
	 * the calling thread, after that thread is idle): fn and record_fn must not read
	 * what event_fn changes. The samples and their order are the same */
	uint8_t sample_thread;
	/* optional, with record_fn: SPE's records in brief (pmt_spe_sampler_brief()), for a
	 * consumer of the few fields the samples share; the trace's own samples still go to
	 * record_fn. Not with sample_thread (record_fn gets them there). < 0 stops */
	int (*brief_fn)(const struct pmt_spe_brief *b, void *ctx);
	/* optional, with sample_thread and both set: SPE's samples go on in blocks (those of
	 * up to a few thousand records) instead of to record_fn, so that the work done with
	 * them can be shared: block_rows_fn(slot, s, n, ctx) runs on whichever of the sampler's
	 * thread and the calling one is free (the latter when it would wait for the former),
	 * never twice at once for one slot, either once with the block's samples or (on the
	 * sampler's thread, as they are made) several times with its consecutive parts, in
	 * order (those samples are not kept); block_out_fn(slot, s, n, ctx) then runs for each
	 * block in order, one at a time, on either thread, with its first sample (valid until
	 * it returns; NULL when n is 0) and its count n; slot < PMT_SPE_BLOCK_SLOTS is reused
	 * after it. The trace's own samples still go to record_fn, after every block before
	 * them is out. < 0 stops */
	int (*block_rows_fn)(unsigned slot, const struct pmt_spe_sample *s, size_t n, void *ctx);
	int (*block_out_fn)(unsigned slot, const struct pmt_spe_sample *s, size_t n, void *ctx);
};
#define PMT_SPE_BLOCK_SLOTS 8
typedef int (*pmt_spe_sample_fn)(const struct pmt_spe_sample *s, void *ctx);
/* Decode every AUXTRACE chunk of src (per-CPU queues) or one raw buffer and call fn for
 * each sample; fn returning < 0 stops. stats receives the summed damage. The trace's own
 * PERF_RECORD_SAMPLEs come too (record_fn gets them one at a time), merged with SPE's
 * samples in time order as perf orders them (file order among equal times). */
PMT_API int pmt_spe_run_source(struct pmt_source *src, const struct pmt_spe_run_opts *o,
			       pmt_spe_sample_fn fn, void *ctx, struct pmt_spe_rec_stats *stats,
			       uint32_t *enabled);
/* Does pmt_spe_run_source() call fn and record_fn on a thread of its own (o's
 * sample_thread) for a trace of meta m? */
PMT_API bool pmt_spe_run_sample_thread(const struct pmt_trace_meta *m,
				       const struct pmt_spe_run_opts *o);
PMT_API int pmt_spe_run_raw(const uint8_t *buf, size_t len, const struct pmt_spe_run_opts *o,
			    pmt_spe_sample_fn fn, void *ctx, struct pmt_spe_rec_stats *stats,
			    uint32_t *enabled);

#ifdef __cplusplus
}
#endif
#endif
