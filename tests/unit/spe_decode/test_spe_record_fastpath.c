/* The fused record assembler against the reference path (the generic packet iterator,
 * pmt_spe_rec_opts.reference = 1): both must return identical records and identical skip/drop statistics
 * for every stream, including damaged ones fed in random chunks. The reference path is the
 * one the golden vectors and the perf 6.1 differential tests check; this test carries that
 * over to the fused path on far more inputs than those. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmutrace/spe.h"
#include "pmutrace/spe_decode.h"

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64*: any deterministic generator will do, the seeds are fixed */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

#define FIELD(f)                                                                          \
	do {                                                                              \
		if (a->f != b->f) {                                                       \
			snprintf(why, cap, "record %zu (offset 0x%llx): " #f " %llx != %llx", \
				 n, (unsigned long long)b->offset, (unsigned long long)a->f,   \
				 (unsigned long long)b->f);                                    \
			return 0;                                                         \
		}                                                                         \
	} while (0)

static int same_record(const struct pmt_spe_record *a, const struct pmt_spe_record *b,
		       size_t n, char *why, size_t cap)
{
	FIELD(offset);
	FIELD(events);
	FIELD(from_ip);
	FIELD(to_ip);
	FIELD(prev_br_tgt);
	FIELD(virt_addr);
	FIELD(phys_addr);
	FIELD(timestamp);
	FIELD(context_id);
	FIELD(op);
	FIELD(latency);
	FIELD(issue_lat);
	FIELD(xlat_lat);
	FIELD(source);
	FIELD(op_class);
	FIELD(op_payload);
	FIELD(has_ts);
	FIELD(partial);
	FIELD(npackets);
	return 1;
}

#define STAT(f)                                                                           \
	do {                                                                              \
		if (a->f != b->f) {                                                       \
			snprintf(why, cap, "stats." #f " %llu != %llu (fast != reference)",  \
				 (unsigned long long)a->f, (unsigned long long)b->f);          \
			return 0;                                                         \
		}                                                                         \
	} while (0)

static int same_stats(const struct pmt_spe_rec_stats *a, const struct pmt_spe_rec_stats *b,
		      char *why, size_t cap)
{
	STAT(records);
	STAT(bytes_skipped);
	STAT(bad_ranges);
	STAT(records_dropped);
	STAT(have_bad);
	STAT(first_bad_offset);
	return 1;
}

/* Decodes buf with both paths, fed in chunks whose sizes come from chunk_seed (0: one
 * buffer), and fails the test with a description of the first difference. */
static void check_both(const uint8_t *buf, size_t len, uint64_t chunk_seed, int emit_partial,
		       const char *what)
{
	struct pmt_spe_rec_decoder *dec[2];
	struct pmt_spe_record ra, rb;
	uint64_t rs = chunk_seed;
	size_t pos = 0, n = 0;
	char why[256];
	int first = 1;

	for (int i = 0; i < 2; i++) {
		struct pmt_spe_rec_opts o = PMT_OPTS_INIT(pmt_spe_rec_opts,
							  .emit_partial = (uint8_t)emit_partial,
							  .reference = (uint8_t)i);

		assert_int_equal(pmt_spe_rec_new(&o, &dec[i]), 0);
	}
	while (first || pos < len) {
		size_t chunk = len - pos;

		if (chunk_seed) {
			uint64_t r = rng_next(&rs);
			/* mostly small chunks (splits inside packets), sometimes large ones */
			size_t want = (r & 7) ? 1 + (size_t)((r >> 8) % 97) : (size_t)((r >> 8) % 5000);

			chunk = want < chunk ? want : chunk;
		}
		for (int i = 0; i < 2; i++)
			pmt_spe_rec_feed(dec[i], buf + pos, chunk, pos);
		first = 0;
		for (;;) {
			int a = pmt_spe_rec_next(dec[0], &ra);
			int b = pmt_spe_rec_next(dec[1], &rb);

			if (a != b)
				fail_msg("%s: record %zu: fast returns %d, reference %d", what, n, a,
					 b);
			if (a != 1)
				break;
			if (!same_record(&ra, &rb, n, why, sizeof(why)))
				fail_msg("%s: %s", what, why);
			n++;
		}
		pos += chunk;
	}
	if (!same_stats(pmt_spe_rec_stats(dec[0]), pmt_spe_rec_stats(dec[1]), why, sizeof(why)))
		fail_msg("%s: %s", what, why);
	pmt_spe_rec_free(dec[0]);
	pmt_spe_rec_free(dec[1]);
}

/* Byte sequences the fused path hands to the reference path, and some it must not trip on. */
static const uint8_t specials[][12] = {
	{ 1, 0x4b },                                   /* OP_TYPE class 3 (+ payload below) */
	{ 2, 0x21, 0x00 },                             /* alignment pad, 4-byte boundary */
	{ 2, 0x23, 0x00 },                             /* alignment pad, 16-byte boundary */
	{ 10, 0x20, 0xb0, 1, 2, 3, 4, 5, 6, 7, 0x80 }, /* extended ADDRESS index 8 */
	{ 4, 0x21, 0x99, 0x34, 0x12 },                 /* extended COUNTER index 9 */
	{ 1, 0x01 },                                   /* END */
	{ 1, 0x20 },                                   /* extended header, no second byte */
	{ 2, 0x20, 0x05 },                             /* extended header, bad second byte */
	{ 1, 0xff },                                   /* bad byte */
	{ 1, 0x02 },                                   /* bad byte */
	{ 3, 0x52, 0x00, 0x00 },                       /* second EVENTS packet (ORed) */
	{ 9, 0xb5, 1, 2, 3, 4, 5, 6, 7, 8 },           /* ADDRESS index 5: no field */
	{ 3, 0x9f, 1, 2 },                             /* COUNTER index 7: no field */
	{ 2, 0x4a, 0x2f },                             /* second OP_TYPE, branch */
	{ 9, 0x71, 1, 2, 3, 4, 5, 6, 7, 8 },           /* TIMESTAMP */
};

/* Damages a stream in place: overwrites, zero runs and special sequences at random places. */
static void damage(uint8_t *buf, size_t len, uint64_t seed, unsigned per_mille)
{
	uint64_t rs = seed;
	size_t hits = len * per_mille / 1000;

	for (size_t i = 0; i < hits; i++) {
		uint64_t r = rng_next(&rs);
		size_t at = (size_t)(r % len);

		switch ((r >> 40) % 4) {
		case 0:
			buf[at] = (uint8_t)(r >> 48);
			break;
		case 1: {
			size_t n = (size_t)((r >> 48) % 40);

			for (size_t k = 0; k < n && at + k < len; k++)
				buf[at + k] = 0;
			break;
		}
		default: {
			const uint8_t *sp = specials[(r >> 48) % (sizeof(specials) / sizeof(specials[0]))];

			for (size_t k = 0; k < sp[0] && at + k < len; k++)
				buf[at + k] = sp[1 + k];
			break;
		}
		}
	}
}

static size_t make_stream(uint8_t *buf, size_t cap, unsigned mix, uint64_t seed, unsigned variant)
{
	struct pmt_spe_synth_opts o;
	struct pmt_spe_synth s;
	static const uint16_t sizes[] = { 64, 0, 128, 96 };
	int64_t n;

	pmt_spe_synth_opts_init(&o);
	o.mix = mix;
	o.seed = seed;
	o.timestamps = (uint8_t)!(variant & 1);
	o.context = (uint8_t)((variant >> 1) & 1);
	o.sve = (uint8_t)((variant >> 2) & 1);
	o.pa = (uint8_t)((variant >> 3) & 1);
	o.record_size = sizes[(variant >> 4) & 3];
	assert_int_equal(pmt_spe_synth_init(&s, &o), 0);
	n = pmt_spe_synth_fill(&s, buf, cap);
	assert_true(n > 0);
	return (size_t)n;
}

static void test_clean_streams(void **state)
{
	enum { CAP = 1 << 16 };
	uint8_t *buf = malloc(CAP);
	char what[96];

	(void)state;
	assert_non_null(buf);
	for (unsigned mix = 0; mix < PMT_SPE_MIX_COUNT; mix++)
		for (unsigned variant = 0; variant < 64; variant++) {
			size_t len = make_stream(buf, CAP, mix, 1 + variant, variant);

			snprintf(what, sizeof(what), "clean mix %u variant %u", mix, variant);
			check_both(buf, len, 0, variant & 1, what);
			check_both(buf, len, 77 + variant, variant & 1, what);
		}
	free(buf);
}

static void test_damaged_streams(void **state)
{
	enum { CAP = 1 << 15 };
	static const unsigned rates[] = { 1, 5, 30, 200 };
	uint8_t *buf = malloc(CAP);
	char what[128];

	(void)state;
	assert_non_null(buf);
	for (unsigned mix = 0; mix < PMT_SPE_MIX_COUNT; mix++)
		for (uint64_t seed = 1; seed <= 12; seed++) {
			unsigned variant = (unsigned)(seed * 11 + mix) & 63;
			unsigned rate = rates[seed & 3];
			size_t len = make_stream(buf, CAP, mix, seed, variant);

			damage(buf, len, seed * 1000 + mix, rate);
			for (int partial = 0; partial < 2; partial++) {
				snprintf(what, sizeof(what),
					 "damaged mix %u seed %llu rate %u/1000 emit_partial %d", mix,
					 (unsigned long long)seed, rate, partial);
				check_both(buf, len, 0, partial, what);
				check_both(buf, len, seed, partial, what);
			}
		}
	free(buf);
}

/* Random bytes drawn mostly from valid header bytes: many odd packet sequences. */
static void test_random_packets(void **state)
{
	static const uint8_t hdrs[] = { 0x00, 0x00, 0x00, 0x01, 0x71, 0x42, 0x52, 0x62, 0x72,
					0x43, 0x53, 0x63, 0x73, 0x64, 0x65, 0x48, 0x49, 0x4a,
					0x4b, 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb6, 0x98, 0x99,
					0x9a, 0x9c, 0x20, 0x22, 0x07 };
	enum { LEN = 1 << 14 };
	uint8_t *buf = malloc(LEN);
	char what[64];

	(void)state;
	assert_non_null(buf);
	for (uint64_t seed = 1; seed <= 40; seed++) {
		uint64_t rs = seed;

		for (size_t i = 0; i < LEN; i++) {
			uint64_t r = rng_next(&rs);

			buf[i] = (r & 3) ? hdrs[(r >> 8) % sizeof(hdrs)] : (uint8_t)(r >> 16);
		}
		snprintf(what, sizeof(what), "random packets seed %llu", (unsigned long long)seed);
		check_both(buf, LEN, 0, (int)(seed & 1), what);
		check_both(buf, LEN, seed, (int)(seed & 1), what);
	}
	free(buf);
}

/* A record of 65536 EVENTS packets: its uint16 packet count wraps to 0, after which the
 * reference path lets a PAD move the record's offset (as perf's record would restart); the
 * fused path must hand such a record over rather than differ. */
static void test_packet_count_wrap(void **state)
{
	enum { NPK = 65536 };
	size_t len = 2 * NPK + 3 + 9 + 64;
	uint8_t *buf = calloc(1, len);
	size_t at = 0;

	(void)state;
	assert_non_null(buf);
	for (int i = 0; i < NPK; i++) {
		buf[at++] = 0x42; /* EVENTS, 1 byte */
		buf[at++] = (uint8_t)(1u << (i & 7));
	}
	at += 3; /* PAD */
	buf[at] = 0x71;
	check_both(buf, len, 0, 0, "wrapped packet count");
	check_both(buf, len, 5, 1, "wrapped packet count, chunks");
	free(buf);
}

/* Record layouts that repeat (so the decoder's layout cache serves them) but are unusual:
 * repeated fields (the last wins, EVENTS are ORed), no CONTEXT, END instead of TIMESTAMP,
 * PADs inside, packets that set no field, tiny records and ones over 64 bytes. Headers only;
 * payloads are random on every repetition. */
static const char *const layouts[] = {
	"b0 52 52 71",          /* two EVENTS packets: ORed */
	"b0 48 49 4a 71",       /* three OP_TYPE packets: the last wins */
	"b0 b0 b2 b2 01",       /* repeated addresses, END */
	"b5 9f 9c 71",          /* ADDRESS index 5, COUNTER 7 and 4: no field */
	"01",                   /* an empty record */
	"52 00 00 00 71",       /* PADs inside */
	"b0 64 49 52 99 98 b2 9a 43 00 00 00 00 00 00 00 00 00 00 00 00 00 00 71",
	"b0 65 4a 62 99 98 b1 b4 00 00 00 71", /* CONTEXT el2, 4-byte EVENTS, PBT */
	"b0 b1 b2 b3 b4 64 49 72 71",          /* 8-byte EVENTS, 66 bytes: too long to cache */
	"43 53 63 73 01",       /* DATA_SOURCE of every size */
};

static size_t put_layout(uint8_t *buf, const char *l, uint64_t *rs)
{
	size_t n = 0;

	for (const char *c = l; *c; c += c[2] ? 3 : 2) {
		unsigned h = (unsigned)strtoul(c, NULL, 16);
		unsigned len = !h || h == 1 ? 1 : 1 + (1u << ((h >> 4) & 3));

		buf[n] = (uint8_t)h;
		for (unsigned k = 1; k < len; k++)
			buf[n + k] = (uint8_t)rng_next(rs);
		n += len;
	}
	return n;
}

static void test_repeated_layouts(void **state)
{
	enum { CAP = 1 << 16 };
	uint8_t *buf = malloc(CAP);
	char what[64];

	(void)state;
	assert_non_null(buf);
	for (uint64_t seed = 1; seed <= 8; seed++) {
		uint64_t rs = seed;
		size_t len = 0;

		while (len + 128 < CAP) {
			uint64_t r = rng_next(&rs);

			len += put_layout(buf + len, layouts[r % (sizeof(layouts) / sizeof(layouts[0]))],
					  &rs);
		}
		snprintf(what, sizeof(what), "repeated layouts seed %llu", (unsigned long long)seed);
		check_both(buf, len, 0, 0, what);
		check_both(buf, len, seed, 1, what);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_streams),
		cmocka_unit_test(test_damaged_streams),
		cmocka_unit_test(test_random_packets),
		cmocka_unit_test(test_packet_count_wrap),
		cmocka_unit_test(test_repeated_layouts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
