/* pmutrace common: the contract every public function keeps (CONTRIBUTING.md): the error
 * enum, the diagnostic that carries its detail, options structs that can grow. */
#ifndef PMUTRACE_ERRORS_H
#define PMUTRACE_ERRORS_H

#include <stddef.h>
#include <stdint.h>

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
	int32_t column;      /* of `line` as the text's parser counts it, -1 when none */
};
#define PMT_DIAG_INIT { 0, NULL, PMT_DIAG_NO_OFFSET, 0, { 0 }, -1 }
/* Fill d (may be NULL: then only the code is returned) and return code (negative). */
PMT_API int pmt_diag_set(struct pmt_diag *d, int code, const char *file, uint64_t offset,
			 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same for a line of a text input. */
PMT_API int pmt_diag_set_line(struct pmt_diag *d, int code, const char *file, uint32_t line,
			      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The same for a line and column (a JSON parser's position). */
PMT_API int pmt_diag_set_column(struct pmt_diag *d, int code, const char *file, uint32_t line,
				int32_t column, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
/* Damage a reader went past (it goes on, so the call succeeds): logged as a warning, and
 * kept in d (may be NULL) when d holds nothing yet, so the caller sees the first damage
 * with its file and offset or line (line 0: none). Returns code (negative). */
PMT_API int pmt_diag_warn(struct pmt_diag *d, int code, const char *file, uint64_t offset,
			  uint32_t line, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* "FILE: offset 0x1f0: MSG" / "FILE:12: MSG" / "FILE:12:3: MSG" / "MSG" into out; returns
 * the length. */
PMT_API int pmt_diag_format(const struct pmt_diag *d, char *out, size_t cap);
/* Log it as an error ("pmutrace: error: ..."). */
PMT_API void pmt_diag_print(const struct pmt_diag *d);

/* Options structs that may grow start with `size_t sz` (libbpf's way). */
#define PMT_OPTS_INIT(type, ...) ((struct type){ .sz = sizeof(struct type), __VA_ARGS__ })
/* Is `field` inside the caller's options (older callers pass a smaller struct)? */
#define PMT_OPTS_HAS(opts, field) \
	(pmt_opts_sz_(opts) >= offsetof(__typeof__(*(opts)), field) + sizeof((opts)->field))
static inline size_t pmt_opts_sz_(const void *opts) { return opts ? *(const size_t *)opts : 0; }


#ifdef __cplusplus
}
#endif
#endif
