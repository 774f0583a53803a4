/* Fuzz the counts reader: perf stat -x, CSV (any aggregation, -I) and perf stat -j JSON
 * lines, then look every event up again. */
#include <stdint.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

static void quiet(enum pmt_log_level level, const char *msg, void *ctx) { }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_counts *c;

	pmt_log_set_sink(quiet, NULL);
	if (pmt_counts_new(&c))
		return 0;
	pmt_counts_load_mem(c, (const char *)data, size, "fuzz", NULL);
	for (size_t i = 0; i < pmt_counts_nr_events(c); i++)
		pmt_counts_find(c, pmt_counts_event_name(c, i));
	pmt_counts_free(c);
	return 0;
}
