/* The kernel's symbols from a vmlinux ELF file (perf's --vmlinux): read as any ELF's
 * (dso__load_sym's selection), placed at the addresses the kernel ran at. perf moves
 * them by the distance between where the trace's kernel map says _text was (its
 * ref_reloc_sym, the map's pgoff) and _text's value in the file, so a KASLR kernel's
 * samples land on the file's symbols. A file whose build-id is not the recording's kernel
 * is never used (perf's symsrc__init). */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symbols_int.h"

/* _text's st_value from the file's .symtab, whatever its type (perf looks it up before
 * any filter): 0 when found, -1 when not */
static int text_value(const char *path, uint64_t *value)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	Elf *elf;
	Elf_Scn *scn = NULL;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (elf && rc < 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Sym sym;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, "_text")) {
				*value = sym.st_value;
				rc = 0;
				break;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return rc;
}

static void hex(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

int vmlinux_load(const char *path, uint64_t text_addr, const uint8_t *build_id,
		 size_t build_id_size, unsigned flags, struct elf_symtab *t, char *msg, size_t cap)
{
	uint64_t text = 0, reloc = 0;
	int rc = elf_symtab_load(path, t, flags & ~(unsigned)(ELF_LOAD_PLT | ELF_LOAD_PLT_HEADER),
				 msg, cap);

	if (rc < 0)
		return rc;
	if (build_id_size && (t->build_id_size != build_id_size ||
			      memcmp(t->build_id, build_id, build_id_size))) {
		char want[2 * PMT_BUILD_ID_MAX + 1], have[2 * PMT_BUILD_ID_MAX + 1];

		hex(want, build_id, build_id_size);
		hex(have, t->build_id, t->build_id_size);
		snprintf(msg, cap, "%s: build-id %s, the recording's kernel has %s; not used",
			 path, t->build_id_size ? have : "(none)", want);
		return -PMT_ENOT_FOUND;
	}
	if (text_addr && text_value(path, &text) == 0)
		reloc = text_addr - text;
	/* the loader placed them in file offsets, as a user-space file's; the kernel's map
	 * is an identity, so back to addresses, moved as the kernel was. A label just past a
	 * segment (_etext) is placed from the byte before it; a symbol in no segment has no
	 * address and is dropped (the table stays in address order) */
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct sym_entry e = t->syms[i];
		uint64_t len = e.end - e.start, va = elf_symtab_vaddr(t, e.start);

		if (va == UINT64_MAX && e.start && (va = elf_symtab_vaddr(t, e.start - 1)) != UINT64_MAX)
			va++;
		if (va == UINT64_MAX)
			continue;
		e.start = va + reloc;
		e.end = e.start + len;
		t->syms[n++] = e;
	}
	t->n = n;
	elf_symtab_note_max_len(t);
	return 0;
}
