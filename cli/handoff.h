/* One worker thread that takes items one at a time from the thread that makes them: the
 * maker hands item k over and goes on making k+1 while the worker uses k (a pipeline of
 * two stages, e.g. `metrics`: the counts of an interval summed on one thread while the
 * interval before is evaluated and printed on the other). */
#ifndef PMT_CLI_HANDOFF_H
#define PMT_CLI_HANDOFF_H

#include <pthread.h>
#include <stdbool.h>

struct handoff {
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int (*fn)(void *ctx, void *item); /* < 0 stops the worker: later items are refused */
	void *ctx;
	void *item;            /* handed over, not yet done */
	int rc;                /* the first failure of fn, else 0 */
	bool stop, started;
};

/* 0, or -PMT_ENOMEM when no thread starts (the caller then does the work itself) */
int handoff_start(struct handoff *h, int (*fn)(void *ctx, void *item), void *ctx);
/* Waits until the item before is done, then hands this one over: the caller may reuse
 * what the one before used. Returns the worker's failure (< 0; item not taken) or 0. */
int handoff_put(struct handoff *h, void *item);
/* Waits until the last item is done and ends the worker; its failure (< 0) or 0 */
int handoff_finish(struct handoff *h);

#endif
