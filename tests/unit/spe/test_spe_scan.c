/* pmt_spe_scan (the header scan the container's frame infos use) against a walk built on
 * the full packet decoder (pmt_spe_packet_decode, one packet at a time, PAD byte by byte):
 * the same timestamps, first event, open end and untimed flag for every synth mix whole and
 * cut at arbitrary offsets and lengths (records and packets cut, walks that begin inside
 * payloads), the shared real buffers, random bytes, extended headers and records whose
 * shapes differ only in their last bytes (the scan takes a record of a shape it has seen in
 * one step); every buffer sits against an unmapped page, so a read past its end stops the
 * test. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"

#define OPEN_UNKNOWN 2

static void ref_event(struct pmt_spe_scan *s, int *open, int is_end, int opens)
{
	if (*open == OPEN_UNKNOWN)
		s->first = is_end ? PMT_SPE_SCAN_END_FIRST : PMT_SPE_SCAN_OTHER_FIRST;
	else if (is_end)
		s->untimed |= (uint8_t)*open;
	*open = opens;
}

/* The reference: a record ends at TIMESTAMP or END, any other packet but PAD opens one */
static void ref_scan(const uint8_t *p, size_t n, struct pmt_spe_scan *s)
{
	size_t pos = 0;
	int open = OPEN_UNKNOWN;

	memset(s, 0, sizeof(*s));
	while (pos < n) {
		struct pmt_spe_packet pkt;
		int rc = pmt_spe_packet_decode(p + pos, n - pos, pos, &pkt);

		if (rc <= 0) {
			ref_event(s, &open, 0, 1);
			s->untimed = 1;
			break;
		}
		pos += (size_t)rc;
		if (pkt.type == PMT_SPE_TIMESTAMP) {
			if (!s->timed || pkt.payload < s->ts_lo)
				s->ts_lo = pkt.payload;
			if (!s->timed || pkt.payload > s->ts_hi)
				s->ts_hi = pkt.payload;
			s->timed = 1;
		}
		if (pkt.type != PMT_SPE_PAD && pkt.type != PMT_SPE_ALIGN_PAD)
			ref_event(s, &open, pkt.type == PMT_SPE_END,
				  pkt.type != PMT_SPE_TIMESTAMP && pkt.type != PMT_SPE_END);
	}
	if (open == OPEN_UNKNOWN)
		s->first = PMT_SPE_SCAN_NO_EVENT;
	else
		s->open_out = (uint8_t)open;
}

/* a buffer whose last byte is the last of a page before an unmapped one */
static uint8_t *guard;
static size_t guard_len;

static const uint8_t *at_guard(const uint8_t *p, size_t n)
{
	uint8_t *b = guard + guard_len - n;

	assert_true(n <= guard_len);
	memcpy(b, p, n);
	return b;
}

static unsigned checked;

static void check(const uint8_t *p, size_t n, const char *what, size_t off)
{
	struct pmt_spe_scan got, want;
	const uint8_t *b = at_guard(p, n);

	ref_scan(b, n, &want);
	assert_int_equal(pmt_spe_scan(b, n, 0, &got), 0);
	if (memcmp(&got, &want, sizeof(got))) {
		fprintf(stderr, "%s: %zu bytes at %zu: got ts %llx-%llx timed %u first %u open %u "
			"untimed %u; want ts %llx-%llx timed %u first %u open %u untimed %u\n",
			what, n, off, (unsigned long long)got.ts_lo, (unsigned long long)got.ts_hi,
			got.timed, got.first, got.open_out, got.untimed,
			(unsigned long long)want.ts_lo, (unsigned long long)want.ts_hi, want.timed,
			want.first, want.open_out, want.untimed);
		fail();
	}
	checked++;
}

static int setup(void **state)
{
	long page = sysconf(_SC_PAGESIZE);

	(void)state;
	srandom(1);
	guard_len = (size_t)page * 512;
	guard = mmap(NULL, guard_len + (size_t)page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(guard != MAP_FAILED);
	assert_int_equal(mprotect(guard + guard_len, (size_t)page, PROT_NONE), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	munmap(guard, guard_len + (size_t)sysconf(_SC_PAGESIZE));
	return 0;
}

/* libc's generator, seeded in setup: the same pieces every run */
static uint64_t rnd(void)
{
	return (uint64_t)random() << 31 ^ (uint64_t)random();
}

/* whole, then pieces of every length class at arbitrary offsets (walks that begin inside
 * packets and records, buffers shorter than a record shape) */
static void check_cuts(const uint8_t *p, size_t n, const char *what)
{
	static const size_t lens[] = { 1, 2, 9, 16, 17, 63, 200, 4095, 4096, 4097, 10000, 65536,
				       300000 };

	check(p, n, what, 0);
	for (unsigned i = 0; i < sizeof(lens) / sizeof(*lens); i++) {
		for (unsigned k = 0; k < 40 && lens[i] <= n; k++) {
			size_t off = (size_t)(rnd() % (n - lens[i] + 1));

			check(p + off, lens[i], what, off);
		}
	}
}

static void synth_mixes(void **state)
{
	static const char *mixes[] = { "n1", "v2", "loads", "stores", "branches", "other",
				       "hip12" };
	size_t n = 1u << 20;
	uint8_t *b = malloc(n);

	(void)state;
	assert_non_null(b);
	for (unsigned m = 0; m < sizeof(mixes) / sizeof(*mixes); m++) {
		for (unsigned variant = 0; variant < 3; variant++) {
			struct pmt_spe_synth_opts o;
			struct pmt_spe_synth s;

			pmt_spe_synth_opts_init(&o);
			assert_int_equal(pmt_spe_synth_mix_parse(mixes[m], &o.mix), 0);
			o.seed = 7 + variant;
			o.context = variant == 1;
			o.timestamps = variant != 2; /* records ending in END */
			o.record_size = variant == 1 ? 0 : 64;
			assert_int_equal(pmt_spe_synth_init(&s, &o), 0);
			assert_true(pmt_spe_synth_fill(&s, b, n) > 0);
			check_cuts(b, n, mixes[m]);
		}
	}
	free(b);
}

static void shared_buffers(void **state)
{
	static const char *files[] = { "wperf_spe-b1-ts0.data", "wperf_spe-b1-ts1.data",
				       "spe_parser_test_get_frame.bin", "quipper_SampleSPEPackets.bin",
				       "hiperf_TestSpeDecoder.bin" };
	unsigned found = 0;

	(void)state;
	for (unsigned i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char path[1024];
		uint8_t buf[4096], big[8192];
		size_t n;
		FILE *fp;

		snprintf(path, sizeof(path), "%s/data/spe/%s", PMT_SHARED_DIR, files[i]);
		if (!(fp = fopen(path, "rb")))
			continue;
		n = fread(buf, 1, sizeof(buf), fp);
		fclose(fp);
		found++;
		/* alone, every prefix and suffix, and repeated (its records' shapes seen again) */
		for (size_t k = 0; k <= n; k++) {
			check(buf, k, files[i], 0);
			check(buf + k, n - k, files[i], k);
		}
		for (size_t at = 0; at + n <= sizeof(big); at += n)
			memcpy(big + at, buf, n);
		check_cuts(big, sizeof(big) / n * n, files[i]);
	}
	if (!found)
		skip(); /* no shared data (a fresh clone) */
}

static void garbage(void **state)
{
	uint8_t *b = malloc(1u << 16);

	(void)state;
	assert_non_null(b);
	for (unsigned round = 0; round < 300; round++) {
		size_t n = (size_t)(rnd() % (1u << 16));

		for (size_t i = 0; i < n; i++) {
			uint64_t r = rnd();

			/* mostly valid-looking headers, some zero runs, extended headers and
			 * bad bytes */
			b[i] = (uint8_t)(r % 7 == 0 ? 0 : r % 11 == 0 ? 0x20 | (r >> 8 & 3) :
					 r % 13 == 0 ? 0x71 : r % 17 == 0 ? 0x01 : r >> 16);
		}
		check(b, n, "random", 0);
	}
	free(b);
}

/* a timestamp only at the end, a PAD-only buffer, extended headers, alignment pads,
 * misaligned walks, record shapes that differ at their end */
static void edges(void **state)
{
	size_t n = 3u << 12;
	uint8_t *b = calloc(1, n);

	(void)state;
	assert_non_null(b);
	check(b, n, "zeros", 0);
	b[n - 9] = 0x71;
	pmt_put_le64(b + n - 8, 42);
	check(b, n, "one timestamp at the end", 0);
	b[n - 9] = 0x01;
	check(b, n, "one END at the end", 0);
	for (size_t at = 0; at + 10 <= n; at += 10) {
		b[at] = 0x20;     /* extended ADDRESS, index 8 + 0 */
		b[at + 1] = 0xB0;
	}
	check_cuts(b, n, "extended headers");
	memset(b, 0, n);
	for (size_t at = 0; at + 16 <= n; at += 16)
		b[at] = 0x23, b[at + 1] = 0x00; /* alignment pads to 16 */
	check_cuts(b, n, "alignment pads");
	/* COUNTERs 0x98 whose payloads are 0x71 0x98: a walk that begins at a 0x71 reads
	 * TIMESTAMPs forever and never meets the true packets */
	for (size_t at = 0; at < n; at++)
		b[at] = at % 3 == 1 ? 0x71 : 0x98;
	check_cuts(b, n, "misaligned walks");
	/* shapes that differ in their last 8 bytes: A is 5 ADDRESS, EVENTS, 2 COUNTER, two
	 * DATA_SOURCE at 54 and 56, END at 58 (59 bytes); C is A with a TIMESTAMP at 56 (65
	 * bytes), the only timestamps. A scan that took C for A would find none (planted:
	 * a shape compared without its bytes 56-63 fails here) */
	memset(b, 0, n);
	for (size_t at = 0, r = 0; at + 65 <= n; r++) {
		for (unsigned k = 0; k < 5; k++)
			b[at + 9 * k] = 0xB0;
		b[at + 45] = 0x52;
		b[at + 48] = 0x99;
		b[at + 51] = 0x98;
		b[at + 54] = 0x43;
		if (r % 3 == 2) {
			b[at + 56] = 0x71;
			pmt_put_le64(b + at + 57, 1000 + r);
			at += 65;
		} else {
			b[at + 56] = 0x43;
			b[at + 58] = 0x01;
			at += 59;
		}
	}
	check_cuts(b, n, "shapes that differ at their end");
	assert_int_equal(pmt_spe_scan(NULL, 1, 0, &(struct pmt_spe_scan){ 0 }), -PMT_EINVAL);
	assert_int_equal(pmt_spe_scan(b, 1, 0, NULL), -PMT_EINVAL);
	free(b);
	fprintf(stderr, "%u buffers compared\n", checked);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(synth_mixes),
		cmocka_unit_test(shared_buffers),
		cmocka_unit_test(garbage),
		cmocka_unit_test(edges),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
