#include "threads.h"

#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/perf_abi.h"
#include "pmutrace/spe_decode.h"

static uint32_t slot_of(uint32_t cap, int32_t tid)
{
	return ((uint32_t)tid * 2654435761u) & (cap - 1);
}

static void insert(int32_t *tids, int32_t *pids, uint32_t cap, int32_t pid, int32_t tid)
{
	uint32_t i = slot_of(cap, tid);

	while (tids[i] != -1 && tids[i] != tid)
		i = (i + 1) & (cap - 1);
	tids[i] = tid;
	pids[i] = pid;
}

int pmt_spe_threads_put(struct pmt_spe_threads *t, int32_t pid, int32_t tid)
{
	if (tid < 0 || pid < 0) /* unknown is what a missing entry says */
		return 0;
	if ((t->n + 1) * 2 > t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		int32_t *tids = malloc(cap * sizeof(*tids)), *pids = malloc(cap * sizeof(*pids));

		if (!tids || !pids) {
			free(tids);
			free(pids);
			return -PMT_ENOMEM;
		}
		for (uint32_t i = 0; i < cap; i++)
			tids[i] = -1;
		for (uint32_t i = 0; i < t->cap; i++)
			if (t->tid[i] != -1)
				insert(tids, pids, cap, t->pid[i], t->tid[i]);
		free(t->tid);
		free(t->pid);
		t->tid = tids;
		t->pid = pids;
		t->cap = cap;
	}
	if (pmt_spe_threads_pid(t, tid) == -1)
		t->n++; /* a new thread; a known one (exec, fork after comm) takes the new pid */
	insert(t->tid, t->pid, t->cap, pid, tid);
	return 0;
}

int32_t pmt_spe_threads_pid(const struct pmt_spe_threads *t, int32_t tid)
{
	if (tid == 0)
		return 0; /* perf's machine always has the idle task, pid 0 / tid 0 */
	if (!t || !t->cap || tid < 0)
		return -1;
	for (uint32_t i = slot_of(t->cap, tid);; i = (i + 1) & (t->cap - 1)) {
		if (t->tid[i] == tid)
			return t->pid[i];
		if (t->tid[i] == -1)
			return -1;
	}
}

void pmt_spe_threads_fini(struct pmt_spe_threads *t)
{
	free(t->tid);
	free(t->pid);
	*t = (struct pmt_spe_threads){ 0 };
}

int pmt_spe_threads_note(struct pmt_spe_threads *t, const struct pmt_trace_event *ev)
{
	switch (ev->type) {
	case PMT_REC_COMM:
		return pmt_spe_threads_put(t, (int32_t)ev->u.comm.pid, (int32_t)ev->u.comm.tid);
	case PMT_REC_FORK:
		return pmt_spe_threads_put(t, (int32_t)ev->u.task.pid, (int32_t)ev->u.task.tid);
	case PMT_REC_MMAP:
	case PMT_REC_MMAP2:
		return pmt_spe_threads_put(t, (int32_t)ev->u.mmap.pid, (int32_t)ev->u.mmap.tid);
	default:
		return 0;
	}
}

int pmt_spe_threads_new(struct pmt_spe_threads **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -PMT_ENOMEM;
}

void pmt_spe_threads_free(struct pmt_spe_threads *t)
{
	if (!t)
		return;
	pmt_spe_threads_fini(t);
	free(t);
}
