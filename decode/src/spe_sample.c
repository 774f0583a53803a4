/* SPE records -> perf's synthetic samples (tools/perf/util/arm-spe.c, arm_spe_sample()). */
#include "pmutrace/decode.h"

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
	if (!s->itrace.period)
		s->itrace.period = 1;
}

void pmt_spe_queue_init(struct pmt_spe_queue *q, uint32_t cpu, int32_t pid, int32_t tid,
			uint64_t midr, int compat)
{
	memset(q, 0, sizeof(*q));
	q->cpu = cpu;
	q->pid = pid;
	q->tid = tid;
	q->midr = midr;
	q->dec.emit_partial = compat < PMT_PERF_NEWEST;
	q->dec.cur.context_id = UINT64_MAX;
	q->dec.cur.op_class = 0xff;
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

int pmt_spe_sampler_run(struct pmt_spe_sampler *s, struct pmt_spe_queue *q,
			const struct pmt_spe_record *r, struct pmt_spe_sample *out)
{
	const int compat = s->compat;
	const uint32_t en = s->enabled;
	uint64_t e = r->events;
	uint64_t dsrc;
	struct pmt_spe_sample base;
	int n = 0;
	int is_ldst = (r->op & PMT_SPE_OP_F_LDST) != 0;

	if (!s->timeless && r->context_id != UINT64_MAX) {
		/* perf: machine__set_current_tid(); the pid is not known from SPE alone */
		if (q->tid != (int32_t)r->context_id)
			q->pid = -1;
		q->tid = (int32_t)r->context_id;
	}
	dsrc = pmt_spe_data_source(r, q->midr, compat);

	/* a copy of a zero struct, not memset(): gcc makes rep stos of that memset, which
	 * took a quarter of the sampler's time (bench_spe_decode) */
	base = zero_sample;
	base.cpu = q->cpu;
	base.pid = q->pid;
	base.tid = q->tid;
	base.op = r->op;
	base.ip = r->from_ip;
	base.period = 1;
	base.weight = r->latency;
	base.issue_lat = r->issue_lat;
	base.xlat_lat = r->xlat_lat;
	base.rec = r;
	/* without TIME_CONV perf converts with zeroed parameters, i.e. time 0; pmutrace
	 * keeps the raw SPE timestamp unless asked to reproduce perf */
	if (!s->timeless && s->have_time_conv)
		base.time = pmt_time_conv_to_perf(&s->tc, r->timestamp);
	else if (!s->timeless && compat >= PMT_PERF_NEWEST)
		base.time = r->timestamp;

#define MEM(ev)                                                                          \
	do {                                                                             \
		out[n] = base;                                                           \
		out[n].event = (ev);                                                     \
		out[n].addr = r->virt_addr;                                              \
		out[n].phys_addr = r->phys_addr;                                         \
		out[n].data_src = dsrc;                                                  \
		n++;                                                                     \
	} while (0)

	if ((en & 1u << PMT_SPE_SE_L1D_MISS) && (e & EV(L1D_REFILL)))
		MEM(PMT_SPE_SE_L1D_MISS);
	if ((en & 1u << PMT_SPE_SE_L1D_ACCESS) && (e & EV(L1D_ACCESS)))
		MEM(PMT_SPE_SE_L1D_ACCESS);
	if ((en & 1u << PMT_SPE_SE_LLC_MISS) && (e & EV(LLC_MISS)))
		MEM(PMT_SPE_SE_LLC_MISS);
	if ((en & 1u << PMT_SPE_SE_LLC_ACCESS) && (e & EV(LLC_ACCESS)))
		MEM(PMT_SPE_SE_LLC_ACCESS);
	if ((en & 1u << PMT_SPE_SE_TLB_MISS) && (e & EV(TLB_WALK)))
		MEM(PMT_SPE_SE_TLB_MISS);
	if ((en & 1u << PMT_SPE_SE_TLB_ACCESS) && (e & EV(TLB_ACCESS)))
		MEM(PMT_SPE_SE_TLB_ACCESS);
	if (en & 1u << PMT_SPE_SE_BRANCH) {
		int take = compat <= 612 ? (e & EV(MISPRED)) != 0
					 : (r->op & PMT_SPE_OP_F_BRANCH) != 0;

		if (take) {
			out[n] = base;
			out[n].event = PMT_SPE_SE_BRANCH;
			out[n].addr = r->to_ip;
			out[n].flags = branch_flags(r);
			n++;
		}
	}
	if ((en & 1u << PMT_SPE_SE_REMOTE) && (e & EV(REMOTE_ACCESS)))
		MEM(PMT_SPE_SE_REMOTE);
	if (en & 1u << PMT_SPE_SE_MEMORY) {
		/* 6.1 tests data_src != 0, later perf the LD/ST op class */
		if (compat <= 601 ? dsrc != 0 : is_ldst)
			MEM(PMT_SPE_SE_MEMORY);
	}
	if (en & 1u << PMT_SPE_SE_INSN) {
		if (++q->insn_count >= s->itrace.period) {
			q->insn_count = 0;
			out[n] = base;
			out[n].event = PMT_SPE_SE_INSN;
			out[n].addr = compat < 613 ? r->virt_addr : r->to_ip;
			out[n].phys_addr = r->phys_addr;
			out[n].data_src = dsrc;
			out[n].period = s->itrace.period;
			if (r->op & PMT_SPE_OP_F_BRANCH)
				out[n].flags = branch_flags(r);
			n++;
		}
	}
#undef MEM
	return n;
}
