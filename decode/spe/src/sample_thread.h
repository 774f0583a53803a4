/* SPE's samples made and handed on on a thread of their own (private to decode/spe).
 *
 * The merge keeps what depends on the order across CPUs (the pid and tid of each record,
 * from context switches and the threads that COMM/FORK records named) and puts each
 * record with them here; this thread runs the sampler with the per-CPU state that moved
 * with it (the instruction period count, the branch stack) and calls the sample callbacks,
 * in the order given. A record crosses cores once (~110 bytes) instead of its samples
 * (2-3 of 120 bytes each) plus a copy of the record. */
#ifndef PMT_SPE_SAMPLE_THREAD_H
#define PMT_SPE_SAMPLE_THREAD_H

#include "pmutrace/spe_decode.h"

struct sample_thread;

/* s is copied (its threads table is not read: the merge settles every record's pid and
 * tid); o's block callbacks when both are set (block mode: rows made by whichever thread
 * is free, see pmt_spe_run_opts), else its record_fn, else fn, get the samples with ctx.
 * 0, or -PMT_ENOMEM. */
int sample_thread_new(const struct pmt_spe_sampler *s, const struct pmt_spe_run_opts *o,
		      pmt_spe_sample_fn fn, void *ctx, struct sample_thread **out);
/* The record's samples, made with q (the thread's state of the record's CPU: only this
 * thread touches it from the first put on) after setting q's pid and tid. Returns 0, or
 * the first negative value a callback returned (nothing more is handed on then). */
int sample_thread_put(struct sample_thread *t, struct pmt_spe_queue *q,
		      const struct pmt_spe_record *rec, int32_t pid, int32_t tid);
/* Waits until everything put has been handed on (block mode: is out; the caller makes
 * rows meanwhile), so that the caller may call the
 * callbacks itself in between. Returns 0 or the callbacks' first negative value. */
int sample_thread_sync(struct sample_thread *t);
/* Hands on what is left, stops the thread and frees it; returns as sample_thread_sync().
 * NULL is a no-op (0). */
int sample_thread_free(struct sample_thread *t);

#endif
