/* Annotate: hot functions disassembled (capstone, AArch64 or x86-64 as the ELF says) with
 * each instruction's samples of one event, the average total, issue and translation
 * latency of its SPE samples, and the source line where it changes. */
#include <capstone/capstone.h>
#include <inttypes.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/dynlib.h"
#include "pmutrace/output.h"
#include "event_slots.h"

/* capstone is loaded by annotate only: relocating its tables cost every other command
 * ~1 ms and 400 page faults at start-up */
#define CS_FUNCS(X, api) X(api, cs_open) X(api, cs_close) X(api, cs_disasm) X(api, cs_free)
PMT_DYNLIB_DEFINE(cs, "libcapstone.so.4", CS_FUNCS);

#define EM_X86_64_ 62
#define EM_AARCH64_ 183

struct ins_stat {
	const void *sym;          /* NULL: empty slot */
	uint64_t off;             /* the instruction's file offset (the samples' map_ip) */
	uint32_t nr[PMT_EV_SLOTS];
	/* latency sums: [0] of the instruction samples (one per record), [1] of the memory
	 * samples (when instructions are not sampled) */
	uint64_t lat[2], issue[2], xlat[2];
	uint32_t nlat[2];
};

struct sym_stat {
	const void *sym;          /* NULL: empty slot */
	struct pmt_sym_loc loc;   /* of its first sample: names, file, map */
	uint64_t nr[PMT_EV_SLOTS];
};

struct pmt_annotate {
	struct pmt_symbols *syms;
	struct pmt_annotate_opts o;
	struct ins_stat *ins;
	size_t ins_cap, ins_n;
	struct sym_stat *sy;
	size_t sy_cap, sy_n;
	uint64_t total[PMT_EV_SLOTS];
	struct pmt_ev_slots slots;
	/* the samples of a record share ip: resolved once */
	uint64_t last_ip, last_time;
	int32_t last_pid;
	int last_valid;
	struct pmt_sym_loc last;
};

static uint64_t hash2(const void *p, uint64_t v)
{
	uint64_t h = ((uintptr_t)p ^ (v * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;

	return h ^ (h >> 31);
}

int pmt_annotate_new(struct pmt_symbols *syms, const struct pmt_annotate_opts *o,
		     struct pmt_annotate **out)
{
	struct pmt_annotate *a;

	if (!syms || !out || !PMT_OPTS_HAS(o, top))
		return -PMT_EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -PMT_ENOMEM;
	a->syms = syms;
	memcpy(&a->o, o, o->sz < sizeof(a->o) ? o->sz : sizeof(a->o));
	a->slots.meta = PMT_OPTS_HAS(o, meta) ? o->meta : NULL;
	a->ins_cap = 4096;
	a->sy_cap = 256;
	a->ins = calloc(a->ins_cap, sizeof(*a->ins));
	a->sy = calloc(a->sy_cap, sizeof(*a->sy));
	if (!a->ins || !a->sy) {
		pmt_annotate_free(a);
		return -PMT_ENOMEM;
	}
	*out = a;
	return 0;
}

void pmt_annotate_free(struct pmt_annotate *a)
{
	if (!a)
		return;
	free(a->ins);
	free(a->sy);
	free(a);
}

/* open addressing over `size`-byte slots whose first field is the key pointer */
static struct ins_stat *ins_slot(struct ins_stat *t, size_t cap, const void *sym, uint64_t off)
{
	for (size_t i = hash2(sym, off) & (cap - 1);; i = (i + 1) & (cap - 1))
		if (!t[i].sym || (t[i].sym == sym && t[i].off == off))
			return &t[i];
}

static struct sym_stat *sym_slot(struct sym_stat *t, size_t cap, const void *sym)
{
	for (size_t i = hash2(sym, 0) & (cap - 1);; i = (i + 1) & (cap - 1))
		if (!t[i].sym || t[i].sym == sym)
			return &t[i];
}

static int grow(struct pmt_annotate *a)
{
	if (a->ins_n * 4 >= a->ins_cap * 3) {
		size_t cap = a->ins_cap * 2;
		struct ins_stat *t = calloc(cap, sizeof(*t));

		if (!t)
			return -PMT_ENOMEM;
		for (size_t i = 0; i < a->ins_cap; i++)
			if (a->ins[i].sym)
				*ins_slot(t, cap, a->ins[i].sym, a->ins[i].off) = a->ins[i];
		free(a->ins);
		a->ins = t;
		a->ins_cap = cap;
	}
	if (a->sy_n * 4 >= a->sy_cap * 3) {
		size_t cap = a->sy_cap * 2;
		struct sym_stat *t = calloc(cap, sizeof(*t));

		if (!t)
			return -PMT_ENOMEM;
		for (size_t i = 0; i < a->sy_cap; i++)
			if (a->sy[i].sym)
				*sym_slot(t, cap, a->sy[i].sym) = a->sy[i];
		free(a->sy);
		a->sy = t;
		a->sy_cap = cap;
	}
	return 0;
}

int pmt_annotate_add(struct pmt_annotate *a, const struct pmt_spe_sample *s)
{
	struct ins_stat *is;
	struct sym_stat *ss;
	int slot = pmt_ev_slot(&a->slots, s->event, "annotate");

	if (slot < 0)
		return 0;
	a->total[slot]++;
	if (!a->last_valid || s->ip != a->last_ip || s->pid != a->last_pid ||
	    s->time != a->last_time) {
		pmt_symbols_resolve(a->syms, s->pid, s->ip, s->time, &a->last);
		a->last_ip = s->ip;
		a->last_pid = s->pid;
		a->last_time = s->time;
		a->last_valid = 1;
	}
	if (!a->last.sym_id)
		return 0;
	if (a->o.symbol && strcmp(a->o.symbol, a->last.sym))
		return 0;
	is = ins_slot(a->ins, a->ins_cap, a->last.sym_id, a->last.map_ip);
	if (!is->sym) {
		is->sym = a->last.sym_id;
		is->off = a->last.map_ip;
		a->ins_n++;
	}
	is->nr[slot]++;
	/* a record's latencies (total = the sample's weight) once: from its instruction
	 * sample, or its memory sample when instructions are not sampled */
	if (s->event == PMT_SPE_SE_INSN || s->event == PMT_SPE_SE_MEMORY) {
		int k = s->event == PMT_SPE_SE_MEMORY;

		is->lat[k] += s->weight;
		is->issue[k] += s->issue_lat;
		is->xlat[k] += s->xlat_lat;
		is->nlat[k]++;
	}
	ss = sym_slot(a->sy, a->sy_cap, a->last.sym_id);
	if (!ss->sym) {
		ss->sym = a->last.sym_id;
		ss->loc = a->last;
		a->sy_n++;
	}
	ss->nr[slot]++;
	return grow(a);
}

/* the event to count: the one named, else instructions, else the most sampled */
static int pick_event(const struct pmt_annotate *a, int compat, struct pmt_diag *diag)
{
	int best = -1;
	char name[128];

	if (a->o.event) {
		for (unsigned ev = 0; ev < PMT_SPE_SE_COUNT + a->slots.n; ev++)
			if (!strcmp(pmt_ev_slot_name(&a->slots, ev, compat, name, sizeof(name)),
				    a->o.event))
				return (int)ev;
		return pmt_diag_set(diag, -PMT_ENOT_FOUND, NULL, PMT_DIAG_NO_OFFSET,
				    "--event %s: no such event (the trace's events are those "
				    "report lists)", a->o.event);
	}
	if (a->total[PMT_SPE_SE_INSN])
		return PMT_SPE_SE_INSN;
	for (unsigned ev = 0; ev < PMT_SPE_SE_COUNT + a->slots.n; ev++)
		if (a->total[ev] && (best < 0 || a->total[ev] > a->total[best]))
			best = (int)ev;
	if (best < 0)
		return pmt_diag_set(diag, -PMT_ENOT_FOUND, NULL, PMT_DIAG_NO_OFFSET,
				    "no samples to annotate");
	return best;
}

static const struct pmt_annotate *cmp_ctx;
static unsigned cmp_ev;

static int cmp_syms(const void *pa, const void *pb)
{
	const struct sym_stat *a = *(const struct sym_stat *const *)pa;
	const struct sym_stat *b = *(const struct sym_stat *const *)pb;

	if (a->nr[cmp_ev] != b->nr[cmp_ev])
		return a->nr[cmp_ev] > b->nr[cmp_ev] ? -1 : 1;
	(void)cmp_ctx;
	return strcmp(a->loc.sym, b->loc.sym);
}

/* The last part of a path, as the source lines are shown */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Where an instruction is in the source, in lines of `where` (cap bytes): "FILE:LINE", or,
 * for inlined code, objdump -l --inlines' chain: "FILE:LINE (FUNC)" of the innermost
 * function, then "inlined by FILE:LINE (FUNC)" for each call around it; "" when unknown. */
static void source_place(struct pmt_symbols *syms, const struct pmt_sym_loc *l, char *where,
			 size_t cap)
{
	struct pmt_inline_frame fr[16];
	int n = pmt_symbols_inlines(syms, l, fr, 16);
	const char *file;
	unsigned line;
	uint64_t va;
	size_t len = 0;

	where[0] = 0;
	if (n < 2) {
		if (pmt_symbols_srcline(syms, l, &file, &line, &va))
			snprintf(where, cap, "%s:%u", base_name(file), line);
		return;
	}
	for (int i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(where + len, cap - len, "%s%s%s:%u (%s)", i ? "\n" : "",
					i ? "inlined by " : "", fr[i].file ? base_name(fr[i].file) : "??",
					fr[i].line, fr[i].func ? fr[i].func : "??");
}

/* One instruction's line, after its place in the source when that changed (last, cap
 * bytes, holds the place shown before) */
static void print_insn(struct pmt_annotate *a, struct pmt_out *out, const struct sym_stat *ss,
		       unsigned ev, const cs_insn *insn, uint64_t vaddr, char *last, size_t cap)
{
	uint64_t off = ss->loc.sym_start + (insn->address - vaddr);
	const struct ins_stat *is = ins_slot(a->ins, a->ins_cap, ss->sym, off);
	struct pmt_sym_loc l = ss->loc;
	char where[1024];

	l.map_ip = off;
	source_place(a->syms, &l, where, sizeof(where));
	if (where[0] && strcmp(where, last)) {
		for (const char *p = where, *nl; *p; p = nl ? nl + 1 : p + strlen(p)) {
			nl = strchr(p, '\n');
			pmt_out_printf(out, "         :                                 %.*s\n",
				       (int)(nl ? (size_t)(nl - p) : strlen(p)), p);
		}
		snprintf(last, cap, "%s", where);
	}
	if (is->sym && is->nr[ev])
		pmt_out_printf(out, "%8.2f : %8u", 100.0 * is->nr[ev] / (double)ss->nr[ev],
			       is->nr[ev]);
	else
		pmt_out_str(out, "         :         ");
	if (is->sym && (is->nlat[0] || is->nlat[1])) {
		int k = !is->nlat[0];

		pmt_out_printf(out, " %5.1f %6.1f %6.1f :", (double)is->lat[k] / is->nlat[k],
			       (double)is->issue[k] / is->nlat[k],
			       (double)is->xlat[k] / is->nlat[k]);
	} else
		pmt_out_str(out, "                      :");
	pmt_out_printf(out, " %8" PRIx64 ":  %-7s %s\n", insn->address, insn->mnemonic,
		       insn->op_str);
}

static void print_symbol(struct pmt_annotate *a, struct pmt_out *out, const struct sym_stat *ss,
			 unsigned ev, int compat, csh cs_arm, csh cs_x86)
{
	uint8_t *code;
	size_t len, n;
	uint64_t vaddr;
	uint16_t machine;
	cs_insn *insn;
	char last_place[1024] = "";
	int rc = pmt_symbols_sym_code(a->syms, &ss->loc, &code, &len, &vaddr, &machine);
	char name[128];

	pmt_out_printf(out, " Percent |  Samples   Lat  Issue   Xlat | Source code & Disassembly "
			    "of %s for %s (%" PRIu64 " samples, %.2f%% of them)\n",
		       ss->loc.dso_short, pmt_ev_slot_name(&a->slots, ev, compat, name, sizeof(name)),
		       ss->nr[ev],
		       a->total[ev] ? 100.0 * (double)ss->nr[ev] / (double)a->total[ev] : 0.0);
	pmt_out_str(out, "-------------------------------------------------------------------"
			 "-------------\n");
	pmt_out_printf(out, "         :                                 %s() %s\n", ss->loc.sym,
		       ss->loc.dso);
	if (rc <= 0 || (machine != EM_AARCH64_ && machine != EM_X86_64_)) {
		pmt_out_printf(out, "         :  (no code: %s)\n\n",
			       rc == -PMT_ENOT_FOUND
				       ? "the recording carries this file's symbols only "
					 "(--bundle=symbols): give the file with --symfs, or "
					 "record with --bundle=full"
			       : rc < 0 ? "out of memory"
			       : rc == 0 ? "the mapped file was not found"
					 : "not an AArch64 or x86-64 file");
		free(code);
		return;
	}
	/* capstone stops at the first instruction it has no decoder for (capstone 4 knows no
	 * AVX-512, which libc's string functions use); a sampled address is an instruction
	 * start, so decoding goes on at the next one, and the bytes between are said (a
	 * sampled one capstone cannot decode keeps its line and count) */
	for (size_t pos = 0, gap = SIZE_MAX; pos < len;) {
		size_t end, next;

		n = cs.cs_disasm(machine == EM_AARCH64_ ? cs_arm : cs_x86, code + pos, len - pos,
			      vaddr + pos, 0, &insn);
		if (n && gap != SIZE_MAX) {
			pmt_out_printf(out, "         :  (%zu bytes at %" PRIx64 " capstone cannot "
					    "decode)\n", pos - gap, vaddr + gap);
			gap = SIZE_MAX;
		}
		for (size_t i = 0; i < n; i++)
			print_insn(a, out, ss, ev, &insn[i], vaddr, last_place, sizeof(last_place));
		end = n ? (size_t)(insn[n - 1].address + insn[n - 1].size - vaddr) : pos;
		cs.cs_free(insn, n);
		if (!n) {
			/* a sampled start capstone cannot decode either: its samples still count */
			cs_insn none = { .address = vaddr + pos, .size = 1 };

			snprintf(none.mnemonic, sizeof(none.mnemonic), "(?)");
			print_insn(a, out, ss, ev, &none, vaddr, last_place, sizeof(last_place));
			end = pos + 1;
		}
		if (end >= len)
			break;
		if (gap == SIZE_MAX)
			gap = end;
		for (next = end; next < len; next++) {
			const struct ins_stat *is = ins_slot(a->ins, a->ins_cap, ss->sym,
							     ss->loc.sym_start + next);

			if (is->sym && is->nr[ev])
				break;
		}
		if (next == len)
			pmt_out_printf(out, "         :  (%zu bytes at %" PRIx64 " capstone cannot "
					    "decode; no samples after them)\n", len - gap, vaddr + gap);
		pos = next;
	}
	free(code);
}

int pmt_annotate_print(struct pmt_annotate *a, struct pmt_out *out, int compat,
		       struct pmt_diag *diag)
{
	struct sym_stat **v;
	size_t n = 0;
	int ev = pick_event(a, compat, diag), err;
	csh cs_arm, cs_x86;
	char name[128];

	if (ev < 0)
		return ev;
	err = pmt_dynlib_load(&cs_lib, "annotate", diag);
	if (err < 0)
		return err;
	if (cs.cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs_arm) != CS_ERR_OK)
		return pmt_diag_set(diag, -PMT_EUNSUPPORTED, NULL, PMT_DIAG_NO_OFFSET,
				    "capstone: no AArch64 support");
	if (cs.cs_open(CS_ARCH_X86, CS_MODE_64, &cs_x86) != CS_ERR_OK) {
		cs.cs_close(&cs_arm);
		return pmt_diag_set(diag, -PMT_EUNSUPPORTED, NULL, PMT_DIAG_NO_OFFSET,
				    "capstone: no x86-64 support");
	}
	v = malloc((a->sy_n ? a->sy_n : 1) * sizeof(*v));
	if (!v) {
		cs.cs_close(&cs_arm);
		cs.cs_close(&cs_x86);
		return pmt_diag_set(diag, -PMT_ENOMEM, NULL, PMT_DIAG_NO_OFFSET, "out of memory");
	}
	for (size_t i = 0; i < a->sy_cap; i++)
		if (a->sy[i].sym && a->sy[i].nr[ev])
			v[n++] = &a->sy[i];
	cmp_ctx = a;
	cmp_ev = (unsigned)ev;
	qsort(v, n, sizeof(*v), cmp_syms);
	if (!n)
		pmt_diag_set(diag, -PMT_ENOT_FOUND, NULL, PMT_DIAG_NO_OFFSET,
			     a->o.symbol ? "no %s samples in a symbol named %s"
					 : "no %s samples fall in a known symbol",
			     pmt_ev_slot_name(&a->slots, (unsigned)ev, compat, name, sizeof(name)),
			     a->o.symbol ? a->o.symbol : "");
	for (size_t i = 0; i < n && (a->o.symbol || i < (a->o.top ? a->o.top : 5)); i++)
		print_symbol(a, out, v[i], (unsigned)ev, compat, cs_arm, cs_x86);
	free(v);
	cs.cs_close(&cs_arm);
	cs.cs_close(&cs_x86);
	return n ? 0 : -PMT_ENOT_FOUND;
}
