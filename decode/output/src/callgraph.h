/* report's call graphs (perf report --children and -g): the resolved frames of the samples'
 * call chains, each entry's chain tree, and the graph text. Private to decode/output: the
 * trees are filled from report_hist.c (callgraph_tree.c) and printed under the entries by
 * report_print.c (callgraph_print.c). */
#ifndef PMT_OUTPUT_CALLGRAPH_H
#define PMT_OUTPUT_CALLGRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "pmutrace/output.h"
#include "hist_rbrank.h"

/* perf's callchain_param.mode, .order and .value (util/callchain.h); CG_FRACTAL is
 * perf's CHAIN_GRAPH_REL: each node's percentage of its parent's callees */
enum cg_mode { CG_NONE, CG_GRAPH, CG_FLAT, CG_FOLDED, CG_FRACTAL };
enum cg_order { CG_CALLEE, CG_CALLER };
enum cg_value { CG_PERCENT, CG_PERIOD, CG_COUNT };
/* perf's callchain_param.key: what tells two frames of a chain apart */
enum cg_key { CG_KEY_FUNCTION, CG_KEY_ADDRESS, CG_KEY_SRCLINE };

/* One entry of a call chain as perf's callchain cursor holds it: a function (its inlined
 * callees are frames of their own), or an address without a symbol. Interned: the frames
 * of a chain are compared by index. Kept in blocks that never move, so that an inlined
 * frame's address is the identity of its hist entry. */
struct cg_frame {
	struct pmt_sym_loc loc; /* an inlined frame: sym its DWARF name, sym_id the frame */
	uint64_t ip;            /* the address (printed when there is no symbol) */
	uint64_t addr;          /* the chain entry's address (the address key's identity) */
	const char *srcline;    /* "file:line" with the address and srcline keys, or NULL */
	uint64_t hash;
	uint32_t next;          /* the intern table's chain (index + 1; 0: the last) */
	uint8_t inlined;
};

/* A node of an entry's chain tree: one frame (a trie; perf's runs of frames without a
 * branch or an end are merged when printing). Children are a sibling list. */
struct cg_node {
	uint64_t hit;           /* the period of the chains that end here */
	uint64_t cumul;         /* the period of every chain through here */
	uint32_t frame;         /* index into the frames */
	uint32_t child, sibling; /* node indexes; 0: none. Siblings stay in the order of
				  * perf's rb_root_in of their parent (kids) */
	uint32_t kids;          /* the root of that tree in cg.kid_rb: node + 1; 0: none */
	uint32_t count;         /* how many chains pass through here (-g ...,count) */
};

/* what an entry has in one event beyond its own samples (indexed like hent_ev) */
struct cg_ev {
	uint64_t acc_period;    /* perf's stat_acc: its samples and those it is a caller of */
	uint32_t acc_nr;        /* and how many samples added it (its own and as a caller) */
	uint32_t root;          /* its chain tree's root node; 0: none */
	uint32_t max_depth;     /* the longest chain appended (perf's callchain->max_depth) */
	int32_t tid;            /* its first sample's thread (perf's he->thread) */
	uint8_t has_tid;
};

#define CG_FRAME_BLOCK 1024

struct cg_ipent {
	uint64_t ip;
	int32_t pid;
	uint32_t used;          /* 0: empty */
	uint32_t off, n;        /* its frames in ipc_frames, innermost first */
};

struct cg {
	enum cg_mode mode;
	enum cg_order order;
	enum cg_value value;
	enum cg_key key;
	uint32_t print_limit;   /* -g's print_limit: entries per level (0: all) */
	uint32_t max_stack;     /* --max-stack: chain entries taken */
	bool no_inline;         /* --no-inline: no inlined functions' frames */
	bool threshold_given;   /* -g named a threshold (--percent-limit before it loses) */
	bool branch;            /* -g branch: the branch stacks' entries in the chains */
	bool children;          /* perf's --children: the Children column */
	double min_percent;     /* of the event's period: nodes below it are not printed */
	bool skip_first_sym;    /* --sort starts with sym: the entry's own frame is not
				 * printed again on a single chain */
	int compat;
	uint8_t level;          /* the level the next frame's entry takes (perf's al->level) */
	struct cg_frame **blocks;
	size_t nblocks, nframes;
	uint32_t *tab;          /* intern table: frame index + 1 */
	size_t tab_cap;
	struct cg_node *nodes;  /* [0] unused: 0 means none */
	size_t nnodes, node_cap;
	struct hist_rb kid_rb;  /* each node's children as perf's red-black tree holds them */
	struct cg_ev *ev;       /* parallel to the hist's hent_ev pool */
	size_t ev_cap;
	/* the frames of an address of a process, resolved once: libdw's inline walk per
	 * chain entry and sample was most of the time */
	struct cg_ipent *ipc;
	size_t ipc_cap, ipc_n;
	uint32_t *ipc_frames;   /* the cached frame lists */
	size_t ipc_frames_n, ipc_frames_cap;
	uint32_t *cur;          /* the sample's frames, in the cursor's order */
	size_t cur_cap, cur_n;  /* cur_n: how many (kept for the next sample) */
	/* each frame's chain address (cur_addr, beside cur) and each tree node's first
	 * address (node_ip): perf's match_chain compares frames without a symbol by them.
	 * With the srcline and srcfile keys (want_src), perf's hist entries are keyed by
	 * the chain address too, and an inlined frame's entry takes the line perf's inline
	 * list gives it (cur_src; ipc_srcs beside ipc_frames); perf merges the trees of
	 * one line by address (cg_merge_unnamed) */
	bool want_src;
	/* trees of merged entries merge by address (cg_merge_unnamed): with want_src, and
	 * where perf's merge of entries by another key merges their trees (comm's collapse
	 * over perf's entry tree, hist_perftree.c) */
	bool node_addrs;
	uint64_t *cur_addr;
	size_t cur_addr_cap;
	const char **cur_src;
	size_t cur_aux_cap;
	const char **ipc_srcs;
	size_t ipc_srcs_cap;
	uint64_t *node_ip;
	size_t node_ip_cap;
	uint32_t *seen;         /* the entries (seq) a sample added to (perf's he_cache) */
	size_t seen_cap;
	char **strs;            /* the srclines' texts, each once (frames point to them) */
	size_t nstrs, strs_cap;
	uint32_t *strs_tab;     /* their hash table: index + 1 */
	size_t strs_tab_cap;
};

static inline struct cg_frame *cg_frame(const struct cg *g, uint32_t i)
{
	return &g->blocks[i / CG_FRAME_BLOCK][i % CG_FRAME_BLOCK];
}

/* the per-event record of hent_ev index i, NULL when it has none */
static inline const struct cg_ev *cg_ev_of(const struct cg *g, uint32_t i)
{
	return g && i && i < g->ev_cap ? &g->ev[i] : NULL;
}

/* the line perf's cursor node i of the sample carries (callchain_cursor_node.srcline),
 * which its hist entry takes for the srcline and srcfile keys: the inline list's, or
 * with -g address or srcline the frame's own (callchain_srcline: the vdso's "??:0" and
 * "+OFFSET", a .plt stub's "??:0"); NULL: looked up at the chain address */
static inline const char *cg_node_srcline(const struct cg *g, size_t i)
{
	if (g->cur_src[i])
		return g->cur_src[i];
	return g->key != CG_KEY_FUNCTION ? cg_frame(g, g->cur[i])->srcline : NULL;
}

int cg_new(struct cg **out);
void cg_free(struct cg *g);
/* -g's argument into mode, order, threshold; *order_given set when it names one */
int cg_parse(struct cg *g, const char *spec, bool *order_given, struct pmt_diag *diag);
/* the per-event record of hent_ev index i, the array grown to it */
struct cg_ev *cg_ev_at(struct cg *g, uint32_t i);
/* the chain frames of sample s (PERF_CONTEXT_* skipped, inlined functions expanded as perf
 * 7.3 does), in the cursor's order, into g->cur; returns how many or -PMT_ENOMEM */
int cg_resolve(struct cg *g, struct pmt_symbols *syms, const struct pmt_spe_sample *s);
/* chain fr[0..n) appended to an entry's tree with period; addrs: the frames' chain
 * addresses, kept as each new node's first */
int cg_append(struct cg *g, struct cg_ev *x, const uint32_t *fr, const uint64_t *addrs,
	      size_t n, uint64_t period);
/* perf's callchain_merge() of src's tree into dst's, as hists__collapse_resort merges the
 * entries of one source line: every frame re-added without its symbol (perf's
 * merge_chain_branch keeps only the map), so it joins a node of the same file and first
 * address, named or not, and prints as its address */
int cg_merge_unnamed(struct cg *g, struct cg_ev *dst, const struct cg_ev *src);
/* the graph below an entry, as perf's hist_entry_callchain__fprintf() prints it: total is
 * the event's period in the whole file (perf's percentages are of it even with
 * --percentage relative), shown_total the period its threshold is a share of (the entries
 * shown with --percentage relative), parent the entry's (Children's with --children) */
void cg_print(const struct cg *g, const struct cg_ev *x, uint64_t total, uint64_t shown_total,
	      uint64_t parent, struct pmt_out *out);

#endif
