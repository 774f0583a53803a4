/* pmutrace decode/output: sample writers (perf-style text, CSV, JSONL) and reports over
 * decoded samples. */
#ifndef PMUTRACE_OUTPUT_H
#define PMUTRACE_OUTPUT_H

#include "pmutrace/spe_decode.h"
#include "pmutrace/symbols.h"

#ifdef __cplusplus
extern "C" {
#endif
/* ---- sinks ------------------------------------------------------------------------------*/
enum pmt_sink_format { PMT_SINK_TEXT = 0, PMT_SINK_CSV, PMT_SINK_JSONL };
/* A sample writer: perf-style text, CSV or JSONL rows through a pmt_out. One per output;
 * it caches what consecutive samples share (a record's samples differ in a few columns). */
/* perf script -F fields of the text output (perf prints them in this order, whatever order
 * -F names them in) */
enum {
	PMT_FIELD_PID = 1u << 0, PMT_FIELD_TID = 1u << 1, PMT_FIELD_CPU = 1u << 2,
	PMT_FIELD_TIME = 1u << 3, PMT_FIELD_PERIOD = 1u << 4, PMT_FIELD_EVENT = 1u << 5,
	PMT_FIELD_ADDR = 1u << 6, PMT_FIELD_DATA_SRC = 1u << 7, PMT_FIELD_WEIGHT = 1u << 8,
	PMT_FIELD_IP = 1u << 9, PMT_FIELD_PHYS_ADDR = 1u << 10, PMT_FIELD_BRSTACK = 1u << 11,
	PMT_FIELD_COMM = 1u << 12, PMT_FIELD_SYM = 1u << 13, PMT_FIELD_SYMOFF = 1u << 14,
	PMT_FIELD_DSO = 1u << 15, PMT_FIELD_SRCLINE = 1u << 16,
	PMT_FIELD_INS_LAT = 1u << 17, PMT_FIELD_RETIRE_LAT = 1u << 18,
	PMT_FIELD_MISC = 1u << 19, PMT_FIELD_FLAGS = 1u << 20, PMT_FIELD_INSNLEN = 1u << 21,
	PMT_FIELD_TOD = 1u << 22, PMT_FIELD_DSOFF = 1u << 23,
	PMT_FIELD_BRSTACKSYM = 1u << 24, PMT_FIELD_BRSTACKOFF = 1u << 25,
	PMT_FIELD_SRCCODE = 1u << 26, PMT_FIELD_BRSTACKINSN = 1u << 27,
	PMT_FIELD_BRSTACKINSNLEN = 1u << 28, PMT_FIELD_INSN = 1u << 29,
};
/* the fields that need the trace's address spaces (a pmt_symbols in the sink options) */
#define PMT_FIELDS_SYMBOLS (PMT_FIELD_COMM | PMT_FIELD_SYM | PMT_FIELD_SYMOFF | PMT_FIELD_DSO | \
			    PMT_FIELD_SRCLINE | PMT_FIELD_BRSTACKSYM | PMT_FIELD_BRSTACKOFF | \
			    PMT_FIELD_INSNLEN | PMT_FIELD_SRCCODE | PMT_FIELD_BRSTACKINSN | \
			    PMT_FIELD_BRSTACKINSNLEN | PMT_FIELD_INSN)
/* "tid,time,ip" (perf's names) into PMT_FIELD_* bits. Returns 0, or -PMT_EPARSE with diag
 * naming the field and the ones there are (fields not done yet, such as srcline, are named
 * as such). */
PMT_API int pmt_spe_fields_parse(const char *list, uint32_t *fields, struct pmt_diag *diag);
/* perf script's refusal of -F fields an event of the trace does not sample (its own
 * events; perf's dummy is exempt, and with an AUX index addr, data_src, weight, cpu and
 * phys_addr are allowed, as perf allows them for synthesized samples). Returns 0, or
 * -PMT_EINVAL with diag saying, as perf, "Samples for 'EV' event do not have X attribute
 * set. Cannot print 'x' field." */
PMT_API int pmt_spe_fields_check(const struct pmt_trace_meta *m, uint32_t fields,
				 struct pmt_diag *diag);

/* The length of the x86 instruction at b (n bytes; 64-bit or 32-bit mode) as perf on x86
 * measures it, with the kernel's decoder (script -F insnlen, insn and brstackinsn, whatever
 * the file's arch): > 0; 0 where perf prints "<bad>"; PMT_X86_INSN_REFUSED for a VEX,
 * EVEX or XOP prefix that decoder refuses ("<bad>" in brstackinsn, but insnlen takes the
 * whole buffer, 15 bytes). */
#define PMT_X86_INSN_REFUSED (-1)
PMT_API int pmt_x86_insn_len(const uint8_t *b, size_t n, bool is64);

/* perf 7.3's text of a sample's flags (PMT_IP_FLAG_*), as -F flags prints it: "jcc",
 * "jcc/miss,not_taken/", "return/miss/"; "" for no branch. Returns the length. */
#define PMT_SAMPLE_FLAGS_MAX 48
PMT_API size_t pmt_sample_flags_str(uint32_t flags, char *out, size_t cap);

struct pmt_spe_sink_opts {
	size_t sz;            /* sizeof(struct pmt_spe_sink_opts) */
	enum pmt_sink_format fmt;
	int compat;           /* perf compatibility level (PMT_PERF_*) */
	bool show_time;       /* time column (text: perf's "time:" field) */
	bool brstack;         /* branch stack column (--itrace=l honoured) */
	uint32_t name_width;  /* text: width of the event column; 0 = perf's default 20 */
	uint32_t fields;      /* text: PMT_FIELD_* as perf script -F; 0 = perf's default set */
	struct pmt_symbols *symbols; /* comm, sym, symoff, dso (needed for those fields) */
	/* the trace: names and default fields of its own events (PMT_EV_ATTR); NULL: SPE's
	 * synthetic events only */
	const struct pmt_trace_meta *meta;
	bool hide_callchain;  /* text: perf script -G, samples without their call chains */
	/* perf script --no-inline: a chain's entries without the functions inlined at their
	 * addresses (text lines, CSV/JSON frames); perf 7.3 shows them by default */
	bool no_inline;
};
struct pmt_spe_sink;
PMT_API int pmt_spe_sink_new(struct pmt_out *out, const struct pmt_spe_sink_opts *opts,
			     struct pmt_spe_sink **sink);
PMT_API void pmt_spe_sink_free(struct pmt_spe_sink *k); /* NULL is a no-op */
PMT_API void pmt_spe_sink_header(struct pmt_spe_sink *k); /* CSV header row (+ brstack) */
PMT_API void pmt_spe_sink_write(struct pmt_spe_sink *k, const struct pmt_spe_sample *s);

/* A sink's CSV or JSONL rows made a block of samples at a time on any thread (those of
 * different slots at once), then written to the sink's output in block order: the same
 * bytes as pmt_spe_sink_write() of each sample in that order. -PMT_EUNSUPPORTED for text rows
 * and rows with a call chain column; the sink must outlive it and not change meanwhile. */
struct pmt_sink_blocks;
PMT_API int pmt_sink_blocks_new(struct pmt_spe_sink *k, unsigned nslots,
				struct pmt_sink_blocks **out);
PMT_API void pmt_sink_blocks_free(struct pmt_sink_blocks *b); /* NULL is a no-op */
/* The rows of n samples after those the slot holds (a block's samples may come in parts,
 * in order; the slot is empty again after pmt_sink_blocks_out()): 0, -PMT_EINVAL */
PMT_API int pmt_sink_blocks_rows(struct pmt_sink_blocks *b, unsigned slot,
				 const struct pmt_spe_sample *s, size_t n);
/* The sink's pending output, then the slot's rows, to the sink's file (errors stay in the
 * sink's pmt_out, as its own writes' do): 0, -PMT_EINVAL */
PMT_API int pmt_sink_blocks_out(struct pmt_sink_blocks *b, unsigned slot);

/* ---- a writer on its own thread ---------------------------------------------------------*/
/* Samples handed to fn on a thread of its own, in the order put, while the caller decodes
 * the next ones (script/report -j). Each put copies the samples with their record and
 * branch stack, which a decoder reuses; memory stays at a few batches of 4096 samples (put
 * waits for the writer when they are full). fn must not share state with the caller's
 * thread (a sink with symbols does: the decoder adds to them). */
struct pmt_sample_pipe;
PMT_API int pmt_sample_pipe_new(pmt_spe_sample_fn fn, void *ctx, struct pmt_sample_pipe **out);
/* n samples (1..4096, e.g. one record's). Returns 0, or fn's first negative value (later
 * samples are not written), -PMT_EINVAL. */
PMT_API int pmt_sample_pipe_put(struct pmt_sample_pipe *p, const struct pmt_spe_sample *s,
				int n);
/* Writes what was put, ends the thread, and returns 0 or fn's first negative value. */
PMT_API int pmt_sample_pipe_free(struct pmt_sample_pipe *p);

/* ---- report ----------------------------------------------------------------------------*/
struct pmt_spe_report;
PMT_API int pmt_spe_report_new(struct pmt_spe_report **out);
PMT_API void pmt_spe_report_free(struct pmt_spe_report *r);
PMT_API int pmt_spe_report_add(struct pmt_spe_report *r, const struct pmt_spe_sample *s);
/* "Available samples" counts and the top `top` ips per event group. */
PMT_API void pmt_spe_report_print(struct pmt_spe_report *r, struct pmt_out *out, int json,
				  unsigned top, int compat, const uint32_t enabled);

/* ---- annotate ---------------------------------------------------------------------------*/
/* Hot functions disassembled (capstone; AArch64 and x86-64 chosen from the ELF) with each
 * instruction's samples of one event, its SPE latencies (total, issue, translation) and the
 * source lines interleaved. syms must outlive it. */
struct pmt_annotate_opts {
	size_t sz;            /* sizeof(struct pmt_annotate_opts) */
	const char *symbol;   /* only this function (NULL: the hottest) */
	const char *event;    /* the event counted (NULL: instructions, else the most sampled) */
	unsigned top;         /* how many functions without a symbol (0: 5) */
	const struct pmt_trace_meta *meta; /* names of the trace's own events (may be NULL) */
};
struct pmt_annotate;
PMT_API int pmt_annotate_new(struct pmt_symbols *syms, const struct pmt_annotate_opts *o,
			     struct pmt_annotate **out);
PMT_API void pmt_annotate_free(struct pmt_annotate *a); /* NULL is a no-op */
PMT_API int pmt_annotate_add(struct pmt_annotate *a, const struct pmt_spe_sample *s);
/* 0, or -PMT_ENOT_FOUND (diag says: no such event, no samples in a symbol),
 * -PMT_EUNSUPPORTED (capstone lacks an architecture), -PMT_ENOMEM */
PMT_API int pmt_annotate_print(struct pmt_annotate *a, struct pmt_out *out, int compat,
			       struct pmt_diag *diag);

/* ---- perf report --sort ----------------------------------------------------------------*/
/* Samples counted per synthetic event and per sort-key tuple, printed as perf report
 * --stdio prints them. Keys (perf's names): sym, dso, comm, cpu. syms must outlive it. */
struct pmt_hist;
PMT_API int pmt_hist_new(const char *sort_keys, struct pmt_symbols *syms,
			 struct pmt_hist **out, struct pmt_diag *diag);
PMT_API void pmt_hist_free(struct pmt_hist *h); /* NULL is a no-op */
/* The perf version whose data-source texts to print (mem, snoop, tlb keys), and with mem
 * set perf mem report's layout: overhead of the samples' weight (SPE: total latency), a
 * Samples column, "Total weight" and "Sort order" lines. Call before adding samples. */
PMT_API int pmt_hist_set_mode(struct pmt_hist *h, int compat, bool mem);
/* The --time the samples were selected with, named in each event's header as perf names
 * it; the string is kept, not copied (NULL: none). */
PMT_API void pmt_hist_set_time_slices(struct pmt_hist *h, const char *spec);
/* The trace whose own events (PMT_EV_ATTR) are counted: their names, as perf's evlist
 * order puts them before SPE's synthetic events. Call before printing. */
PMT_API int pmt_hist_set_trace(struct pmt_hist *h, const struct pmt_trace_meta *m);
/* Call graphs of samples with call chains (perf report's --children, -g and -G): with a
 * trace whose events record chains, each function a chain passes through gets an entry,
 * with its Children (its own samples and those of its callees) beside Self, and the chain
 * tree below each entry as perf report --stdio prints it. Call after pmt_hist_set_trace()
 * and pmt_hist_set_mode(), before adding samples. */
struct pmt_hist_callgraph_opts {
	size_t sz;            /* sizeof(struct pmt_hist_callgraph_opts) */
	const char *spec;     /* -g's argument (perf's graph,0.5,caller,function,percent or its
			       * parts; "none": no graph); NULL: perf's default */
	int children;         /* 1: --children, 0: --no-children, -1: perf's default (on for a
			       * perf.data file, off for a pipe, as perf decides at setup) */
	bool inverted;        /* -G: the caller-based graph */
	bool max_stack_given; /* --max-stack given (else perf's default, 127) */
	uint32_t max_stack;   /* --max-stack: the chain entries taken (the callers' end with
			       * the caller order, as perf) */
	bool no_inline;       /* --no-inline: no frames of the functions inlined at a chain's
			       * addresses (their entries neither), each address's own source
			       * line for the srcline key; perf 7.3's default shows them */
};
PMT_API int pmt_hist_set_callgraph(struct pmt_hist *h, const struct pmt_hist_callgraph_opts *o,
				   struct pmt_diag *diag);
/* --percent-limit: entries whose share (Children's with them) is below pcnt percent are
 * not printed, and it is the call graphs' threshold too unless -g gave one after it
 * (after_g: the option came after -g). Call after pmt_hist_set_callgraph(). */
PMT_API void pmt_hist_set_percent_limit(struct pmt_hist *h, float pcnt, bool after_g);
/* -g's argument checked as perf report checks it while reading its options, before any
 * file: -PMT_EPARSE for what perf refuses, -PMT_EUNSUPPORTED for what perf takes and
 * pmutrace does not do yet, the word named in diag */
PMT_API int pmt_hist_callgraph_check(const char *spec, struct pmt_diag *diag);
PMT_API int pmt_hist_add(struct pmt_hist *h, const struct pmt_spe_sample *s);
/* the n samples of one record (a pmt_spe_run_opts record_fn's), as pmt_hist_add of each:
 * one call per record on report's hot path */
PMT_API int pmt_hist_add_record(struct pmt_hist *h, const struct pmt_spe_sample *s, int n);
/* Whether h can take records in brief (pmt_hist_add_brief()): not when its keys or options
 * read more of a sample (mem, snoop and tlb keys, call graphs, --comms/--dsos/--symbols). */
PMT_API bool pmt_hist_takes_brief(const struct pmt_hist *h);
/* a record's samples in brief (pmt_spe_run_opts' brief_fn), as pmt_hist_add_record of them */
PMT_API int pmt_hist_add_brief(struct pmt_hist *h, const struct pmt_spe_brief *b);
/* a hint: a record at ip follows (pmt_spe_run_opts' prefetch_fn) */
PMT_API void pmt_hist_prefetch(const struct pmt_hist *h, uint64_t ip);
/* a sample of a thread --pid/--tid leave out: counted in the event's totals only, as
 * perf's filtered hist entries are */
PMT_API int pmt_hist_add_hidden(struct pmt_hist *h, const struct pmt_spe_sample *s);
/* perf report's --comms, --dsos, --symbols (comma-separated names; NULL: no such list): a
 * sample whose thread's command, own file (short or long name) or own symbol (name, or
 * its start as 0xADDR) is in no given list counts as pmt_hist_add_hidden's do, its
 * callers' entries too. The lists are copied. Call before adding samples. */
struct pmt_hist_filter_opts {
	size_t sz;            /* sizeof(struct pmt_hist_filter_opts) */
	const char *comms, *dsos, *symbols;
};
PMT_API int pmt_hist_set_filter(struct pmt_hist *h, const struct pmt_hist_filter_opts *o);
/* --percentage: relative makes the header's counts and the entries' percentages (and
 * the call graphs' threshold) those of the entries shown, absolute (perf's default)
 * those of the whole file */
PMT_API void pmt_hist_set_relative(struct pmt_hist *h, bool relative);
PMT_API int pmt_hist_print(struct pmt_hist *h, struct pmt_out *out, int compat,
			   uint64_t lost_samples);
/* The same entries, in the same order, as one JSON document ({"lost_samples", "events":
 * [{"event", "samples", "period", "entries": [{"overhead", "period", "samples", and each
 * key's value}]}]}) or as CSV (a header row: event, overhead, period, samples, the keys). */
PMT_API int pmt_hist_print_as(struct pmt_hist *h, struct pmt_out *out, int compat,
			      uint64_t lost_samples, enum pmt_sink_format fmt);

/* ---- report --c2c (perf c2c report) ---------------------------------------------------*/
/* Cache lines that several CPUs and threads touch: SPE's memory samples classified by
 * their data source as perf's c2c does (HITM, peer snoops, local and remote hits, DRAM),
 * summed per 64-byte line, the shared ones listed as perf c2c report --stdio lists them
 * (its Trace Event Information, Global Shared Cache Line Event Information, c2c details
 * and Shared Data Cache Line Table). */
enum { PMT_C2C_DISPLAY_TOT = 0, PMT_C2C_DISPLAY_LCL, PMT_C2C_DISPLAY_RMT,
       PMT_C2C_DISPLAY_PEER };
struct pmt_c2c_opts {
	size_t sz;            /* sizeof(struct pmt_c2c_opts) */
	int compat;           /* perf compatibility level (PMT_PERF_*): event names */
	const struct pmt_trace_meta *meta; /* the trace's events and arch (may be NULL) */
	int display;          /* PMT_C2C_DISPLAY_*, what lines are sorted on; -1: perf's
			       * default, peer on arm64 (by the trace's arch) and tot elsewhere */
	unsigned flags;       /* PMT_C2C_* below, perf c2c report's options of those names */
	const char *coalesce; /* -c: what a line's offsets are told apart by, a comma list of
			       * tid, pid, iaddr, dso (checked by pmt_c2c_coalesce_check);
			       * NULL: perf's default, iaddr */
	int node_info;        /* -N given 0, 1 (cpus and shares per node) or 2 times (CPU lists) */
};
enum {
	PMT_C2C_STATS_ONLY = 1u << 0,   /* --stats: the statistics, no tables */
	PMT_C2C_SHOW_ALL = 1u << 1,     /* --show-all: every line, not only >= 0.1% */
	PMT_C2C_FULL_SYMBOLS = 1u << 2, /* --full-symbols: symbols and lines not cut at 30 */
	PMT_C2C_NO_SOURCE = 1u << 3,    /* --no-source: no Source:Line column */
	PMT_C2C_DOUBLE_CL = 1u << 4,    /* --double-cl: lines of twice 64 bytes */
};
/* perf c2c's -d names: "tot", "lcl", "rmt", "peer" -> PMT_C2C_DISPLAY_*, or -PMT_EPARSE */
PMT_API int pmt_c2c_display_parse(const char *s);
/* A -c list: 0, or -PMT_EPARSE with *bad and *badlen the first token that is not one of
 * tid, pid, iaddr, dso (perf: "unrecognized sort token") */
PMT_API int pmt_c2c_coalesce_check(const char *s, const char **bad, size_t *badlen);
struct pmt_c2c;
/* syms: where the code and data addresses are mapped (perf's "No Page Map Rejects");
 * may be NULL (then every sample counts as unmapped). It must outlive the report. */
PMT_API int pmt_c2c_new(struct pmt_symbols *syms, const struct pmt_c2c_opts *o,
			struct pmt_c2c **out);
PMT_API void pmt_c2c_free(struct pmt_c2c *c); /* NULL is a no-op */
/* A sample: SPE's memory samples are counted, others passed over. 1 when counted, 0 when
 * not, -PMT_ENOMEM. */
PMT_API int pmt_c2c_add(struct pmt_c2c *c, const struct pmt_spe_sample *s);
/* The tables (PMT_SINK_TEXT), the shown lines as CSV rows (a header row: index,
 * cacheline, percent and perf's column names), or one JSON document (PMT_SINK_JSONL:
 * {"display", "total": {perf's c2c_stats}, "shared_lines", "shared", "cachelines": [...]}).
 * 0 or -PMT_ENOMEM. */
PMT_API int pmt_c2c_print(struct pmt_c2c *c, struct pmt_out *out, enum pmt_sink_format fmt);

/* ---- HTML report ----------------------------------------------------------------------*/
/* One self-contained page (inline CSS and SVG, no script, nothing fetched): "Available
 * samples", each event's top symbols (the entries of report --sort sym,dso), latency
 * histograms (total, issue, translation; one count per SPE record, power-of-two buckets),
 * data-source and TLB breakdowns (report --sort mem / tlb), a per-CPU timeline of samples
 * with AUX losses (PERF_RECORD_AUX truncated/partial/collision, LOST, LOST_SAMPLES) and
 * the metric rows of a TPEBS recording. Every number is also in a data-* attribute. */
struct pmt_html_opts {
	size_t sz;            /* sizeof(struct pmt_html_opts) */
	int compat;           /* perf compatibility level (PMT_PERF_*): names and texts */
	struct pmt_symbols *symbols; /* required; must outlive the report */
	const char *title;    /* the trace's name in the page (copied) */
	const struct pmt_trace_meta *meta; /* NULL (raw buffer): no header lines */
	unsigned top;         /* symbols per event (0: 15) */
	/* report's --comms, --dsos, --symbols (NULL: not given): the samples counted in the
	 * tables, latency histograms and timeline; the rest stay in the events' totals, as
	 * in the text report */
	const char *comm_list, *dso_list, *sym_list;
};
struct pmt_html;
PMT_API int pmt_html_new(const struct pmt_html_opts *o, struct pmt_html **out);
PMT_API void pmt_html_free(struct pmt_html *h); /* NULL is a no-op */
PMT_API int pmt_html_add(struct pmt_html *h, const struct pmt_spe_sample *s);
/* a sideband record (the losses are taken from AUX, LOST and LOST_SAMPLES) */
PMT_API int pmt_html_add_event(struct pmt_html *h, const struct pmt_trace_event *ev);
/* A metric row of a TPEBS recording (the tree in order: depth 0 for a top-level metric).
 * Strings are copied. retlat_*: the retire latency (cycles) the value was computed with,
 * measured in the trace and the default of the metric tables; NAN when not applicable. */
struct pmt_html_metric {
	const char *name, *unit;
	unsigned depth;
	double value, retlat_measured, retlat_default;
	/* the counts' unit the value is of ("1.000100 CPU3"; NULL or "": the whole run) */
	const char *where;
	/* every :R input of the metric (retlat_* repeat the first); with several, each gets
	 * a line of its own under the metric */
	const struct pmt_html_retlat { const char *event; double measured, dflt; } *retlat;
	size_t nr_retlat;
};
PMT_API int pmt_html_add_metric(struct pmt_html *h, const struct pmt_html_metric *m);
/* The page; st: the decoder's damage (NULL: none), enabled: the events perf would list. */
PMT_API int pmt_html_write(struct pmt_html *h, struct pmt_out *out,
			   const struct pmt_spe_rec_stats *st, uint32_t enabled);

#ifdef __cplusplus
}
#endif
#endif
