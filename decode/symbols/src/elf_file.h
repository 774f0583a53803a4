/* An ELF file as the symbol readers open it (elf_file.c), and the functions the symbol
 * table (elf_symtab.c) and the PLT synthesis (elf_plt.c) share */
#ifndef PMT_ELF_FILE_H
#define PMT_ELF_FILE_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct elf_symtab;

struct elf_file {
	int fd;
	Elf *elf;
	GElf_Ehdr eh;
	size_t shstrndx;
};

/* 0, or -PMT_EIO / -PMT_EFORMAT with msg naming path and the problem */
int elf_file_open(const char *path, struct elf_file *f, char *msg, size_t cap);
void elf_file_close(struct elf_file *f);
const char *elf_sec_name(struct elf_file *f, const GElf_Shdr *sh);
/* the first section called name (its header in *sh, its index in *idx when idx is set) */
Elf_Scn *elf_section_by_name(struct elf_file *f, const char *name, GElf_Shdr *sh,
			     size_t *idx);

/* qsort order of struct sym_entry: address, then insertion order (perf's rb-tree keeps
 * equal starts in the order they came) */
int elf_sym_cmp_start(const void *a, const void *b);
/* p_vaddr - p_offset of the PT_LOAD holding vaddr; -1 when none does */
int elf_symtab_load_bias(const struct elf_symtab *t, uint64_t vaddr, uint64_t *bias);
/* the .plt's (and x86's .plt.got's) entries into t; 0 or -PMT_ENOMEM */
int elf_synthesize_plt(struct elf_file *f, struct elf_symtab *t, unsigned flags);

#endif
