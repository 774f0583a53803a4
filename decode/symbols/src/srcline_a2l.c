/* What binutils' addr2line answers for an address without a line table row. perf (6.1 and
 * 7.3 as Debian builds them: no libbfd, no libLLVM) runs `addr2line -a -i -f -e FILE` for
 * every address libdw (7.3) leaves without a line (7.3 only in a file with .debug_line,
 * 6.1 in any: a stripped program's), and prints its "FILE:LINE" answer as
 * FILE:0 when the line is "?"; only "??:0" (nothing found) makes it fall back to DSO[ADDR].
 * addr2line 2.40 (bfd/dwarf2.c, bfd/elf.c) answers such an address in three ways:
 *  - no allocated section holds it, or no symbol of that section starts at or before it:
 *    "??:0";
 *  - a DWARF function (subprogram or inlined instance) covers it: its name is a linkage
 *    name in C, so BFD looks no further and the file is unknown: "??:?";
 *  - else _bfd_elf_find_function: the function-like symbol of the section that starts
 *    nearest at or before it (no end check: a symbol's padding and the code after a
 *    zero-size symbol are its), and the file is the STT_FILE symbol before it in .symtab
 *    when the symbol is local, or when no FILE symbol came after the first non-FILE one
 *    (the linker puts every global after the objects' locals, so globals get none): e.g.
 *    "crtstuff.c:?", "crti.o:?", ":?" (ld's empty FILE symbol), "??:?". */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "srcline_a2l.h"

#if defined(__aarch64__)
#define HOST_IS_AARCH64 1
#else
#define HOST_IS_AARCH64 0
#endif

struct a2l_section {
	uint64_t addr, size;
	size_t index;
};

/* A function-like symbol as _bfd_elf_find_function would pick it, with the file it would
 * name: sorted by section and address, one per address (the one the scan keeps), so that
 * the nearest one at or before an address is a binary search instead of BFD's walk of the
 * whole table per address */
struct a2l_func {
	size_t shndx;
	uint64_t value;
	uint64_t size;        /* as maybe_function_sym counts it */
	size_t order;         /* in .symtab: the first of equals wins */
	const char *file;     /* the STT_FILE name BFD gives it, or NULL */
};

struct a2l_symtab {
	int asked;            /* perf starts addr2line for the file: 7.3 only when it has a
			       * .debug_line, 6.1 always */
	struct a2l_section *secs;
	size_t nsecs;
	struct a2l_func *funcs;
	size_t nfuncs;
};

/* AArch64's mapping symbols ($x, $d, $x.NAME), which BFD's AArch64 back end ignores */
static int aarch64_mapping_symbol(const char *name)
{
	return name && name[0] == '$' && (name[1] == 'x' || name[1] == 'd') &&
	       (name[2] == 0 || name[2] == '.');
}

/* BFD's maybe_function_sym: the size it gives a symbol, 0 when it is not one. The generic
 * one (elf.c) takes any type but data, sections, files and TLS, and leaves out annobin's
 * hidden local markers; AArch64's (elfnn-aarch64.c) takes only FUNC and NOTYPE, and no
 * local mapping symbol (used for AArch64 files on an AArch64 host only, see read_symtab). */
static uint64_t function_size(const GElf_Sym *s, const char *name, int aarch64)
{
	unsigned type = GELF_ST_TYPE(s->st_info), bind = GELF_ST_BIND(s->st_info);

	if (type == STT_SECTION || type == STT_FILE || type == STT_OBJECT || type == STT_TLS ||
	    type == STT_COMMON)
		return 0;
	/* SHN_ABS, SHN_UNDEF and the reserved range name no section */
	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE)
		return 0;
	if (aarch64) {
		if (type != STT_FUNC && type != STT_NOTYPE)
			return 0;
		if (bind == STB_LOCAL && aarch64_mapping_symbol(name))
			return 0;
	} else if (s->st_size == 0 && bind == STB_LOCAL && type == STT_NOTYPE &&
		   GELF_ST_VISIBILITY(s->st_other) == STV_HIDDEN) {
		return 0;
	}
	return s->st_size ? s->st_size : 1;
}

static int cmp_func(const void *a, const void *b)
{
	const struct a2l_func *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The file each candidate gets follows the scan of elf_find_function: the last STT_FILE
 * before it, for a local symbol, or for any symbol while no FILE symbol has come after
 * the first other symbol (its "file_after_symbol_seen" state) */
static int read_symtab(struct a2l_symtab *t, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	enum { nothing_seen, symbol_seen, file_after_symbol_seen } state = nothing_seen;
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0, kept = 0;
	const char *file = NULL;
	GElf_Ehdr eh;
	/* perf runs the addr2line on its PATH: Debian's binutils knows its own machine
	 * only and reads another's file as generic ELF (elf64-little), whose
	 * maybe_function_sym is elf.c's. So AArch64's back end answers for an AArch64 file
	 * only where perf runs on AArch64; on x86 its mapping symbols count as functions
	 * ("$x" after crti.o's FILE: "crti.o:0"), as perf prints there. */
	int aarch64 = HOST_IS_AARCH64 && gelf_getehdr(elf, &eh) && eh.e_machine == EM_AARCH64;

	if (!data || n < 2)
		return 0;
	t->funcs = calloc(n, sizeof(*t->funcs));
	if (!t->funcs)
		return -PMT_ENOMEM;
	/* bfd_canonicalize_symtab leaves out the null symbol 0 */
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		struct a2l_func *f = &t->funcs[t->nfuncs];

		if (!gelf_getsym(data, (int)i, &s))
			break;
		if (GELF_ST_TYPE(s.st_info) == STT_FILE) {
			file = elf_strptr(elf, sh->sh_link, s.st_name);
			if (state == symbol_seen)
				state = file_after_symbol_seen;
			continue;
		}
		if (state == nothing_seen)
			state = symbol_seen;
		f->size = function_size(&s, elf_strptr(elf, sh->sh_link, s.st_name), aarch64);
		if (!f->size)
			continue;
		f->shndx = s.st_shndx;
		f->value = s.st_value;
		f->order = i;
		f->file = file && (GELF_ST_BIND(s.st_info) == STB_LOCAL ||
				   state != file_after_symbol_seen) ? file : NULL;
		t->nfuncs++;
	}
	qsort(t->funcs, t->nfuncs, sizeof(*t->funcs), cmp_func);
	for (size_t i = 0; i < t->nfuncs; i++)
		if (!kept || t->funcs[kept - 1].shndx != t->funcs[i].shndx ||
		    t->funcs[kept - 1].value != t->funcs[i].value)
			t->funcs[kept++] = t->funcs[i];
	t->nfuncs = kept;
	return 0;
}

/* the allocated sections, .symtab (else .dynsym, as addr2line's slurp_symtab) and whether
 * perf asks addr2line: always when without_lines, else only with a .debug_line */
static int a2l_load(struct a2l_symtab *t, Elf *elf, int without_lines)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, symsh, dynsh;
	size_t shstrndx, cap = 0;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".debug_line"))
			t->asked = 1;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symsh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsh = sh;
		}
		if (!(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		if (t->nsecs == cap) {
			size_t c = cap ? cap * 2 : 32;
			struct a2l_section *v = realloc(t->secs, c * sizeof(*v));

			if (!v)
				return -PMT_ENOMEM;
			t->secs = v;
			cap = c;
		}
		t->secs[t->nsecs++] = (struct a2l_section){ sh.sh_addr, sh.sh_size,
							    elf_ndxscn(scn) };
	}
	if (without_lines)
		t->asked = 1;
	if (!t->asked)
		return 0;
	if (symtab && read_symtab(t, elf, symtab, &symsh) < 0)
		return -PMT_ENOMEM;
	if (!t->nfuncs && dynsym) {
		free(t->funcs);
		t->funcs = NULL;
		return read_symtab(t, elf, dynsym, &dynsh);
	}
	return 0;
}

/* _bfd_elf_find_function (binutils 2.40) for an address in section sec: 1 with *file
 * (NULL when it names none), 0 when no symbol fits */
static int find_function(const struct a2l_symtab *t, size_t sec, uint64_t addr,
			 const char **file)
{
	size_t lo = 0, hi = t->nfuncs;

	/* the first entry after (sec, addr) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct a2l_func *f = &t->funcs[mid];

		if (f->shndx < sec || (f->shndx == sec && f->value <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || t->funcs[lo - 1].shndx != sec)
		return 0;
	*file = t->funcs[lo - 1].file;
	return 1;
}

int srcline_a2l_new(struct a2l_symtab **out, Elf *elf, int without_lines)
{
	struct a2l_symtab *t = calloc(1, sizeof(*t));
	int err;

	*out = NULL;
	if (!t)
		return -PMT_ENOMEM;
	err = elf ? a2l_load(t, elf, without_lines) : 0;
	if (err < 0) {
		srcline_a2l_free(t);
		return err;
	}
	*out = t;
	return 0;
}

int srcline_a2l_find(const struct a2l_symtab *t, uint64_t addr, int in_dwarf_function,
		     const char **file)
{
	if (!t || !t->asked)
		return 0;
	for (size_t i = 0; i < t->nsecs; i++) {
		const struct a2l_section *s = &t->secs[i];

		if (addr < s->addr || addr - s->addr >= s->size)
			continue;
		if (in_dwarf_function) {
			*file = NULL;
			return 1;
		}
		/* addr2line tries the next section that holds the address only when BFD
		 * found nothing in this one */
		if (find_function(t, s->index, addr, file))
			return 1;
	}
	return 0;
}

void srcline_a2l_free(struct a2l_symtab *t)
{
	if (!t)
		return;
	free(t->secs);
	free(t->funcs);
	free(t);
}
