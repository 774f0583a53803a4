/* A slice of a container source: which data frames the samples of some CPUs and times can
 * come from, judged from the frame infos (formats/container) and the trace's TIME_CONV;
 * and the threads that decompress its frames ahead. */
#include "source_priv.h"

struct slice_ctx {
	const struct pmt_source_slice *sl;
	const struct pmt_trace_meta *m;
	bool by_time;
};

static bool any_cpu(const struct pmt_source_slice *sl, const struct pmt_ctr_frame_info *fi)
{
	for (unsigned i = 0; i < sl->nr_cpus; i++) {
		uint64_t lo = sl->cpu_lo[i] > fi->cpu_lo ? sl->cpu_lo[i] : fi->cpu_lo;
		uint64_t hi = sl->cpu_hi[i] < fi->cpu_hi ? sl->cpu_hi[i] : fi->cpu_hi;

		/* the mask is per cpu % 64: 64 CPUs of the range cover all its bits */
		for (uint64_t c = lo; c <= hi && c < lo + 64; c++)
			if (fi->cpu_mask & (1ull << (c % 64)))
				return true;
	}
	return false;
}

static uint64_t perf_time(const struct pmt_trace_meta *m, uint64_t ts)
{
	return m->has_time_conv ? pmt_time_conv_to_perf(&m->time_conv, ts) : ts;
}

static bool keep_frame(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	const struct slice_ctx *c = ctx;
	uint64_t lo, hi;

	/* the AUX buffers' flags (AUX) and starting threads (ITRACE_START) are no state the
	 * samples of script and report take (report --html and export, which count them, are
	 * not sliced); any other record may be */
	if (fi->flags & (PMT_CTR_FI_UNPARSED | PMT_CTR_FI_SIDEBAND | PMT_CTR_FI_ANY_CPU))
		return true;
	if (!fi->auxtraces)
		return false; /* FINISHED_ROUND only: nothing an SPE trace reads */
	if (c->sl->nr_cpus && !any_cpu(c->sl, fi))
		return false;
	if (!c->by_time)
		return true;
	if (!(fi->flags & PMT_CTR_FI_TIMED) || (fi->flags & PMT_CTR_FI_UNTIMED))
		return true;
	lo = perf_time(c->m, fi->ts_lo);
	hi = perf_time(c->m, fi->ts_hi);
	for (unsigned i = 0; i < c->sl->nr_times; i++)
		if (hi >= c->sl->t_lo[i] && lo <= c->sl->t_hi[i])
			return true;
	return false;
}

int pmt_source_slice(struct pmt_source *s, const struct pmt_source_slice *sl)
{
	const struct pmt_trace_meta *m = &s->meta;
	struct slice_ctx c = { sl, m, false };

	if (!sl || sl->sz < sizeof(*sl) || (sl->nr_cpus && (!sl->cpu_lo || !sl->cpu_hi)) ||
	    (sl->nr_times && (!sl->t_lo || !sl->t_hi)))
		return -PMT_EINVAL;
	/* only SPE's AUX data is judged by the infos; other traces are read whole */
	if (!s->ctr || !m->has_auxtrace_info || m->auxtrace_type != PMT_AUXTRACE_ARM_SPE)
		return 0;
	/* a short TIME_CONV wraps: its perf times do not grow with the timestamps */
	c.by_time = sl->nr_times && !m->timeless && !m->time_conv.cap_user_time_short;
	if (!sl->nr_cpus && !c.by_time)
		return 0;
	return pmt_ctr_slice(s->ctr, keep_frame, &c);
}

bool pmt_source_slice_omits(const struct pmt_trace_event *ev)
{
	/* what the frame infos' flags leave out of PMT_CTR_FI_SIDEBAND, which keep_frame()
	 * reads */
	return ev->kind == PMT_TEV_RECORD &&
	       (ev->type == PMT_REC_FINISHED_ROUND || ev->type == PMT_REC_AUX ||
		ev->type == PMT_REC_ITRACE_START);
}

int pmt_source_threads(struct pmt_source *s, unsigned n)
{
	if (!s)
		return -PMT_EINVAL;
	return s->ctr ? pmt_ctr_reader_threads(s->ctr, n) : 0;
}

int pmt_source_container(const struct pmt_source *s, const void **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	if (!s || !s->ctr || !s->map.mapped)
		return 0;
	*buf = s->map.data;
	*len = s->map.size;
	return 1;
}

void pmt_source_container_done(struct pmt_source *s, uint64_t offset, uint64_t len)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), lo, hi;

	if (!s || !s->ctr || !s->map.mapped || offset > s->map.size || len > s->map.size - offset)
		return;
	/* whole pages inside the range only: a page shared with a neighbour may be in use */
	lo = (offset + page - 1) & ~(page - 1);
	hi = (offset + len) & ~(page - 1);
	if (hi > lo)
		madvise((void *)(s->map.data + lo), hi - lo, MADV_DONTNEED);
}

int pmt_source_pass_frames(struct pmt_source *s,
			   bool (*keep)(const struct pmt_ctr_frame_info *fi, void *ctx), void *ctx)
{
	return s && s->ctr ? pmt_ctr_slice(s->ctr, keep, ctx) : 0;
}

void pmt_source_frames(const struct pmt_source *s, uint32_t *read, uint32_t *skipped)
{
	const struct pmt_ctr_stats *st = s && s->ctr ? pmt_ctr_stats(s->ctr) : NULL;

	*read = st ? st->frames : 0;
	*skipped = st ? st->skipped : 0;
}
