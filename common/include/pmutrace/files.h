/* pmutrace common: reading a whole input (mapped or read) and the output file that never
 * destroys anything (temporary file, renamed on commit). */
#ifndef PMUTRACE_FILES_H
#define PMUTRACE_FILES_H

#include <stdint.h>
#include <stdio.h>

#include "pmutrace/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- files -----------------------------------------------------------------------------*/
/* Read-only view of a whole file: mmap when possible, else read into memory ("-" = stdin,
 * pipes, devices), at most PMT_STREAM_READ_MAX bytes of it. Returns 0, or -PMT_EIO or
 * -PMT_ERANGE (too large to read into memory) with diag (may be NULL) naming the file. */
#define PMT_STREAM_READ_MAX (256u << 20)
struct pmt_file_map {
	const uint8_t *data;
	size_t size;
	int mapped; /* 1 = mmap, 0 = heap */
};
PMT_API int pmt_file_map(const char *path, struct pmt_file_map *m, struct pmt_diag *diag);
PMT_API void pmt_file_unmap(struct pmt_file_map *m);
/* An output file that never destroys anything: open() refuses a path that is the same
 * file as one of `inputs` (device and inode: symlinks and hard links too; "-" is stdin)
 * and otherwise writes to a temporary ".NAME.XXXXXX" in the target's folder; commit()
 * flushes, fsyncs and renames it over the target; abort() (or a SIGINT, SIGTERM, SIGHUP,
 * SIGPIPE) removes it, leaving any previous file untouched. "-" or NULL is stdout; a
 * device or FIFO is written directly. Write through `fp`. */
struct pmt_out_file {
	FILE *fp;
	int fd;
	const char *name; /* the caller's path, for messages */
	char *path; /* the target (NULL for stdout) */
	char *tmp;  /* the temporary file, NULL when writing directly */
	int slot;   /* private: signal-cleanup slot */
};
PMT_API int pmt_out_file_open(struct pmt_out_file *f, const char *path,
			      const char *const *inputs, size_t n_inputs, struct pmt_diag *diag);
PMT_API int pmt_out_file_commit(struct pmt_out_file *f, struct pmt_diag *diag);
PMT_API void pmt_out_file_abort(struct pmt_out_file *f);


#ifdef __cplusplus
}
#endif
#endif
