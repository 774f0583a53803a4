/* Address spaces from the sideband, and the files behind them, read once each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "debuginfod.h"
#include "dso_find.h"
#include "srcline.h"
#include "symbols_state.h"
#include "pmutrace/perf_abi.h"

static uint64_t hash_str(const char *s, const uint8_t *b, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

int pmt_symbols_new(const struct pmt_symbols_opts *o, struct pmt_symbols **out)
{
	struct pmt_symbols *s;
	const char *home = getenv("HOME");

	if (!out || (o && o->sz < offsetof(struct pmt_symbols_opts, buildid_dir) +
				  sizeof(o->buildid_dir)))
		return -PMT_EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -PMT_ENOMEM;
	s->dso_cap = 256;
	s->load_flags = ELF_LOAD_PLT;
	if (!o || !PMT_OPTS_HAS(o, compat) || !o->compat || o->compat >= 602)
		s->load_flags |= ELF_LOAD_PLT_HEADER | ELF_LOAD_BOTH;
	/* "perf symbols: Add symbols for .plt.got" came after 6.1 (none) and before 7.3
	 * (checked: libc's malloc@plt); taken as 6.3's, not pinned to a binary */
	if (!o || !PMT_OPTS_HAS(o, compat) || !o->compat || o->compat >= 603)
		s->load_flags |= ELF_LOAD_PLT_GOT;
	if (!o || !PMT_OPTS_HAS(o, no_demangle) || !o->no_demangle)
		s->load_flags |= ELF_LOAD_DEMANGLE;
	/* perf 6.1 checked (bare names), 7.3 checked (signatures); the switch to
	 * abi::__cxa_demangle came in between and is not pinned: taken as 6.2's */
	if (!o || !PMT_OPTS_HAS(o, compat) || !o->compat || o->compat >= 602)
		s->load_flags |= ELF_LOAD_DEMANGLE_PARAMS;
	/* perf 6.1 runs binutils' addr2line (2.40 on its Debian, checked) on every file; 7.3
	 * libdw, and addr2line only on a file with .debug_line */
	s->bfd240_files = o && PMT_OPTS_HAS(o, compat) && o->compat && o->compat < 602;
	s->dso_hash = calloc(s->dso_cap, sizeof(*s->dso_hash));
	if (o && o->symfs && *o->symfs) {
		/* perf strips a trailing slash so symfs + "/usr/..." stays one path */
		size_t n = strlen(o->symfs);

		while (n > 1 && o->symfs[n - 1] == '/')
			n--;
		s->symfs = strndup(o->symfs, n);
	}
	if (o && PMT_OPTS_HAS(o, kallsyms) && o->kallsyms &&
	    !(s->kallsyms = strdup(o->kallsyms))) {
		pmt_symbols_free(s);
		return -PMT_ENOMEM;
	}
	if (o && PMT_OPTS_HAS(o, vmlinux) && o->vmlinux && !(s->vmlinux = strdup(o->vmlinux))) {
		pmt_symbols_free(s);
		return -PMT_ENOMEM;
	}
	if (o && o->buildid_dir)
		s->buildid_dir = strdup(o->buildid_dir);
	else if (home) {
		s->buildid_dir = malloc(strlen(home) + sizeof("/.debug"));
		if (s->buildid_dir)
			strcat(strcpy(s->buildid_dir, home), "/.debug");
	}
	if (!s->dso_hash || (o && o->symfs && *o->symfs && !s->symfs)) {
		pmt_symbols_free(s);
		return -PMT_ENOMEM;
	}
	s->dbgd = dbgd_new(o && PMT_OPTS_HAS(o, debuginfod) ? o->debuginfod : NULL);
	*out = s;
	return 0;
}

void pmt_symbols_free(struct pmt_symbols *s)
{
	if (!s)
		return;
	unwinder_free(s->unwind);
	dbgd_free(s->dbgd);
	for (size_t i = 0; i < s->dso_cap; i++) {
		for (struct dso *d = s->dso_hash[i], *nx; d; d = nx) {
			nx = d->next;
			elf_symtab_fini(&d->tab);
			srcline_close(&d->lines);
			if (d->code_map_state > 0)
				pmt_file_unmap(&d->code_map);
			free(d->sym_path);
			free(d->code_path);
			free(d->frames_path);
			free(d->kmod_name);
			free(d->name);
			free(d);
		}
	}
	for (size_t i = 0; i < s->proc_cap; i++)
		if (s->procs[i].pid != FREE_ID) {
			free(s->procs[i].maps);
			free(s->procs[i].forks);
		}
	for (size_t i = 0; i < s->thr_cap; i++)
		if (s->threads[i].tid != FREE_ID) {
			for (uint32_t k = 0; k < s->threads[i].ncomms; k++)
				free(s->threads[i].comms[k].name);
			free(s->threads[i].comms);
		}
	for (size_t i = 0; i < s->nbundled; i++) {
		free(s->bundled[i].name);
		close(s->bundled[i].fd);
	}
	free(s->bundled);
	for (size_t i = 0; i < s->nbids; i++)
		free(s->bids[i].name);
	free(s->bids);
	free(s->procs);
	free(s->threads);
	free(s->dso_hash);
	free(s->symfs);
	free(s->buildid_dir);
	free(s->kallsyms);
	free(s->vmlinux);
	free(s);
}

struct dso *dso_get(struct pmt_symbols *s, const char *name, const uint8_t *bid,
			   size_t bid_size)
{
	uint64_t h = hash_str(name, bid, bid_size) & (s->dso_cap - 1);
	struct dso *d;
	const char *slash;

	for (d = s->dso_hash[h]; d; d = d->next)
		if (d->build_id_size == bid_size && (!bid_size || !memcmp(d->build_id, bid, bid_size)) &&
		    !strcmp(d->name, name))
			return d;
	d = calloc(1, sizeof(*d));
	if (!d || !(d->name = strdup(name))) {
		free(d);
		return NULL;
	}
	slash = strrchr(d->name, '/');
	d->short_name = slash ? slash + 1 : d->name;
	d->build_id_size = (uint8_t)bid_size;
	if (bid_size)
		memcpy(d->build_id, bid, bid_size);
	/* perf makes the build-id table's dsos first (with the header), then as mapped: the
	 * order of their addresses, which orders call-chain siblings (match_chain) */
	d->order = (uint32_t)s->nbids + s->dsos_seen;
	for (size_t i = 0; i < s->nbids && d->order >= s->nbids; i++)
		d->order = strcmp(s->bids[i].name, name) ? d->order : (uint32_t)i;
	s->dsos_seen += d->order >= s->nbids;
	d->next = s->dso_hash[h];
	s->dso_hash[h] = d;
	return d;
}

/* What the trace's build-id table says name's build-id is (*size stays 0 when it has none) */
void recorded_build_id(const struct pmt_symbols *s, const char *name,
			      const uint8_t **id, size_t *size)
{
	for (size_t i = 0; i < s->nbids; i++) {
		if (!strcmp(s->bids[i].name, name)) {
			*id = s->bids[i].id;
			*size = s->bids[i].size;
			return;
		}
	}
}

int pmt_symbols_add_build_id(struct pmt_symbols *s, const char *filename,
			     const uint8_t *build_id, size_t build_id_size)
{
	struct known_bid *b;

	if (!s || !filename || !build_id || build_id_size > PMT_BUILD_ID_MAX)
		return -PMT_EINVAL;
	s->version++;
	b = realloc(s->bids, (s->nbids + 1) * sizeof(*b));
	if (!b)
		return -PMT_ENOMEM;
	s->bids = b;
	b += s->nbids;
	if (!(b->name = strdup(filename)))
		return -PMT_ENOMEM;
	memcpy(b->id, build_id, build_id_size);
	b->size = (uint8_t)build_id_size;
	s->nbids++;
	return 0;
}

/* A kernel map of a module file (perf's is_kernel_module: NAME.ko, also compressed) gets
 * perf's short name, "[NAME]" with '-' as '_' (kmod_path__parse). 0 or -PMT_ENOMEM. */
int mark_module(struct pmt_symbols *s, const char *path, const uint8_t *bid,
		       size_t bid_size)
{
	static const char *const ext[] = { ".ko", ".ko.gz", ".ko.xz", ".ko.zst", ".ko.bz2" };
	const char *base = strrchr(path, '/');
	size_t n, len = strlen(path);
	struct dso *d;

	if (bid_size > PMT_BUILD_ID_MAX)
		return 0; /* pmt_symbols_add_map refuses the map */
	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		n = strlen(ext[i]);
		if (len > n && !strcmp(path + len - n, ext[i]) && base < path + len - n)
			break;
		n = 0;
	}
	if (!n)
		return 0;
	if (!bid_size)
		recorded_build_id(s, path, &bid, &bid_size);
	d = dso_get(s, path, bid, bid_size);
	if (!d)
		return -PMT_ENOMEM;
	if (d->kmod_name)
		return 0;
	d->kmod_name = malloc((size_t)(path + len - n - base) + 3);
	if (!d->kmod_name)
		return -PMT_ENOMEM;
	sprintf(d->kmod_name, "[%.*s]", (int)(path + len - n - base), base);
	for (char *c = d->kmod_name; *c; c++)
		if (*c == '-')
			*c = '_';
	d->short_name = d->kmod_name;
	return 0;
}

static int fetch(void *ctx, const uint8_t *bid, size_t n, int executable, char *path,
		 size_t path_size, char *why, size_t why_size)
{
	return dbgd_fetch(ctx, bid, n, executable ? DBGD_EXECUTABLE : DBGD_DEBUGINFO, path,
			  path_size, why, why_size);
}

/* The kernel's symbols as perf's dso__load_kernel_sym looks for them when told where:
 * --kallsyms first, else --vmlinux (and nothing else when that one is refused). The
 * kernel's build-id is its MMAP2's, else the trace's build-id table's. */
static void load_kernel(struct pmt_symbols *s, struct dso *d)
{
	const uint8_t *bid = d->kernel_bid;
	size_t bid_size = d->kernel_bid_size;
	char msg[512];
	int rc;

	char found_at[PATH_MAX];
	const char *kallsyms = s->kallsyms;

	if (!bid_size)
		recorded_build_id(s, "[kernel.kallsyms]", &bid, &bid_size);
	/* without --kallsyms or --vmlinux, as perf: this machine's kallsyms when it runs the
	 * recorded kernel (by build-id), or perf's cached copy; no build-id: none (perf would
	 * take whatever kernel this machine runs, not the recording's) */
	if (!kallsyms && !s->vmlinux && bid_size &&
	    kallsyms_find(bid, bid_size, s->buildid_dir, found_at, sizeof(found_at)))
		kallsyms = found_at;
	if (!kallsyms && !s->vmlinux)
		return;
	rc = kallsyms ? kallsyms_load(kallsyms, d->text_addr, &d->tab, msg, sizeof(msg))
			 : vmlinux_load(s->vmlinux, d->text_addr, bid, bid_size, s->load_flags,
					&d->tab, msg, sizeof(msg));
	if (rc < 0) {
		pmt_warn("kernel symbols: %s", msg);
		elf_symtab_fini(&d->tab);
		return;
	}
	d->state = 1;
}

static void load_dso(struct pmt_symbols *s, struct dso *d)
{
	struct dso_want w = { d->name, d->build_id, d->build_id_size, s->symfs, s->buildid_dir,
			      s->load_flags, s->bundled, s->nbundled, s->dbgd ? fetch : NULL,
			      s->dbgd };
	struct dso_found found;

	d->state = -1;
	if (d->kernel) {
		load_kernel(s, d);
		return;
	}
	/* pseudo files (//anon, [heap]) are no paths; the vdso is found by its build-id, in
	 * perf's cache, where perf record puts the image */
	if (d->name[0] != '/' && (strcmp(d->name, "[vdso]") || !d->build_id_size))
		return;
	if (dso_find_and_load(&w, &d->tab, &found)) {
		d->state = 1;
		d->sym_path = strdup(found.path);
		d->symbols_only = found.symbols_only;
		if (found.runtime[0])
			d->code_path = strdup(found.runtime);
		else if (found.frames[0])
			d->frames_path = strdup(found.frames);
		return;
	}
	if (found.mismatch)
		pmt_info("%s: build-id differs from the recording's, not used for symbols (%s)",
			 found.mismatch_path, d->name);
	else if (found.error[0])
		pmt_info("no symbols for %s: %s", d->name, found.error);
	else
		pmt_info("no symbols for %s: file not found%s%s%s%s", d->name,
			 s->symfs ? " under --symfs " : "", s->symfs ? s->symfs : "",
			 found.fetch_error[0] ? "; " : "", found.fetch_error);
}

uint64_t pmt_symbols_version(const struct pmt_symbols *s, uint64_t time)
{
	/* maps are taken by time (find_map): a sample older than a map may see another
	 * address space, one after every map sees them all */
	if (!s || (time && time < s->max_map_time))
		return 0;
	return s->version + 1;
}

int pmt_symbols_resolve(struct pmt_symbols *s, int32_t pid, uint64_t ip, uint64_t time,
			struct pmt_sym_loc *out)
{
	const struct proc *p;
	const struct map *m = NULL;
	const struct sym_entry *e;

	if (!s || !out)
		return -PMT_EINVAL;
	memset(out, 0, sizeof(*out));
	out->kernel = ip >> 63; /* perf's cpumode without a kernel map: the upper half */
	out->map_ip = ip;
	p = proc_find(s, out->kernel ? -1 : pid);
	if (p)
		m = find_map(p, ip, time);
	if (!m)
		return 0;
	out->dso = m->dso->name;
	out->dso_short = m->dso->short_name;
	out->dso_id = m->dso;
	out->dso_order = m->dso->order + 1;
	out->map_id = m->id;
	out->map_start = m->start;
	/* the kernel's map is an identity (perf's identity__map_ip): no offset to apply */
	out->map_pgoff = m->dso->kernel ? m->start : m->pgoff;
	if (!m->dso->state)
		load_dso(s, m->dso);
	out->dso_loaded = m->dso->state > 0;
	/* a module's map starts at its .text (perf sets the map's pgoff to its offset) */
	out->map_ip = m->dso->kernel ? ip
				     : ip - m->start + m->pgoff +
					       (m->dso->kmod_name && m->dso->state > 0
							? m->dso->tab.rel_text_off : 0);
	if (m->dso->state < 0 || !(e = elf_symtab_find(&m->dso->tab, out->map_ip)))
		return 0;
	out->sym = m->dso->tab.names + e->name;
	out->sym_start = e->start;
	out->symoff = out->map_ip - e->start;
	out->sym_type = e->type;
	out->sym_id = e;
	return 1;
}

void pmt_symbols_sym_range(const void *sym_id, uint64_t *start, uint64_t *end)
{
	const struct sym_entry *e = sym_id;

	*start = e->start;
	*end = e->end;
}

/* The line tables of d's symbol file, opened when first asked: NULL when there are none */
static struct srcline *dso_lines(struct dso *d)
{
	if (!d->lines_state) {
		d->lines_state = -1;
		if (d->sym_path && srcline_open(&d->lines, d->sym_path) == 0) {
			uint64_t lo = UINT64_MAX;

			for (unsigned i = 0; i < d->tab.nloads; i++)
				if (d->tab.loads[i].vaddr < lo)
					lo = d->tab.loads[i].vaddr;
			d->lines.first_vaddr = lo == UINT64_MAX ? 0 : lo & ~4095ULL;
			d->lines_state = 1;
		}
	}
	return d->lines_state > 0 ? &d->lines : NULL;
}

/* The ELF address of loc in a file with symbols (not the kernel's), else UINT64_MAX */
static uint64_t loc_vaddr(const struct pmt_sym_loc *loc)
{
	const struct dso *d = loc->dso_id;

	if (!d || d->state <= 0 || d->kernel)
		return UINT64_MAX;
	return elf_symtab_vaddr(&d->tab, loc->map_ip);
}

/* the line tables of loc's file, with *vaddr its ELF address; NULL when it has none */
static struct srcline *loc_lines(const struct pmt_symbols *s, const struct pmt_sym_loc *loc,
				 uint64_t *vaddr)
{
	struct srcline *sl;

	*vaddr = loc_vaddr(loc);
	sl = *vaddr == UINT64_MAX ? NULL : dso_lines((struct dso *)loc->dso_id);
	if (sl)
		sl->bfd240_files = s && s->bfd240_files;
	return sl;
}

int pmt_symbols_srcline(struct pmt_symbols *s, const struct pmt_sym_loc *loc,
			const char **file, unsigned *line, uint64_t *vaddr)
{
	struct srcline *sl = loc_lines(s, loc, vaddr);

	return sl ? srcline_find(sl, *vaddr, file, line) : 0;
}

int pmt_symbols_srcline_perf(struct pmt_symbols *s, const struct pmt_sym_loc *loc,
			     const char **file, unsigned *line, uint64_t *vaddr)
{
	struct srcline *sl = loc_lines(s, loc, vaddr);

	return sl ? srcline_find_perf(sl, *vaddr, file, line) : 0;
}


int pmt_symbols_inlines(struct pmt_symbols *s, const struct pmt_sym_loc *loc,
			struct pmt_inline_frame *frames, unsigned max)
{
	uint64_t va = loc ? loc_vaddr(loc) : UINT64_MAX;
	struct srcline *sl;
	bool noline;
	int n;

	if (va == UINT64_MAX || !frames || !(sl = loc_lines(s, loc, &va)))
		return 0;
	n = srcline_inlines(sl, va, s->load_flags, frames, max);
	/* an address without a line (its frames from addr2line, srcline_inlines): its
	 * frames are taken where the holding function is not the symbol (a .cold part,
	 * "__vsyslog_internal (inlined)" in libc's __vsyslog_internal.cold, perf 7.3
	 * checked), elsewhere the symbol's own frame is kept, its line looked up as before */
	noline = n > 0 && !frames[0].file && !frames[0].line;
	if (noline && (!frames[n - 1].func || !loc->sym || !strcmp(frames[n - 1].func, loc->sym)))
		return 0;
	/* perf's new_inline_sym(): a frame by another name than the symbol's is an inlined
	 * one, a frame by its name the symbol itself; only binutils' frames
	 * (srcline_perf_libdw) name the holding function, libdw's take the symbol */
	for (int i = 0; i + 1 < n; i++)
		frames[i].inlined = !frames[i].func || !loc->sym || strcmp(frames[i].func, loc->sym);
	if (n > 0)
		frames[n - 1].inlined = 0;
	if (n > 0 && (unsigned)n < max && frames[n - 1].func && loc->sym &&
	    strcmp(frames[n - 1].func, loc->sym) && (noline || !srcline_perf_libdw(sl, va)))
		frames[n - 1].inlined = 1;
	return n;
}

int pmt_symbols_sym_code(struct pmt_symbols *s, const struct pmt_sym_loc *loc, uint8_t **buf,
			 size_t *len, uint64_t *vaddr, uint16_t *machine)
{
	const struct dso *d = loc->dso_id;
	const struct sym_entry *e = loc->sym_id;
	uint64_t n;
	FILE *fp;
	uint8_t *b;

	(void)s;
	*buf = NULL;
	if (d && e && !d->kernel && !d->code_path && d->symbols_only)
		return -PMT_ENOT_FOUND;
	if (!d || !e || d->kernel || !d->code_path || e->end <= e->start)
		return 0;
	n = e->end - e->start;
	if (n > (64u << 20))
		return 0;
	b = malloc(n);
	if (!b)
		return -PMT_ENOMEM;
	fp = fopen(d->code_path, "rb");
	if (!fp || fseeko(fp, (off_t)e->start, SEEK_SET) || fread(b, 1, n, fp) != n) {
		if (fp)
			fclose(fp);
		free(b);
		return 0;
	}
	fclose(fp);
	*buf = b;
	*len = n;
	*vaddr = elf_symtab_vaddr(&d->tab, e->start);
	*machine = d->tab.machine;
	return 1;
}
