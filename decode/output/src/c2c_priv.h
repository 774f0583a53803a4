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

/* perf c2c's -c keys, what a line's entries are told apart by besides the offset */
enum { C2C_KEY_TID, C2C_KEY_PID, C2C_KEY_IADDR, C2C_KEY_DSO, C2C_NKEYS };

/* One offset of a line with the -c keys' values (by default its code address): perf's
 * second-level entry. The fields of keys not chosen hold the first sample's. */
struct c2c_ent {
	uint64_t iaddr;
	uint64_t time;          /* the first sample's */
	int32_t pid, tid;
	/* whose map the code address is named by: the first sample's in perf 6.1; later
	 * perfs take each sample's map that differs (hists__findnew_entry), so the last's */
	int32_t map_pid;
	uint64_t map_time;
	const void *dso_id;     /* the code address's file (dso key), NULL: none */
	const char *dso_name;
	uint32_t line;          /* index into lines */
	uint8_t off;            /* offset in the line */
	struct c2c_stats st;
	struct c2c_mean mean[C2C_NMEANS];
	uint64_t cpus[C2C_CPU_WORDS];
};

/* A cache line as perf's sort__dcacheline_cmp() tells lines apart: by the code's cpumode,
 * the data's map (none, or its device and inode) and, in anonymous user memory, the
 * process; then by the line of the address in the map (al_addr) */
struct c2c_line_key {
	uint64_t cl;            /* the line of the address in its map */
	struct pmt_map_id id;   /* the data's map's, zero when unmapped */
	int32_t pid;            /* anonymous user memory's process, else 0 */
	uint8_t kernel, mapped;
};

struct c2c_line {
	uint64_t addr;          /* the line of its first sample's address (printed) */
	struct c2c_line_key key;
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
	uint32_t *eslot;        /* as slot, for (line, offset, the -c keys) */
	uint32_t neslot;
	uint8_t keys[C2C_NKEYS]; /* the -c keys in their order: what ties are sorted by */
	unsigned nkeys, keymask; /* keymask: 1 << C2C_KEY_* of each */
	const char *coalesce;   /* as given, for the header */
	int node_info;
	unsigned cl_shift;      /* 6, or 7 for --double-cl */
	/* the trace's NUMA nodes (HEADER_NUMA_TOPOLOGY) */
	uint64_t (*node_cpus)[C2C_CPU_WORDS];
	unsigned nnodes;
	uint8_t cpu_node[C2C_CPU_WORDS * 64]; /* a CPU's node, 0xff: none */
	uint32_t *node_cnt;     /* -N: per entry and node, its display count and stores */
};

uint32_t c2c_hash(uint64_t key);
/* the -c list into c's keys: 0 or -PMT_EPARSE */
int c2c_set_coalesce(struct pmt_c2c *c, const char *list);
/* the nodes of c->meta's NUMA topology: 0 or -PMT_ENOMEM */
int c2c_set_nodes(struct pmt_c2c *c);
/* an open-addressing table (index + 1 per slot) twice as large, with items 0..count-1 */
int c2c_grow_slots(const struct pmt_c2c *c, uint32_t **slot, uint32_t *nslot, uint32_t count,
		   uint64_t (*key)(const struct pmt_c2c *c, uint32_t i));
void c2c_stats_add(struct c2c_stats *a, const struct c2c_stats *b);
uint32_t c2c_display_count(const struct c2c_stats *s, int display);
uint32_t c2c_records(const struct c2c_stats *s);
/* the entry of a sample in its line; NULL when out of memory */
struct c2c_ent *c2c_find_ent(struct pmt_c2c *c, uint32_t line, const struct pmt_spe_sample *s);
/* perf's compute_stats(): the sample's cycles into the mean its kind goes to */
void c2c_ent_add(struct pmt_c2c *c, struct c2c_ent *e, const struct c2c_stats *st,
		 const struct pmt_spe_sample *s);
/* the Pareto section for the shown lines (text only) */
void c2c_print_pareto(struct pmt_c2c *c, struct pmt_out *o, struct c2c_line **v, uint32_t n);

#endif
