/* Where a mapped file's symbols come from, in perf's order of binary types: the build-id
 * cache, the distribution's debug directory by build-id, the file itself (under --symfs),
 * its debug copy by path; then, if what was found has no .symtab, its .gnu_debuglink. A
 * file whose build-id differs from the one the trace recorded is never used. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dso_find.h"

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

static int is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Try one candidate: it must exist, be ELF, and carry the wanted build-id if one is known.
 * 1 = loaded into t, 0 = not this one. A debug file (plt 0) is placed by the program
 * headers of `runtime`, the mapped file, when one was found (NULL: its own). */
static int try_path(const char *path, const struct dso_want *w, struct elf_symtab *t,
		    struct dso_found *found, int plt, const char *runtime)
{
	char msg[256], plain[32];
	struct elf_symtab probe = { 0 };
	int rc;

	if (!is_file(path))
		return 0;
	rc = dso_decompressed(path, plain, sizeof(plain));
	if (rc < 0)
		return 0;
	if (rc)
		path = plain;
	if (w->build_id_size) {
		if (elf_read_ids(path, &probe) < 0)
			return 0;
		if (probe.build_id_size < w->build_id_size ||
		    memcmp(probe.build_id, w->build_id, w->build_id_size)) {
			found->mismatch = 1;
			snprintf(found->mismatch_path, sizeof(found->mismatch_path), "%s", path);
			return 0;
		}
	}
	if (!plt && runtime && elf_symtab_loads_from(t, runtime) < 0)
		elf_symtab_fini(t);
	if (elf_symtab_load(path, t,
			    plt ? w->load_flags : w->load_flags & ~(unsigned)(ELF_LOAD_PLT | ELF_LOAD_PLT_HEADER),
			    msg, sizeof(msg)) < 0) {
		snprintf(found->error, sizeof(found->error), "%s", msg);
		elf_symtab_fini(t);
		return 0;
	}
	snprintf(found->path, sizeof(found->path), "%s", path);
	if (plt) /* a runtime file, not a debug one: it has the code */
		snprintf(found->runtime, sizeof(found->runtime), "%s", path);
	return 1;
}

/* .gnu_debuglink: next to the file, in its .debug/, and under the debug directory (perf's
 * debuglink_paths) */
static int try_debuglink(const char *runtime, const struct dso_want *w, const char *link,
			 struct elf_symtab *t, struct dso_found *found)
{
	char p[PATH_MAX];
	const char *slash = strrchr(runtime, '/'), *oslash = strrchr(w->path, '/');
	int n = slash ? (int)(slash - runtime) : 0, on = oslash ? (int)(oslash - w->path) : 0;

	snprintf(p, sizeof(p), "%.*s/%s", n, runtime, link);
	if (strcmp(p, runtime) && try_path(p, w, t, found, 0, runtime))
		return 1;
	snprintf(p, sizeof(p), "%.*s/.debug/%s", n, runtime, link);
	if (try_path(p, w, t, found, 0, runtime))
		return 1;
	snprintf(p, sizeof(p), "%s/usr/lib/debug%.*s/%s", w->symfs ? w->symfs : "", on, w->path,
		 link);
	return try_path(p, w, t, found, 0, runtime);
}

/* The file with the code bytes (.plt entries, annotate) when the symbols came from a file
 * without them: the build-id cache's elf, the path itself with the same build-id, then a
 * debuginfod server's executable. bid: the build-id in hex, NULL when unknown. */
static int find_runtime(const struct dso_want *w, const char *bid, char *rt, size_t cap)
{
	struct elf_symtab probe = { 0 };
	char why[320];

	if (bid && w->buildid_dir && *w->buildid_dir) {
		snprintf(rt, cap, "%s/.build-id/%.2s/%s/elf", w->buildid_dir, bid, bid + 2);
		if (is_file(rt))
			return 1;
	}
	snprintf(rt, cap, "%s%s", w->symfs ? w->symfs : "", w->path);
	if (is_file(rt) && elf_read_ids(rt, &probe) == 0 &&
	    (!w->build_id_size || (probe.build_id_size >= w->build_id_size &&
				   !memcmp(probe.build_id, w->build_id, w->build_id_size))))
		return 1;
	return bid && w->fetch &&
	       w->fetch(w->fetch_ctx, w->build_id, w->build_id_size, 1, rt, cap, why, sizeof(why));
}

/* The mapped file for a debug file's placement: looked for once, when a debug file is */
struct runtime_once {
	int tried;
	char path[PATH_MAX];
	const char *found; /* path, or NULL */
};

static const char *runtime_for_debug(const struct dso_want *w, const char *bid,
				     struct runtime_once *r)
{
	if (!r->tried) {
		r->tried = 1;
		r->found = find_runtime(w, bid, r->path, sizeof(r->path)) ? r->path : NULL;
	}
	return r->found;
}

/* A debug file, placed by the mapped file's program headers when there is one */
static int try_debug(const char *p, const struct dso_want *w, struct elf_symtab *t,
		     struct dso_found *found, const char *bid, struct runtime_once *rt)
{
	return is_file(p) && try_path(p, w, t, found, 0, runtime_for_debug(w, bid, rt));
}

/* The symbols of the file loaded in t (found->path) from a debug file, a .gnu_debuglink
 * name (link) or a path: t is replaced when that file has a .symtab, and keeps the file's
 * build-id and .plt entries. */
static void take_debug_symtab(const struct dso_want *w, struct elf_symtab *t,
			      struct dso_found *found, const char *debug, int link)
{
	struct elf_symtab dbg = { 0 };
	struct dso_found dfound;
	char runtime[PATH_MAX];
	int ok;

	memset(&dfound, 0, sizeof(dfound));
	snprintf(runtime, sizeof(runtime), "%s", found->path);
	ok = link ? try_debuglink(runtime, w, debug, &dbg, &dfound)
		  : is_file(debug) && try_path(debug, w, &dbg, &dfound, 0, runtime);
	if (!ok || !dbg.has_symtab) {
		elf_symtab_fini(&dbg);
		return;
	}
	dbg.build_id_size = t->build_id_size;
	memcpy(dbg.build_id, t->build_id, sizeof(dbg.build_id));
	elf_symtab_fini(t);
	*t = dbg;
	elf_symtab_add_plt(runtime, t, w->load_flags);
	snprintf(found->path, sizeof(found->path), "%s", dfound.path);
}

/* A file without a .symtab (stripped, or a copy the trace carries with its own tables only)
 * takes the one of the debug file its build-id names here: the build-id cache's, then the
 * distribution's, as perf looks for them */
static void debug_by_build_id(const struct dso_want *w, struct elf_symtab *t,
			      struct dso_found *found)
{
	char bid[2 * PMT_BUILD_ID_MAX + 1], p[PATH_MAX];

	if (t->has_symtab || !t->build_id_size)
		return;
	hex(t->build_id, t->build_id_size, bid);
	if (w->buildid_dir && *w->buildid_dir) {
		snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s/debug", w->buildid_dir, bid, bid + 2);
		take_debug_symtab(w, t, found, p, 0);
	}
	snprintf(p, sizeof(p), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
		 w->symfs ? w->symfs : "", bid, bid + 2);
	if (!t->has_symtab)
		take_debug_symtab(w, t, found, p, 0);
}

int dso_find_and_load(const struct dso_want *w, struct elf_symtab *t, struct dso_found *found)
{
	char bid[2 * PMT_BUILD_ID_MAX + 1], p[PATH_MAX];
	const char *symfs = w->symfs ? w->symfs : "";
	int ok = 0, debug_only = 0;
	struct runtime_once rt = { 0 };
	const char *bidp = w->build_id_size ? bid : NULL;

	memset(found, 0, sizeof(*found));
	if (w->build_id_size)
		hex(w->build_id, w->build_id_size, bid);
	/* the trace's own copy: by build-id, or by name when the mapping has none; a whole
	 * file before a symbols-only one of the same build-id */
	for (int pass = 0; !ok && pass < 2; pass++) {
		for (size_t i = 0; !ok && i < w->nbundled; i++) {
			const struct bundled *b = &w->bundled[i];

			if (b->symbols_only != pass)
				continue;
			if (w->build_id_size ? b->id_size >= w->build_id_size &&
						       !memcmp(b->id, w->build_id, w->build_id_size)
					     : !strcmp(b->name, w->path))
				ok = try_path(b->path, w, t, found, 1, NULL);
		}
		if (ok && pass) {
			/* its symbols and .plt are there, its code is not: take the code
			 * bytes from a file with the same build-id if one is here */
			found->runtime[0] = 0;
			found->symbols_only = 1;
			/* before a debug file takes the symbols' place in path */
			snprintf(found->frames, sizeof(found->frames), "%s", found->path);
			if (w->build_id_size)
				hex(w->build_id, w->build_id_size, bid);
			if (find_runtime(w, w->build_id_size ? bid : NULL, p, sizeof(p)))
				snprintf(found->runtime, sizeof(found->runtime), "%s", p);
			debug_by_build_id(w, t, found);
			return 1;
		}
	}
	if (ok)
		goto loaded;
	if (w->build_id_size) {
		hex(w->build_id, w->build_id_size, bid);
		if (w->buildid_dir && *w->buildid_dir) {
			/* perf buildid-cache: DIR/.build-id/xx/rest/{elf,debug} */
			snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s/debug", w->buildid_dir, bid,
				 bid + 2);
			ok = debug_only = try_debug(p, w, t, found, bidp, &rt);
			if (!ok) {
				snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s/elf", w->buildid_dir,
					 bid, bid + 2);
				ok = try_path(p, w, t, found, 1, NULL);
			}
			if (!ok) {
				/* perf record keeps the vdso image it read from its own process
				 * under this name */
				snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s/vdso", w->buildid_dir,
					 bid, bid + 2);
				ok = try_path(p, w, t, found, 1, NULL);
			}
		}
		if (!ok) {
			snprintf(p, sizeof(p), "%s/usr/lib/debug/.build-id/%.2s/%s.debug", symfs,
				 bid, bid + 2);
			ok = debug_only = try_debug(p, w, t, found, bidp, &rt);
		}
	}
	/* by path: a file's ([vdso] is no path) */
	if (!ok && w->path[0] == '/') {
		snprintf(p, sizeof(p), "%s%s", symfs, w->path);
		ok = try_path(p, w, t, found, 1, NULL);
	}
	if (!ok && w->path[0] == '/') {
		snprintf(p, sizeof(p), "%s/usr/lib/debug%s.debug", symfs, w->path);
		ok = debug_only = try_debug(p, w, t, found, bidp, &rt);
	}
	if (!ok && w->path[0] == '/') {
		snprintf(p, sizeof(p), "%s/usr/lib/debug%s", symfs, w->path);
		ok = debug_only = try_debug(p, w, t, found, bidp, &rt);
	}
	/* a server by build-id only when nothing here has the file: a download is slow, and
	 * the build-id makes any copy found locally the same file */
	if (!ok && w->fetch && w->build_id_size) {
		if (w->fetch(w->fetch_ctx, w->build_id, w->build_id_size, 0, p, sizeof(p),
			     found->fetch_error, sizeof(found->fetch_error)))
			ok = debug_only = try_debug(p, w, t, found, bidp, &rt);
		if (!ok && w->fetch(w->fetch_ctx, w->build_id, w->build_id_size, 1, p, sizeof(p),
				    found->fetch_error, sizeof(found->fetch_error)))
			ok = try_path(p, w, t, found, 1, NULL);
	}
	if (!ok)
		return 0;
	if (debug_only) {
		/* a debug file's .plt has no bytes: perf names the entries from the runtime
		 * file (runtime_ss), found where the file itself would be */
		const char *run = runtime_for_debug(w, bidp, &rt);

		if (run) {
			elf_symtab_add_plt(run, t, w->load_flags);
			snprintf(found->runtime, sizeof(found->runtime), "%s", run);
		}
		return 1;
	}
loaded:
	/* a stripped file: its symbols are in the debug file it names, else (perf reads a
	 * file's own build-id when the trace recorded none) in the one its build-id names */
	if (!t->has_symtab && t->debuglink[0])
		take_debug_symtab(w, t, found, t->debuglink, 1);
	debug_by_build_id(w, t, found);
	return 1;
}
