/* pprof export's tables (pprof.c builds them while decoding, pprof_write.c encodes them
 * into the profile at the end). Private to decode/export. */
#ifndef PMT_EXPORT_PPROF_PRIV_H
#define PMT_EXPORT_PPROF_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/symbols.h"
#include "pmutrace/export.h"
#include "backend.h"
#include "itab.h"

/* the sample types, in Sample.value order */
enum { V_SAMPLES, V_TOTAL_LAT, V_ISSUE_LAT, V_XLAT_LAT, V_N };


/* Entries. Ids in the profile are entry index + 1. */
struct agg_ent { /* stack: its entry + 1; lvl and dsrc: string indexes */
	struct { uint32_t stack, event, lvl, dsrc, cpu; int32_t pid, tid; uint32_t pad; } k;
	int64_t v[V_N];
};
_Static_assert(sizeof(((struct agg_ent *)0)->k) % 8 == 0, "itab keys are 8-byte words");
struct ip_ent { /* (pid, ip) -> location: a cache in front of resolving */
	struct { int64_t pid; uint64_t ip; } k;
	uint32_t loc;
	uint32_t stack; /* the stack of this location alone (a sample without a chain); 0: none yet */
};
/* A sample's stack: its locations, leaf first (Sample.location_id), in the stack pool. Keyed
 * by a hash of the locations and a salt that makes a colliding stack's key differ. */
struct stack_ent {
	struct { uint64_t hash; uint32_t n, salt; } k;
	uint32_t first; /* in pp_export.stack_locs */
};
struct loc_ent { /* one location per (mapping, address) */
	struct { uint64_t mapping, address; } k;
	uint32_t first_line, n_lines; /* its Lines in pp_export.lines, innermost first */
};
/* A Line: a function of the location's inline chain and the line in it */
struct line_ent {
	uint64_t function;
	int64_t line;
};
/* Inlined chains deeper than this keep their innermost frames, then the symbol's function */
#define INLINE_MAX 16
/* the symbol's function by its identity; an inlined one (sym_id 0), which has no symbol, by
 * the string indexes of its name and of its file */
struct fn_ent {
	struct { uint64_t sym_id; int64_t name, file; } k;
	int64_t name, filename;
};
struct map_ent {
	struct { uint64_t dso_id, start; } k;
	uint64_t limit, offset;
	int64_t filename, build_id;
	bool functions, lines;
};
/* what MMAP/MMAP2 records said, newest last (looked up once per new mapping) */
struct mmap_ent {
	int32_t pid;
	uint64_t addr, len;
	char *filename;
	uint8_t bid_size, bid[20];
};

#define DSRC_SLOTS 64

struct pp_export {
	struct pmt_export base; /* first: the handle */
	char *path;
	int compat;
	struct pmt_symbols *syms;
	const struct pmt_trace_meta *meta;
	/* a sample had a call chain: locations are named as perf 7.3's chains name them (a
	 * GCC clone that addr2line names "spin (inlined)" by that name, not its symbol's) */
	bool chains;
	char *comment;
	/* strings: dense array of our copies, hashed by their text */
	char **str;
	size_t nstr, str_cap;
	uint32_t *str_slot;
	size_t str_slots;
	struct itab agg, ips, locs, fns, maps, stacks;
	uint32_t *stack_locs;  /* every stack's location ids, one after the other */
	size_t nstack_locs, stack_locs_cap;
	uint32_t *chain;       /* the sample being added: its stack's locations */
	size_t chain_cap;
	size_t max_stack;      /* the deepest stack: put_samples' buffer */
	struct line_ent *lines;
	size_t nlines, lines_cap;
	struct mmap_ent *mm;
	size_t nmm, mm_cap;
	int64_t event_str[32];       /* event name string index, 0: not yet */
	/* a data source's strings: its level and perf's whole text */
	struct { uint64_t key; uint32_t str, full; uint8_t valid; } dsrc[DSRC_SLOTS];
	struct ip_ent *last_ip;
	int64_t nsamples;
	uint64_t first_time, last_time;
	bool oom;
};

/* string_table index of s (added when new); -PMT_ENOMEM */
int64_t pp_str_id(struct pp_export *x, const char *s);
/* the profile written, gzip'd, to x->path: the samples' count or a negative error */
int64_t pp_finish(struct pmt_export *base, const struct pmt_spe_rec_stats *stats,
		  uint32_t enabled, struct pmt_diag *diag);

#endif
