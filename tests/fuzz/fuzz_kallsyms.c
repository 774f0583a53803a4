/* Fuzz the kallsyms reader and the kernel map that uses it: the bytes are a kallsyms file
 * (through a memory file) for a trace's [kernel.kallsyms] map, then addresses in the map
 * are resolved. Seeds: small kallsyms files, with relocation, modules, bad lines. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "pmutrace/symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile uint64_t sink = 0;
	char path[64];
	int fd = memfd_create("fuzz-kallsyms", MFD_CLOEXEC);
	struct pmt_symbols *s;
	struct pmt_symbols_opts o = { .sz = sizeof(o), .buildid_dir = "", .kallsyms = path };

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (write(fd, data, size) == (ssize_t)size && pmt_symbols_new(&o, &s) == 0) {
		struct pmt_trace_event ev = { .kind = PMT_TEV_RECORD, .type = PMT_REC_MMAP };
		struct pmt_sym_loc loc;

		pmt_log_set_level(PMT_LOG_ERROR);
		ev.u.mmap.pid = UINT32_MAX;
		ev.u.mmap.addr = 0xffffffc084000000ULL;
		ev.u.mmap.len = 0x1000000;
		ev.u.mmap.pgoff = 0xffffffc084000000ULL;
		ev.u.mmap.filename = "[kernel.kallsyms]_text";
		pmt_symbols_add_event(s, &ev);
		for (uint64_t ip = 0xffffffc084000000ULL; ip < 0xffffffc085000000ULL; ip += 0x7f3f1)
			if (pmt_symbols_resolve(s, 1, ip, 0, &loc) > 0)
				sink += loc.symoff + (uint8_t)loc.sym[0];
		pmt_symbols_free(s);
	}
	close(fd);
	return (int)(sink & 0);
}
