/* Fuzz the perf.data reader on a pipe: the streamed path (read window, records framed as
 * they arrive) for pipe-mode input, the spool-to-a-temporary-file path for file-mode input.
 * The input is written into a pipe whole (inputs beyond the pipe's capacity are cut there)
 * and the source opens it as /dev/fd/N. Seeds: tests/fuzz/corpus/perfdata_stream/. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "fuzz_source_drain.h"

static void quiet(enum pmt_log_level level, const char *msg, void *ctx) { }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_source *s;
	volatile uint64_t sink = 0;
	char path[64];
	int p[2];
	long cap;

	if (pipe(p) < 0)
		return 0;
	fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	cap = fcntl(p[1], F_GETPIPE_SZ);
	if (cap > 0 && size > (size_t)cap)
		size = (size_t)cap;
	if (size && write(p[1], data, size) != (ssize_t)size) {
		close(p[0]);
		close(p[1]);
		return 0;
	}
	close(p[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", p[0]);
	pmt_log_set_sink(quiet, NULL);
	if (pmt_source_open(path, &s, NULL) == 0) {
		sink += fuzz_drain_source(s, size);
		pmt_source_close(s);
	}
	close(p[0]);
	return (int)(sink & 0);
}
