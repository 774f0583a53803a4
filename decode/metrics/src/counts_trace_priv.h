/* The counts reader's state (counts_trace.c), shared with counts_trace_cols.c, which takes
 * a recording's counts frames into it. Private to decode/metrics. */
#ifndef PMT_COUNTS_TRACE_PRIV_H
#define PMT_COUNTS_TRACE_PRIV_H
#include <stddef.h>
#include <stdint.h>

#include "pmutrace/metrics.h"

struct stat_cols;

enum { REC_THREAD_MAP = 73, REC_CPU_MAP = 74, REC_STAT_CONFIG = 75, REC_STAT = 76,
       REC_STAT_ROUND = 77, REC_EVENT_UPDATE = 78 };
enum { UPDATE_SCALE = 1, UPDATE_NAME = 2 };
enum { CONFIG_AGGR_MODE = 0, CONFIG_INTERVAL = 1 };
/* perf 7.3's enum aggr_mode (perf 6.1 numbers CORE 4 and has no CLUSTER/CACHE: a 6.1
 * --per-core recording reads as perf 7.3 would read it) */
enum { PERF_AGGR_NONE = 0, PERF_AGGR_GLOBAL = 1, PERF_AGGR_SOCKET = 2, PERF_AGGR_DIE = 3,
       PERF_AGGR_CORE = 6, PERF_AGGR_THREAD = 7 };
#define MAX_CPUS 4096

struct id_ent {
	uint64_t id;
	uint32_t attr;
};
/* 24 bytes, the set flags and stamps beside: the summing reads prev[] and writes cur[] per
 * record, and at 32 bytes touched a third more lines (360 x 64 --global, cachegrind with a
 * 1 MiB last level: the sums' misses 10.4M -> 9.1M) */
struct cval {
	uint64_t val, ena, run;
};
struct usum {
	double val;
	uint64_t ena, run;
	uint8_t set;
};
/* A counts frame's key: its cur[] index (-1 an id no attr has, -2 outside the maps,
 * SLOT_NOT_WANTED) and its sum[] entry (-1: none), side by side: one load per record */
struct ct_place {
	int32_t slot, sum;
};

struct pmt_counts_trace {
	struct pmt_source *src;
	const char *path;
	bool swapped;
	uint32_t nattr;
	char (*name)[160];
	double *scale;
	int *col;                   /* [attr] the counts' event column */
	/* the attrs summed, ascending (all of them unless pmt_counts_trace_only() left some
	 * out): a left-out attr's records are counted and passed by */
	uint32_t *wattr, nwattr;
	uint8_t *want;              /* [attr] */
	/* [attr] the same event (name, type, config) as an earlier attr, as perf stat -M opens
	 * an event in each metric group that reads it: its count is not added again */
	uint8_t *again;
	/* [ids index] some attr of that id wanted, as the counts frames' decoders were told
	 * (read on their threads, set before they start and not changed after) */
	uint8_t *dwant;
	struct id_ent *ids;
	size_t nids;
	size_t next_id;             /* where the id after the last one found should be */
	int32_t cpu[MAX_CPUS];
	int16_t cpu_index[MAX_CPUS]; /* CPU number -> its first place in cpu[], -1: none */
	uint32_t ncpu, nthr;
	uint64_t aggr_mode, interval_ms;
	struct cval *cur, *prev;    /* [attr][cpu][thread] */
	uint8_t *cur_set;           /* [slot] cur[] holds this round's value */
	/* [slot] the last fast round that wrote its cur[] (ct_fast_off), whichever array of
	 * the two that is now: not swapped with them, as only this round's stamp counts */
	uint32_t *cur_stamp;
	uint32_t v_nattr, v_ncpu, v_nthr; /* the sizes cur, prev and sum were made for */
	struct usum *sum;           /* [unit][attr] */
	enum pmt_counts_aggr aggr;  /* asked for; AS_RECORDED follows aggr_mode */
	uint32_t nunits;
	bool units_ok;              /* make_units() holds for the aggregation and maps */
	uint32_t unit_of[MAX_CPUS]; /* [cpu index] its unit */
	int32_t unit_cpus[MAX_CPUS];/* the CPUs, unit by unit (unit u from unit_first[u]) */
	uint32_t unit_first[MAX_CPUS + 1];
	char (*unit_name)[32];      /* [unit] */
	char (*thread)[32];         /* [thread] COMM-TID of the THREAD_MAP */
	bool per_thread;            /* the units are the threads (stat --per-thread) */
	uint64_t round_prev, round_time; /* the last round's interval (ns since start) */
	uint64_t clock_t0;          /* the samples' time of the rounds' 0 */
	int has_clock;              /* 1: clock_t0 read from the recording */
	bool have_pending;          /* a STAT read while opening */
	uint64_t rounds, stats, skipped, unknown_ids;
	bool warned_aggr, warned_ids, at_end;
	/* data frames of STAT records read from their counts frames (stat_cols.c): a
	 * record of the source waits in pend while the runs before it are taken */
	struct stat_cols *cols;
	struct pmt_trace_event pend;
	bool pend_ok;
	/* A frame's keys and their places, twice in a row ([2 x place_nkeys]), so that a
	 * frame whose keys are the last one's turned by some r has its places at place2 + r,
	 * with nothing copied: copying them turned (both per frame) was 3% of the reader */
	struct ct_place *place2;
	struct pmt_ctr_count_key *place_keys;
	struct ct_place *place;     /* [key of the current counts frame]: place2 + place_rot */
	uint32_t place_nkeys, place_rot;
	uint32_t place_next;        /* where the key after the last one taken is in place[] */
	size_t slot_cap;
	uint32_t slot_frame;        /* the counts frame place[] is for */
	bool slot_ok;
	int32_t *slot_sum;          /* [slot] its sum[] entry (ct_slot_sums) */
	/* A round whose counts-frame records come in slot order (perf writes them so) is
	 * summed as they are taken, its deltas from prev[] and into sum[] in the order
	 * ct_round_units() would add them, instead of through cur[] in a second pass over
	 * every slot; any other record (out of order, repeated, read from a data frame)
	 * first puts the round back into cur[] (ct_fast_off). prev[] is only read while a
	 * round is fast: its records go to cur[] stamped with the round, and at its end
	 * cur[] and prev[] swap when every wanted slot came (else the stamped ones are
	 * copied), so nothing has to be put back (an undo log of prev[], 32 bytes a record
	 * more, was a third of the summing's memory traffic) */
	bool fast;                  /* this round's records so far summed (in cur[], stamped) */
	bool sum_clean;             /* sum[] is 0 for the wanted attrs */
	bool cur_stale;             /* cur[]'s set flags are not cleared: swapped, or written
				     * by a fast round */
	ptrdiff_t fast_last;        /* the last slot summed this round */
	uint32_t stamp;             /* this fast round's (never 0) */
	size_t fast_n;              /* the slots summed this round */
	struct pmt_diag damage;     /* the first damage read past (pmt_counts_trace_damage) */
};

/* counts_trace.c */
int ct_alloc_values(struct pmt_counts_trace *t);
/* A STAT's place in cur[]: -1 an id no attr has, -2 a CPU or thread outside the maps,
 * SLOT_NOT_WANTED an attr pmt_counts_trace_only() left out */
#define SLOT_NOT_WANTED (-3)
ptrdiff_t ct_stat_slot(struct pmt_counts_trace *t, uint64_t id, uint32_t ci, uint32_t ti);
/* A STAT left out (ct_stat_slot < 0): warned and counted as the records' path does */
void ct_stat_left_out(struct pmt_counts_trace *t, ptrdiff_t slot, uint64_t id, uint64_t off,
		      uint32_t size);
int ct_round_units(struct pmt_counts_trace *t, struct pmt_counts *c, uint64_t time_ns);
/* counts_trace_cols.c: the counts frames' records due before the source's pending record */
int ct_cols_step(struct pmt_counts_trace *t, struct pmt_counts *c, bool opening);
/* The round summed so far left in cur[] and prev[] as the records would have left them,
 * to be summed by ct_round_units() (before anything else touches cur[], the units or the
 * wanted attrs) */
void ct_fast_off(struct pmt_counts_trace *t);
/* A fast round's end: its values from cur[] into prev[] */
void ct_fast_end(struct pmt_counts_trace *t);
/* The next round summed as its records come, with a stamp of its own */
void ct_fast_begin(struct pmt_counts_trace *t);
/* counts_trace_sums.c: each slot's entry in sum[], for the units just made */
void ct_slot_sums(struct pmt_counts_trace *t);
/* sum[] zeroed for the wanted attrs */
void ct_clear_sums(struct pmt_counts_trace *t);
/* the round's deltas from cur[] and prev[], slot by slot, into the units' sums */
void ct_sum_round(struct pmt_counts_trace *t);

/* A slot's delta added to its unit's sum, as perf does: a multiplexed counter scaled by
 * enabled/running and cut to u64 (a damaged record's beyond 2^64 has no u64 to cut to).
 * The value's part on scalars, so a caller can keep a running sum in a register. */
static inline double ct_add_delta(double acc, uint64_t val, uint64_t ena, uint64_t run)
{
	if (run && run < ena) {
		double sc = (double)val * (double)ena / (double)run;

		acc += sc < 0x1p64 ? (double)(uint64_t)sc : sc;
	} else if (run) {
		acc += (double)val;
	}
	return acc;
}

static inline void ct_sum_delta(struct usum *s, const struct cval *d)
{
	s->val = ct_add_delta(s->val, d->val, d->ena, d->run);
	s->ena += d->ena;
	s->run += d->run;
	s->set = 1;
}
#endif
