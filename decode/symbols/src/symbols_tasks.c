/* The tasks of a pmt_symbols handle: processes and threads, their names (COMM), forks and
 * maps (MMAP, MMAP2), moved out of symbols.c, which keeps the files behind the maps. */
#include <stdlib.h>
#include <string.h>

#include "symbols_state.h"
#include "pmutrace/perf_abi.h"

static const char *comm_at(const struct pmt_symbols *s, int32_t tid, uint64_t time);

static uint64_t hash_u32(uint32_t x)
{
	uint64_t h = x * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 29);
}

/* Open-addressing slot of id in a table of cap (power of two) entries of `size` bytes whose
 * first field is the int32 id. */
static void *slot_of(void *tab, size_t cap, size_t size, int32_t id)
{
	for (size_t i = hash_u32((uint32_t)id) & (cap - 1);; i = (i + 1) & (cap - 1)) {
		int32_t *e = (int32_t *)((char *)tab + i * size);

		if (*e == id || *e == FREE_ID)
			return e;
	}
}

static int grow(void **tab, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 64;
	char *nt;

	if (n * 2 < *cap)
		return 0;
	nt = malloc(ncap * size);
	if (!nt)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < ncap; i++)
		*(int32_t *)(nt + i * size) = FREE_ID;
	for (size_t i = 0; i < *cap; i++) {
		char *e = (char *)*tab + i * size;

		if (*(int32_t *)e != FREE_ID)
			memcpy(slot_of(nt, ncap, size, *(int32_t *)e), e, size);
	}
	free(*tab);
	*tab = nt;
	*cap = ncap;
	return 0;
}

struct proc *proc_find(const struct pmt_symbols *s, int32_t pid)
{
	struct proc *p;

	if (!s->proc_cap)
		return NULL;
	p = slot_of(s->procs, s->proc_cap, sizeof(*p), pid);
	return p->pid == pid ? p : NULL;
}

static struct proc *proc_get(struct pmt_symbols *s, int32_t pid)
{
	struct proc *p;

	if (grow((void **)&s->procs, &s->proc_cap, s->nprocs + 1, sizeof(*p)) < 0)
		return NULL;
	p = slot_of(s->procs, s->proc_cap, sizeof(*p), pid);
	if (p->pid != pid) {
		memset(p, 0, sizeof(*p));
		p->pid = pid;
		s->nprocs++;
	}
	return p;
}

static struct thread *thread_get(struct pmt_symbols *s, int32_t tid)
{
	struct thread *t;

	if (grow((void **)&s->threads, &s->thr_cap, s->nthreads + 1, sizeof(*t)) < 0)
		return NULL;
	t = slot_of(s->threads, s->thr_cap, sizeof(*t), tid);
	if (t->tid != tid) {
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->pid = -1;
		s->nthreads++;
	}
	return t;
}

static int proc_insert(struct pmt_symbols *s, struct proc *p, const struct map *m)
{
	size_t lo = 0, hi = p->n;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct map *nm = realloc(p->maps, cap * sizeof(*nm));

		if (!nm)
			return -PMT_ENOMEM;
		p->maps = nm;
		p->cap = cap;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= m->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&p->maps[lo + 1], &p->maps[lo], (p->n - lo) * sizeof(*m));
	p->maps[lo] = *m;
	p->maps[lo].seq = s->seq++;
	p->n++;
	if (m->time > s->max_map_time)
		s->max_map_time = m->time;
	if (m->end - m->start > p->max_len)
		p->max_len = m->end - m->start;
	return 0;
}

/* A map of pid's made before some of its forks, but read after them (records of several
 * CPUs interleave within a round): the children forked after its time had it too, as perf
 * sees it with its records sorted by time. Their own later maps still win (find_map). */
static int inherit_late(struct pmt_symbols *s, int32_t pid, const struct map *m, int depth)
{
	struct proc *p = proc_find(s, pid);
	const struct fork_at *forks = p ? p->forks : NULL;
	size_t n = p ? p->nforks : 0;

	if (depth >= 64) /* reused tids can make a cycle */
		return 0;
	for (size_t i = 0; i < n; i++) {
		struct proc *c;
		int rc;

		if (forks[i].time <= m->time || forks[i].child == pid)
			continue;
		if (!(c = proc_get(s, forks[i].child)))
			return -PMT_ENOMEM;
		if ((rc = proc_insert(s, c, m)) < 0 ||
		    (rc = inherit_late(s, forks[i].child, m, depth + 1)) < 0)
			return rc;
	}
	return 0;
}

static int add_map(struct pmt_symbols *s, int32_t pid, uint64_t start, uint64_t len,
		   uint64_t pgoff, const char *filename, const uint8_t *build_id,
		   size_t build_id_size, uint64_t time, const struct pmt_map_id *id)
{
	struct proc *p;
	int rc;
	struct map m = { .start = start, .end = start + len, .pgoff = pgoff, .time = time,
			 .id = *id };

	if (!s || !filename || build_id_size > PMT_BUILD_ID_MAX || !len)
		return -PMT_EINVAL;
	if (!build_id_size)
		recorded_build_id(s, filename, &build_id, &build_id_size);
	m.dso = dso_get(s, filename, build_id, build_id_size);
	p = proc_get(s, pid);
	if (!m.dso || !p)
		return -PMT_ENOMEM;
	rc = proc_insert(s, p, &m);
	return rc < 0 || !time || !p->nforks ? rc : inherit_late(s, pid, &m, 0);
}

int pmt_symbols_add_map(struct pmt_symbols *s, int32_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, const char *filename, const uint8_t *build_id,
			size_t build_id_size, uint64_t time)
{
	/* what perf makes of a plain MMAP record: no flags, no device or inode */
	static const struct pmt_map_id plain = { .anon = 1 };

	if (s)
		s->version++;
	return add_map(s, pid, start, len, pgoff, filename, build_id, build_id_size, time, &plain);
}

/* comm NULL: the name of parent_tid at that time (a fork), or none when parent_tid is -1 */
static int set_comm(struct pmt_symbols *s, int32_t pid, int32_t tid, const char *comm,
		    int32_t parent_tid, uint64_t time)
{
	struct thread *t = thread_get(s, tid);
	uint32_t at;
	char *c = NULL;

	if (!t)
		return -PMT_ENOMEM;
	t->pid = pid;
	if (!comm && parent_tid == -1)
		return 0;
	if (t->ncomms == t->capcomms) {
		uint32_t cap = t->capcomms ? t->capcomms * 2 : 2;
		struct comm_at *n = realloc(t->comms, cap * sizeof(*n));

		if (!n)
			return -PMT_ENOMEM;
		t->comms = n;
		t->capcomms = cap;
	}
	if (comm && !(c = strdup(comm)))
		return -PMT_ENOMEM;
	/* after every name of the same time or earlier: the later record wins a tie */
	for (at = t->ncomms; at > 0 && t->comms[at - 1].time > time; at--)
		;
	memmove(t->comms + at + 1, t->comms + at, (t->ncomms - at) * sizeof(*t->comms));
	t->comms[at] = (struct comm_at){ .time = time, .name = c, .parent_tid = parent_tid };
	t->ncomms++;
	return 0;
}

/* The parent keeps its forks with their times: a map of its own made before a fork but
 * read after it reaches the child then (inherit_late) */
static int note_fork(struct pmt_symbols *s, int32_t pid, int32_t ppid, uint64_t time)
{
	struct proc *parent = proc_get(s, ppid);

	if (!parent)
		return -PMT_ENOMEM;
	if (parent->nforks == parent->cap_forks) {
		size_t cap = parent->cap_forks ? 2 * parent->cap_forks : 4;
		struct fork_at *f = realloc(parent->forks, cap * sizeof(*f));

		if (!f)
			return -PMT_ENOMEM;
		parent->forks = f;
		parent->cap_forks = cap;
	}
	parent->forks[parent->nforks++] = (struct fork_at){ pid, time };
	return 0;
}

/* A new process starts with its parent's address space (perf's thread__fork) */
static int fork_proc(struct pmt_symbols *s, int32_t pid, int32_t ppid, uint64_t time)
{
	struct proc *parent, *child;

	if (pid != ppid && time && note_fork(s, pid, ppid, time) < 0)
		return -PMT_ENOMEM;
	if (pid == ppid || !(parent = proc_find(s, ppid)))
		return 0;
	child = proc_find(s, pid);
	if (child) {
		/* the child's own records came first in the file (records of several CPUs
		 * interleave within a round): it still inherits the parent's maps, with their
		 * older times and order, so its own later maps win after its exec */
		for (size_t i = 0; i < parent->n; i++) {
			struct map m = parent->maps[i];
			int rc = proc_insert(s, child, &m);

			if (rc < 0)
				return rc;
			/* proc_insert gave it the newest seq: it keeps the parent's */
			for (size_t k = 0; k < child->n; k++)
				if (child->maps[k].seq == s->seq - 1)
					child->maps[k].seq = m.seq;
		}
		return 0;
	}
	child = proc_get(s, pid);
	parent = proc_find(s, ppid); /* the table may have moved */
	if (!child || !parent)
		return -PMT_ENOMEM;
	if (!parent->n)
		return 0;
	child->maps = malloc(parent->n * sizeof(*child->maps));
	if (!child->maps)
		return -PMT_ENOMEM;
	memcpy(child->maps, parent->maps, parent->n * sizeof(*child->maps));
	child->n = child->cap = parent->n;
	child->max_len = parent->max_len;
	return 0;
}

int pmt_symbols_add_event(struct pmt_symbols *s, const struct pmt_trace_event *ev)
{
	if (!s || !ev || ev->kind != PMT_TEV_RECORD)
		return 0;
	s->version++;
	switch (ev->type) {
	case PMT_REC_MMAP:
	case PMT_REC_MMAP2:
		if (!ev->u.mmap.filename || !ev->u.mmap.len)
			return 0;
		if ((int32_t)ev->u.mmap.pid == -1 &&
		    !strncmp(ev->u.mmap.filename, "[kernel.kallsyms]", 17)) {
			/* the kernel's text: perf's kernel map, named without the "_text" of its
			 * relocation symbol, addresses as they are */
			struct dso *d = dso_get(s, "[kernel.kallsyms]", NULL, 0);
			struct proc *p = proc_get(s, -1);
			struct map m = { .start = ev->u.mmap.addr,
					 .end = ev->u.mmap.addr + ev->u.mmap.len,
					 .pgoff = ev->u.mmap.pgoff,
					 .time = ev->sid.valid ? ev->sid.time : 0, .dso = d };

			if (!d || !p)
				return -PMT_ENOMEM;
			d->kernel = 1;
			d->text_addr = ev->u.mmap.pgoff;
			if (ev->u.mmap.build_id_size && ev->u.mmap.build_id_size <= PMT_BUILD_ID_MAX) {
				d->kernel_bid_size = ev->u.mmap.build_id_size;
				memcpy(d->kernel_bid, ev->u.mmap.build_id, d->kernel_bid_size);
			}
			return proc_insert(s, p, &m);
		}
		if ((int32_t)ev->u.mmap.pid == -1 && mark_module(s, ev->u.mmap.filename,
								  ev->u.mmap.build_id,
								  ev->u.mmap.build_id_size) < 0)
			return -PMT_ENOMEM;
		return add_map(s, (int32_t)ev->u.mmap.pid, ev->u.mmap.addr, ev->u.mmap.len,
			       ev->u.mmap.pgoff, ev->u.mmap.filename, ev->u.mmap.build_id,
			       ev->u.mmap.build_id_size, ev->sid.valid ? ev->sid.time : 0,
			       &(struct pmt_map_id){
				       .maj = ev->u.mmap.maj, .min = ev->u.mmap.min,
				       .ino = ev->u.mmap.ino,
				       .ino_generation = ev->u.mmap.ino_generation,
				       /* perf's sort__dcacheline_cmp(): not MAP_SHARED, no id */
				       .anon = !(ev->u.mmap.flags & 0x01) && !ev->u.mmap.maj &&
					       !ev->u.mmap.min && !ev->u.mmap.ino &&
					       !ev->u.mmap.ino_generation });
	case PMT_REC_COMM:
		return set_comm(s, (int32_t)ev->u.comm.pid, (int32_t)ev->u.comm.tid,
				ev->u.comm.comm, -1, ev->sid.valid ? ev->sid.time : 0);
	case PMT_REC_FORK: {
		/* perf's thread__fork names the child by the parent's name at the fork; with
		 * times, a parent's exec COMM on another CPU may still be ahead in the file (one
		 * round, seen under load: samples of a child before its exec named "perf-exec"
		 * where perf said "sh"), so the child links to it; without times perf's order
		 * is the file's and the name is copied now */
		uint64_t time = ev->sid.valid ? ev->sid.time : 0;
		int32_t ptid = (int32_t)ev->u.task.ptid;
		const char *pc = comm_at(s, ptid, time);
		char *comm = pc && !time ? strdup(pc) : NULL;
		int rc = set_comm(s, (int32_t)ev->u.task.pid, (int32_t)ev->u.task.tid, comm,
				  pc && time ? ptid : -1, time);

		free(comm);
		return rc < 0 ? rc : fork_proc(s, (int32_t)ev->u.task.pid, (int32_t)ev->u.task.ppid,
						  time);
	}
	default:
		return 0;
	}
}

/* The last name given at or before time (0: the latest); a sample before the first COMM
 * keeps the first name rather than none. A fork's name is the parent's then (a chain of
 * forks followed up to a bound: a reused tid could make a cycle). */
static const char *comm_at(const struct pmt_symbols *s, int32_t tid, uint64_t time)
{
	for (int depth = 0; s && s->thr_cap && depth < 64; depth++) {
		const struct thread *t = slot_of(s->threads, s->thr_cap, sizeof(*t), tid);
		uint32_t i;

		if (t->tid != tid || !t->ncomms)
			return NULL;
		for (i = t->ncomms - 1; time && i > 0 && t->comms[i].time > time; i--)
			;
		if (t->comms[i].name)
			return t->comms[i].name;
		tid = t->comms[i].parent_tid;
		time = t->comms[i].time;
	}
	return NULL;
}

const char *pmt_symbols_comm(const struct pmt_symbols *s, int32_t tid, uint64_t time)
{
	const char *c = comm_at(s, tid, time);

	/* perf's machine__idle_thread() names the idle task */
	return c ? c : tid == 0 ? "swapper" : NULL;
}

/* The newest map holding ip that existed at `time` (0: any) */
const struct map *find_map(const struct proc *p, uint64_t ip, uint64_t time)
{
	size_t lo = 0, hi = p->n;
	const struct map *best = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct map *m = &p->maps[i];

		if (ip - m->start >= p->max_len)
			break;
		/* the newest by time, as perf's time-sorted records leave it; in file order
		 * among equal times (a map inherited late comes after the child's own) */
		if (ip < m->end && (!time || !m->time || m->time <= time) &&
		    (!best || m->time > best->time ||
		     (m->time == best->time && m->seq > best->seq)))
			best = m;
	}
	return best;
}
