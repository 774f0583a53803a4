/* Fuzz the ELF symbol reader (libelf underneath, then perf's selection rules, .plt naming
 * and the lookup): the bytes go to a memory file that is read as a path. Then the source
 * lines and inlined calls (libdw) at the file's symbols, mapped as a process's file, and
 * the file as the kernel's symbols (--vmlinux). Then
 * the --bundle=symbols reducer on the same bytes, and the reader on what it made. Bytes
 * that start as xz, gzip or zstd data are also read as a compressed module (NAME.ko.xz,
 * .ko.gz, .ko.zst) found under a --symfs. Seeds: a small object file, a small shared
 * library, truncated and corrupted copies, the library compressed three ways. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "pmutrace/container.h"
#include "pmutrace/symbols.h"

static int touch(uint64_t start, uint64_t end, const char *name, void *ctx)
{
	volatile uint64_t *sink = ctx;

	*sink += start ^ end ^ (uint8_t)name[0];
	return 0;
}

struct starts {
	uint64_t at[16];
	unsigned n;
};

static int keep_start(uint64_t start, uint64_t end, const char *name, void *ctx)
{
	struct starts *st = ctx;

	(void)name;
	/* a function's first instruction and one inside, where inlined code often is */
	if (st->n < 15) {
		st->at[st->n++] = start;
		st->at[st->n++] = start + (end - start) / 2;
	}
	return 0;
}

/* Lookups in the file at path: each symbol's start and middle resolved through a mapping
 * of the file, then its line and its inlined calls (DWARF); then the file read as the
 * kernel's (vmlinux) */
static void lookups_in(const char *path)
{
	struct pmt_symbols_opts o = PMT_OPTS_INIT(pmt_symbols_opts, .buildid_dir = "",
						  .debuginfod = "");
	struct pmt_symbols *s;
	struct starts st = { .n = 0 };
	struct pmt_inline_frame fr[8];
	struct pmt_sym_loc loc;
	const char *file;
	unsigned line;
	uint64_t va;

	if (pmt_symbols_list_file(path, keep_start, &st, NULL) <= 0 ||
	    pmt_symbols_new(&o, &s) < 0)
		return;
	if (pmt_symbols_add_map(s, 1, 0x100000, 1ULL << 32, 0, path, NULL, 0, 0) == 0) {
		for (unsigned i = 0; i < st.n; i++) {
			if (pmt_symbols_resolve(s, 1, 0x100000 + st.at[i], 0, &loc) < 0)
				continue;
			pmt_symbols_srcline(s, &loc, &file, &line, &va);
			pmt_symbols_inlines(s, &loc, fr, 8);
			/* the byte before a symbol is often padding without a line row: what
			 * addr2line answers there comes from .symtab (srcline_a2l.c) */
			if (pmt_symbols_resolve(s, 1, 0x100000 + st.at[i] - 1, 0, &loc) >= 0)
				pmt_symbols_srcline_perf(s, &loc, &file, &line, &va);
		}
	}
	pmt_symbols_free(s);
	/* the same file as the kernel's (--vmlinux), mapped where the trace says _text was */
	o.vmlinux = path;
	if (pmt_symbols_new(&o, &s) < 0)
		return;
	struct pmt_trace_event ev = { .kind = PMT_TEV_RECORD, .type = PMT_REC_MMAP };

	ev.u.mmap.pid = UINT32_MAX;
	ev.u.mmap.addr = ev.u.mmap.pgoff = 0xffffffc080000000ULL;
	ev.u.mmap.len = 1ULL << 32;
	ev.u.mmap.filename = "[kernel.kallsyms]_text";
	if (pmt_symbols_add_event(s, &ev) == 0)
		for (unsigned i = 0; i < st.n; i++)
			pmt_symbols_resolve(s, -1, 0xffffffc080000000ULL + st.at[i], 0, &loc);
	pmt_symbols_free(s);
}

static char dir[64];

static void remove_dir(void)
{
	rmdir(dir);
}

/* the bytes as a compressed module under a --symfs: a new name each time, so that the
 * reader's cache of decompressed files does not answer */
static void as_module(const uint8_t *data, size_t size)
{
	static unsigned seq;
	const char *ext = size >= 6 && !memcmp(data, "\xfd" "7zXZ", 6) ? "xz" :
			  size >= 2 && data[0] == 0x1f && data[1] == 0x8b ? "gz" :
			  size >= 4 && !memcmp(data, "\x28\xb5\x2f\xfd", 4) ? "zst" : NULL;
	struct pmt_symbols_opts o = PMT_OPTS_INIT(pmt_symbols_opts, .buildid_dir = "",
						  .debuginfod = "");
	struct pmt_symbols *s;
	struct pmt_sym_loc loc;
	char name[32], path[128];
	FILE *fp;

	if (!ext)
		return;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz-kmod.XXXXXX");
		if (!mkdtemp(dir)) {
			dir[0] = 0;
			return;
		}
		atexit(remove_dir);
	}
	snprintf(name, sizeof(name), "/m%u.ko.%s", seq++, ext);
	snprintf(path, sizeof(path), "%s%s", dir, name);
	fp = fopen(path, "wb");
	if (!fp)
		return;
	fwrite(data, 1, size, fp);
	fclose(fp);
	o.symfs = dir;
	if (pmt_symbols_new(&o, &s) == 0) {
		if (pmt_symbols_add_map(s, 1, 0x100000, 1ULL << 20, 0, name, NULL, 0, 0) == 0)
			pmt_symbols_resolve(s, 1, 0x100400, 0, &loc);
		pmt_symbols_free(s);
	}
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile uint64_t sink = 0;
	char path[64];
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	void *small;
	size_t n;

	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		pmt_symbols_list_file(path, touch, (void *)&sink, NULL);
		lookups_in(path);
	}
	close(fd);
	as_module(data, size);
	if (pmt_ctr_elf_symbols_only(data, size, &small, &n, NULL) == 0) {
		fd = memfd_create("fuzz-elf-small", MFD_CLOEXEC);
		if (fd >= 0 && write(fd, small, n) == (ssize_t)n) {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			pmt_symbols_list_file(path, touch, (void *)&sink, NULL);
		}
		if (fd >= 0)
			close(fd);
		free(small);
	}
	return (int)(sink & 0);
}
