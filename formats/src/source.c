/* Placeholder until the perf.data reader lands: every trace is "not recognised". */
#include <stdlib.h>

#include "pmutrace/formats.h"

int pmt_source_open(const char *path, struct pmt_source **out, uint64_t *err_offset)
{
	*out = NULL;
	if (err_offset)
		*err_offset = 0;
	return -PMT_EFORMAT;
}

const struct pmt_trace_meta *pmt_source_meta(const struct pmt_source *src) { return NULL; }
int pmt_source_next(struct pmt_source *src, struct pmt_trace_event *ev) { return -PMT_EEOS; }
uint64_t pmt_source_offset(const struct pmt_source *src) { return 0; }
void pmt_source_close(struct pmt_source *src) { }
