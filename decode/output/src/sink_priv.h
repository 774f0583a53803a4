/* The sample writer's state: the caches that let a record's samples share formatted
 * columns. Private to decode/output. */
#ifndef PMT_OUTPUT_SINK_PRIV_H
#define PMT_OUTPUT_SINK_PRIV_H

#include "pmutrace/output.h"

#define PMT_SINK_HEAD_MAX 96 /* a multiple of 32: heads are copied in 32-byte blocks */

struct pmt_spe_sink {
	struct pmt_out *out;
	enum pmt_sink_format fmt;
	int compat;
	uint8_t show_time;
	uint8_t brstack;      /* print branch stacks (--itrace=l honoured); set after init */
	uint32_t name_width;  /* text: width of the event column */
	uint32_t fields;      /* text: -F fields, 0 = the default layout */
	struct pmt_symbols *symbols;
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
	/* CSV: the event name, JSONL: '{"event":"NAME"', per event of the trace's table at
	 * this compat level (text: the name alone) */
	unsigned nev;
	uint8_t *head_len;
	char (*head)[PMT_SINK_HEAD_MAX];
	uint32_t *ev_fields;  /* text: perf script's default fields per event of the trace */
	uint8_t lat_cols;     /* CSV/JSONL: ins_lat and retire_lat (a WEIGHT_STRUCT attr) */
	uint32_t spe_fields;  /* text: SPE's samples in these fields (0: SPE's own layout) */
	uint8_t hide_callchain; /* perf script -G */
	uint8_t no_inline;      /* perf script --no-inline */
	uint8_t callchain_col;  /* CSV/JSONL: the trace's events record call chains (not -G) */
	/* -F tod: the trace's HEADER_CLOCK_DATA, and the last second's text */
	uint8_t has_clock;
	uint64_t clock_tod_ns, clock_ref_ns;
	int64_t tod_sec;
	char tod_text[32];
	uint8_t insn_native;  /* -F insnlen: perf would decode the instruction */
	struct sink_srccode *srccode; /* -F srccode: source files and per-thread state */
	uint8_t *bb_buf;      /* -F brstackinsn: a basic block's code (perf's MAXBB bytes) */
};

/* callchain_text.c: a sample's srcline as perf script prints it after the dso ("\n  FILE:LINE",
 * or perf's "\n  DSO[ADDR]" without a line), "" when there is no map or when perf at
 * compat leaves it out; its length */
int sink_srcline_text(struct pmt_symbols *syms, const struct pmt_sym_loc *loc, char *buf,
		      size_t cap, int compat);
/* The functions inlined at a chain entry's address, innermost first and the symbol's
 * own function last (pmt_symbols_inlines()), as perf adds them to a chain: none with
 * --no-inline or without a symbol; at perf 6.1 only for a frame of an unwound user
 * stack (unwound). Returns how many. */
#define SINK_INLINE_MAX 64
int sink_chain_inlines(struct pmt_spe_sink *k, const struct pmt_sym_loc *loc,
		       struct pmt_inline_frame *fr, bool unwound);
/* s's call chain as perf script's lines under the sample's line, the fields f of each */
void sink_callchain_text(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, uint32_t f);
/* callchain_rows.c: s's call chain written over the end of the row just written ("\n"
 * after the empty CSV column, "}\n" in JSON), which is then no tail to copy */
void sink_callchain_row_end(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, int json);
/* sink_rows.c: s as a CSV (json 0) or JSON-lines row into k->out */
void sink_write_row(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, int json);

/* -F brstack, brstacksym or brstackoff (one of them, in that priority, as perf prints
 * one), each entry's addresses followed by their file with -F dso, into k->out */
void sink_brstack_fields(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, uint32_t f);

/* -F misc and tod (sink_start.c), at p (tod: up to 64 bytes); return the end */
char *sink_put_misc(char *p, uint16_t misc);
char *sink_put_tod(struct pmt_spe_sink *k, char *p, uint64_t t);
/* -F srccode (sink_srccode.c): the sample's source line after its line, as perf */
struct sink_srccode;
void sink_srccode(struct pmt_spe_sink *k, const struct pmt_spe_sample *s,
		  const struct pmt_sym_loc *loc);
void sink_srccode_free(struct sink_srccode *c);
/* -F insnlen (sink_insn.c): the length of the instruction at s's ip (loc: its resolved
 * map), its bytes in bytes, 0 where perf prints 0 */
bool sink_insn_native(const struct pmt_trace_meta *m);
/* the length of the instruction at b by the decoder its file's ELF machine needs (under
 * --perf-compat perf's x86 decoder, whatever the machine, as perf on x86); 0: not
 * decoded (*no_decoder: there is none for the machine); whole: a refused prefix measures
 * the bytes given, as insnlen does */
unsigned sink_insn_measure(const struct pmt_spe_sink *k, int machine, bool is64,
			   const uint8_t *b, size_t n, bool whole, bool *no_decoder);
/* -F brstackinsn, brstackinsnlen: the branch stack's basic blocks, after the sample's
 * insnlen and insn */
void sink_brstackinsn(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, uint32_t f);
uint32_t sink_insn_len(struct pmt_spe_sink *k, const struct pmt_spe_sample *s,
		       const struct pmt_sym_loc *loc, uint8_t bytes[16]);

#endif
