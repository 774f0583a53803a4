/* SPE records -> perf's synthetic samples (tools/perf/util/arm-spe.c, arm_spe_sample()). */
#include "pmutrace/perfdata.h"
#include "pmutrace/spe_decode.h"
#include "threads.h"

static const char *const ev_names[PMT_SPE_SE_COUNT] = {
	"l1d-miss", "l1d-access", "llc-miss", "llc-access", "tlb-miss", "tlb-access",
	"branch", "remote-access", "memory", "instructions",
};

const char *pmt_spe_event_name(unsigned ev, int compat)
{
	if (ev >= PMT_SPE_SE_COUNT)
		return "unknown";
	if (ev == PMT_SPE_SE_BRANCH && compat <= 612)
		return "branch-miss";
	return ev_names[ev];
}

void pmt_spe_sampler_init(struct pmt_spe_sampler *s, const struct pmt_itrace *it, int compat)
{
	uint32_t f = it->flags;

	memset(s, 0, sizeof(*s));
	s->itrace = *it;
	s->compat = compat;
	if (f & PMT_ITRACE_FLC)
		s->enabled |= 1u << PMT_SPE_SE_L1D_MISS | 1u << PMT_SPE_SE_L1D_ACCESS;
	if (f & PMT_ITRACE_LLC)
		s->enabled |= 1u << PMT_SPE_SE_LLC_MISS | 1u << PMT_SPE_SE_LLC_ACCESS;
	if (f & PMT_ITRACE_TLB)
		s->enabled |= 1u << PMT_SPE_SE_TLB_MISS | 1u << PMT_SPE_SE_TLB_ACCESS;
	if (f & PMT_ITRACE_BRANCH)
		s->enabled |= 1u << PMT_SPE_SE_BRANCH;
	if (f & PMT_ITRACE_REMOTE)
		s->enabled |= 1u << PMT_SPE_SE_REMOTE;
	if (f & PMT_ITRACE_MEM)
		s->enabled |= 1u << PMT_SPE_SE_MEMORY;
	if ((f & PMT_ITRACE_INSN) && it->period_type == PMT_ITRACE_PERIOD_INSNS)
		s->enabled |= 1u << PMT_SPE_SE_INSN;
	s->period = 1; /* memory and branch samples before 6.18 */
	if (compat >= PMT_PERF_6_18) {
		/* arm_spe_process_auxtrace_info(): with no --itrace, itrace_synth_opts__set_default
		 * (opts, false) turns instructions on (perf script's default_no_sample is not
		 * looked at by SPE) and SPE replaces its ns period by "1 instruction"; the
		 * period then drops whole records and is every sample's period (perf prints 0
		 * when the --itrace string names no 'i': the zeroed itrace_synth_opts) */
		s->decimate_all = 1;
		if (it->defaulted) {
			s->enabled |= 1u << PMT_SPE_SE_INSN;
			s->itrace.period_type = PMT_ITRACE_PERIOD_INSNS;
			s->itrace.period = 1;
			s->itrace.insn_rejected = 0;
		}
		s->period = s->itrace.period;
	}
	/* arm_spe_synth_events(): last_branch adds BRANCH_STACK from 6.15 on */
	s->brstack = compat >= PMT_PERF_6_15 && (f & PMT_ITRACE_LBR) &&
		     (s->enabled & (1u << PMT_SPE_SE_BRANCH | 1u << PMT_SPE_SE_INSN));
	if (!s->itrace.period)
		s->itrace.period = 1;
}

uint32_t pmt_spe_itrace_events(const struct pmt_itrace *it, int compat, bool *brstack)
{
	struct pmt_spe_sampler s;

	pmt_spe_sampler_init(&s, it, compat);
	if (brstack)
		*brstack = s.brstack;
	return s.enabled;
}

int pmt_spe_queue_init(struct pmt_spe_queue *q, uint32_t cpu, int32_t pid, int32_t tid,
		       uint64_t midr, int compat)
{
	struct pmt_spe_rec_opts ro = PMT_OPTS_INIT(pmt_spe_rec_opts,
						   .emit_partial = compat < PMT_PERF_NEWEST,
						   .events_last = compat >= PMT_PERF_6_16,
						   .op_or = compat >= PMT_PERF_6_16);

	memset(q, 0, sizeof(*q));
	q->cpu = cpu;
	q->pid = pid;
	q->tid = tid;
	q->midr = midr;
	return pmt_spe_rec_new(&ro, &q->dec);
}

void pmt_spe_queue_fini(struct pmt_spe_queue *q)
{
	pmt_spe_rec_free(q->dec);
	q->dec = NULL;
}

#define EV(b) (1ULL << PMT_SPE_EV_##b)

static const struct pmt_spe_sample zero_sample;

static uint32_t branch_flags(const struct pmt_spe_record *r)
{
	uint32_t f = PMT_IP_FLAG_BRANCH;

	if (r->events & EV(MISPRED))
		f |= PMT_IP_FLAG_BRANCH_MISS;
	if (r->events & EV(NOT_TAKEN))
		f |= PMT_IP_FLAG_NOT_TAKEN;
	if (r->events & EV(TXN))
		f |= PMT_IP_FLAG_IN_TX;
	if (r->op & PMT_SPE_OP_F_BR_COND)
		f |= PMT_IP_FLAG_CONDITIONAL;
	if (r->op & PMT_SPE_OP_F_BR_CR_BL)
		f |= PMT_IP_FLAG_CALL;
	else if ((r->op & PMT_SPE_OP_F_BR_CR_RET) ||
		 ((r->op & PMT_SPE_OP_F_BR_INDIRECT) && !(r->op & PMT_SPE_OP_F_BR_CR_BL)))
		f |= PMT_IP_FLAG_RETURN; /* perf treats an indirect non-link branch as a return */
	return f;
}

/* arm_spe__prep_branch_stack(): the sampled branch (TGT) first when the record is a
 * branch, then the previous branch target (PBT) when there is one and room for it. */
static void prep_brstack(const struct pmt_spe_sampler *s, struct pmt_spe_queue *q,
			 const struct pmt_spe_record *r)
{
	struct pmt_spe_brstack *b = &q->brstack;
	uint32_t sz = s->itrace.last_branch_sz;
	uint32_t have_tgt = (r->op & PMT_SPE_OP_F_BRANCH) != 0;
	uint32_t n = 0;

	memset(b, 0, sizeof(*b));
	if (have_tgt) {
		struct pmt_branch_entry *e = &b->e[n++];
		uint32_t op = r->op;
		int cond = (op & PMT_SPE_OP_F_BR_COND) != 0;

		e->from = r->from_ip;
		e->to = r->to_ip;
		if (op & PMT_SPE_OP_F_BR_CR_BL)
			e->type = cond ? PMT_BR_COND_CALL : PMT_BR_CALL;
		else if (op & (PMT_SPE_OP_F_BR_CR_RET | PMT_SPE_OP_F_BR_INDIRECT))
			e->type = cond ? PMT_BR_COND_RET : PMT_BR_RET;
		else if (op & PMT_SPE_OP_F_BR_CR_NON_BL_RET)
			e->type = cond ? PMT_BR_COND : PMT_BR_UNCOND;
		else
			e->type = cond ? PMT_BR_COND : PMT_BR_UNKNOWN;
		e->flags = (r->events & EV(MISPRED)) ? PMT_BRF_MISPRED : PMT_BRF_PREDICTED;
		if (r->events & EV(NOT_TAKEN))
			e->flags |= PMT_BRF_NOT_TAKEN;
		if (r->events & EV(TXN))
			e->flags |= PMT_BRF_IN_TX;
		e->cycles = (uint16_t)(r->latency > 0xffff ? 0xffff : r->latency);
	}
	/* the PBT entry has only a target: from 0, no flags, type UNKNOWN */
	if (sz >= have_tgt + 1 && r->prev_br_tgt)
		b->e[n++].to = r->prev_br_tgt;
	b->nr = n;
}

void spe_queue_context(const struct pmt_spe_sampler *s, struct pmt_spe_queue *q,
		       const struct pmt_spe_record *r)
{
	if (!s->timeless && r->context_id != UINT64_MAX) {
		/* perf: machine__set_current_tid(); the pid is not known from SPE alone */
		if (q->tid != (int32_t)r->context_id)
			q->pid = pmt_spe_threads_pid(s->threads, (int32_t)r->context_id);
		q->tid = (int32_t)r->context_id;
	}
}

/* the time perf gives the record's samples */
static inline uint64_t sample_time(const struct pmt_spe_sampler *s, const struct pmt_spe_record *r)
{
	/* without TIME_CONV perf converts with zeroed parameters, i.e. time 0; pmutrace
	 * keeps the raw SPE timestamp unless asked to reproduce perf */
	if (!s->timeless && s->have_time_conv)
		return pmt_time_conv_to_perf(&s->tc, r->timestamp);
	if (!s->timeless && s->compat >= PMT_PERF_NEWEST)
		return r->timestamp;
	return 0;
}

/* perf >= 6.18 drops whole records by the --itrace period (arm_spe_sample(): a u64
 * compare, so a period of 0 keeps all); true: this one is dropped */
static inline bool decimated(const struct pmt_spe_sampler *s, struct pmt_spe_queue *q)
{
	if (!s->decimate_all)
		return false;
	if (++q->insn_count < s->period)
		return true;
	q->insn_count = 0;
	return false;
}

/* The events perf samples the record in, a bit each (enum pmt_spe_event), which is also
 * the order it makes the samples in; counts the record in the --itrace instructions period.
 * dsrc: the record's data source, which only perf 6.1's memory event reads. */
static inline uint32_t sample_events(struct pmt_spe_sampler *s, struct pmt_spe_queue *q,
				     const struct pmt_spe_record *r, uint64_t dsrc)
{
	const int compat = s->compat;
	const uint32_t en = s->enabled;
	const uint64_t e = r->events;
	uint32_t m = 0;

	m |= (e & EV(L1D_REFILL)) ? 1u << PMT_SPE_SE_L1D_MISS : 0;
	m |= (e & EV(L1D_ACCESS)) ? 1u << PMT_SPE_SE_L1D_ACCESS : 0;
	m |= (e & EV(LLC_MISS)) ? 1u << PMT_SPE_SE_LLC_MISS : 0;
	m |= (e & EV(LLC_ACCESS)) ? 1u << PMT_SPE_SE_LLC_ACCESS : 0;
	m |= (e & EV(TLB_WALK)) ? 1u << PMT_SPE_SE_TLB_MISS : 0;
	m |= (e & EV(TLB_ACCESS)) ? 1u << PMT_SPE_SE_TLB_ACCESS : 0;
	m |= (e & EV(REMOTE_ACCESS)) ? 1u << PMT_SPE_SE_REMOTE : 0;
	if (compat <= 612 ? (e & EV(MISPRED)) != 0 : (r->op & PMT_SPE_OP_F_BRANCH) != 0)
		m |= 1u << PMT_SPE_SE_BRANCH;
	/* 6.1 tests data_src != 0, later perf the LD/ST op class, 6.19 SIMD ops too */
	if ((en & 1u << PMT_SPE_SE_MEMORY) &&
	    (compat <= 601 ? dsrc != 0 : pmt_spe_is_mem_op(r->op, compat)))
		m |= 1u << PMT_SPE_SE_MEMORY;
	if ((en & 1u << PMT_SPE_SE_INSN) &&
	    (s->decimate_all || ++q->insn_count >= s->itrace.period)) {
		if (!s->decimate_all)
			q->insn_count = 0;
		m |= 1u << PMT_SPE_SE_INSN;
	}
	return m & en;
}

int pmt_spe_sampler_run(struct pmt_spe_sampler *s, struct pmt_spe_queue *q,
			const struct pmt_spe_record *r, struct pmt_spe_sample *out)
{
	const int compat = s->compat;
	uint64_t dsrc;
	uint32_t m;
	struct pmt_spe_sample base;
	int n = 0;

	spe_queue_context(s, q, r);
	if (decimated(s, q))
		return 0;
	dsrc = pmt_spe_data_source_caps(r, q->midr, q->event_filter, compat);
	m = sample_events(s, q, r, dsrc);

	/* a copy of a zero struct, not memset(): gcc makes rep stos of that memset, which
	 * took a quarter of the sampler's time (bench_spe_decode) */
	base = zero_sample;
	base.cpu = q->cpu;
	base.pid = q->pid;
	base.tid = q->tid;
	base.op = r->op;
	base.ip = r->from_ip;
	base.period = s->period;
	base.weight = r->latency;
	base.issue_lat = r->issue_lat;
	base.xlat_lat = r->xlat_lat;
	base.rec = r;
	base.time = sample_time(s, r);
	if (s->brstack)
		prep_brstack(s, q, r);
	for (; m; m &= m - 1) {
		const unsigned ev = (unsigned)__builtin_ctz(m);
		struct pmt_spe_sample *o = &out[n++];

		*o = base;
		o->event = ev;
		if (ev == PMT_SPE_SE_BRANCH) {
			o->addr = r->to_ip;
			o->flags = branch_flags(r);
			o->brstack = s->brstack ? &q->brstack : NULL;
			continue;
		}
		o->addr = r->virt_addr;
		o->phys_addr = r->phys_addr;
		o->data_src = dsrc;
		if (ev == PMT_SPE_SE_INSN) {
			o->brstack = s->brstack ? &q->brstack : NULL;
			if (compat >= 613)
				o->addr = r->to_ip;
			o->period = s->decimate_all ? s->period : s->itrace.period;
			if (r->op & PMT_SPE_OP_F_BRANCH)
				o->flags = branch_flags(r);
		}
	}
	return n;
}

int pmt_spe_sampler_brief(struct pmt_spe_sampler *s, struct pmt_spe_queue *q,
			  const struct pmt_spe_record *r, struct pmt_spe_brief *b)
{
	uint64_t dsrc = 0;
	uint32_t m;

	spe_queue_context(s, q, r);
	b->events = b->n = 0;
	if (decimated(s, q))
		return 0;
	/* the data source decides perf 6.1's memory samples only: not worked out else */
	if ((s->enabled & 1u << PMT_SPE_SE_MEMORY) && s->compat <= 601)
		dsrc = pmt_spe_data_source_caps(r, q->midr, q->event_filter, s->compat);
	b->events = sample_events(s, q, r, dsrc);
	b->cpu = q->cpu;
	b->pid = q->pid;
	b->tid = q->tid;
	b->time = sample_time(s, r);
	b->ip = r->from_ip;
	b->weight = r->latency;
	b->period = s->period;
	b->insn_period = s->decimate_all ? s->period : s->itrace.period;
	b->rec = r;
	/* no popcnt instruction in the baseline x86-64 ISA: gcc calls libgcc's, 42 of the
	 * instructions of a record (cachegrind) */
	m = b->events - ((b->events >> 1) & 0x5555);
	m = (m & 0x3333) + ((m >> 2) & 0x3333);
	m = (m + (m >> 4)) & 0x0f0f;
	b->n = (m + (m >> 8)) & 0x1f;
	return (int)b->n;
}
