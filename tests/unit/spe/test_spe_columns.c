/* SPE columns (the container's column frames): every byte string comes back exactly,
 * whatever it holds, however it is chunked; damaged columns are refused, never read past. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* put buf in chunks of random sizes, get them back, compare */
static void round_trip(const uint8_t *buf, size_t len, size_t max_chunk)
{
	struct pmt_spe_columns c;
	uint8_t *back = malloc(len + 1);
	size_t at = 0, n, *sizes = malloc((len + 1) * sizeof(*sizes)), nc = 0;

	memset(&c, 0, sizeof(c));
	while (at < len) {
		n = 1 + next() % max_chunk;
		if (n > len - at)
			n = len - at;
		assert_int_equal(pmt_spe_columns_put(&c, buf + at, n), 0);
		sizes[nc++] = n;
		at += n;
	}
	at = 0;
	for (size_t i = 0; i < nc; i++) {
		assert_int_equal(pmt_spe_columns_get(&c, back + at, sizes[i]), 0);
		at += sizes[i];
	}
	assert_memory_equal(back, buf, len);
	/* nothing is left over: every column was read to its end */
	for (int i = 0; i < PMT_SPE_COLS; i++)
		assert_int_equal(c.col[i].rd, c.col[i].buf.len);
	pmt_spe_columns_fini(&c);
	free(back);
	free(sizes);
}

static void every_synth_mix_in_records_and_cut_chunks(void **state)
{
	static const char *const mixes[] = { "n1", "v2", "loads", "stores", "branches", "other",
					     "hip12" };

	(void)state;
	for (size_t m = 0; m < sizeof(mixes) / sizeof(mixes[0]); m++) {
		struct pmt_spe_synth_opts o;
		struct pmt_spe_synth s;
		size_t len = 256 << 10;
		uint8_t *buf = malloc(len);
		uint32_t mix;

		pmt_spe_synth_opts_init(&o);
		assert_int_equal(pmt_spe_synth_mix_parse(mixes[m], &mix), 0);
		o.mix = mix;
		o.context = m & 1;
		o.sve = m == 1;
		o.record_size = m == 2 ? 0 : 64; /* unpadded records too */
		assert_int_equal(pmt_spe_synth_init(&s, &o), 0);
		len = (size_t)pmt_spe_synth_fill(&s, buf, len);
		round_trip(buf, len, len);       /* one chunk */
		round_trip(buf, len, 4096);      /* packets cut by chunk ends */
		round_trip(buf, len, 7);         /* tiny chunks */
		free(buf);
	}
}

static void any_bytes_come_back(void **state)
{
	uint8_t buf[8192];

	(void)state;
	for (int t = 0; t < 50; t++) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)next();
		round_trip(buf, sizeof(buf), t % 2 ? 100 : sizeof(buf));
	}
	memset(buf, 0, sizeof(buf)); /* PAD only */
	round_trip(buf, sizeof(buf), 1000);
	round_trip(buf, 0, 1);
}

static void damaged_columns_are_refused(void **state)
{
	struct pmt_spe_synth_opts o;
	struct pmt_spe_synth s;
	uint8_t buf[16384], back[16384];
	int refused = 0;

	(void)state;
	pmt_spe_synth_opts_init(&o);
	pmt_spe_synth_init(&s, &o);
	pmt_spe_synth_fill(&s, buf, sizeof(buf));
	for (int t = 0; t < 2000; t++) {
		struct pmt_spe_columns c;
		int col = (int)(next() % PMT_SPE_COLS), rc;

		memset(&c, 0, sizeof(c));
		assert_int_equal(pmt_spe_columns_put(&c, buf, sizeof(buf)), 0);
		if (t % 3 == 0 && c.col[col].buf.len) {
			c.col[col].buf.len = next() % c.col[col].buf.len; /* cut a column short */
		} else if (c.col[col].buf.len) {
			c.col[col].buf.data[next() % c.col[col].buf.len] ^= (uint8_t)(1 + next() % 255);
		}
		rc = pmt_spe_columns_get(&c, back, sizeof(back));
		/* either the bytes, differing where the damage lands, or a refusal */
		assert_true(rc == 0 || rc == -PMT_ECORRUPT);
		refused += rc < 0;
		pmt_spe_columns_fini(&c);
	}
	assert_true(refused > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_synth_mix_in_records_and_cut_chunks),
		cmocka_unit_test(any_bytes_come_back),
		cmocka_unit_test(damaged_columns_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
