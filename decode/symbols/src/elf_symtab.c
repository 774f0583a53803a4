/* One ELF file's symbols, selected and placed as perf's dso__load_sym does
 * (tools/perf/util/symbol-elf.c, symbol.c), so that a sample lands on the symbol perf would
 * name; the PLT entries' names: elf_plt.c. */
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols_int.h"
#include "elf_file.h"

#ifndef STT_GNU_IFUNC
#define STT_GNU_IFUNC 10
#endif

/* GNU build-id from .note.gnu.build-id, .notes or .note (the sections perf reads) */
static void read_build_id(struct elf_file *f, struct elf_symtab *t)
{
	static const char *const names[] = { ".note.gnu.build-id", ".notes", ".note" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		GElf_Shdr sh;
		Elf_Scn *s = elf_section_by_name(f, names[i], &sh, NULL);
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!s)
			continue;
		d = elf_getdata(s, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + name_off, "GNU", 4)) {
				size_t n = nh.n_descsz < PMT_BUILD_ID_MAX ? nh.n_descsz
									  : PMT_BUILD_ID_MAX;

				memcpy(t->build_id, (const char *)d->d_buf + desc_off, n);
				t->build_id_size = (uint8_t)n;
				return;
			}
		}
		return; /* perf looks at the first of these sections that exists */
	}
}

static void read_debuglink(struct elf_file *f, struct elf_symtab *t)
{
	GElf_Shdr sh;
	Elf_Scn *s = elf_section_by_name(f, ".gnu_debuglink", &sh, NULL);
	Elf_Data *d = s ? elf_getdata(s, NULL) : NULL;

	if (d && d->d_buf && d->d_size) {
		size_t n = strnlen(d->d_buf, d->d_size);

		if (n >= sizeof(t->debuglink))
			n = sizeof(t->debuglink) - 1;
		memcpy(t->debuglink, d->d_buf, n);
		t->debuglink[n] = 0;
	}
}

static int add_name(struct elf_symtab *t, const char *name, uint32_t *off)
{
	size_t n = strlen(name) + 1;

	if (t->names_len + n > t->names_cap) {
		size_t cap = t->names_cap ? t->names_cap * 2 : 4096;
		char *p;

		while (cap < t->names_len + n)
			cap *= 2;
		if (cap > UINT32_MAX || !(p = realloc(t->names, cap)))
			return -PMT_ENOMEM;
		t->names = p;
		t->names_cap = cap;
	}
	memcpy(t->names + t->names_len, name, n);
	*off = (uint32_t)t->names_len;
	t->names_len += n;
	return 0;
}

int elf_symtab_add(struct elf_symtab *t, uint64_t start, uint64_t size, uint8_t bind,
		   uint8_t type, const char *name)
{
	struct sym_entry *e;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct sym_entry *p = realloc(t->syms, cap * sizeof(*p));

		if (!p)
			return -PMT_ENOMEM;
		t->syms = p;
		t->cap = cap;
	}
	e = &t->syms[t->n];
	if (add_name(t, name, &e->name) < 0)
		return -PMT_ENOMEM;
	e->start = start;
	e->end = start + size;
	e->bind = bind;
	e->type = type;
	e->ifunc_alias = 0;
	e->seq = t->seq++;
	t->n++;
	return 0;
}

/* Address order; equal starts keep their insertion order, as perf's rb-tree does */
int elf_sym_cmp_start(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): 1 keeps a, 0 keeps b */
static int keep_first(const struct elf_symtab *t, const struct sym_entry *a,
		      const struct sym_entry *b)
{
	const char *na = t->names + a->name, *nb = t->names + b->name;
	uint64_t la = a->end - a->start, lb = b->end - b->start;
	size_t ua, ub;

	if (lb == 0 && la > 0)
		return 1;
	if (la == 0 && lb > 0)
		return 0;
	if (a->type != b->type) {
		if (a->type == STT_NOTYPE)
			return 0;
		if (b->type == STT_NOTYPE)
			return 1;
	}
	if ((b->bind == STB_WEAK) != (a->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	ua = leading_underscores(na);
	ub = leading_underscores(nb);
	if (ua != ub)
		return ub > ua;
	if (strlen(na) != strlen(nb))
		return strlen(na) > strlen(nb);
	/* arch__choose_best_symbol: avoid the kernel's "SyS" syscall aliases */
	if (!strncmp(na, "SyS", 3) || !strncmp(na, "compat_SyS", 10))
		return 0;
	return 1;
}

/* symbols__fixup_end() then symbols__fixup_duplicate(), over the whole table */
void elf_symtab_fixup(struct elf_symtab *t, int kallsyms)
{
	struct sym_entry *s = t->syms;
	size_t w;

	if (!t->n)
		return;
	qsort(s, t->n, sizeof(*s), elf_sym_cmp_start);
	for (size_t i = 0; i + 1 < t->n; i++) {
		if (s[i].end != s[i].start)
			continue;
		/* kallsyms: the last symbol of the kernel or of a module before the other ends
		 * a page on, not at the far-away next one */
		if (kallsyms && !strchr(t->names + s[i].name, '[') !=
					!strchr(t->names + s[i + 1].name, '['))
			s[i].end = ((s[i].end + 4096 + 4095) & ~4095ULL);
		else
			s[i].end = s[i + 1].start;
	}
	if (s[t->n - 1].end == s[t->n - 1].start)
		s[t->n - 1].end = ((s[t->n - 1].start + 4095) & ~4095ULL) + 4096;
	w = 0;
	for (size_t i = 1; i < t->n; i++) {
		if (s[i].start != s[w].start) {
			s[++w] = s[i];
			continue;
		}
		/* perf marks the symbol kept over an IFUNC one: .plt's IFUNC entries are
		 * named after it (ifunc_name()) */
		if (!keep_first(t, &s[w], &s[i])) {
			const int alias = s[w].type == STT_GNU_IFUNC;

			s[w] = s[i];
			s[w].ifunc_alias = (uint8_t)alias;
		} else if (s[i].type == STT_GNU_IFUNC) {
			s[w].ifunc_alias = 1;
		}
	}
	t->n = w + 1;
}

/* p_vaddr - p_offset of the PT_LOAD holding vaddr (perf's elf_read_program_header) */
int elf_symtab_load_bias(const struct elf_symtab *t, uint64_t vaddr, uint64_t *bias)
{
	for (unsigned i = 0; i < t->nloads; i++) {
		if (t->loads[i].size && vaddr >= t->loads[i].vaddr &&
		    vaddr - t->loads[i].vaddr < t->loads[i].size) {
			*bias = t->loads[i].vaddr - t->loads[i].off;
			return 0;
		}
	}
	return -1;
}

static int is_arm_mapping_symbol(const char *n)
{
	return n[0] == '$' && n[1] && strchr("adtx", n[1]) && (n[2] == 0 || n[2] == '.');
}

/* One symbol table (.symtab or .dynsym) into t, as dso__load_sym_internal */
static int load_table(struct elf_file *f, Elf_Scn *scn, const GElf_Shdr *tsh,
		      struct elf_symtab *t, unsigned flags)
{
	char demangled[1024];
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = tsh->sh_entsize ? tsh->sh_size / tsh->sh_entsize : 0;
	int arm = f->eh.e_machine == EM_ARM || f->eh.e_machine == EM_AARCH64;

	if (!d)
		return 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Shdr sh;
		Elf_Scn *sec;
		const char *name, *sname;
		uint8_t type, vis;
		int is_label, rc;
		uint64_t bias;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		vis = GELF_ST_VISIBILITY(sym.st_other);
		if (!sym.st_name || sym.st_shndx == SHN_UNDEF)
			continue;
		is_label = type == STT_NOTYPE && sym.st_shndx != SHN_ABS && vis != STV_HIDDEN &&
			   vis != STV_INTERNAL;
		if (!is_label && type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
			continue;
		name = elf_strptr(f->elf, tsh->sh_link, sym.st_name);
		if (!name)
			continue;
		if (arm && is_arm_mapping_symbol(name))
			continue;
		if (sym.st_shndx == SHN_ABS || sym.st_shndx >= SHN_LORESERVE)
			continue;
		sec = elf_getscn(f->elf, sym.st_shndx);
		if (!sec || !gelf_getshdr(sec, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		sname = elf_sec_name(f, &sh);
		if (is_label && !strstr(sname, "text") && !strstr(sname, "data"))
			continue;
		if (f->eh.e_machine == EM_ARM && type == STT_FUNC && (sym.st_value & 1))
			sym.st_value--;
		/* user-space DSOs: symbols in file offsets (perf's adjust_symbols) */
		if (elf_symtab_load_bias(t, sym.st_value, &bias) == 0)
			sym.st_value -= bias;
		else
			sym.st_value -= sh.sh_addr - sh.sh_offset;
		rc = elf_symtab_add(t, sym.st_value, sym.st_size, GELF_ST_BIND(sym.st_info), type,
				    elf_demangle(name, flags, demangled, sizeof(demangled)));
		if (rc < 0)
			return rc;
	}
	elf_symtab_fixup(t, 0);
	return 0;
}

void elf_symtab_note_max_len(struct elf_symtab *t)
{
	t->max_len = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->syms[i].end - t->syms[i].start > t->max_len)
			t->max_len = t->syms[i].end - t->syms[i].start;
}

static void read_loads(struct elf_file *f, struct elf_symtab *t)
{
	uint64_t end = 0; /* where the previous segment's bytes would end in the file */
	size_t n;

	t->nloads = 0;
	if (elf_getphdrnum(f->elf, &n))
		return;
	for (size_t i = 0; i < n && t->nloads < sizeof(t->loads) / sizeof(t->loads[0]); i++) {
		GElf_Phdr ph;
		uint64_t off;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		off = ph.p_offset;
		if (!ph.p_filesz && ph.p_memsz) {
			/* a segment of a separate debug file holds no bytes, and strip tools
			 * zero or shift its offset. Without the mapped file, rebuild the layout
			 * a linker makes: after the previous segment, at an offset congruent to
			 * the address modulo the alignment (a page at least) */
			uint64_t a = ph.p_align > 4096 ? ph.p_align : 4096;

			off = end + ((ph.p_vaddr % a) - (end % a) + a) % a;
		}
		t->loads[t->nloads].off = off;
		t->loads[t->nloads].vaddr = ph.p_vaddr;
		t->loads[t->nloads].size = ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz;
		end = off + t->loads[t->nloads].size;
		t->nloads++;
	}
}

uint64_t elf_symtab_vaddr(const struct elf_symtab *t, uint64_t off)
{
	for (unsigned i = 0; i < t->nloads; i++)
		if (off >= t->loads[i].off && off - t->loads[i].off < t->loads[i].size)
			return off - t->loads[i].off + t->loads[i].vaddr;
	return UINT64_MAX;
}

int elf_symtab_loads_from(struct elf_symtab *t, const char *runtime)
{
	struct elf_file f;
	char msg[64];

	if (elf_file_open(runtime, &f, msg, sizeof(msg)) < 0)
		return -PMT_EIO;
	read_loads(&f, t);
	t->loads_given = 1;
	elf_file_close(&f);
	return 0;
}

static void read_ids(struct elf_file *f, struct elf_symtab *t)
{
	t->machine = f->eh.e_machine;
	if (!t->loads_given)
		read_loads(f, t);
	read_build_id(f, t);
	read_debuglink(f, t);
}

int elf_read_ids(const char *path, struct elf_symtab *t)
{
	struct elf_file f;
	char msg[64];
	int rc = elf_file_open(path, &f, msg, sizeof(msg));

	if (rc < 0)
		return rc;
	read_ids(&f, t);
	elf_file_close(&f);
	return 0;
}

int elf_symtab_load(const char *path, struct elf_symtab *t, unsigned flags, char *msg,
		    size_t cap)
{
	struct elf_file f;
	GElf_Shdr symsh, dynsh;
	Elf_Scn *sym, *dyn;
	int rc = elf_file_open(path, &f, msg, cap);

	if (rc < 0)
		return rc;
	read_ids(&f, t);
	sym = elf_section_by_name(&f, ".symtab", &symsh, NULL);
	if (sym && symsh.sh_type != SHT_SYMTAB)
		sym = NULL;
	dyn = elf_section_by_name(&f, ".dynsym", &dynsh, NULL);
	if (dyn && dynsh.sh_type != SHT_DYNSYM)
		dyn = NULL;
	t->has_symtab = sym != NULL;
	if (f.eh.e_type == ET_REL) {
		GElf_Shdr tsh;

		if (elf_section_by_name(&f, ".text", &tsh, NULL))
			t->rel_text_off = tsh.sh_offset;
	}
	if (sym)
		rc = load_table(&f, sym, &symsh, t, flags);
	if (rc >= 0 && dyn && (!sym || (flags & ELF_LOAD_BOTH)))
		rc = load_table(&f, dyn, &dynsh, t, flags);
	if (rc >= 0 && dyn && (flags & ELF_LOAD_PLT))
		rc = elf_synthesize_plt(&f, t, flags);
	if (rc < 0)
		snprintf(msg, cap, "%s: out of memory reading its symbols", path);
	elf_symtab_note_max_len(t);
	elf_file_close(&f);
	return rc;
}

int elf_symtab_add_plt(const char *path, struct elf_symtab *t, unsigned flags)
{
	struct elf_file f;
	GElf_Shdr dynsh;
	char msg[64];
	int rc = elf_file_open(path, &f, msg, sizeof(msg));

	if (rc < 0)
		return rc;
	if (elf_section_by_name(&f, ".dynsym", &dynsh, NULL) && dynsh.sh_type == SHT_DYNSYM)
		rc = elf_synthesize_plt(&f, t, flags);
	elf_symtab_note_max_len(t);
	elf_file_close(&f);
	return rc;
}

void elf_symtab_fini(struct elf_symtab *t)
{
	free(t->syms);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

/* Symbols can overlap: an object holding smaller ones, or (perf before 6.2) a zero-size
 * symbol stretched over the .plt entries added after it. The innermost symbol, the one
 * starting last, wins; perf's rb-tree search returns whichever such symbol lies on its path
 * down, which depends on the tree's shape (perf 6.1 names _init for some .plt entries). */
const struct sym_entry *elf_symtab_find(const struct elf_symtab *t, uint64_t off)
{
	size_t lo = 0, hi = t->n;

	/* past the last symbol starting at or below off */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct sym_entry *s = &t->syms[i];

		if (off - s->start > t->max_len)
			break;
		if (off < s->end || off == s->start)
			return s;
	}
	return NULL;
}

int pmt_symbols_list_file(const char *path,
			  int (*fn)(uint64_t start, uint64_t end, const char *name, void *ctx),
			  void *ctx, struct pmt_diag *diag)
{
	struct elf_symtab t = { 0 };
	char msg[sizeof(diag->msg)] = "";
	int rc = elf_symtab_load(path, &t, ELF_LOAD_PLT | ELF_LOAD_PLT_HEADER | ELF_LOAD_BOTH |
				 ELF_LOAD_PLT_GOT, msg, sizeof(msg));

	if (rc < 0) /* the loader's message names the file already */
		pmt_diag_set(diag, rc, NULL, PMT_DIAG_NO_OFFSET, "%s", msg);
	for (size_t i = 0; rc >= 0 && i < t.n; i++)
		rc = fn(t.syms[i].start, t.syms[i].end, t.names + t.syms[i].name, ctx);
	if (rc >= 0)
		rc = (int)t.n;
	elf_symtab_fini(&t);
	return rc;
}

int pmt_symbols_file_build_id(const char *path, uint8_t *id, size_t *size)
{
	struct elf_symtab t = { 0 };
	int rc = elf_read_ids(path, &t);

	*size = 0;
	if (rc < 0)
		return rc;
	memcpy(id, t.build_id, t.build_id_size);
	*size = t.build_id_size;
	return 0;
}
