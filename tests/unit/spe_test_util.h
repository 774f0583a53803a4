/* Helpers shared by the SPE unit tests. Include after <cmocka.h>; everything is static inline
 * or marked unused so a test that uses only part of it still builds with -Werror. */
#ifndef PMT_SPE_TEST_UTIL_H
#define PMT_SPE_TEST_UTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/spe_decode.h"

/* A load/store record with the given op bits, DATA_SOURCE payload and EVENTS bits. */
static inline struct pmt_spe_record test_ldst_record(uint32_t op, uint16_t source,
						     uint64_t events)
{
	struct pmt_spe_record r;

	memset(&r, 0, sizeof(r));
	r.op = op;
	r.source = source;
	r.events = events;
	r.context_id = UINT64_MAX;
	r.op_class = PMT_SPE_OP_LDST;
	return r;
}

/* The SPE attr as `pmutrace convert` writes it (type 8, timed). */
static inline void test_spe_attr(uint8_t attr[136])
{
	pmt_attr_init_spe(attr, 8, true);
}

#endif
