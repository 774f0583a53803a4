/* pmutrace synth generator: determinism, well-formed records, and events that agree with the
 * data source (the N1 meaning of codes in arm-spe.md §2: 0 = L1D hit needs no L1D refill;
 * 0xA..0xE are beyond L2 so LLC-ACCESS is set; 0xE = DRAM and 0xD = remote miss the LLC). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"

static size_t gen(uint64_t seed, uint32_t mix, int ts, uint8_t *buf, size_t len)
{
	struct pmt_spe_synth_opts o;
	struct pmt_spe_synth s;
	int64_t n;

	pmt_spe_synth_opts_init(&o);
	o.seed = seed;
	o.mix = mix;
	o.timestamps = (uint8_t)ts;
	o.context = 1;
	o.sve = 1;
	assert_int_equal(pmt_spe_synth_init(&s, &o), 0);
	n = pmt_spe_synth_fill(&s, buf, len);
	assert_true(n > 0);
	return (size_t)n;
}

static void test_deterministic(void **state)
{
	enum { N = 1 << 16 };
	uint8_t *a = malloc(N), *b = malloc(N);
	size_t na = gen(7, PMT_SPE_MIX_N1, 1, a, N), nb = gen(7, PMT_SPE_MIX_N1, 1, b, N);

	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	/* 64-byte records: the largest multiple of 64 that fits */
	assert_int_equal(na, N / 64 * 64);
	nb = gen(8, PMT_SPE_MIX_N1, 1, b, N);
	assert_memory_not_equal(a, b, 64);
	free(a);
	free(b);
}

struct rec_check {
	int have_ds, have_ev, ds, closed;
	uint64_t ev;
	unsigned op;
};

static void check_mix(uint32_t mix, int ts)
{
	enum { N = 1 << 18 };
	uint8_t *buf = malloc(N);
	size_t n = gen(42, mix, ts, buf, N);
	struct pmt_spe_pkt_iter it;
	struct pmt_spe_packet pkt;
	struct rec_check r = { 0 };
	unsigned records = 0, refills = 0, loads = 0;
	int ret;

	pmt_spe_pkt_iter_init(&it, buf, n, 0);
	while ((ret = pmt_spe_pkt_next(&it, &pkt)) != -PMT_EEOS) {
		assert_true(ret > 0); /* no bad or truncated packet anywhere */
		switch (pkt.type) {
		case PMT_SPE_EVENTS:
			r.have_ev = 1;
			r.ev = pkt.payload;
			break;
		case PMT_SPE_OP_TYPE:
			r.op = pkt.index;
			break;
		case PMT_SPE_DATA_SOURCE:
			r.have_ds = 1;
			r.ds = (int)pkt.payload;
			break;
		case PMT_SPE_TIMESTAMP:
		case PMT_SPE_END:
			assert_int_equal(pkt.type, ts ? PMT_SPE_TIMESTAMP : PMT_SPE_END);
			/* a record closes every 64 bytes */
			assert_int_equal(it.pos % 64, 0);
			assert_true(r.have_ev);
			if (r.have_ds && mix != PMT_SPE_MIX_HIP12) { /* N1 codes */
				int refill = (r.ev >> PMT_SPE_EV_L1D_REFILL) & 1;
				int llc = (r.ev >> PMT_SPE_EV_LLC_ACCESS) & 1;
				int miss = (r.ev >> PMT_SPE_EV_LLC_MISS) & 1;

				assert_int_equal(r.op, PMT_SPE_OP_LDST);
				loads++;
				refills += (unsigned)refill;
				assert_int_equal(r.ds == 0, !refill);
				assert_int_equal(r.ds >= 0xA, llc);
				assert_int_equal(r.ds == 0xD || r.ds == 0xE, miss);
				assert_true(r.ds == 0 || (r.ds >= 8 && r.ds <= 0xE));
			}
			records++;
			memset(&r, 0, sizeof(r));
			break;
		default:
			break;
		}
	}
	assert_int_equal(records, n / 64);
	if (mix == PMT_SPE_MIX_LOADS) {
		assert_int_equal(loads, records);
		/* about 8% L1D refills: well inside 4%..12% over 4096 loads */
		assert_true(refills * 25 > loads && refills * 25 < loads * 3);
	}
	free(buf);
}

static void test_mixes(void **state)
{
	for (uint32_t mix = 0; mix < PMT_SPE_MIX_COUNT; mix++) {
		check_mix(mix, 1);
		check_mix(mix, 0);
	}
}

static void test_args(void **state)
{
	struct pmt_spe_synth_opts o;
	struct pmt_spe_synth s;
	uint8_t buf[PMT_SPE_SYNTH_RECORD_MAX];
	uint32_t mix = 99;

	pmt_spe_synth_opts_init(&o);
	o.mix = PMT_SPE_MIX_COUNT;
	assert_int_equal(pmt_spe_synth_init(&s, &o), -PMT_EINVAL);
	o.mix = 0;
	o.record_size = 32;
	assert_int_equal(pmt_spe_synth_init(&s, &o), -PMT_EINVAL);
	o.record_size = 0; /* no fill: records are shorter than 64 */
	assert_int_equal(pmt_spe_synth_init(&s, &o), 0);
	assert_true(pmt_spe_synth_next_record(&s, buf, sizeof(buf)) < 64);
	assert_int_equal(pmt_spe_synth_next_record(&s, buf, 10), -PMT_EINVAL);
	assert_int_equal(pmt_spe_synth_init(NULL, &o), -PMT_EINVAL);
	/* an options struct without its size (a caller that skipped opts_init), or one too
	 * small to hold the fields this build reads, is refused rather than read past */
	o.sz = 0;
	assert_int_equal(pmt_spe_synth_init(&s, &o), -PMT_EINVAL);
	o.sz = offsetof(struct pmt_spe_synth_opts, kernel_pct);
	assert_int_equal(pmt_spe_synth_init(&s, &o), -PMT_EINVAL);
	assert_int_equal(pmt_spe_synth_mix_parse("v2", &mix), 0);
	assert_int_equal(mix, PMT_SPE_MIX_V2);
	assert_int_equal(pmt_spe_synth_mix_parse("x", &mix), -PMT_EPARSE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_mixes),
		cmocka_unit_test(test_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
