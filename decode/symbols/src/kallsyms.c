/* The kernel's symbols from a kallsyms file (/proc/kallsyms captured where the trace was
 * recorded), as perf's dso__load_kallsyms reads them: text, weak, data and bss symbols of
 * the kernel itself (modules have maps of their own, not read here), zero sizes extended to
 * the next symbol (a page past the last), moved by the relocation of _text. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols_int.h"

#ifndef STT_FUNC
#define STT_FUNC 2
#define STT_OBJECT 1
#define STB_LOCAL 0
#define STB_GLOBAL 1
#define STB_WEAK 2
#endif

/* perf's symbol_type__filter() */
static int wanted(char type)
{
	char t = (char)toupper((unsigned char)type);

	return t == 'T' || t == 'W' || t == 'D' || t == 'B';
}

int kallsyms_load(const char *path, uint64_t text_addr, struct elf_symtab *t, char *msg,
		  size_t cap)
{
	FILE *fp = fopen(path, "r");
	char line[1024];
	uint64_t delta = 0, lineno = 0;
	int rc = 0;

	if (!fp) {
		snprintf(msg, cap, "%s: cannot open: %m", path);
		return -PMT_EIO;
	}
	while (fgets(line, sizeof(line), fp)) {
		char *p = line, *end, *name, *nl;
		uint64_t addr;
		char type;

		lineno++;
		addr = strtoull(p, &end, 16);
		if (end == p || *end != ' ' || !end[1] || end[2] != ' ') {
			if (strspn(line, " \t\r\n") != strlen(line)) {
				snprintf(msg, cap, "%s:%llu: not a kallsyms line (ADDRESS TYPE NAME)",
					 path, (unsigned long long)lineno);
				rc = -PMT_EPARSE;
				break;
			}
			continue;
		}
		type = end[1];
		name = end + 3;
		nl = name + strcspn(name, "\r\n");
		*nl = 0;
		if (!strcmp(name, "_text") && text_addr)
			delta = addr - text_addr; /* kallsyms__delta(): where _text really was */
		/* module symbols ("name\t[mod]") belong to the module maps; ARM local "$x" */
		if (!wanted(type) || name[0] == '$' || strchr(name, '\t'))
			continue;
		rc = elf_symtab_add(t, addr, 0,
				    type == 'W' || type == 'w' ? STB_WEAK
				    : isupper((unsigned char)type) ? STB_GLOBAL : STB_LOCAL,
				    toupper((unsigned char)type) == 'T' ||
						    toupper((unsigned char)type) == 'W'
					    ? STT_FUNC : STT_OBJECT,
				    name);
		if (rc < 0) {
			snprintf(msg, cap, "%s: out of memory", path);
			break;
		}
	}
	if (rc >= 0 && ferror(fp)) {
		snprintf(msg, cap, "%s: read error", path);
		rc = -PMT_EIO;
	}
	fclose(fp);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < t->n; i++) {
		t->syms[i].start -= delta;
		t->syms[i].end -= delta;
	}
	elf_symtab_fixup(t, 1);
	elf_symtab_note_max_len(t);
	t->has_symtab = 1;
	return 0;
}
