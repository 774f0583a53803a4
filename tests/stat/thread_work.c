/* A process with N named threads of known work, for stat --per-thread: started before the
 * counters open, each thread waits for SIGUSR1 to the process, then faults in a known
 * number of fresh pages (thread k: 64 * (k + 1), small pages only) and spins on the CPU
 * for about 50 ms, then waits for the next SIGUSR1 (one round each), until killed. Its
 * threads are named pt-work-K (comm), so a count's row is COMM-TID with a known page-fault
 * count, and one process serves several counting runs with the same rows.
 *   thread_work N      prints its pid and "ready" once every thread waits, and
 *                      "round R done" once every thread has done round R */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static pthread_barrier_t ready;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int round_no;           /* rounds started */
static long nthreads, finished; /* rounds finished, summed over the threads */

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *work(void *arg)
{
	long k = (long)arg, page = sysconf(_SC_PAGESIZE), pages = 64 * (k + 1);
	char name[16];
	int done = 0;

	snprintf(name, sizeof(name), "pt-work-%ld", k);
	prctl(PR_SET_NAME, name);
	pthread_barrier_wait(&ready);
	for (;;) {
		volatile unsigned long spin = 0;
		char *mem;
		double t0;

		pthread_mutex_lock(&lock);
		while (round_no == done)
			pthread_cond_wait(&go, &lock);
		done = round_no;
		pthread_mutex_unlock(&lock);
		/* a fresh mapping (mmap itself does not fault): one fault per page touched */
		mem = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			exit(1);
		madvise(mem, (size_t)(pages * page), MADV_NOHUGEPAGE);
		for (long i = 0; i < pages; i++)
			mem[i * page] = 1;
		munmap(mem, (size_t)(pages * page));
		t0 = cpu_now();
		while (cpu_now() - t0 < 0.05)
			spin++;
		/* the last thread done says so: a counting run ends after the work, however
		 * long a loaded machine makes it */
		pthread_mutex_lock(&lock);
		if (++finished == nthreads * round_no) {
			printf("round %d done\n", round_no);
			fflush(stdout);
		}
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3;
	sigset_t set;
	pthread_t t;
	int sig;

	if (n < 1 || n > 64)
		return 1;
	nthreads = n;
	/* every thread inherits the block; the main thread takes the signal with sigwait */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_barrier_init(&ready, NULL, (unsigned)n + 1);
	for (long k = 0; k < n; k++)
		if (pthread_create(&t, NULL, work, (void *)k))
			return 1;
	pthread_barrier_wait(&ready);
	printf("%d ready\n", (int)getpid());
	fflush(stdout);
	for (;;) {
		sigwait(&set, &sig);
		pthread_mutex_lock(&lock);
		round_no++;
		pthread_cond_broadcast(&go);
		pthread_mutex_unlock(&lock);
	}
}
