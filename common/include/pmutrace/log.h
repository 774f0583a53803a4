/* pmutrace common: logging through a sink the CLI may replace, and the error macros that
 * trace a failure at debug level. */
#ifndef PMUTRACE_LOG_H
#define PMUTRACE_LOG_H

#include "pmutrace/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

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


#ifdef __cplusplus
}
#endif
#endif
