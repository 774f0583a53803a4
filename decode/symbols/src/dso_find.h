/* Finding a mapped file's symbols on this machine (dso_find.c). */
#ifndef PMT_DSO_FIND_H
#define PMT_DSO_FIND_H
#include <limits.h>

#include "symbols_int.h"

struct dso_want {
	const char *path;          /* as the trace names it */
	const uint8_t *build_id;   /* NULL/0: unknown, any file of that name will do */
	size_t build_id_size;
	const char *symfs;         /* NULL: / */
	const char *buildid_dir;   /* NULL or "": no build-id cache */
	unsigned load_flags;       /* ELF_LOAD_* for the perf version to follow */
	/* files the trace carries (a container's embedded ELF files): looked at first */
	const struct bundled *bundled;
	size_t nbundled;
	/* the last resort by build-id (debuginfod): 1 with the file at path, else 0 with why */
	int (*fetch)(void *ctx, const uint8_t *bid, size_t n, int executable, char *path,
		     size_t path_size, char *why, size_t why_size);
	void *fetch_ctx;
};

struct bundled {
	char *name;                /* the path the trace's mappings name */
	uint8_t id[PMT_BUILD_ID_MAX], id_size;
	char path[32];             /* where its bytes are: /proc/self/fd/N of a memfd */
	int fd;
	uint64_t size;
	int symbols_only;          /* --bundle=symbols: no code bytes in it */
};

/* A compressed module (NAME.ko.xz, .ko.zst, .ko.gz) decompressed into a memfd: 1 with its
 * /proc/self/fd path in out, 0 when path is not one (read it as it is), < 0 when it cannot
 * be decompressed (a warning names it). decompress.c. */
int dso_decompressed(const char *path, char *out, size_t cap);

struct dso_found {
	char path[PATH_MAX];       /* the file the symbols came from */
	char runtime[PATH_MAX];    /* the file with the code bytes ("" when none was found) */
	uint8_t mismatch;          /* a file of that name with another build-id was seen */
	char mismatch_path[PATH_MAX];
	char error[256];           /* a file that was there but could not be read */
	char fetch_error[320];     /* why the build-id's server had nothing */
	uint8_t symbols_only;      /* the symbols came from a copy without code (--bundle=symbols) */
	char frames[PATH_MAX];     /* that copy, whose call frame tables unwind the file when no
				    * runtime file is here ("" otherwise) */
};

/* 1: symbols loaded into t (found says from where); 0: nothing usable (found says why). */
int dso_find_and_load(const struct dso_want *w, struct elf_symtab *t, struct dso_found *found);
#endif
