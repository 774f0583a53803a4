/* One worker thread that takes items in order from the thread that makes them, through a
 * ring of the maker's slots: the maker fills slot k+1 while the worker uses slot k (a
 * pipeline of two stages, e.g. `metrics`: the counts of an interval summed on one thread
 * while the intervals before are evaluated and printed on the other). An idle worker is
 * woken once `batch` items wait, not per item: a wake-up per interval (two context
 * switches) cost more CPU than the evaluation it moved. */
#ifndef PMT_CLI_HANDOFF_H
#define PMT_CLI_HANDOFF_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct handoff {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	int (*fn)(void *ctx, void *item); /* < 0: later items are not used */
	void *ctx;
	void *const *slot;     /* the ring: item k is slot[k % nslots] */
	size_t nslots, batch;
	size_t made, taken;    /* items handed over; items the worker is done with */
	int rc;                /* the first failure of fn, else 0 */
	bool idle, waiting, stop, started;
};

/* The worker started on the ring slot[0..nslots) (nslots > batch >= 1): 0, or
 * -PMT_ENOMEM when no thread starts (the caller then does the work itself) */
int handoff_start(struct handoff *h, void *const *slot, size_t nslots, size_t batch,
		  int (*fn)(void *ctx, void *item), void *ctx);
/* The slot to fill next, once the worker is done with what it held before; NULL after the
 * worker failed (stop making) */
void *handoff_slot(struct handoff *h);
/* That slot filled: the worker's */
void handoff_put(struct handoff *h);
/* Every item handed over used, the worker ended: its failure (< 0) or 0 */
int handoff_finish(struct handoff *h);

#endif
