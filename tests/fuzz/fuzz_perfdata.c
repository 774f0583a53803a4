/* Fuzz the perf.data reader: open from memory, pull every event, touch what it points to.
 * Seeds: tests/fuzz/corpus/perfdata/ (file, pipe, byte-swapped and compressed files made by
 * pmutrace's writer). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/formats.h"

static void quiet(enum pmt_log_level level, const char *msg, void *ctx) { }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_source *s;
	struct pmt_trace_event ev;
	const struct pmt_trace_meta *m;
	volatile uint64_t sink = 0;
	uint8_t *copy = malloc(size ? size : 1); /* exact size: overreads hit the redzone */

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	pmt_log_set_sink(quiet, NULL);
	if (pmt_source_open_mem(copy, size, &s, NULL) == 0) {
		m = pmt_source_meta(s);
		for (uint32_t i = 0; i < m->nr_cpus; i++)
			sink += m->cpu_midr[i];
		for (uint32_t i = 0; i < m->nr_attrs; i++)
			for (uint32_t k = 0; k < m->attrs[i].nr_ids; k++)
				sink += m->attrs[i].ids[k];
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
	free(copy);
	return (int)(sink & 0);
}
