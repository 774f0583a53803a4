/* Samples into a pprof profile (Google's profile.proto, decode/export/proto/profile.proto,
 * through protobuf-c), gzip'd with zlib. Identical samples (same stack of locations, event,
 * data-source level, cpu, pid and tid) are aggregated while decoding in hash tables that
 * grow by doubling: no allocation per sample. The profile is built and written once, by
 * finish (pprof_write.c). */
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/perf_abi.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/symbols.h"
#include "pmutrace/export.h"
#include "pprof_priv.h"

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static size_t str_find(const struct pp_export *x, const char *s, uint64_t h)
{
	size_t i = (size_t)h & (x->str_slots - 1);

	while (x->str_slot[i] && strcmp(x->str[x->str_slot[i] - 1], s))
		i = (i + 1) & (x->str_slots - 1);
	return i;
}

int64_t pp_str_id(struct pp_export *x, const char *s)
{
	uint64_t h = str_hash(s);
	size_t i;

	if (x->str_slots) {
		i = str_find(x, s, h);
		if (x->str_slot[i])
			return x->str_slot[i] - 1;
	}
	if (2 * (x->nstr + 1) > x->str_slots) {
		size_t cap = x->str_slots ? 2 * x->str_slots : 256;
		uint32_t *sl = calloc(cap, sizeof(*sl));

		if (!sl)
			return -PMT_ENOMEM;
		free(x->str_slot);
		x->str_slot = sl;
		x->str_slots = cap;
		for (size_t j = 0; j < x->nstr; j++)
			x->str_slot[str_find(x, x->str[j], str_hash(x->str[j]))] = (uint32_t)j + 1;
	}
	if (x->nstr == x->str_cap) {
		size_t n = x->str_cap ? 2 * x->str_cap : 256;
		char **p = realloc(x->str, n * sizeof(*p));

		if (!p)
			return -PMT_ENOMEM;
		x->str = p;
		x->str_cap = n;
	}
	if (!(x->str[x->nstr] = strdup(s)))
		return -PMT_ENOMEM;
	x->str_slot[str_find(x, s, h)] = (uint32_t)++x->nstr;
	return (int64_t)x->nstr - 1;
}

static int pp_event(struct pmt_export *base, const struct pmt_trace_event *ev)
{
	struct pp_export *x = (struct pp_export *)base;
	struct mmap_ent *m;

	if (ev->type != PMT_REC_MMAP && ev->type != PMT_REC_MMAP2)
		return 0;
	if (x->nmm == x->mm_cap) {
		size_t n = x->mm_cap ? 2 * x->mm_cap : 64;
		struct mmap_ent *p = realloc(x->mm, n * sizeof(*p));

		if (!p)
			return -PMT_ENOMEM;
		x->mm = p;
		x->mm_cap = n;
	}
	m = &x->mm[x->nmm];
	m->pid = (int32_t)ev->u.mmap.pid;
	m->addr = ev->u.mmap.addr;
	m->len = ev->u.mmap.len;
	m->bid_size = ev->u.mmap.build_id_size > 20 ? 20 : ev->u.mmap.build_id_size;
	memcpy(m->bid, ev->u.mmap.build_id, m->bid_size);
	if (!(m->filename = strdup(ev->u.mmap.filename ? ev->u.mmap.filename : "")))
		return -PMT_ENOMEM;
	x->nmm++;
	return 0;
}

static int64_t hex_str(struct pp_export *x, const uint8_t *id, size_t n)
{
	char hex[2 * 20 + 1];

	for (size_t i = 0; i < n && i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * (n < 20 ? n : 20)] = 0;
	return pp_str_id(x, hex);
}

/* a new mapping's size and build-id: the newest MMAP/MMAP2 of its file holding ip in the
 * process (or the kernel's), else the recording's build-id table */
static int map_fill(struct pp_export *x, struct map_ent *m, const struct pmt_sym_loc *loc,
		    int32_t pid, uint64_t ip)
{
	const uint8_t *bid = NULL;
	size_t bid_size = 0;

	for (size_t i = x->nmm; i-- > 0;) {
		const struct mmap_ent *e = &x->mm[i];

		if ((e->pid == pid || e->pid == -1) && ip - e->addr < e->len &&
		    !strcmp(e->filename, loc->dso)) {
			m->limit = e->addr + e->len;
			bid = e->bid;
			bid_size = e->bid_size;
			break;
		}
	}
	for (uint32_t i = 0; !bid_size && x->meta && i < x->meta->nr_build_ids; i++) {
		const struct pmt_build_id_ent *b = &x->meta->build_ids[i];

		if (b->filename && !strcmp(b->filename, loc->dso)) {
			bid = b->id;
			bid_size = b->size;
		}
	}
	m->offset = loc->map_pgoff;
	if ((m->filename = pp_str_id(x, loc->dso)) < 0)
		return (int)m->filename;
	if (bid_size && (m->build_id = hex_str(x, bid, bid_size)) < 0)
		return (int)m->build_id;
	return 0;
}

/* Line n_lines of location l: function f (its fn_ent) at line; 0 or -PMT_ENOMEM */
static int add_line(struct pp_export *x, struct loc_ent *l, const struct fn_ent *f, int64_t line)
{
	if (x->nlines == x->lines_cap) {
		size_t n = x->lines_cap ? 2 * x->lines_cap : 256;
		struct line_ent *p = n > UINT32_MAX ? NULL : realloc(x->lines, n * sizeof(*p));

		if (!p)
			return -PMT_ENOMEM;
		x->lines = p;
		x->lines_cap = n;
	}
	if (!l->n_lines)
		l->first_line = (uint32_t)x->nlines;
	x->lines[x->nlines].function = (uint64_t)(((const unsigned char *)f - x->fns.ent) /
						  x->fns.esz) + 1;
	x->lines[x->nlines++].line = line;
	l->n_lines++;
	return 0;
}

/* The function of an inlined frame, keyed by its name and file; NULL: out of memory */
static struct fn_ent *inline_fn(struct pp_export *x, const struct pmt_inline_frame *fr)
{
	struct { uint64_t sym_id; int64_t name, file; } fk = { 0, 0, 0 };
	struct fn_ent *f;
	bool is_new;

	/* "??": addr2line's name for a function the DWARF does not name */
	if ((fk.name = pp_str_id(x, fr->func ? fr->func : "??")) < 0 ||
	    (fr->file && (fk.file = pp_str_id(x, fr->file)) < 0) || !(f = itab_get(&x->fns, &fk, &is_new)))
		return NULL;
	if (is_new)
		f->name = fk.name, f->filename = fk.file;
	return f;
}

/* The Lines of a new location whose address is in symbol loc: the inlined calls it is in
 * (innermost first, addr2line -i's chain), the symbol's function last with the line of the
 * call in it; code not inlined gets one Line, the symbol's function at the address's line.
 * 0 or -PMT_ENOMEM */
static int loc_lines(struct pp_export *x, struct loc_ent *l, const struct pmt_sym_loc *loc,
		     struct map_ent *m)
{
	struct { uint64_t sym_id; int64_t name, file; } fk = { (uintptr_t)loc->sym_id, 0, 0 };
	struct pmt_inline_frame fr[INLINE_MAX];
	int n = pmt_symbols_inlines(x->syms, loc, fr, INLINE_MAX);
	const char *file = NULL;
	unsigned line = 0;
	uint64_t vaddr;
	struct fn_ent *f;
	bool is_new;

	/* the holder, the last frame, is the symbol's function (the name script -F sym gives)
	 * unless the chain was cut at INLINE_MAX: then that frame is inlined too, and the
	 * symbol follows it at an unknown line */
	int inlined = n >= 2 ? (n == INLINE_MAX ? n : n - 1) : 0;

	for (int i = 0; i < inlined; i++)
		if (!(f = inline_fn(x, &fr[i])) || add_line(x, l, f, fr[i].line) < 0)
			return -PMT_ENOMEM;
	if (inlined && inlined < n) {
		file = fr[n - 1].file;
		line = fr[n - 1].line;
	} else if (!inlined && pmt_symbols_srcline(x->syms, loc, &file, &line, &vaddr) != 1)
		file = NULL, line = 0;
	/* the holder of a chain's frame that perf names from addr2line by its DWARF name (a
	 * clone: "spin" for spin.constprop.0, script's "spin (inlined)"), as perf's chains
	 * and report do; a sample's own symbol (no chain) keeps the symbol's name */
	if (x->chains && n >= 1 && n < INLINE_MAX && fr[n - 1].inlined)
		f = inline_fn(x, &fr[n - 1]);
	else if ((f = itab_get(&x->fns, &fk, &is_new)) && is_new &&
		 (f->name = pp_str_id(x, loc->sym)) < 0)
		return -PMT_ENOMEM;
	if (!f)
		return -PMT_ENOMEM;
	if (!f->filename && file && (f->filename = pp_str_id(x, file)) < 0)
		return -PMT_ENOMEM;
	if (m) {
		m->functions = true;
		m->lines = m->lines || line || inlined;
	}
	return add_line(x, l, f, line);
}

/* the location of ip in process pid: its mapping, functions and lines (one resolve per new
 * (pid, ip)); 0 or -PMT_ENOMEM */
static int locate(struct pp_export *x, int32_t pid, uint64_t ip, uint64_t time,
		  struct ip_ent *ipe)
{
	struct pmt_sym_loc loc;
	struct map_ent *m = NULL;
	struct loc_ent *l;
	struct { uint64_t mapping, address; } lk = { 0, ip };
	bool is_new;

	memset(&loc, 0, sizeof(loc));
	if (x->syms && pmt_symbols_resolve(x->syms, pid, ip, time, &loc) >= 0 && loc.dso) {
		struct { uint64_t dso_id, start; } mk = { (uintptr_t)loc.dso_id, loc.map_start };

		if (!(m = itab_get(&x->maps, &mk, &is_new)))
			return -PMT_ENOMEM;
		if (is_new) {
			m->k.start = loc.map_start;
			if (map_fill(x, m, &loc, pid, ip) < 0)
				return -PMT_ENOMEM;
		}
		lk.mapping = (uint64_t)(((unsigned char *)m - x->maps.ent) / x->maps.esz) + 1;
	}
	if (!(l = itab_get(&x->locs, &lk, &is_new)))
		return -PMT_ENOMEM;
	ipe->loc = (uint32_t)(((unsigned char *)l - x->locs.ent) / x->locs.esz) + 1;
	if (!is_new || !loc.sym)
		return 0;
	return loc_lines(x, l, &loc, m);
}

/* string indexes of the sample's data-source level and of its whole text ("|OP LOAD|LVL
 * L1 hit|SNP None|...", as script -F data_src prints it) into *lvl and *full; 0 ("") for
 * none. 0 or -PMT_ENOMEM */
static int dsrc_str(struct pp_export *x, uint64_t data_src, uint32_t *lvl, uint32_t *full)
{
	char text[64], all[160];
	int64_t id, fid;
	unsigned i = (unsigned)((data_src * 0x9e3779b97f4a7c15ULL) >> 58);

	*lvl = *full = 0;
	if (!data_src)
		return 0;
	if (!x->dsrc[i].valid || x->dsrc[i].key != data_src) {
		pmt_mem_lvl_str(data_src, x->compat, text, sizeof(text));
		pmt_mem_data_src_str(data_src, x->compat, all, sizeof(all));
		if ((id = pp_str_id(x, text)) < 0 || (fid = pp_str_id(x, all)) < 0)
			return -PMT_ENOMEM;
		x->dsrc[i].key = data_src;
		x->dsrc[i].str = (uint32_t)id;
		x->dsrc[i].full = (uint32_t)fid;
		x->dsrc[i].valid = 1;
	}
	*lvl = x->dsrc[i].str;
	*full = x->dsrc[i].full;
	return 0;
}

/* the location cache's entry of (pid, ip), located when new; NULL: out of memory */
static struct ip_ent *ip_entry(struct pp_export *x, int32_t pid, uint64_t ip, uint64_t time)
{
	struct { int64_t pid; uint64_t ip; } ik = { pid, ip };
	struct ip_ent *ipe;
	bool is_new;

	if (!(ipe = itab_get(&x->ips, &ik, &is_new)))
		return NULL;
	if (is_new && locate(x, pid, ip, time, ipe) < 0)
		return NULL;
	return ipe;
}

/* The stack of these n locations (leaf first): its id (entry + 1), 0: out of memory. A
 * stack seen before is found by its key and checked location by location. */
static uint32_t stack_id(struct pp_export *x, const uint32_t *locs, size_t n)
{
	struct { uint64_t hash; uint32_t n, salt; } k = { 0, (uint32_t)n, 0 };
	struct stack_ent *e;
	bool is_new;

	for (;; k.salt++) {
		k.hash = 0x9e3779b97f4a7c15ULL ^ k.salt;
		for (size_t i = 0; i < n; i++)
			k.hash = (k.hash ^ locs[i]) * 0xff51afd7ed558ccdULL;
		if (!(e = itab_get(&x->stacks, &k, &is_new)))
			return 0;
		if (!is_new) {
			if (!memcmp(x->stack_locs + e->first, locs, n * sizeof(*locs)))
				break;
			continue; /* another stack has this hash: the next salt */
		}
		if (x->nstack_locs + n > x->stack_locs_cap) {
			size_t cap = x->stack_locs_cap ? x->stack_locs_cap : 4096;
			uint32_t *p;

			while (cap < x->nstack_locs + n)
				cap *= 2;
			if (cap > UINT32_MAX || !(p = realloc(x->stack_locs, cap * sizeof(*p))))
				return 0;
			x->stack_locs = p;
			x->stack_locs_cap = cap;
		}
		e->first = (uint32_t)x->nstack_locs;
		memcpy(x->stack_locs + x->nstack_locs, locs, n * sizeof(*locs));
		x->nstack_locs += n;
		if (n > x->max_stack)
			x->max_stack = n;
		break;
	}
	return (uint32_t)(((unsigned char *)e - x->stacks.ent) / x->stacks.esz) + 1;
}

/* PERF_CONTEXT_MAX: chain entries at or above it mark kernel, user or guest frames */
#define CONTEXT_MAX ((uint64_t)-4095)

/* The stack of a sample's call chain (perf's callchain: the sampled ip first, its callers
 * after, context markers left out): its id, 0: out of memory */
static uint32_t chain_stack(struct pp_export *x, const struct pmt_spe_sample *s)
{
	const struct pmt_callchain *cc = s->callchain;
	size_t n = 0;

	if (cc->nr > x->chain_cap) {
		uint32_t *p = realloc(x->chain, cc->nr * sizeof(*p));

		if (!p)
			return 0;
		x->chain = p;
		x->chain_cap = cc->nr;
	}
	for (uint64_t i = 0; i < cc->nr; i++) {
		struct ip_ent *ipe;

		if (cc->ips[i] >= CONTEXT_MAX)
			continue;
		if (!(ipe = ip_entry(x, s->pid, cc->ips[i], s->time)))
			return 0;
		x->chain[n++] = ipe->loc;
	}
	if (!n) { /* only markers: the sampled ip */
		struct ip_ent *ipe = ip_entry(x, s->pid, s->ip, s->time);

		if (!ipe)
			return 0;
		x->chain[n++] = ipe->loc;
	}
	x->last_ip = NULL; /* the location cache may have moved */
	return stack_id(x, x->chain, n);
}

static int pp_sample(struct pmt_export *base, const struct pmt_spe_sample *s)
{
	struct pp_export *x = (struct pp_export *)base;
	struct ip_ent *ipe = x->last_ip;
	struct agg_ent *a;
	struct { uint32_t stack, event, lvl, dsrc, cpu; int32_t pid, tid; uint32_t pad; } ak;
	bool is_new;

	if (x->oom)
		return -PMT_ENOMEM;
	if (s->callchain && s->callchain->nr) {
		x->chains = true;
		if ((ak.stack = chain_stack(x, s)) == 0)
			goto oom;
	} else {
		if (!ipe || ipe->k.ip != s->ip || ipe->k.pid != s->pid) {
			if (!(ipe = ip_entry(x, s->pid, s->ip, s->time)))
				goto oom;
			x->last_ip = ipe;
		}
		if (!ipe->stack && !(ipe->stack = stack_id(x, &ipe->loc, 1)))
			goto oom;
		ak.stack = ipe->stack;
	}
	if (dsrc_str(x, s->data_src, &ak.lvl, &ak.dsrc) < 0)
		goto oom;
	if (s->event < 32 && !x->event_str[s->event]) {
		char name[128];

		pmt_trace_event_name(x->meta, s->event, x->compat, name, sizeof(name));
		if ((x->event_str[s->event] = pp_str_id(x, name)) < 0)
			goto oom;
	}
	ak.event = s->event;
	ak.cpu = s->cpu;
	ak.pid = s->pid;
	ak.tid = s->tid;
	ak.pad = 0; /* the key is hashed and compared as bytes, in 8-byte words */
	if (!(a = itab_get(&x->agg, &ak, &is_new)))
		goto oom;
	a->v[V_SAMPLES]++;
	a->v[V_TOTAL_LAT] += (int64_t)s->weight;
	a->v[V_ISSUE_LAT] += s->issue_lat;
	a->v[V_XLAT_LAT] += s->xlat_lat;
	if (!x->nsamples++ || s->time < x->first_time)
		x->first_time = s->time;
	if (s->time > x->last_time)
		x->last_time = s->time;
	return 0;
oom:
	x->last_ip = NULL; /* an entry may have moved */
	x->oom = true;
	return -PMT_ENOMEM;
}

static void pp_free(struct pmt_export *base)
{
	struct pp_export *x = (struct pp_export *)base;

	for (size_t i = 0; i < x->nstr; i++)
		free(x->str[i]);
	free(x->str);
	free(x->str_slot);
	for (size_t i = 0; i < x->nmm; i++)
		free(x->mm[i].filename);
	free(x->mm);
	itab_free(&x->agg);
	itab_free(&x->ips);
	itab_free(&x->locs);
	free(x->lines);
	itab_free(&x->fns);
	itab_free(&x->maps);
	itab_free(&x->stacks);
	free(x->stack_locs);
	free(x->chain);
	free(x->comment);
	free(x->path);
	free(x);
}

static const struct export_ops pp_ops = {
	.sample = pp_sample, .event = pp_event, .finish = pp_finish, .free = pp_free,
};

#define ITAB(type) { .ksz = sizeof(((struct type *)0)->k), .esz = sizeof(struct type) }

int pmt_export_pprof_new(const char *path, const struct pmt_export_opts *opts,
			 struct pmt_export **out, struct pmt_diag *diag)
{
	struct pp_export *x;
	char comment[512];
	int err = export_alloc(sizeof(*x), &pp_ops, path, opts, out, (void **)&x, diag);

	if (err < 0)
		return err;
	x->compat = opts->compat;
	x->syms = PMT_OPTS_HAS(opts, symbols) ? opts->symbols : NULL;
	x->meta = PMT_OPTS_HAS(opts, meta) ? opts->meta : NULL;
	x->agg = (struct itab)ITAB(agg_ent);
	x->ips = (struct itab)ITAB(ip_ent);
	x->locs = (struct itab)ITAB(loc_ent);
	x->fns = (struct itab)ITAB(fn_ent);
	x->maps = (struct itab)ITAB(map_ent);
	x->stacks = (struct itab)ITAB(stack_ent);
	snprintf(comment, sizeof(comment), "%s: %s", pmt_version(),
		 PMT_OPTS_HAS(opts, command) && opts->command ? opts->command
			 : opts->trace_path ? opts->trace_path : "");
	x->path = strdup(path);
	x->comment = strdup(comment);
	if (!x->path || !x->comment || pp_str_id(x, "") != 0) {
		pp_free(&x->base);
		return pmt_diag_set(diag, -PMT_ENOMEM, path, PMT_DIAG_NO_OFFSET, "out of memory");
	}
	*out = &x->base;
	return 0;
}
