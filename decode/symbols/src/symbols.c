/* Address spaces from the sideband, and the files behind them, read once each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "debuginfod.h"
#include "dso_find.h"
#include "srcline.h"
#include "symbols_state.h"
#include "pmutrace/perf_abi.h"

#define FREE_ID INT32_MIN

static uint64_t hash_u32(uint32_t x)
{
	uint64_t h = x * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 29);
}

static uint64_t hash_str(const char *s, const uint8_t *b, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

int pmt_symbols_new(const struct pmt_symbols_opts *o, struct pmt_symbols **out)
{
	struct pmt_symbols *s;
	const char *home = getenv("HOME");

	if (!out || (o && o->sz < offsetof(struct pmt_symbols_opts, buildid_dir) +
				  sizeof(o->buildid_dir)))
		return -PMT_EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -PMT_ENOMEM;
	s->dso_cap = 256;
	s->load_flags = ELF_LOAD_PLT;
	if (!o || !PMT_OPTS_HAS(o, compat) || !o->compat || o->compat >= 602)
		s->load_flags |= ELF_LOAD_PLT_HEADER | ELF_LOAD_BOTH;
	/* "perf symbols: Add symbols for .plt.got" came after 6.1 (none) and before 7.3
	 * (checked: libc's malloc@plt); taken as 6.3's, not pinned to a binary */
	if (!o || !PMT_OPTS_HAS(o, compat) || !o->compat || o->compat >= 603)
		s->load_flags |= ELF_LOAD_PLT_GOT;
	if (!o || !PMT_OPTS_HAS(o, no_demangle) || !o->no_demangle)
		s->load_flags |= ELF_LOAD_DEMANGLE;
	/* perf 6.1 checked (bare names), 7.3 checked (signatures); the switch to
	 * abi::__cxa_demangle came in between and is not pinned: taken as 6.2's */
	if (!o || !PMT_OPTS_HAS(o, compat) || !o->compat || o->compat >= 602)
		s->load_flags |= ELF_LOAD_DEMANGLE_PARAMS;
	s->dso_hash = calloc(s->dso_cap, sizeof(*s->dso_hash));
	if (o && o->symfs && *o->symfs) {
		/* perf strips a trailing slash so symfs + "/usr/..." stays one path */
		size_t n = strlen(o->symfs);

		while (n > 1 && o->symfs[n - 1] == '/')
			n--;
		s->symfs = strndup(o->symfs, n);
	}
	if (o && PMT_OPTS_HAS(o, kallsyms) && o->kallsyms &&
	    !(s->kallsyms = strdup(o->kallsyms))) {
		pmt_symbols_free(s);
		return -PMT_ENOMEM;
	}
	if (o && PMT_OPTS_HAS(o, vmlinux) && o->vmlinux && !(s->vmlinux = strdup(o->vmlinux))) {
		pmt_symbols_free(s);
		return -PMT_ENOMEM;
	}
	if (o && o->buildid_dir)
		s->buildid_dir = strdup(o->buildid_dir);
	else if (home) {
		s->buildid_dir = malloc(strlen(home) + sizeof("/.debug"));
		if (s->buildid_dir)
			strcat(strcpy(s->buildid_dir, home), "/.debug");
	}
	if (!s->dso_hash || (o && o->symfs && *o->symfs && !s->symfs)) {
		pmt_symbols_free(s);
		return -PMT_ENOMEM;
	}
	s->dbgd = dbgd_new(o && PMT_OPTS_HAS(o, debuginfod) ? o->debuginfod : NULL);
	*out = s;
	return 0;
}

void pmt_symbols_free(struct pmt_symbols *s)
{
	if (!s)
		return;
	unwinder_free(s->unwind);
	dbgd_free(s->dbgd);
	for (size_t i = 0; i < s->dso_cap; i++) {
		for (struct dso *d = s->dso_hash[i], *nx; d; d = nx) {
			nx = d->next;
			elf_symtab_fini(&d->tab);
			srcline_close(&d->lines);
			if (d->code_map_state > 0)
				pmt_file_unmap(&d->code_map);
			free(d->sym_path);
			free(d->code_path);
			free(d->frames_path);
			free(d->kmod_name);
			free(d->name);
			free(d);
		}
	}
	for (size_t i = 0; i < s->proc_cap; i++)
		if (s->procs[i].pid != FREE_ID) {
			free(s->procs[i].maps);
			free(s->procs[i].forks);
		}
	for (size_t i = 0; i < s->thr_cap; i++)
		if (s->threads[i].tid != FREE_ID) {
			for (uint32_t k = 0; k < s->threads[i].ncomms; k++)
				free(s->threads[i].comms[k].name);
			free(s->threads[i].comms);
		}
	for (size_t i = 0; i < s->nbundled; i++) {
		free(s->bundled[i].name);
		close(s->bundled[i].fd);
	}
	free(s->bundled);
	for (size_t i = 0; i < s->nbids; i++)
		free(s->bids[i].name);
	free(s->bids);
	free(s->procs);
	free(s->threads);
	free(s->dso_hash);
	free(s->symfs);
	free(s->buildid_dir);
	free(s->kallsyms);
	free(s->vmlinux);
	free(s);
}

static struct dso *dso_get(struct pmt_symbols *s, const char *name, const uint8_t *bid,
			   size_t bid_size)
{
	uint64_t h = hash_str(name, bid, bid_size) & (s->dso_cap - 1);
	struct dso *d;
	const char *slash;

	for (d = s->dso_hash[h]; d; d = d->next)
		if (d->build_id_size == bid_size && (!bid_size || !memcmp(d->build_id, bid, bid_size)) &&
		    !strcmp(d->name, name))
			return d;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->name = strdup(name))) {
		free(d);
		return NULL;
	}
	slash = strrchr(d->name, '/');
	d->short_name = slash ? slash + 1 : d->name;
	d->build_id_size = (uint8_t)bid_size;
	if (bid_size)
		memcpy(d->build_id, bid, bid_size);
	/* perf makes the build-id table's dsos first (with the header), then as mapped: the
	 * order of their addresses, which orders call-chain siblings (match_chain) */
	d->order = (uint32_t)s->nbids + s->dsos_seen;
	for (size_t i = 0; i < s->nbids && d->order >= s->nbids; i++)
		d->order = strcmp(s->bids[i].name, name) ? d->order : (uint32_t)i;
	s->dsos_seen += d->order >= s->nbids;
	d->next = s->dso_hash[h];
	s->dso_hash[h] = d;
	return d;
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

static struct proc *proc_find(const struct pmt_symbols *s, int32_t pid)
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

/* What the trace's build-id table says name's build-id is (*size stays 0 when it has none) */
static void recorded_build_id(const struct pmt_symbols *s, const char *name,
			      const uint8_t **id, size_t *size)
{
	for (size_t i = 0; i < s->nbids; i++) {
		if (!strcmp(s->bids[i].name, name)) {
			*id = s->bids[i].id;
			*size = s->bids[i].size;
			return;
		}
	}
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

int pmt_symbols_add_build_id(struct pmt_symbols *s, const char *filename,
			     const uint8_t *build_id, size_t build_id_size)
{
	struct known_bid *b;

	if (!s || !filename || !build_id || build_id_size > PMT_BUILD_ID_MAX)
		return -PMT_EINVAL;
	s->version++;
	b = realloc(s->bids, (s->nbids + 1) * sizeof(*b));
	if (!b)
		return -PMT_ENOMEM;
	s->bids = b;
	b += s->nbids;
	if (!(b->name = strdup(filename)))
		return -PMT_ENOMEM;
	memcpy(b->id, build_id, build_id_size);
	b->size = (uint8_t)build_id_size;
	s->nbids++;
	return 0;
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

/* A kernel map of a module file (perf's is_kernel_module: NAME.ko, also compressed) gets
 * perf's short name, "[NAME]" with '-' as '_' (kmod_path__parse). 0 or -PMT_ENOMEM. */
static int mark_module(struct pmt_symbols *s, const char *path, const uint8_t *bid,
		       size_t bid_size)
{
	static const char *const ext[] = { ".ko", ".ko.gz", ".ko.xz", ".ko.zst", ".ko.bz2" };
	const char *base = strrchr(path, '/');
	size_t n, len = strlen(path);
	struct dso *d;

	if (bid_size > PMT_BUILD_ID_MAX)
		return 0; /* pmt_symbols_add_map refuses the map */
	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		n = strlen(ext[i]);
		if (len > n && !strcmp(path + len - n, ext[i]) && base < path + len - n)
			break;
		n = 0;
	}
	if (!n)
		return 0;
	if (!bid_size)
		recorded_build_id(s, path, &bid, &bid_size);
	d = dso_get(s, path, bid, bid_size);
	if (!d)
		return -PMT_ENOMEM;
	if (d->kmod_name)
		return 0;
	d->kmod_name = malloc((size_t)(path + len - n - base) + 3);
	if (!d->kmod_name)
		return -PMT_ENOMEM;
	sprintf(d->kmod_name, "[%.*s]", (int)(path + len - n - base), base);
	for (char *c = d->kmod_name; *c; c++)
		if (*c == '-')
			*c = '_';
	d->short_name = d->kmod_name;
	return 0;
}

static const char *comm_at(const struct pmt_symbols *s, int32_t tid, uint64_t time);

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
static const struct map *find_map(const struct proc *p, uint64_t ip, uint64_t time)
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

static int fetch(void *ctx, const uint8_t *bid, size_t n, int executable, char *path,
		 size_t path_size, char *why, size_t why_size)
{
	return dbgd_fetch(ctx, bid, n, executable ? DBGD_EXECUTABLE : DBGD_DEBUGINFO, path,
			  path_size, why, why_size);
}

/* The kernel's symbols as perf's dso__load_kernel_sym looks for them when told where:
 * --kallsyms first, else --vmlinux (and nothing else when that one is refused). The
 * kernel's build-id is its MMAP2's, else the trace's build-id table's. */
static void load_kernel(struct pmt_symbols *s, struct dso *d)
{
	const uint8_t *bid = d->kernel_bid;
	size_t bid_size = d->kernel_bid_size;
	char msg[512];
	int rc;

	char found_at[PATH_MAX];
	const char *kallsyms = s->kallsyms;

	if (!bid_size)
		recorded_build_id(s, "[kernel.kallsyms]", &bid, &bid_size);
	/* without --kallsyms or --vmlinux, as perf: this machine's kallsyms when it runs the
	 * recorded kernel (by build-id), or perf's cached copy; no build-id: none (perf would
	 * take whatever kernel this machine runs, not the recording's) */
	if (!kallsyms && !s->vmlinux && bid_size &&
	    kallsyms_find(bid, bid_size, s->buildid_dir, found_at, sizeof(found_at)))
		kallsyms = found_at;
	if (!kallsyms && !s->vmlinux)
		return;
	rc = kallsyms ? kallsyms_load(kallsyms, d->text_addr, &d->tab, msg, sizeof(msg))
			 : vmlinux_load(s->vmlinux, d->text_addr, bid, bid_size, s->load_flags,
					&d->tab, msg, sizeof(msg));
	if (rc < 0) {
		pmt_warn("kernel symbols: %s", msg);
		elf_symtab_fini(&d->tab);
		return;
	}
	d->state = 1;
}

static void load_dso(struct pmt_symbols *s, struct dso *d)
{
	struct dso_want w = { d->name, d->build_id, d->build_id_size, s->symfs, s->buildid_dir,
			      s->load_flags, s->bundled, s->nbundled, s->dbgd ? fetch : NULL,
			      s->dbgd };
	struct dso_found found;

	d->state = -1;
	if (d->kernel) {
		load_kernel(s, d);
		return;
	}
	/* pseudo files (//anon, [heap]) are no paths; the vdso is found by its build-id, in
	 * perf's cache, where perf record puts the image */
	if (d->name[0] != '/' && (strcmp(d->name, "[vdso]") || !d->build_id_size))
		return;
	if (dso_find_and_load(&w, &d->tab, &found)) {
		d->state = 1;
		d->sym_path = strdup(found.path);
		d->symbols_only = found.symbols_only;
		if (found.runtime[0])
			d->code_path = strdup(found.runtime);
		else if (found.frames[0])
			d->frames_path = strdup(found.frames);
		return;
	}
	if (found.mismatch)
		pmt_info("%s: build-id differs from the recording's, not used for symbols (%s)",
			 found.mismatch_path, d->name);
	else if (found.error[0])
		pmt_info("no symbols for %s: %s", d->name, found.error);
	else
		pmt_info("no symbols for %s: file not found%s%s%s%s", d->name,
			 s->symfs ? " under --symfs " : "", s->symfs ? s->symfs : "",
			 found.fetch_error[0] ? "; " : "", found.fetch_error);
}

uint64_t pmt_symbols_version(const struct pmt_symbols *s, uint64_t time)
{
	/* maps are taken by time (find_map): a sample older than a map may see another
	 * address space, one after every map sees them all */
	if (!s || (time && time < s->max_map_time))
		return 0;
	return s->version + 1;
}

int pmt_symbols_resolve(struct pmt_symbols *s, int32_t pid, uint64_t ip, uint64_t time,
			struct pmt_sym_loc *out)
{
	const struct proc *p;
	const struct map *m = NULL;
	const struct sym_entry *e;

	if (!s || !out)
		return -PMT_EINVAL;
	memset(out, 0, sizeof(*out));
	out->kernel = ip >> 63; /* perf's cpumode without a kernel map: the upper half */
	out->map_ip = ip;
	p = proc_find(s, out->kernel ? -1 : pid);
	if (p)
		m = find_map(p, ip, time);
	if (!m)
		return 0;
	out->dso = m->dso->name;
	out->dso_short = m->dso->short_name;
	out->dso_id = m->dso;
	out->dso_order = m->dso->order + 1;
	out->map_id = m->id;
	out->map_start = m->start;
	/* the kernel's map is an identity (perf's identity__map_ip): no offset to apply */
	out->map_pgoff = m->dso->kernel ? m->start : m->pgoff;
	if (!m->dso->state)
		load_dso(s, m->dso);
	out->dso_loaded = m->dso->state > 0;
	/* a module's map starts at its .text (perf sets the map's pgoff to its offset) */
	out->map_ip = m->dso->kernel ? ip
				     : ip - m->start + m->pgoff +
					       (m->dso->kmod_name && m->dso->state > 0
							? m->dso->tab.rel_text_off : 0);
	if (m->dso->state < 0 || !(e = elf_symtab_find(&m->dso->tab, out->map_ip)))
		return 0;
	out->sym = m->dso->tab.names + e->name;
	out->sym_start = e->start;
	out->symoff = out->map_ip - e->start;
	out->sym_type = e->type;
	out->sym_id = e;
	return 1;
}

/* The line tables of d's symbol file, opened when first asked: NULL when there are none */
static struct srcline *dso_lines(struct dso *d)
{
	if (!d->lines_state) {
		d->lines_state = -1;
		if (d->sym_path && srcline_open(&d->lines, d->sym_path) == 0) {
			uint64_t lo = UINT64_MAX;

			for (unsigned i = 0; i < d->tab.nloads; i++)
				if (d->tab.loads[i].vaddr < lo)
					lo = d->tab.loads[i].vaddr;
			d->lines.first_vaddr = lo == UINT64_MAX ? 0 : lo & ~4095ULL;
			d->lines_state = 1;
		}
	}
	return d->lines_state > 0 ? &d->lines : NULL;
}

/* The ELF address of loc in a file with symbols (not the kernel's), else UINT64_MAX */
static uint64_t loc_vaddr(const struct pmt_sym_loc *loc)
{
	const struct dso *d = loc->dso_id;

	if (!d || d->state <= 0 || d->kernel)
		return UINT64_MAX;
	return elf_symtab_vaddr(&d->tab, loc->map_ip);
}

/* the line tables of loc's file, with *vaddr its ELF address; NULL when it has none */
static struct srcline *loc_lines(const struct pmt_sym_loc *loc, uint64_t *vaddr)
{
	*vaddr = loc_vaddr(loc);
	return *vaddr == UINT64_MAX ? NULL : dso_lines((struct dso *)loc->dso_id);
}

int pmt_symbols_srcline(struct pmt_symbols *s, const struct pmt_sym_loc *loc,
			const char **file, unsigned *line, uint64_t *vaddr)
{
	struct srcline *sl = loc_lines(loc, vaddr);

	(void)s;
	return sl ? srcline_find(sl, *vaddr, file, line) : 0;
}

int pmt_symbols_srcline_perf(struct pmt_symbols *s, const struct pmt_sym_loc *loc,
			     const char **file, unsigned *line, uint64_t *vaddr)
{
	struct srcline *sl = loc_lines(loc, vaddr);

	(void)s;
	return sl ? srcline_find_perf(sl, *vaddr, file, line) : 0;
}


int pmt_symbols_inlines(struct pmt_symbols *s, const struct pmt_sym_loc *loc,
			struct pmt_inline_frame *frames, unsigned max)
{
	uint64_t va = loc ? loc_vaddr(loc) : UINT64_MAX;
	struct srcline *sl;
	int n;

	if (va == UINT64_MAX || !frames || !(sl = dso_lines((struct dso *)loc->dso_id)))
		return 0;
	n = srcline_inlines(sl, va, s->load_flags, frames, max);
	/* perf's new_inline_sym(): a frame by another name than the symbol's is an inlined
	 * one, a frame by its name the symbol itself; only binutils' frames
	 * (srcline_perf_libdw) name the holding function, libdw's take the symbol */
	for (int i = 0; i + 1 < n; i++)
		frames[i].inlined = !frames[i].func || !loc->sym || strcmp(frames[i].func, loc->sym);
	if (n > 0)
		frames[n - 1].inlined = 0;
	if (n > 0 && (unsigned)n < max && frames[n - 1].func && loc->sym &&
	    strcmp(frames[n - 1].func, loc->sym) && !srcline_perf_libdw(sl, va))
		frames[n - 1].inlined = 1;
	return n;
}

int pmt_symbols_sym_code(struct pmt_symbols *s, const struct pmt_sym_loc *loc, uint8_t **buf,
			 size_t *len, uint64_t *vaddr, uint16_t *machine)
{
	const struct dso *d = loc->dso_id;
	const struct sym_entry *e = loc->sym_id;
	uint64_t n;
	FILE *fp;
	uint8_t *b;

	(void)s;
	*buf = NULL;
	if (d && e && !d->kernel && !d->code_path && d->symbols_only)
		return -PMT_ENOT_FOUND;
	if (!d || !e || d->kernel || !d->code_path || e->end <= e->start)
		return 0;
	n = e->end - e->start;
	if (n > (64u << 20))
		return 0;
	b = malloc(n);
	if (!b)
		return -PMT_ENOMEM;
	fp = fopen(d->code_path, "rb");
	if (!fp || fseeko(fp, (off_t)e->start, SEEK_SET) || fread(b, 1, n, fp) != n) {
		if (fp)
			fclose(fp);
		free(b);
		return 0;
	}
	fclose(fp);
	*buf = b;
	*len = n;
	*vaddr = elf_symtab_vaddr(&d->tab, e->start);
	*machine = d->tab.machine;
	return 1;
}
