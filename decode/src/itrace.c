/* perf's --itrace option string, as itrace_do_parse_synth_opts() reads it for SPE. */
#include <ctype.h>
#include <stdlib.h>

#include "pmutrace/decode.h"

void pmt_itrace_default(struct pmt_itrace *it)
{
	memset(it, 0, sizeof(*it));
	it->flags = PMT_ITRACE_INSN | PMT_ITRACE_BRANCH | PMT_ITRACE_FLC | PMT_ITRACE_LLC |
		    PMT_ITRACE_TLB | PMT_ITRACE_REMOTE | PMT_ITRACE_MEM;
	it->period_type = PMT_ITRACE_PERIOD_NS;
	it->period = 100000;
	it->insn_rejected = 1;
	it->flags &= ~PMT_ITRACE_INSN;
}

static int fail(char *err, size_t cap, const char *s, const char *p, const char *why)
{
	if (err && cap)
		snprintf(err, cap, "bad --itrace '%s' at offset %zu: %s", s, (size_t)(p - s), why);
	return -PMT_EPARSE;
}

int pmt_itrace_parse(const char *s, struct pmt_itrace *it, char *err, size_t errcap)
{
	const char *p = s;
	int period_type_set = 0, period_set = 0;

	if (!s || !*s) {
		pmt_itrace_default(it);
		return 0;
	}
	memset(it, 0, sizeof(*it));
	it->period_type = PMT_ITRACE_PERIOD_NS;
	it->period = 100000;
	while (*p) {
		char c = *p++;

		switch (c) {
		case 'i':
		case 'y':
			if (c == 'i')
				it->flags |= PMT_ITRACE_INSN;
			while (*p == ' ' || *p == ',')
				p++;
			if (isdigit((unsigned char)*p)) {
				char *end;
				unsigned long long v = strtoull(p, &end, 10);

				if (!v)
					return fail(err, errcap, s, p, "period must be > 0");
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
					return fail(err, errcap, s, p - 1, "expected a time unit");
				it->period_type = PMT_ITRACE_PERIOD_NS;
				period_type_set = 1;
				break;
			default:
				break;
			}
			break;
		case 'b': it->flags |= PMT_ITRACE_BRANCH; break;
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
			if (isdigit((unsigned char)*p)) {
				char *end;
				unsigned long v = strtoul(p, &end, 10);

				if (!v)
					return fail(err, errcap, s, p, "size must be > 0");
				if (c == 'l')
					it->last_branch_sz = (uint32_t)(v > 1024 ? 1024 : v);
				p = end;
			} else if (c == 'l') {
				it->last_branch_sz = 64;
			}
			break;
		case 'e':
		case 'd':
			/* flags like e+flag / d+flag-flag are for other decoders */
			while (*p == '+' || *p == '-') {
				p++;
				while (isalpha((unsigned char)*p))
					p++;
			}
			break;
		case 'c': case 'r': case 'x': case 'w': case 'p': case 'o': case 's':
		case 'q': case 'Z': case 'A': case 'T': case 'I':
			while (isdigit((unsigned char)*p))
				p++;
			break;
		case ' ':
		case ',':
			break;
		default:
			return fail(err, errcap, s, p - 1, "unknown option letter");
		}
	}
	if (it->flags & PMT_ITRACE_INSN) {
		if (!period_type_set)
			it->period_type = PMT_ITRACE_PERIOD_NS;
		if (!period_set)
			it->period = 100000;
		if (it->period_type != PMT_ITRACE_PERIOD_INSNS) {
			/* perf: "Only instruction-based sampling period is currently
			 * supported by Arm SPE." and no instructions event */
			it->insn_rejected = 1;
			it->flags &= ~PMT_ITRACE_INSN;
		}
	}
	return 0;
}
