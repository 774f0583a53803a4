/* Branch stacks as perf script prints them (-F brstack, brstacksym, brstackoff, the text
 * and CSV columns). */
#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"
#include "sink_priv.h"

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

/* print_bstack_flags() less its trailing space: "/P/-/-/5/COND/-" */
static void put_br_flags(struct pmt_out *o, const struct pmt_branch_entry *e)
{
	unsigned f = e->flags;

	pmt_out_char(o, '/');
	/* bstack_event_str(): "-" without any of the three, else P or M, then N */
	if (!(f & (PMT_BRF_MISPRED | PMT_BRF_PREDICTED | PMT_BRF_NOT_TAKEN))) {
		pmt_out_char(o, '-');
	} else {
		pmt_out_char(o, (f & PMT_BRF_PREDICTED) ? 'P' : 'M');
		if (f & PMT_BRF_NOT_TAKEN)
			pmt_out_char(o, 'N');
	}
	/* in_tx, abort (never set by SPE), cycles, type, spec (never set by SPE) */
	pmt_out_str(o, (f & PMT_BRF_IN_TX) ? "/X/-/" : "/-/-/");
	pmt_out_u64(o, e->cycles);
	pmt_out_char(o, '/');
	pmt_out_str(o, pmt_branch_type_name(e->type));
	pmt_out_str(o, "/-");
}

/* map__fprintf_dsoname_dsoff(): " (DSO)", with dsoff "+0xOFF" for a file (not the
 * kernel's maps) */
static void put_dso(struct pmt_out *o, const struct pmt_sym_loc *l, bool dsoff)
{
	pmt_out_str(o, " (");
	pmt_out_str(o, l->dso ? l->dso : "[unknown]");
	if (dsoff && l->dso && !l->kernel) {
		pmt_out_str(o, "+0x");
		pmt_out_hex(o, l->map_ip);
	}
	pmt_out_char(o, ')');
}

/* symbol__fprintf_symname_offs(): perf prints the offset whatever -F symoff says */
static void put_sym(struct pmt_out *o, const struct pmt_sym_loc *l)
{
	if (!l->sym) {
		pmt_out_str(o, "[unknown]");
		return;
	}
	pmt_out_str(o, l->sym);
	pmt_out_str(o, "+0x");
	pmt_out_hex(o, l->symoff);
}

void sink_brstack_fields(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, uint32_t f)
{
	const struct pmt_spe_brstack *b = s->brstack;
	const bool dso = (f & PMT_FIELD_DSO) && k->symbols, dsoff = f & PMT_FIELD_DSOFF;
	struct pmt_out *o = k->out;

	if (!b || !b->nr)
		return;
	for (uint32_t i = 0; i < b->nr && i < PMT_SPE_BRSTACK_MAX; i++) {
		const struct pmt_branch_entry *e = &b->e[i];
		struct pmt_sym_loc lf, lt;
		uint64_t from = e->from, to = e->to;

		if (dso || (f & (PMT_FIELD_BRSTACKSYM | PMT_FIELD_BRSTACKOFF))) {
			pmt_symbols_resolve(k->symbols, s->pid, from, s->time, &lf);
			pmt_symbols_resolve(k->symbols, s->pid, to, s->time, &lt);
		}
		if (!(f & PMT_FIELD_BRSTACK) && (f & PMT_FIELD_BRSTACKSYM)) {
			put_sym(o, &lf);
			if (dso)
				put_dso(o, &lf, dsoff);
			pmt_out_char(o, '/');
			put_sym(o, &lt);
		} else {
			/* brstackoff: an address in a mapped file as its offset there, unless
			 * the file's symbols were read (perf's dso__adjust_symbols(): a user
			 * ELF file's addresses then stay as they are) */
			if (!(f & PMT_FIELD_BRSTACK)) {
				from = lf.dso && !lf.dso_loaded ? lf.map_ip : from;
				to = lt.dso && !lt.dso_loaded ? lt.map_ip : to;
			}
			pmt_out_str(o, " 0x");
			pmt_out_hex(o, from);
			if (dso)
				put_dso(o, &lf, dsoff);
			pmt_out_str(o, "/0x");
			pmt_out_hex(o, to);
		}
		if (dso)
			put_dso(o, &lt, dsoff);
		put_br_flags(o, e);
		pmt_out_char(o, ' ');
	}
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

		if (i)
			pmt_out_str(&o, sep);
		pmt_out_0x(&o, e->from);
		pmt_out_char(&o, '/');
		pmt_out_0x(&o, e->to);
		put_br_flags(&o, e);
	}
	len = (int)(o.len < cap ? o.len : cap - 1);
	memcpy(out, tmp, (size_t)len);
	out[len] = 0;
	return len;
}

size_t pmt_sample_flags_str(uint32_t flags, char *out, size_t cap)
{
	/* builtin-script.c sample_flags_to_name() of perf 7.3: the branch kind's name, then
	 * the branch events as "/miss,not_taken/", then "(x)" for a transaction, right-aligned
	 * to 21 less the length of the last piece written (perf's arithmetic, kept) */
	static const struct {
		uint32_t flags;
		const char *name;
	} kinds[] = {
		{ PMT_IP_FLAG_BRANCH | PMT_IP_FLAG_CALL, "call" },
		{ PMT_IP_FLAG_BRANCH | PMT_IP_FLAG_RETURN, "return" },
		{ PMT_IP_FLAG_BRANCH | PMT_IP_FLAG_CONDITIONAL, "jcc" },
		{ PMT_IP_FLAG_BRANCH, "jmp" },
	};
	const uint32_t events = PMT_IP_FLAG_BRANCH_MISS | PMT_IP_FLAG_NOT_TAKEN;
	uint32_t kind = flags & ~(events | PMT_IP_FLAG_IN_TX);
	int n = 0, last = 0;

	out[0] = '\0';
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].flags == kind)
			n = last = snprintf(out, cap, "%s", kinds[i].name);
	if (flags & events) {
		n += snprintf(out + n, cap - (size_t)n, "/%s%s%s/",
			      flags & PMT_IP_FLAG_BRANCH_MISS ? "miss" : "",
			      (flags & events) == events ? "," : "",
			      flags & PMT_IP_FLAG_NOT_TAKEN ? "not_taken" : "");
		last = 1;
	}
	if (flags & PMT_IP_FLAG_IN_TX)
		n += n + 3 < 21 ? snprintf(out + n, cap - (size_t)n, "%*s", 21 - last, "(x)")
				: snprintf(out + n, cap - (size_t)n, " (x)");
	if (n == 0) {
		/* no name: perf's PERF_IP_FLAG_CHARS, a letter per flag bit */
		static const char chars[] = "bcrosyiABExghDtmn";

		for (unsigned i = 0; i < 32 && (size_t)n + 1 < cap; i++)
			if (flags & (1u << i))
				out[n++] = i < sizeof(chars) - 1 ? chars[i] : '?';
		out[n] = '\0';
	}
	return (size_t)n < cap ? (size_t)n : cap - 1;
}
