/* Output files that never destroy anything: written to a temporary file beside the target
 * and renamed over it only when complete; an output that is one of the inputs (same device
 * and inode, so also through a symlink or a hard link) is refused before anything is
 * written. A command killed by SIGINT, SIGTERM, SIGHUP or SIGPIPE removes its temporary
 * files; after SIGKILL only a stray ".NAME.XXXXXX" stays in the folder, and the target is
 * either the old file or the complete new one. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmutrace/common.h"

/* Temporary files to remove if a signal ends the process. Fixed slots: the handler may
 * only use async-signal-safe calls (unlink, signal, raise), so no allocation there. */
#define TMP_SLOTS 8
static char tmp_paths[TMP_SLOTS][4096];
static volatile sig_atomic_t tmp_used[TMP_SLOTS];
static int handlers_set;

static void remove_tmp_and_reraise(int sig)
{
	for (int i = 0; i < TMP_SLOTS; i++)
		if (tmp_used[i])
			unlink(tmp_paths[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int tmp_register(const char *path)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

	if (!handlers_set) {
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
			struct sigaction old, sa = { .sa_handler = remove_tmp_and_reraise };

			/* keep a handler or an ignore someone else set */
			if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
				sigaction(sigs[i], &sa, NULL);
		}
		handlers_set = 1;
	}
	for (int i = 0; i < TMP_SLOTS; i++) {
		if (!tmp_used[i] && strlen(path) < sizeof(tmp_paths[i])) {
			strcpy(tmp_paths[i], path);
			tmp_used[i] = 1;
			return i;
		}
	}
	return -1; /* still safe for the target; only a kill would leave the file behind */
}

static void tmp_unregister(int slot)
{
	if (slot >= 0)
		tmp_used[slot] = 0;
}

/* Is `path` the same file as one of the inputs? */
static const char *same_as_input(const struct stat *out, const char *const *inputs,
				 size_t n_inputs)
{
	for (size_t i = 0; i < n_inputs; i++) {
		struct stat in;
		int rc;

		if (!inputs[i])
			continue;
		rc = strcmp(inputs[i], "-") ? stat(inputs[i], &in) : fstat(STDIN_FILENO, &in);
		if (rc == 0 && S_ISREG(in.st_mode) && in.st_dev == out->st_dev &&
		    in.st_ino == out->st_ino)
			return inputs[i];
	}
	return NULL;
}

/* Forget the temporary file, removing it unless it became the target. */
static void release(struct pmt_out_file *f, bool remove_tmp)
{
	if (f->tmp && remove_tmp)
		unlink(f->tmp);
	tmp_unregister(f->slot);
	free(f->tmp);
	free(f->path);
	f->tmp = f->path = NULL;
}

int pmt_out_file_open(struct pmt_out_file *f, const char *path, const char *const *inputs,
		      size_t n_inputs, struct pmt_diag *diag)
{
	struct stat st;
	char *dir_copy, *base_copy;
	const char *same;
	mode_t mode;
	mode_t mask;
	sigset_t block, old_mask;
	int fd;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->slot = -1;
	f->name = path;
	if (!path || !strcmp(path, "-")) {
		f->fp = stdout;
		f->fd = STDOUT_FILENO;
		return 0;
	}
	mask = umask(0);
	umask(mask);
	mode = 0666 & ~mask;
	if (stat(path, &st) == 0) {
		same = same_as_input(&st, inputs, n_inputs);
		if (same)
			return pmt_diag_set(diag, -PMT_EINVAL, path, PMT_DIAG_NO_OFFSET,
					    "is the same file as the input %s: refusing to "
					    "overwrite it (write to another file)", same);
		if (S_ISDIR(st.st_mode))
			return pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET, "%s",
					    strerror(EISDIR));
		if (!S_ISREG(st.st_mode)) {
			/* a device or FIFO (/dev/null, a named pipe): no rename possible */
			f->fp = fopen(path, "wb");
			if (!f->fp)
				return pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET, "%s",
						    strerror(errno));
			f->fd = fileno(f->fp);
			f->path = strdup(path);
			return 0;
		}
		mode = st.st_mode & 07777;
	}
	dir_copy = strdup(path);
	base_copy = strdup(path);
	f->path = strdup(path);
	if (!dir_copy || !base_copy || !f->path) {
		free(dir_copy);
		free(base_copy);
		free(f->path);
		f->path = NULL;
		return pmt_diag_set(diag, -PMT_ENOMEM, path, PMT_DIAG_NO_OFFSET, "out of memory");
	}
	{
		const char *dir = dirname(dir_copy), *base = basename(base_copy);
		size_t n = strlen(dir) + strlen(base) + sizeof("/..XXXXXX");

		f->tmp = malloc(n);
		if (f->tmp)
			snprintf(f->tmp, n, "%s/.%s.XXXXXX", dir, base);
	}
	free(dir_copy);
	free(base_copy);
	if (!f->tmp) {
		free(f->path);
		f->path = NULL;
		return pmt_diag_set(diag, -PMT_ENOMEM, path, PMT_DIAG_NO_OFFSET, "out of memory");
	}
	/* no signal between creating the file and registering it for removal */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGPIPE);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	fd = mkstemp(f->tmp);
	if (fd >= 0)
		f->slot = tmp_register(f->tmp);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (fd < 0) {
		int err = errno;

		release(f, false);
		return pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET,
				    "cannot create a file in its folder: %s", strerror(err));
	}
	fchmod(fd, mode);
	f->fd = fd;
	f->fp = fdopen(fd, "wb");
	if (!f->fp) {
		close(fd);
		pmt_out_file_abort(f);
		return pmt_diag_set(diag, -PMT_ENOMEM, path, PMT_DIAG_NO_OFFSET, "out of memory");
	}
	return 0;
}

int pmt_out_file_commit(struct pmt_out_file *f, struct pmt_diag *diag)
{
	int rc = 0, err = 0;

	if (!f->fp)
		return pmt_diag_set(diag, -PMT_EINVAL, f->name, PMT_DIAG_NO_OFFSET,
				    "output already closed");
	if (f->fp == stdout) {
		if (fflush(stdout) != 0)
			rc = pmt_diag_set(diag, -PMT_EIO, "stdout", PMT_DIAG_NO_OFFSET, "%s",
					  strerror(errno));
		f->fp = NULL;
		return rc;
	}
	if (fflush(f->fp) != 0 || (f->tmp && fsync(f->fd) != 0))
		err = errno;
	if (fclose(f->fp) != 0 && !err)
		err = errno;
	f->fp = NULL;
	if (!err && f->tmp && rename(f->tmp, f->path) != 0)
		err = errno;
	if (err)
		rc = pmt_diag_set(diag, -PMT_EIO, f->name, PMT_DIAG_NO_OFFSET,
				  "cannot write: %s%s", strerror(err),
				  f->tmp ? " (the previous file, if any, is unchanged)" : "");
	release(f, err != 0);
	return rc;
}

void pmt_out_file_abort(struct pmt_out_file *f)
{
	if (f->fp && f->fp != stdout)
		fclose(f->fp);
	else if (f->fp == stdout)
		fflush(stdout);
	f->fp = NULL;
	release(f, true);
}
