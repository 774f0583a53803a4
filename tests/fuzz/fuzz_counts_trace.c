/* Fuzz the STAT-record reader (pmutrace stat -o and perf stat record files): every round
 * into a count set, then every cell read back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

static void quiet(enum pmt_log_level level, const char *msg, void *ctx) { }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_counts *c;
	struct pmt_counts_trace *t;
	struct pmt_diag d = PMT_DIAG_INIT;
	uint8_t *copy;
	volatile double sink = 0;

	pmt_log_set_sink(quiet, NULL);
	copy = malloc(size ? size : 1); /* exact size: overreads hit the redzone */
	if (!copy || pmt_counts_new(&c)) {
		free(copy);
		return 0;
	}
	memcpy(copy, data, size);
	if (pmt_counts_trace_open_mem(copy, size, "fuzz", c, &t, &d) == 0) {
		while (pmt_counts_trace_next(t, c) > 0)
			for (size_t u = 0; u < pmt_counts_nr_units(c); u++)
				for (size_t e = 0; e < pmt_counts_nr_events(c); e++)
					sink += pmt_counts_get(c, u, e);
		pmt_counts_trace_close(t);
	}
	(void)sink;
	pmt_counts_free(c);
	free(copy);
	return 0;
}
