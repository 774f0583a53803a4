/* LEB128 varints of the counts frames' columns (counts_cols.c): read, zigzag, and passed
 * over many at a time. Private to formats/container. */
#ifndef PMT_CTR_VARINT_H
#define PMT_CTR_VARINT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmutrace/bytes.h"

static inline const uint8_t *get_uv_long(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned s = 0; p < end && s < 64; s += 7) {
		uint8_t b = *p++;

		x |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80)) {
			*v = x;
			return p;
		}
	}
	return NULL;
}

/* A varint of up to 8 bytes from one 8-byte load, its 7-bit groups gathered without a
 * loop (the byte-wise loop was a third of reading a recording's counts), pairwise: 7-bit
 * groups into 14 bits per 16, 28 per 32, then 56, in 3 steps instead of a shift and mask
 * per byte. Bits of the bytes after the varint's end only land above its 7n bits, which
 * the last mask clears (7n <= 56: no shift by 64). */
static inline const uint8_t *get_uv(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	if (end - p >= 8) {
		uint64_t w = pmt_le64(p), stop = ~w & 0x8080808080808080ull;

		if (stop) {
			unsigned n = (unsigned)__builtin_ctzll(stop) / 8 + 1;
			uint64_t x = w & 0x7f7f7f7f7f7f7f7full;

			x = (x & 0x007f007f007f007full) | (x >> 1 & 0x3f803f803f803f80ull);
			x = (x & 0x00003fff00003fffull) | (x >> 2 & 0x0fffc0000fffc000ull);
			x = (x & 0x000000000fffffffull) | (x >> 4 & 0x00fffffff0000000ull);
			*v = x & ((1ull << (7 * n)) - 1);
			return p + n;
		}
	}
	return get_uv_long(p, end, v);
}

#if defined(__x86_64__) && !defined(PMT_NO_SIMD)
#include <immintrin.h>
/* get_uv with the groups gathered by one pext, for hosts where it is one fast
 * instruction (Intel, AMD from Zen 3: on Zen 1 and 2 it is microcoded, tens of cycles);
 * the same values, ends and refusals as get_uv */
#define PMT_UV_PEXT 1
__attribute__((target("bmi2"))) static inline const uint8_t *
get_uv_pext(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	if (end - p >= 8) {
		uint64_t w = pmt_le64(p), stop = ~w & 0x8080808080808080ull;

		if (stop) {
			unsigned n = (unsigned)__builtin_ctzll(stop) / 8 + 1;

			*v = _pext_u64(w, 0x7f7f7f7f7f7f7f7full) & ((1ull << (7 * n)) - 1);
			return p + n;
		}
	}
	return get_uv_long(p, end, v);
}

static inline bool uv_pext_fast(void)
{
	return __builtin_cpu_supports("bmi2") &&
	       (__builtin_cpu_is("intel") || __builtin_cpu_is("znver3"));
}
#endif

static inline uint64_t unzz(uint64_t z)
{
	return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

/* Past n varints: a word's count of bytes that end one (high bit clear) says how many end
 * in it, so a run of records whose values are not wanted costs a load and a multiply per 8
 * bytes instead of a decode per value (the bytes' 0/1 summed by the multiply into the top
 * byte: __builtin_popcountll is a libgcc call without -mpopcnt, 8% of a run). NULL when the
 * column ends first, or at a varint over 10 bytes, which get_uv() refuses: a frame must
 * not read one way when its values are wanted and another when they are passed over. */
#define UV_MAX_CONT 9 /* continuation bytes of a 64-bit varint */
/* not inlined: a call per run passed over, and the values' decoder keeps its registers */
__attribute__((noinline)) static const uint8_t *skip_uv(const uint8_t *p, const uint8_t *end,
							 size_t n)
{
	/* the last word with an end before p (before the first: one ending at its top
	 * byte), and the continuation bytes of whole words after it */
	uint64_t prev = 1ull << 56;
	unsigned more = 0, cont;

	while (n && end - p >= 8) {
		uint64_t ones = (~pmt_le64(p) & 0x8080808080808080ull) >> 7;
		unsigned ends = (unsigned)((ones * 0x0101010101010101ull) >> 56);

		if (!ones) {
			more += 8;
			if ((unsigned)__builtin_clzll(prev) / 8 + more > UV_MAX_CONT)
				return NULL;
			p += 8;
			continue;
		}
		/* a varint over 10 bytes ending here began in whole words of continuation
		 * bytes, or 3 or more bytes back in prev and goes on 3 or more into this
		 * word (each has an end: at most 7 either side); counted only then, so
		 * a word costs two tests more, not a bit scan */
		if ((more || (!(prev >> 40) && !(ones & 0x010101))) &&
		    (unsigned)__builtin_clzll(prev) / 8 + more +
				    (unsigned)__builtin_ctzll(ones) / 8 > UV_MAX_CONT)
			return NULL;
		/* the word's bytes after the n-th end are the next varint's */
		if (ends >= n)
			break;
		prev = ones;
		more = 0;
		n -= ends;
		p += 8;
	}
	cont = (unsigned)__builtin_clzll(prev) / 8 + more;
	/* without branches on the bytes: these few vary from call to call */
	for (; n && p < end; p++) {
		unsigned c = *p >> 7;

		n -= !c;
		cont = (cont + 1) & (0u - c);
		if (cont > UV_MAX_CONT)
			return NULL;
	}
	return n ? NULL : p;
}
#endif
