/* Helpers shared by the SPE unit tests. Include after <cmocka.h>; everything is static inline
 * or marked unused so a test that uses only part of it still builds with -Werror. */
#ifndef PMT_SPE_TEST_UTIL_H
#define PMT_SPE_TEST_UTIL_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"
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

/* The SPE attr as `pmutrace convert` writes it: type 8, config 1, period 4096, sample_id_all;
 * sample_type IDENTIFIER IP TID TIME CPU ADDR PERIOD WEIGHT DATA_SRC PHYS_ADDR. */
static inline void test_spe_attr(uint8_t attr[136])
{
	uint64_t st = (1u << 16) | 1 | 2 | 4 | 128 | 8 | 256 | (1u << 14) | (1u << 15) |
		      (1u << 19);
	uint64_t flags = 1ULL << 18, period = 4096, config = 1;
	uint32_t type = 8;

	memset(attr, 0, 136);
	memcpy(attr + 0, &type, 4);
	memcpy(attr + 8, &config, 8);
	memcpy(attr + 16, &period, 8);
	memcpy(attr + 24, &st, 8);
	memcpy(attr + 40, &flags, 8);
}

#endif
