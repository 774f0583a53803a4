/* Renders samples through an output sink into a string, for the output tests. Include after
 * <cmocka.h>. */
#ifndef PMT_TEST_SINK_RENDER_H
#define PMT_TEST_SINK_RENDER_H

#include <stdio.h>

#include "pmutrace/output.h"

/* Samples through a sink into a malloc'd string (caller frees). Not inlined: gcc 12 then
 * takes open_memstream()'s buffer for a pointer into this frame (-Wdangling-pointer). */
static __attribute__((noinline, unused)) char *
test_render(enum pmt_sink_format fmt, int compat, const struct pmt_spe_sample *s, int n, int header,
	    int brstack)
{
	char *mem = NULL;
	size_t sz = 0;
	FILE *fp = open_memstream(&mem, &sz);
	struct pmt_out o;
	struct pmt_spe_sink *k;
	struct pmt_spe_sink_opts opts = { .sz = sizeof(opts), .fmt = fmt, .compat = compat,
					  .brstack = brstack };

	assert_non_null(fp);
	assert_int_equal(pmt_out_init(&o, fp, 4096), 0);
	assert_int_equal(pmt_spe_sink_new(&o, &opts, &k), 0);
	if (header)
		pmt_spe_sink_header(k);
	for (int i = 0; i < n; i++)
		pmt_spe_sink_write(k, &s[i]);
	pmt_spe_sink_free(k);
	assert_int_equal(pmt_out_fini(&o), 0);
	fclose(fp);
	return mem;
}

#endif
