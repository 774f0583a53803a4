/* Shared by the perf.data reader fuzz targets: pull every event of a source and touch what
 * each one points to, so an overread or a dangling pointer shows under ASan. */
#ifndef PMT_FUZZ_SOURCE_DRAIN_H
#define PMT_FUZZ_SOURCE_DRAIN_H
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"

static uint64_t fuzz_drain_source(struct pmt_source *s, size_t input_size)
{
	struct pmt_trace_event ev;
	uint64_t sink = 0;

	/* every call consumes input, so this bound is never the one that ends the loop */
	for (size_t n = 0; n < input_size + 2; n++) {
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
	return sink;
}
#endif
