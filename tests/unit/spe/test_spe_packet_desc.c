/* pmt_spe_packet_desc(): buffer handling and flavours. The texts themselves are covered per
 * packet by the golden vectors (fixtures/spe); here: truncation, argument errors, and that the
 * flavour flags change exactly what arm-spe.md says they change. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"

static struct pmt_spe_packet pkt_of(const uint8_t *b, size_t n)
{
	struct pmt_spe_packet p;

	assert_int_equal(pmt_spe_packet_decode(b, n, 0, &p), (int)n);
	return p;
}

static void test_truncation(void **state)
{
	static const uint8_t pc[] = { 0xb0, 0x68, 0xe0, 0x20, 0x84, 0xc0, 0xff, 0xff, 0xa0 };
	struct pmt_spe_packet p = pkt_of(pc, sizeof(pc));
	const char *full = "PC 0xffffc08420e068 el1 ns=1"; /* perf 6.1 on the hiperf buffer */
	char out[64];

	assert_int_equal(pmt_spe_packet_desc(&p, out, sizeof(out)), (int)strlen(full));
	assert_string_equal(out, full);
	/* exactly fits: length + NUL */
	assert_int_equal(pmt_spe_packet_desc(&p, out, strlen(full) + 1), (int)strlen(full));
	/* one short: truncated, terminated, -PMT_ERANGE */
	memset(out, 'x', sizeof(out));
	assert_int_equal(pmt_spe_packet_desc(&p, out, strlen(full)), -PMT_ERANGE);
	assert_int_equal(strlen(out), strlen(full) - 1);
	assert_memory_equal(out, full, strlen(full) - 1);
	memset(out, 'x', sizeof(out));
	assert_int_equal(pmt_spe_packet_desc(&p, out, 1), -PMT_ERANGE);
	assert_int_equal(out[0], '\0');
	assert_int_equal(out[1], 'x');
}

static void test_bad_type(void **state)
{
	struct pmt_spe_packet p = { 0 };
	char out[32];

	p.type = PMT_SPE_ALIGN_PAD + 1;
	assert_int_equal(pmt_spe_packet_desc(&p, out, sizeof(out)), -PMT_EINVAL);
	p.type = PMT_SPE_ALIGN_PAD;
	assert_int_equal(pmt_spe_packet_desc(&p, out, sizeof(out)), 3);
	assert_string_equal(out, "PAD"); /* perf decodes alignment pads as PAD */
}

/* EVENTS bit 12: IMPDEF:12 (newest, no MIDR), LATE-PREFETCH (N1), ignored (6.1). */
static void test_flavours(void **state)
{
	static const uint8_t ev[] = { 0x52, 0x02, 0x10 };
	static const uint8_t br[] = { 0x4a, 0x12 }; /* IND + CR-RET */
	struct pmt_spe_packet p = pkt_of(ev, sizeof(ev));
	char out[PMT_SPE_DESC_MAX];

	pmt_spe_packet_desc_flags(&p, 0, out, sizeof(out));
	assert_string_equal(out, "EV RETIRED IMPDEF:12");
	pmt_spe_packet_desc_flags(&p, PMT_SPE_DESC_N1, out, sizeof(out));
	assert_string_equal(out, "EV RETIRED LATE-PREFETCH");
	pmt_spe_packet_desc_flags(&p, PMT_SPE_DESC_LEGACY61, out, sizeof(out));
	assert_string_equal(out, "EV RETIRED");
	p = pkt_of(br, sizeof(br));
	pmt_spe_packet_desc_flags(&p, 0, out, sizeof(out));
	assert_string_equal(out, "B IND CR-RET");
	/* 6.1: IND only when (p & 0xfe) == 0x02 */
	pmt_spe_packet_desc_flags(&p, PMT_SPE_DESC_LEGACY61, out, sizeof(out));
	assert_string_equal(out, "B");
}

/* The longest text fits PMT_SPE_DESC_MAX: all 64 EVENTS bits in every flavour. */
static void test_max(void **state)
{
	static const uint8_t ev[] = { 0x72, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct pmt_spe_packet p = pkt_of(ev, sizeof(ev));
	char out[PMT_SPE_DESC_MAX];

	for (unsigned f = 0; f < 4; f++)
		assert_true(pmt_spe_packet_desc_flags(&p, f, out, sizeof(out)) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_bad_type),
		cmocka_unit_test(test_flavours),
		cmocka_unit_test(test_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
