/* The kernel's symbols from a kallsyms file (/proc/kallsyms captured where the trace was
 * recorded), as perf's dso__load_kallsyms reads them: text, weak, data and bss symbols of
 * the kernel itself (modules have maps of their own, not read here), zero sizes extended to
 * the next symbol (a page past the last), moved by the relocation of _text. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The running kernel's GNU build-id from its ELF notes in /sys/kernel/notes; 0 if none. */
static size_t running_build_id(uint8_t *id, size_t cap)
{
	uint8_t buf[4096];
	size_t len, off = 0;
	FILE *fp = fopen("/sys/kernel/notes", "rb");

	if (!fp)
		return 0;
	len = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	while (off + 12 <= len) {
		uint32_t namesz, descsz, type;
		size_t name_at = off + 12, desc_at;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		desc_at = name_at + ((namesz + 3u) & ~3u);
		if (namesz > len || descsz > len || desc_at + descsz > len)
			return 0;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 &&
		    !memcmp(buf + name_at, "GNU", 4) && descsz <= cap) {
			memcpy(id, buf + desc_at, descsz);
			return descsz;
		}
		off = desc_at + ((descsz + 3u) & ~3u);
	}
	return 0;
}

int kallsyms_find(const uint8_t *bid, size_t n, const char *buildid_dir, char *path,
		  size_t cap)
{
	uint8_t run[64];
	char hex[2 * 64 + 1];
	size_t rn;

	if (!bid || !n || n > 64)
		return 0;
	rn = running_build_id(run, sizeof(run));
	/* perf's dso__find_kallsyms(): the running kernel is the recorded one */
	if (rn == n && !memcmp(run, bid, n) && !access("/proc/kallsyms", R_OK)) {
		snprintf(path, cap, "/proc/kallsyms");
		return 1;
	}
	/* else the copy perf record keeps in its build-id cache */
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	if (buildid_dir && *buildid_dir) {
		snprintf(path, cap, "%s/[kernel.kallsyms]/%s/kallsyms", buildid_dir, hex);
		if (!access(path, R_OK))
			return 1;
	}
	return 0;
}
