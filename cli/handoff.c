/* One worker thread fed in order through a ring of slots (handoff.h). */
#include "handoff.h"

#include "pmutrace/common.h"

static void *handoff_main(void *arg)
{
	struct handoff *h = arg;

	pthread_mutex_lock(&h->mu);
	for (;;) {
		void *item;
		int rc;

		while (h->taken == h->made && !h->stop) {
			h->idle = true;
			pthread_cond_wait(&h->work, &h->mu);
		}
		h->idle = false;
		if (h->taken == h->made)
			break; /* stopped, every item used */
		item = h->slot[h->taken % h->nslots];
		pthread_mutex_unlock(&h->mu);
		rc = h->rc < 0 ? 0 : h->fn(h->ctx, item);
		pthread_mutex_lock(&h->mu);
		if (rc < 0 && !h->rc)
			h->rc = rc;
		h->taken++;
		if (h->waiting)
			pthread_cond_signal(&h->done);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

int handoff_start(struct handoff *h, void *const *slot, size_t nslots, size_t batch,
		  int (*fn)(void *ctx, void *item), void *ctx)
{
	*h = (struct handoff){ .fn = fn, .ctx = ctx, .slot = slot, .nslots = nslots,
			       .batch = batch ? batch : 1 };
	if (h->batch >= nslots)
		h->batch = nslots > 1 ? nslots - 1 : 1;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->work, NULL);
	pthread_cond_init(&h->done, NULL);
	if (!nslots || pthread_create(&h->tid, NULL, handoff_main, h)) {
		pthread_cond_destroy(&h->done);
		pthread_cond_destroy(&h->work);
		pthread_mutex_destroy(&h->mu);
		return -PMT_ENOMEM;
	}
	h->started = true;
	return 0;
}

void *handoff_slot(struct handoff *h)
{
	void *s;

	pthread_mutex_lock(&h->mu);
	while (h->made - h->taken >= h->nslots && !h->rc) {
		h->waiting = true;
		pthread_cond_signal(&h->work); /* a full ring is more than a batch */
		pthread_cond_wait(&h->done, &h->mu);
	}
	h->waiting = false;
	s = h->rc ? NULL : h->slot[h->made % h->nslots];
	pthread_mutex_unlock(&h->mu);
	return s;
}

void handoff_put(struct handoff *h)
{
	pthread_mutex_lock(&h->mu);
	h->made++;
	if (h->idle && h->made - h->taken >= h->batch)
		pthread_cond_signal(&h->work);
	pthread_mutex_unlock(&h->mu);
}

int handoff_finish(struct handoff *h)
{
	int rc;

	if (!h->started)
		return 0;
	pthread_mutex_lock(&h->mu);
	h->stop = true;
	pthread_cond_signal(&h->work);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->tid, NULL);
	rc = h->rc;
	pthread_cond_destroy(&h->done);
	pthread_cond_destroy(&h->work);
	pthread_mutex_destroy(&h->mu);
	h->started = false;
	return rc;
}
