#include <math.h>
#include <stdlib.h>

#include "pmutrace/common.h"

int pmt_out_init(struct pmt_out *o, FILE *fp, size_t cap)
{
	memset(o, 0, sizeof(*o));
	if (cap < 4096)
		cap = 4096;
	o->buf = malloc(cap);
	if (!o->buf)
		return -PMT_ENOMEM;
	o->fp = fp;
	o->cap = cap;
	return 0;
}

int pmt_out_flush(struct pmt_out *o)
{
	if (o->len && !o->err && fwrite(o->buf, 1, o->len, o->fp) != o->len)
		o->err = -PMT_EIO;
	o->len = 0;
	if (!o->err && fflush(o->fp) != 0)
		o->err = -PMT_EIO;
	return o->err;
}

int pmt_out_fini(struct pmt_out *o)
{
	int rc = o->buf ? pmt_out_flush(o) : o->err;

	free(o->buf);
	o->buf = NULL;
	o->cap = 0;
	return rc;
}

void pmt_out_grow(struct pmt_out *o, size_t need)
{
	if (!o->fp) {
		/* a buffer in memory (rows made ahead for a writer): it keeps what it holds */
		size_t cap = o->cap ? 2 * o->cap : 4096;
		char *p;

		while (cap - o->len < need)
			cap *= 2;
		p = realloc(o->buf, cap);
		if (!p) {
			fputs("pmutrace: out of memory in output buffer\n", stderr);
			abort();
		}
		o->buf = p;
		o->cap = cap;
		return;
	}
	if (o->len && !o->err && fwrite(o->buf, 1, o->len, o->fp) != o->len)
		o->err = -PMT_EIO;
	o->len = 0;
	if (need > o->cap) {
		char *p = realloc(o->buf, need);

		if (!p) {
			/* Callers write right after reserving, so there is no safe way on. */
			fputs("pmutrace: out of memory in output buffer\n", stderr);
			abort();
		}
		o->buf = p;
		o->cap = need;
	}
}

void pmt_out_mem(struct pmt_out *o, const void *p, size_t n)
{
	pmt_out_reserve(o, n);
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

void pmt_out_str(struct pmt_out *o, const char *s)
{
	pmt_out_mem(o, s, strlen(s));
}

void pmt_out_printf(struct pmt_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	pmt_out_reserve(o, 256);
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= o->cap - o->len) {
		pmt_out_grow(o, (size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
	}
	o->len += (size_t)n;
}

/* q / 10^prec as "integer.fraction" with prec fraction digits */
static inline __attribute__((always_inline)) char *put_fixed(char *p, uint64_t q, int prec,
							     uint64_t pow)
{
	uint64_t frac = q % pow;

	p = pmt_fmt_u64(p, q / pow);
	if (!prec)
		return p;
	*p++ = '.';
	if (prec == 6) { /* three digit pairs, as pmt_fmt_8digits */
		uint32_t hi = (uint32_t)frac / 10000, lo = (uint32_t)frac % 10000;

		memcpy(p, pmt_digit_pairs + 2 * hi, 2);
		memcpy(p + 2, pmt_digit_pairs + 2 * (lo / 100), 2);
		memcpy(p + 4, pmt_digit_pairs + 2 * (lo % 100), 2);
		return p + 6;
	}
	for (int i = prec - 1; i >= 0; i--, frac /= 10)
		p[i] = (char)('0' + frac % 10);
	return p + prec;
}

/* "%.*f" of v without printf, for prec <= 9 and |v| x 10^prec below 2^64: v is m x 2^e
 * exactly, so m x 10^prec (under 2^83) shifted by e gives the digits and the remainder
 * the rounding, half to even as glibc rounds the exact binary value in the default mode.
 * printf's arbitrary precision arithmetic took a quarter of `metrics` on a large trace.
 * Returns the end, or NULL when v is outside that range (the caller uses printf). */
static char *fmt_fixed(char *p, double v, int prec)
{
	static const uint64_t pow10[10] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
					    10000000, 100000000, 1000000000 };
	uint64_t bits, m, q;
	int bexp, e;
	unsigned __int128 x;

	if (prec < 0 || prec > 9)
		return NULL;
	memcpy(&bits, &v, sizeof(bits));
	bexp = (int)(bits >> 52 & 0x7ff);
	m = bits & ((1ull << 52) - 1);
	if (bexp == 0x7ff)
		return NULL;
	if (bexp) {
		m |= 1ull << 52;
		e = bexp - 1075;
	} else {
		e = -1074; /* subnormal, and zero */
	}
	x = (unsigned __int128)m * pow10[prec];
	if (e >= 0) {
		if (e >= 64 || x >> (64 - e))
			return NULL;
		q = (uint64_t)(x << e);
	} else if (-e >= 128) {
		q = 0; /* x < 2^83, far below half of 2^-e */
	} else {
		unsigned __int128 qq = x >> -e, r = x - (qq << -e);
		unsigned __int128 half = (unsigned __int128)1 << (-e - 1);

		if (r > half || (r == half && (qq & 1)))
			qq++;
		if (qq >> 64)
			return NULL;
		q = (uint64_t)qq;
	}
	if (bits >> 63)
		*p++ = '-'; /* printf keeps the sign of -0.0 and of what rounds to 0 */
	switch (prec) { /* constant divisors for the common precisions: no div instruction */
	case 6: return put_fixed(p, q, 6, 1000000);
	case 1: return put_fixed(p, q, 1, 10);
	default: return put_fixed(p, q, prec, pow10[prec]);
	}
}

void pmt_out_double(struct pmt_out *o, double v, int prec)
{
	char *end;

	if (isnan(v)) {
		pmt_out_str(o, "nan");
		return;
	}
	if (isinf(v)) {
		pmt_out_str(o, v < 0 ? "-inf" : "inf");
		return;
	}
	/* sign, 20 digits, point, 9 decimals */
	pmt_out_reserve(o, 32);
	end = fmt_fixed(o->buf + o->len, v, prec);
	if (end)
		o->len = (size_t)(end - o->buf);
	else
		pmt_out_printf(o, "%.*f", prec, v);
}

void pmt_out_json_str(struct pmt_out *o, const char *s)
{
	pmt_out_char(o, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			pmt_out_char(o, '\\');
			pmt_out_char(o, (char)c);
		} else if (c < 0x20) {
			pmt_out_printf(o, "\\u%04x", c);
		} else {
			pmt_out_char(o, (char)c);
		}
	}
	pmt_out_char(o, '"');
}

void pmt_out_csv_str(struct pmt_out *o, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		pmt_out_str(o, s);
		return;
	}
	pmt_out_char(o, '"');
	for (; *s; s++) {
		if (*s == '"')
			pmt_out_char(o, '"');
		pmt_out_char(o, *s);
	}
	pmt_out_char(o, '"');
}
