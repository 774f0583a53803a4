/* Fuzz the SPE header scan (pmt_spe_scan, the container writer's walk for its frame infos):
 * on the whole input and on the input without its first byte (another alignment of its
 * packets and record shapes), its result must be that of a walk with the packet iterator (one
 * packet at a time: a record ends at TIMESTAMP or END, any other packet but PAD opens
 * one, the first byte that starts no packet stops the walk). Read past the end: the
 * sanitizer stops it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"

#define CHECK(c)                                                                        \
	do {                                                                            \
		if (!(c))                                                               \
			abort();                                                        \
	} while (0)

static void iter_walk(const uint8_t *p, size_t n, struct pmt_spe_scan *s)
{
	struct pmt_spe_pkt_iter it;
	struct pmt_spe_packet pkt;
	int open = -1, rc; /* -1: no event yet */

	memset(s, 0, sizeof(*s));
	pmt_spe_pkt_iter_init(&it, p, n, 0);
	while ((rc = pmt_spe_pkt_next(&it, &pkt)) != -PMT_EEOS) {
		int is_end = rc < 0 ? 0 : pkt.type == PMT_SPE_END;
		int is_ts = rc >= 0 && pkt.type == PMT_SPE_TIMESTAMP;

		if (rc >= 0 && (pkt.type == PMT_SPE_PAD || pkt.type == PMT_SPE_ALIGN_PAD))
			continue;
		if (is_ts) {
			s->ts_lo = !s->timed || pkt.payload < s->ts_lo ? pkt.payload : s->ts_lo;
			s->ts_hi = !s->timed || pkt.payload > s->ts_hi ? pkt.payload : s->ts_hi;
			s->timed = 1;
		}
		if (open < 0)
			s->first = is_end ? PMT_SPE_SCAN_END_FIRST : PMT_SPE_SCAN_OTHER_FIRST;
		else if (is_end)
			s->untimed |= (uint8_t)open;
		open = !is_end && !is_ts;
		if (rc < 0) {
			s->untimed = 1;
			break;
		}
	}
	s->first = open < 0 ? PMT_SPE_SCAN_NO_EVENT : s->first;
	s->open_out = open < 0 ? 0 : (uint8_t)open;
}

static void one(const uint8_t *p, size_t n)
{
	struct pmt_spe_scan got, want;

	CHECK(pmt_spe_scan(p, n, 0, &got) == 0);
	iter_walk(p, n, &want);
	CHECK(!memcmp(&got, &want, sizeof(got)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly its size, so a read past the end is one past an allocation */
	uint8_t *b = malloc(size ? size : 1);

	if (!b)
		return 0;
	memcpy(b, data, size);
	one(b, size);
	if (size)
		one(b + 1, size - 1);
	free(b);
	return 0;
}
