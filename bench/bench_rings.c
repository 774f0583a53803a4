/* AUX drain rate of record/rings: a producer thread plays the kernel (CIRC_SPACE, bytes
 * then aux_head with release) into a 4 MiB AUX area as fast as it can; the consumer drains
 * with pmt_ring_drain_aux and copies every byte out (as it hands them to the writer).
 * Prints GB/s and the consumer's CPU seconds per GB.
 *   bench_rings [GB=4] [CHUNK_KB=64] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmutrace/rings.h"

#define AUX (4u << 20)
static uint8_t page[4096 + 4096] __attribute__((aligned(4096)));
static uint8_t *aux, *sink;
static uint64_t total, chunk;
static volatile int done;

static uint64_t *up(size_t off)
{
	return (uint64_t *)(void *)(page + off);
}

static void *producer(void *arg)
{
	uint64_t head = 0;

	(void)arg;
	while (head < total) {
		uint64_t tail = __atomic_load_n(up(1064), __ATOMIC_ACQUIRE);
		uint64_t space = (tail - head - 1) & (AUX - 1), n = chunk;

		if (space < n) {
			__builtin_ia32_pause();
			continue;
		}
		memset(aux + (head & (AUX - 1)), (int)(head >> 16), n); /* the "hardware" writes */
		head += n;
		__atomic_store_n(up(1056), head, __ATOMIC_RELEASE);
	}
	done = 1;
	return NULL;
}

static int take(void *ctx, const void *a, size_t alen, const void *b, size_t blen,
		uint64_t off)
{
	(void)ctx;
	(void)off;
	memcpy(sink, a, alen);
	if (blen)
		memcpy(sink + alen, b, blen);
	return 0;
}

static double secs(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct pmt_ring r;
	pthread_t t;
	uint64_t got = 0;
	double t0, c0, wall, cpu;

	total = (uint64_t)(argc > 1 ? atof(argv[1]) : 4) * (1ull << 30);
	chunk = (uint64_t)(argc > 2 ? atoi(argv[2]) : 64) << 10;
	aux = aligned_alloc(4096, AUX);
	sink = aligned_alloc(4096, AUX);
	if (!aux || !sink || chunk >= AUX)
		return 1;
	memset(aux, 0, AUX);
	pmt_ring_init_mem(&r, page, 4096, aux, AUX, false);
	t0 = secs(CLOCK_MONOTONIC);
	c0 = secs(CLOCK_THREAD_CPUTIME_ID);
	pthread_create(&t, NULL, producer, NULL);
	while (got < total) {
		int64_t n = pmt_ring_drain_aux(&r, take, NULL);

		if (n > 0)
			got += (uint64_t)n;
		else if (done && got >= total)
			break;
	}
	pthread_join(t, NULL);
	wall = secs(CLOCK_MONOTONIC) - t0;
	cpu = secs(CLOCK_THREAD_CPUTIME_ID) - c0;
	printf("AUX drained: %.2f GB in %.3f s = %.2f GB/s (chunks of %llu KiB, 4 MiB area); "
	       "consumer CPU %.3f s per GB\n", (double)got / 1e9, wall, (double)got / 1e9 / wall,
	       (unsigned long long)(chunk >> 10), cpu / ((double)got / 1e9));
	return 0;
}
