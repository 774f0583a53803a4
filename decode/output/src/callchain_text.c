/* A sample's call chain under its line, as perf script's sample__fprintf_callchain()
 * prints it, and the srcline text both that and the sample line use. */
#include <stdio.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "sink_priv.h"

/* PERF_CONTEXT_MAX: entries at or above it mark where kernel, user or guest frames begin */
#define CONTEXT_MAX ((uint64_t)-4095)
#define CONTEXT_USER ((uint64_t)-512)

int sink_srcline_text(struct pmt_symbols *syms, const struct pmt_sym_loc *loc, char *buf,
		      size_t cap, int compat)
{
	const char *file, *slash;
	unsigned line;
	uint64_t va;

	buf[0] = 0;
	if (!loc->dso)
		return 0;
	/* perf's map__srcline(): "\n  FILE:LINE" (the file's last part; addr2line's "??:?"
	 * where it names no file), else "DSO[ADDR]" as get_srcline() falls back without a
	 * symbol */
	if (pmt_symbols_srcline_perf(syms, loc, &file, &line, &va)) {
		/* perf 6.1's map__fprintf_srcline() printed nothing for SRCLINE_UNKNOWN, "??:0" */
		if (!file && compat < 602)
			return 0;
		if (!file)
			file = "??";
		slash = strrchr(file, '/');
		return snprintf(buf, cap, "\n  %s:%u", slash ? slash + 1 : file, line);
	}
	/* a map without an ELF file ([vdso]): perf gives the address in the map */
	return snprintf(buf, cap, "\n  %s[%llx]", loc->dso_short,
			(unsigned long long)(va != UINT64_MAX ? va : loc->map_ip));
}

/* One entry: "\t%16lx" then " SYM+0xOFF", " (DSO)", the srcline and " (inlined)" as the
 * fields ask. name NULL: the symbol table's (or [unknown]). */
static void entry(struct pmt_spe_sink *k, uint64_t addr, const struct pmt_sym_loc *loc,
		  const char *name, int inlined, const char *srcline, uint32_t f)
{
	struct pmt_out *o = k->out;
	char buf[48];

	pmt_out_char(o, '\t');
	snprintf(buf, sizeof(buf), "%16llx", (unsigned long long)addr);
	pmt_out_str(o, buf);
	if (f & PMT_FIELD_SYM) {
		pmt_out_char(o, ' ');
		if (!name)
			name = loc->sym;
		if (name) {
			pmt_out_str(o, name);
			if (f & PMT_FIELD_SYMOFF) {
				snprintf(buf, sizeof(buf), "+0x%llx", (unsigned long long)loc->symoff);
				pmt_out_str(o, buf);
			}
		} else {
			pmt_out_str(o, "[unknown]");
		}
	}
	if ((f & PMT_FIELD_DSO) && !inlined) {
		pmt_out_str(o, " (");
		pmt_out_str(o, loc->dso ? loc->dso : "[unknown]");
		if ((f & PMT_FIELD_DSOFF) && loc->dso && !loc->kernel) {
			snprintf(buf, sizeof(buf), "+0x%llx", (unsigned long long)loc->map_ip);
			pmt_out_str(o, buf);
		}
		pmt_out_char(o, ')');
	}
	if (f & PMT_FIELD_SRCLINE)
		pmt_out_str(o, srcline);
	if (inlined)
		pmt_out_str(o, " (inlined)");
	pmt_out_char(o, '\n');
}

int sink_chain_inlines(struct pmt_spe_sink *k, const struct pmt_sym_loc *loc,
		       struct pmt_inline_frame *fr, bool unwound)
{
	int n;

	/* perf 7.3 adds the functions inlined at the address (append_inlines(), from
	 * libdw), innermost first, each named by its DWARF name, then the symbol's own
	 * line. perf 6.1 added them only to the frames its unwinder gave (unwind_entry()),
	 * from binutils' addr2line, where each frame not by the symbol's name is an
	 * inlined one, the holding function too (a clone's "f" of "f.constprop.0") */
	if (k->no_inline || !k->symbols || !loc->sym || !loc->dso || (k->compat < 602 && !unwound))
		return 0;
	n = pmt_symbols_inlines(k->symbols, loc, fr, SINK_INLINE_MAX);
	if (k->compat < 602)
		for (int j = 0; j < n; j++)
			fr[j].inlined = !fr[j].func || strcmp(fr[j].func, loc->sym);
	return n;
}

void sink_callchain_text(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, uint32_t f)
{
	const struct pmt_callchain *cc = s->callchain;
	struct pmt_inline_frame fr[SINK_INLINE_MAX];
	char srcline[4200];

	bool user = false;

	for (uint64_t i = 0; i < cc->nr; i++) {
		uint64_t ip = cc->ips[i], shown;
		struct pmt_sym_loc loc;
		int n = 0;

		if (ip >= CONTEXT_MAX) {
			user = ip == CONTEXT_USER;
			continue;
		}
		memset(&loc, 0, sizeof(loc));
		if (k->symbols)
			pmt_symbols_resolve(k->symbols, s->pid, ip, s->time, &loc);
		/* perf 6.1 printed an entry's address in its file (map__map_ip()), perf 7.3
		 * the address itself (both checked; the release between that changed it is
		 * not pinned: taken as 6.2's) */
		shown = k->compat < 602 && loc.dso ? loc.map_ip : ip;
		srcline[0] = 0;
		/* perf 6.1 prints an unwound frame's line as its unwinder kept it (unwind_entry:
		 * get_srcline's text), "??:0" where there is none, as 6.2 on does for every
		 * frame (perf 6.1 on _start of a --call-graph dwarf recording) */
		if ((f & PMT_FIELD_SRCLINE) && k->symbols)
			sink_srcline_text(k->symbols, &loc, srcline, sizeof(srcline),
					  user && s->user_unwound && k->compat < 602 ? 602
										    : k->compat);
		n = sink_chain_inlines(k, &loc, fr, user && s->user_unwound);
		for (int j = 0; j < n; j++) {
			/* the outermost is the symbol's own line, by the symbol table's name,
			 * unless perf names it from DWARF (a clone "f.constprop.0" as "f
			 * (inlined)"), and so is an inner one by the symbol's name (a function
			 * inlined into itself; pmt_inline_frame) */
			int own = !fr[j].inlined;
			char place[4200];

			/* each function's own line: the address's in the innermost, where the
			 * next inner one is called from in the others */
			if (fr[j].file) {
				const char *slash = strrchr(fr[j].file, '/');

				snprintf(place, sizeof(place), "\n  %s:%u",
					 slash ? slash + 1 : fr[j].file, fr[j].line);
			} else {
				snprintf(place, sizeof(place), "%s", srcline);
			}
			entry(k, shown, &loc, own ? NULL : fr[j].func ? fr[j].func : "??", !own,
			      place, f);
		}
		if (!n)
			entry(k, shown, &loc, NULL, 0, srcline, f);
	}
}
