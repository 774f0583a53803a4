/* The entries of a pmt_hist: a sample's keys as perf keys them (sort.c), the index that
 * finds the entry of a key, an entry's counts per event, and perf's cumulative entries of a
 * sample's call chain (hist.c). report_hist.c takes the samples in. */
#include <stddef.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "hist_table.h"
#include "hist_grow.h"

#include "callgraph.h"
#include "hist_srcline.h"

static uint32_t intern_comm(struct pmt_hist *h, const char *c)
{
	size_t n = strlen(c) + 1;

	if (c == h->last_comm && !strcmp(h->comms + h->last_comm_off, c))
		return h->last_comm_off;
	for (size_t at = 0; at < h->comms_len; at += strlen(h->comms + at) + 1)
		if (!strcmp(h->comms + at, c)) {
			h->last_comm = c;
			h->last_comm_off = (uint32_t)at;
			return (uint32_t)at;
		}
	if (h->comms_len + n > h->comms_cap) {
		size_t cap = h->comms_cap ? h->comms_cap * 2 : 1024;
		char *p;

		while (cap < h->comms_len + n)
			cap *= 2;
		p = realloc(h->comms, cap);
		if (!p)
			return UINT32_MAX;
		h->comms = p;
		h->comms_cap = cap;
	}
	memcpy(h->comms + h->comms_len, c, n);
	h->comms_len += n;
	return (uint32_t)(h->comms_len - n);
}

/* the product's high bits carry the entropy: fold them down, the table index is the low
 * bits (pointer keys are aligned) */
static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

static int same(const struct hent *a, const struct hent *b, uint32_t keys)
{
	if ((keys & (1u << KEY_SYM)) &&
	    (a->sym_id != b->sym_id || (!a->sym_id && a->ip != b->ip)))
		return 0;
	if ((keys & (1u << KEY_DSO)) && a->dso_id != b->dso_id)
		return 0;
	if ((keys & (1u << KEY_COMM)) && a->comm != b->comm)
		return 0;
	if ((keys & (1u << KEY_CPU)) && a->cpu != b->cpu)
		return 0;
	if ((keys & (1u << KEY_PID)) && a->tid != b->tid)
		return 0;
	if ((keys & (1u << KEY_SRCLINE)) && a->srcline != b->srcline)
		return 0;
	if ((keys & (1u << KEY_SRCFILE)) && a->srcfile != b->srcfile)
		return 0;
	if ((keys & PRE_COLLAPSE_KEY) && (a->ip != b->ip || a->dso_id != b->dso_id))
		return 0;
	if ((keys & MEM_KEYS) && memcmp(a->mem_f, b->mem_f, sizeof(a->mem_f)))
		return 0;
	return 1;
}

/* a slot's place is its hash's high half, which the slot keeps: the table grows without
 * reading the entries (~200 bytes each, ~10 MB for 50k unresolved addresses) again */
static void idx_put(struct hslot *idx, size_t cap, struct hslot v)
{
	size_t j;

	for (j = v.hash_hi & (cap - 1); idx[j].at; j = (j + 1) & (cap - 1))
		;
	idx[j] = v;
}

int hist_slots_grow(struct hslot **slots, size_t *cap, size_t first_cap)
{
	size_t c = *cap ? *cap * 2 : first_cap;
	struct hslot *idx = hist_zeroed(c * sizeof(*idx));

	if (!idx)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < *cap; i++)
		if ((*slots)[i].at)
			idx_put(idx, c, (*slots)[i]);
	free(*slots);
	*slots = idx;
	*cap = c;
	return 0;
}

static int grow_index(struct pmt_hist *h)
{
	return hist_slots_grow(&h->idx, &h->cap, 0);
}

int hist_count61(struct pmt_hist *h, const struct hent *e, unsigned lookups)
{
	/* an entry's ip is the address in its file it was looked up at (a caller's without a
	 * symbol: its process address, no line there) */
	return e->dso_id ? hist_src_count61(h->src, e->dso_id, e->ip, e->srcline, lookups) : 0;
}

/* the keys before the first srcline/srcfile, hashed (never 0) */
static uint64_t prefix61(const struct pmt_hist *h, const struct hent *k)
{
	uint64_t hv = 0x9e3779b97f4a7c15ULL;

	for (unsigned i = 0; i < h->nkeys; i++) {
		switch (h->keys[i]) {
		case KEY_SRCLINE:
		case KEY_SRCFILE:
			return hv | 1;
		case KEY_SYM:
			hv = mix(mix(hv, (uintptr_t)k->sym_id), k->sym_id ? 0 : k->ip);
			break;
		case KEY_DSO:
			hv = mix(hv, (uintptr_t)k->dso_id);
			break;
		case KEY_COMM:
			hv = mix(hv, k->comm);
			break;
		case KEY_PID:
			hv = mix(hv, (uint32_t)k->tid);
			break;
		case KEY_CPU:
			hv = mix(hv, k->cpu);
			break;
		default: /* mem, snoop, tlb */
			hv = mix(mix(mix(hv, k->mem_f[0]), k->mem_f[1]), k->mem_f[2]);
		}
	}
	return hv | 1;
}

int hist_group61(struct pmt_hist *h, const struct hent *k, bool *had)
{
	const uint64_t g = prefix61(h, k);
	size_t i;

	if (h->groups61_n * 2 >= h->groups61_cap) {
		size_t cap = h->groups61_cap ? h->groups61_cap * 2 : 256;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return -PMT_ENOMEM;
		for (size_t j = 0; j < h->groups61_cap; j++) {
			if (!h->groups61[j])
				continue;
			for (i = (size_t)(h->groups61[j] >> 17) & (cap - 1); v[i]; i = (i + 1) & (cap - 1))
				;
			v[i] = h->groups61[j];
		}
		free(h->groups61);
		h->groups61 = v;
		h->groups61_cap = cap;
	}
	for (i = (size_t)(g >> 17) & (h->groups61_cap - 1); h->groups61[i];
	     i = (i + 1) & (h->groups61_cap - 1))
		if (h->groups61[i] == g) {
			*had = true;
			return 0;
		}
	h->groups61[i] = g;
	h->groups61_n++;
	*had = false;
	return 0;
}

/* The key of a sample but its event: resolved, hashed (with 0 as the event). frame: one
 * of its call chain's frames instead of its own address (perf's cumulative entries), at
 * chain address faddr, with the line perf's inline list gave it (fsrc, or NULL). */
int hist_make_key(struct pmt_hist *h, const struct pmt_spe_sample *s,
		    const struct cg_frame *frame, uint64_t faddr, const char *fsrc,
		    struct hent *k)
{
	struct pmt_sym_loc loc;
	uint64_t hv = 0;

	memset(k, 0, sizeof(*k));
	k->comm = UINT32_MAX;
	if (h->used_keys & ((1u << KEY_SYM) | (1u << KEY_DSO) | SRC_KEYS)) {
		if (frame) {
			loc = frame->loc;
			if (h->used_keys & SRC_KEYS)
				hist_frame_at(&loc, frame, faddr);
		} else
			pmt_symbols_resolve(h->syms, s->pid, s->ip, s->time, &loc);
		k->inlined = frame && frame->inlined;
		k->sym_id = loc.sym_id;
		k->sym = loc.sym;
		k->dso_id = loc.dso_id;
		k->dso = loc.dso_short;
		/* the level is not a part of perf's sym key: an entry shows the level it was
		 * made with (a frame's: add_chain) */
		k->kernel = frame ? h->cg->level : loc.kernel;
		/* a caller's frame without a symbol keeps its address (perf's
		 * fill_callchain_info), not the address in its file a sample's entry has */
		k->ip = frame && !loc.sym ? frame->ip : loc.map_ip;
		/* perf's srcline entries before the merge: a caller's by its chain address */
		if (h->src_collapse && frame)
			k->ip = faddr;
		/* perf prints an object's offset as the map-relative ip minus the object's
		 * start unmapped to a virtual address (map start - pgoff added): a quirk kept
		 * (sort.c _hist_entry__sym_snprintf) */
		k->object = loc.sym && loc.sym_type == 1 /* STT_OBJECT */;
		if (k->object)
			k->objoff = loc.map_ip - (loc.sym_start + loc.map_start - loc.map_pgoff);
		if (h->used_keys & (1u << KEY_SYM))
			hv = mix(mix(hv, (uintptr_t)k->sym_id), k->sym_id ? 0 : k->ip);
		if (h->used_keys & (1u << KEY_DSO))
			hv = mix(hv, (uintptr_t)k->dso_id);
		if (h->used_keys & SRC_KEYS) {
			PMT_FORWARD_IF_ERROR(hist_src_texts(h->src, h->syms, &loc, &k->srcline,
							    &k->srcfile));
			if (frame)
				PMT_FORWARD_IF_ERROR(hist_frame_texts(h, &loc, faddr, fsrc, k));
			if (h->cut61 && k->dso_id)
				PMT_FORWARD_IF_ERROR(hist_src_cut61(h->src, k->dso_id, loc.map_ip,
								    &k->srcline, &k->srcfile));
			/* perf merges the addresses of one text (sort__srcline_collapse), with
			 * call chains only after they were entries of their own */
			if (h->src_collapse)
				hv = mix(mix(hv, k->ip), (uintptr_t)k->dso_id);
			else if (h->used_keys & (1u << KEY_SRCLINE))
				hv = mix(hv, (uintptr_t)k->srcline);
			if (!h->src_collapse && (h->used_keys & (1u << KEY_SRCFILE)))
				hv = mix(hv, (uintptr_t)k->srcfile);
		}
	}
	/* a chain's frames are the sample's thread at the sample's time: its comm, looked
	 * up once (two lookups and a strlen per frame: ~5% of a -g report) */
	if ((h->used_keys & ((1u << KEY_COMM) | (1u << KEY_PID))) && frame && h->sample_comm_set) {
		k->comm = h->sample_comm;
		k->comm_width = h->sample_comm_width;
		if (h->used_keys & (1u << KEY_COMM))
			hv = mix(hv, k->comm);
	} else if (h->used_keys & ((1u << KEY_COMM) | (1u << KEY_PID))) {
		const char *c = pmt_symbols_comm(h->syms, s->tid, s->time);
		char tidname[16];

		if (!c) {
			snprintf(tidname, sizeof(tidname), ":%d", (int)s->tid);
			c = tidname;
		}
		k->comm = intern_comm(h, c);
		if (k->comm == UINT32_MAX)
			return -PMT_ENOMEM;
		/* perf sizes the column by each entry's thread's comm of now, the latest, and
		 * cuts the comm of the sample's time to it ("perf-ex" for a workload's
		 * samples before its exec): hists__calc_col_len, thread__comm_len */
		{
			const char *now = pmt_symbols_comm(h->syms, s->tid, 0);

			k->comm_width = (uint32_t)strlen(now ? now : c);
		}
		h->sample_comm = k->comm;
		h->sample_comm_width = k->comm_width;
		h->sample_comm_set = 1;
		if (h->used_keys & (1u << KEY_COMM))
			hv = mix(hv, k->comm);
	}
	if (h->used_keys & (1u << KEY_PID)) {
		/* perf's thread key: the sample's thread, shown with its command */
		k->tid = s->tid;
		hv = mix(hv, (uint32_t)s->tid);
	}
	if (h->used_keys & (1u << KEY_CPU)) {
		k->cpu = s->cpu;
		hv = mix(hv, s->cpu);
	}
	/* perf's sort__lvl_cmp, sort__snoop_cmp, sort__tlb_cmp compare one field of
	 * perf_mem_data_src each: mem_lvl (bits 5-18), mem_snoop (19-23), mem_dtlb (26-32);
	 * entries equal there print the text of their first sample's whole data source */
	k->dsrc = s->data_src;
	for (unsigned m = 0; m < 3; m++) {
		static const unsigned shift[3] = { 5, 19, 26 }, bits[3] = { 14, 5, 7 };

		if (!(h->used_keys & (1u << (KEY_MEM + m))))
			continue;
		k->mem_f[m] = (uint32_t)((s->data_src >> shift[m]) & ((1u << bits[m]) - 1));
		hv = mix(hv, k->mem_f[m] + ((uint64_t)(m + 1) << 32));
	}
	k->hash = hv;
	return 0;
}

int hist_room_for_entry(struct pmt_hist *h)
{
	struct hent *e;

	if (h->n < h->e_cap)
		return 0;
	if (h->e_cap >= UINT32_MAX / 4)
		return -PMT_ENOMEM;
	e = hist_grow_table(h->e, &h->e_cap, sizeof(*e));
	if (!e)
		return -PMT_ENOMEM;
	h->e = e;
	return 0;
}

/* With the tree, what the index knows of k: lookup->key, the index's entry of k's key in
 * the adding event's tree (-1: none; lookup->end: where a new entry of the key goes in
 * the index, SIZE_MAX: nowhere), and the entry perf's walk for k finds when that is known
 * without walking: the key's own in a clean group, where no walk can miss it
 * (hist_perftree.c), or the last walk's for the key while the trees are as they were
 * then (a walk compares what the index keys by: equal keys walk alike); -1: walk. */
struct tree_lookup {
	long key;
	size_t end;
};

static long tree_index_find(const struct pmt_hist *h, const struct hent *k,
			    struct tree_lookup *lookup)
{
	const uint32_t hi = (uint32_t)(k->hash >> 32);
	size_t i;

	lookup->key = -1;
	lookup->end = SIZE_MAX;
	if (!h->tree_cached)
		return -1;
	for (i = hi & (h->cap - 1); h->idx[i].at; i = (i + 1) & (h->cap - 1)) {
		const uint32_t at = h->idx[i].at - 1;
		const struct hent *e = &h->e[at];

		/* the trees are per event: so are their entries */
		if (h->idx[i].hash_hi == hi && e->hash == k->hash && same(e, k, h->entry_keys) &&
		    e->ev_slot == h->adding_slot) {
			lookup->key = at;
			if (hist_tree_clean(h, e))
				return at;
			return h->walks[at].ver == h->tree_ver + 1 ? (long)h->walks[at].at : -1;
		}
	}
	lookup->end = i;
	return -1;
}

/* perf's walk for k; a new entry goes into the index, a found one is remembered for the
 * key */
static int tree_add(struct pmt_hist *h, struct hent *k, size_t *slot,
		    const struct tree_lookup *lookup)
{
	const size_t n = h->n;

	PMT_FORWARD_IF_ERROR(hist_tree_find_or_add(h, k, slot));
	if (lookup->key >= 0 && *slot != n)
		h->walks[lookup->key] = (struct hist_walk){ h->tree_ver + 1, (uint32_t)*slot };
	if (*slot != n || lookup->end == SIZE_MAX)
		return 0;
	if (h->walks_cap < h->n) {
		size_t cap = h->walks_cap ? h->walks_cap : 1024;
		struct hist_walk *w;

		while (cap < h->n)
			cap *= 2;
		w = realloc(h->walks, cap * sizeof(*w));

		if (!w)
			return -PMT_ENOMEM;
		h->walks = w;
		h->walks_cap = cap;
	}
	h->walks[n] = (struct hist_walk){ 0 };
	h->idx[lookup->end] = (struct hslot){ (uint32_t)(k->hash >> 32), (uint32_t)n + 1 };
	return h->n * 4 > h->cap * 3 ? grow_index(h) : 0;
}

int hist_find_or_add(struct pmt_hist *h, struct hent *k, size_t *slot)
{
	const uint32_t hi = (uint32_t)(k->hash >> 32);
	size_t i;

	if (h->tree) {
		struct tree_lookup lookup;
		const long at = tree_index_find(h, k, &lookup);

		if (at < 0)
			return tree_add(h, k, slot, &lookup);
		*slot = (size_t)at;
		return 0;
	}
	for (i = hi & (h->cap - 1); h->idx[i].at; i = (i + 1) & (h->cap - 1)) {
		const struct hent *e = &h->e[h->idx[i].at - 1];

		if (h->idx[i].hash_hi == hi && e->hash == k->hash && same(e, k, h->entry_keys)) {
			*slot = h->idx[i].at - 1;
			return 0;
		}
	}
	PMT_FORWARD_IF_ERROR(hist_room_for_entry(h));
	k->seq = h->seq++;
	h->e[h->n] = *k;
	h->idx[i] = (struct hslot){ hi, (uint32_t)h->n + 1 };
	*slot = h->n++;
	if (h->n * 4 > h->cap * 3)
		return grow_index(h);
	return 0;
}

/* the entry's counts in the slot, made on its first sample there: out of line, so that
 * the lookup stays inlined in the per-sample loop */
__attribute__((noinline)) struct hent_ev *hist_new_event(struct pmt_hist *h, struct hent *e,
							  unsigned slot)
{
	struct hent_ev *x;
	struct hent_ev_seen *f;
	uint32_t i;

	if (h->ev_n == h->ev_cap) {
		size_t cap = h->ev_cap;

		/* entries hold indexes, not pointers: they survive the move */
		if (h->ev_cap >= UINT32_MAX / 2)
			return NULL;
		x = hist_grow_table(h->ev, &cap, sizeof(*x));
		if (!x)
			return NULL;
		h->ev = x;
		f = realloc(h->ev_seen, cap * sizeof(*f));
		if (!f)
			return NULL;
		h->ev_seen = f;
		h->ev_cap = cap;
	}
	i = (uint32_t)h->ev_n++;
	h->ev[i] = (struct hent_ev){ 0 };
	/* read only for these (cell()): the pages of the others are never touched, which
	 * saved a third of a symbolized report's page faults */
	if ((h->used_keys & MEM_KEYS) || e->object || h->keep_low_ip)
		h->ev_seen[i] = (struct hent_ev_seen){ .objoff = h->last_objoff,
						       .dsrc = h->last_dsrc,
						       .low_ip = h->last_map_ip };
	e->ev_at[slot] = i;
	if (h->last_nosym)
		e->nosym_first |= (uint16_t)(1u << slot);
	if (h->adding_kernel)
		e->kernel_ev |= (uint16_t)(1u << slot);
	return &h->ev[i];
}

static int seen_add(struct cg *g, size_t *n, uint32_t seq)
{
	for (size_t i = 0; i < *n; i++)
		if (g->seen[i] == seq)
			return 0;
	if (*n == g->seen_cap) {
		size_t nc = g->seen_cap ? g->seen_cap * 2 : 64;
		uint32_t *v = realloc(g->seen, nc * sizeof(*v));

		if (!v)
			return -PMT_ENOMEM;
		g->seen = v;
		g->seen_cap = nc;
	}
	g->seen[(*n)++] = seq;
	return 1;
}

/* an entry's share of a sample: its period as Children's, the chain from the entry's
 * frame on into its tree */
static int take_chain(struct cg *g, struct cg_ev *x, const struct pmt_spe_sample *s,
		      const uint32_t *fr, size_t n, bool trees)
{
	x->acc_period += s->period;
	x->acc_nr++;
	if (!x->has_tid) {
		x->tid = s->tid;
		x->has_tid = 1;
	}
	if (trees)
		return cg_append(g, x, fr, g->cur_addr + (fr - g->cur), n, s->period);
	/* a chainless sample's callers (the chain perf walked) take its depth, its own
	 * entry none: that orders their equal Children as perf 7.3 does (checked on a
	 * file of cpu-clock with chains and task-clock without; no graph either way) */
	if ((size_t)x->max_depth < n)
		x->max_depth = (uint32_t)n;
	return 0;
}

/* perf's cumulative entries (hist.c iter_add_single/next_cumulative_entry): the sample's
 * own entry takes its whole chain; then each frame in the cursor's order makes or finds
 * the entry of its keys, which takes the period as a caller's (Children) and the chain
 * from that frame on, once per entry and sample (a recursion counts once). */
int hist_add_chain(struct pmt_hist *h, const struct pmt_spe_sample *s, uint32_t self_ev,
		   unsigned slot)
{
	struct cg *g = h->cg;
	struct cg_ev *x;
	size_t nseen = 0;
	/* a sample without a chain (an event recorded without one) walks the chain of the
	 * last sample that had one, as perf's thread-local cursor is left (checked with
	 * perf 7.3): its callers get Children, no graph */
	int n = s->callchain ? cg_resolve(g, h->syms, s) : (int)g->cur_n;
	const bool trees = g->mode != CG_NONE && s->callchain;

	if (n < 0)
		return n;
	g->cur_n = (size_t)n;
	g->level = h->last_kernel;
	x = cg_ev_at(g, self_ev);
	if (!x || seen_add(g, &nseen, h->e[h->last_slot].seq) < 0)
		return -PMT_ENOMEM;
	PMT_FORWARD_IF_ERROR(take_chain(g, x, s, g->cur, s->callchain ? (size_t)n : 0, trees));
	/* --no-children: the sample's own entry only */
	for (int i = 0; g->children && i < n; i++) {
		const struct cg_frame *f = cg_frame(g, g->cur[i]);
		struct hent k;
		size_t at;
		bool group = false;
		struct hent_ev *e;
		int rc;

		/* perf's fill_callchain_info sets the level of a frame in a map and leaves
		 * the last one for a frame outside every map (the sample's for the first):
		 * perf 7.3 makes every mapped frame's entry a user one ([.]), the kernel's
		 * too, where perf 6.1 gave kernel frames [k] (both checked; the release
		 * between that changed it is not pinned: taken as 7.0's) */
		if (f->loc.dso)
			g->level = h->compat >= 700 ? 0 : f->loc.kernel;

		PMT_FORWARD_IF_ERROR(hist_make_key(h, s, f, g->want_src ? g->cur_addr[i] : 0,
					      g->want_src ? cg_node_srcline(g, i) : NULL, &k));
		/* perf 6.1 compares a frame's entry with the sample's entries so far (its
		 * he_cache: one lookup where the keys before the text are the sample's own),
		 * then adds it (another, where an entry has those keys) unless one was equal */
		if (h->cut61) {
			if (h->cut61_same_in_sample)
				PMT_FORWARD_IF_ERROR(hist_count61(h, &k, 1));
			PMT_FORWARD_IF_ERROR(hist_group61(h, &k, &group));
		}
		if (h->tree) {
			struct tree_lookup lookup;
			const long hit = tree_index_find(h, &k, &lookup);
			const struct hent *key = lookup.key >= 0 ? &h->e[lookup.key] : NULL;

			/* a clean group's entry is the only one equal to k there: the seen
			 * check below finds it; else perf's comparisons with the sample's
			 * entries of k's group */
			if (!key || !hist_tree_clean(h, key)) {
				rc = hist_tree_seen(h, &k, g->seen, nseen,
						    key ? key->group : UINT32_MAX);
				if (rc < 0)
					return rc;
				if (rc)
					continue;
			}
			if (hit >= 0)
				at = (size_t)hit;
			else
				PMT_FORWARD_IF_ERROR(tree_add(h, &k, &at, &lookup));
		} else
			PMT_FORWARD_IF_ERROR(hist_find_or_add(h, &k, &at));
		rc = seen_add(g, &nseen, h->e[at].seq);
		if (rc <= 0) {
			if (rc < 0)
				return rc;
			continue;
		}
		if (h->cut61 && group)
			PMT_FORWARD_IF_ERROR(hist_count61(h, &k, 1));
		h->last_nosym = !k.sym;
		h->last_objoff = k.objoff;
		h->adding_kernel = k.kernel;
		e = hist_entry_event(h, &h->e[at], slot);
		x = e ? cg_ev_at(g, (uint32_t)(e - h->ev)) : NULL;
		if (!x)
			return -PMT_ENOMEM;
		PMT_FORWARD_IF_ERROR(take_chain(g, x, s, g->cur + i, (size_t)(n - i), trees));
	}
	/* the table may have grown: the next sample finds its entry again */
	if (n && g->children)
		h->last_valid = 0;
	return 0;
}
