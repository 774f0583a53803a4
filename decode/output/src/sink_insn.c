/* -F insnlen and insn: the instruction at a sample's ip, decoded from the mapped file's
 * bytes as perf's script_fetch_insn() does (x86's arch_fetch_insn(), through the kernel's
 * instruction decoder, whatever the file's arch; other hosts decode nothing). That is
 * --perf-compat; pmutrace's default decodes by the file's ELF machine. */
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "sink_priv.h"

/* perf's native_arch (cmd_script): the recording's arch (HEADER_ARCH, normalised as
 * perf_env__arch() does; absent: this host's) is this host's. perf 7.3 has an
 * arch_fetch_insn() for x86 only, so only an x86 host decodes. */
bool sink_insn_native(const struct pmt_trace_meta *m)
{
#if defined(__x86_64__) || defined(__i386__)
	static const char *const x86[] = { "x86", "x86_64", "i386", "i486", "i586", "i686" };

	if (!m || !m->arch)
		return true;
	for (size_t i = 0; i < sizeof(x86) / sizeof(x86[0]); i++)
		if (!strcmp(m->arch, x86[i]))
			return true;
	return false;
#else
	(void)m;
	return false;
#endif
}

uint32_t sink_insn_len(struct pmt_spe_sink *k, const struct pmt_spe_sample *s,
		       const struct pmt_sym_loc *loc, uint8_t bytes[16])
{
	bool is64, none;
	int got;

	/* perf's native_arch rule is perf's; the default reads every file it has */
	if ((k->compat != PMT_PERF_NEWEST && !k->insn_native) || !s->ip || !k->symbols ||
	    !loc->dso)
		return 0;
	got = pmt_symbols_code_at(k->symbols, loc, bytes, 16 /* perf's MAX_INSN */, &is64);
	if (got <= 0)
		return 0;
	return sink_insn_measure(k, pmt_symbols_code_machine(k->symbols, loc), is64, bytes,
				 (size_t)got, true, &none);
}
