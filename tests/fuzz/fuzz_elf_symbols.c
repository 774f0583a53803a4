/* Fuzz the ELF symbol reader (libelf underneath, then perf's selection rules, .plt naming
 * and the lookup): the bytes go to a memory file that is read as a path. Then the
 * --bundle=symbols reducer on the same bytes, and the reader on what it made. Seeds: a
 * small object file, a small shared library, truncated and corrupted copies. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile uint64_t sink = 0;
	char path[64], msg[256];
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	void *small;
	size_t n;

	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		pmt_symbols_list_file(path, touch, (void *)&sink, msg, sizeof(msg));
	}
	close(fd);
	if (pmt_ctr_elf_symbols_only(data, size, &small, &n, msg, sizeof(msg)) == 0) {
		fd = memfd_create("fuzz-elf-small", MFD_CLOEXEC);
		if (fd >= 0 && write(fd, small, n) == (ssize_t)n) {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			pmt_symbols_list_file(path, touch, (void *)&sink, msg, sizeof(msg));
		}
		if (fd >= 0)
			close(fd);
		free(small);
	}
	return (int)(sink & 0);
}
