/* One worker thread fed one item at a time (handoff.h). */
#include "handoff.h"

#include "pmutrace/common.h"

static void *handoff_main(void *arg)
{
	struct handoff *h = arg;

	pthread_mutex_lock(&h->mu);
	for (;;) {
		void *item;
		int rc;

		while (!h->item && !h->stop)
			pthread_cond_wait(&h->cv, &h->mu);
		if (!h->item)
			break; /* stopped with nothing left */
		item = h->item;
		pthread_mutex_unlock(&h->mu);
		rc = h->fn(h->ctx, item);
		pthread_mutex_lock(&h->mu);
		if (rc < 0 && !h->rc)
			h->rc = rc;
		h->item = NULL;
		pthread_cond_broadcast(&h->cv);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

int handoff_start(struct handoff *h, int (*fn)(void *ctx, void *item), void *ctx)
{
	*h = (struct handoff){ .fn = fn, .ctx = ctx };
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	if (pthread_create(&h->tid, NULL, handoff_main, h)) {
		pthread_cond_destroy(&h->cv);
		pthread_mutex_destroy(&h->mu);
		return -PMT_ENOMEM;
	}
	h->started = true;
	return 0;
}

static void wait_done(struct handoff *h)
{
	while (h->item)
		pthread_cond_wait(&h->cv, &h->mu);
}

int handoff_put(struct handoff *h, void *item)
{
	int rc;

	pthread_mutex_lock(&h->mu);
	wait_done(h);
	rc = h->rc;
	if (!rc) {
		h->item = item;
		pthread_cond_broadcast(&h->cv);
	}
	pthread_mutex_unlock(&h->mu);
	return rc;
}

int handoff_finish(struct handoff *h)
{
	int rc;

	if (!h->started)
		return 0;
	pthread_mutex_lock(&h->mu);
	wait_done(h);
	h->stop = true;
	rc = h->rc;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->tid, NULL);
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	h->started = false;
	return rc;
}
