/* Worker threads that sleep on a condition until there is work or they are told to stop
 * (the container's compression and decompress-ahead pools, the record decoders, the
 * counts readers): stopping them is the same everywhere. */
#ifndef PMUTRACE_WORKERS_H
#define PMUTRACE_WORKERS_H

#include <pthread.h>
#include <stdbool.h>

#include "pmutrace/errors.h"

/* Set *stop under mu, wake every waiter on work and join the n threads th[0..n). The
 * workers must test *stop under mu each time they wake. */
PMT_API void pmt_workers_stop(pthread_mutex_t *mu, pthread_cond_t *work, bool *stop,
			      const pthread_t *th, unsigned n);

#endif
