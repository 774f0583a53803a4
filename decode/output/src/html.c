/* The HTML report's figures, gathered while the trace decodes: counts per event, the
 * report --sort histograms (sym,dso; mem; tlb), latency buckets per record, per-CPU
 * samples over time and the losses the trace records. The page is html_write.c's. */
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/perf_abi.h"
#include "pmutrace/output.h"

#include "hist_table.h"
#include "html_priv.h"

int pmt_html_new(const struct pmt_html_opts *o, struct pmt_html **out)
{
	struct pmt_html *h;

	if (!out || !PMT_OPTS_HAS(o, top) || !o->symbols)
		return -PMT_EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -PMT_ENOMEM;
	h->compat = o->compat;
	h->top = o->top ? o->top : 15;
	h->meta = o->meta;
	h->title = strdup(o->title ? o->title : "");
	if (!h->title || pmt_hist_new("sym,dso", o->symbols, &h->sym, NULL) ||
	    pmt_hist_new("mem", o->symbols, &h->mem, NULL) ||
	    pmt_hist_new("tlb", o->symbols, &h->tlb, NULL)) {
		pmt_html_free(h);
		return -PMT_ENOMEM;
	}
	pmt_hist_set_mode(h->sym, o->compat, false);
	pmt_hist_set_mode(h->mem, o->compat, false);
	pmt_hist_set_mode(h->tlb, o->compat, false);
	if (PMT_OPTS_HAS(o, sym_list) && (o->comm_list || o->dso_list || o->sym_list)) {
		struct pmt_hist_filter_opts fo = PMT_OPTS_INIT(
			pmt_hist_filter_opts, .comms = o->comm_list, .dsos = o->dso_list,
			.symbols = o->sym_list);
		int rc = pmt_hist_set_filter(h->sym, &fo);

		if (rc >= 0)
			rc = pmt_hist_set_filter(h->mem, &fo);
		if (rc >= 0)
			rc = pmt_hist_set_filter(h->tlb, &fo);
		if (rc < 0) {
			pmt_html_free(h);
			return rc;
		}
		h->filtered = 1;
	}
	*out = h;
	return 0;
}

void pmt_html_free(struct pmt_html *h)
{
	if (!h)
		return;
	pmt_hist_free(h->sym);
	pmt_hist_free(h->mem);
	pmt_hist_free(h->tlb);
	for (uint32_t c = 0; c < h->ncpus; c++)
		free(h->cpu[c]);
	for (size_t i = 0; i < h->nmetric; i++) {
		free(h->metric[i].name);
		free(h->metric[i].unit);
		free(h->metric[i].where);
		for (size_t k = 0; k < h->metric[i].nrl; k++)
			free((char *)h->metric[i].rl[k].event);
		free(h->metric[i].rl);
	}
	free(h->metric);
	free(h->loss);
	free(h->title);
	free(h);
}

static unsigned lat_bucket(uint64_t v)
{
	return v ? 64 - (unsigned)__builtin_clzll(v) : 0;
}

/* fold the bins in pairs: each covers twice the time from the same t0 */
static void tl_merge(struct pmt_html *h)
{
	for (uint32_t c = 0; c < h->ncpus; c++) {
		uint64_t *b = h->cpu[c] ? h->cpu[c]->bins : NULL;

		if (!b)
			continue;
		for (unsigned i = 0; i < TL_BINS / 2; i++)
			b[i] = b[2 * i] + b[2 * i + 1];
		memset(b + TL_BINS / 2, 0, TL_BINS / 2 * sizeof(*b));
	}
	h->width *= 2;
	h->hi_bin /= 2;
}

/* the bin of time t, after widening or moving the bins so that it exists */
static unsigned tl_bin(struct pmt_html *h, uint64_t t)
{
	if (!h->have_time) {
		h->have_time = 1;
		h->t0 = h->tmin = h->tmax = t;
		h->width = 1;
	}
	if (t < h->tmin)
		h->tmin = t;
	if (t > h->tmax)
		h->tmax = t;
	if (t < h->t0) {
		/* earlier than every bin: move t0 back by whole bins, the counts with it */
		uint64_t k;

		for (;;) {
			k = (h->t0 - t + h->width - 1) / h->width;
			if (h->hi_bin + k < TL_BINS)
				break;
			tl_merge(h);
		}
		for (uint32_t c = 0; c < h->ncpus; c++) {
			uint64_t *b = h->cpu[c] ? h->cpu[c]->bins : NULL;

			if (!b)
				continue;
			memmove(b + k, b, (TL_BINS - k) * sizeof(*b));
			memset(b, 0, k * sizeof(*b));
		}
		h->t0 -= k * h->width;
		h->hi_bin += (uint32_t)k;
	}
	while ((t - h->t0) / h->width >= TL_BINS)
		tl_merge(h);
	return (unsigned)((t - h->t0) / h->width);
}

static struct cpu_line *cpu_line(struct pmt_html *h, uint32_t cpu)
{
	if (cpu >= PMT_MAX_CPUS)
		return NULL;
	if (!h->cpu[cpu]) {
		h->cpu[cpu] = calloc(1, sizeof(*h->cpu[cpu]));
		if (h->cpu[cpu] && cpu >= h->ncpus)
			h->ncpus = cpu + 1;
	}
	return h->cpu[cpu];
}

/* The newest of a CPU's recent records, i back (0: the newest); false when not kept */
static bool recent(const struct cpu_line *cl, uint32_t back, uint64_t *off, uint64_t *t)
{
	uint32_t k;

	if (back >= cl->nrecent)
		return false;
	k = (cl->recent_next + RECENT - 1 - back) % RECENT;
	*off = cl->recent_off[k];
	*t = cl->recent_time[k];
	return true;
}

/* A CPU's record at stream offset off, time t, decoded after the record `back` places
 * back: it ends the waiting losses whose data stopped at or before off; each spans from
 * the CPU's record before it (the one kept `back` back) to this one. */
static void place_losses(struct cpu_line *cl, struct loss *loss, uint32_t back, uint64_t off,
			 uint64_t t)
{
	uint64_t prev_off = 0, prev_t = 0;
	bool have_prev = recent(cl, back, &prev_off, &prev_t);

	while (cl->open_head) {
		struct loss *l = &loss[cl->open_head - 1];

		if (off < l->stream_end)
			return;
		l->end = t;
		l->start = have_prev && prev_off < l->stream_end ? prev_t : t;
		l->has_start = 1;
		cl->open_head = l->next_open;
		if (!l->next_open)
			cl->open_tail = 0;
	}
}

int pmt_html_add(struct pmt_html *h, const struct pmt_spe_sample *s)
{
	struct cpu_line *cl;
	unsigned bin;

	if (s->event >= PMT_SPE_SE_COUNT)
		return 0;
	h->count[s->event]++;
	h->period[s->event] += s->period;
	PMT_FORWARD_IF_ERROR(pmt_hist_add(h->sym, s));
	PMT_FORWARD_IF_ERROR(pmt_hist_add(h->mem, s));
	PMT_FORWARD_IF_ERROR(pmt_hist_add(h->tlb, s));
	/* a record the lists leave out (its samples share thread and address) is in the
	 * events' totals only */
	if (h->filtered && hist_filtered(h->sym, s))
		return 0;
	if (s->rec && h->last_valid && s->rec->offset == h->last_off && s->cpu == h->last_cpu)
		return 0;
	/* a new record: its latencies, its place on the timeline */
	h->last_valid = s->rec != NULL;
	h->last_off = s->rec ? s->rec->offset : 0;
	h->last_cpu = s->cpu;
	h->records++;
	h->lat[LAT_TOTAL][lat_bucket(s->weight)]++;
	h->lat[LAT_ISSUE][lat_bucket(s->issue_lat)]++;
	h->lat[LAT_XLAT][lat_bucket(s->xlat_lat)]++;
	cl = cpu_line(h, s->cpu);
	if (!cl)
		return s->cpu >= PMT_MAX_CPUS ? 0 : -PMT_ENOMEM;
	if (cl->open_head)
		place_losses(cl, h->loss, 0, h->last_off, s->time);
	cl->recent_off[cl->recent_next] = h->last_off;
	cl->recent_time[cl->recent_next] = s->time;
	cl->recent_next = (cl->recent_next + 1) % RECENT;
	if (cl->nrecent < RECENT)
		cl->nrecent++;
	bin = tl_bin(h, s->time);
	if (bin > h->hi_bin)
		h->hi_bin = bin;
	cl->bins[bin]++;
	cl->records++;
	return 0;
}

static int add_loss(struct pmt_html *h, const struct loss *l)
{
	if (h->nloss == MAX_LOSSES) {
		h->loss_dropped++;
		return 0;
	}
	if (h->nloss == h->loss_cap) {
		size_t cap = h->loss_cap ? h->loss_cap * 2 : 64;
		struct loss *n = realloc(h->loss, cap * sizeof(*n));

		if (!n)
			return -PMT_ENOMEM;
		h->loss = n;
		h->loss_cap = cap;
	}
	h->loss[h->nloss++] = *l;
	if (l->kind == LOSS_AUX && l->cpu < PMT_MAX_CPUS) {
		struct cpu_line *cl = cpu_line(h, l->cpu);
		uint32_t idx = (uint32_t)h->nloss;

		if (!cl)
			return -PMT_ENOMEM;
		if (cl->open_tail) {
			h->loss[cl->open_tail - 1].next_open = idx;
			cl->open_tail = idx;
			return 0;
		}
		cl->open_head = cl->open_tail = idx;
		/* the CPU's records decoded before the AUX record came, oldest first */
		for (uint32_t back = cl->nrecent; back-- > 0 && cl->open_head;) {
			uint64_t off = 0, t = 0;

			recent(cl, back, &off, &t);
			place_losses(cl, h->loss, back + 1, off, t);
		}
	}
	return 0;
}

int pmt_html_add_event(struct pmt_html *h, const struct pmt_trace_event *ev)
{
	struct loss l = { .end = UINT64_MAX, .cpu = UINT32_MAX };

	if (ev->kind != PMT_TEV_RECORD)
		return 0;
	if (ev->sid.valid) {
		l.start = l.end = ev->sid.time;
		l.has_start = 1;
		l.cpu = ev->sid.cpu;
	}
	switch (ev->type) {
	case PMT_REC_AUX:
		h->aux_records++;
		if (!(ev->u.aux.flags & (PMT_AUX_FLAG_TRUNCATED | PMT_AUX_FLAG_PARTIAL |
					 PMT_AUX_FLAG_COLLISION)))
			return 0;
		h->aux_truncated += !!(ev->u.aux.flags & PMT_AUX_FLAG_TRUNCATED);
		h->aux_partial += !!(ev->u.aux.flags & PMT_AUX_FLAG_PARTIAL);
		h->aux_collision += !!(ev->u.aux.flags & PMT_AUX_FLAG_COLLISION);
		l.kind = LOSS_AUX;
		l.flags = (uint32_t)ev->u.aux.flags;
		l.amount = ev->u.aux.aux_size;
		l.stream_end = ev->u.aux.aux_offset + ev->u.aux.aux_size;
		l.start = 0;
		l.end = UINT64_MAX;
		l.has_start = 0;
		break;
	case PMT_REC_LOST:
		h->lost_records += ev->u.lost.lost;
		l.kind = LOSS_LOST;
		l.amount = ev->u.lost.lost;
		break;
	case PMT_REC_LOST_SAMPLES:
		h->lost_samples += ev->u.lost.lost;
		l.kind = LOSS_LOST_SAMPLES;
		l.amount = ev->u.lost.lost;
		break;
	default:
		return 0;
	}
	return add_loss(h, &l);
}

int pmt_html_add_metric(struct pmt_html *h, const struct pmt_html_metric *m)
{
	struct html_metric *r;

	if (!m || !m->name)
		return -PMT_EINVAL;
	if (h->nmetric == h->metric_cap) {
		size_t cap = h->metric_cap ? h->metric_cap * 2 : 16;
		struct html_metric *n = realloc(h->metric, cap * sizeof(*n));

		if (!n)
			return -PMT_ENOMEM;
		h->metric = n;
		h->metric_cap = cap;
	}
	r = &h->metric[h->nmetric];
	r->name = strdup(m->name);
	r->unit = strdup(m->unit ? m->unit : "");
	r->where = strdup(m->where ? m->where : "");
	if (!r->name || !r->unit || !r->where) {
		free(r->name);
		free(r->unit);
		free(r->where);
		return -PMT_ENOMEM;
	}
	r->depth = m->depth;
	r->value = m->value;
	r->measured = m->retlat_measured;
	r->dflt = m->retlat_default;
	r->rl = NULL;
	r->nrl = 0;
	h->nmetric++;
	if (!m->nr_retlat)
		return 0;
	r->rl = calloc(m->nr_retlat, sizeof(*r->rl));
	if (!r->rl)
		return -PMT_ENOMEM;
	for (size_t k = 0; k < m->nr_retlat; k++, r->nrl++) {
		r->rl[k] = m->retlat[k];
		r->rl[k].event = strdup(m->retlat[k].event ? m->retlat[k].event : "");
		if (!r->rl[k].event)
			return -PMT_ENOMEM;
	}
	return 0;
}

int pmt_html_write(struct pmt_html *h, struct pmt_out *out, const struct pmt_spe_rec_stats *st,
		   uint32_t enabled)
{
	if (!h || !out)
		return -PMT_EINVAL;
	/* losses no record came after: from the CPU's last record before them to the end */
	for (uint32_t c = 0; c < h->ncpus; c++) {
		struct cpu_line *cl = h->cpu[c];
		uint64_t off, t;

		if (!cl || !recent(cl, 0, &off, &t))
			continue;
		for (uint32_t i = cl->open_head; i; i = h->loss[i - 1].next_open) {
			struct loss *l = &h->loss[i - 1];

			l->has_start = off < l->stream_end;
			l->start = t;
		}
	}
	return html_write_page(h, out, st, enabled);
}
