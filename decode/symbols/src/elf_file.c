/* An ELF file opened through libelf, and its sections by name */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "elf_file.h"

int elf_file_open(const char *path, struct elf_file *f, char *msg, size_t cap)
{
	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		snprintf(msg, cap, "%s: cannot open: %m", path);
		return -PMT_EIO;
	}
	elf_version(EV_CURRENT);
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &f->eh) ||
	    elf_getshdrstrndx(f->elf, &f->shstrndx) != 0) {
		snprintf(msg, cap, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
		if (f->elf)
			elf_end(f->elf);
		close(f->fd);
		f->fd = -1;
		return -PMT_EFORMAT;
	}
	return 0;
}

void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
}

const char *elf_sec_name(struct elf_file *f, const GElf_Shdr *sh)
{
	const char *n = elf_strptr(f->elf, f->shstrndx, sh->sh_name);

	return n ? n : "";
}

Elf_Scn *elf_section_by_name(struct elf_file *f, const char *name, GElf_Shdr *sh,
			     size_t *idx)
{
	Elf_Scn *s = NULL;

	while ((s = elf_nextscn(f->elf, s)) != NULL) {
		if (gelf_getshdr(s, sh) && !strcmp(elf_sec_name(f, sh), name)) {
			if (idx)
				*idx = elf_ndxscn(s);
			return s;
		}
	}
	return NULL;
}
