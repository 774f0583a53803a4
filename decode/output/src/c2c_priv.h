/* Private to report --c2c (c2c.c: counting and the line tables; c2c_pareto.c: the
 * offsets within each shown line, perf's "Shared Cache Line Distribution Pareto"). */
#ifndef PMUTRACE_C2C_PRIV_H
#define PMUTRACE_C2C_PRIV_H

#include "pmutrace/output.h"

/* perf's struct c2c_stats, in its order; the names are the JSON keys */
#define C2C_FIELDS(X) X(nr_entries) X(locks) X(store) X(st_uncache) X(st_noadrs)        \
	X(st_l1hit) X(st_l1miss) X(st_na) X(load) X(ld_excl) X(ld_shared) X(ld_uncache)    \
	X(ld_io) X(ld_miss) X(ld_noadrs) X(ld_fbhit) X(ld_l1hit) X(ld_l2hit) X(ld_llchit)  \
	X(lcl_hitm) X(rmt_hitm) X(tot_hitm) X(lcl_peer) X(rmt_peer) X(tot_peer) X(rmt_hit) \
	X(lcl_dram) X(rmt_dram) X(blk_data) X(blk_addr) X(nomap) X(noparse)
#define C2C_FIELD(f) uint32_t f;
struct c2c_stats {
	C2C_FIELDS(C2C_FIELD)
};

/* perf's struct stats (util/stat.h): a running mean, updated as perf updates it so that
 * the printed cycles round the same way */
struct c2c_mean {
	double mean;
	uint32_t n;
};
enum { C2C_MEAN_RMT_HITM, C2C_MEAN_LCL_HITM, C2C_MEAN_RMT_PEER, C2C_MEAN_LCL_PEER,
       C2C_MEAN_LOAD, C2C_NMEANS };
#define C2C_CPU_WORDS 4 /* CPUs 0..255 in the per-entry CPU sets */

/* One (offset, code address) of a line: perf's second-level entry (coalesce iaddr) */
struct c2c_ent {
	uint64_t iaddr;
	uint64_t time;          /* the first sample's, for the code address's map */
	int32_t pid;
	uint32_t line;          /* index into lines */
	uint8_t off;            /* offset in the line */
	struct c2c_stats st;
	struct c2c_mean mean[C2C_NMEANS];
	uint64_t cpus[C2C_CPU_WORDS];
};

struct c2c_line {
	uint64_t addr;          /* the cache line's address */
	struct c2c_stats st;
	uint32_t idx;           /* perf's Index among the lines shown */
};


struct pmt_c2c {
	struct pmt_symbols *syms;
	const struct pmt_trace_meta *meta;
	int compat, display;
	unsigned flags;         /* PMT_C2C_* */
	struct c2c_stats total;
	struct c2c_line *lines;
	uint32_t nlines, cap;
	uint32_t *slot;         /* open addressing: line index + 1, 0 = empty */
	uint32_t nslot;         /* a power of two */
	struct c2c_ent *ents;
	uint32_t nents, ecap;
	uint32_t *eslot;        /* as slot, for (line, offset, code address) */
	uint32_t neslot;
};

uint32_t c2c_hash(uint64_t key);
/* an open-addressing table (index + 1 per slot) twice as large, with items 0..count-1 */
int c2c_grow_slots(const struct pmt_c2c *c, uint32_t **slot, uint32_t *nslot, uint32_t count,
		   uint64_t (*key)(const struct pmt_c2c *c, uint32_t i));
void c2c_stats_add(struct c2c_stats *a, const struct c2c_stats *b);
uint32_t c2c_display_count(const struct c2c_stats *s, int display);
uint32_t c2c_records(const struct c2c_stats *s);
/* the entry of a sample in its line; NULL when out of memory */
struct c2c_ent *c2c_find_ent(struct pmt_c2c *c, uint32_t line, const struct pmt_spe_sample *s);
/* perf's compute_stats(): the sample's cycles into the mean its kind goes to */
void c2c_ent_add(struct c2c_ent *e, const struct c2c_stats *st, const struct pmt_spe_sample *s);
/* the Pareto section for the shown lines (text only) */
void c2c_print_pareto(struct pmt_c2c *c, struct pmt_out *o, struct c2c_line **v, uint32_t n);

#endif
