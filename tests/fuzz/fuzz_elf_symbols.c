/* Fuzz the ELF symbol reader (libelf underneath, then perf's selection rules, .plt naming
 * and the lookup): the bytes go to a memory file that is read as a path. Seeds: a small
 * object file, a small shared library, truncated and corrupted copies. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmutrace/common.h"
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
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		pmt_symbols_list_file(path, touch, (void *)&sink, msg, sizeof(msg));
	}
	close(fd);
	return (int)(sink & 0);
}
