/* Symbols for the PLT entries an ELF file's symbol tables do not name: NAME@plt for .plt
 * (perf's dso__synthesize_plt_symbols) and x86's .plt.got entries. */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols_int.h"
#include "elf_file.h"

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

struct rela_dyn_ent {
	uint64_t offset;
	uint32_t sym;
};

static int cmp_rela_dyn(const void *a, const void *b)
{
	const struct rela_dyn_ent *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* A section's offset in the mapped file, where samples find its symbols: from its address
 * through the program headers, since a --symbols-only copy lays its sections out anew
 * (perf reads sh_offset of the file itself, which is the same number); sh_offset when no
 * load segment holds it */
static void offset_as_mapped(const struct elf_symtab *t, GElf_Shdr *sh)
{
	uint64_t bias;

	if (elf_symtab_load_bias(t, sh->sh_addr, &bias) == 0)
		sh->sh_offset = sh->sh_addr - bias;
}

/* The GOT slot an x86-64 .plt.got entry jumps through, as perf's get_x86_64_plt_disp()
 * finds it: [endbr64] [bnd] jmp *disp32(%rip); 0 when the entry is not that */
static uint32_t plt_got_disp(const uint8_t *p, size_t len)
{
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t n = 0;
	uint32_t disp;

	if (len >= 4 && !memcmp(p, endbr64, 4))
		n += 4;
	if (n < len && p[n] == 0xf2)
		n++;
	if (n + 6 > len || p[n] != 0xff || p[n + 1] != 0x25)
		return 0;
	disp = (uint32_t)p[n + 2] | (uint32_t)p[n + 3] << 8 | (uint32_t)p[n + 4] << 16 |
	       (uint32_t)p[n + 5] << 24;
	return (uint32_t)(n + 6) + disp; /* perf's u32 arithmetic, from the entry's start */
}

/* x86's .plt.got entries (dso__synthesize_plt_got_symbols of perf 7.3): each named after
 * the symbol of the .rela.dyn relocation of the GOT slot it jumps through, "SYM@plt",
 * else "offset_0xOFF@plt". perf computes the slot from the section's file offset and
 * looks it up among r_offset values, which are addresses: the same where .plt.got's
 * offset is its address (shared libraries, PIE), while in a non-PIE executable perf
 * finds nothing and pmutrace the name. The slot's address is used because a
 * --symbols-only bundle moves the sections' offsets but keeps their addresses. */
static int synthesize_plt_got(struct elf_file *f, struct elf_symtab *t, unsigned flags)
{
	GElf_Shdr pg, rd, ds;
	Elf_Scn *pg_scn = elf_section_by_name(f, ".plt.got", &pg, NULL), *rd_scn, *ds_scn;
	Elf_Data *code = NULL, *rels = NULL, *syms = NULL;
	struct rela_dyn_ent *v = NULL;
	size_t nv = 0;
	char name[1100], demangled[1024];
	int rc = 0;

	if (!pg_scn || !pg.sh_entsize || pg.sh_type == SHT_NOBITS)
		return 0;
	offset_as_mapped(t, &pg);
	code = elf_getdata(pg_scn, NULL);
	/* a damaged header's size counts only the bytes the file holds (a size of 2^32
	 * made 2^32 / entsize names) */
	if (!code || !code->d_buf)
		return 0;
	if (pg.sh_size > code->d_size)
		pg.sh_size = code->d_size;
	rd_scn = f->eh.e_machine == EM_X86_64 ? elf_section_by_name(f, ".rela.dyn", &rd, NULL) : NULL;
	if (code && rd_scn && rd.sh_link && rd.sh_entsize &&
	    (ds_scn = elf_getscn(f->elf, rd.sh_link)) && gelf_getshdr(ds_scn, &ds) && ds.sh_link &&
	    (rels = elf_getdata(rd_scn, NULL)) && (syms = elf_getdata(ds_scn, NULL))) {
		size_t nr = (rd.sh_size < rels->d_size ? rd.sh_size : rels->d_size) / rd.sh_entsize;

		v = malloc((nr ? nr : 1) * sizeof(*v));
		if (!v)
			return -PMT_ENOMEM;
		for (size_t i = 0; i < nr; i++) {
			GElf_Rela r;

			if (gelf_getrela(rels, (int)i, &r) && GELF_R_SYM(r.r_info))
				v[nv++] = (struct rela_dyn_ent){ r.r_offset, (uint32_t)GELF_R_SYM(r.r_info) };
		}
		qsort(v, nv, sizeof(*v), cmp_rela_dyn);
	}
	for (uint64_t i = 0; i < pg.sh_size && rc >= 0; i += pg.sh_entsize) {
		const char *sn = NULL;
		uint32_t disp = 0;

		if (v && i < code->d_size)
			disp = plt_got_disp((const uint8_t *)code->d_buf + i, code->d_size - i);
		if (disp) {
			struct rela_dyn_ent key = { pg.sh_addr + (uint64_t)code->d_off + i + disp, 0 };
			const struct rela_dyn_ent *e = bsearch(&key, v, nv, sizeof(*v), cmp_rela_dyn);
			GElf_Sym sym;

			if (e && gelf_getsym(syms, (int)e->sym, &sym))
				sn = elf_strptr(f->elf, ds.sh_link, sym.st_name);
		}
		if (sn && *sn)
			snprintf(name, sizeof(name), "%s@plt",
				 elf_demangle(sn, flags, demangled, sizeof(demangled)));
		else
			snprintf(name, sizeof(name), "offset_%#llx@plt",
				 (unsigned long long)(pg.sh_offset + i));
		rc = elf_symtab_add(t, pg.sh_offset + i, pg.sh_entsize, STB_GLOBAL, STT_FUNC, name);
	}
	free(v);
	return rc;
}

static int cmp_start_only(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The name of an x86-64 .plt entry whose relocation names no symbol: an R_X86_64_IRELATIVE
 * one's addend is the address of the IFUNC it resolves, named after the symbol starting
 * there (sorted among the first n) if that is the IFUNC or the alias kept over it, as
 * perf's get_ifunc_name() ("strlen@plt" where the entry is otherwise "offset_0x...@plt") */
static const char *ifunc_name(const struct elf_symtab *t, size_t n, const GElf_Rela *r)
{
	struct sym_entry key = { 0 };
	const struct sym_entry *e;
	uint64_t bias;

	if (GELF_R_TYPE(r->r_info) != R_X86_64_IRELATIVE ||
	    elf_symtab_load_bias(t, (uint64_t)r->r_addend, &bias) < 0 || !n)
		return NULL;
	/* fixup left one symbol per start */
	key.start = (uint64_t)r->r_addend - bias;
	e = bsearch(&key, t->syms, n, sizeof(key), cmp_start_only);
	if (!e || (e->type != STT_GNU_IFUNC && !e->ifunc_alias))
		return NULL;
	return t->names + e->name;
}

/* The .plt's entries as NAME@plt (dso__synthesize_plt_symbols), for AArch64 and x86 */
int elf_synthesize_plt(struct elf_file *f, struct elf_symtab *t, unsigned flags)
{
	GElf_Shdr plt, sec, rel, dsym;
	Elf_Scn *rel_scn, *dsym_scn;
	Elf_Data *rd, *sd;
	uint64_t hdr, ent, off, nr;
	int x86 = f->eh.e_machine == EM_X86_64 || f->eh.e_machine == EM_386, lazy, rc;
	size_t plt_sym, loaded = t->n; /* the file's own symbols, sorted by fixup */
	struct rela_dyn_ent *order = NULL;
	char name[1100], demangled[1024];

	/* a debug file keeps .plt's header but not its bytes: no entries to name there */
	if (!elf_section_by_name(f, ".plt", &plt, NULL) || plt.sh_type == SHT_NOBITS)
		return 0;
	offset_as_mapped(t, &plt);
	/* a symbol before .plt stretched over it by the end fixup stops where .plt starts
	 * (with the header symbol, perf 6.2's "perf symbols: Add symbol for .plt header") */
	if (flags & ELF_LOAD_PLT_HEADER)
		for (size_t i = 0; i < t->n; i++)
			if (t->syms[i].start < plt.sh_offset && t->syms[i].end > plt.sh_offset)
				t->syms[i].end = plt.sh_offset;
	if (f->eh.e_machine == EM_AARCH64) {
		hdr = 32;
		ent = 16;
	} else if (f->eh.e_machine == EM_ARM) {
		hdr = 20;
		ent = 12;
	} else if (x86) {
		ent = plt.sh_entsize;
		if (ent != 8 && ent != 16)
			ent = plt.sh_addralign == 8 ? 8 : 16;
		hdr = ent;
	} else {
		hdr = ent = plt.sh_entsize;
	}
	if (!ent)
		return 0;
	plt_sym = t->n;
	rc = elf_symtab_add(t, plt.sh_offset, hdr, STB_GLOBAL, STT_FUNC, ".plt");
	if (rc < 0)
		return rc;
	if (x86 && elf_section_by_name(f, ".plt.sec", &sec, NULL)) {
		offset_as_mapped(t, &sec);
		t->syms[plt_sym].end = plt.sh_offset + plt.sh_size;
		ent = sec.sh_entsize;
		if (ent != 8 && ent != 16)
			ent = sec.sh_addralign == 8 ? 8 : 16;
		off = sec.sh_offset;
		lazy = 0;
	} else {
		off = plt.sh_offset;
		lazy = 1;
	}
	if (!(flags & ELF_LOAD_PLT_HEADER) && !lazy)
		t->n--;
	rel_scn = elf_section_by_name(f, ".rela.plt", &rel, NULL);
	if (!rel_scn)
		rel_scn = elf_section_by_name(f, ".rel.plt", &rel, NULL);
	if (!rel_scn || (rel.sh_type != SHT_RELA && rel.sh_type != SHT_REL) || !rel.sh_link ||
	    !rel.sh_entsize)
		goto done;
	dsym_scn = elf_getscn(f->elf, rel.sh_link);
	if (!dsym_scn || !gelf_getshdr(dsym_scn, &dsym) ||
	    (dsym.sh_type != SHT_DYNSYM && dsym.sh_type != SHT_SYMTAB))
		goto done;
	rd = elf_getdata(rel_scn, NULL);
	sd = elf_getdata(dsym_scn, NULL);
	if (!rd || !sd)
		goto done;
	nr = rel.sh_size / rel.sh_entsize;
	if (lazy) {
		if (!(flags & ELF_LOAD_PLT_HEADER)) {
			t->n--; /* older perf: entries only, after the header */
			off += hdr;
		} else if (nr * ent == plt.sh_size) {
			/* as many entries as relocations, no room for a header: perf drops it */
			t->n--;
		} else {
			off += hdr;
		}
	}
	/* x86 linkers put the IFUNC relocations after the others, not in .plt's order: perf
	 * (6.3 on, with the .plt.got and IFUNC names) sorts them by GOT slot (sort_rel()),
	 * which is .plt's order */
	if (x86 && (flags & ELF_LOAD_PLT_GOT) && nr && nr < INT32_MAX) {
		order = malloc(nr * sizeof(*order));
		if (!order)
			return -PMT_ENOMEM;
		for (uint64_t i = 0; i < nr; i++) {
			GElf_Rela ra;
			GElf_Rel r;

			order[i].sym = (uint32_t)i;
			order[i].offset = rel.sh_type == SHT_RELA
						  ? (gelf_getrela(rd, (int)i, &ra) ? ra.r_offset : 0)
						  : (gelf_getrel(rd, (int)i, &r) ? r.r_offset : 0);
		}
		qsort(order, nr, sizeof(*order), cmp_rela_dyn);
	}
	for (uint64_t i = 0; i < nr; i++) {
		const int idx = order ? (int)order[i].sym : (int)i;
		GElf_Sym sym;
		uint64_t info;
		const char *sn = NULL, *ifunc = NULL;

		if (rel.sh_type == SHT_RELA) {
			GElf_Rela r;

			if (!gelf_getrela(rd, idx, &r))
				break;
			info = r.r_info;
			if (f->eh.e_machine == EM_X86_64 && (flags & ELF_LOAD_PLT_GOT))
				ifunc = ifunc_name(t, loaded, &r);
		} else {
			GElf_Rel r;

			if (!gelf_getrel(rd, idx, &r))
				break;
			info = r.r_info;
		}
		if (gelf_getsym(sd, (int)GELF_R_SYM(info), &sym))
			sn = elf_strptr(f->elf, dsym.sh_link, sym.st_name);
		if (sn && *sn)
			snprintf(name, sizeof(name), "%s@plt",
				 elf_demangle(sn, flags, demangled, sizeof(demangled)));
		else if (ifunc)
			snprintf(name, sizeof(name), "%s@plt", ifunc);
		else if (!(flags & ELF_LOAD_PLT_GOT))
			snprintf(name, sizeof(name), "@plt"); /* perf before 6.3: the empty name */
		else
			snprintf(name, sizeof(name), "offset_%#llx@plt", (unsigned long long)off);
		rc = elf_symtab_add(t, off, ent, STB_GLOBAL, STT_FUNC, name);
		if (rc < 0) {
			free(order);
			return rc;
		}
		off += ent;
	}
	free(order);
done:
	/* perf adds them once .plt's header is in, whatever happens to .plt's entries */
	if (x86 && (flags & ELF_LOAD_PLT_GOT)) {
		rc = synthesize_plt_got(f, t, flags);
		if (rc < 0)
			return rc;
	}
	qsort(t->syms, t->n, sizeof(t->syms[0]), elf_sym_cmp_start);
	return 0;
}
