/* pmutrace common: the fast buffered text writer (pmt_out) and its inline number formatting,
 * which every sample writer uses per row. */
#ifndef PMUTRACE_TEXT_OUT_H
#define PMUTRACE_TEXT_OUT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
/* SIMD fast paths; -DPMT_NO_SIMD builds the portable code that arm64 and other hosts use, so
 * CI can test it on x86 (the sanitizer build does) */
#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && !defined(PMT_NO_SIMD)
#define PMT_HAVE_SSE2 1
#include <emmintrin.h>
#endif

#include "pmutrace/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- fast buffered text output ---------------------------------------------------------
 * stdio's printf dominates the cost of a CSV sink; this writer formats integers itself
 * and flushes in large blocks. Errors are sticky and reported by pmt_out_flush/close. */
struct pmt_out {
	FILE *fp; /* NULL: a buffer in memory, grown (malloc'd buf) instead of flushed */
	char *buf;
	size_t len;
	size_t cap;
	int err; /* first error, as -PMT_EIO */
};
PMT_API int pmt_out_init(struct pmt_out *o, FILE *fp, size_t cap);
PMT_API int pmt_out_flush(struct pmt_out *o);
PMT_API int pmt_out_fini(struct pmt_out *o); /* flushes and frees; does not fclose */
PMT_API void pmt_out_grow(struct pmt_out *o, size_t need); /* flushes when need won't fit */
static inline void pmt_out_reserve(struct pmt_out *o, size_t need)
{
	if (o->cap - o->len < need)
		pmt_out_grow(o, need);
}
static inline void pmt_out_char(struct pmt_out *o, char c)
{
	pmt_out_reserve(o, 1);
	o->buf[o->len++] = c;
}
PMT_API void pmt_out_str(struct pmt_out *o, const char *s);
PMT_API void pmt_out_mem(struct pmt_out *o, const void *p, size_t n);
/* Number formatting, inline: sinks write a dozen numbers per sample. pmt_fmt_* write at p
 * (room for 20 bytes; hex 18 with "0x") and return the end, for callers that reserve once
 * for a whole row and keep the position in a register; pmt_out_* reserve per number. */
static const char pmt_digit_pairs[200] =
	"0001020304050607080910111213141516171819202122232425262728293031323334353637"
	"3839404142434445464748495051525354555657585960616263646566676869707172737475"
	"767778798081828384858687888990919293949596979899";
/* exactly 8 digits of v < 10^8: four independent pair lookups, no dependent chain */
static inline void pmt_fmt_8digits(char *p, uint32_t v)
{
	uint32_t hi = v / 10000, lo = v % 10000;

	memcpy(p, pmt_digit_pairs + 2 * (hi / 100), 2);
	memcpy(p + 2, pmt_digit_pairs + 2 * (hi % 100), 2);
	memcpy(p + 4, pmt_digit_pairs + 2 * (lo / 100), 2);
	memcpy(p + 6, pmt_digit_pairs + 2 * (lo % 100), 2);
}
/* v < 10^8, no leading zeros */
static inline char *pmt_fmt_u32_small(char *p, uint32_t v)
{
	/* digit count from the bit length (1233/4096 ~ log10 2) */
	static const uint32_t pow10[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
					   10000000, 100000000 };
	int t = ((32 - __builtin_clz(v | 1)) * 1233) >> 12;
	int n = t + 1 - (v < pow10[t]);
	char *end = p + (n < 1 ? 1 : n);

	p = end;
	while (v >= 100) {
		unsigned r = v % 100;

		v /= 100;
		p -= 2;
		memcpy(p, pmt_digit_pairs + 2 * r, 2);
	}
	if (v >= 10)
		memcpy(p - 2, pmt_digit_pairs + 2 * v, 2);
	else
		p[-1] = (char)('0' + v);
	return end;
}
/* v >= 100 */
static inline char *pmt_fmt_u64_long(char *p, uint64_t v)
{
	/* long numbers (timestamps) in 8-digit blocks that format in parallel */
	if (v < 100000000)
		return pmt_fmt_u32_small(p, (uint32_t)v);
	if (v < 10000000000000000ULL) {
		p = pmt_fmt_u32_small(p, (uint32_t)(v / 100000000));
	} else {
		uint64_t top = v / 10000000000000000ULL;

		p = pmt_fmt_u32_small(p, (uint32_t)top);
		pmt_fmt_8digits(p, (uint32_t)((v / 100000000) % 100000000));
		p += 8;
	}
	pmt_fmt_8digits(p, (uint32_t)(v % 100000000));
	return p + 8;
}
/* decimal; always inline: most sample fields (cpu, period, latencies) are one or two
 * digits, and an out-of-line call per field cost more than formatting them */
__attribute__((always_inline)) static inline char *pmt_fmt_u64(char *p, uint64_t v)
{
	if (v < 100) {
		/* one or two digits without a branch on which (latencies straddle 10): a
		 * single digit is the second byte of its pair, the byte after it slack */
		uint32_t one = v < 10;

		memcpy(p, pmt_digit_pairs + 2 * v + one, 2);
		return p + 2 - one;
	}
	return pmt_fmt_u64_long(p, v);
}
static inline char *pmt_fmt_i64(char *p, int64_t v)
{
	if (v < 0)
		*p++ = '-';
	return pmt_fmt_u64(p, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}
/* 8 nibbles -> 8 ASCII hex digits, most significant first in memory (a little-endian
 * word); no table, no loop: a byte loop over 16 digits took a third of the CSV sink. */
static inline uint64_t pmt_hex8(uint32_t x)
{
	uint64_t v = x;

	v = (v | v << 16) & 0x0000ffff0000ffffULL;
	v = (v | v << 8) & 0x00ff00ff00ff00ffULL;
	v = (v | v << 4) & 0x0f0f0f0f0f0f0f0fULL;
	/* digits >= 10 carry into bit 4 of (d + 6): add 'a' - '0' - 10 to those */
	v += 0x3030303030303030ULL + (((v + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL) * 39;
	return __builtin_bswap64(v);
}
static inline char *pmt_fmt_hex(char *p, uint64_t v) /* lower-case, no prefix */
{
	/* stores whole words: may write up to 16 bytes at p whatever the length */
	int n = (64 - __builtin_clzll(v | 1) + 3) / 4;
#ifdef PMT_HAVE_SSE2
	/* all 16 digits at once, the value shifted left so that its first digit leads:
	 * a dozen vector operations where the word-wise pmt_hex8() pair took twice that */
	__m128i x = _mm_cvtsi64_si128((long long)__builtin_bswap64(v << (4 * (16 - n))));
	__m128i m = _mm_set1_epi8(0x0f);
	__m128i d = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), m), _mm_and_si128(x, m));

	d = _mm_add_epi8(d, _mm_add_epi8(_mm_set1_epi8('0'),
					 _mm_and_si128(_mm_cmpgt_epi8(d, _mm_set1_epi8(9)),
						       _mm_set1_epi8('a' - '0' - 10))));
	_mm_storeu_si128((__m128i *)(void *)p, d);
	return p + n;
#elif __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	for (int i = n - 1; i >= 0; i--, v >>= 4)
		p[i] = "0123456789abcdef"[v & 0xf];
	return p + n;
#else
	uint64_t lo = pmt_hex8((uint32_t)v);

	if (n > 8) {
		/* drop the leading zero digits of the high word: they are its low bytes */
		uint64_t hi = pmt_hex8((uint32_t)(v >> 32)) >> (8 * (16 - n));

		memcpy(p, &hi, 8);
		memcpy(p + n - 8, &lo, 8);
	} else {
		lo >>= 8 * (8 - n);
		memcpy(p, &lo, 8);
	}
	return p + n;
#endif
}
static inline char *pmt_fmt_0x(char *p, uint64_t v)
{
	p[0] = '0';
	p[1] = 'x';
	return pmt_fmt_hex(p + 2, v);
}
static inline void pmt_out_u64(struct pmt_out *o, uint64_t v)
{
	pmt_out_reserve(o, 20);
	o->len = (size_t)(pmt_fmt_u64(o->buf + o->len, v) - o->buf);
}
static inline void pmt_out_i64(struct pmt_out *o, int64_t v)
{
	pmt_out_reserve(o, 21);
	o->len = (size_t)(pmt_fmt_i64(o->buf + o->len, v) - o->buf);
}
static inline void pmt_out_hex(struct pmt_out *o, uint64_t v)
{
	pmt_out_reserve(o, 16);
	o->len = (size_t)(pmt_fmt_hex(o->buf + o->len, v) - o->buf);
}
static inline void pmt_out_0x(struct pmt_out *o, uint64_t v)
{
	pmt_out_reserve(o, 18);
	o->len = (size_t)(pmt_fmt_0x(o->buf + o->len, v) - o->buf);
}
PMT_API void pmt_out_double(struct pmt_out *o, double v, int prec);
PMT_API void pmt_out_printf(struct pmt_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* JSON string with escapes (quotes included); CSV field quoted only when needed. */
PMT_API void pmt_out_json_str(struct pmt_out *o, const char *s);
PMT_API void pmt_out_csv_str(struct pmt_out *o, const char *s);


#ifdef __cplusplus
}
#endif
#endif
