/* Fuzz the retire-latency table reader: perf event JSON (RetirementLatencyMean/Min/Max),
 * Intel *_retire_latency.json and pmu-tools genretlat tables, then every statistic of every
 * entry. */
#include <stdint.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

static void quiet(enum pmt_log_level level, const char *msg, void *ctx) { }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_retlat_table t = { 0 };
	volatile double sink = 0; /* NaN for entries that lack a statistic */

	pmt_log_set_sink(quiet, NULL);
	if (pmt_retlat_table_load_mem(&t, (const char *)data, size, "fuzz", NULL) >= 0)
		for (size_t i = 0; i < t.nr; i++)
			sink += t.e[i].mean + t.e[i].min + t.e[i].max + t.e[i].median +
				(double)pmt_retlat_table_find(&t, t.e[i].name);
	pmt_retlat_table_fini(&t);
	(void)sink;
	return 0;
}
