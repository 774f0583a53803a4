/* SPE packet decoder, iterator and encoder. Expected values are derived by hand from
 * arm-spe.md §1 (perf's header classification and payload sizes); each row says why. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"

struct row {
	const char *why;
	uint8_t bytes[PMT_SPE_PKT_MAX_SZ + 2];
	size_t n;        /* bytes given to the decoder */
	uint64_t offset; /* stream offset */
	int ret;         /* expected return */
	uint8_t type, index, payload_size, ext;
	uint64_t payload;
};

static const struct row rows[] = {
	{ "0x00 is PAD, 1 byte", { 0x00 }, 1, 0, 1, PMT_SPE_PAD, 0, 0, 0, 0 },
	{ "decode never coalesces PAD", { 0x00, 0x00, 0x00 }, 3, 0, 1, PMT_SPE_PAD, 0, 0, 0, 0 },
	{ "0x01 is END", { 0x01 }, 1, 0, 1, PMT_SPE_END, 0, 0, 0, 0 },
	{ "0x71 TIMESTAMP, 8-byte LE payload", { 0x71, 0x46, 0xf9, 0xd5, 0x4a, 0x10, 0x62, 0x01, 0x00 },
	  9, 0, 9, PMT_SPE_TIMESTAMP, 0, 8, 0, 0x162104ad5f946ULL },
	{ "0x42 EVENTS sz=1, index = payload size", { 0x42, 0x02 }, 2, 0, 2, PMT_SPE_EVENTS, 1, 1, 0, 0x02 },
	{ "0x52 EVENTS sz=2", { 0x52, 0x16, 0x00 }, 3, 0, 3, PMT_SPE_EVENTS, 2, 2, 0, 0x16 },
	{ "0x62 EVENTS sz=4", { 0x62, 0x16, 0x00, 0x00, 0x01 }, 5, 0, 5, PMT_SPE_EVENTS, 4, 4, 0,
	  0x01000016 },
	{ "0x72 EVENTS sz=8", { 0x72, 1, 2, 3, 4, 5, 6, 7, 8 }, 9, 0, 9, PMT_SPE_EVENTS, 8, 8, 0,
	  0x0807060504030201ULL },
	{ "0x43 DATA_SOURCE sz=1", { 0x43, 0x0e }, 2, 0, 2, PMT_SPE_DATA_SOURCE, 0, 1, 0, 0x0e },
	{ "0x53 DATA_SOURCE sz=2", { 0x53, 0x34, 0x12 }, 3, 0, 3, PMT_SPE_DATA_SOURCE, 0, 2, 0, 0x1234 },
	{ "0x63 DATA_SOURCE sz=4", { 0x63, 1, 0, 0, 0x80 }, 5, 0, 5, PMT_SPE_DATA_SOURCE, 0, 4, 0,
	  0x80000001 },
	{ "0x73 DATA_SOURCE sz=8", { 0x73, 0, 0, 0, 0, 0, 0, 0, 0xff }, 9, 0, 9, PMT_SPE_DATA_SOURCE, 0,
	  8, 0, 0xff00000000000000ULL },
	{ "0x64 CONTEXT el1 (4 bytes)", { 0x64, 0x80, 0x5f, 0, 0 }, 5, 0, 5, PMT_SPE_CONTEXT, 0, 4, 0,
	  0x5f80 },
	{ "0x65 CONTEXT el2", { 0x65, 0x0e, 0, 0, 0 }, 5, 0, 5, PMT_SPE_CONTEXT, 1, 4, 0, 0x0e },
	{ "0x48 OP_TYPE class OTHER", { 0x48, 0x00 }, 2, 0, 2, PMT_SPE_OP_TYPE, 0, 1, 0, 0 },
	{ "0x49 OP_TYPE class LDST", { 0x49, 0x01 }, 2, 0, 2, PMT_SPE_OP_TYPE, 1, 1, 0, 1 },
	{ "0x4a OP_TYPE class BR", { 0x4a, 0x02 }, 2, 0, 2, PMT_SPE_OP_TYPE, 2, 1, 0, 2 },
	{ "0x4b OP_TYPE class 3 still decodes", { 0x4b, 0x07 }, 2, 0, 2, PMT_SPE_OP_TYPE, 3, 1, 0, 7 },
	{ "0xb0 ADDRESS PC", { 0xb0, 0x68, 0xe0, 0x20, 0x84, 0xc0, 0xff, 0xff, 0xa0 }, 9, 0, 9,
	  PMT_SPE_ADDRESS, 0, 8, 0, 0xa0ffffc08420e068ULL },
	{ "0xb4 ADDRESS PBT", { 0xb4, 1, 0, 0, 0, 0, 0, 0, 0 }, 9, 0, 9, PMT_SPE_ADDRESS, 4, 8, 0, 1 },
	{ "0xb7 ADDRESS index 7", { 0xb7, 1, 0, 0, 0, 0, 0, 0, 0 }, 9, 0, 9, PMT_SPE_ADDRESS, 7, 8, 0, 1 },
	{ "0x98 COUNTER TOT (2 bytes)", { 0x98, 0x08, 0x00 }, 3, 0, 3, PMT_SPE_COUNTER, 0, 2, 0, 8 },
	{ "0x9a COUNTER XLAT", { 0x9a, 0x01, 0x00 }, 3, 0, 3, PMT_SPE_COUNTER, 2, 2, 0, 1 },
	{ "0x9f COUNTER index 7", { 0x9f, 0xff, 0xff }, 3, 0, 3, PMT_SPE_COUNTER, 7, 2, 0, 0xffff },
	{ "ext 0x21 0xb2: ADDRESS index (1<<3)|2 = 10", { 0x21, 0xb2, 1, 2, 3, 4, 5, 6, 7, 8 }, 10, 0, 10,
	  PMT_SPE_ADDRESS, 10, 8, 1, 0x0807060504030201ULL },
	{ "ext 0x23 0x9f: COUNTER index 31", { 0x23, 0x9f, 0x34, 0x12 }, 4, 0, 4, PMT_SPE_COUNTER, 31,
	  2, 1, 0x1234 },
	{ "ext 0x20 0x98: COUNTER index 0 via extended header", { 0x20, 0x98, 5, 0 }, 4, 0, 4,
	  PMT_SPE_COUNTER, 0, 2, 1, 5 },
	/* alignment pad: align = 1 << ((h0 & 0xf) + 1); length = align - (offset & (align - 1)) */
	{ "ext 0x20 0x00 at offset 0: align 2, length 2", { 0x20, 0x00 }, 2, 0, 2, PMT_SPE_ALIGN_PAD,
	  0, 0, 1, 0 },
	{ "ext 0x21 0x00 at offset 0: align 4, length 4", { 0x21, 0, 0, 0 }, 4, 0, 4,
	  PMT_SPE_ALIGN_PAD, 0, 0, 1, 0 },
	{ "ext 0x23 0x00 at offset 0x105: align 16, length 16 - 5 = 11", { 0x23, 0 }, 12, 0x105, 11,
	  PMT_SPE_ALIGN_PAD, 0, 0, 1, 0 },
	{ "ext 0x22 0x00 at offset 6: align 8, length 2", { 0x22, 0 }, 2, 6, 2, PMT_SPE_ALIGN_PAD, 0, 0,
	  1, 0 },
	{ "ext 0x23 0x00 at offset 0, only 8 bytes: needs 16", { 0x23, 0 }, 8, 0, -PMT_ENEED_MORE, 0, 0, 0, 0, 0 },
	/* truncation and bad headers */
	{ "empty buffer", { 0 }, 0, 0, -PMT_ENEED_MORE, 0, 0, 0, 0, 0 },
	{ "TIMESTAMP cut after 8 bytes", { 0x71, 1, 2, 3, 4, 5, 6, 7 }, 8, 0, -PMT_ENEED_MORE, 0, 0, 0, 0, 0 },
	{ "ADDRESS header alone", { 0xb0 }, 1, 0, -PMT_ENEED_MORE, 0, 0, 0, 0, 0 },
	{ "COUNTER cut after 2 bytes", { 0x98, 1 }, 2, 0, -PMT_ENEED_MORE, 0, 0, 0, 0, 0 },
	{ "ext ADDRESS cut after 9 bytes", { 0x20, 0xb0, 1, 2, 3, 4, 5, 6, 7 }, 9, 0, -PMT_ENEED_MORE, 0, 0, 0, 0, 0 },
	{ "lone extended header byte is BAD (perf)", { 0x20 }, 1, 0, -PMT_EBAD_PACKET, 0, 0, 0, 0, 0 },
	{ "ext with second byte neither 0, ADDRESS nor COUNTER", { 0x20, 0x42, 0 }, 3, 0,
	  -PMT_EBAD_PACKET, 0, 0, 0, 0, 0 },
	{ "0x02 matches no header", { 0x02 }, 1, 0, -PMT_EBAD_PACKET, 0, 0, 0, 0, 0 },
	{ "0xff matches no header", { 0xff, 0, 0 }, 3, 0, -PMT_EBAD_PACKET, 0, 0, 0, 0, 0 },
	{ "0x24 (mask 0xFC != 0x20) is BAD", { 0x24, 0xb0 }, 2, 0, -PMT_EBAD_PACKET, 0, 0, 0, 0, 0 },
	{ "0x44 is BAD", { 0x44, 0 }, 2, 0, -PMT_EBAD_PACKET, 0, 0, 0, 0, 0 },
	{ "0xa8 (ADDRESS mask 0xF8 needs 0xb0) is BAD", { 0xa8, 0 }, 2, 0, -PMT_EBAD_PACKET, 0, 0, 0, 0, 0 },
};

static void test_table(void **state)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct pmt_spe_packet pkt;
		uint8_t buf[32];
		int ret;

		memset(buf, 0, sizeof(buf));
		memcpy(buf, r->bytes, sizeof(r->bytes));
		memset(&pkt, 0xff, sizeof(pkt));
		ret = pmt_spe_packet_decode(buf, r->n, r->offset, &pkt);
		if (ret != r->ret)
			print_message("row: %s\n", r->why);
		assert_int_equal(ret, r->ret);
		if (ret < 0)
			continue;
		assert_int_equal(pkt.type, r->type);
		assert_int_equal(pkt.index, r->index);
		assert_int_equal(pkt.len, ret);
		assert_int_equal(pkt.payload_size, r->payload_size);
		assert_int_equal(pkt.ext, r->ext);
		assert_int_equal(pkt.header[0], r->bytes[0]);
		assert_int_equal(pkt.header[1], r->ext ? r->bytes[1] : 0);
		assert_true(pkt.payload == r->payload);
	}
}

/* Every one of the 256 first bytes: the classification must agree with arm-spe.md's ordered
 * mask list, written out again here independently of the decoder's table. */
static void test_all_headers(void **state)
{
	for (unsigned h = 0; h < 256; h++) {
		uint8_t buf[20] = { (uint8_t)h, 0xb0 };
		struct pmt_spe_packet pkt;
		int want_type = -1, want_len = 0, ret;
		unsigned sz = 1u << ((h >> 4) & 3);

		if (h == 0)
			want_type = PMT_SPE_PAD, want_len = 1;
		else if (h == 1)
			want_type = PMT_SPE_END, want_len = 1;
		else if (h == 0x71)
			want_type = PMT_SPE_TIMESTAMP, want_len = 9;
		else if ((h & 0xCF) == 0x42)
			want_type = PMT_SPE_EVENTS, want_len = 1 + sz;
		else if ((h & 0xCF) == 0x43)
			want_type = PMT_SPE_DATA_SOURCE, want_len = 1 + sz;
		else if ((h & 0xFC) == 0x64)
			want_type = PMT_SPE_CONTEXT, want_len = 5;
		else if ((h & 0xFC) == 0x48)
			want_type = PMT_SPE_OP_TYPE, want_len = 2;
		else if ((h & 0xFC) == 0x20)
			want_type = PMT_SPE_ADDRESS, want_len = 10; /* second byte 0xb0 */
		else if ((h & 0xF8) == 0xB0)
			want_type = PMT_SPE_ADDRESS, want_len = 9;
		else if ((h & 0xF8) == 0x98)
			want_type = PMT_SPE_COUNTER, want_len = 3;
		ret = pmt_spe_packet_decode(buf, sizeof(buf), 0, &pkt);
		if (want_type < 0) {
			assert_int_equal(ret, -PMT_EBAD_PACKET);
			continue;
		}
		assert_int_equal(ret, want_len);
		assert_int_equal(pkt.type, want_type);
	}
}

static void test_null_args(void **state)
{
	struct pmt_spe_packet pkt;
	struct pmt_spe_pkt_iter it;
	uint8_t b = 0;
	char s[8];

	assert_int_equal(pmt_spe_packet_decode(&b, 1, 0, NULL), -PMT_EINVAL);
	assert_int_equal(pmt_spe_packet_decode(NULL, 1, 0, &pkt), -PMT_EINVAL);
	assert_int_equal(pmt_spe_packet_decode(NULL, 0, 0, &pkt), -PMT_ENEED_MORE);
	assert_int_equal(pmt_spe_pkt_next(NULL, &pkt), -PMT_EINVAL);
	pmt_spe_pkt_iter_init(&it, &b, 1, 0);
	assert_int_equal(pmt_spe_pkt_next(&it, NULL), -PMT_EINVAL);
	pmt_spe_pkt_iter_init(NULL, &b, 1, 0);
	pmt_spe_pkt_iter_skip(NULL, 1);
	assert_int_equal(pmt_spe_packet_encode(NULL, &b, 1), -PMT_EINVAL);
	assert_int_equal(pmt_spe_packet_desc(NULL, s, sizeof(s)), -PMT_EINVAL);
	pkt.type = PMT_SPE_END;
	assert_int_equal(pmt_spe_packet_desc(&pkt, NULL, 8), -PMT_EINVAL);
	assert_int_equal(pmt_spe_packet_desc(&pkt, s, 0), -PMT_EINVAL);
	assert_int_equal(pmt_spe_packet_encode(&pkt, NULL, 1), -PMT_EINVAL);
}

/* Iterator over a stream: PAD coalescing (perf -D: up to 16 zero bytes per line), bad byte
 * reporting without advance, resync by skip(1), NEED_MORE at a truncated tail, EEOS. */
static void test_iter(void **state)
{
	uint8_t s[64];
	size_t n = 0;
	struct pmt_spe_pkt_iter it;
	struct pmt_spe_packet pkt;

	s[n++] = 0x01;                  /* 0: END */
	memset(s + n, 0, 20), n += 20;  /* 1: 20 PAD bytes -> 16 + 4 when coalescing */
	s[n++] = 0xff;                  /* 21: bad */
	s[n++] = 0x49, s[n++] = 0x00;   /* 22: OP_TYPE */
	s[n++] = 0x98, s[n++] = 0x05;   /* 24: COUNTER cut short */

	pmt_spe_pkt_iter_init(&it, s, n, 0x1000);
	it.coalesce_pad = 1;
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), 1);
	assert_int_equal(pkt.type, PMT_SPE_END);
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), 16);
	assert_int_equal(pkt.type, PMT_SPE_PAD);
	assert_int_equal(pkt.len, 16);
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), 4);
	assert_int_equal(pkt.len, 4);
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), -PMT_EBAD_PACKET);
	assert_int_equal(pmt_spe_pkt_iter_offset(&it), 0x1000 + 21);
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), -PMT_EBAD_PACKET); /* no advance */
	pmt_spe_pkt_iter_skip(&it, 1);
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), 2);
	assert_int_equal(pkt.type, PMT_SPE_OP_TYPE);
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), -PMT_ENEED_MORE);
	assert_int_equal(pmt_spe_pkt_iter_offset(&it), 0x1000 + 24);
	pmt_spe_pkt_iter_skip(&it, 100); /* clamps at the end */
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), -PMT_EEOS);

	/* without coalescing every zero byte is its own PAD */
	pmt_spe_pkt_iter_init(&it, s, n, 0);
	pmt_spe_pkt_next(&it, &pkt);
	for (int i = 0; i < 20; i++) {
		assert_int_equal(pmt_spe_pkt_next(&it, &pkt), 1);
		assert_int_equal(pkt.type, PMT_SPE_PAD);
	}
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), -PMT_EBAD_PACKET);
}

/* The alignment pad's length follows the iterator's stream offset (base + pos). */
static void test_iter_align(void **state)
{
	/* END at stream offset 0x13, then 0x22 0x00 (align 8) at 0x14: runs to 0x18 (4 bytes) */
	uint8_t s[] = { 0x01, 0x22, 0x00, 0x00, 0x00, 0x01 };
	struct pmt_spe_pkt_iter it;
	struct pmt_spe_packet pkt;

	pmt_spe_pkt_iter_init(&it, s, sizeof(s), 0x13);
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), 1);
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), 4);
	assert_int_equal(pkt.type, PMT_SPE_ALIGN_PAD);
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), 1);
	assert_int_equal(pkt.type, PMT_SPE_END);
	assert_int_equal(pmt_spe_pkt_next(&it, &pkt), -PMT_EEOS);
}

/* Canonical addresses, arm-spe.md "arm_spe_calc_ip()". */
static void test_addr_canonical(void **state)
{
	/* PC el1 ns=1: top byte 0xff */
	assert_true(pmt_spe_addr_canonical(PMT_SPE_ADDR_PC, 0xa0ffffc08420e068ULL) ==
		    0xffffffc08420e068ULL);
	/* PC el0 ns=1: top byte cleared */
	assert_true(pmt_spe_addr_canonical(PMT_SPE_ADDR_PC, 0x80000059f2b9270cULL) ==
		    0x00000059f2b9270cULL);
	/* PC el2 ns=1 (quipper buffer: b0 d0 c2 a1 ed 66 ba ff c0) */
	assert_true(pmt_spe_addr_canonical(PMT_SPE_ADDR_PC, 0xc0ffba66eda1c2d0ULL) ==
		    0xffffba66eda1c2d0ULL);
	/* el1 but ns=0 (secure): no fill */
	assert_true(pmt_spe_addr_canonical(PMT_SPE_ADDR_TGT, 0x20ffffc084355cacULL) ==
		    0x00ffffc084355cacULL);
	/* el3 ns=1: no fill */
	assert_true(pmt_spe_addr_canonical(PMT_SPE_ADDR_PBT, 0xe0ffffc084355cacULL) ==
		    0x00ffffc084355cacULL);
	/* VA: bits 55:52 = 0xf -> kernel VA, top byte 0xff; tag byte is dropped */
	assert_true(pmt_spe_addr_canonical(PMT_SPE_ADDR_VA, 0x00ffffe5aead80b0ULL) ==
		    0xffffffe5aead80b0ULL);
	/* tag 0x5a dropped; bits 55:52 of 0xff0e3703096b28 are 0xf, so 0xff is filled in */
	assert_true(pmt_spe_addr_canonical(PMT_SPE_ADDR_VA, 0xff0e3703096b28ULL | 0x5aULL << 56) ==
		    0xffff0e3703096b28ULL);
	/* tag 0x5a dropped, user VA */
	assert_true(pmt_spe_addr_canonical(PMT_SPE_ADDR_VA, 0x5a00aaaae65dda43ULL) ==
		    0x0000aaaae65dda43ULL);
	assert_true(pmt_spe_addr_canonical(PMT_SPE_ADDR_VA, 0x0000005a812b7360ULL) ==
		    0x0000005a812b7360ULL);
	/* PA: top byte cleared */
	assert_true(pmt_spe_addr_canonical(PMT_SPE_ADDR_PA, 0x800008032c955a43ULL) ==
		    0x000008032c955a43ULL);
}

/* Encode is the inverse of decode for every row that decodes. */
static void test_encode_roundtrip(void **state)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct pmt_spe_packet pkt;
		uint8_t buf[32] = { 0 }, out[PMT_SPE_PKT_MAX_SZ];
		int ret, n;

		memcpy(buf, r->bytes, sizeof(r->bytes));
		ret = pmt_spe_packet_decode(buf, r->n, r->offset, &pkt);
		if (ret < 0)
			continue;
		n = pmt_spe_packet_encode(&pkt, out, sizeof(out));
		if (n != ret)
			print_message("row: %s\n", r->why);
		assert_int_equal(n, ret);
		assert_memory_equal(out, buf, (size_t)n);
	}
}

static void test_encode_errors(void **state)
{
	struct pmt_spe_packet pkt = { 0 };
	uint8_t out[16];

	pkt.type = PMT_SPE_EVENTS;
	pkt.payload_size = 3; /* not 1, 2, 4, 8 */
	assert_int_equal(pmt_spe_packet_encode(&pkt, out, sizeof(out)), -PMT_EINVAL);
	pkt.payload_size = 1;
	pkt.payload = 0x100; /* does not fit one byte */
	assert_int_equal(pmt_spe_packet_encode(&pkt, out, sizeof(out)), -PMT_EINVAL);
	pkt.payload = 0x80;
	assert_int_equal(pmt_spe_packet_encode(&pkt, out, 1), -PMT_EINVAL); /* cap */
	assert_int_equal(pmt_spe_packet_encode(&pkt, out, 2), 2);
	assert_int_equal(out[0], 0x42);
	pkt.type = PMT_SPE_ADDRESS;
	pkt.index = 32; /* 5-bit index at most */
	pkt.payload_size = 8;
	assert_int_equal(pmt_spe_packet_encode(&pkt, out, sizeof(out)), -PMT_EINVAL);
	pkt.index = 9; /* needs the extended header: 0x20|1, 0xb0|1 */
	assert_int_equal(pmt_spe_packet_encode(&pkt, out, sizeof(out)), 10);
	assert_int_equal(out[0], 0x21);
	assert_int_equal(out[1], 0xb1);
	pkt.type = PMT_SPE_CONTEXT;
	pkt.index = 1;
	pkt.payload_size = 0; /* 0 = the size the header fixes (4) */
	pkt.payload = 0x5f80;
	assert_int_equal(pmt_spe_packet_encode(&pkt, out, sizeof(out)), 5);
	assert_int_equal(out[0], 0x65);
	pkt.payload_size = 2; /* CONTEXT is always 4 bytes */
	assert_int_equal(pmt_spe_packet_encode(&pkt, out, sizeof(out)), -PMT_EINVAL);
	pkt.type = 200;
	assert_int_equal(pmt_spe_packet_encode(&pkt, out, sizeof(out)), -PMT_EINVAL);
}

/* The inline fast path must give exactly what pmt_spe_pkt_next() gives, on any bytes. */
static void test_inline_matches(void **state)
{
	static uint8_t buf[4096];
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		/* half zeros so PAD runs of every length appear */
		buf[i] = (x >> 24) & 1 ? 0 : (uint8_t)(x >> 16);
	}
	for (int coalesce = 0; coalesce < 2; coalesce++) {
		struct pmt_spe_pkt_iter a, b;
		struct pmt_spe_packet pa, pb;
		int ra, rb;

		pmt_spe_pkt_iter_init(&a, buf, sizeof(buf), 3);
		pmt_spe_pkt_iter_init(&b, buf, sizeof(buf), 3);
		a.coalesce_pad = b.coalesce_pad = (uint8_t)coalesce;
		do {
			memset(&pa, 0, sizeof(pa));
			memset(&pb, 0, sizeof(pb));
			ra = pmt_spe_pkt_next(&a, &pa);
			rb = pmt_spe_pkt_next_inline(&b, &pb);
			assert_int_equal(ra, rb);
			assert_int_equal(a.pos, b.pos);
			if (ra > 0) {
				assert_memory_equal(&pa, &pb, sizeof(pa));
			} else if (ra != -PMT_EEOS) {
				pmt_spe_pkt_iter_skip(&a, 1);
				pmt_spe_pkt_iter_skip(&b, 1);
			}
		} while (ra != -PMT_EEOS);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_all_headers),
		cmocka_unit_test(test_null_args),
		cmocka_unit_test(test_iter),
		cmocka_unit_test(test_iter_align),
		cmocka_unit_test(test_addr_canonical),
		cmocka_unit_test(test_encode_roundtrip),
		cmocka_unit_test(test_encode_errors),
		cmocka_unit_test(test_inline_matches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
