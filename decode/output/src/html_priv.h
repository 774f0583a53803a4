/* The HTML report's figures while samples come in (html.c) and as the page shows them
 * (html_write.c). Private to decode/output. */
#ifndef PMT_OUTPUT_HTML_PRIV_H
#define PMT_OUTPUT_HTML_PRIV_H

#include "pmutrace/output.h"

/* latency buckets: 0, then [2^(k-1), 2^k) for k = 1..32 (a total latency is 32 bits) */
#define LAT_BUCKETS 34
enum { LAT_TOTAL, LAT_ISSUE, LAT_XLAT, LAT_KINDS };
/* the timeline's columns: enough to see phases, few enough to stay small per CPU */
#define TL_BINS 240

enum loss_kind { LOSS_AUX, LOSS_LOST, LOSS_LOST_SAMPLES };
/* An AUX loss is placed by its position in the CPU's AUX stream, not by the AUX record's
 * time (a trace's sideband and SPE clocks need not agree): from the last record decoded
 * before that position to the first one after it. LOST and LOST_SAMPLES have no position:
 * their records' time. */
struct loss {
	uint64_t start, end;  /* ns (sample times); end UINT64_MAX: no record came after */
	uint64_t stream_end;  /* AUX: aux_offset + aux_size, where the data stops */
	uint64_t amount;      /* LOST: records, LOST_SAMPLES: samples, AUX: bytes kept */
	uint32_t cpu;         /* UINT32_MAX: not known */
	uint32_t flags;       /* AUX: PERF_AUX_FLAG_* */
	uint32_t next_open;   /* index + 1 of the CPU's next open loss, 0: none */
	uint8_t kind;         /* enum loss_kind */
	uint8_t has_start;
};
#define MAX_LOSSES 4096

/* A CPU's timeline and the AUX losses waiting for its records. The last RECENT records
 * (stream offset, time) place a loss whose AUX record comes after the data around it. */
#define RECENT 256
struct cpu_line {
	uint64_t bins[TL_BINS];
	uint64_t records;
	uint64_t recent_off[RECENT], recent_time[RECENT];
	uint32_t nrecent, recent_next;
	uint32_t open_head, open_tail; /* loss index + 1, 0: none */
};

struct html_metric {
	char *name, *unit, *where;
	unsigned depth;
	double value, measured, dflt;
	struct pmt_html_retlat *rl; /* every :R input; events owned */
	size_t nrl;
};

struct pmt_html {
	int compat;
	unsigned top;
	char *title;
	const struct pmt_trace_meta *meta;
	struct pmt_hist *sym, *mem, *tlb;
	uint64_t count[PMT_SPE_SE_COUNT], period[PMT_SPE_SE_COUNT];
	/* latencies once per record: the samples of a record share them */
	uint64_t lat[LAT_KINDS][LAT_BUCKETS];
	uint64_t records;
	uint64_t last_off;
	uint32_t last_cpu;
	uint8_t last_valid;
	uint8_t filtered;      /* --comms, --dsos or --symbols given */
	/* timeline: each CPU's bins cover [t0, t0 + TL_BINS * width); the width doubles (bins
	 * merged in pairs) when a time falls outside */
	struct cpu_line *cpu[PMT_MAX_CPUS];
	uint32_t ncpus;       /* highest CPU seen + 1 */
	uint64_t t0, width, tmin, tmax;
	uint32_t hi_bin;      /* highest bin in use */
	uint8_t have_time;
	/* losses; a CPU's AUX losses wait, in stream order, for its records around them */
	struct loss *loss;
	size_t nloss, loss_cap;
	uint64_t aux_truncated, aux_partial, aux_collision, aux_records, lost_records,
		lost_samples, loss_dropped;
	struct html_metric *metric;
	size_t nmetric, metric_cap;
};

/* s escaped as HTML text or attribute value, at most max bytes (0: all) */
void html_esc(struct pmt_out *o, const char *s, size_t max);
/* the Metrics section: the metric tree as an SVG chart (html_metrics.c) */
void html_metrics(struct pmt_html *h, struct pmt_out *o);
int html_write_page(struct pmt_html *h, struct pmt_out *out, const struct pmt_spe_rec_stats *st,
		    uint32_t enabled);

#endif
