/* Counts from a recording's STAT records (perf stat record's, and pmutrace stat -o's):
 * tools/lib/perf/include/perf/event.h for the layouts, util/stat.c for the arithmetic
 * (deltas between interval rounds, perf_counts_values__scale per counter, sums per
 * aggregation unit). Streamed round by round, so memory does not grow with the rounds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

#include "counts_trace_priv.h"
#include "stat_cols.h"

/* the reader's state and layouts: counts_trace_priv.h (counts_trace_cols.c reads counts
 * frames into it) */

static uint16_t r16(const struct pmt_counts_trace *t, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return t->swapped ? __builtin_bswap16(v) : v;
}

static uint32_t r32(const struct pmt_counts_trace *t, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return t->swapped ? __builtin_bswap32(v) : v;
}

static uint64_t r64(const struct pmt_counts_trace *t, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return t->swapped ? __builtin_bswap64(v) : v;
}

static int id_cmp(const void *a, const void *b)
{
	const struct id_ent *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* perf writes the STAT records of a round in id order (counter by counter, CPU by CPU), so
 * the entry after the last one found is tried before a search: a bsearch per record was
 * the largest part of reading a 67M-record trace. */
static int find_attr(struct pmt_counts_trace *t, uint64_t id)
{
	struct id_ent key = { .id = id }, *e;

	if (t->next_id < t->nids && t->ids[t->next_id].id == id)
		e = &t->ids[t->next_id];
	else if (!(e = bsearch(&key, t->ids, t->nids, sizeof(*t->ids), id_cmp)))
		return -1;
	t->next_id = (size_t)(e - t->ids) + 1 < t->nids ? (size_t)(e - t->ids) + 1 : 0;
	return (int)e->attr;
}

static void damaged_at(struct pmt_counts_trace *t, uint32_t type, uint32_t size, uint64_t off,
		       const char *what)
{
	/* the first names the problem; close() counts the rest in one line */
	if (t->skipped++)
		return;
	pmt_diag_warn(&t->damage, -PMT_ECORRUPT, t->path, off, 0,
		      "%s record of %u bytes is damaged (%s); skipped",
		      pmt_perf_record_name(type), size, what);
}

static void damaged(struct pmt_counts_trace *t, const struct pmt_trace_event *ev, const char *what)
{
	damaged_at(t, ev->type, ev->raw_size, ev->file_offset, what);
}

static bool parse_cpu_map(struct pmt_counts_trace *t, const struct pmt_trace_event *ev)
{
	const uint8_t *r = ev->raw;
	uint32_t sz = ev->raw_size;
	uint16_t type;

	if (sz < 12)
		return damaged(t, ev, "no map type"), false;
	type = r16(t, r + 8);
	t->ncpu = 0;
	if (type == 0) { /* PERF_CPU_MAP__CPUS: u16 nr, u16 cpu[nr] */
		uint16_t nr = r16(t, r + 10);

		if (12 + 2 * (size_t)nr > sz || nr > MAX_CPUS)
			return damaged(t, ev, "more CPUs than the record holds"), false;
		for (uint16_t i = 0; i < nr; i++) {
			uint16_t c = r16(t, r + 12 + 2 * i);

			t->cpu[t->ncpu++] = c == 0xffff ? -1 : c;
		}
	} else if (type == 1) { /* PERF_CPU_MAP__MASK: u16 nr, u16 long_size, masks */
		uint16_t nr = sz >= 14 ? r16(t, r + 10) : 0, ls = sz >= 14 ? r16(t, r + 12) : 0;
		size_t off = ls == 8 ? 18 : 14;

		if ((ls != 4 && ls != 8) || off + (size_t)nr * ls > sz)
			return damaged(t, ev, "bad mask size"), false;
		for (uint32_t w = 0; w < nr; w++) {
			uint64_t m = ls == 8 ? r64(t, r + off + 8 * w) : r32(t, r + off + 4 * w);

			for (uint32_t b = 0; b < ls * 8u; b++)
				if ((m >> b & 1) && t->ncpu < MAX_CPUS)
					t->cpu[t->ncpu++] = (int32_t)(w * ls * 8 + b);
		}
	} else if (type == 2) { /* PERF_CPU_MAP__RANGE_CPUS: any_cpu, pad, start, end */
		uint16_t lo, hi;

		if (sz < 16)
			return damaged(t, ev, "short range"), false;
		lo = r16(t, r + 12);
		hi = r16(t, r + 14);
		if (hi < lo || hi >= MAX_CPUS)
			return damaged(t, ev, "bad range"), false;
		if (r[10])
			t->cpu[t->ncpu++] = -1;
		for (uint32_t c = lo; c <= hi; c++)
			t->cpu[t->ncpu++] = (int32_t)c;
	} else {
		return damaged(t, ev, "unknown map type"), false;
	}
	return true;
}

/* a damaged map leaves the one before (the default: one CPU, -1) */
static void cpu_map(struct pmt_counts_trace *t, const struct pmt_trace_event *ev)
{
	uint32_t keep = t->ncpu;

	if (!parse_cpu_map(t, ev))
		t->ncpu = keep;
}

static void event_update(struct pmt_counts_trace *t, const struct pmt_trace_event *ev)
{
	const uint8_t *r = ev->raw;
	uint64_t type;
	int a;

	if (ev->raw_size < 24)
		return damaged(t, ev, "no type and id");
	type = r64(t, r + 8);
	a = find_attr(t, r64(t, r + 16));
	if (a < 0)
		return; /* an id no attr has: perf ignores it too */
	if (type == UPDATE_NAME) {
		size_t n = strnlen((const char *)r + 24, ev->raw_size - 24);

		if (n && n < sizeof(t->name[0])) {
			memcpy(t->name[a], r + 24, n);
			t->name[a][n] = 0;
		}
	} else if (type == UPDATE_SCALE && ev->raw_size >= 32) {
		uint64_t bits = r64(t, r + 24);
		double d;

		memcpy(&d, &bits, 8);
		if (d > 0 && isfinite(d))
			t->scale[a] = d;
	}
}

static void stat_config(struct pmt_counts_trace *t, const struct pmt_trace_event *ev)
{
	uint64_t nr = ev->raw_size >= 16 ? r64(t, ev->raw + 8) : 0;

	if (ev->raw_size < 16 || nr > (ev->raw_size - 16) / 16)
		return damaged(t, ev, "more terms than the record holds");
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t tag = r64(t, ev->raw + 16 + 16 * i), v = r64(t, ev->raw + 24 + 16 * i);

		if (tag == CONFIG_AGGR_MODE)
			t->aggr_mode = v;
		else if (tag == CONFIG_INTERVAL)
			t->interval_ms = v;
	}
	ct_fast_off(t);
	t->units_ok = false;
}

/* sized at the first STAT, when the maps are known; made again (the counts so far
 * dropped) when a damaged file changes the maps or the attrs after that */
int ct_alloc_values(struct pmt_counts_trace *t)
{
	size_t n = (size_t)t->nattr * t->ncpu * t->nthr;

	if (t->cur && t->v_nattr == t->nattr && t->v_ncpu == t->ncpu && t->v_nthr == t->nthr)
		return 0;
	free(t->cur);
	free(t->prev);
	free(t->cur_set);
	free(t->cur_stamp);
	free(t->sum);
	free(t->slot_sum);
	t->fast = t->sum_clean = t->cur_stale = false;
	t->fast_n = 0;
	t->v_nattr = t->nattr;
	t->v_ncpu = t->ncpu;
	t->v_nthr = t->nthr;
	t->slot_ok = false;
	t->units_ok = false;

	/* the maps are fixed from the first STAT on */
	memset(t->cpu_index, 0xff, sizeof(t->cpu_index));
	for (uint32_t k = t->ncpu; k-- > 0;)
		if (t->cpu[k] >= 0 && t->cpu[k] < MAX_CPUS)
			t->cpu_index[t->cpu[k]] = (int16_t)k;
	t->cur = calloc(n ? n : 1, sizeof(*t->cur));
	t->prev = calloc(n ? n : 1, sizeof(*t->prev));
	t->cur_set = calloc(n ? n : 1, 1);
	t->cur_stamp = calloc(n ? n : 1, sizeof(*t->cur_stamp));
	/* one unit per CPU or thread, or one for all (also when a damaged file has no CPU) */
	t->sum = calloc((size_t)(t->ncpu > t->nthr ? t->ncpu : t->nthr ? t->nthr : 1) * t->nattr + 1,
			sizeof(*t->sum));
	t->slot_sum = calloc(n ? n : 1, sizeof(*t->slot_sum));
	return t->cur && t->prev && t->cur_set && t->cur_stamp && t->sum && t->slot_sum ?
	       0 : -PMT_ENOMEM;
}

/* A STAT's place in cur[]: -1 for an id no attr has, -2 for a CPU or thread outside the
 * maps */
ptrdiff_t ct_stat_slot(struct pmt_counts_trace *t, uint64_t id, uint32_t ci, uint32_t ti)
{
	int a = find_attr(t, id);

	if (a < 0)
		return -1;
	if (!t->want[a])
		return SLOT_NOT_WANTED;
	/* perf writes the CPU (-1 for a thread's counter); an index into the CPU map, which
	 * pmutrace stat -o wrote until it wrote CPUs too, when no CPU of the map matches */
	if (ci < MAX_CPUS && t->cpu_index[ci] >= 0)
		ci = (uint32_t)t->cpu_index[ci];
	else if (ci >= MAX_CPUS) /* -1 (a thread's counter), or a damaged map's number */
		for (uint32_t k = 0; k < t->ncpu; k++)
			if (t->cpu[k] == (int32_t)ci) {
				ci = k;
				break;
			}
	if (ci >= t->ncpu || ti >= t->nthr)
		return -2;
	return (ptrdiff_t)(((size_t)a * t->ncpu + ci) * t->nthr + ti);
}

void ct_stat_left_out(struct pmt_counts_trace *t, ptrdiff_t slot, uint64_t id, uint64_t off,
			  uint32_t size)
{
	if (slot == -2)
		return damaged_at(t, REC_STAT, size, off, "CPU or thread index outside the maps");
	if (!t->warned_ids)
		pmt_diag_warn(&t->damage, -PMT_ECORRUPT, t->path, off, 0,
			      "STAT of id %llu, which no attr has; such counts are left out",
			      (unsigned long long)id);
	t->warned_ids = true;
	t->unknown_ids++;
}

static int stat_rec(struct pmt_counts_trace *t, const struct pmt_trace_event *ev)
{
	ptrdiff_t slot;
	struct cval *v;

	/* sized once: the call only when the sizes moved */
	if ((!t->cur || t->v_nattr != t->nattr || t->v_ncpu != t->ncpu || t->v_nthr != t->nthr) &&
	    ct_alloc_values(t) < 0)
		return -PMT_ENOMEM;
	if (ev->raw_size < 48)
		return damaged(t, ev, "shorter than 48 bytes"), 0;
	slot = ct_stat_slot(t, r64(t, ev->raw + 8), r32(t, ev->raw + 16), r32(t, ev->raw + 20));
	if (slot == SLOT_NOT_WANTED) {
		t->stats++;
		return 0;
	}
	if (slot < 0)
		return ct_stat_left_out(t, slot, r64(t, ev->raw + 8), ev->file_offset, ev->raw_size), 0;
	ct_fast_off(t);
	v = &t->cur[slot];
	v->val = r64(t, ev->raw + 24);
	v->ena = r64(t, ev->raw + 32);
	v->run = r64(t, ev->raw + 40);
	t->cur_set[slot] = 1;
	t->stats++;
	return 0;
}

/* the aggregation a recording asks for with its STAT_CONFIG, where it can be had */
static enum pmt_counts_aggr recorded_aggr(struct pmt_counts_trace *t)
{
	const struct pmt_cpu_topology *topo = pmt_source_meta(t->src)->topology;

	switch (t->aggr_mode) {
	case PERF_AGGR_GLOBAL: return PMT_COUNTS_GLOBAL;
	case PERF_AGGR_NONE: return PMT_COUNTS_PER_CPU;
	default: break;
	}
	if (topo && (t->aggr_mode == PERF_AGGR_SOCKET || t->aggr_mode == PERF_AGGR_DIE ||
		     t->aggr_mode == PERF_AGGR_CORE))
		return t->aggr_mode == PERF_AGGR_SOCKET ? PMT_COUNTS_PER_SOCKET :
		       t->aggr_mode == PERF_AGGR_DIE ? PMT_COUNTS_PER_DIE : PMT_COUNTS_PER_CORE;
	if (!t->warned_aggr)
		pmt_warn("%s: recorded with aggregation mode %llu, which needs %s: the counts are "
			 "given per CPU", t->path, (unsigned long long)t->aggr_mode,
			 topo ? "a mode pmutrace does not know (socket 2, die 3, core 6)"
			      : "the CPU topology the recording lacks");
	t->warned_aggr = true;
	return PMT_COUNTS_PER_CPU;
}

/* A CPU's place in the topology as a sortable key: socket, die, core (the parts the
 * aggregation leaves out are 0); -1 ids (offline, unknown) sort first. */
static uint64_t topo_key(const struct pmt_cpu_topology *topo, int32_t cpu,
			 enum pmt_counts_aggr a, int32_t id[3])
{
	bool in = cpu >= 0 && (uint32_t)cpu < topo->nr_cpus;

	id[0] = in ? topo->socket_id[cpu] : -1;
	/* a file without die lists (perf < 5.3) has one die per socket */
	id[1] = a == PMT_COUNTS_PER_SOCKET ? 0 : in && topo->die_id ? topo->die_id[cpu] : 0;
	id[2] = a == PMT_COUNTS_PER_CORE ? (in ? topo->core_id[cpu] : -1) : 0;
	return (uint64_t)(((uint32_t)id[0] + 1) & 0x1fffff) << 42 |
	       (uint64_t)(((uint32_t)id[1] + 1) & 0x1fffff) << 21 |
	       (((uint32_t)id[2] + 1) & 0x1fffff);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Which unit each CPU's counts go to, the units' names and their CPUs, in perf's order
 * (by socket, die, core; CPUs by their place in the map). */
/* perf stat report's --per-thread rows: a unit per thread of the map, named as perf names
 * it (COMM-TID), for a recording made per thread with that aggregation */
static int thread_units(struct pmt_counts_trace *t)
{
	free(t->unit_name);
	t->unit_name = calloc(t->nthr, sizeof(*t->unit_name));
	if (!t->unit_name)
		return -PMT_ENOMEM;
	memcpy(t->unit_name, t->thread, t->nthr * sizeof(*t->unit_name));
	t->nunits = t->nthr;
	t->per_thread = true;
	return 0;
}

static int make_units(struct pmt_counts_trace *t)
{
	enum pmt_counts_aggr a = t->aggr == PMT_COUNTS_AS_RECORDED &&
					 t->aggr_mode != PERF_AGGR_THREAD ? recorded_aggr(t) : t->aggr;
	const struct pmt_cpu_topology *topo = pmt_source_meta(t->src)->topology;
	bool by_topo = a == PMT_COUNTS_PER_CORE || a == PMT_COUNTS_PER_DIE ||
		       a == PMT_COUNTS_PER_SOCKET;
	uint64_t keys[MAX_CPUS];
	uint32_t n = 0, next[MAX_CPUS];
	int32_t id[3];

	/* the frames' sum[] entries and the sums' extent follow the units */
	t->slot_ok = t->sum_clean = false;
	if (t->aggr == PMT_COUNTS_AS_RECORDED && t->aggr_mode == PERF_AGGR_THREAD && t->thread &&
	    t->ncpu == 1 && t->cpu[0] < 0)
		return thread_units(t);
	if (a == PMT_COUNTS_GLOBAL || !t->ncpu || (t->ncpu == 1 && t->cpu[0] < 0) ||
	    (by_topo && !topo)) {
		for (uint32_t ci = 0; ci < t->ncpu; ci++)
			t->unit_of[ci] = 0;
		n = 1;
	} else if (!by_topo) {
		for (uint32_t ci = 0; ci < t->ncpu; ci++)
			t->unit_of[ci] = ci;
		n = t->ncpu;
	} else {
		for (uint32_t ci = 0; ci < t->ncpu; ci++)
			keys[ci] = topo_key(topo, t->cpu[ci], a, id);
		qsort(keys, t->ncpu, sizeof(keys[0]), cmp_u64);
		for (uint32_t ci = 0; ci < t->ncpu; ci++)
			if (!n || keys[n - 1] != keys[ci])
				keys[n++] = keys[ci];
		for (uint32_t ci = 0; ci < t->ncpu; ci++) {
			uint64_t k = topo_key(topo, t->cpu[ci], a, id);
			uint64_t *f = bsearch(&k, keys, n, sizeof(keys[0]), cmp_u64);

			t->unit_of[ci] = (uint32_t)(f - keys);
		}
	}
	free(t->unit_name);
	t->unit_name = calloc(n, sizeof(*t->unit_name));
	if (!t->unit_name)
		return -PMT_ENOMEM;
	t->nunits = n;
	/* the CPUs grouped by unit, each unit's in map order (a counting sort) */
	memset(t->unit_first, 0, sizeof(t->unit_first[0]) * (n + 1));
	for (uint32_t ci = 0; ci < t->ncpu; ci++)
		t->unit_first[t->unit_of[ci] + 1]++;
	for (uint32_t u = 0; u < n; u++)
		t->unit_first[u + 1] += t->unit_first[u];
	memcpy(next, t->unit_first, sizeof(next[0]) * n);
	for (uint32_t ci = 0; ci < t->ncpu; ci++)
		t->unit_cpus[next[t->unit_of[ci]]++] = t->cpu[ci];
	/* a total (or a thread's counts) has no name: perf prints none */
	if (a == PMT_COUNTS_GLOBAL || (t->ncpu && t->cpu[0] < 0) || (by_topo && !topo))
		return 0;
	for (uint32_t ci = 0; ci < t->ncpu; ci++) {
		char *name = t->unit_name[t->unit_of[ci]];
		size_t cap = sizeof(t->unit_name[0]);

		if (!by_topo) {
			snprintf(name, cap, "CPU%d", t->cpu[ci]);
			continue;
		}
		topo_key(topo, t->cpu[ci], a, id);
		if (a == PMT_COUNTS_PER_SOCKET)
			snprintf(name, cap, "S%d", id[0]);
		else if (a == PMT_COUNTS_PER_DIE)
			snprintf(name, cap, "S%d-D%d", id[0], id[1]);
		else
			snprintf(name, cap, "S%d-D%d-C%d", id[0], id[1], id[2]);
	}
	return 0;
}

int ct_round_units(struct pmt_counts_trace *t, struct pmt_counts *c, uint64_t time_ns)
{
	uint32_t nu;
	char iv[48];
	const char *ivp = NULL;
	int rc;

	t->round_prev = t->round_time;
	t->round_time = time_ns;
	if (t->interval_ms) {
		snprintf(iv, sizeof(iv), "%llu.%09llu", (unsigned long long)(time_ns / 1000000000ull),
			 (unsigned long long)(time_ns % 1000000000ull));
		ivp = iv;
	}
	pmt_counts_clear_units(c);
	if (!t->cur)
		return 0; /* a round before any STAT */
	if (ct_alloc_values(t) < 0)
		return -PMT_ENOMEM;
	/* the units hold from the first STAT on, unless the aggregation changes */
	if (!t->units_ok) {
		if ((rc = make_units(t)) < 0)
			return rc;
		ct_slot_sums(t);
	}
	t->units_ok = true;
	nu = t->nunits;
	if (!t->fast) {
		if (!t->sum_clean)
			ct_clear_sums(t);
		ct_sum_round(t);
	} else {
		ct_fast_end(t);
	}
	for (uint32_t u = 0; u < nu; u++) {
		int unit = pmt_counts_unit(c, ivp, t->unit_name[u]);

		if (unit < 0)
			return unit;
		for (uint32_t w = 0; w < t->nwattr; w++) {
			uint32_t a = t->wattr[w];
			const struct usum *s = &t->sum[(size_t)u * t->nattr + a];

			if (s->set && !t->again[a])
				pmt_counts_add(c, unit, t->col[a],
					       s->run && s->ena ? s->val * t->scale[a] : NAN);
		}
	}
	/* the next round's records are summed as they come */
	ct_clear_sums(t);
	ct_fast_begin(t);
	t->rounds++;
	return 1;
}

/* the threads' names, COMM-TID, as perf's stat report prints them (a pid of -1: none) */
static void thread_map(struct pmt_counts_trace *t, const struct pmt_trace_event *ev)
{
	free(t->thread);
	t->thread = calloc(t->nthr, sizeof(*t->thread));
	for (uint32_t i = 0; t->thread && i < t->nthr && 16 + 24 * ((size_t)i + 1) <= ev->raw_size;
	     i++) {
		const uint8_t *e = ev->raw + 16 + 24 * (size_t)i;
		int64_t pid = (int64_t)r64(t, e);

		if (pid >= 0 && pid <= INT32_MAX)
			snprintf(t->thread[i], sizeof(t->thread[i]), "%.16s-%d", (const char *)e + 8,
				 (int)pid);
	}
}

/* Records up to the next round (1) or the end (0). */
static int pump(struct pmt_counts_trace *t, struct pmt_counts *c, bool opening)
{
	struct pmt_trace_event ev;
	int rc;

	for (;;) {
		if (!t->pend_ok && !t->at_end) {
			rc = pmt_source_next(t->src, &t->pend);
			if (rc == -PMT_EEOS)
				t->at_end = true;
			else if (rc < 0 || t->pend.kind != PMT_TEV_RECORD)
				continue; /* the source warned and skipped it */
			else
				t->pend_ok = true;
		}
		if (t->cols && (rc = ct_cols_step(t, c, opening)) != 0)
			return rc;
		if (!t->pend_ok)
			break;
		t->pend_ok = false;
		ev = t->pend;
		switch (ev.type) {
		case REC_EVENT_UPDATE: event_update(t, &ev); break;
		case REC_CPU_MAP:
			if (!t->cur)
				cpu_map(t, &ev);
			break;
		case REC_THREAD_MAP:
			if (!t->cur && ev.raw_size >= 16) {
				uint64_t n = r64(t, ev.raw + 8);

				t->nthr = n && n <= (ev.raw_size - 16) / 24 ? (uint32_t)n : 1;
				thread_map(t, &ev);
			}
			break;
		case REC_STAT_CONFIG: stat_config(t, &ev); break;
		case REC_STAT:
			rc = stat_rec(t, &ev);
			if (rc < 0)
				return rc;
			if (opening)
				return 1;
			break;
		case REC_STAT_ROUND:
			if (opening)
				return 1;
			if (ev.raw_size < 24) {
				damaged(t, &ev, "shorter than 24 bytes");
				break;
			}
			return ct_round_units(t, c, r64(t, ev.raw + 16));
		default:
			break;
		}
	}
	return 0;
}

/* takes the source (closed with the reader, or on failure) */
static int trace_open(struct pmt_source *src, const char *path, struct pmt_counts *c,
		      struct pmt_counts_trace **out, struct pmt_diag *diag)
{
	struct pmt_counts_trace *t = calloc(1, sizeof(*t));
	const struct pmt_trace_meta *m;
	int rc;

	*out = NULL;
	if (!t) {
		pmt_source_close(src);
		return -PMT_ENOMEM;
	}
	t->path = path;
	t->src = src;
	m = pmt_source_meta(t->src);
	t->swapped = m->swapped;
	t->nattr = m->nr_attrs;
	t->name = calloc(t->nattr + 1, sizeof(*t->name));
	t->scale = calloc(t->nattr + 1, sizeof(*t->scale));
	t->col = calloc(t->nattr + 1, sizeof(*t->col));
	t->wattr = calloc(t->nattr + 1, sizeof(*t->wattr));
	t->want = calloc(t->nattr + 1, sizeof(*t->want));
	t->again = calloc(t->nattr + 1, sizeof(*t->again));
	for (uint32_t a = 0; a < t->nattr; a++)
		t->nids += m->attrs[a].nr_ids;
	t->ids = calloc(t->nids + 1, sizeof(*t->ids));
	if (!t->name || !t->scale || !t->col || !t->ids || !t->wattr || !t->want || !t->again) {
		pmt_counts_trace_close(t);
		return -PMT_ENOMEM;
	}
	t->nids = 0;
	for (uint32_t a = 0; a < t->nattr; a++) {
		t->scale[a] = 1.0;
		t->want[a] = 1;
		t->wattr[t->nwattr++] = a;
		snprintf(t->name[a], sizeof(t->name[a]), "%s",
			 m->attrs[a].name ? m->attrs[a].name : "");
		for (uint32_t i = 0; i < m->attrs[a].nr_ids; i++)
			t->ids[t->nids++] = (struct id_ent){ m->attrs[a].ids[i], a };
	}
	qsort(t->ids, t->nids, sizeof(*t->ids), id_cmp);
	t->has_clock = pmt_source_count_clock(src, &t->clock_t0);
	t->cpu[0] = -1;
	t->ncpu = t->nthr = 1;
	t->aggr_mode = PERF_AGGR_GLOBAL;
	rc = stat_cols_open(src, path, &t->cols);
	if (rc >= 0)
		rc = pump(t, c, true);
	if (rc <= 0) {
		pmt_counts_trace_close(t);
		return rc < 0 ? rc : pmt_diag_set(diag, -PMT_ENOT_FOUND, path, PMT_DIAG_NO_OFFSET,
						  "no counts (STAT records) in the trace");
	}
	for (uint32_t a = 0; a < t->nattr; a++) {
		if (!t->name[a][0])
			snprintf(t->name[a], sizeof(t->name[a]), "attr%u", a);
		t->col[a] = pmt_counts_event(c, t->name[a]);
		if (t->col[a] < 0) {
			pmt_counts_trace_close(t);
			return -PMT_ENOMEM;
		}
		/* an uncore event's instances (other types) are summed under its name, as perf
		 * merges them; one event opened in two metric groups is one count */
		for (uint32_t e = 0; e < a && !t->again[a]; e++)
			t->again[a] = t->col[e] == t->col[a] &&
				      pmt_source_meta(t->src)->attrs[e].type ==
					      pmt_source_meta(t->src)->attrs[a].type &&
				      pmt_source_meta(t->src)->attrs[e].config ==
					      pmt_source_meta(t->src)->attrs[a].config;
	}
	*out = t;
	return 0;
}

int pmt_counts_trace_open(const char *path, struct pmt_counts *c, struct pmt_counts_trace **out,
			  struct pmt_diag *diag)
{
	struct pmt_source *src;
	int rc = pmt_source_open(path, &src, diag);

	*out = NULL;
	return rc < 0 ? rc : trace_open(src, path, c, out, diag);
}

int pmt_counts_trace_open_source(struct pmt_source *src, const char *name, struct pmt_counts *c,
				 struct pmt_counts_trace **out, struct pmt_diag *diag)
{
	*out = NULL;
	return trace_open(src, name, c, out, diag);
}

int pmt_counts_trace_open_mem(const void *buf, size_t len, const char *name,
			      struct pmt_counts *c, struct pmt_counts_trace **out,
			      struct pmt_diag *diag)
{
	struct pmt_source *src;
	int rc = pmt_source_open_mem(buf, len, &src, diag);

	*out = NULL;
	return rc < 0 ? rc : trace_open(src, name, c, out, diag);
}

int pmt_counts_trace_threads(struct pmt_counts_trace *t, unsigned n)
{
	return t->cols ? stat_cols_threads(t->cols, n) : 0;
}

int pmt_counts_trace_next(struct pmt_counts_trace *t, struct pmt_counts *c)
{
	return pump(t, c, false);
}

void pmt_counts_trace_stats(const struct pmt_counts_trace *t, uint64_t *rounds, uint64_t *stats,
			    uint64_t *skipped)
{
	*rounds = t->rounds;
	*stats = t->stats;
	*skipped = t->skipped + t->unknown_ids;
}

const struct pmt_diag *pmt_counts_trace_damage(const struct pmt_counts_trace *t)
{
	return &t->damage;
}

void pmt_counts_trace_close(struct pmt_counts_trace *t)
{
	if (!t)
		return;
	if (t->skipped > 1)
		pmt_warn("%s: %llu damaged count records skipped in all", t->path,
			 (unsigned long long)t->skipped);
	stat_cols_close(t->cols);
	free(t->place2);
	free(t->place_keys);
	free(t->slot_sum);
	pmt_source_close(t->src);
	free(t->name);
	free(t->scale);
	free(t->col);
	free(t->wattr);
	free(t->again);
	free(t->want);
	free(t->dwant);
	free(t->ids);
	free(t->cur);
	free(t->prev);
	free(t->cur_set);
	free(t->cur_stamp);
	free(t->sum);
	free(t->unit_name);
	free(t->thread);
	free(t);
}

int pmt_counts_trace_set_aggr(struct pmt_counts_trace *t, enum pmt_counts_aggr a,
			      struct pmt_diag *diag)
{
	static const char *const opt[] = { [PMT_COUNTS_PER_CORE] = "--per-core",
		[PMT_COUNTS_PER_DIE] = "--per-die", [PMT_COUNTS_PER_SOCKET] = "--per-socket" };

	if (a == PMT_COUNTS_PER_CORE || a == PMT_COUNTS_PER_DIE || a == PMT_COUNTS_PER_SOCKET) {
		if (!pmt_source_meta(t->src)->topology)
			return pmt_diag_set(diag, -PMT_EUNSUPPORTED, t->path, PMT_DIAG_NO_OFFSET,
					    "%s needs the CPU topology (header feature "
					    "CPU_TOPOLOGY), which this recording lacks", opt[a]);
		if (t->ncpu == 1 && t->cpu[0] < 0)
			return pmt_diag_set(diag, -PMT_EUNSUPPORTED, t->path, PMT_DIAG_NO_OFFSET,
					    "%s needs counts read per CPU; these were read per "
					    "thread", opt[a]);
	}
	ct_fast_off(t);
	t->aggr = a;
	t->units_ok = false;
	return 0;
}

size_t pmt_counts_trace_unit_cpus(const struct pmt_counts_trace *t, size_t unit,
				  const int32_t **cpus)
{
	*cpus = NULL;
	if (unit >= t->nunits || !t->unit_name || !t->unit_name[unit][0] || t->per_thread)
		return 0;
	*cpus = &t->unit_cpus[t->unit_first[unit]];
	return t->unit_first[unit + 1] - t->unit_first[unit];
}

int pmt_counts_trace_window(const struct pmt_counts_trace *t, uint64_t *t_after,
			    uint64_t *t_until)
{
	*t_after = *t_until = 0;
	if (!t->interval_ms)
		return 0;
	if (t->has_clock <= 0)
		return -PMT_ENOT_FOUND;
	*t_after = t->clock_t0 + t->round_prev;
	*t_until = t->clock_t0 + t->round_time;
	return 1;
}

int pmt_counts_load_trace(struct pmt_counts *c, const char *path, struct pmt_diag *diag)
{
	struct pmt_counts_trace *t = NULL;
	struct pmt_counts *round;
	int rc = pmt_counts_new(&round);

	if (rc < 0)
		return rc;
	rc = pmt_counts_trace_open(path, round, &t, diag);
	while (rc >= 0 && (rc = pmt_counts_trace_next(t, round)) > 0) {
		for (size_t u = 0; u < pmt_counts_nr_units(round); u++) {
			int cu = pmt_counts_unit(c, pmt_counts_unit_interval(round, u),
						 pmt_counts_unit_aggr(round, u));

			for (size_t e = 0; cu >= 0 && e < pmt_counts_nr_events(round); e++) {
				int ce = pmt_counts_event(c, pmt_counts_event_name(round, e));

				if (ce >= 0 && pmt_counts_sources(round, u, e))
					pmt_counts_add(c, cu, ce, pmt_counts_get(round, u, e));
			}
		}
	}
	if (rc >= 0)
		rc = (int)t->rounds;
	pmt_counts_trace_close(t);
	pmt_counts_free(round);
	return rc;
}
