/* Source lines of addresses (libdw): the file and line of the DWARF line table row that
 * holds an address, as addr2line gives it, and the inlined calls the address sits in (as
 * addr2line -i). One Dwfl per file, opened when first asked. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srcline.h"
#include "srcline_a2l.h"
#include "symbols_int.h"

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

int srcline_open(struct srcline *sl, const char *path)
{
	memset(sl, 0, sizeof(*sl));
	sl->dwfl = dwfl_begin(&offline_callbacks);
	if (!sl->dwfl)
		return -PMT_ENOMEM;
	/* "" as the module name: offline modules are placed from address 0 on, their base
	 * is what dwfl_module_info says */
	sl->mod = dwfl_report_offline(sl->dwfl, "", path, -1);
	dwfl_report_end(sl->dwfl, NULL, NULL);
	if (!sl->mod) {
		dwfl_end(sl->dwfl);
		sl->dwfl = NULL;
		return -PMT_EFORMAT;
	}
	dwfl_module_info(sl->mod, NULL, &sl->base, NULL, NULL, NULL, NULL, NULL);
	return 0;
}

static int cmp_var(const void *a, const void *b)
{
	const struct srcline_var *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* the variables of a DIE tree with a fixed address (a lone DW_OP_addr), appended to sl */
static int collect_vars(struct srcline *sl, Dwarf_Die *die, Dwarf_Addr bias, size_t *cap)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		Dwarf_Attribute at;
		Dwarf_Op *ops;
		size_t nops;
		int line;
		const char *file;

		if (dwarf_tag(&child) == DW_TAG_variable &&
		    dwarf_getlocation(dwarf_attr(&child, DW_AT_location, &at), &ops, &nops) == 0 &&
		    nops == 1 && ops[0].atom == DW_OP_addr &&
		    (file = dwarf_decl_file(&child)) && dwarf_decl_line(&child, &line) == 0) {
			if (sl->nvars == *cap) {
				size_t n = *cap ? *cap * 2 : 64;
				struct srcline_var *v = realloc(sl->vars, n * sizeof(*v));

				if (!v)
					return -PMT_ENOMEM;
				sl->vars = v;
				*cap = n;
			}
			sl->vars[sl->nvars++] = (struct srcline_var){ ops[0].number + bias, file,
								      (unsigned)line };
		}
		/* static locals sit in functions and blocks */
		if (dwarf_haschildren(&child) && collect_vars(sl, &child, bias, cap) < 0)
			return -PMT_ENOMEM;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static const struct srcline_var *find_var(struct srcline *sl, uint64_t addr)
{
	const struct srcline_var key = { .addr = addr };

	if (!sl->vars_read) {
		Dwarf_Die *cu = NULL;
		Dwarf_Addr bias;
		size_t cap = 0;

		sl->vars_read = 1;
		while ((cu = dwfl_module_nextcu(sl->mod, cu, &bias)))
			if (collect_vars(sl, cu, bias, &cap) < 0)
				break;
		if (sl->nvars)
			qsort(sl->vars, sl->nvars, sizeof(*sl->vars), cmp_var);
	}
	return sl->nvars ? bsearch(&key, sl->vars, sl->nvars, sizeof(key), cmp_var) : NULL;
}

/* the index of the unit's first row at or after addr */
static size_t first_row_at(Dwarf_Lines *lines, size_t n, Dwarf_Addr addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		Dwarf_Addr a;
		size_t mid = lo + (hi - lo) / 2;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a) || a < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* binutils 2.40's addr2line (the one perf 6.1 runs) starts each sequence of a DWARF 5 line
 * program with file entry 0 (dwarf2.c decode_line_info: concat_filename (table, 0) once
 * use_dir_and_file_0 is set) where DWARF's file register starts at 1, and the assembler
 * sets the file only when it changes: so a sequence's rows before its first
 * DW_LNS_set_file, in entry 1, are named after entry 0, the unit's own file (libc's
 * libc_start_call_main.h:29 as libc-start.c:29, ld.so's dl-cacheinfo.h:333 as
 * dl-get-cpu-features.c:333, its dl-cacheinfo.h:792 after a set_file as it is). libdw
 * sorts the rows of all sequences by address, so a sequence is taken as the unit's
 * address range holding the row (the assembler's one sequence per section it adds to).
 * f: the row's file as libdw names it */
static const char *bfd240_file(struct srcline *sl, Dwfl_Line *l, const char *f)
{
	Dwarf_Addr bias, addr, base, lo = 0, hi = 0;
	Dwarf_Line *row = dwfl_dwarf_line(l, &bias);
	Dwarf_Die *cu = dwfl_linecu(l);
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	Dwarf_Half version;
	struct srcline_seq *seq;
	const char *first, *unit;
	size_t n, nfiles, i;
	ptrdiff_t off = 0;

	if (!row || !cu || dwarf_cu_info(cu->cu, &version, NULL, NULL, NULL, NULL, NULL, NULL) ||
	    version < 5 || dwarf_getsrclines(cu, &lines, &n) || dwarf_getsrcfiles(cu, &files, &nfiles) ||
	    nfiles < 2 || !(first = dwarf_filesrc(files, 1, NULL, NULL)) || f != first ||
	    !(unit = dwarf_filesrc(files, 0, NULL, NULL)) || !strcmp(unit, first) ||
	    dwarf_lineaddr(row, &addr))
		return f; /* most units: entry 1 is the unit's file again */
	while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0 && !(addr >= lo && addr < hi))
		;
	if (off <= 0)
		return f;
	seq = &sl->bfd240_seq[(((uintptr_t)lines >> 4) ^ (lo >> 2)) & 63];
	if (seq->lines != lines || seq->lo != lo) {
		/* from the range's first row on, while in entry 1 (the end of a sequence
		 * before this one, at its start, is not this one's) */
		*seq = (struct srcline_seq){ lines, lo, first_row_at(lines, n, lo), 0 };
		for (i = seq->at; i < n; i++) {
			Dwarf_Line *x = dwarf_onesrcline(lines, i);
			bool end = false;

			if ((dwarf_lineendsequence(x, &end) || !end) &&
			    dwarf_linesrc(x, NULL, NULL) != first)
				break;
		}
		seq->end = i;
	}
	for (i = first_row_at(lines, n, addr); i < n && dwarf_onesrcline(lines, i) != row; i++)
		;
	return i >= seq->at && i < seq->end ? unit : f;
}

int srcline_find(struct srcline *sl, uint64_t vaddr, const char **file, unsigned *line)
{
	Dwfl_Line *l;
	int ln = 0;
	const char *f;
	/* the module's ELF addresses start at its first PT_LOAD's p_vaddr, placed at base */
	const uint64_t addr = sl->base + vaddr - sl->first_vaddr;

	if (!sl->dwfl)
		return 0;
	l = dwfl_module_getsrc(sl->mod, addr);
	if (!l) {
		const struct srcline_var *v = find_var(sl, addr);

		if (!v)
			return 0;
		*file = v->file;
		*line = v->line;
		return 1;
	}
	f = dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL);
	if (!f)
		return 0;
	*file = sl->bfd240_files ? bfd240_file(sl, l, f) : f;
	*line = (unsigned)ln;
	return 1;
}

static uint32_t name_slot(const char *link, uint32_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)link * 0x9e3779b97f4a7c15ULL;

	return (uint32_t)(h >> 32) & (cap - 1);
}

static int names_grow(struct srcline *sl)
{
	uint32_t cap = sl->names_cap ? sl->names_cap * 2 : 64;
	struct srcline_name *old = sl->names, *t = calloc(cap, sizeof(*t));

	if (!t)
		return -PMT_ENOMEM;
	for (uint32_t i = 0; i < sl->names_cap; i++) {
		uint32_t h;

		if (!old[i].link)
			continue;
		h = name_slot(old[i].link, cap);
		while (t[h].link)
			h = (h + 1) & (cap - 1);
		t[h] = old[i];
	}
	free(old);
	sl->names = t;
	sl->names_cap = cap;
	return 0;
}

/* a C++ linkage name demangled as flags say, once per name (kept by libdw's string, which
 * is one per name of the file): link itself when it is none, or when memory runs out */
static const char *demangled(struct srcline *sl, const char *link, unsigned flags)
{
	char buf[4096];
	const char *d;
	uint32_t h;

	if (sl->names_n * 2 >= sl->names_cap && names_grow(sl) < 0)
		return link;
	for (h = name_slot(link, sl->names_cap); sl->names[h].link; h = (h + 1) & (sl->names_cap - 1))
		if (sl->names[h].link == link)
			return sl->names[h].name;
	d = elf_demangle(link, flags, buf, sizeof(buf));
	if (d != link && !(d = strdup(d)))
		return link;
	sl->names[h] = (struct srcline_name){ link, d };
	sl->names_n++;
	return d;
}

/* A function's name as perf 7.3 and binutils' addr2line print it: its linkage name where
 * it has one (glibc's __GI_ names of hidden aliases; a C++ one demangled as perf demangles
 * the symbols, raw under --no-demangle), else the source's; an inlined instance has
 * neither of its own, its abstract origin (DW_AT_abstract_origin, through
 * DW_AT_specification) does. */
static const char *scope_name(struct srcline *sl, Dwarf_Die *die, unsigned flags)
{
	Dwarf_Attribute at;
	const char *link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &at));

	if (link)
		return strncmp(link, "_Z", 2) ? link : demangled(sl, link, flags);
	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &at));
}

/* The innermost DW_TAG_subprogram or DW_TAG_inlined_subroutine under parent whose ranges
 * hold pc, into *fn: 1 when found, 0 when not. Depth is bounded so that a damaged DIE tree
 * cannot recurse without end. */
static int innermost_function(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *fn)
{
	Dwarf_Die stack[64];
	int depth = 0, found = 0;

	if (dwarf_child(parent, &stack[0]) != 0)
		return 0;
	for (;;) {
		Dwarf_Die *d = &stack[depth];
		int tag = dwarf_tag(d);
		int scope = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
			    tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
			    tag == DW_TAG_class_type || tag == DW_TAG_structure_type;

		/* a namespace or class has no pc of its own: its functions are inside */
		if (scope && (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			      tag == DW_TAG_structure_type || dwarf_haspc(d, pc) > 0)) {
			if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
				*fn = *d;
				found = 1;
			}
			if (depth + 1 < 64 && dwarf_child(d, &stack[depth + 1]) == 0) {
				depth++;
				continue;
			}
		}
		/* next sibling, else back up to a parent's next sibling */
		while (dwarf_siblingof(&stack[depth], &stack[depth]) != 0) {
			if (depth-- == 0)
				return found;
		}
	}
}

/* the table of what perf's addr2line answers (read on first use); NULL: none */
static const struct a2l_symtab *a2l_table(struct srcline *sl)
{
	Dwarf_Addr bias = 0;

	if (!sl->a2l) {
		/* the file with the DWARF is the one perf gives addr2line (its symsrc); perf
		 * 6.1 asks addr2line about a file without DWARF too, which answers from its
		 * symbol table ("??:?" in a stripped program's .dynsym function) */
		Dwarf *dw = dwfl_module_getdwarf(sl->mod, &bias);
		Elf *elf = dw ? dwarf_getelf(dw) : NULL;

		if (!elf && sl->bfd240_files)
			elf = dwfl_module_getelf(sl->mod, &bias);
		if (srcline_a2l_new(&sl->a2l, elf, sl->bfd240_files) < 0)
			return NULL;
	}
	return sl->a2l;
}

int srcline_find_perf(struct srcline *sl, uint64_t vaddr, const char **file, unsigned *line)
{
	Dwarf_Addr bias = 0, addr;
	Dwarf_Die *cu, fn;
	const struct a2l_symtab *a2l;
	int in_function;

	if (srcline_find(sl, vaddr, file, line))
		return 1;
	if (!sl->dwfl || !(a2l = a2l_table(sl)))
		return 0;
	addr = sl->base + vaddr - sl->first_vaddr;
	cu = dwfl_module_addrdie(sl->mod, addr, &bias);
	in_function = cu && innermost_function(cu, addr - bias, &fn) > 0;
	if (!srcline_a2l_find(a2l, vaddr, in_function, file))
		return 0;
	*line = 0;
	return 2;
}

static int inlines_walk(struct srcline *sl, uint64_t vaddr, unsigned flags,
			struct pmt_inline_frame *fr, unsigned max)
{
	Dwarf_Addr bias = 0, addr;
	Dwarf_Die *cu, *scopes = NULL, inner;
	Dwarf_Files *files = NULL;
	const char *file = NULL;
	unsigned line = 0, n = 0;
	int nscopes;

	if (!sl->dwfl || !max)
		return 0;
	/* without a row binutils' addr2line (perf 7.3's where libdw finds no line, in a
	 * file with .debug_line) still names the DWARF functions holding the address, the
	 * innermost's line "??:?" (the frames of a function's .cold part) */
	if (!srcline_find(sl, vaddr, &file, &line) &&
	    (!a2l_table(sl) || !srcline_a2l_find(sl->a2l, vaddr, 1, &file)))
		return 0;
	addr = sl->base + vaddr - sl->first_vaddr;
	cu = dwfl_module_addrdie(sl->mod, addr, &bias);
	if (!cu)
		return 0;
	/* The calls around the innermost function-like scope are its concrete parents
	 * (dwarf_getscopes_die, as eu-addr2line -i). dwarf_getscopes would find that scope
	 * too, but leaks its array on damaged DWARF (libdw 0.192, found by fuzz_elf_symbols) */
	if (innermost_function(cu, addr - bias, &inner) <= 0 ||
	    (nscopes = dwarf_getscopes_die(&inner, &scopes)) <= 0)
		return 0;
	dwarf_getsrcfiles(cu, &files, NULL);
	for (int i = 0; i < nscopes && n < max; i++) {
		Dwarf_Attribute at;
		Dwarf_Word v;
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		fr[n].func = scope_name(sl, &scopes[i], flags);
		fr[n].file = file;
		fr[n].line = line;
		n++;
		if (tag == DW_TAG_subprogram)
			break;
		file = NULL;
		line = 0;
		if (files && dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &at), &v) == 0)
			file = dwarf_filesrc(files, v, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &at), &v) == 0)
			line = (unsigned)v;
	}
	free(scopes);
	return (int)n;
}

#define MEMO_FRAMES 64 /* deeper chains of inlined calls are walked each time */

static uint32_t memo_slot(const struct srcline *sl, uint64_t vaddr)
{
	uint64_t h = vaddr * 0x9e3779b97f4a7c15ULL;

	return (uint32_t)(h >> 32) & (sl->memo_cap - 1);
}

static int memo_grow(struct srcline *sl)
{
	uint32_t cap = sl->memo_cap ? sl->memo_cap * 2 : 256;
	struct srcline_memo *old = sl->memo, *m = malloc(cap * sizeof(*m));
	uint32_t oldcap = sl->memo_cap;

	if (!m)
		return -PMT_ENOMEM;
	for (uint32_t i = 0; i < cap; i++)
		m[i].n = -1;
	sl->memo = m;
	sl->memo_cap = cap;
	for (uint32_t i = 0; i < oldcap; i++) {
		uint32_t h;

		if (old[i].n < 0)
			continue;
		for (h = memo_slot(sl, old[i].vaddr); m[h].n >= 0; h = (h + 1) & (cap - 1))
			;
		m[h] = old[i];
	}
	free(old);
	return 0;
}

int srcline_inlines(struct srcline *sl, uint64_t vaddr, unsigned flags,
		    struct pmt_inline_frame *fr, unsigned max)
{
	struct pmt_inline_frame got[MEMO_FRAMES];
	uint32_t h;
	int n;

	if (!sl->dwfl || !max)
		return 0;
	if (sl->memo_cap) {
		for (h = memo_slot(sl, vaddr); sl->memo[h].n >= 0; h = (h + 1) & (sl->memo_cap - 1))
			if (sl->memo[h].vaddr == vaddr) {
				n = sl->memo[h].n < (int)max ? sl->memo[h].n : (int)max;
				if (n > 0) /* an address with no frames may have no pool yet */
					memcpy(fr, sl->pool + sl->memo[h].first, (size_t)n * sizeof(*fr));
				return n;
			}
	}
	n = inlines_walk(sl, vaddr, flags, got, MEMO_FRAMES);
	/* a full array may have been cut: such addresses are not kept */
	if (n < MEMO_FRAMES && ((sl->memo_n + 1) * 2 <= sl->memo_cap || memo_grow(sl) == 0)) {
		if (sl->pool_n + (uint32_t)n > sl->pool_cap) {
			uint32_t cap = sl->pool_cap ? sl->pool_cap * 2 : 1024;
			struct pmt_inline_frame *p;

			while (cap < sl->pool_n + (uint32_t)n)
				cap *= 2;
			p = realloc(sl->pool, cap * sizeof(*p));
			if (!p)
				goto out;
			sl->pool = p;
			sl->pool_cap = cap;
		}
		for (h = memo_slot(sl, vaddr); sl->memo[h].n >= 0; h = (h + 1) & (sl->memo_cap - 1))
			;
		if (n > 0)
			memcpy(sl->pool + sl->pool_n, got, (size_t)n * sizeof(*got));
		sl->memo[h] = (struct srcline_memo){ vaddr, sl->pool_n, n };
		sl->pool_n += (uint32_t)n;
		sl->memo_n++;
	}
out:
	n = n < (int)max ? n : (int)max;
	if (n > 0)
		memcpy(fr, got, (size_t)n * sizeof(*fr));
	return n;
}

int srcline_perf_libdw(struct srcline *sl, uint64_t vaddr)
{
	return sl->dwfl && dwfl_addrmodule(sl->dwfl, vaddr) == sl->mod;
}

void srcline_close(struct srcline *sl)
{
	free(sl->vars);
	srcline_a2l_free(sl->a2l);
	if (sl->dwfl)
		dwfl_end(sl->dwfl);
	free(sl->memo);
	free(sl->pool);
	for (uint32_t i = 0; i < sl->names_cap; i++)
		if (sl->names[i].name != sl->names[i].link)
			free((char *)sl->names[i].name);
	free(sl->names);
	memset(sl, 0, sizeof(*sl));
}
