/* Row values the database exports share (rows.h). */
#include <stdlib.h>
#include <time.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/symbols.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/perf_abi.h"
#include "pmutrace/export.h"
#include "rows.h"

const struct dsrc_slot *export_dsrc_text(struct dsrc_slot cache[DSRC_SLOTS], uint64_t data_src,
					 int compat)
{
	struct dsrc_slot *c = &cache[(data_src * 0x9e3779b97f4a7c15ULL) >> 58];

	if (c->valid && c->key == data_src)
		return c;
	c->len[0] = (uint8_t)pmt_mem_op_str(data_src, c->text[0], sizeof(c->text[0]));
	c->len[1] = (uint8_t)pmt_mem_lvl_str(data_src, compat, c->text[1], sizeof(c->text[1]));
	c->len[2] = (uint8_t)pmt_mem_snoop_str(data_src, c->text[2], sizeof(c->text[2]));
	c->len[3] = (uint8_t)pmt_mem_tlb_str(data_src, c->text[3], sizeof(c->text[3]));
	c->key = data_src;
	c->valid = 1;
	return c;
}

static struct thread_count *thr_slot(struct thread_count *t, size_t cap, int32_t pid,
				     int32_t tid)
{
	size_t i = (((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) * 0x9e3779b97f4a7c15ULL) >> 20;

	for (i &= cap - 1; t[i].n && (t[i].pid != pid || t[i].tid != tid); i = (i + 1) & (cap - 1))
		;
	return &t[i];
}

int export_threads_count(struct export_threads *x, int32_t pid, int32_t tid)
{
	struct thread_count *c;

	if (x->last && x->last_pid == pid && x->last_tid == tid) {
		x->last->n++;
		return 0;
	}
	if (2 * (x->used + 1) > x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 256;
		struct thread_count *t = calloc(cap, sizeof(*t));

		if (!t)
			return -PMT_ENOMEM;
		for (size_t i = 0; i < x->cap; i++)
			if (x->thr[i].n)
				*thr_slot(t, cap, x->thr[i].pid, x->thr[i].tid) = x->thr[i];
		free(x->thr);
		x->thr = t;
		x->cap = cap;
	}
	c = thr_slot(x->thr, x->cap, pid, tid);
	if (!c->n) {
		c->pid = pid;
		c->tid = tid;
		x->used++;
	}
	c->n++;
	x->last = c;
	x->last_pid = pid;
	x->last_tid = tid;
	return 0;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct thread_count *p = a, *q = b;

	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	return p->tid < q->tid ? -1 : p->tid > q->tid;
}

size_t export_threads_sorted(struct export_threads *x)
{
	size_t n = 0;

	for (size_t i = 0; i < x->cap; i++)
		if (x->thr[i].n)
			x->thr[n++] = x->thr[i];
	x->last = NULL;
	if (n)
		qsort(x->thr, n, sizeof(*x->thr), cmp_thread);
	/* the slots past n are free again; thr[0..n) is read before counting again */
	if (x->cap > n)
		memset(x->thr + n, 0, (x->cap - n) * sizeof(*x->thr));
	x->used = 0;
	return n;
}

static uint64_t key_hash(const struct id_map *m, const void *key)
{
	uint64_t h = 1469598103934665603ULL;

	if (!m->by_text)
		return (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ULL >> 17;
	for (const unsigned char *p = key; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

static size_t key_slot(const struct id_map *m, const void *key)
{
	size_t i = (size_t)key_hash(m, key) & (m->cap - 1);

	while (m->key[i] && (m->by_text ? strcmp(m->key[i], key) : m->key[i] != key))
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* key's row id (> 0); *is_new when it was not there. -PMT_ENOMEM on failure. */
static int64_t id_of(struct id_map *m, const void *key, bool *is_new)
{
	size_t i;

	*is_new = false;
	if (2 * (m->used + 1) > m->cap) {
		struct id_map g = { .cap = m->cap ? 2 * m->cap : 64, .used = m->used,
				    .by_text = m->by_text };

		g.key = calloc(g.cap, sizeof(*g.key));
		g.id = calloc(g.cap, sizeof(*g.id));
		if (!g.key || !g.id) {
			free(g.key);
			free(g.id);
			return -PMT_ENOMEM;
		}
		for (size_t j = 0; j < m->cap; j++) {
			if (m->key[j]) {
				size_t k = key_slot(&g, m->key[j]);

				g.key[k] = m->key[j];
				g.id[k] = m->id[j];
			}
		}
		free(m->key);
		free(m->id);
		*m = g;
	}
	i = key_slot(m, key);
	if (!m->key[i]) {
		m->key[i] = m->by_text ? strdup(key) : key;
		if (!m->key[i])
			return -PMT_ENOMEM;
		m->id[i] = (int64_t)++m->used;
		*is_new = true;
	}
	return m->id[i];
}

static void id_map_free(struct id_map *m)
{
	for (size_t i = 0; m->by_text && i < m->cap; i++)
		free((void *)m->key[i]);
	free(m->key);
	free(m->id);
}

void export_ids_init(struct export_ids *ids)
{
	memset(ids, 0, sizeof(*ids));
	ids->comms.by_text = true;
}

void export_ids_fini(struct export_ids *ids)
{
	id_map_free(&ids->comms);
	id_map_free(&ids->dsos);
	id_map_free(&ids->symbols);
}

int export_ids_of(struct export_ids *ids, struct pmt_symbols *syms,
		  const struct pmt_spe_sample *s, struct sample_ids *o)
{
	memset(o, 0, sizeof(*o));
	o->comm = pmt_symbols_comm(syms, s->tid, s->time);
	if (o->comm && (o->comm_id = id_of(&ids->comms, o->comm, &o->new_comm)) < 0)
		return (int)o->comm_id;
	if (pmt_symbols_resolve(syms, s->pid, s->ip, s->time, &o->loc) < 0 || !o->loc.dso)
		return 0;
	return export_ids_of_loc(ids, o);
}

int export_ids_of_loc(struct export_ids *ids, struct sample_ids *o)
{
	if ((o->dso_id = id_of(&ids->dsos, o->loc.dso_id, &o->new_dso)) < 0)
		return (int)o->dso_id;
	if (o->loc.sym && (o->sym_id = id_of(&ids->symbols, o->loc.sym_id, &o->new_sym)) < 0)
		return (int)o->sym_id;
	return 0;
}

int64_t export_ids_new_symbol(struct export_ids *ids)
{
	/* counted with the keyed ones (used also paces the table's growth: one grows a
	 * little sooner) */
	return (int64_t)++ids->symbols.used;
}

void export_run_values(const struct pmt_export_opts *o, char when[32], char compat[16],
		       const char *v[RUN_COLUMNS])
{
	const struct pmt_trace_meta *m = PMT_OPTS_HAS(o, meta) ? o->meta : NULL;
	time_t now = time(NULL);
	struct tm tm;

	strftime(when, 32, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	snprintf(compat, 16, "%d", o->compat);
	v[0] = o->trace_path ? o->trace_path : "";
	v[1] = when;
	v[2] = pmt_version();
	v[3] = PMT_OPTS_HAS(o, command) ? o->command : NULL;
	v[4] = compat;
	v[5] = m ? m->hostname : NULL;
	v[6] = m ? m->osrelease : NULL;
	v[7] = m ? m->version : NULL;
	v[8] = m ? m->arch : NULL;
	v[9] = m ? m->cpuid : NULL;
	v[10] = m ? m->cmdline : NULL;
}

int export_losses_add(struct export_losses *l, const struct pmt_trace_event *ev)
{
	struct loss_row r = { .file_offset = ev->file_offset, .type = ev->type, .cpu = -1,
			      .tid = -1 };

	if (ev->kind != PMT_TEV_RECORD)
		return 0;
	if (ev->type == PMT_REC_AUX) {
		if (!(ev->u.aux.flags & (PMT_AUX_FLAG_TRUNCATED | PMT_AUX_FLAG_PARTIAL |
					 PMT_AUX_FLAG_COLLISION)))
			return 0;
		r.aux_offset = ev->u.aux.aux_offset;
		r.aux_size = ev->u.aux.aux_size;
		r.flags = ev->u.aux.flags;
	} else if (ev->type == PMT_REC_LOST || ev->type == PMT_REC_LOST_SAMPLES) {
		r.lost = ev->u.lost.lost;
	} else {
		return 0;
	}
	if (ev->sid.valid) {
		r.has_sid = true;
		r.cpu = (int32_t)ev->sid.cpu;
		r.tid = (int32_t)ev->sid.tid;
		r.time = ev->sid.time;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct loss_row *n = realloc(l->r, cap * sizeof(*n));

		if (!n)
			return -PMT_ENOMEM;
		l->r = n;
		l->cap = cap;
	}
	l->r[l->n++] = r;
	return 0;
}

const char *export_loss_kind(const struct loss_row *r, char buf[40])
{
	if (r->type == PMT_REC_LOST)
		return "lost";
	if (r->type == PMT_REC_LOST_SAMPLES)
		return "lost_samples";
	snprintf(buf, 40, "%s%s%s", r->flags & PMT_AUX_FLAG_TRUNCATED ? ",truncated" : "",
		 r->flags & PMT_AUX_FLAG_PARTIAL ? ",partial" : "",
		 r->flags & PMT_AUX_FLAG_COLLISION ? ",collision" : "");
	return buf + 1;
}
