/* Files by build-id from debuginfod servers (libdebuginfod), for what no local path has. */
#ifndef PMT_SYMBOLS_DEBUGINFOD_H
#define PMT_SYMBOLS_DEBUGINFOD_H
#include <stddef.h>
#include <stdint.h>

struct dbgd;
/* urls: NULL = $DEBUGINFOD_URLS; "" = never ask. NULL result: no servers to ask. */
struct dbgd *dbgd_new(const char *urls);
void dbgd_free(struct dbgd *d);
enum dbgd_kind { DBGD_DEBUGINFO, DBGD_EXECUTABLE };
/* 1: the file is at path (libdebuginfod's cache); 0: no server has it (why says so) */
int dbgd_fetch(struct dbgd *d, const uint8_t *build_id, size_t n, enum dbgd_kind kind,
	       char *path, size_t path_size, char *why, size_t why_size);
#endif
