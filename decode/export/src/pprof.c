/* Samples into a pprof profile (Google's profile.proto, decode/export/proto/profile.proto,
 * through protobuf-c), gzip'd with zlib. Identical samples (same location, event,
 * data-source level, cpu, pid and tid) are aggregated while decoding in hash tables that
 * grow by doubling: no allocation per sample. The profile is built and written once, by
 * finish. */
#include <stdlib.h>
#include <unistd.h>

#include <zlib.h>

#include "pmutrace/common.h"
#include "pmutrace/perf_abi.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/symbols.h"
#include "pmutrace/export.h"
#include "backend.h"
#include "profile.pb-c.h"

/* the sample types, in Sample.value order */
enum { V_SAMPLES, V_TOTAL_LAT, V_ISSUE_LAT, V_XLAT_LAT, V_N };
static const char *const value_type[V_N][2] = {
	{ "samples", "count" },
	{ "total_latency", "cycles" },
	{ "issue_latency", "cycles" },
	{ "translation_latency", "cycles" },
};

/* A table of fixed-size entries found by their key (the first ksz bytes, a multiple of 8,
 * padding zeroed): entries in insertion order in a dense array, open-addressing slots
 * holding entry index + 1. Both grow by doubling. */
struct itab {
	uint32_t *slot;
	size_t cap;        /* slots, a power of two */
	size_t n;          /* entries */
	size_t ksz, esz;
	unsigned char *ent;
	size_t ent_cap;
};

static uint64_t key_hash(const void *key, size_t ksz)
{
	const unsigned char *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < ksz; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

static void *itab_ent(const struct itab *t, size_t i)
{
	return t->ent + i * t->esz;
}

static size_t itab_find(const struct itab *t, const void *key, uint64_t h)
{
	size_t i = (size_t)h & (t->cap - 1);

	while (t->slot[i] && memcmp(itab_ent(t, t->slot[i] - 1), key, t->ksz))
		i = (i + 1) & (t->cap - 1);
	return i;
}

/* The entry of key (a new one zeroed after its key, *is_new set); NULL: out of memory. */
static void *itab_get(struct itab *t, const void *key, bool *is_new)
{
	uint64_t h = key_hash(key, t->ksz);
	size_t i;
	void *e;

	*is_new = false;
	if (t->cap) {
		i = itab_find(t, key, h);
		if (t->slot[i])
			return itab_ent(t, t->slot[i] - 1);
	}
	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		uint32_t *s = calloc(cap, sizeof(*s));

		if (!s || cap > UINT32_MAX)
			return free(s), NULL;
		free(t->slot);
		t->slot = s;
		t->cap = cap;
		for (size_t j = 0; j < t->n; j++) {
			const void *k = itab_ent(t, j);

			t->slot[itab_find(t, k, key_hash(k, t->ksz))] = (uint32_t)j + 1;
		}
	}
	if (t->n == t->ent_cap) {
		size_t n = t->ent_cap ? 2 * t->ent_cap : 256;
		unsigned char *p = realloc(t->ent, n * t->esz);

		if (!p)
			return NULL;
		t->ent = p;
		t->ent_cap = n;
	}
	e = itab_ent(t, t->n);
	memset(e, 0, t->esz);
	memcpy(e, key, t->ksz);
	t->slot[itab_find(t, key, h)] = (uint32_t)++t->n;
	*is_new = true;
	return e;
}

static void itab_free(struct itab *t)
{
	free(t->slot);
	free(t->ent);
}

/* Entries. Ids in the profile are entry index + 1. */
struct agg_ent {
	struct { uint32_t loc, event, lvl, cpu; int32_t pid, tid; } k; /* lvl: string index */
	int64_t v[V_N];
};
struct ip_ent { /* (pid, ip) -> location: a cache in front of resolving */
	struct { int64_t pid; uint64_t ip; } k;
	uint32_t loc;
};
struct loc_ent { /* one location per (mapping, address) */
	struct { uint64_t mapping, address; } k;
	uint64_t function;
	int64_t line;
};
struct fn_ent {
	struct { uint64_t sym_id; } k;
	int64_t name, filename;
};
struct map_ent {
	struct { uint64_t dso_id, start; } k;
	uint64_t limit, offset;
	int64_t filename, build_id;
	bool functions, lines;
};
/* what MMAP/MMAP2 records said, newest last (looked up once per new mapping) */
struct mmap_ent {
	int32_t pid;
	uint64_t addr, len;
	char *filename;
	uint8_t bid_size, bid[20];
};

#define DSRC_SLOTS 64

struct pp_export {
	struct pmt_export base; /* first: the handle */
	char *path;
	int compat;
	struct pmt_symbols *syms;
	const struct pmt_trace_meta *meta;
	char *comment;
	/* strings: dense array of our copies, hashed by their text */
	char **str;
	size_t nstr, str_cap;
	uint32_t *str_slot;
	size_t str_slots;
	struct itab agg, ips, locs, fns, maps;
	struct mmap_ent *mm;
	size_t nmm, mm_cap;
	int64_t event_str[32];       /* event name string index, 0: not yet */
	struct { uint64_t key; uint32_t str; uint8_t valid; } dsrc[DSRC_SLOTS];
	struct ip_ent *last_ip;
	int64_t nsamples;
	uint64_t first_time, last_time;
	bool oom;
};

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

/* string_table index of s (added when new); -PMT_ENOMEM */
static int64_t str_id(struct pp_export *x, const char *s)
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
	return str_id(x, hex);
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
	if ((m->filename = str_id(x, loc->dso)) < 0)
		return (int)m->filename;
	if (bid_size && (m->build_id = hex_str(x, bid, bid_size)) < 0)
		return (int)m->build_id;
	return 0;
}

/* the location of ip in process pid: its mapping, function and line (one resolve per new
 * (pid, ip)); 0 or -PMT_ENOMEM */
static int locate(struct pp_export *x, const struct pmt_spe_sample *s, struct ip_ent *ipe)
{
	struct pmt_sym_loc loc;
	struct map_ent *m = NULL;
	struct loc_ent *l;
	struct { uint64_t mapping, address; } lk = { 0, s->ip };
	bool is_new;

	memset(&loc, 0, sizeof(loc));
	if (x->syms && pmt_symbols_resolve(x->syms, s->pid, s->ip, s->time, &loc) >= 0 && loc.dso) {
		struct { uint64_t dso_id, start; } mk = { (uintptr_t)loc.dso_id, loc.map_start };

		if (!(m = itab_get(&x->maps, &mk, &is_new)))
			return -PMT_ENOMEM;
		if (is_new) {
			m->k.start = loc.map_start;
			if (map_fill(x, m, &loc, s->pid, s->ip) < 0)
				return -PMT_ENOMEM;
		}
		lk.mapping = (uint64_t)(((unsigned char *)m - x->maps.ent) / x->maps.esz) + 1;
	}
	if (!(l = itab_get(&x->locs, &lk, &is_new)))
		return -PMT_ENOMEM;
	ipe->loc = (uint32_t)(((unsigned char *)l - x->locs.ent) / x->locs.esz) + 1;
	if (!is_new || !loc.sym)
		return 0;
	{
		struct { uint64_t sym_id; } fk = { (uintptr_t)loc.sym_id };
		struct fn_ent *f = itab_get(&x->fns, &fk, &is_new);
		const char *file = NULL;
		unsigned line = 0;
		uint64_t vaddr;

		if (!f)
			return -PMT_ENOMEM;
		if (is_new && (f->name = str_id(x, loc.sym)) < 0)
			return -PMT_ENOMEM;
		l->function = (uint64_t)(((unsigned char *)f - x->fns.ent) / x->fns.esz) + 1;
		if (m)
			m->functions = true;
		if (pmt_symbols_srcline(x->syms, &loc, &file, &line, &vaddr) == 1) {
			l->line = line;
			if (m)
				m->lines = true;
			if (!f->filename && file && (f->filename = str_id(x, file)) < 0)
				return -PMT_ENOMEM;
		}
	}
	return 0;
}

/* string index of the sample's data-source level as perf prints it, 0 ("") for none */
static int64_t lvl_str(struct pp_export *x, uint64_t data_src)
{
	char text[64];
	int64_t id;
	unsigned i = (unsigned)((data_src * 0x9e3779b97f4a7c15ULL) >> 58);

	if (!data_src)
		return 0;
	if (x->dsrc[i].valid && x->dsrc[i].key == data_src)
		return x->dsrc[i].str;
	pmt_mem_lvl_str(data_src, x->compat, text, sizeof(text));
	if ((id = str_id(x, text)) < 0)
		return id;
	x->dsrc[i].key = data_src;
	x->dsrc[i].str = (uint32_t)id;
	x->dsrc[i].valid = 1;
	return id;
}

static int pp_sample(struct pmt_export *base, const struct pmt_spe_sample *s)
{
	struct pp_export *x = (struct pp_export *)base;
	struct ip_ent *ipe = x->last_ip;
	struct agg_ent *a;
	struct { uint32_t loc, event, lvl, cpu; int32_t pid, tid; } ak;
	int64_t lvl;
	bool is_new;

	if (x->oom)
		return -PMT_ENOMEM;
	if (!ipe || ipe->k.ip != s->ip || ipe->k.pid != s->pid) {
		struct { int64_t pid; uint64_t ip; } ik = { s->pid, s->ip };

		if (!(ipe = itab_get(&x->ips, &ik, &is_new)))
			goto oom;
		if (is_new && locate(x, s, ipe) < 0)
			goto oom;
		x->last_ip = ipe;
	}
	if ((lvl = lvl_str(x, s->data_src)) < 0)
		goto oom;
	if (s->event < 32 && !x->event_str[s->event] &&
	    (x->event_str[s->event] = str_id(x, pmt_spe_event_name(s->event, x->compat))) < 0)
		goto oom;
	ak.loc = ipe->loc;
	ak.event = s->event;
	ak.lvl = (uint32_t)lvl;
	ak.cpu = s->cpu;
	ak.pid = s->pid;
	ak.tid = s->tid;
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

/* the profile's message arrays, allocated once by finish */
struct pp_msgs {
	Perftools__Profiles__ValueType vt[V_N + 1], *vtp[V_N];
	Perftools__Profiles__Sample *smp, **smpp;
	Perftools__Profiles__Label *lab, **labp;
	uint64_t *loc_ids;
	int64_t *values;
	Perftools__Profiles__Mapping *map, **mapp;
	Perftools__Profiles__Location *loc, **locp;
	Perftools__Profiles__Line *line, **linep;
	Perftools__Profiles__Function *fn, **fnp;
};

static void msgs_free(struct pp_msgs *m)
{
	free(m->smp);
	free(m->smpp);
	free(m->lab);
	free(m->labp);
	free(m->loc_ids);
	free(m->values);
	free(m->map);
	free(m->mapp);
	free(m->loc);
	free(m->locp);
	free(m->line);
	free(m->linep);
	free(m->fn);
	free(m->fnp);
}

enum { L_EVENT, L_LVL, L_CPU, L_PID, L_TID, L_UNIT, L_N };

/* the string indexes every profile needs (label keys, units, sample types) */
static int fixed_strings(struct pp_export *x, int64_t key[L_N], int64_t vt[V_N][2])
{
	static const char *const names[L_N] = { "event", "mem_lvl", "cpu", "pid", "tid", "id" };

	for (int i = 0; i < L_N; i++)
		if ((key[i] = str_id(x, names[i])) < 0)
			return -PMT_ENOMEM;
	for (int i = 0; i < V_N; i++)
		for (int j = 0; j < 2; j++)
			if ((vt[i][j] = str_id(x, value_type[i][j])) < 0)
				return -PMT_ENOMEM;
	return 0;
}

static int build(struct pp_export *x, Perftools__Profiles__Profile *p, struct pp_msgs *m)
{
	size_t ns = x->agg.n, nl = x->locs.n, nm = x->maps.n, nf = x->fns.n;
	int64_t key[L_N], vt[V_N][2];
	size_t nlab = 0;

	if (fixed_strings(x, key, vt) < 0)
		return -PMT_ENOMEM;
	m->smp = calloc(ns + 1, sizeof(*m->smp));
	m->smpp = calloc(ns + 1, sizeof(*m->smpp));
	m->lab = calloc(L_N * ns + 1, sizeof(*m->lab));
	m->labp = calloc(L_N * ns + 1, sizeof(*m->labp));
	m->loc_ids = calloc(ns + 1, sizeof(*m->loc_ids));
	m->values = calloc(V_N * ns + 1, sizeof(*m->values));
	m->map = calloc(nm + 1, sizeof(*m->map));
	m->mapp = calloc(nm + 1, sizeof(*m->mapp));
	m->loc = calloc(nl + 1, sizeof(*m->loc));
	m->locp = calloc(nl + 1, sizeof(*m->locp));
	m->line = calloc(nl + 1, sizeof(*m->line));
	m->linep = calloc(nl + 1, sizeof(*m->linep));
	m->fn = calloc(nf + 1, sizeof(*m->fn));
	m->fnp = calloc(nf + 1, sizeof(*m->fnp));
	if (!m->smp || !m->smpp || !m->lab || !m->labp || !m->loc_ids || !m->values || !m->map ||
	    !m->mapp || !m->loc || !m->locp || !m->line || !m->linep || !m->fn || !m->fnp)
		return -PMT_ENOMEM;
	for (int i = 0; i < V_N; i++) {
		perftools__profiles__value_type__init(&m->vt[i]);
		m->vt[i].type = vt[i][0];
		m->vt[i].unit = vt[i][1];
		m->vtp[i] = &m->vt[i];
	}
	perftools__profiles__value_type__init(&m->vt[V_N]);
	m->vt[V_N].type = vt[V_SAMPLES][0];
	m->vt[V_N].unit = vt[V_SAMPLES][1];
	p->n_sample_type = V_N;
	p->sample_type = m->vtp;
	p->period_type = &m->vt[V_N];
	p->default_sample_type = vt[V_SAMPLES][0];
	for (size_t i = 0; i < ns; i++) {
		const struct agg_ent *a = itab_ent(&x->agg, i);
		Perftools__Profiles__Sample *s = &m->smp[i];
		Perftools__Profiles__Label *l = &m->lab[nlab];
		size_t k = 0;

		perftools__profiles__sample__init(s);
		m->loc_ids[i] = a->k.loc;
		s->n_location_id = 1;
		s->location_id = &m->loc_ids[i];
		memcpy(&m->values[V_N * i], a->v, sizeof(a->v));
		s->n_value = V_N;
		s->value = &m->values[V_N * i];
		for (int j = 0; j < L_N; j++)
			perftools__profiles__label__init(&l[j]);
		l[k].key = key[L_EVENT];
		l[k++].str = a->k.event < 32 ? x->event_str[a->k.event] : 0;
		if (a->k.lvl) {
			l[k].key = key[L_LVL];
			l[k++].str = a->k.lvl;
		}
		/* numbers with a unit: pprof drops a numeric label of 0 without one (cpu 0,
		 * the idle task's pid and tid 0) */
		l[k].key = key[L_CPU];
		l[k].num_unit = key[L_UNIT];
		l[k++].num = a->k.cpu;
		l[k].key = key[L_PID];
		l[k].num_unit = key[L_UNIT];
		l[k++].num = a->k.pid;
		l[k].key = key[L_TID];
		l[k].num_unit = key[L_UNIT];
		l[k++].num = a->k.tid;
		s->n_label = k;
		s->label = &m->labp[nlab];
		for (size_t j = 0; j < k; j++)
			m->labp[nlab + j] = &l[j];
		nlab += k;
		m->smpp[i] = s;
	}
	p->n_sample = ns;
	p->sample = m->smpp;
	for (size_t i = 0; i < nm; i++) {
		const struct map_ent *e = itab_ent(&x->maps, i);
		Perftools__Profiles__Mapping *o = &m->map[i];

		perftools__profiles__mapping__init(o);
		o->id = i + 1;
		o->memory_start = e->k.start;
		o->memory_limit = e->limit;
		o->file_offset = e->offset;
		o->filename = e->filename;
		o->build_id = e->build_id;
		o->has_functions = e->functions;
		o->has_filenames = e->lines;
		o->has_line_numbers = e->lines;
		m->mapp[i] = o;
	}
	p->n_mapping = nm;
	p->mapping = m->mapp;
	for (size_t i = 0; i < nl; i++) {
		const struct loc_ent *e = itab_ent(&x->locs, i);
		Perftools__Profiles__Location *o = &m->loc[i];

		perftools__profiles__location__init(o);
		o->id = i + 1;
		o->mapping_id = e->k.mapping;
		o->address = e->k.address;
		if (e->function) {
			perftools__profiles__line__init(&m->line[i]);
			m->line[i].function_id = e->function;
			m->line[i].line = e->line;
			m->linep[i] = &m->line[i];
			o->n_line = 1;
			o->line = &m->linep[i];
		}
		m->locp[i] = o;
	}
	p->n_location = nl;
	p->location = m->locp;
	for (size_t i = 0; i < nf; i++) {
		const struct fn_ent *e = itab_ent(&x->fns, i);
		Perftools__Profiles__Function *o = &m->fn[i];

		perftools__profiles__function__init(o);
		o->id = i + 1;
		o->name = e->name;
		o->system_name = e->name;
		o->filename = e->filename;
		m->fnp[i] = o;
	}
	p->n_function = nf;
	p->function = m->fnp;
	if (x->nsamples)
		p->duration_nanos = (int64_t)(x->last_time - x->first_time);
	return 0;
}

/* the packed profile through gzip into path */
static int write_gz(const char *path, const uint8_t *buf, size_t len, struct pmt_diag *diag)
{
	int fd = strcmp(path, "-") ? -1 : dup(STDOUT_FILENO);
	gzFile gz = fd >= 0 ? gzdopen(fd, "wb") : gzopen(path, "wb");
	int ok = gz != NULL;

	if (!gz && fd >= 0)
		close(fd);
	while (ok && len) {
		unsigned n = len > (1u << 30) ? 1u << 30 : (unsigned)len;

		ok = gzwrite(gz, buf, n) == (int)n;
		buf += n;
		len -= n;
	}
	if (gz && gzclose(gz) != Z_OK)
		ok = 0;
	return ok ? 0 : pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET,
				     "cannot write the gzip'd profile");
}

static int64_t pp_finish(struct pmt_export *base, const struct pmt_spe_rec_stats *stats,
			 uint32_t enabled, struct pmt_diag *diag)
{
	struct pp_export *x = (struct pp_export *)base;
	Perftools__Profiles__Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	struct pp_msgs m;
	int64_t comment = 0;
	uint8_t *buf = NULL;
	size_t len;
	int rc;

	memset(&m, 0, sizeof(m));
	if (x->oom || (x->comment && (comment = str_id(x, x->comment)) < 0) ||
	    build(x, &p, &m) < 0) {
		msgs_free(&m);
		return pmt_diag_set(diag, -PMT_ENOMEM, x->path, PMT_DIAG_NO_OFFSET,
				    "out of memory building the profile");
	}
	if (comment) {
		p.n_comment = 1;
		p.comment = &comment;
	}
	/* the string table last: building added its strings */
	p.n_string_table = x->nstr;
	p.string_table = x->str;
	len = perftools__profiles__profile__get_packed_size(&p);
	buf = malloc(len ? len : 1);
	if (!buf) {
		msgs_free(&m);
		return pmt_diag_set(diag, -PMT_ENOMEM, x->path, PMT_DIAG_NO_OFFSET,
				    "out of memory packing the profile");
	}
	perftools__profiles__profile__pack(&p, buf);
	msgs_free(&m);
	rc = write_gz(x->path, buf, len, diag);
	free(buf);
	return rc < 0 ? rc : x->nsamples;
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
	itab_free(&x->fns);
	itab_free(&x->maps);
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
	snprintf(comment, sizeof(comment), "%s: %s", pmt_version(),
		 PMT_OPTS_HAS(opts, command) && opts->command ? opts->command
			 : opts->trace_path ? opts->trace_path : "");
	x->path = strdup(path);
	x->comment = strdup(comment);
	if (!x->path || !x->comment || str_id(x, "") != 0) {
		pp_free(&x->base);
		return pmt_diag_set(diag, -PMT_ENOMEM, path, PMT_DIAG_NO_OFFSET, "out of memory");
	}
	*out = &x->base;
	return 0;
}
