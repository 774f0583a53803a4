/* pmutrace decode/spe: perf's --itrace options as the SPE decoder takes them. Included by
 * pmutrace/spe_decode.h; a header of its own so that one stays under the size the house
 * keeps (CONTRIBUTING.md). */
#ifndef PMUTRACE_ITRACE_H
#define PMUTRACE_ITRACE_H

#include <stdint.h>

#include "pmutrace/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
	PMT_ITRACE_INSN = 1u << 0,   /* i */
	PMT_ITRACE_BRANCH = 1u << 1, /* b */
	PMT_ITRACE_FLC = 1u << 2,    /* f: l1d-miss, l1d-access */
	PMT_ITRACE_LLC = 1u << 3,    /* m: llc-miss, llc-access */
	PMT_ITRACE_TLB = 1u << 4,    /* t */
	PMT_ITRACE_REMOTE = 1u << 5, /* a */
	PMT_ITRACE_MEM = 1u << 6,    /* M */
	PMT_ITRACE_LBR = 1u << 7,    /* l */
};
enum { PMT_ITRACE_PERIOD_INSNS = 0, PMT_ITRACE_PERIOD_TICKS, PMT_ITRACE_PERIOD_NS };
struct pmt_itrace {
	uint32_t flags;
	/* as perf's itrace_synth_opts holds them: without 'i' or 'y' in the string both stay
	 * 0 (instructions, period 0); 'i'/'y' default to 100000 ns */
	uint32_t period_type;
	uint64_t period;
	uint32_t last_branch_sz;
	uint8_t insn_rejected; /* 'i' given with a non-instruction period: perf <= 6.17 warns
				* and drops it, later perf refuses (pmt_itrace_check) */
	uint8_t defaulted;     /* no --itrace: each perf version picks its own default */
	char ignored[24];      /* the letters given that only other decoders use (-v says) */
};
/* perf's default (no --itrace): every sample kind; instructions with a 100000 ns period,
 * which SPE before 6.18 rejects, so in effect all but instructions. From 6.18 the SPE
 * decoder turns the default into instructions with period 1 (see pmt_spe_sampler_init). */
PMT_API void pmt_itrace_default(struct pmt_itrace *it);
/* What perf's arm_spe_process_auxtrace_info() says about these options at a compat level:
 * 0 = fine; 1 = *msg is a warning to print (period > 1, perf >= 6.18); -PMT_EINVAL = perf
 * refuses to decode (non-instruction period, perf >= 6.18), *msg is its error text. The
 * older "Only instruction-based sampling period" warning is the caller's (insn_rejected). */
PMT_API int pmt_itrace_check(const struct pmt_itrace *it, int compat, const char **msg);
/* Parse a --itrace string ("" = default). Letters SPE ignores (x w p o e d g G L s q Z A
 * T I y) are accepted and kept in it->ignored; c and r are branches, as perf's 'b'.
 * Returns 0 or -PMT_EPARSE, with the message in diag (may be NULL). */
PMT_API int pmt_itrace_parse(const char *s, struct pmt_itrace *it, struct pmt_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
