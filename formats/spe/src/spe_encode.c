/* Arm SPE packet encoder: the exact inverse of pmt_spe_packet_decode(). */
#include "pmutrace/common.h"
#include "pmutrace/spe.h"

static int size_code(unsigned size)
{
	switch (size) {
	case 1: return 0;
	case 2: return 1;
	case 4: return 2;
	case 8: return 3;
	default: return -1;
	}
}

int pmt_spe_packet_encode(const struct pmt_spe_packet *pkt, uint8_t *out, size_t cap)
{
	uint8_t hdr[2];
	unsigned nhdr = 1, size = pkt ? pkt->payload_size : 0, fixed = 0;
	int code;

	if (!pkt || !out)
		return -PMT_EINVAL;

	switch (pkt->type) {
	case PMT_SPE_PAD: {
		/* a coalesced run is len zero bytes */
		unsigned n = pkt->len ? pkt->len : 1;

		if (n > PMT_SPE_PKT_MAX_SZ || cap < n)
			return -PMT_EINVAL;
		memset(out, 0, n);
		return (int)n;
	}
	case PMT_SPE_END:
		if (cap < 1)
			return -PMT_EINVAL;
		out[0] = 0x01;
		return 1;
	case PMT_SPE_ALIGN_PAD: {
		/* header h0 (0x20..0x23) and 0x00, then zeros up to the boundary (and any PAD
		 * bytes the iterator merged into it) */
		unsigned n = pkt->len;

		if ((pkt->header[0] & 0xFC) != 0x20 || n < 1 || n > PMT_SPE_PKT_MAX_SZ || cap < n)
			return -PMT_EINVAL;
		memset(out, 0, n);
		out[0] = pkt->header[0];
		return (int)n;
	}
	case PMT_SPE_TIMESTAMP:
		hdr[0] = 0x71;
		fixed = 8;
		break;
	case PMT_SPE_EVENTS:
	case PMT_SPE_DATA_SOURCE:
		code = size_code(size);
		if (code < 0)
			return -PMT_EINVAL;
		hdr[0] = (uint8_t)((pkt->type == PMT_SPE_EVENTS ? 0x42 : 0x43) | code << 4);
		break;
	case PMT_SPE_CONTEXT:
	case PMT_SPE_OP_TYPE:
		if (pkt->index > 3)
			return -PMT_EINVAL;
		hdr[0] = (uint8_t)((pkt->type == PMT_SPE_CONTEXT ? 0x64 : 0x48) | pkt->index);
		fixed = pkt->type == PMT_SPE_CONTEXT ? 4 : 1;
		break;
	case PMT_SPE_ADDRESS:
	case PMT_SPE_COUNTER: {
		uint8_t base = pkt->type == PMT_SPE_ADDRESS ? 0xB0 : 0x98;

		fixed = pkt->type == PMT_SPE_ADDRESS ? 8 : 2;
		if (pkt->index > 31)
			return -PMT_EINVAL;
		if (pkt->ext || pkt->index > 7) {
			hdr[0] = (uint8_t)(0x20 | pkt->index >> 3);
			hdr[1] = (uint8_t)(base | (pkt->index & 7));
			nhdr = 2;
		} else {
			hdr[0] = (uint8_t)(base | pkt->index);
		}
		break;
	}
	default:
		return -PMT_EINVAL;
	}
	if (fixed) {
		/* the header fixes the size; 0 asks for it */
		if (size && size != fixed)
			return -PMT_EINVAL;
		size = fixed;
	}
	if (size < 8 && (pkt->payload >> (8 * size)))
		return -PMT_EINVAL;
	if (cap < nhdr + size)
		return -PMT_EINVAL;
	out[0] = hdr[0];
	if (nhdr == 2)
		out[1] = hdr[1];
	for (unsigned i = 0; i < size; i++)
		out[nhdr + i] = (uint8_t)(pkt->payload >> (8 * i));
	return (int)(nhdr + size);
}
