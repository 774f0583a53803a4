/* Which process each thread belongs to, as perf's machine learns it from COMM, FORK and
 * MMAP records: SPE and AUXTRACE records carry a thread id only, and perf prints pid -1
 * for a thread it has not seen in those records. */
#ifndef PMT_SPE_THREADS_H
#define PMT_SPE_THREADS_H
#include <stdint.h>

struct pmt_spe_threads {
	uint32_t cap, n;     /* cap: power of two, or 0 before the first thread */
	int32_t *tid, *pid;  /* open addressing; tid -1 marks a free slot */
};

/* 0, or -PMT_ENOMEM (the map keeps what it had) */
int pmt_spe_threads_put(struct pmt_spe_threads *t, int32_t pid, int32_t tid);
void pmt_spe_threads_fini(struct pmt_spe_threads *t);

struct pmt_spe_sampler;
struct pmt_spe_queue;
struct pmt_spe_record;
/* The queue's thread from the record's CONTEXT packet, and its pid from the sampler's
 * threads, when decoding is not timeless (the first step of pmt_spe_sampler_run(); the
 * merge takes it alone when another thread samples) */
void spe_queue_context(const struct pmt_spe_sampler *s, struct pmt_spe_queue *q,
		       const struct pmt_spe_record *r);
#endif
