/* Fuzz the SPE packet layer: iterate a whole buffer (inline and out-of-line iterators must
 * agree), describe every packet in every flavour and with short buffers, re-encode it and
 * decode the encoding again. First input byte: bit 4 = PAD coalescing, bits 3:0 = stream
 * offset of the buffer (alignment pads depend on it). */
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

static void check_packet(const struct pmt_spe_packet *p, const uint8_t *bytes, uint64_t off)
{
	uint8_t enc[PMT_SPE_PKT_MAX_SZ];
	char desc[PMT_SPE_DESC_MAX], small[8];
	struct pmt_spe_packet q;
	int n, d;

	for (unsigned f = 0; f < 4; f++) {
		d = pmt_spe_packet_desc_flags(p, f, desc, sizeof(desc));
		CHECK(d >= 0 && (size_t)d < sizeof(desc) && strlen(desc) == (size_t)d);
		d = pmt_spe_packet_desc_flags(p, f, small, sizeof(small));
		CHECK(d == -PMT_ERANGE ? strlen(small) == sizeof(small) - 1 : d >= 0);
	}
	n = pmt_spe_packet_encode(p, enc, sizeof(enc));
	CHECK(n == p->len);
	if (p->type == PMT_SPE_ALIGN_PAD) {
		/* the filler is not data: only the header bytes must come back */
		CHECK(enc[0] == bytes[0] && (n < 2 || enc[1] == bytes[1]));
		return;
	}
	CHECK(!memcmp(enc, bytes, (size_t)n));
	if (p->type == PMT_SPE_PAD)
		return; /* a coalesced run decodes as single PADs */
	memset(&q, 0xff, sizeof(q));
	CHECK(pmt_spe_packet_decode(enc, (size_t)n, off, &q) == n);
	CHECK(q.type == p->type && q.index == p->index && q.payload == p->payload &&
	      q.payload_size == p->payload_size && q.ext == p->ext && q.len == p->len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_spe_pkt_iter a, b;
	struct pmt_spe_packet pa, pb;
	int ra, rb;

	if (size < 1)
		return 0;
	pmt_spe_pkt_iter_init(&a, data + 1, size - 1, data[0] & 0xf);
	pmt_spe_pkt_iter_init(&b, data + 1, size - 1, data[0] & 0xf);
	a.coalesce_pad = b.coalesce_pad = (data[0] >> 4) & 1;
	for (;;) {
		uint64_t off = pmt_spe_pkt_iter_offset(&a);
		size_t pos = a.pos;

		ra = pmt_spe_pkt_next(&a, &pa);
		rb = pmt_spe_pkt_next_inline(&b, &pb);
		CHECK(ra == rb && a.pos == b.pos);
		if (ra == -PMT_EEOS)
			break;
		if (ra < 0) {
			CHECK(ra == -PMT_EBAD_PACKET || ra == -PMT_ENEED_MORE);
			CHECK(a.pos == pos);
			pmt_spe_pkt_iter_skip(&a, 1);
			pmt_spe_pkt_iter_skip(&b, 1);
			continue;
		}
		CHECK(ra <= PMT_SPE_PKT_MAX_SZ && pos + (size_t)ra <= a.len);
		CHECK(pa.type == pb.type && pa.payload == pb.payload && pa.len == pb.len &&
		      pa.index == pb.index);
		check_packet(&pa, a.buf + pos, off);
	}
	return 0;
}
