/* pmutrace decode/symbols: which function, in which file, an address of a traced process
 * was in. The trace's sideband (MMAP/MMAP2, COMM, FORK) builds each process's address
 * space; the files are found as perf finds them (build-id cache, --symfs, debug
 * directories, the original path when its build-id matches) and read once (libelf). */
#ifndef PMUTRACE_SYMBOLS_H
#define PMUTRACE_SYMBOLS_H

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMT_BUILD_ID_MAX 20

struct pmt_symbols_opts {
	size_t sz;               /* sizeof(struct pmt_symbols_opts) */
	const char *symfs;       /* perf's --symfs: files are looked up under this root */
	const char *buildid_dir; /* perf's build-id cache; NULL = $HOME/.debug, "" = none */
	int compat;              /* perf version whose symbol rules to follow (PMT_PERF_*,
				  * 0 = newest): before 6.2 no ".plt" header symbol and .dynsym
				  * only without .symtab (6.1 checked, the releases between not
				  * pinned) */
	const char *kallsyms;    /* perf's --kallsyms: the kernel's symbols, for addresses in
				  * the trace's [kernel.kallsyms] map */
	const char *debuginfod;  /* perf's --debuginfod: servers asked by build-id for a file
				  * found nowhere else. NULL: $DEBUGINFOD_URLS; "": none */
	int no_demangle;         /* perf's --no-demangle: C++ names as the file spells them.
				  * Else demangled as compat's perf does: 6.1 the bare name,
				  * newer the whole signature (abi::__cxa_demangle's text) */
	const char *vmlinux;     /* perf's --vmlinux: the kernel's symbols from this ELF file,
				  * only when its build-id is the recording kernel's (if the
				  * trace has one); kallsyms wins when both are given, as in
				  * perf */
};

/* Where an address was. Strings stay valid until the pmt_symbols is freed. */
/* What perf's dso id and map flags say of a map: MMAP2's device and inode (a build-id
 * MMAP2's same bytes), and whether perf takes it for anonymous user memory (private, no
 * device or inode: perf c2c tells its cache lines apart by process). */
struct pmt_map_id {
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint8_t anon;
};

struct pmt_sym_loc {
	const char *sym;       /* function or object name; NULL when no symbol holds it */
	uint64_t symoff;       /* map_ip - sym_start */
	uint64_t sym_start;    /* the symbol's start in the file's offset space */
	uint8_t sym_type;      /* ELF STT_* of the symbol */
	uint8_t kernel;        /* perf's cpumode: kernel (the upper half of the address space) */
	const char *dso;       /* the mapped file's name as the trace gives it; NULL: no map */
	const char *dso_short; /* its last path component ("[kernel.kallsyms]" as it is) */
	uint64_t map_ip;       /* the address in the file's offset space (ip - start + pgoff) */
	uint64_t map_start, map_pgoff; /* the kernel's map: pgoff = start (an identity) */
	uint8_t dso_loaded;    /* the file's symbols were read (perf's dso->adjust_symbols of a
				* user file: its addresses are then taken as they are) */
	const void *sym_id;    /* identities for grouping: equal for the same symbol / file */
	const void *dso_id;
	struct pmt_map_id map_id; /* the map's (when dso is set) */
	uint32_t dso_order;    /* the order of perf's objects of the files: those of the
				* trace's build-id table first, in its order, then as first
				* mapped; 0: no map */
};

struct pmt_symbols;
PMT_API int pmt_symbols_new(const struct pmt_symbols_opts *opts, struct pmt_symbols **out);
PMT_API void pmt_symbols_free(struct pmt_symbols *s); /* NULL is a no-op */
/* Take what a trace record says about address spaces and threads (MMAP, MMAP2, COMM,
 * FORK); other records are ignored. Returns 0 or -PMT_ENOMEM. */
PMT_API int pmt_symbols_add_event(struct pmt_symbols *s, const struct pmt_trace_event *ev);
/* What perf's build-id table (HEADER_BUILD_ID) says a file's build-id is: mappings of that
 * file without a build-id of their own take it (perf's dsos__set_build_ids). Call before
 * the events. 0 or -PMT_ENOMEM. */
PMT_API int pmt_symbols_add_build_id(struct pmt_symbols *s, const char *filename,
				     const uint8_t *build_id, size_t build_id_size);
/* The files a container carries (its embedded ELF files and kallsyms): looked for first,
 * by build-id (or by name for a mapping without one); an embedded kallsyms is the kernel's
 * symbols unless opts.kallsyms named a file. Held in memory files until the pmt_symbols
 * is freed. Returns how many, 0 for a perf.data, or -PMT_ENOMEM. */
PMT_API int pmt_symbols_add_source_files(struct pmt_symbols *s, struct pmt_source *src);
/* A mapping by hand (e.g. a raw buffer's binary): pid -1 = the kernel's. */
PMT_API int pmt_symbols_add_map(struct pmt_symbols *s, int32_t pid, uint64_t start,
				uint64_t len, uint64_t pgoff, const char *filename,
				const uint8_t *build_id, size_t build_id_size, uint64_t time);
/* Resolve ip of process pid at time (0 = after every mapping). Returns 1 when a symbol
 * was found, 0 when not (out still says the map, if any), < 0 on error. A file that cannot
 * be found or read is reported once (pmt_info), then its addresses stay unresolved. */
PMT_API int pmt_symbols_resolve(struct pmt_symbols *s, int32_t pid, uint64_t ip,
				uint64_t time, struct pmt_sym_loc *out);
/* The range [start, end) in its file's address space of the symbol a pmt_sym_loc's sym_id
 * names, with perf's extended ends (symbols__fixup_end): perf orders the entries of
 * different symbols by these, and an inlined function's by its holding function's (sort.c
 * _sort__sym_cmp). */
PMT_API void pmt_symbols_sym_range(const void *sym_id, uint64_t *start, uint64_t *end);
/* For callers that remember resolutions: while this returns the same nonzero value,
 * pmt_symbols_resolve() gives each (pid, ip) the same answer at any time it is asked for.
 * Every pmt_symbols_add_* call changes it; 0 for a time before the latest map's, when
 * the answer depends on the time. */
PMT_API uint64_t pmt_symbols_version(const struct pmt_symbols *s, uint64_t time);
/* The source file and line of an address pmt_symbols_resolve() placed in a file (libdw, the
 * row of the line table that holds it, as addr2line reads it): 1 when found (file valid
 * until the pmt_symbols is freed), 0 when not. *vaddr gets the address in the ELF's own
 * (p_vaddr) space, UINT64_MAX when there is none. */
PMT_API int pmt_symbols_srcline(struct pmt_symbols *s, const struct pmt_sym_loc *loc,
				const char **file, unsigned *line, uint64_t *vaddr);
/* pmt_symbols_srcline(), and where the line table has no row what perf (6.1 and 7.3)
 * prints from binutils' addr2line there: 2 with the file addr2line names (the STT_FILE
 * symbol before the function in .symtab, e.g. "crtstuff.c"; "" for an empty one; NULL when
 * it names none, perf's "??") and line 0; 0 when addr2line finds nothing either (perf
 * prints DSO[ADDR]). The rules are binutils 2.40's (_bfd_elf_find_function). */
PMT_API int pmt_symbols_srcline_perf(struct pmt_symbols *s, const struct pmt_sym_loc *loc,
				     const char **file, unsigned *line, uint64_t *vaddr);
/* One function of the inlined calls an address is in (what addr2line -i -f prints). */
struct pmt_inline_frame {
	const char *func; /* the function's name in the source; NULL when the DWARF has none */
	const char *file; /* frame 0: the file of the address's line; frame k: where frame k-1
			   * is called from in func (DW_AT_call_file); NULL when unknown */
	unsigned line;    /* likewise its line (0: unknown) */
	uint8_t inlined;  /* perf 7.3 prints the frame as "func (inlined)": every frame but the
			   * last, and the last (the function holding the address) too where
			   * perf names it from binutils' addr2line and that name is not the
			   * symbol's (a GCC clone: "spin" for spin.constprop.0); 0 for the
			   * frame that is the symbol's own entry */
};
/* The chain of inlined calls an address pmt_symbols_resolve() placed in a file is in,
 * innermost first and the function that holds them last (libdw's scopes of the address:
 * DW_TAG_inlined_subroutine, ended by DW_TAG_subprogram), at most max frames, each named
 * as perf 7.3 and addr2line name it (DW_AT_linkage_name unless a C++ one, else DW_AT_name).
 * Returns how many frames were filled: 1 for code that is not inlined, 0 when the debug
 * info has no line or no function for the address. Strings stay valid until the
 * pmt_symbols is freed. */
PMT_API int pmt_symbols_inlines(struct pmt_symbols *s, const struct pmt_sym_loc *loc,
				struct pmt_inline_frame *frames, unsigned max);
/* The code of the symbol pmt_symbols_resolve() found for loc, read from the mapped file
 * (not a debug file, which has none): 1 with *buf (malloc'd; the caller frees it), *len,
 * the symbol's ELF address and the file's e_machine; 0 when there is no such code (the
 * kernel, no file, an empty symbol); -PMT_ENOT_FOUND when the symbols came from a copy
 * the trace carries without code (--bundle=symbols) and no file with the code was found;
 * -PMT_ENOMEM. */
PMT_API int pmt_symbols_sym_code(struct pmt_symbols *s, const struct pmt_sym_loc *loc,
				 uint8_t **buf, size_t *len, uint64_t *vaddr, uint16_t *machine);
/* Up to cap bytes of the mapped file at loc's address (its map_ip, a file offset), as
 * perf's thread__memcpy() reads a sample's instruction: the file with the code, mapped
 * once; *is64 says whether it is an ELFCLASS64 file. Returns the bytes copied, 0 for the
 * kernel, no map, or no readable file. */
PMT_API int pmt_symbols_code_at(struct pmt_symbols *s, const struct pmt_sym_loc *loc,
				uint8_t *buf, size_t cap, bool *is64);
/* The ELF e_machine of the file pmt_symbols_code_at() reads for loc (EM_AARCH64 183,
 * EM_X86_64 62, EM_386 3), 0 when there is no such file: which decoder its bytes need. */
PMT_API int pmt_symbols_code_machine(struct pmt_symbols *s, const struct pmt_sym_loc *loc);
/* The user frames of a sample that carries the user registers and stack (perf record
 * --call-graph dwarf), unwound as perf's unwind-libdw does: libdw's CFI (.eh_frame,
 * .debug_frame) of the files mapped in the sample's process at its time, the stack read
 * from the sample's copy and other memory from the mapped files. ips gets at most max
 * addresses, the sample's pc first, callers after it as the address of their call (the
 * return address less 1, as perf). Returns how many: 0 when the sample has no registers
 * or stack, or its pc is in no file with code (counted in the stats), or < 0 on error.
 * One libdwfl session is kept per process (a few at a time), so files are read once. */
PMT_API int pmt_symbols_unwind(struct pmt_symbols *s, const struct pmt_sample *smp,
			       uint64_t *ips, unsigned max);
struct pmt_unwind_stats {
	uint64_t samples;   /* samples with registers and a stack copy */
	uint64_t frames;    /* frames found */
	uint64_t truncated; /* unwindings that stopped before the outermost frame (no CFI
			     * for a pc, a read past the stack copy) */
	uint64_t failed;    /* samples with no frame: the pc in no file with code, an
			     * architecture without an unwinder (not x86-64 or arm64) */
};
PMT_API void pmt_symbols_unwind_stats(const struct pmt_symbols *s,
				      struct pmt_unwind_stats *st);
/* The comm (command name) of a thread at `time`, as perf names a sample: the last COMM
 * record at or before it (time 0: the latest; "swapper" for the idle task, as perf), or
 * NULL. */
PMT_API const char *pmt_symbols_comm(const struct pmt_symbols *s, int32_t tid,
				     uint64_t time);

/* The GNU build-id of an ELF file (up to 20 bytes into id, *size 0 when it has none):
 * 0, or -PMT_EIO / -PMT_EFORMAT. */
PMT_API int pmt_symbols_file_build_id(const char *path, uint8_t *id, size_t *size);
/* One ELF's symbols as they are used (for tests and `pmutrace symbols`): calls fn with
 * each symbol's start (file offset space), end and name in address order. Returns the
 * count, fn's negative value, or a negative error with diag saying why. */
PMT_API int pmt_symbols_list_file(const char *path,
				  int (*fn)(uint64_t start, uint64_t end, const char *name,
					    void *ctx),
				  void *ctx, struct pmt_diag *diag);

#ifdef __cplusplus
}
#endif
#endif
