/* --bundle=symbols: what decoding needs of an ELF file without its code and data. Every
 * section header stays (indices, sh_link and the program headers that give the load bias
 * are the original's), but only the symbol tables, the notes (build-id), the .plt and its
 * relocations (NAME@plt entries), the debug sections that map addresses to lines, and the
 * call frame tables a --call-graph dwarf recording is unwound with (.eh_frame,
 * .eh_frame_hdr, .debug_frame) keep their bytes; the rest become SHT_NOBITS, as in a
 * separate debug file (whose program headers, as these, point past the end of the file). */
#define _GNU_SOURCE
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmutrace/container.h"

/* debug sections neither a line lookup nor the unwinder reads: locations, macros, name
 * indices */
static int debug_not_for_lines(const char *n)
{
	static const char *const drop[] = {
		".debug_loc", ".debug_loclists", ".debug_macro", ".debug_macinfo",
		".debug_pubnames", ".debug_pubtypes", ".debug_gnu_pubnames", ".debug_gnu_pubtypes",
		".debug_names", ".gdb_index",
	};

	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		if (!strcmp(n, drop[i]) || (!strncmp(n, ".z", 2) && !strcmp(n + 2, drop[i] + 1)))
			return 1;
	return 0;
}

static int keep_bytes(const GElf_Shdr *sh, const char *name)
{
	if (sh->sh_type == SHT_NOBITS)
		return 0;
	if (!(sh->sh_flags & SHF_ALLOC))
		return !debug_not_for_lines(name);
	switch (sh->sh_type) {
	case SHT_NOTE:
	case SHT_DYNSYM:
	case SHT_GNU_versym: /* the symbols' versions (tools find them through .dynamic, which
			      * goes with the rest: they see versionless names) */
	case SHT_GNU_verneed:
	case SHT_GNU_verdef:
		return 1;
	case SHT_REL:
	case SHT_RELA:
		/* .rela.dyn names x86-64's .plt.got entries (their GOT slots' symbols) */
		return !strcmp(name, ".rela.plt") || !strcmp(name, ".rel.plt") ||
		       !strcmp(name, ".rela.dyn");
	case SHT_STRTAB:
		return !strcmp(name, ".dynstr");
	default:
		/* the unwind tables by name: x86-64's .eh_frame may be SHT_X86_64_UNWIND; a
		 * recording without dwarf call graphs carries them too, since bundle add and
		 * convert cannot tell what a later decode will unwind */
		return !strncmp(name, ".plt", 4) || !strcmp(name, ".eh_frame") ||
		       !strcmp(name, ".eh_frame_hdr");
	}
}

static int fail(char *msg, size_t cap, const char *what)
{
	snprintf(msg, cap, "%s: %s", what, elf_errmsg(-1));
	return -PMT_EFORMAT;
}

static int symbols_only(const void *elf, size_t len, void **out, size_t *out_len, char *msg,
			size_t cap)
{
	Elf *in = NULL, *o = NULL;
	GElf_Ehdr eh;
	size_t phnum, shstrndx;
	Elf_Scn *scn = NULL;
	int fd = -1, rc = -PMT_EFORMAT;
	uint64_t at;
	off_t size;
	void *map;

	*out = NULL;
	*out_len = 0;
	elf_version(EV_CURRENT);
	/* libelf reads a memory image without writing to it */
	in = elf_memory((char *)(uintptr_t)elf, len);
	if (!in || elf_kind(in) != ELF_K_ELF || !gelf_getehdr(in, &eh) ||
	    elf_getphdrnum(in, &phnum) < 0 || elf_getshdrstrndx(in, &shstrndx) < 0) {
		rc = fail(msg, cap, "not an ELF file");
		goto out;
	}
	fd = memfd_create("pmutrace-elf-symbols", MFD_CLOEXEC);
	if (fd < 0) {
		snprintf(msg, cap, "memfd_create: %m");
		rc = -PMT_EIO;
		goto out;
	}
	o = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!o || !gelf_newehdr(o, gelf_getclass(in)))
		goto libelf_fail;
	/* the sections are laid out anew; the program headers keep the original's numbers,
	 * which is what the load bias (p_vaddr - p_offset) is read from */
	if (!gelf_update_ehdr(o, &eh))
		goto libelf_fail;
	if (phnum) {
		if (!gelf_newphdr(o, phnum))
			goto libelf_fail;
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(in, (int)i, &ph) || !gelf_update_phdr(o, (int)i, &ph))
				goto libelf_fail;
		}
	}
	/* our own layout: libelf's would give the NOBITS sections size 0, and their sizes
	 * are the original's */
	elf_flagelf(o, ELF_C_SET, ELF_F_LAYOUT);
	at = gelf_fsize(o, ELF_T_EHDR, 1, EV_CURRENT) + gelf_fsize(o, ELF_T_PHDR, phnum, EV_CURRENT);
	while ((scn = elf_nextscn(in, scn))) {
		Elf_Scn *ns = elf_newscn(o);
		GElf_Shdr sh;
		const char *name;
		uint64_t align;

		if (!ns || !gelf_getshdr(scn, &sh))
			goto libelf_fail;
		name = elf_strptr(in, shstrndx, sh.sh_name);
		/* alignment keeps the kept sections readable in place; a damaged header's
		 * (not a power of two, or huge) is not followed */
		align = sh.sh_addralign > 1 && sh.sh_addralign <= 65536 &&
				!(sh.sh_addralign & (sh.sh_addralign - 1))
			? sh.sh_addralign : 1;
		at = (at + align - 1) / align * align;
		sh.sh_offset = at;
		if (elf_ndxscn(scn) == shstrndx || keep_bytes(&sh, name ? name : "")) {
			Elf_Data *d = NULL;
			uint64_t off = 0;

			while ((d = elf_rawdata(scn, d))) {
				Elf_Data *nd = elf_newdata(ns);

				if (!nd)
					goto libelf_fail;
				*nd = *d;
				nd->d_off = (int64_t)off;
				off += d->d_size;
			}
			sh.sh_size = off;
			at += off;
			/* sections that overlap in a damaged file would each be copied: the
			 * copy never needs to be much larger than the file */
			if (at > (uint64_t)len * 2 + (1u << 20)) {
				snprintf(msg, cap, "section %zu: the kept sections add up to more "
					 "than the file (overlapping sections)", elf_ndxscn(scn));
				rc = -PMT_EFORMAT;
				goto out;
			}
		} else if (sh.sh_type != SHT_NOBITS) {
			sh.sh_type = SHT_NOBITS;
		}
		if (!gelf_update_shdr(ns, &sh))
			goto libelf_fail;
	}
	/* the section header string table index, also when it is beyond SHN_LORESERVE */
	if (!gelf_getehdr(o, &eh))
		goto libelf_fail;
	eh.e_phoff = phnum ? gelf_fsize(o, ELF_T_EHDR, 1, EV_CURRENT) : 0;
	eh.e_shoff = (at + 7) / 8 * 8;
	if (shstrndx < SHN_LORESERVE) {
		eh.e_shstrndx = (GElf_Half)shstrndx;
	} else {
		GElf_Shdr z;
		Elf_Scn *s0 = elf_getscn(o, 0);

		eh.e_shstrndx = SHN_XINDEX;
		if (!s0 || !gelf_getshdr(s0, &z))
			goto libelf_fail;
		z.sh_link = (GElf_Word)shstrndx;
		if (!gelf_update_shdr(s0, &z))
			goto libelf_fail;
	}
	if (!gelf_update_ehdr(o, &eh) || elf_update(o, ELF_C_WRITE) < 0)
		goto libelf_fail;
	size = lseek(fd, 0, SEEK_END);
	map = size > 0 ? mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
	if (map == MAP_FAILED || !(*out = malloc((size_t)size))) {
		if (map != MAP_FAILED)
			munmap(map, (size_t)size);
		rc = -PMT_ENOMEM;
		snprintf(msg, cap, "out of memory for the reduced file");
		goto out;
	}
	memcpy(*out, map, (size_t)size);
	munmap(map, (size_t)size);
	*out_len = (size_t)size;
	rc = 0;
	goto out;
libelf_fail:
	rc = fail(msg, cap, "writing the symbol tables");
out:
	if (o)
		elf_end(o);
	if (in)
		elf_end(in);
	if (fd >= 0)
		close(fd);
	return rc;
}

int pmt_ctr_elf_symbols_only(const void *elf, size_t len, void **out, size_t *out_len,
			     struct pmt_diag *diag)
{
	char msg[sizeof(diag->msg)] = "";
	int rc = symbols_only(elf, len, out, out_len, msg, sizeof(msg));

	/* an image in memory: the caller knows its file */
	return rc < 0 ? pmt_diag_set(diag, rc, NULL, PMT_DIAG_NO_OFFSET, "%s", msg) : rc;
}

int pmt_ctr_add_elf_symbols(struct pmt_ctr_writer *w, struct pmt_ctr_file *f, const void *elf,
			    size_t len, uint64_t *stored, struct pmt_diag *diag)
{
	void *small;
	size_t n;
	int rc = pmt_ctr_elf_symbols_only(elf, len, &small, &n, diag);

	if (rc < 0)
		return rc;
	f->kind = PMT_CTR_FILE_ELF_SYMBOLS;
	rc = pmt_ctr_add_file(w, f, small, n);
	if (rc < 0)
		pmt_diag_set(diag, rc, NULL, PMT_DIAG_NO_OFFSET, "%s", pmt_errstr(rc));
	else if (stored)
		*stored = n;
	free(small);
	return rc;
}
