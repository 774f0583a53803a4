/* A pmt_hist's table: the sort keys, the entries and their counts, shared by the code that
 * fills it (report_hist.c) and the code that sorts and prints it (report_print.c). Private
 * to decode/output. */
#ifndef PMT_OUTPUT_HIST_TABLE_H
#define PMT_OUTPUT_HIST_TABLE_H

#include "pmutrace/output.h"
#include "event_slots.h"

enum key { KEY_SYM, KEY_DSO, KEY_COMM, KEY_CPU, KEY_MEM, KEY_SNOOP, KEY_TLB, KEY_PID,
	   KEY_SRCLINE, KEY_SRCFILE, KEY_COUNT };
extern const char *const hist_key_names[KEY_COUNT]; /* as --sort names them */
#define MEM_KEYS ((1u << KEY_MEM) | (1u << KEY_SNOOP) | (1u << KEY_TLB))
#define SRC_KEYS ((1u << KEY_SRCLINE) | (1u << KEY_SRCFILE))
/* in entry_keys: the address (ip) and file tell entries apart, not the texts */
#define PRE_COLLAPSE_KEY (1u << KEY_COUNT)

/* events are counted in slots (event_slots.h) */
#define HIST_SLOTS PMT_EV_SLOTS
_Static_assert(HIST_SLOTS > PMT_SPE_SE_COUNT && HIST_SLOTS <= 16, "nosym_first bits");


/* An entry's counts in one event. They live in a pool beside the table, indexed from the
 * entry, because an entry has samples in a few of the 16 event slots: arrays of counts for
 * every slot in each entry made it ~700 bytes, and the page faults of ~170k such entries
 * were a good part of a symbolized report's time. */
struct hent_ev {
	uint64_t period, weight;
	uint32_t nr;
};

/* what the entry's first sample in an event showed (at the same index as its hent_ev):
 * written once, read when printing, so kept out of the counts' cache lines; only for the
 * mem, snoop and tlb keys and an object's entries (else never written, nor read) */
struct hent_ev_seen {
	uint64_t dsrc;         /* its data source: the texts printed for mem, snoop, tlb */
	uint64_t objoff;       /* its offset in an object symbol, as perf keeps the first */
	uint64_t low_ip;       /* keep_low_ip: its lowest address (map_ip) */
};

/* One key tuple with its counts in every event: the samples of a record (one per event)
 * share the entry, so a record costs one lookup. Entries are kept dense, in the order they
 * were first seen (their seq is their index), and found through an index table: a sparse
 * table of whole entries was mostly empty slots, and an entry's events were a chain through
 * the pool whose walk (a dependent load per node) was a fifth of a report's time. */
struct hent {
	uint64_t hash;
	uint32_t cpu;
	int32_t tid;           /* the pid key's thread */
	const void *sym_id;    /* NULL: no symbol; then `ip` tells entries apart */
	const void *dso_id;
	const char *sym, *dso; /* names owned by the pmt_symbols */
	const char *srcline, *srcfile; /* interned by the hist_src: equal texts, one pointer */
	uint32_t comm;         /* offset in the comm pool, UINT32_MAX: none */
	uint32_t comm_width;   /* the length of its first sample's thread's latest comm */
	uint32_t mem_f[3];     /* the data-source fields perf compares for mem, snoop, tlb */
	uint8_t kernel, object;
	uint8_t inlined;       /* a function inlined in a chain's frame: "NAME (inlined)" */
	uint8_t ev_slot;       /* with the tree: the event slot whose tree has it */
	uint64_t ip;           /* map_ip (perf's he->ip for an unresolved address) */
	uint64_t objoff;       /* perf's offset printed after an object symbol (this sample's) */
	uint64_t dsrc;         /* this sample's data source (while adding) */
	uint32_t seq;          /* first seen: the order of entries equal in every key */
	uint32_t rank;         /* place in the order of the keys alone (set when printing) */
	uint16_t nosym_first;  /* bit per event: its first sample there had no symbol */
	uint16_t kernel_ev;    /* bit per event: its first sample there made it [k] (perf's
				* hists are per event: a caller's entry ([.] in perf 7.3) and a
				* kernel sample's are the same one in different events) */
	uint32_t group;        /* with tree_cached: its hist_group */
	uint32_t ev_at[HIST_SLOTS]; /* the pool index of its counts per event slot; 0: none */
};

/* a slot of the index table: the entry's hash (its high half) and its place + 1; 0: empty */
struct hslot {
	uint32_t hash_hi;
	uint32_t at;
};

/* A record's address in one process (ipc_pid) remembered with the entry it went to, for
 * keys the address space alone decides (sym, dso): most records repeat addresses seen
 * before, and this one lookup replaces the symbol search, the key and the entry's lookup (a
 * third of a symbolized report's time). Valid while the address spaces stay as they were
 * (version). */
struct hist_ipc {
	uint64_t ip;
	uint32_t at;           /* the entry */
	uint16_t epoch;        /* h->ipc_epoch when made; 0: empty */
	uint8_t kernel, nosym; /* the entry's, here to leave the entry's first line unread */
};
/* direct-mapped (a newer address takes the slot), 512 KiB: the slot is a cache miss per
 * record, which costs less while the table stays in a core's L2 */
#define HIST_IPC_SLOTS 32768

/* the addresses from lo to lo + len (wrapping) */
struct hist_arc {
	uint64_t lo, len;
	uint8_t any;
};

/* the entries equal in the keys perf compares before sym (comm, dso): perf's comparison
 * keeps them apart from the others', so its order among them is theirs alone, total
 * while clean (hist_perftree.c) */
struct hist_group {
	uint32_t first;        /* its first entry */
	uint8_t dirty;
	struct hist_arc nosym, sym; /* what its entries' addresses and symbols span */
};

struct cg;
struct hist_src;
struct hist_rb;
struct pmt_hist {
	struct pmt_symbols *syms;
	struct hist_src *src;  /* the srcline and srcfile texts; NULL: neither key given */
	struct cg *cg;         /* call graphs (callgraph.h); NULL: the samples' chains unused */
	enum key keys[KEY_COUNT];
	unsigned nkeys;
	uint32_t used_keys;    /* bit per enum key */
	struct hent *e;        /* the entries, dense, in the order first seen */
	size_t e_cap, n;
	struct hslot *idx;     /* open addressing over e; load <= 3/4 */
	size_t cap;
	/* every entry's per-event counts; [0] stays zero: the counts of an event an entry
	 * has no samples in */
	struct hent_ev *ev;
	struct hent_ev_seen *ev_seen;
	size_t ev_cap, ev_n;
	char *comms;           /* interned comm strings: a thread's COMM can change later */
	size_t comms_len, comms_cap;
	uint64_t total_period[HIST_SLOTS], nr_samples[HIST_SLOTS];
	uint64_t total_weight[HIST_SLOTS];
	/* the whole file's, with the samples of the threads --pid/--tid leave out: perf's
	 * header and its absolute percentages count them (--percentage) */
	uint64_t whole_period[HIST_SLOTS], whole_samples[HIST_SLOTS], whole_weight[HIST_SLOTS];
	bool relative;
	/* --comms, --dsos, --symbols (hist_filter.c); NULL: that list not given */
	struct hist_names *comm_list, *dso_list, *sym_list;         /* --percentage relative: of the entries shown only */
	int mem_mode;          /* perf mem report: overhead by weight, a Samples column */
	int compat;
	const char *time_slices; /* --time as given (the caller's string), or NULL */
	float percent_limit;   /* --percent-limit: entries below it are not printed */
	uint32_t seq;
	const char *last_comm;  /* the samples of a thread come in runs: its last comm */
	uint32_t last_comm_off;
	/* the comm key of the sample being added, for its chain's frames (0: not yet) */
	uint8_t sample_comm_set;
	uint32_t sample_comm, sample_comm_width;
	/* the samples of one record share ip, pid, tid, cpu and time: their key but the
	 * event is worked out once */
	size_t last_slot;
	uint8_t last_nosym;    /* the record's address had no symbol */
	uint8_t last_kernel;   /* and its level */
	uint8_t adding_kernel; /* the level of the key being added (entry_event keeps it) */
	uint64_t last_objoff, last_dsrc;
	/* srcline/srcfile with dso, without sym: perf merges the entries of one text keeping the one of
	 * the lowest address (sort__srcline_cmp's order, hists__collapse_resort), whose
	 * symbol or none then sizes the DSO column (nosym_first) */
	uint8_t keep_low_ip;
	uint64_t last_map_ip;
	/* srcline/srcfile with call chains: entries keyed by address and file, merged by
	 * text before sorting (hist_collapse.c); entry_keys: the keys that tell entries
	 * apart while adding (used_keys, or with PRE_COLLAPSE_KEY for the texts) */
	uint8_t src_collapse, collapsed;
	uint32_t entry_keys;
	/* --perf-compat=6.1 with srcline or srcfile: perf 6.1 looks an entry's text up as
	 * each sample's entries are added (sort__srcline_cmp, when the keys before it
	 * compare equal), and turns a file's lookups off after 123 failures before its
	 * first success (hist_src_count61) */
	uint8_t cut61;
	uint8_t cut61_same_in_sample; /* the keys before the text are a sample's (comm, pid) */
	uint8_t last_group61;    /* an entry had the last sample's keys before the text */
	/* with cut61: the hashes of the keys before the text that entries have (open
	 * addressing, 0 empty) */
	uint64_t *groups61;
	size_t groups61_cap, groups61_n;
	struct hent last_key61; /* with cut61: the last sample's own key (its entry's differs) */
	/* the sym key with a chain's inlined frames: the entries are perf's entry tree's
	 * nodes, per event (hist_perftree.c); NULL: the index finds them */
	struct hist_rb *tree;
	uint32_t tree_root[HIST_SLOTS];
	/* with the tree for the sym key: the index finds the entries of clean groups, where
	 * a walk cannot miss them (hist_tree_find_or_add makes the groups) */
	uint8_t tree_cached;
	uint32_t tree_ver;     /* counts the nodes made in the trees */
	/* per entry of the index: the entry the last walk for its key found (at), when the
	 * trees were at version ver - 1 (0: none) */
	struct hist_walk { uint32_t ver, at; } *walks;
	size_t walks_cap;
	struct hist_group *groups;
	size_t ngroups, groups_cap;
	struct hslot *group_idx;
	size_t group_cap;
	/* with the tree, once merged: each entry's place in the walk of the tree perf sorts
	 * its output from (the entry tree, or the merge's), the order of entries equal in
	 * every key; NULL: the address orders them */
	uint32_t *tree_ord;
	unsigned adding_slot;  /* the event slot of the sample being added */
	uint64_t last_ip, last_time;
	int32_t last_pid, last_tid;
	uint32_t last_cpu;
	uint8_t last_valid;
	struct hist_ipc *ipc;  /* NULL: the keys need more than the address */
	uint8_t ipc_tried;     /* set up on the first sample: the call graph is known then */
	uint16_t ipc_epoch;    /* counts the address spaces' versions the cache has seen */
	int32_t ipc_pid;       /* the process whose addresses the cache holds (its first) */
	uint64_t ipc_version;  /* pmt_symbols_version() of the cache's slots of this epoch */
	struct pmt_ev_slots slots;
	/* "%7.2f%%  %7.2f%%" of the small periods, which most entries have */
	char pct_text[HIST_SLOTS][64][24];
};

/* hist_filter.c: whether --comms, --dsos or --symbols leave the sample out of the entries
 * (its own and its callers'); the lists' release */
bool hist_filtered(struct pmt_hist *h, const struct pmt_spe_sample *s);
void hist_filter_free(struct pmt_hist *h);
/* perf's sort__setup_elide: the text report leaves out the column of a key that a list of
 * one name fixes (unless that would leave out every key), and says the name in the
 * header: a bit per position in keys[], and the header's lines */
uint32_t hist_elided(const struct pmt_hist *h);
void hist_elided_note(const struct pmt_hist *h, struct pmt_out *out);

/* hist_entries.c: the key of sample s but its event (frame: one of its chain's frames
 * instead of its own address, at chain address faddr, with the line perf's inline list
 * gave it, fsrc, or NULL); the entry of key k, made when new (its index into *slot); the
 * entry's counts in an event slot, made on its first sample there; perf's cumulative
 * entries of a sample's chain (self_ev: the pool index of its own entry's counts) */
struct cg_frame;
int hist_make_key(struct pmt_hist *h, const struct pmt_spe_sample *s,
		  const struct cg_frame *frame, uint64_t faddr, const char *fsrc, struct hent *k);
int hist_find_or_add(struct pmt_hist *h, struct hent *k, size_t *slot);
/* an index of slots twice the size (first_cap when empty), its slots moved: 0 or
 * -PMT_ENOMEM */
int hist_slots_grow(struct hslot **slots, size_t *cap, size_t first_cap);
/* room for one more entry in h->e (which may move): 0 or -PMT_ENOMEM */
int hist_room_for_entry(struct pmt_hist *h);
struct hent_ev *hist_new_event(struct pmt_hist *h, struct hent *e, unsigned slot);
int hist_add_chain(struct pmt_hist *h, const struct pmt_spe_sample *s, uint32_t self_ev,
		   unsigned slot);
/* with cut61: whether an entry already had the keys before k's text, k's kept from now */
int hist_group61(struct pmt_hist *h, const struct hent *k, bool *had);
/* with cut61: perf 6.1's lookups of key e's text (a sample's or a frame's own, before
 * it joins an entry of other addresses) counted for its file */
int hist_count61(struct pmt_hist *h, const struct hent *e, unsigned lookups);

/* hist_perftree.c: perf 7.3's comparisons of hist entries (sort.c): sort__dso_cmp; one
 * key's hist_entry__cmp part; and hist_entry__cmp(existing, added) over the table's
 * entries, for keys that hist_perf_keys_known() (sym, dso, comm, srcline, srcfile) */
int64_t hist_dso_cmp(const struct hent *l, const struct hent *r);
int64_t hist_perf_key_cmp(const struct pmt_hist *h, enum key key, const struct hent *l,
			  const struct hent *r);
bool hist_perf_keys_known(const struct pmt_hist *h);
int64_t hist_perf_cmp(const void *ctx, uint32_t existing, uint32_t added);
/* with h->tree: the entry of key k in the tree of h->adding_slot, made when the walk meets
 * no equal one; and whether k compares equal to one of the sample's entries so far (seen:
 * their indexes; group: k's group with tree_cached, else UINT32_MAX), 1 or 0 */
int hist_tree_find_or_add(struct pmt_hist *h, struct hent *k, size_t *slot);
int hist_tree_seen(struct pmt_hist *h, const struct hent *k, const uint32_t *seen, size_t n,
		   uint32_t group);
/* with h->tree: h->tree_ord from the entry trees' walks (perf prints them unmerged) */
int hist_tree_order(struct pmt_hist *h);
void hist_tree_groups_free(struct pmt_hist *h);

/* with tree_cached: whether perf's walks find the entry e wherever it sits in its tree */
static inline bool hist_tree_clean(const struct pmt_hist *h, const struct hent *e)
{
	return !h->groups[e->group].dirty;
}

/* perf's entries of one srcline/srcfile text merged (src_collapse), once */
int hist_collapse(struct pmt_hist *h);
/* with src_collapse, a caller's frame as perf 7.3 keys it: loc of frame moved to its
 * chain address faddr; then its texts (k->srcline, k->srcfile, those of loc already)
 * made perf's: fsrc, the line its inline list gave, or else looked up at faddr */
void hist_frame_at(struct pmt_sym_loc *loc, const struct cg_frame *frame, uint64_t faddr);
int hist_frame_texts(struct pmt_hist *h, const struct pmt_sym_loc *loc, uint64_t faddr,
		     const char *fsrc, struct hent *k);

/* the pool index of an entry's counts in an event slot; 0 (zero counts) when it has none */
static inline uint32_t hent_ev_at(const struct pmt_hist *h, const struct hent *e,
				  unsigned slot)
{
	(void)h;
	return e->ev_at[slot];
}

static inline const struct hent_ev *hent_ev(const struct pmt_hist *h, const struct hent *e,
					    unsigned slot)
{
	return &h->ev[hent_ev_at(h, e, slot)];
}

static inline const struct hent_ev_seen *hent_ev_seen(const struct pmt_hist *h,
						      const struct hent *e, unsigned slot)
{
	return &h->ev_seen[hent_ev_at(h, e, slot)];
}

/* the entry's counts in the slot: the lookup inline, the making out of line */
static inline struct hent_ev *hist_entry_event(struct pmt_hist *h, struct hent *e,
					       unsigned slot)
{
	uint32_t i = hent_ev_at(h, e, slot);

	return i ? &h->ev[i] : hist_new_event(h, e, slot);
}

#endif
