/* Call paths as perf's db-export builds them from sample call chains
 * (call_path_from_sample(), call_path__findnew()): one tree for the whole trace whose root
 * is row 1; a chain is walked from its root (the outermost caller) to the sampled ip, and
 * each frame is the child of the one before, found by its symbol or, in code no symbol
 * holds, by its address; perf 7.3 adds the functions inlined at a frame's address below
 * it. The database exports share it. Private to decode/export. */
#ifndef PMT_EXPORT_CALLPATHS_H
#define PMT_EXPORT_CALLPATHS_H

#include "pmutrace/spe_decode.h"
#include "pmutrace/symbols.h"
#include "itab.h"
#include "rows.h"

/* A call_paths row: parent_id 0 is the root's (NULL in the table), symbol_id 0 a frame no
 * symbol holds (NULL); ip is 0 when there is a symbol, as perf keeps it. */
struct callpath_row {
	int64_t id, parent_id, symbol_id;
	uint64_t ip;
};

struct export_callpaths {
	struct itab nodes;   /* (parent, symbol identity, ip): the tree, perf's key */
	struct itab by_addr; /* (parent, pid, ip) -> node: each address resolved once */
	bool have_root;
	bool inlines; /* perf 7.3's model: functions inlined at a frame's address are nodes */
};

/* A new row, with the sample_ids of its frame (new_dso/new_sym: their rows are to be
 * written first); r NULL: only those rows. Returns 0 or < 0 to stop. */
typedef int (*callpath_row_fn)(void *ctx, const struct callpath_row *r,
			       const struct sample_ids *frame);

/* compat: the perf compatibility level (inlined functions as nodes from 6.2, as script) */
void export_callpaths_init(struct export_callpaths *cp, int compat);
/* The call_paths id of a sample's chain (0: it has none), calling fn for each row that
 * is new. syms NULL: frames by address only. < 0: -PMT_ENOMEM or fn's error. */
int64_t export_callpath_of(struct export_callpaths *cp, struct export_ids *ids,
			   struct pmt_symbols *syms, const struct pmt_spe_sample *s,
			   callpath_row_fn fn, void *ctx);
/* A record of the trace: a new mapping or exec may give an address another symbol from
 * then on, so the addresses resolved so far are resolved again. */
void export_callpaths_event(struct export_callpaths *cp, const struct pmt_trace_event *ev);
void export_callpaths_fini(struct export_callpaths *cp);

#endif
