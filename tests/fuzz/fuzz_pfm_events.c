/* record/events' --pfm-events parser: perf's split of the string into events and groups,
 * libpfm4's encoding of each (as the knl model, so every host fuzzes the same tables), then
 * the record plan of what parsed, which walks every attr rule. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/events.h"
#include "pmutrace/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_evlist l = { 0 };
	struct pmt_record_plan p;
	struct pmt_record_opts o = { .sz = sizeof(o), .page_size = 4096 };
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_pmu cpu = { .name = "cpu", .type = 4 };
	struct pmt_pmus set = { .root = "/fuzz", .pmu = &cpu, .nr = 1 };
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	setenv("LIBPFM_FORCE_PMU", "knl", 0); /* read once, by the first pfm_initialize() */
	memcpy(s, data, size);
	s[size] = 0;
	set.online.bits[0] = 0xf;
	if (pmt_events_parse_pfm(&l, &set, s, &d) > 0) {
		if (pmt_record_plan_build(&p, &l, &set, &o, &d) >= 0 || p.ev.ev)
			pmt_record_plan_fini(&p);
	} else {
		pmt_evlist_fini(&l);
	}
	free(s);
	return 0;
}
