/* A sample's call chain as one column of script --csv and --json (cli/man/script.md):
 * the chain's entries as recorded, leaf first, PERF_CONTEXT_* markers left out, each with
 * its symbol, offset and file, and before each the functions inlined at its address as
 * frames of their own (perf 7.3's "(inlined)" lines; none with --no-inline). */
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "sink_priv.h"

/* PERF_CONTEXT_MAX: entries at or above it mark where kernel, user or guest frames begin */
#define CONTEXT_MAX ((uint64_t)-4095)
#define CONTEXT_USER ((uint64_t)-512)

/* the frames of s in order, each resolved; false at the end. An entry with inlined
 * functions gives them first, each with inlined set to its DWARF name ("??" without
 * one), then the entry itself (inlined NULL). */
struct frame_walk {
	const struct pmt_callchain *cc;
	uint64_t i;
	uint64_t ip;
	struct pmt_sym_loc loc;
	const char *inlined;
	struct pmt_inline_frame fr[SINK_INLINE_MAX];
	int nfr, at;          /* the entry's inlined functions and the next one to give */
	bool user;            /* past the chain's user context marker */
};

static bool next_frame(struct pmt_spe_sink *k, const struct pmt_spe_sample *s,
		       struct frame_walk *w)
{
	/* a frame perf does not mark inlined (the holding function, or one inlined into
	 * itself) is the entry itself, under the symbol's name (pmt_inline_frame) */
	if (w->at < w->nfr) {
		const struct pmt_inline_frame *fr = &w->fr[w->at];

		w->inlined = !fr->inlined ? NULL : fr->func ? fr->func : "??";
		if (++w->at == w->nfr)
			w->nfr = 0;
		return true;
	}
	w->inlined = NULL;
	while (w->i < w->cc->nr && w->cc->ips[w->i] >= CONTEXT_MAX)
		w->user = w->cc->ips[w->i++] == CONTEXT_USER;
	if (w->i >= w->cc->nr)
		return false;
	w->ip = w->cc->ips[w->i++];
	memset(&w->loc, 0, sizeof(w->loc));
	if (k->symbols)
		pmt_symbols_resolve(k->symbols, s->pid, w->ip, s->time, &w->loc);
	w->nfr = sink_chain_inlines(k, &w->loc, w->fr, w->user && s->user_unwound);
	w->at = 0;
	if (w->nfr > 0)
		return next_frame(k, s, w);
	w->nfr = 0;
	return true;
}

/* text inside a quoted CSV field: its quotes doubled */
static void csv_inner(struct pmt_out *o, const char *s)
{
	const char *q;

	while ((q = strchr(s, '"'))) {
		pmt_out_mem(o, s, (size_t)(q - s) + 1);
		pmt_out_char(o, '"');
		s = q + 1;
	}
	pmt_out_str(o, s);
}

static void callchain_csv(struct pmt_spe_sink *k, const struct pmt_spe_sample *s)
{
	struct pmt_out *o = k->out;
	struct frame_walk w = { .cc = s->callchain };
	bool first = true;

	/* always quoted: C++ names hold commas */
	pmt_out_char(o, '"');
	while (next_frame(k, s, &w)) {
		if (!first)
			pmt_out_char(o, ';');
		first = false;
		pmt_out_str(o, "0x");
		pmt_out_hex(o, w.ip);
		pmt_out_char(o, ' ');
		if (w.loc.sym) {
			csv_inner(o, w.inlined ? w.inlined : w.loc.sym);
			pmt_out_str(o, "+0x");
			pmt_out_hex(o, w.loc.symoff);
		} else {
			pmt_out_str(o, "[unknown]");
		}
		/* as perf's line of an inlined function: its marker where the file was */
		if (w.inlined) {
			pmt_out_str(o, " (inlined)");
			continue;
		}
		pmt_out_str(o, " (");
		csv_inner(o, w.loc.dso ? w.loc.dso : "[unknown]");
		pmt_out_char(o, ')');
	}
	pmt_out_char(o, '"');
}

static void callchain_json(struct pmt_spe_sink *k, const struct pmt_spe_sample *s)
{
	struct pmt_out *o = k->out;
	struct frame_walk w = { .cc = s->callchain };
	bool first = true;

	pmt_out_str(o, ",\"callchain\":[");
	while (next_frame(k, s, &w)) {
		pmt_out_str(o, first ? "{\"ip\":\"0x" : ",{\"ip\":\"0x");
		first = false;
		pmt_out_hex(o, w.ip);
		pmt_out_str(o, "\",\"sym\":");
		if (w.loc.sym)
			pmt_out_json_str(o, w.inlined ? w.inlined : w.loc.sym);
		else
			pmt_out_str(o, "null");
		pmt_out_str(o, ",\"dso\":");
		if (w.loc.dso)
			pmt_out_json_str(o, w.loc.dso);
		else
			pmt_out_str(o, "null");
		if (w.loc.sym) {
			pmt_out_str(o, ",\"symoff\":\"0x");
			pmt_out_hex(o, w.loc.symoff);
			pmt_out_char(o, '"');
		} else {
			pmt_out_str(o, ",\"symoff\":null");
		}
		pmt_out_str(o, w.inlined ? ",\"inlined\":true}" : "}");
	}
	pmt_out_char(o, ']');
}

void sink_callchain_row_end(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, int json)
{
	/* a chain may be longer than a tail (the cache of sink_write_row() holds 1 KiB): it is
	 * written here, after the tail, and the row stops being one to copy */
	k->out->len -= json ? 2 : 1;
	if (json)
		callchain_json(k, s);
	else
		callchain_csv(k, s);
	pmt_out_str(k->out, json ? "}\n" : "\n");
	k->tail_valid = 0;
}
