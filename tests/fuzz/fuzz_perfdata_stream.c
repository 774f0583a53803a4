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

#include "pmutrace/formats.h"

static void quiet(enum pmt_log_level level, const char *msg, void *ctx) { }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_source *s;
	struct pmt_trace_event ev;
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
		/* every call consumes input, so this bound is never the one that ends the loop */
		for (size_t n = 0; n < size + 2; n++) {
			int rc = pmt_source_next(s, &ev);

			if (rc == -PMT_EEOS)
				break;
			if (rc < 0)
				continue;
			sink += ev.raw[ev.raw_size - 1];
			if (ev.kind == PMT_TEV_AUXTRACE && ev.u.auxtrace.size)
				sink += ev.u.auxtrace.data[ev.u.auxtrace.size - 1];
			if (ev.type == PMT_REC_COMM)
				sink += strlen(ev.u.comm.comm);
			if (ev.type == PMT_REC_MMAP || ev.type == PMT_REC_MMAP2)
				sink += strlen(ev.u.mmap.filename);
		}
		pmt_source_close(s);
	}
	close(p[0]);
	return (int)(sink & 0);
}
