/* What binutils' addr2line (run by perf) answers where the line table has no row
 * (srcline_a2l.c). */
#ifndef PMT_SRCLINE_A2L_H
#define PMT_SRCLINE_A2L_H
#include <libelf.h>
#include <stdint.h>

#include "pmutrace/errors.h"

struct a2l_symtab;
/* reads elf's sections and symbols once (the strings stay in elf: free the table before
 * ending elf); NULL elf: a table that answers nothing. without_lines: answer for a file
 * without .debug_line too (perf 6.1 starts addr2line for any file, 7.3 only for one with
 * lines). 0 or -PMT_ENOMEM. */
int srcline_a2l_new(struct a2l_symtab **out, Elf *elf, int without_lines);
/* addr2line's answer for addr (ELF address), given that the line table has no row for it
 * and whether a DWARF function covers it: 1 with *file the file it names (NULL: "??"; ""
 * is an empty FILE symbol's) and line "?", 0 for "??:0" (it found nothing, or the file
 * has no .debug_line and perf would not ask: see srcline_a2l_new) */
int srcline_a2l_find(const struct a2l_symtab *t, uint64_t addr, int in_dwarf_function,
		     const char **file);
void srcline_a2l_free(struct a2l_symtab *t);
#endif
