/* Fuzz the perf.data reader: open from memory, pull every event, touch what it points to.
 * Seeds: tests/fuzz/corpus/perfdata/ (file, pipe, byte-swapped and compressed files made by
 * pmutrace's writer). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "fuzz_source_drain.h"

static void quiet(enum pmt_log_level level, const char *msg, void *ctx) { }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_source *s;
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
			sink += m->cpu_midr[i] +
				(m->cpu_event_filter ? m->cpu_event_filter[i] : 0);
		for (uint32_t i = 0; i < m->nr_attrs; i++)
			for (uint32_t k = 0; k < m->attrs[i].nr_ids; k++)
				sink += m->attrs[i].ids[k];
		sink += fuzz_drain_source(s, size);
		pmt_source_close(s);
	}
	free(copy);
	return (int)(sink & 0);
}
