/* Branch stacks as perf script prints them (-F brstack, the text and CSV columns). */
#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"

const char *pmt_branch_type_name(unsigned type)
{
	/* tools/perf/util/branch.c branch_type_name(), PERF_BR_* order */
	static const char *const names[16] = {
		"N/A", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL", "SYSRET",
		"COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "",
	};

	if (type == PMT_BR_UNKNOWN || type >= 16)
		return "";
	return names[type];
}

int pmt_spe_brstack_str(const struct pmt_spe_brstack *b, const char *sep, char *out,
			size_t cap)
{
	/* a never-flushed pmt_out over a local buffer: one entry is < 90 bytes */
	char tmp[PMT_SPE_BRSTACK_MAX * 128];
	struct pmt_out o;
	int len;

	if (!cap)
		return 0;
	memset(&o, 0, sizeof(o));
	o.buf = tmp;
	o.cap = sizeof(tmp);
	for (uint32_t i = 0; i < b->nr && i < PMT_SPE_BRSTACK_MAX; i++) {
		const struct pmt_branch_entry *e = &b->e[i];
		unsigned f = e->flags;

		if (i)
			pmt_out_str(&o, sep);
		pmt_out_0x(&o, e->from);
		pmt_out_char(&o, '/');
		pmt_out_0x(&o, e->to);
		pmt_out_char(&o, '/');
		/* bstack_event_str(): "-" without any of the three, else P or M, then N */
		if (!(f & (PMT_BRF_MISPRED | PMT_BRF_PREDICTED | PMT_BRF_NOT_TAKEN))) {
			pmt_out_char(&o, '-');
		} else {
			pmt_out_char(&o, (f & PMT_BRF_PREDICTED) ? 'P' : 'M');
			if (f & PMT_BRF_NOT_TAKEN)
				pmt_out_char(&o, 'N');
		}
		/* in_tx, abort (never set by SPE), cycles, type, spec (never set by SPE) */
		pmt_out_str(&o, (f & PMT_BRF_IN_TX) ? "/X/-/" : "/-/-/");
		pmt_out_u64(&o, e->cycles);
		pmt_out_char(&o, '/');
		pmt_out_str(&o, pmt_branch_type_name(e->type));
		pmt_out_str(&o, "/-");
	}
	len = (int)(o.len < cap ? o.len : cap - 1);
	memcpy(out, tmp, (size_t)len);
	out[len] = 0;
	return len;
}
