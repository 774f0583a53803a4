/* pmutrace common layer: error codes, byte readers, logging, output and CLI helpers.
 *
 * Every fallible function in pmutrace returns int: >= 0 on success (often a byte or
 * item count), -PMT_E* on failure. pmt_errstr() names either sign.
 *
 * This header includes the parts, each of which can be included alone: errors.h (errors,
 * diagnostics, options), version.h, bytes.h (byte readers, cursor, buffer), log.h,
 * text_out.h (the fast text writer), files.h (input maps, safe output files), progress.h,
 * cli_util.h (what the subcommands share).
 */
#ifndef PMUTRACE_COMMON_H
#define PMUTRACE_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pmutrace/errors.h"
#include "pmutrace/version.h"
#include "pmutrace/bytes.h"
#include "pmutrace/log.h"
#include "pmutrace/text_out.h"
#include "pmutrace/files.h"
#include "pmutrace/progress.h"
#include "pmutrace/cli_util.h"

#endif
