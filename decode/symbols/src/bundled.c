/* Files a container carries (record --bundle, convert --bundle): each held in a memfd so
 * libelf, libdw and the code reader take it by path, found before any file on disk. */
#define _GNU_SOURCE /* memfd_create */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols_state.h"
#include "pmutrace/symbols.h"

/* One embedded file into a memfd, so libelf, libdw and the code reader take it by path. */
static int add_bundled(const struct pmt_ctr_file *f, void *ctx)
{
	struct pmt_symbols *s = ctx;
	struct bundled *b;
	void *data;
	size_t len;
	int fd, rc;

	if (f->kind != PMT_CTR_FILE_ELF && f->kind != PMT_CTR_FILE_KALLSYMS &&
	    f->kind != PMT_CTR_FILE_ELF_SYMBOLS)
		return 0;
	rc = pmt_ctr_file_read(f, &data, &len);
	if (rc < 0) {
		pmt_warn("embedded file %s at offset 0x%llx: %s; not used", f->name,
			 (unsigned long long)f->offset, pmt_errstr(rc));
		return 0;
	}
	fd = memfd_create("pmutrace-bundled", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
		if (fd >= 0)
			close(fd);
		free(data);
		pmt_warn("embedded file %s: cannot hold it in memory (%m); not used", f->name);
		return 0;
	}
	free(data);
	if (f->kind == PMT_CTR_FILE_KALLSYMS) {
		char path[32];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!s->kallsyms && !(s->kallsyms = strdup(path))) {
			close(fd);
			return -PMT_ENOMEM;
		}
		/* the fd stays open with the session: keep it in the list, unnamed */
	}
	b = realloc(s->bundled, (s->nbundled + 1) * sizeof(*b));
	if (!b) {
		close(fd);
		return -PMT_ENOMEM;
	}
	s->bundled = b;
	b += s->nbundled;
	memset(b, 0, sizeof(*b));
	b->fd = fd;
	b->size = f->size;
	snprintf(b->path, sizeof(b->path), "/proc/self/fd/%d", fd);
	/* kallsyms is no ELF: a name no mapping has keeps it out of the lookups */
	b->name = strdup(f->kind != PMT_CTR_FILE_KALLSYMS ? f->name : "\001kallsyms");
	b->symbols_only = f->kind == PMT_CTR_FILE_ELF_SYMBOLS;
	if (!b->name) {
		close(fd);
		return -PMT_ENOMEM;
	}
	b->id_size = f->build_id_size;
	memcpy(b->id, f->build_id, f->build_id_size);
	s->nbundled++;
	return 0;
}

int pmt_symbols_add_source_files(struct pmt_symbols *s, struct pmt_source *src)
{
	int rc;

	if (!s || !src)
		return -PMT_EINVAL;
	s->version++;
	rc = pmt_source_files(src, add_bundled, s);
	return rc < 0 ? rc : (int)s->nbundled;
}
