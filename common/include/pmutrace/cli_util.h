/* pmutrace common: what every subcommand shares: strict number parsing, exit statuses,
 * warnings and failures in perf's "pmutrace CMD: ..." form, the input a command reads. */
#ifndef PMUTRACE_CLI_UTIL_H
#define PMUTRACE_CLI_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#include "pmutrace/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

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
/* -j N of the decoding commands: N threads, 1..256 ("1" is the one-thread path); a bad
 * value is a usage error (129, said on stderr). The default is the online CPUs. */
PMT_API int pmt_cli_jobs(const char *cmd, const char *arg, unsigned *jobs);
PMT_API unsigned pmt_cli_jobs_default(void);
PMT_API int pmt_cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a diagnostic: "pmutrace CMD: FILE: offset 0x..: MSG"; returns 1. */
PMT_API int pmt_cli_fail_diag(const char *cmd, const struct pmt_diag *d);

/* Near names for "did you mean" hints of unknown commands, events, metrics, fields: up to
 * PMT_NEAR_MAX candidates, the closest first (case-insensitive edit distance, ties in the
 * order considered). */
enum { PMT_NEAR_MAX = 3, PMT_NAME_FAR = 1000 };
struct pmt_near {
	const char *want;
	unsigned limit;		/* the most edits a near name may be away */
	bool holding_is_near;	/* a candidate containing `want` counts as distance 0 */
	char names[PMT_NEAR_MAX][128];
	unsigned dist[PMT_NEAR_MAX];
};
/* Case-insensitive Levenshtein distance; PMT_NAME_FAR for names over 127 characters. */
PMT_API unsigned pmt_name_distance(const char *a, const char *b);
PMT_API void pmt_near_init(struct pmt_near *nr, const char *want, unsigned limit,
			   bool holding_is_near);
PMT_API void pmt_near_consider(struct pmt_near *nr, const char *name);
/* "a, b, c" into out (empty when nothing was near); returns the length it needed. */
PMT_API size_t pmt_near_list(const struct pmt_near *nr, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
