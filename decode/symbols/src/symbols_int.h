/* decode/symbols internals: one ELF's symbol table, and where its file is found. */
#ifndef PMT_SYMBOLS_INT_H
#define PMT_SYMBOLS_INT_H
#include <stdint.h>
#include <stddef.h>

#include "pmutrace/symbols.h"

/* A symbol in the DSO's file-offset space (perf's adjust_symbols: st_value moved by the
 * p_vaddr - p_offset of its PT_LOAD), so an ip maps to it as ip - map start + pgoff. */
struct sym_entry {
	uint64_t start, end; /* [start, end); end == start: zero size and last */
	uint32_t name;       /* offset in the name pool */
	uint32_t seq;        /* insertion order: equal starts keep it, as perf's rb-tree */
	uint8_t type, bind;  /* STT_*, STB_* */
	uint8_t ifunc_alias; /* kept over an STT_GNU_IFUNC symbol at its start (perf's flag) */
};

struct elf_symtab {
	struct sym_entry *syms;
	size_t n, cap;
	uint32_t seq;
	uint64_t max_len;             /* the longest symbol: how far back a lookup looks */
	char *names;
	size_t names_len, names_cap;
	uint16_t machine;             /* EM_* of the file the symbols came from */
	uint8_t build_id[PMT_BUILD_ID_MAX];
	uint8_t build_id_size;
	char debuglink[256];          /* .gnu_debuglink's file name, "" when none */
	uint8_t has_symtab;           /* .symtab was read (else only .dynsym or nothing) */
	/* the PT_LOADs, to turn a file offset into the address the debug info uses */
	struct { uint64_t off, vaddr, size; } loads[16];
	unsigned nloads;
	uint8_t loads_given;          /* loads came from the runtime file, not this one */
	uint64_t rel_text_off;        /* ET_REL (a kernel module): .text's file offset, where
				       * perf's module map starts (its pgoff); else 0 */
};
/* Take the PT_LOADs from `runtime` (the file that was mapped) before loading a separate
 * debug file into t: a debug file's program headers may have its offsets zeroed (Debian's
 * do), and perf adjusts symbols by the runtime file's. 0, or < 0 when it cannot be read. */
int elf_symtab_loads_from(struct elf_symtab *t, const char *runtime);
/* The ELF address (p_vaddr space) of a file offset, or UINT64_MAX. */
uint64_t elf_symtab_vaddr(const struct elf_symtab *t, uint64_t off);

/* Read the symbols of one ELF file the way perf's dso__load_sym does: .symtab and .dynsym,
 * functions, objects and (ARM/AArch64) text labels, ARM mapping symbols rejected,
 * SHF_ALLOC sections only, symbols moved to file offsets, zero sizes extended to the next
 * symbol, aliases at one address reduced to perf's choice, and .plt entries named
 * NAME@plt (as flags say). Returns 0, -PMT_EIO (cannot open), -PMT_EFORMAT (not ELF) or -PMT_ENOMEM;
 * msg (cap bytes) says why. */
enum {
	ELF_LOAD_PLT = 1,        /* .plt entries as NAME@plt */
	ELF_LOAD_PLT_HEADER = 2, /* and a ".plt" symbol for its header (perf 6.2 on) */
	ELF_LOAD_BOTH = 4,       /* .dynsym's symbols too when there is a .symtab (newer perf) */
	ELF_LOAD_DEMANGLE = 8,   /* C++ names demangled */
	ELF_LOAD_DEMANGLE_PARAMS = 16, /* with return type, parameters and qualifiers (newer perf) */
	ELF_LOAD_PLT_GOT = 32,   /* x86's .plt.got entries as NAME@plt, .plt's in GOT order and
				  * its IFUNC entries named (perf 6.3 on) */
};
/* name demangled as flags say, in buf; or name itself when it is no C++ name */
const char *elf_demangle(const char *name, unsigned flags, char *buf, size_t cap);
int elf_symtab_load(const char *path, struct elf_symtab *t, unsigned flags, char *msg,
		    size_t cap);
/* The .plt entries of the runtime file `path` into t (symbols read from a debug file,
 * whose .plt has no bytes). */
int elf_symtab_add_plt(const char *path, struct elf_symtab *t, unsigned flags);
/* Only the build-id (and debuglink) of a file: 0 when read, < 0 otherwise. */
int elf_read_ids(const char *path, struct elf_symtab *t);
void elf_symtab_fini(struct elf_symtab *t);
int elf_symtab_add(struct elf_symtab *t, uint64_t start, uint64_t size, uint8_t bind,
		   uint8_t type, const char *name);
/* perf's end and alias fixups after symbols were added (kallsyms: module boundaries) */
void elf_symtab_fixup(struct elf_symtab *t, int kallsyms);
void elf_symtab_note_max_len(struct elf_symtab *t);
/* The kernel's symbols from a kallsyms file; text_addr is where the trace's kernel map
 * says _text is (0: unknown), the file's _text gives the relocation. */
/* Where perf finds the kallsyms of the kernel with build-id bid when none is given: this
 * machine's /proc/kallsyms if it runs that kernel, else the build-id cache's copy
 * (buildid_dir/[kernel.kallsyms]/HEX/kallsyms). 1 with path, 0 when neither. */
int kallsyms_find(const uint8_t *bid, size_t n, const char *buildid_dir, char *path,
		  size_t cap);
int kallsyms_load(const char *path, uint64_t text_addr, struct elf_symtab *t, char *msg,
		  size_t cap);
/* The kernel's symbols from a vmlinux ELF file: placed at the addresses the kernel ran at
 * (moved by text_addr - the file's _text; text_addr 0: as the file says). A build-id
 * given must be the file's, else -PMT_ENOT_FOUND with msg saying both. 0 or < 0. */
int vmlinux_load(const char *path, uint64_t text_addr, const uint8_t *build_id,
		 size_t build_id_size, unsigned flags, struct elf_symtab *t, char *msg, size_t cap);
/* The symbol holding `off` (perf's symbols__find), or NULL. */
const struct sym_entry *elf_symtab_find(const struct elf_symtab *t, uint64_t off);

#endif
