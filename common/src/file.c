#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmutrace/common.h"

/* A pipe or device read into memory, bounded: an endless source (/dev/zero) or a huge
 * pipe must fail cleanly, not exhaust memory. */
static int read_stream(int fd, struct pmt_file_map *m, const char *path, struct pmt_diag *diag)
{
	struct pmt_buf b = { 0 };

	for (;;) {
		ssize_t n;

		if (b.len >= PMT_STREAM_READ_MAX) {
			pmt_buf_fini(&b);
			return pmt_diag_set(diag, -PMT_ERANGE, path, PMT_DIAG_NO_OFFSET,
					    "more than %u MiB from a pipe or device; save it to a "
					    "file, which is mapped instead of read into memory",
					    PMT_STREAM_READ_MAX >> 20);
		}
		if (pmt_buf_reserve(&b, 1 << 16) < 0) {
			pmt_buf_fini(&b);
			return pmt_diag_set(diag, -PMT_ENOMEM, path, PMT_DIAG_NO_OFFSET,
					    "out of memory");
		}
		n = read(fd, b.data + b.len, b.cap - b.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			pmt_buf_fini(&b);
			return pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET, "%s",
					    strerror(err));
		}
		if (n == 0)
			break;
		b.len += (size_t)n;
	}
	m->data = b.data;
	m->size = b.len;
	m->mapped = 0;
	return 0;
}

int pmt_file_map(const char *path, struct pmt_file_map *m, struct pmt_diag *diag)
{
	struct stat st;
	int fd, rc;

	memset(m, 0, sizeof(*m));
	if (!strcmp(path, "-"))
		return read_stream(STDIN_FILENO, m, "stdin", diag);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		return pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET, "%s", strerror(err));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET, "%s", strerror(EISDIR));
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (p != MAP_FAILED) {
			close(fd);
			m->data = p;
			m->size = (size_t)st.st_size;
			m->mapped = 1;
			return 0;
		}
	}
	rc = read_stream(fd, m, path, diag);
	close(fd);
	return rc;
}

void pmt_file_unmap(struct pmt_file_map *m)
{
	if (m->mapped)
		munmap((void *)m->data, m->size);
	else
		free((void *)m->data);
	memset(m, 0, sizeof(*m));
}
