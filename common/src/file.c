#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmutrace/common.h"

static int read_stream(int fd, struct pmt_file_map *m)
{
	struct pmt_buf b = { 0 };

	for (;;) {
		ssize_t n;

		if (pmt_buf_reserve(&b, 1 << 16) < 0) {
			pmt_buf_fini(&b);
			return -PMT_ENOMEM;
		}
		n = read(fd, b.data + b.len, b.cap - b.len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			pmt_buf_fini(&b);
			return -PMT_EIO;
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

int pmt_file_map(const char *path, struct pmt_file_map *m)
{
	struct stat st;
	int fd, rc;

	memset(m, 0, sizeof(*m));
	if (!strcmp(path, "-"))
		return read_stream(STDIN_FILENO, m);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -PMT_EIO;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -PMT_EIO;
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
	rc = read_stream(fd, m);
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
