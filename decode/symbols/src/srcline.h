/* Source lines through libdw (srcline.c). */
#ifndef PMT_SRCLINE_H
#define PMT_SRCLINE_H
#include <stdint.h>

#include "pmutrace/symbols.h"

struct Dwfl;
struct Dwfl_Module;
struct a2l_symtab;
/* An address's inlined calls, found once: libdw's scope walk costs a walk of the unit's
 * DIE tree, and a call chain asks for the same few return addresses on every sample */
struct srcline_memo {
	uint64_t vaddr;
	uint32_t first;       /* its frames in the pool */
	int32_t n;            /* how many; -1: an empty slot */
};

/* a variable at a fixed address: its declaration */
struct srcline_var {
	uint64_t addr;        /* in the module's (Dwfl) addresses */
	const char *file;     /* libdw's, valid while the Dwfl is */
	unsigned line;
};

/* a C++ linkage name of the DWARF and its demangling (the same pointer when it has none) */
struct srcline_name {
	const char *link;     /* libdw's string, valid while the Dwfl is; NULL: an empty slot */
	const char *name;
};

struct srcline {
	struct Dwfl *dwfl;
	struct Dwfl_Module *mod;
	uint64_t base;        /* where libdw placed the module */
	uint64_t first_vaddr; /* the lowest PT_LOAD p_vaddr of the file (set by the caller) */
	struct srcline_memo *memo; /* open addressing by vaddr, a power of two */
	uint32_t memo_cap, memo_n;
	struct pmt_inline_frame *pool;
	uint32_t pool_n, pool_cap;
	struct srcline_var *vars; /* sorted by addr, read on the first address without a row */
	size_t nvars;
	int vars_read;
	struct a2l_symtab *a2l; /* read on the first address without a line or variable */
	struct srcline_name *names; /* open addressing by link, a power of two */
	uint32_t names_cap, names_n;
	/* binutils 2.40's addr2line, perf 6.1's: rows named as it names them (see
	 * bfd240_file), and asked about a file without .debug_line too (set before the
	 * first srcline_find_perf: the table is read then) */
	uint8_t bfd240_files;
	/* its sequences' leading rows in file entry 1, found once: rows [at, end) of the
	 * unit's lines from the range starting at lo */
	struct srcline_seq {
		const void *lines;
		uint64_t lo;
		size_t at, end;
	} bfd240_seq[64];
};

/* 0, -PMT_ENOMEM, or -PMT_EFORMAT when libdw cannot take the file */
int srcline_open(struct srcline *sl, const char *path);
/* 1 with the file and line of vaddr (p_vaddr space), 0 when the debug info has none; an
 * address without a line table row that is where a variable is (DW_OP_addr) gives the
 * variable's declaration, as binutils' addr2line (and so perf) does for data symbols */
int srcline_find(struct srcline *sl, uint64_t vaddr, const char **file, unsigned *line);
/* srcline_find(), then for an address without a row what perf prints from binutils'
 * addr2line there (srcline_a2l.h): 1 with a row's file and line, 2 with the file
 * addr2line names (NULL: "??") and line 0, 0 when perf has no source line */
int srcline_find_perf(struct srcline *sl, uint64_t vaddr, const char **file, unsigned *line);
/* The inlined calls vaddr is in, innermost first, up to max (addr2line -i -f): how many
 * frames were filled, 0 when the debug info places no function there. A C++ function is
 * named by its linkage name demangled as elf_demangle() does with flags (ELF_LOAD_*);
 * flags must be the same on every call for one sl (its answers are kept). */
int srcline_inlines(struct srcline *sl, uint64_t vaddr, unsigned flags,
		    struct pmt_inline_frame *fr, unsigned max);
/* Whether perf 7.3 finds vaddr's inlined calls with libdw: its libdw__addr2line looks the
 * module up by the file's own address (dwfl_addrmodule(vaddr)) where libdwfl placed the
 * file offline at 0x10000 on, so an address below the placement (most of a small
 * executable's) is not found and perf asks binutils' addr2line, whose frames are named by
 * DWARF down to the holding function (a clone "f.constprop.0" is "f (inlined)"); found,
 * the holding function is the symbol itself. 1 found, 0 not. */
int srcline_perf_libdw(struct srcline *sl, uint64_t vaddr);
void srcline_close(struct srcline *sl);
#endif
