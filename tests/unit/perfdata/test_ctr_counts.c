/* Counts frames (formats/container/FORMAT.md, "Counts frames") against the records they
 * stand for: STAT and STAT_ROUND records of edge values (0, UINT64_MAX, counters that go
 * down or wrap, keys out of order and repeated within a round, -1 CPUs, empty rounds) are
 * written with the writer on the caller's thread and on two threads, 4 KiB frames; every
 * counts frame decoded gives, record for record, the data frame's records as the reader
 * (pmt_ctr_next) returns them, and every data frame with STAT records has one. A frame
 * with other records too (samples, FINISHED_ROUND, AUXTRACE with its AUX bytes, an EXIT)
 * gets a version 2 one: its gaps say where each run of them stands and how many bytes it
 * takes, and its types mask names them, as the data frame shows; a STAT of another size
 * leaves its frame without one. The data frame's records read into the same columns
 * (pmt_ctr_counts_decode_records, the fallback for columns that do not decode) give the
 * same records and gaps; a decoder told to leave some keys' values unread
 * (pmt_ctr_counts_want) gives the other keys' values, and every key and round, the same.
 * A flipped byte is named by pmt_ctr_counts_list, and a decode of
 * it fails; zstd's checksum of a payload is left to the frame's own (a decoder told the
 * frame was listed decodes it with zstd's flipped). Frames of counts alone are version 3
 * (runs of usual records: keys in a row, enabled moving as the record before it did,
 * running as enabled), and those the writer makes as version 1 (its test hook) still read. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/container.h"

#define NREC 3000

static uint64_t rng = 88172645463325252ull;
static bool not_multiplexed; /* running = enabled: the usual records, keys in a row */
/* enabled moving 1000 per visit of a key (36 keys in a cycle): version 3's usual records */
static bool steady;
static bool version1; /* written as version 1 (PMT_CTR_TEST_COUNTS_VERSION), still read */

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t edge(unsigned i)
{
	static const uint64_t v[] = { 0, 1, UINT64_MAX, UINT64_MAX - 1, 1ull << 63, 0x7f, 0x80 };

	return i % 3 ? next_rand() >> (next_rand() % 64) : v[next_rand() % 7];
}

/* odd_records: a STAT of 56 bytes and an EXIT among them; mixed: samples, rounds and AUX
 * records between them, a run of them before some frames' first STAT */
static uint8_t *make(size_t *len, unsigned threads, bool odd_records, bool mixed)
{
	struct pmt_ctr_writer_opts o = { .sz = sizeof(o), .level = 1, .frame_size = 4096,
					 .threads = threads };
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_writer *w;
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	uint8_t r[56], other[160];

	rng = 88172645463325252ull;
	assert_int_equal(pmt_ctr_writer_new(fp, &o, &w, &d), 0);
	for (unsigned i = 0; i < NREC; i++) {
		memset(r, 0, sizeof(r));
		memset(other, 0xa5, sizeof(other));
		if (mixed && i % 37 == 5) { /* a SAMPLE of 40 bytes */
			pmt_put_le32(other, 9);
			pmt_put_le16(other + 6, 40);
			assert_int_equal(pmt_ctr_write(w, other, 40), 0);
		}
		if (mixed && i % 101 < 3) { /* AUXTRACE, 48 bytes and 100 AUX bytes; a round */
			pmt_put_le32(other, 71);
			pmt_put_le16(other + 6, 48);
			pmt_put_le64(other + 8, 100);
			assert_int_equal(pmt_ctr_write(w, other, 148), 0);
			pmt_put_le32(other, 68);
			pmt_put_le16(other + 6, 8);
			assert_int_equal(pmt_ctr_write(w, other, 8), 0);
		}
		if (i % 23 == 22 || (i % 400 > 380 && i % 2)) { /* rounds, some back to back */
			pmt_put_le32(r, 77);
			r[6] = 24;
			pmt_put_le64(r + 8, i % 2);
			pmt_put_le64(r + 16, edge(i));
			assert_int_equal(pmt_ctr_write(w, r, 24), 0);
			continue;
		}
		pmt_put_le32(r, 76);
		r[6] = 48;
		/* keys in a cycle with jumps: 12 ids x 3 CPUs (one -1) x 2 threads */
		pmt_put_le64(r + 8, 1000 + (i % 5 == 4 ? next_rand() % 12 : i % 12));
		pmt_put_le32(r + 16, i % 7 == 3 ? UINT32_MAX : (uint32_t)(i / 12 % 3));
		pmt_put_le32(r + 20, (uint32_t)(i % 2));
		pmt_put_le64(r + 24, edge(i));
		pmt_put_le64(r + 32, steady ? 1000 * (uint64_t)(i / 36) + 7 : edge(i + 1));
		pmt_put_le64(r + 40, not_multiplexed ? pmt_le64(r + 32) : edge(i + 2));
		if (odd_records && i == 1500) { /* a STAT of 56 bytes: its frame gets none */
			r[6] = 56;
			assert_int_equal(pmt_ctr_write(w, r, 56), 0);
			continue;
		}
		if (odd_records && i == 2500) { /* another record: its frame gets none */
			pmt_put_le32(r, 3);
		}
		assert_int_equal(pmt_ctr_write(w, r, 48), 0);
	}
	assert_int_equal(pmt_ctr_writer_close(w, &d), 0);
	assert_int_equal(fclose(fp), 0);
	return (uint8_t *)buf;
}

struct refs {
	struct pmt_ctr_counts_ref v[512];
	unsigned n;
};

static int note(const struct pmt_ctr_counts_ref *ref, void *ctx)
{
	struct refs *r = ctx;

	assert_true(r->n < 512);
	r->v[r->n++] = *ref;
	return 0;
}

/* the bytes a record takes in the stream (an AUXTRACE's AUX bytes follow it) */
static size_t rec_bytes(const uint8_t *p)
{
	return pmt_le16(p + 6) + (pmt_le32(p) == 71 ? (size_t)pmt_le64(p + 8) : 0);
}

/* a frame should have a counts frame: STAT or STAT_ROUND records, all of their sizes */
static bool has_counts(const uint8_t *p, size_t n)
{
	bool any = false;

	for (size_t at = 0; at < n; at += rec_bytes(p + at)) {
		uint32_t t = pmt_le32(p + at);
		uint16_t size = pmt_le16(p + at + 6);

		if ((t == 76 && size != 48) || (t == 77 && size != 24))
			return false;
		any |= t == 76 || t == 77;
	}
	return any;
}

/* pmt_ctr_counts_want: the values of ids 1000 + 6k alone (runs of five ids not wanted) */
static bool wanted_id(uint64_t id)
{
	return id % 6 == 1000 % 6;
}

static void some_keys(const struct pmt_ctr_count_key *keys, uint32_t nkeys, uint8_t *want,
		      void *ctx)
{
	unsigned *left_out = ctx;

	for (uint32_t k = 0; k < nkeys; k++) {
		want[k] = wanted_id(keys[k].id);
		*left_out += !want[k];
	}
}

/* the frame's records, rebuilt from its counts frame, equal the records, and its gaps
 * and types those of the other records between them (some: the values of wanted_id()'s
 * keys alone) */
static void same_records_of(const struct pmt_ctr_counts_frame *f,
			    const struct pmt_ctr_counts_ref *ref, const uint8_t *p, size_t n,
			    bool some)
{
	size_t at = 0;
	uint32_t s = 0, r = 0, ord = 0, g = 0, inseg = 0;
	uint64_t gap = 0, types[2] = { 0, 0 };

	while (at < n) {
		uint32_t t = pmt_le32(p + at);

		if (t != 76 && t != 77) {
			gap += rec_bytes(p + at);
			types[t >> 6] |= 1ull << (t & 63);
			at += rec_bytes(p + at);
			continue;
		}
		if (gap) {
			assert_true(g < f->ngaps);
			assert_int_equal(f->gap_at[g], ord);
			assert_int_equal(f->gap[g], gap);
			g++;
			gap = 0;
		}
		if (t == 76) {
			const struct pmt_ctr_count_key *key = &f->keys[f->key[s]];

			assert_true(r <= f->nrounds && inseg < f->seg[r] && s < f->nstats);
			assert_int_equal(pmt_le64(p + at + 8), key->id);
			assert_int_equal(pmt_le32(p + at + 16), key->cpu);
			assert_int_equal(pmt_le32(p + at + 20), key->thread);
			if (!some || wanted_id(key->id)) {
				assert_int_equal(pmt_le64(p + at + 24), f->val[s]);
				assert_int_equal(pmt_le64(p + at + 32), f->ena[s]);
				assert_int_equal(pmt_le64(p + at + 40), f->run[s]);
			}
			s++;
			inseg++;
			at += 48;
		} else {
			assert_true(r < f->nrounds);
			assert_int_equal(inseg, f->seg[r]);
			assert_int_equal(pmt_le64(p + at + 8), f->round_type[r]);
			assert_int_equal(pmt_le64(p + at + 16), f->round_time[r]);
			r++;
			inseg = 0;
			at += 24;
		}
		ord++;
	}
	assert_int_equal(r, f->nrounds);
	assert_int_equal(inseg, f->seg[r]);
	assert_int_equal(s, f->nstats);
	assert_int_equal(g, f->ngaps);
	assert_int_equal(at, n);
	assert_int_equal(types[0], ref->other_types[0]);
	assert_int_equal(types[1], ref->other_types[1]);
}

static void same_records(const struct pmt_ctr_counts_frame *f,
			 const struct pmt_ctr_counts_ref *ref, const uint8_t *p, size_t n)
{
	same_records_of(f, ref, p, n, false);
}

/* The list checks its frames' checksums four at a time: a flipped byte in one of the
 * second four, or in the last frame (of a batch the frames may not fill), damages that
 * frame alone, which is then said as its data frame's info says it; the other frames
 * are listed as they were, all of them in file order. */
static void same_when_flipped(uint8_t *buf, size_t len)
{
	static struct refs ok, bad;
	unsigned flip[4];

	ok.n = bad.n = 0;
	assert_true(pmt_ctr_counts_list(buf, len, note, &ok) > 9);
	flip[0] = 5, flip[1] = 6, flip[2] = 7, flip[3] = ok.n - 1;
	for (unsigned j = 0; j < 4; j++)
		buf[ok.v[flip[j]].at + 70] ^= 0x10;
	assert_int_equal(pmt_ctr_counts_list(buf, len, note, &bad), (int)ok.n);
	for (unsigned j = 0; j < 4; j++)
		buf[ok.v[flip[j]].at + 70] ^= 0x10;
	for (unsigned i = 0; i < ok.n; i++) {
		const struct pmt_ctr_counts_ref *o = &ok.v[i], *b = &bad.v[i];
		bool flipped = i == 5 || i == 6 || i == 7 || i == ok.n - 1;

		assert_int_equal(b->at, o->at);
		assert_int_equal(b->size, o->size);
		assert_int_equal(b->index, o->index);
		assert_int_equal(b->offset, o->offset);
		assert_int_equal(b->stream_offset, o->stream_offset);
		assert_int_equal(b->stream_size, o->stream_size);
		if (flipped) {
			assert_string_equal(b->damaged, "its checksum fails");
			assert_int_equal(b->version | b->nstats | b->nrounds | b->nkeys | b->records,
					 0);
			assert_int_equal(b->other_types[0] | b->other_types[1], 0);
			continue;
		}
		assert_ptr_equal(b->damaged, o->damaged);
		assert_int_equal(b->version, o->version);
		assert_int_equal(b->records, o->records);
		assert_int_equal(b->nstats, o->nstats);
		assert_int_equal(b->nrounds, o->nrounds);
		assert_int_equal(b->nkeys, o->nkeys);
		assert_int_equal(b->other_types[0], o->other_types[0]);
		assert_int_equal(b->other_types[1], o->other_types[1]);
	}
}

static void check(unsigned threads, bool odd, bool mixed)
{
	size_t len;
	uint8_t *buf = make(&len, threads, odd, mixed);
	struct refs refs = { .n = 0 };
	struct pmt_ctr_reader *rd;
	struct pmt_ctr_counts *dec, *some, *listed;
	unsigned left_out = 0;
	struct pmt_ctr_frame fr;
	struct pmt_diag d = PMT_DIAG_INIT;
	unsigned with = 0, without = 0, with_others = 0;

	assert_true(pmt_ctr_counts_list(buf, len, note, &refs) > 0);
	assert_int_equal(pmt_ctr_counts_new(&dec), 0);
	assert_int_equal(pmt_ctr_counts_new(&some), 0);
	assert_int_equal(pmt_ctr_counts_new(&listed), 0);
	pmt_ctr_counts_listed(listed, true);
	pmt_ctr_counts_want(some, some_keys, &left_out);
	assert_int_equal(pmt_ctr_reader_new(buf, len, "t", &rd, &d), 0);
	while (pmt_ctr_next(rd, &fr, &d) == 1) {
		const struct pmt_ctr_counts_ref *ref = NULL;
		struct pmt_ctr_counts_frame f;
		const char *why;

		for (unsigned i = 0; i < refs.n; i++)
			if (refs.v[i].index == fr.index)
				ref = &refs.v[i];
		if (!has_counts(fr.data, fr.size)) {
			assert_null(ref);
			without++;
			continue;
		}
		assert_non_null(ref);
		assert_null(ref->damaged);
		assert_int_equal(ref->version, ref->other_types[0] | ref->other_types[1] ? 2
					       : version1			    ? 1
										    : 3);
		assert_int_equal(ref->offset, fr.offset);
		assert_int_equal(ref->stream_offset, fr.stream_offset);
		assert_int_equal(ref->stream_size, fr.size);
		assert_int_equal(pmt_ctr_counts_decode(dec, buf, len, ref->at, &f, &why), 0);
		same_records(&f, ref, fr.data, fr.size);
		if (with == 3) {
			/* the frame's own checksum, which the listing checked, covers the
			 * compressed payload: zstd's of the bytes it decompresses to (its
			 * last 4 before that checksum) is not computed again, so a flipped
			 * one decodes, as listed decoders (the reader's) do */
			size_t zsum = (size_t)(ref->at + ref->size - 8);

			buf[zsum] ^= 0x01;
			assert_int_equal(pmt_ctr_counts_decode(listed, buf, len, ref->at, &f, &why),
					 0);
			same_records(&f, ref, fr.data, fr.size);
			buf[zsum] ^= 0x01;
		}
		/* some keys' values left unread: the others' and every key and round the same */
		assert_int_equal(pmt_ctr_counts_decode(some, buf, len, ref->at, &f, &why), 0);
		same_records_of(&f, ref, fr.data, fr.size, true);
		/* the fallback for columns that do not decode: the data frame's own records */
		assert_int_equal(pmt_ctr_counts_decode_records(dec, buf, len, ref->offset,
							       ref->stream_size, &f, &why), 0);
		same_records(&f, ref, fr.data, fr.size);
		assert_int_equal(f.nkeys, f.nstats);
		/* a size other than the frame's, or no zstd frame there, is refused */
		assert_int_equal(pmt_ctr_counts_decode_records(dec, buf, len, ref->offset,
							       ref->stream_size + 24, &f, &why),
				 -PMT_ECORRUPT);
		assert_int_equal(pmt_ctr_counts_decode_records(dec, buf, len, ref->at,
							       ref->stream_size, &f, &why),
				 -PMT_ECORRUPT);
		with++;
		with_others += (ref->other_types[0] | ref->other_types[1]) != 0;
	}
	assert_true(with > 20);
	/* the 56-byte STAT's frame has none; the EXIT's has one, with others */
	assert_int_equal(without, odd ? 1 : 0);
	if (mixed)
		assert_true(with_others > 20);
	else
		assert_int_equal(with_others, odd ? 1 : 0);
	/* a flipped byte in the payload of the fifth counts frame */
	buf[refs.v[4].at + 70] ^= 0x10;
	refs.n = 0;
	pmt_ctr_counts_list(buf, len, note, &refs);
	assert_non_null(refs.v[4].damaged);
	assert_string_equal(refs.v[4].damaged, "its checksum fails");
	assert_null(refs.v[3].damaged);
	{
		struct pmt_ctr_counts_frame f;
		const char *why;

		assert_int_equal(pmt_ctr_counts_decode(dec, buf, len, refs.v[4].at, &f, &why),
				 -PMT_ECORRUPT);
		assert_non_null(why);
	}
	buf[refs.v[4].at + 70] ^= 0x10;
	same_when_flipped(buf, len);
	assert_true(left_out > 100);
	pmt_ctr_reader_free(rd);
	pmt_ctr_counts_free(dec);
	pmt_ctr_counts_free(some);
	pmt_ctr_counts_free(listed);
	free(buf);
}

static void test_caller_thread(void **state)
{
	(void)state;
	check(1, false, false);
	check(1, true, false);
	check(1, false, true);
	not_multiplexed = true; /* runs of keys in a row whose values are not wanted */
	check(1, false, false);
	check(1, false, true);
	steady = true; /* runs of usual records, some of them not wanted */
	check(1, false, false);
	check(1, true, false);
	not_multiplexed = false;
	check(1, false, false);
	steady = false;
	/* the layout before version 3, as files written before it hold, still read */
	setenv("PMT_CTR_TEST_COUNTS_VERSION", "1", 1);
	version1 = true;
	check(1, false, false);
	check(1, true, false);
	unsetenv("PMT_CTR_TEST_COUNTS_VERSION");
	version1 = false;
}

static void test_pool(void **state)
{
	(void)state;
	check(2, false, false);
	check(2, true, false);
	check(2, false, true);
}

#define LONG_KEYS 8
/* the values of the last key alone */
static void last_key(const struct pmt_ctr_count_key *keys, uint32_t nkeys, uint8_t *want,
		     void *ctx)
{
	(void)ctx;
	for (uint32_t k = 0; k < nkeys; k++)
		want[k] = keys[k].id == 100 + LONG_KEYS - 1;
}

/* A counts frame of LONG_KEYS records, one per key, no round, whose
 * column col (4 values, 5 enabled) holds at record `at` a varint of `len` bytes and 1-byte
 * varints elsewhere (the last record's value 5); its payload a zstd frame of one raw block */
static size_t long_varint_frame(uint8_t *out, int col, unsigned at, unsigned len)
{
	uint8_t raw[255], *p = raw + 28;
	uint32_t sizes[7] = { 1, 0, 0, LONG_KEYS, LONG_KEYS, LONG_KEYS, LONG_KEYS };
	size_t nraw, n = 0;

	for (unsigned k = 0; k < LONG_KEYS; k++) {
		pmt_put_le64(p, 100 + k);
		pmt_put_le32(p + 8, k);
		pmt_put_le32(p + 12, 0);
		p += 16;
	}
	*p++ = LONG_KEYS; /* the records after the (no) last round */
	memset(p, 0, LONG_KEYS); /* keys in a row */
	p += LONG_KEYS;
	for (int c = 4; c <= 5; c++)
		for (unsigned i = 0; i < LONG_KEYS; i++) {
			if (c == col && i == at) {
				memset(p, 0x80, len - 1);
				p[len - 1] = 0x01;
				p += len;
				sizes[c] += len - 1;
				continue;
			}
			*p++ = c == 4 && i == LONG_KEYS - 1 ? 10 : 0; /* zigzag 5 */
		}
	memset(p, 0, LONG_KEYS); /* running = enabled */
	p += LONG_KEYS;
	for (int c = 0; c < 7; c++)
		pmt_put_le32(raw + 4 * c, sizes[c]);
	nraw = (size_t)(p - raw);
	assert_true(nraw < 256);
	pmt_put_le32(out, 0x184D2A56u);
	memcpy(out + 8, "PMTCOUNT", 8);
	pmt_put_le32(out + 16, 1);                    /* version */
	memset(out + 20, 0, 20);                      /* frame number, offsets */
	pmt_put_le32(out + 40, 48 * LONG_KEYS);       /* stream size */
	pmt_put_le32(out + 44, LONG_KEYS);            /* records */
	pmt_put_le32(out + 48, LONG_KEYS);            /* STAT */
	pmt_put_le32(out + 52, 0);                    /* STAT_ROUND */
	pmt_put_le32(out + 56, LONG_KEYS);            /* keys */
	pmt_put_le32(out + 60, (uint32_t)nraw);
	n = 64;
	pmt_put_le32(out + n, 0xFD2FB528u);           /* zstd: single segment, 1-byte size */
	out[n + 4] = 0x20;
	out[n + 5] = (uint8_t)nraw;
	n += 6;
	out[n] = (uint8_t)(nraw << 3 | 1);            /* the last block, raw */
	out[n + 1] = (uint8_t)(nraw >> 5);
	out[n + 2] = (uint8_t)(nraw >> 13);
	memcpy(out + n + 3, raw, nraw);
	n += 3 + nraw;
	pmt_put_le32(out + n, 0); /* no checksum: decoded as listed, as the reader does */
	n += 4;
	pmt_put_le32(out + 4, (uint32_t)(n - 8));
	return n;
}

/* A varint over 10 bytes is refused whether its record's values are read or passed over
 * (pmt_ctr_counts_want): the frame decodes the same either way, at every place of the run
 * of records passed over (inside a word, across words, at the column's end) */
static void test_long_varint(void **state)
{
	struct pmt_ctr_counts *all, *some;
	uint8_t buf[512];

	(void)state;
	assert_int_equal(pmt_ctr_counts_new(&all), 0);
	assert_int_equal(pmt_ctr_counts_new(&some), 0);
	pmt_ctr_counts_want(some, last_key, NULL);
	/* the reader's decoders: the listing checked the checksums */
	pmt_ctr_counts_listed(all, true);
	pmt_ctr_counts_listed(some, true);
	for (int col = 4; col <= 5; col++)
		for (unsigned at = 0; at < LONG_KEYS - 1; at++)
			for (unsigned len = 9; len <= 19; len++) {
				size_t n = long_varint_frame(buf, col, at, len);
				struct pmt_ctr_counts_frame f;
				const char *why_all, *why_some;
				int ra = pmt_ctr_counts_decode(all, buf, n, 0, &f, &why_all);
				int rs = pmt_ctr_counts_decode(some, buf, n, 0, &f, &why_some);

				if (len <= 10) {
					assert_int_equal(ra, 0);
					assert_int_equal(rs, 0);
					assert_int_equal(f.nstats, LONG_KEYS);
					assert_int_equal(f.val[LONG_KEYS - 1], 5);
					continue;
				}
				assert_int_equal(ra, -PMT_ECORRUPT);
				assert_int_equal(rs, -PMT_ECORRUPT);
				assert_string_equal(why_all, why_some);
				assert_string_equal(why_some, "a value column is short or has a "
							      "varint over 10 bytes");
			}
	pmt_ctr_counts_free(all);
	pmt_ctr_counts_free(some);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caller_thread),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_long_varint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
