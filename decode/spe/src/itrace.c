/* perf's --itrace option string, as itrace_do_parse_synth_opts() reads it for SPE. */
#include <ctype.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"

void pmt_itrace_default(struct pmt_itrace *it)
{
	memset(it, 0, sizeof(*it));
	it->flags = PMT_ITRACE_INSN | PMT_ITRACE_BRANCH | PMT_ITRACE_FLC | PMT_ITRACE_LLC |
		    PMT_ITRACE_TLB | PMT_ITRACE_REMOTE | PMT_ITRACE_MEM;
	it->period_type = PMT_ITRACE_PERIOD_NS;
	it->period = 100000;
	it->insn_rejected = 1;
	it->flags &= ~PMT_ITRACE_INSN;
	it->defaulted = 1;
}

int pmt_itrace_check(const struct pmt_itrace *it, int compat, const char **msg)
{
	if (compat < PMT_PERF_6_18)
		return 0;
	/* arm_spe_process_auxtrace_info() of perf >= 6.18 (after replacing the default by
	 * i1i): a time period is an error for the whole decode, a period > 1 a warning */
	if (!it->defaulted && it->period_type != PMT_ITRACE_PERIOD_INSNS) {
		*msg = "You must only use i (instructions) --itrace period with Arm SPE. "
		       "e.g --itrace=i1i\n";
		return -PMT_EINVAL;
	}
	if (!it->defaulted && it->period > 1) {
		*msg = "Arm SPE has a hardware-based sampling period.\n\n--itrace periods > 1i "
		       "downsample by an interval of n SPE samples rather than n instructions.\n";
		return 1;
	}
	return 0;
}

static int fail(struct pmt_diag *diag, const char *s, const char *p, const char *why)
{
	return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
			    "bad --itrace '%s' at offset %zu: %s", s, (size_t)(p - s), why);
}

/* a letter of another decoder, kept once for -v */
static void note_ignored(struct pmt_itrace *it, char c)
{
	size_t n = strlen(it->ignored);

	if (!strchr(it->ignored, c) && n + 1 < sizeof(it->ignored))
		it->ignored[n] = c;
}

int pmt_itrace_parse(const char *s, struct pmt_itrace *it, struct pmt_diag *diag)
{
	const char *p = s;
	int period_type_set = 0, period_set = 0, cycles = 0;

	if (!s || !*s) {
		pmt_itrace_default(it);
		return 0;
	}
	/* perf's itrace_do_parse_synth_opts() fills a zeroed struct: period and period type
	 * get defaults only when 'i' or 'y' asks for them (below) */
	memset(it, 0, sizeof(*it));
	while (*p) {
		char c = *p++;

		switch (c) {
		case 'i':
		case 'y':
			if (c == 'i') {
				it->flags |= PMT_ITRACE_INSN;
			} else {
				cycles = 1;
				note_ignored(it, c);
			}
			while (*p == ' ' || *p == ',')
				p++;
			if (isdigit((unsigned char)*p)) {
				char *end;
				unsigned long long v = strtoull(p, &end, 10);

				if (!v)
					return fail(diag, s, p, "period must be > 0");
				p = end;
				it->period = v;
				period_set = 1;
			}
			while (*p == ' ' || *p == ',')
				p++;
			switch (*p) {
			case 'i':
				it->period_type = PMT_ITRACE_PERIOD_INSNS;
				period_type_set = 1;
				p++;
				break;
			case 't':
				it->period_type = PMT_ITRACE_PERIOD_TICKS;
				period_type_set = 1;
				p++;
				break;
			case 'm':
			case 'u':
			case 'n':
				if (*p == 'm')
					it->period *= 1000000;
				else if (*p == 'u')
					it->period *= 1000;
				p++;
				if (*p++ != 's')
					return fail(diag, s, p - 1, "expected a time unit");
				it->period_type = PMT_ITRACE_PERIOD_NS;
				period_type_set = 1;
				break;
			default:
				break;
			}
			break;
		case 'b': it->flags |= PMT_ITRACE_BRANCH; break;
		case 'c':
		case 'r':
			/* perf's calls-only and returns-only branch events set its branches
			 * option too, and the SPE decoder makes its branch samples from that
			 * alone: every branch, as 'b' */
			it->flags |= PMT_ITRACE_BRANCH;
			while (isdigit((unsigned char)*p))
				p++;
			break;
		case 'f': it->flags |= PMT_ITRACE_FLC; break;
		case 'm': it->flags |= PMT_ITRACE_LLC; break;
		case 't': it->flags |= PMT_ITRACE_TLB; break;
		case 'a': it->flags |= PMT_ITRACE_REMOTE; break;
		case 'M': it->flags |= PMT_ITRACE_MEM; break;
		case 'l':
		case 'L':
		case 'g':
		case 'G':
			if (c == 'l')
				it->flags |= PMT_ITRACE_LBR;
			else
				note_ignored(it, c);
			if (isdigit((unsigned char)*p)) {
				char *end;
				unsigned long v = strtoul(p, &end, 10);

				/* PERF_ITRACE_MAX_{CALLCHAIN,LAST_BRANCH}_SZ: 1024 */
				if (!v || v > 1024)
					return fail(diag, s, p, "size must be 1..1024");
				if (c == 'l')
					it->last_branch_sz = (uint32_t)v;
				p = end;
			} else if (c == 'l') {
				it->last_branch_sz = 64;
			}
			break;
		case 'e':
		case 'd':
			note_ignored(it, c);
			/* flags like e+flag / d+flag-flag are for other decoders */
			while (*p == '+' || *p == '-') {
				p++;
				while (isalpha((unsigned char)*p))
					p++;
			}
			break;
		case 's':
			/* perf's initial skip needs its count */
			if (!isdigit((unsigned char)*p))
				return fail(diag, s, p, "s needs the number of events to skip");
			note_ignored(it, c);
			while (isdigit((unsigned char)*p))
				p++;
			break;
		case 'x': case 'w': case 'p': case 'o':
		case 'q': case 'Z': case 'A': case 'T': case 'I':
			note_ignored(it, c);
			while (isdigit((unsigned char)*p))
				p++;
			break;
		case ' ':
		case ',':
			break;
		default:
			return fail(diag, s, p - 1, "unknown option letter");
		}
	}
	if ((it->flags & PMT_ITRACE_INSN) || cycles) {
		if (!period_type_set)
			it->period_type = PMT_ITRACE_PERIOD_NS;
		if (!period_set)
			it->period = 100000;
	}
	if (it->flags & PMT_ITRACE_INSN) {
		if (it->period_type != PMT_ITRACE_PERIOD_INSNS) {
			/* perf: "Only instruction-based sampling period is currently
			 * supported by Arm SPE." and no instructions event */
			it->insn_rejected = 1;
			it->flags &= ~PMT_ITRACE_INSN;
		}
	}
	return 0;
}
