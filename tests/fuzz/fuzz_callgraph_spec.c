/* Fuzz report -g's argument (perf's print_type,threshold[,print_limit],order,sort_key
 * [,branch],value): any bytes up to the first NUL are one argument. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_diag d = PMT_DIAG_INIT;
	char *spec = malloc(size + 1);
	int rc;

	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = 0;
	rc = pmt_hist_callgraph_check(spec, &d);
	/* a refusal names what it refused */
	if (rc < 0 && !d.msg[0])
		abort();
	free(spec);
	return 0;
}
