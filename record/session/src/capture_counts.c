/* Counting events beside the samples (record --count-events; the counted events of
 * --tpebs's metrics): opened with record/counting on the recording's own CPUs or threads,
 * kept in the recording's perf.data stream as perf stat record keeps them (their
 * HEADER_ATTRs after the sampled events', EVENT_UPDATE/THREAD_MAP/CPU_MAP/STAT_CONFIG,
 * then a STAT per counter and a STAT_ROUND per read), so one container gives `pmutrace
 * metrics TRACE` both the counts and the retire latencies of the same run. */
#include <stdlib.h>
#include <string.h>

#include "capture_priv.h"
#include "pmutrace/container.h"
#include "pmutrace/counting.h"

const struct pmt_count_plan *cap_counts_plan(const struct cap *c)
{
	return PMT_OPTS_HAS(c->ro, counts_interval_ms) ? c->ro->counts : NULL;
}

int cap_counts_open(struct cap *c, struct pmt_diag *diag)
{
	const struct pmt_count_plan *p = cap_counts_plan(c);
	uint32_t nthreads = 0;
	int rc;

	if (!p)
		return 0;
	/* per thread: the recording's threads (its workload, -p's tasks, -t's thread) */
	if (!p->per_cpu) {
		if (c->nthreads < 1 || c->threads[0] < 0)
			return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
					    "counting events per thread need a task to count "
					    "(a workload, -p or -t)");
		c->count_threads = malloc((size_t)c->nthreads * sizeof(*c->count_threads));
		if (!c->count_threads)
			return -PMT_ENOMEM;
		for (int t = 0; t < c->nthreads; t++)
			c->count_threads[t] = c->threads[t];
		nthreads = (uint32_t)c->nthreads;
	}
	/* an event the kernel refuses stays "<not supported>", as in perf stat: the
	 * samples are recorded all the same, and the metrics that need it say so */
	rc = pmt_counter_open(p, c->count_threads, nthreads, true, &c->counter, diag);
	if (rc < 0)
		return rc;
	for (uint32_t e = 0; e < p->ev.nr; e++)
		if (!pmt_counter_supported(c->counter, e)) {
			c->st->count_unsupported++;
			pmt_warn("counting event %s: not supported on this machine (no counts "
				 "recorded for it)", p->ev.ev[e].name);
		}
	return 0;
}

int cap_counts_add_attrs(struct cap *c)
{
	return c->counter ? pmt_stat_add_attrs(c->w, cap_counts_plan(c), c->counter) : 0;
}

int cap_counts_header(struct cap *c)
{
	const struct pmt_count_plan *p = cap_counts_plan(c);

	if (!c->counter)
		return 0;
	/* the recording keeps every CPU's or thread's counts either way; this only says how
	 * metrics and stat report show them: per CPU (-A) or their total */
	bool per_cpu = PMT_OPTS_HAS(c->ro, counts_per_cpu) && c->ro->counts_per_cpu && p->per_cpu;

	return pmt_stat_write_header(c->w, p, c->counter, c->count_threads,
				     per_cpu ? PMT_AGGR_CPU : PMT_AGGR_GLOBAL,
				     c->ro->counts_interval_ms);
}

int cap_counts_round(struct cap *c, bool last)
{
	uint64_t now = cap_now_ns(), step = c->ro->counts_interval_ms * 1000000ull;
	int rc;

	if (!c->counter)
		return 0;
	if (!last) {
		if (!step)
			return 0;
		if (!c->count_next)
			c->count_next = c->t0 + step;
		if (now < c->count_next)
			return 0;
		while (c->count_next <= now)
			c->count_next += step; /* a late round does not make up for missed ones */
	}
	rc = pmt_counter_read(c->counter);
	if (rc >= 0)
		rc = pmt_stat_write_round(c->w, cap_counts_plan(c), c->counter, now - c->t0, last);
	if (rc >= 0)
		c->st->count_rounds++;
	return rc;
}

/* The CPU's counter as the kernel's TIME_CONV reads it (TSC, CNTVCT); false elsewhere. */
static bool cpu_counter(uint64_t *v)
{
#if defined(__x86_64__) || defined(__i386__)
	*v = __builtin_ia32_rdtsc();
	return true;
#elif defined(__aarch64__)
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(*v));
	return true;
#else
	(void)v;
	return false;
#endif
}

/* The rounds' times count from t0 (CLOCK_MONOTONIC); the samples' clock is the kernel's
 * perf clock, which drifts from CLOCK_MONOTONIC (17 ms on a test VM), so t0 is kept in the
 * samples' clock too, for metrics TRACE to find each interval's samples: through the
 * rings' TIME_CONV where the kernel gives it, else by the offset measured through a COMM
 * record, else CLOCK_MONOTONIC. Measured before t0 is taken (the COMM record takes a
 * while, and the counters count from t0): only the offset between the clocks is kept. */
void cap_counts_clock(struct cap *c)
{
	struct pmt_ring_clock clk = { 0 };
	uint64_t cyc, mono;
	int64_t off;

	c->count_clock_delta = 0;
	c->count_t0_source = 0;
	if (!c->counter)
		return;
	if (c->nslots)
		pmt_ring_clock(&c->rings[0], &clk);
	if (clk.valid && cpu_counter(&cyc)) {
		struct pmt_time_conv tc = {
			.time_shift = clk.time_shift, .time_mult = clk.time_mult,
			.time_zero = clk.time_zero, .time_cycles = clk.time_cycles,
			.time_mask = clk.time_mask, .cap_user_time_zero = 1,
			.cap_user_time_short = clk.cap_user_time_short,
		};

		mono = cap_now_ns();
		c->count_clock_delta = (int64_t)(pmt_time_conv_to_perf(&tc, cyc) - mono);
		c->count_t0_source = 1;
	} else if (cap_perf_clock_offset(&off)) {
		c->count_clock_delta = off;
		c->count_t0_source = 2;
	}
}

int cap_counts_write_clock(struct cap *c)
{
	struct pmt_ctr_file f = { .kind = PMT_CTR_FILE_COUNT_CLOCK };
	uint8_t b[16];

	if (!c->counter || !c->ro->counts_interval_ms)
		return 0;
	for (int i = 0; i < 8; i++) {
		b[i] = (uint8_t)((c->t0 + (uint64_t)c->count_clock_delta) >> (8 * i));
		b[8 + i] = (uint8_t)(c->count_t0_source >> (8 * i));
	}
	snprintf(f.name, sizeof(f.name), "count-clock");
	return pmt_ctr_add_file(c->ctr, &f, b, sizeof(b));
}

void cap_counts_enable(struct cap *c, bool on)
{
	if (c->counter)
		pmt_counter_enable(c->counter, on);
}

void cap_counts_free(struct cap *c)
{
	pmt_counter_free(c->counter);
	c->counter = NULL;
	free(c->count_threads);
	c->count_threads = NULL;
}
