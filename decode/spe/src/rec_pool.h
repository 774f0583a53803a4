/* SPE packets -> records on worker threads, one lane per AUX queue (private to decode/spe).
 *
 * Each lane owns its queue's record decoder while the pool runs: its chunks are decoded in
 * the order they were given, on one worker at a time, into batches the merge takes records
 * from. Records come in spans, each with the sequence number of the chunk whose feed
 * returned them, so the merge releases chunks exactly when the one-thread decode would. The decoder logs
 * nothing (damage is counted in its statistics, read once the pool is gone), so what is
 * printed does not depend on where records were decoded. */
#ifndef PMT_SPE_REC_POOL_H
#define PMT_SPE_REC_POOL_H

#include <stdint.h>

#include "pmutrace/spe_decode.h"

struct rec_pool;
struct rec_lane;

/* threads >= 1; returns 0 or -PMT_ENOMEM */
int rec_pool_new(unsigned threads, struct rec_pool **out);
/* Stops the workers (a batch being decoded is finished first) and frees every lane; the
 * decoders of the lanes are the caller's and are left alone. NULL is a no-op. */
void rec_pool_free(struct rec_pool *p);
/* A lane decoding with dec (owned by the caller; not touched by the caller until
 * rec_pool_free). Returns NULL when out of memory. */
struct rec_lane *rec_pool_lane(struct rec_pool *p, struct pmt_spe_rec_decoder *dec);
/* The next AUX chunk of the lane: its bytes stay valid until the merge has taken a record
 * of a later chunk or has seen the lane run dry. Returns 0 or -PMT_ENOMEM. */
int rec_lane_submit(struct rec_pool *p, struct rec_lane *l, const uint8_t *data,
		    uint64_t size, uint64_t offset, uint64_t pad_base);
/* Records of one chunk, in order: valid until the next rec_lane_span() of the lane. */
struct rec_span {
	const struct pmt_spe_record *rec;
	uint32_t n;   /* >= 1 */
	uint64_t seq; /* the chunk's sequence number: 0, 1, ... in submit order */
};
/* The lane's next records (waiting for a worker when none are decoded yet): 1; 0 when
 * every submitted chunk is decoded and no record is left (a record cut at the end of the
 * last chunk stays in the decoder for the next one). */
int rec_lane_span(struct rec_pool *p, struct rec_lane *l, struct rec_span *out);

#endif
