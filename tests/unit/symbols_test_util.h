/* Helpers shared by the unit tests that build address spaces by hand (decode/symbols, and
 * decode/output's reports over them). Include after <cmocka.h>. */
#ifndef PMT_SYMBOLS_TEST_UTIL_H
#define PMT_SYMBOLS_TEST_UTIL_H

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/symbols.h"

/* no build-id cache, no debuginfod: the files do not exist, only the maps matter */
static inline struct pmt_symbols *test_symbols_new(void)
{
	struct pmt_symbols_opts o = PMT_OPTS_INIT(pmt_symbols_opts, .buildid_dir = "",
						  .debuginfod = "");
	struct pmt_symbols *s = NULL;

	assert_int_equal(pmt_symbols_new(&o, &s), 0);
	return s;
}

/* a 64 KiB MMAP2 of file at addr in pid's address space, recorded at time */
static inline struct pmt_trace_event test_mmap_event(int32_t pid, uint64_t addr,
						     const char *file, uint64_t time)
{
	struct pmt_trace_event ev = { .kind = PMT_TEV_RECORD, .type = PMT_REC_MMAP2 };

	ev.u.mmap.pid = ev.u.mmap.tid = (uint32_t)pid;
	ev.u.mmap.addr = addr;
	ev.u.mmap.len = 0x10000;
	ev.u.mmap.filename = file;
	ev.sid.valid = 1;
	ev.sid.time = time;
	return ev;
}

#endif
