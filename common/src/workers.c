#include "pmutrace/workers.h"

void pmt_workers_stop(pthread_mutex_t *mu, pthread_cond_t *work, bool *stop,
		      const pthread_t *th, unsigned n)
{
	pthread_mutex_lock(mu);
	*stop = true;
	pthread_cond_broadcast(work);
	pthread_mutex_unlock(mu);
	for (unsigned i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}
