#include "pmutrace/spe.h"

uint64_t pmt_spe_addr_canonical(unsigned index, uint64_t payload)
{
	uint64_t addr = payload & 0x00ffffffffffffffULL;

	switch (index) {
	case PMT_SPE_ADDR_PC:
	case PMT_SPE_ADDR_TGT:
	case PMT_SPE_ADDR_PBT: {
		unsigned ns = (unsigned)(payload >> 63) & 1;
		unsigned el = (unsigned)(payload >> 61) & 3;

		/* perf fills the top byte for non-secure EL1/EL2 (kernel) addresses only */
		if (ns && (el == 1 || el == 2))
			addr |= 0xffULL << 56;
		return addr;
	}
	case PMT_SPE_ADDR_VA:
		/* the top byte holds a TBI tag; bits 55:52 tell whether the VA is a kernel one */
		if (((addr >> 52) & 0xf) == 0xf)
			addr |= 0xffULL << 56;
		return addr;
	default:
		return addr;
	}
}
