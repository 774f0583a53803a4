/* The SPE record decoder's state, private to decode/spe: the public header has only the
 * handle, so the layout cache below can change without touching any caller. */
#ifndef PMT_SPE_RECORD_PRIV_H
#define PMT_SPE_RECORD_PRIV_H

#include "pmutrace/spe.h"
#include "pmutrace/spe_decode.h"

/* The byte layout of a record seen before (its header and
 * PAD bytes, packet offsets). A CPU writes few distinct layouts, so most records can be
 * checked against one with a few word compares instead of being walked packet by packet. */
#define PMT_SPE_REC_SHAPES 8
struct pmt_spe_rec_shape {
	uint64_t hmask[8], hval[8]; /* header/PAD bytes of the record's first 64 bytes */
	uint64_t fmask[12];         /* per record field: payload byte mask, 0 = no packet */
	uint64_t ctx_none;          /* all ones when no CONTEXT packet */
	uint8_t foff[12];           /* per record field: payload offset of its last packet */
	uint8_t npk, end_off, op_hdr;
};

/* The record decoder's state (pmutrace/spe_decode.h has the handle). */
struct pmt_spe_rec_decoder {
	struct pmt_spe_pkt_iter it;
	struct pmt_spe_record cur;  /* record being assembled */
	struct pmt_spe_rec_stats stats;
	uint8_t emit_partial;       /* return records cut by bad bytes (perf's behaviour) */
	uint8_t in_bad;             /* previous byte was skipped */
	uint8_t cur_open;           /* cur holds packets (its count may have wrapped to 0) */
	uint8_t reference;          /* decode through the generic packet iterator only: the
				     * slow reference the fused path is tested against */
	uint8_t events_last;        /* last EVENTS packet wins (perf >= 6.16) */
	uint8_t op_or;              /* OP_TYPE packets' op bits ORed (perf >= 6.16) */
	uint8_t nshapes, next_shape;
	struct pmt_spe_rec_shape shapes[PMT_SPE_REC_SHAPES];
};

/* After pmt_spe_rec_feed(): alignment pads in this buffer measure from pad_base for its
 * first byte (perf: the buffer's address) instead of its stream offset. */
void spe_rec_set_pad_base(struct pmt_spe_rec_decoder *d, uint64_t pad_base);

#endif
