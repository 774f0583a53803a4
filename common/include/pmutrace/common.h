/* pmutrace common layer: error codes, byte readers, logging, output and CLI helpers.
 *
 * Every fallible function in pmutrace returns int: >= 0 on success (often a byte or
 * item count), -PMT_E* on failure. pmt_errstr() names either sign.
 */
#ifndef PMUTRACE_COMMON_H
#define PMUTRACE_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
/* SIMD fast paths; -DPMT_NO_SIMD builds the portable code that arm64 and other hosts use, so
 * CI can test it on x86 (the sanitizer build does) */
#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && !defined(PMT_NO_SIMD)
#define PMT_HAVE_SSE2 1
#include <emmintrin.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define PMT_API __attribute__((visibility("default")))

/* ---- errors ------------------------------------------------------------------------
 * One enum for every layer. Values are stable: append, never renumber. */
enum pmt_error {
	PMT_OK = 0,
	PMT_EINTERNAL = 1,    /* a bug in pmutrace */
	PMT_EINVAL = 2,       /* invalid argument from the caller */
	PMT_ENOMEM = 3,       /* allocation failed */
	PMT_EEOS = 4,         /* end of stream: no more items */
	PMT_ENEED_MORE = 5,   /* input ends inside an item (truncated) */
	PMT_EBAD_PACKET = 6,  /* bytes that are no valid packet */
	PMT_EIO = 7,          /* read/write/open failed (errno has the detail) */
	PMT_EFORMAT = 8,      /* not a file of the expected format */
	PMT_EVERSION = 9,     /* a format version this build does not know */
	PMT_ECORRUPT = 10,    /* structurally invalid data (bad size, offset out of range) */
	PMT_EUNSUPPORTED = 11,/* valid but not supported (feature, compression type, ...) */
	PMT_EPARSE = 12,      /* syntax error in text input (expression, event string, option) */
	PMT_ENOT_FOUND = 13,  /* named thing does not exist (metric, event, PMU, file) */
	PMT_EPERM = 14,       /* permission denied (perf_event_paranoid, capabilities) */
	PMT_ENO_PMU = 15,     /* the PMU the request needs is missing on this machine */
	PMT_ECYCLE = 16,      /* a definition refers back to itself (metric recursion) */
	PMT_EDIV_ZERO = 17,   /* modulo by zero in an expression */
	PMT_ERANGE = 18,      /* value out of range */
	PMT_ENOSYNC = 19,     /* decoder has no sync point yet */
	PMT_ECOMPRESS = 20,   /* (de)compression failed */
	PMT_ELOST = 21,       /* data was lost (ring overflow, truncated AUX) */
	PMT_ERROR_COUNT
};

/* Name of an error code; accepts err or -err. Never NULL. */
PMT_API const char *pmt_errstr(int err);

/* ---- diagnostics ----------------------------------------------------------------------
 * The one way error detail travels: the callee fills it, the caller prints it. `file` is
 * the input's path as the user gave it (not owned: it must outlive the diag). */
#define PMT_DIAG_NO_OFFSET UINT64_MAX
struct pmt_diag {
	int code;            /* -PMT_E*, 0 when nothing was reported */
	const char *file;    /* NULL when the problem is not in a file */
	uint64_t offset;     /* byte offset in file, PMT_DIAG_NO_OFFSET when none */
	uint32_t line;       /* 1-based line of a text input, 0 when none */
	char msg[1024];      /* room for lists: the valid terms of a PMU, the PMUs there are */
};
#define PMT_DIAG_INIT { 0, NULL, PMT_DIAG_NO_OFFSET, 0, { 0 } }
/* Fill d (may be NULL: then only the code is returned) and return code (negative). */
PMT_API int pmt_diag_set(struct pmt_diag *d, int code, const char *file, uint64_t offset,
			 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same for a line of a text input. */
PMT_API int pmt_diag_set_line(struct pmt_diag *d, int code, const char *file, uint32_t line,
			      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* "FILE: offset 0x1f0: MSG" / "FILE:12: MSG" / "MSG" into out; returns the length. */
PMT_API int pmt_diag_format(const struct pmt_diag *d, char *out, size_t cap);
/* Log it as an error ("pmutrace: error: ..."). */
PMT_API void pmt_diag_print(const struct pmt_diag *d);

/* Options structs that may grow start with `size_t sz` (libbpf's way). */
#define PMT_OPTS_INIT(type, ...) ((struct type){ .sz = sizeof(struct type), __VA_ARGS__ })
/* Is `field` inside the caller's options (older callers pass a smaller struct)? */
#define PMT_OPTS_HAS(opts, field) \
	(pmt_opts_sz_(opts) >= offsetof(__typeof__(*(opts)), field) + sizeof((opts)->field))
static inline size_t pmt_opts_sz_(const void *opts) { return opts ? *(const size_t *)opts : 0; }

/* "pmutrace X.Y.Z", from the project version in CMakeLists.txt. */
PMT_API const char *pmt_version(void);

/* ---- byte readers --------------------------------------------------------------------
 * Unaligned little/big-endian loads. Bounds are the caller's job on hot paths; the
 * checked cursor below is for headers and metadata. */
static inline uint16_t pmt_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t pmt_le32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}
static inline uint64_t pmt_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}
static inline void pmt_put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void pmt_put_le32(uint8_t *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	memcpy(p, &v, 4);
}
static inline void pmt_put_le64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

/* A bounds-checked cursor over a byte range; `swap` reads the other byte order. */
struct pmt_cursor {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	bool swap;
};
static inline void pmt_cursor_init(struct pmt_cursor *c, const void *buf, size_t len, bool swap)
{
	c->buf = (const uint8_t *)buf;
	c->len = len;
	c->pos = 0;
	c->swap = swap;
}
static inline size_t pmt_cursor_left(const struct pmt_cursor *c) { return c->len - c->pos; }
/* Each returns 0 or -PMT_ENEED_MORE (cursor unchanged). */
PMT_API int pmt_cursor_u8(struct pmt_cursor *c, uint8_t *v);
PMT_API int pmt_cursor_u16(struct pmt_cursor *c, uint16_t *v);
PMT_API int pmt_cursor_u32(struct pmt_cursor *c, uint32_t *v);
PMT_API int pmt_cursor_u64(struct pmt_cursor *c, uint64_t *v);
PMT_API int pmt_cursor_bytes(struct pmt_cursor *c, void *dst, size_t n);
PMT_API int pmt_cursor_skip(struct pmt_cursor *c, size_t n);

/* ---- logging -------------------------------------------------------------------------
 * Library code never prints to stdout. Messages go to a sink the CLI may replace. */
enum pmt_log_level { PMT_LOG_ERROR, PMT_LOG_WARN, PMT_LOG_INFO, PMT_LOG_DEBUG };
typedef void (*pmt_log_fn)(enum pmt_log_level level, const char *msg, void *ctx);
PMT_API void pmt_log_set_level(enum pmt_log_level level);
PMT_API enum pmt_log_level pmt_log_get_level(void);
PMT_API void pmt_log_set_sink(pmt_log_fn fn, void *ctx); /* NULL restores stderr */
/* Messages logged so far at a level (those the level let through). A command that logged
 * a warning or an error and still produced its output exits PMT_EXIT_DAMAGED. */
PMT_API unsigned long pmt_log_count(enum pmt_log_level level);
PMT_API void pmt_log(enum pmt_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define pmt_error(...) pmt_log(PMT_LOG_ERROR, __VA_ARGS__)
#define pmt_warn(...) pmt_log(PMT_LOG_WARN, __VA_ARGS__)
#define pmt_info(...) pmt_log(PMT_LOG_INFO, __VA_ARGS__)
#define pmt_debug(...) pmt_log(PMT_LOG_DEBUG, __VA_ARGS__)

/* Internal error macros in the style of zstd's RETURN_ERROR_IF: at debug level they log
 * file:line and the failed condition, so corrupt-input failures can be traced. */
#define PMT_RETURN_IF(cond, err)                                                        \
	do {                                                                            \
		if (cond) {                                                             \
			pmt_debug("%s:%d: %s -> %s", __FILE__, __LINE__, #cond,         \
				  pmt_errstr(err));                                     \
			return -(err);                                                  \
		}                                                                       \
	} while (0)
#define PMT_FORWARD_IF_ERROR(expr)                                                      \
	do {                                                                            \
		int pmt_fwd_rc_ = (expr);                                               \
		if (pmt_fwd_rc_ < 0) {                                                  \
			pmt_debug("%s:%d: %s -> %s", __FILE__, __LINE__, #expr,         \
				  pmt_errstr(pmt_fwd_rc_));                             \
			return pmt_fwd_rc_;                                             \
		}                                                                       \
	} while (0)

/* ---- growable byte buffer --------------------------------------------------------------*/
struct pmt_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};
PMT_API int pmt_buf_reserve(struct pmt_buf *b, size_t extra); /* 0 or -PMT_ENOMEM */
PMT_API int pmt_buf_append(struct pmt_buf *b, const void *p, size_t n);
PMT_API void pmt_buf_fini(struct pmt_buf *b);

/* ---- fast buffered text output ---------------------------------------------------------
 * stdio's printf dominates the cost of a CSV sink; this writer formats integers itself
 * and flushes in large blocks. Errors are sticky and reported by pmt_out_flush/close. */
struct pmt_out {
	FILE *fp;
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

/* ---- files -----------------------------------------------------------------------------*/
/* Read-only view of a whole file: mmap when possible, else read into memory ("-" = stdin,
 * pipes, devices), at most PMT_STREAM_READ_MAX bytes of it. Returns 0, or -PMT_EIO or
 * -PMT_ERANGE (too large to read into memory) with diag (may be NULL) naming the file. */
#define PMT_STREAM_READ_MAX (256u << 20)
struct pmt_file_map {
	const uint8_t *data;
	size_t size;
	int mapped; /* 1 = mmap, 0 = heap */
};
PMT_API int pmt_file_map(const char *path, struct pmt_file_map *m, struct pmt_diag *diag);
PMT_API void pmt_file_unmap(struct pmt_file_map *m);
/* An output file that never destroys anything: open() refuses a path that is the same
 * file as one of `inputs` (device and inode: symlinks and hard links too; "-" is stdin)
 * and otherwise writes to a temporary ".NAME.XXXXXX" in the target's folder; commit()
 * flushes, fsyncs and renames it over the target; abort() (or a SIGINT, SIGTERM, SIGHUP,
 * SIGPIPE) removes it, leaving any previous file untouched. "-" or NULL is stdout; a
 * device or FIFO is written directly. Write through `fp`. */
struct pmt_out_file {
	FILE *fp;
	int fd;
	const char *name; /* the caller's path, for messages */
	char *path; /* the target (NULL for stdout) */
	char *tmp;  /* the temporary file, NULL when writing directly */
	int slot;   /* private: signal-cleanup slot */
};
PMT_API int pmt_out_file_open(struct pmt_out_file *f, const char *path,
			      const char *const *inputs, size_t n_inputs, struct pmt_diag *diag);
PMT_API int pmt_out_file_commit(struct pmt_out_file *f, struct pmt_diag *diag);
PMT_API void pmt_out_file_abort(struct pmt_out_file *f);

/* ---- progress line ----------------------------------------------------------------------
 * A status line on a terminal while a long decode runs: bytes decoded (of the input's size,
 * with the share and an ETA when the size is known), samples, rates. The bytes are the
 * streams' positions (an SPE trace: each CPU's AUX offset) summed: the caller reports one
 * with pmt_progress_stream() when pmt_progress_due(), then counts samples with
 * pmt_progress_add(), which reads the clock only every PMT_PROGRESS_EVERY samples; the
 * line is redrawn at most 5 times a second and cleared by fini. Caller-owned: fields are
 * public for the inline checks, set by init. */
#define PMT_PROGRESS_EVERY 4096
#define PMT_PROGRESS_STREAMS 4096 /* streams tracked (CPUs); others are not counted */
struct pmt_progress {
	FILE *fp;              /* NULL: off (every call is a no-op) */
	const char *what;      /* the line's prefix, e.g. the command */
	uint64_t total;        /* input bytes; 0: not known (no share, no ETA) */
	uint64_t *stream_pos;  /* [PMT_PROGRESS_STREAMS] each stream's last position */
	uint64_t pos;          /* their sum: the bytes decoded */
	uint64_t samples, next_check;
	uint64_t t0, last;     /* CLOCK_MONOTONIC ns: start, last redraw */
	int shown;             /* a line is on the terminal */
};
/* fp NULL: off. Returns 0, or -PMT_ENOMEM (then off). */
PMT_API int pmt_progress_init(struct pmt_progress *p, FILE *fp, const char *what,
			      uint64_t total);
/* every PMT_PROGRESS_EVERY samples: redraw when 200 ms have passed */
PMT_API void pmt_progress_tick(struct pmt_progress *p);
/* will adding n samples check the clock? (the time to report a position) */
static inline bool pmt_progress_due(const struct pmt_progress *p, uint64_t n)
{
	return p->samples + n >= p->next_check;
}
/* stream (a CPU) has been decoded up to offset */
PMT_API void pmt_progress_stream(struct pmt_progress *p, uint32_t stream, uint64_t offset);
static inline void pmt_progress_add(struct pmt_progress *p, uint64_t n)
{
	p->samples += n;
	if (p->samples >= p->next_check)
		pmt_progress_tick(p);
}
PMT_API void pmt_progress_fini(struct pmt_progress *p); /* clears the line */

/* ---- CLI helpers -----------------------------------------------------------------------*/
/* Strict number parsing: the whole string must be a number (decimal, 0x hex, or with k/M/G
 * suffix for _size). Return 0 or -PMT_EPARSE. */
PMT_API int pmt_parse_u64(const char *s, uint64_t *out);
PMT_API int pmt_parse_size(const char *s, uint64_t *out);
PMT_API int pmt_parse_double(const char *s, double *out);
/* Report an error on stderr as "pmutrace <cmd>: <msg>" and return the CLI exit code 1. */
/* Exit statuses of every command (README "Exit status", each command's --help):
 * 0 everything was read and written; 1 a fatal error, no usable output; 2 output was
 * produced but something was lost, damaged or substituted (each said on stderr); 129 a
 * usage error (unknown option, bad option value, missing argument), as perf uses 129. */
enum { PMT_EXIT_OK = 0, PMT_EXIT_ERROR = 1, PMT_EXIT_DAMAGED = 2, PMT_EXIT_USAGE = 129 };
/* The exit statuses as --help prints them. */
PMT_API extern const char pmt_cli_exit_help[];
/* "pmutrace CMD: warning: ..." on stderr, counted as a warning (see pmt_log_count). */
PMT_API void pmt_cli_warn(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "pmutrace CMD: ..." on stderr; returns PMT_EXIT_USAGE. */
PMT_API int pmt_cli_usage_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The trace a reading command reads, as perf picks it: -i FILE (given), else the one
 * operand left at argv[first], else "perf.data"; NULL when operands are left over. */
PMT_API const char *pmt_cli_input(const char *given, int argc, char **argv, int first);
PMT_API int pmt_cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a diagnostic: "pmutrace CMD: FILE: offset 0x..: MSG"; returns 1. */
PMT_API int pmt_cli_fail_diag(const char *cmd, const struct pmt_diag *d);

#ifdef __cplusplus
}
#endif
#endif
