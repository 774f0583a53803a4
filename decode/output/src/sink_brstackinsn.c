/* -F brstackinsn (brstackinsnlen, brstackdisasm): the instructions of the basic blocks
 * between a sample's branches, as perf 7.3's perf_sample__fprintf_brstackinsn() prints
 * them: the first branch's own instruction, each block from a branch's target to the
 * next branch, then the block up to the sample's ip. perf 7.3 built without capstone (the
 * oracle) prints brstackdisasm as brstackinsn. An instruction is its bytes ("insn: 8b 05 ")
 * as intel-pt's dump_insn() prints them; perf on x86 measures every file's bytes as x86,
 * which --perf-compat keeps, while pmutrace's default measures them by the file's ELF
 * machine (AArch64: four bytes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "sink_priv.h"

#define MAXINSN 15     /* perf's dump-insn.h */
#define MAXBB 16384    /* builtin-script.c: the longest block perf reads */
#define EM_AARCH64 183

/* the code perf's grab_bb() read: its file's class and machine */
struct bb {
	const uint8_t *code;
	bool is64;
	int machine;
};

static bool kernel_ip(uint64_t ip)
{
	/* machine__kernel_ip() without a kernel map: the upper half of the address space */
	return ip >> 63;
}

/* perf's grab_bb(): the bytes from start to end plus MAXINSN, from start's file. Returns
 * their count, 0 for nothing, -1 when start and end are on two sides of the kernel/user
 * boundary (perf's -ENXIO). */
static int grab_bb(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, uint64_t start,
		   uint64_t end, struct bb *bb)
{
	struct pmt_sym_loc loc;
	int got;

	if (!start || !end)
		return 0;
	if (kernel_ip(start) != kernel_ip(end))
		return -1;
	if (end - start > MAXBB - MAXINSN)
		return 0;
	if (!k->bb_buf) {
		/* once per sink, the size of perf's buffer */
		k->bb_buf = malloc(MAXBB);
		if (!k->bb_buf)
			return 0;
	}
	pmt_symbols_resolve(k->symbols, s->pid, start, s->time, &loc);
	got = pmt_symbols_code_at(k->symbols, &loc, k->bb_buf, (size_t)(end - start) + MAXINSN,
				  &bb->is64);
	bb->code = k->bb_buf;
	bb->machine = got > 0 ? pmt_symbols_code_machine(k->symbols, &loc) : 0;
	return got;
}

unsigned sink_insn_measure(const struct pmt_spe_sink *k, int machine, bool is64,
			   const uint8_t *b, size_t n, bool whole, bool *no_decoder)
{
	*no_decoder = false;
	if (k->compat != PMT_PERF_NEWEST || machine == 62 /* EM_X86_64 */ || machine == 3) {
		int len = pmt_x86_insn_len(b, n, is64);

		if (len == PMT_X86_INSN_REFUSED)
			return whole ? (unsigned)(n < MAXINSN ? n : MAXINSN) : 0;
		return (unsigned)len;
	}
	if (machine == EM_AARCH64)
		return n >= 4 ? 4 : 0;
	*no_decoder = true;
	return 0;
}

/* dump_insn(): "insn: XX XX " or "<bad>" ("?" where there is no decoder) into t; its
 * length; the instruction's length in *ilen (0: none) */
static size_t insn_text(const struct pmt_spe_sink *k, const struct bb *bb, size_t off,
			int len, char t[64], unsigned *ilen)
{
	size_t n = off < (size_t)len ? (size_t)len - off : 0, at;
	bool none;

	*ilen = n ? sink_insn_measure(k, bb->machine, bb->is64, bb->code + off, n, false,
					  &none) : 0;
	if (!*ilen)
		return (size_t)snprintf(t, 64, "%s", n && none ? "?" : "<bad>");
	memcpy(t, "insn: ", 6);
	at = 6;
	for (unsigned i = 0; i < *ilen; i++)
		at += (size_t)snprintf(t + at, 64 - at, "%02x ", bb->code[off + i]);
	return at;
}

/* ip__fprintf_sym(): "\tSYM+OFF:" when ip enters a symbol other than the last one printed */
static void put_sym(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, uint64_t ip,
		    const void **last, uint32_t f)
{
	struct pmt_sym_loc loc;
	char buf[4200];
	int n;

	pmt_symbols_resolve(k->symbols, s->pid, ip, s->time, &loc);
	if (!loc.sym || (*last && loc.sym_id == *last))
		return;
	n = snprintf(buf, sizeof(buf), loc.symoff ? "\t%s%+d:" : "\t%s:", loc.sym,
		     (int)loc.symoff);
	pmt_out_mem(k->out, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	if ((f & PMT_FIELD_SRCLINE) && sink_srcline_text(k->symbols, &loc, buf, sizeof(buf), k->compat) > 3) {
		pmt_out_char(k->out, '\t');
		pmt_out_str(k->out, buf + 3); /* past "\n  " */
	}
	pmt_out_char(k->out, '\n');
	*last = loc.sym_id;
}

/* a plain line of a block: "\tADDR\tINSN" (+ "\tilen: N") */
static unsigned put_insn(struct pmt_spe_sink *k, uint64_t ip, const struct bb *bb, size_t off,
			 int len, uint32_t f)
{
	char line[128], t[64];
	unsigned ilen;
	int n;

	insn_text(k, bb, off, len, t, &ilen);
	n = snprintf(line, sizeof(line), "\t%016llx\t%s", (unsigned long long)ip, t);
	pmt_out_mem(k->out, line, (size_t)n);
	if (f & PMT_FIELD_BRSTACKINSNLEN) {
		pmt_out_str(k->out, "\tilen: ");
		pmt_out_u64(k->out, ilen);
	}
	pmt_out_char(k->out, '\n');
	return ilen;
}

/* ip__fprintf_jump(): the branch's line, its instruction padded to 30, then the branch's
 * flags, cycles, the cycles so far and the block's IPC */
static void put_jump(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, uint64_t ip,
		     const struct pmt_branch_entry *e, const struct bb *bb, size_t off, int len,
		     unsigned insn, unsigned *total_cycles, uint32_t f)
{
	char line[256], t[64];
	unsigned ilen;
	size_t tl = insn_text(k, bb, off, len, t, &ilen);
	int n;

	n = snprintf(line, sizeof(line), "\t%016llx\t%s%*s\t", (unsigned long long)ip, t,
		     tl < 30 ? (int)(30 - tl) : 0, "");
	if (f & PMT_FIELD_BRSTACKINSNLEN)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "ilen: %u\t", ilen);
	pmt_out_mem(k->out, line, (size_t)n);
	if (f & PMT_FIELD_SRCLINE) {
		struct pmt_sym_loc loc;
		char src[4200];

		pmt_symbols_resolve(k->symbols, s->pid, ip, s->time, &loc);
		if (sink_srcline_text(k->symbols, &loc, src, sizeof(src), k->compat) > 3) {
			pmt_out_str(k->out, " srcline: ");
			pmt_out_str(k->out, src + 3);
		}
		pmt_out_char(k->out, '\t');
	}
	n = snprintf(line, sizeof(line), "#%s%s%s", (e->flags & PMT_BRF_PREDICTED) ? " PRED" : "",
		     (e->flags & PMT_BRF_MISPRED) ? " MISPRED" : "",
		     (e->flags & PMT_BRF_IN_TX) ? " INTX" : "");
	if (e->cycles) {
		*total_cycles += e->cycles;
		n += snprintf(line + n, sizeof(line) - (size_t)n, " %u cycles [%u]",
			      (unsigned)e->cycles, *total_cycles);
		/* perf divides in float */
		if (insn)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " %.2f IPC",
				      (double)((float)insn / (float)e->cycles));
	}
	line[n++] = '\n';
	pmt_out_mem(k->out, line, (size_t)n);
}

/* print_srccode(): -F srccode's line of an instruction of the blocks, with the thread's
 * state the sample's own srccode shares */
static void put_srccode(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, uint64_t ip,
			uint32_t f)
{
	struct pmt_sym_loc loc;

	if (!(f & PMT_FIELD_SRCCODE))
		return;
	pmt_symbols_resolve(k->symbols, s->pid, ip, s->time, &loc);
	sink_srccode(k, s, &loc);
}

void sink_brstackinsn(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, uint32_t f)
{
	const struct pmt_spe_brstack *b = s->brstack;
	const struct pmt_branch_entry *e;
	const void *last = NULL;
	unsigned total_cycles = 0, ilen = 0;
	uint64_t start, end;
	struct bb bb;
	int nr, len;
	size_t off;

	if (!b || !b->nr || !k->symbols)
		return;
	e = b->e;
	nr = (int)(b->nr < PMT_SPE_BRSTACK_MAX ? b->nr : PMT_SPE_BRSTACK_MAX);
	pmt_out_char(k->out, '\n');
	/* the first branch, whose block's start is not known */
	len = grab_bb(k, s, e[nr - 1].from, e[nr - 1].from, &bb);
	if (len > 0) {
		put_sym(k, s, e[nr - 1].from, &last, f);
		put_jump(k, s, e[nr - 1].from, &e[nr - 1], &bb, 0, len, 0, &total_cycles, f);
		put_srccode(k, s, e[nr - 1].from, f);
	}
	for (int i = nr - 2; i >= 0; i--) {
		unsigned insn = 0;

		start = e[i + 1].to;
		end = e[i].from;
		len = grab_bb(k, s, start, end, &bb);
		/* perf patches a block cut by the kernel/user boundary with the next branch */
		if (len < 0 && i > 0) {
			end = e[--i].from;
			len = grab_bb(k, s, start, end, &bb);
		}
		if (len <= 0)
			continue;
		for (off = 0; off < (size_t)len; off += ilen) {
			uint64_t ip = start + off;

			put_sym(k, s, ip, &last, f);
			if (ip == end) {
				put_jump(k, s, ip, &e[i], &bb, off, len, ++insn, &total_cycles, f);
				put_srccode(k, s, ip, f);
				break;
			}
			ilen = put_insn(k, ip, &bb, off, len, f);
			if (!ilen)
				break;
			put_srccode(k, s, ip, f);
			insn++;
		}
		if (off != end - start)
			pmt_out_str(k->out, "\tmismatch of LBR data and executable\n");
	}
	/* the sample is the branch itself: its target has not run yet */
	if (e[0].from == s->ip)
		return;
	/* the block from the last target to the sample; a sample before that target means
	 * a branch is missing: perf walks 128 bytes */
	start = e[0].to;
	end = s->ip < start ? start + 128 : s->ip;
	len = grab_bb(k, s, start, end, &bb);
	put_sym(k, s, start, &last, f);
	if (len <= 0) {
		len = grab_bb(k, s, s->ip, s->ip, &bb);
		if (len > 0) {
			put_insn(k, s->ip, &bb, 0, len, f);
			put_srccode(k, s, s->ip, f);
		}
		return;
	}
	/* (perf stops at an unconditional branch only for attrs that sample every branch
	 * kind: SPE's synthesized ones do not) */
	for (off = 0; off <= end - start; off += ilen) {
		if (!(ilen = put_insn(k, start + off, &bb, off, len, f)))
			break;
		put_srccode(k, s, start + off, f);
	}
}
