#include "pmutrace/perfdata.h"

uint64_t pmt_time_conv_to_perf(const struct pmt_time_conv *tc, uint64_t cyc)
{
	uint64_t quot, rem;

	if (tc->time_shift >= 64) /* invalid; the reader refuses such a TIME_CONV */
		return cyc;
	if (tc->cap_user_time_short)
		cyc = tc->time_cycles + ((cyc - tc->time_cycles) & tc->time_mask);
	quot = cyc >> tc->time_shift;
	rem = cyc & (((uint64_t)1 << tc->time_shift) - 1);
	return tc->time_zero + quot * tc->time_mult + ((rem * tc->time_mult) >> tc->time_shift);
}
