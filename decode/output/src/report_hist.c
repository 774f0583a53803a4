/* perf report --sort KEYS over decoded samples: one histogram per synthetic event, entries
 * keyed by the sort keys (sym, dso, comm, cpu, ...) as perf keys them (tools/perf/util/sort.c,
 * hist.c). This file fills the table; report_print.c sorts and prints it. */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "pmutrace/perf_abi.h"
#include "hist_table.h"
#include "hist_grow.h"

#include "callgraph.h"
#include "hist_priv.h"
#include "hist_srcline.h"

const char *const hist_key_names[KEY_COUNT] = { "sym", "dso", "comm", "cpu", "mem", "snoop",
					     "tlb", "pid", "srcline", "srcfile" };

int pmt_hist_set_trace(struct pmt_hist *h, const struct pmt_trace_meta *m)
{
	h->slots.meta = m;
	return 0;
}

int pmt_hist_set_mode(struct pmt_hist *h, int compat, bool mem)
{
	h->mem_mode = mem;
	h->compat = compat;
	return 0;
}

int pmt_hist_callgraph_check(const char *spec, struct pmt_diag *diag)
{
	struct cg *g;
	bool order_given;
	int rc;

	PMT_FORWARD_IF_ERROR(cg_new(&g));
	rc = cg_parse(g, spec, &order_given, diag);
	cg_free(g);
	return rc;
}

int pmt_hist_set_callgraph(struct pmt_hist *h, const struct pmt_hist_callgraph_opts *o,
			   struct pmt_diag *diag)
{
	const struct pmt_trace_meta *m = h->slots.meta;
	bool chains = false, order_given = false, brstack = false;
	struct cg *g;
	int rc;

	if (!o || o->sz < sizeof(size_t) || o->sz > sizeof(*o))
		return -PMT_EINVAL;
	for (uint32_t i = 0; m && i < m->nr_attrs; i++) {
		chains |= (m->attrs[i].sample_type & PMT_SAMPLE_CALLCHAIN) != 0;
		brstack |= (m->attrs[i].sample_type & PMT_SAMPLE_BRANCH_STACK) != 0;
	}
	cg_free(h->cg);
	h->cg = NULL;
	PMT_FORWARD_IF_ERROR(cg_new(&g));
	g->compat = h->compat;
	/* perf parses -g while reading its options: a bad one is refused on any file */
	rc = cg_parse(g, o->spec, &order_given, diag);
	if (rc >= 0 && g->branch && brstack)
		rc = pmt_diag_set(diag, -PMT_EUNSUPPORTED, NULL, PMT_DIAG_NO_OFFSET,
				  "-g branch: the branch stacks' entries in call chains are not "
				  "supported yet");
	if (rc < 0 || !chains || h->mem_mode) {
		cg_free(g);
		return rc < 0 ? rc : 0;
	}
	/* perf report: --children is the default, and with it the caller-based order, set
	 * while parsing; a pipe's events are known later, when perf takes the children
	 * back but keeps the order */
	g->children = o->children != 0 && !m->pipe_mode;
	if (!order_given)
		g->order = o->inverted || o->children != 0 ? CG_CALLER : CG_CALLEE;
	g->skip_first_sym = h->keys[0] == KEY_SYM;
	if (o->sz > offsetof(struct pmt_hist_callgraph_opts, max_stack) && o->max_stack_given)
		g->max_stack = o->max_stack;
	g->no_inline = o->sz > offsetof(struct pmt_hist_callgraph_opts, no_inline) && o->no_inline;
	/* perf's entries of these keys are per address and file until they are merged by
	 * text (hist_collapse.c); the merge keeps the lowest address's, as keep_low_ip */
	if (h->used_keys & SRC_KEYS) {
		g->want_src = true;
		h->src_collapse = h->compat >= 700;
		h->keep_low_ip = 0;
		if (h->src_collapse)
			h->entry_keys = (h->used_keys & ~SRC_KEYS) | PRE_COLLAPSE_KEY;
	}
	h->cg = g;
	return 0;
}

void pmt_hist_set_percent_limit(struct pmt_hist *h, float pcnt, bool after_g)
{
	h->percent_limit = pcnt;
	/* perf's parse_percent_limit sets callchain_param.min_percent as well; -g's
	 * threshold given later replaces it */
	if (h->cg && (after_g || !h->cg->threshold_given))
		h->cg->min_percent = pcnt;
}

void pmt_hist_set_time_slices(struct pmt_hist *h, const char *spec)
{
	h->time_slices = spec;
}

int pmt_hist_new(const char *sort, struct pmt_symbols *syms, struct pmt_hist **out,
		 struct pmt_diag *diag)
{
	struct pmt_hist *h;
	const char *p = sort;

	if (!sort || !syms || !out)
		return -PMT_EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -PMT_ENOMEM;
	h->syms = syms;
	while (*p) {
		size_t n = strcspn(p, ",");
		unsigned k;

		for (k = 0; k < KEY_COUNT; k++)
			if (strlen(hist_key_names[k]) == n && !strncmp(p, hist_key_names[k], n))
				break;
		if (k == KEY_COUNT || (h->used_keys & (1u << k))) {
			free(h);
			return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
					    k == KEY_COUNT ? "--sort: unknown key '%.*s' (keys: sym dso "
							     "comm cpu pid mem snoop tlb srcline "
							     "srcfile)"
							   : "--sort: key '%.*s' given twice",
					    (int)n, p);
		}
		h->keys[h->nkeys++] = (enum key)k;
		h->used_keys |= 1u << k;
		p += n;
		if (*p == ',')
			p++;
	}
	if (!h->nkeys) {
		free(h);
		return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
				    "--sort: no keys (keys: sym dso comm cpu pid mem snoop tlb "
				    "srcline srcfile)");
	}
	h->entry_keys = h->used_keys;
	h->keep_low_ip = (h->used_keys & SRC_KEYS) && (h->used_keys & (1u << KEY_DSO)) &&
			 !(h->used_keys & (1u << KEY_SYM));
	if ((h->used_keys & SRC_KEYS) && hist_src_new(&h->src) < 0) {
		free(h);
		return -PMT_ENOMEM;
	}
	h->cap = 1024;
	h->idx = calloc(h->cap, sizeof(*h->idx));
	h->e_cap = 768;
	h->e = malloc(h->e_cap * sizeof(*h->e));
	h->ev_cap = 1024;
	h->ev_n = 1; /* [0]: the zero counts */
	h->ev = calloc(h->ev_cap, sizeof(*h->ev));
	h->ev_seen = calloc(h->ev_cap, sizeof(*h->ev_seen));
	if (!h->idx || !h->e || !h->ev || !h->ev_seen) {
		free(h->idx);
		free(h->e);
		free(h->ev);
		free(h->ev_seen);
		hist_src_free(h->src);
		free(h);
		return -PMT_ENOMEM;
	}
	*out = h;
	return 0;
}

void pmt_hist_free(struct pmt_hist *h)
{
	if (!h)
		return;
	free(h->idx);
	free(h->e);
	free(h->ipc);
	free(h->ev);
	free(h->ev_seen);
	free(h->comms);
	hist_src_free(h->src);
	hist_filter_free(h);
	cg_free(h->cg);
	free(h);
}

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

static int grow_index(struct pmt_hist *h)
{
	size_t cap = h->cap * 2;
	struct hslot *idx = hist_zeroed(cap * sizeof(*idx));

	if (!idx)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < h->cap; i++)
		if (h->idx[i].at)
			idx_put(idx, cap, h->idx[i]);
	free(h->idx);
	h->idx = idx;
	h->cap = cap;
	return 0;
}

/* The key of a sample but its event: resolved, hashed (with 0 as the event). frame: one
 * of its call chain's frames instead of its own address (perf's cumulative entries), at
 * chain address faddr, with the line perf's inline list gave it (fsrc, or NULL). */
static int make_key(struct pmt_hist *h, const struct pmt_spe_sample *s,
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
	if (h->used_keys & ((1u << KEY_COMM) | (1u << KEY_PID))) {
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

static int find_or_add(struct pmt_hist *h, struct hent *k, size_t *slot)
{
	const uint32_t hi = (uint32_t)(k->hash >> 32);
	size_t i;

	for (i = hi & (h->cap - 1); h->idx[i].at; i = (i + 1) & (h->cap - 1)) {
		const struct hent *e = &h->e[h->idx[i].at - 1];

		if (h->idx[i].hash_hi == hi && e->hash == k->hash && same(e, k, h->entry_keys)) {
			*slot = h->idx[i].at - 1;
			return 0;
		}
	}
	if (h->n == h->e_cap) {
		struct hent *e;

		if (h->e_cap >= UINT32_MAX / 4)
			return -PMT_ENOMEM;
		e = hist_grow_table(h->e, &h->e_cap, sizeof(*e));
		if (!e)
			return -PMT_ENOMEM;
		h->e = e;
	}
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
static __attribute__((noinline)) struct hent_ev *new_event(struct pmt_hist *h, struct hent *e,
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

static inline struct hent_ev *entry_event(struct pmt_hist *h, struct hent *e, unsigned slot)
{
	uint32_t i = hent_ev_at(h, e, slot);

	return i ? &h->ev[i] : new_event(h, e, slot);
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
	if (!x->has_tid) {
		x->tid = s->tid;
		x->has_tid = 1;
	}
	if (trees)
		return cg_append(g, x, fr, g->want_src ? g->cur_addr + (fr - g->cur) : NULL, n,
				 s->period);
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
static int add_chain(struct pmt_hist *h, const struct pmt_spe_sample *s, uint32_t self_ev,
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
		struct hent_ev *e;
		int rc;

		/* perf's fill_callchain_info sets the level of a frame in a map and leaves
		 * the last one for a frame outside every map (the sample's for the first):
		 * perf 7.3 makes every mapped frame's entry a user one ([.]), the kernel's
		 * too, where perf 6.1 gave kernel frames [k] (both checked; the release
		 * between that changed it is not pinned: taken as 7.0's) */
		if (f->loc.dso)
			g->level = h->compat >= 700 ? 0 : f->loc.kernel;

		PMT_FORWARD_IF_ERROR(make_key(h, s, f, g->want_src ? g->cur_addr[i] : 0,
					      g->want_src ? cg_node_srcline(g, i) : NULL, &k));
		PMT_FORWARD_IF_ERROR(find_or_add(h, &k, &at));
		rc = seen_add(g, &nseen, h->e[at].seq);
		if (rc <= 0) {
			if (rc < 0)
				return rc;
			continue;
		}
		h->last_nosym = !k.sym;
		h->last_objoff = k.objoff;
		h->adding_kernel = k.kernel;
		e = entry_event(h, &h->e[at], slot);
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

/* neighbouring addresses in neighbouring slots (a 16 KB block of code in one run of slots,
 * the blocks scattered by a hash): the hot addresses of a function share the table's cache
 * lines and pages, where a hash of each address spread them over all of it (cachegrind, the
 * symbolized bench: half the last-level misses of this lookup) */
static uint32_t ipc_slot(uint64_t ip)
{
	uint64_t block = ((ip >> 14) * 0x9e3779b97f4a7c15ULL) >> 40;

	return (uint32_t)((ip >> 1) + block) & (HIST_IPC_SLOTS - 1);
}

/* the cache's epoch for the address spaces' version (0: no cache), a new one when they
 * changed */
static uint32_t ipc_epoch(struct pmt_hist *h, int32_t pid, uint64_t version)
{
	/* one process's addresses (16-byte slots: twice as many fit in the L2); the
	 * samples of others take the way without it */
	if (!version || pid != h->ipc_pid)
		return 0;
	if (version != h->ipc_version) {
		h->ipc_version = version;
		if (++h->ipc_epoch == 0) {
			memset(h->ipc, 0, HIST_IPC_SLOTS * sizeof(*h->ipc));
			h->ipc_epoch = 1;
		}
	}
	return h->ipc_epoch;
}

/* the record's entry from the address cache; false: not there, or the cache is off */
static bool ipc_find(struct pmt_hist *h, uint64_t ip, uint32_t epoch)
{
	const struct hist_ipc *c;

	if (!epoch)
		return false;
	c = &h->ipc[ipc_slot(ip)];
	if (c->epoch != epoch || c->ip != ip)
		return false;
	h->last_slot = c->at;
	h->last_kernel = c->kernel;
	h->last_nosym = c->nosym;
	h->last_objoff = 0;
	return true;
}

/* not an object's address: its offset in the object is the address's, not the entry's.
 * An address without a symbol does not take the slot of one with: its entry is its own
 * (found again by the index at the cost of a failed symbol search), where a function's
 * many addresses share theirs; the bench's 5% of unresolved kernel addresses had evicted
 * as many of the functions' slots */
static void ipc_put(struct pmt_hist *h, uint64_t ip, uint32_t epoch)
{
	struct hist_ipc *c;

	if (!epoch || h->e[h->last_slot].object)
		return;
	c = &h->ipc[ipc_slot(ip)];
	if (h->last_nosym && c->epoch == epoch && !c->nosym)
		return;
	*c = (struct hist_ipc){ .ip = ip, .at = (uint32_t)h->last_slot,
				.epoch = (uint16_t)epoch, .kernel = h->last_kernel,
				.nosym = h->last_nosym };
}

/* the address cache, when the keys are the address space's alone and the samples' chains
 * make no entries of their own */
static void ipc_setup(struct pmt_hist *h, int32_t pid)
{
	h->ipc_pid = pid;
	h->ipc_tried = 1;
	/* keep_low_ip needs each record's map_ip, which the cache does not keep */
	if (h->cg || h->keep_low_ip ||
	    (h->used_keys & ~((1u << KEY_SYM) | (1u << KEY_DSO) | SRC_KEYS)))
		return;
	/* without it only slower */
	h->ipc = calloc(HIST_IPC_SLOTS, sizeof(*h->ipc));
}

int pmt_hist_add_hidden(struct pmt_hist *h, const struct pmt_spe_sample *s)
{
	int slot = pmt_ev_slot(&h->slots, s->event, "report");

	if (slot >= 0) {
		h->whole_period[slot] += s->period;
		h->whole_weight[slot] += s->weight;
		h->whole_samples[slot]++;
	}
	return 0;
}

void pmt_hist_set_relative(struct pmt_hist *h, bool relative)
{
	h->relative = relative;
}

static inline bool hist_has_filters(const struct pmt_hist *h)
{
	return h->comm_list || h->dso_list || h->sym_list;
}

/* the sample's entry into h->last_slot from its key (the address cache did not have it) */
static int locate_key(struct pmt_hist *h, const struct pmt_spe_sample *s, uint32_t epoch)
{
	struct hent k;
	int rc = make_key(h, s, NULL, 0, NULL, &k);

	h->last_kernel = k.kernel;
	h->last_nosym = !k.sym;
	h->last_objoff = k.objoff;
	h->last_map_ip = k.ip;
	if (rc >= 0)
		rc = find_or_add(h, &k, &h->last_slot);
	if (rc >= 0)
		ipc_put(h, s->ip, epoch);
	return rc;
}

/* the sample's entry into h->last_slot: the last sample's when it has the same address,
 * thread, CPU and time (the other samples of its record) */
static inline int locate(struct pmt_hist *h, const struct pmt_spe_sample *s)
{
	int rc;

	if (!h->last_valid || s->ip != h->last_ip || s->pid != h->last_pid ||
	    s->tid != h->last_tid || s->cpu != h->last_cpu || s->time != h->last_time) {
		uint32_t epoch;

		if (!h->ipc_tried)
			ipc_setup(h, s->pid);
		epoch = h->ipc ? ipc_epoch(h, s->pid, pmt_symbols_version(h->syms, s->time)) : 0;
		h->last_dsrc = s->data_src;
		if (!ipc_find(h, s->ip, epoch)) {
			rc = locate_key(h, s, epoch);
			if (rc < 0) {
				h->last_valid = 0;
				return rc;
			}
		}
		h->last_ip = s->ip;
		h->last_pid = s->pid;
		h->last_tid = s->tid;
		h->last_cpu = s->cpu;
		h->last_time = s->time;
		h->last_valid = 1;
	}
	return 0;
}

/* the event's slot; SPE's own events are their slot */
static inline int sample_slot(struct pmt_hist *h, const struct pmt_spe_sample *s)
{
	return s->event < PMT_SPE_SE_COUNT ? (int)s->event
					   : pmt_ev_slot(&h->slots, s->event, "report");
}

static inline void add_totals(struct pmt_hist *h, const struct pmt_spe_sample *s, int slot)
{
	h->total_period[slot] += s->period;
	h->total_weight[slot] += s->weight;
	h->nr_samples[slot]++;
	h->whole_period[slot] += s->period;
	h->whole_weight[slot] += s->weight;
	h->whole_samples[slot]++;
}

static inline int add_sample(struct pmt_hist *h, const struct pmt_spe_sample *s)
{
	struct hent_ev *x;
	int slot = sample_slot(h, s);

	if (slot < 0)
		return 0;
	if (hist_has_filters(h) && hist_filtered(h, s))
		return pmt_hist_add_hidden(h, s);
	add_totals(h, s, slot);
	PMT_FORWARD_IF_ERROR(locate(h, s));
	h->adding_kernel = h->last_kernel;
	x = entry_event(h, &h->e[h->last_slot], (unsigned)slot);
	if (!x)
		return -PMT_ENOMEM;
	x->period += s->period;
	x->weight += s->weight;
	x->nr++;
	if (h->keep_low_ip) {
		struct hent_ev_seen *f = &h->ev_seen[x - h->ev];
		struct hent *e = &h->e[h->last_slot];

		/* perf's signed difference of the addresses */
		if ((int64_t)(h->last_map_ip - f->low_ip) < 0) {
			f->low_ip = h->last_map_ip;
			if (h->last_nosym)
				e->nosym_first |= (uint16_t)(1u << slot);
			else
				e->nosym_first &= (uint16_t)~(1u << slot);
		}
	}
	/* a sample without a chain still counts in its entry's Children (perf's
	 * cumulate is the whole report's, not an event's) */
	if (h->cg)
		return add_chain(h, s, (uint32_t)(x - h->ev), (unsigned)slot);
	return 0;
}

int pmt_hist_add(struct pmt_hist *h, const struct pmt_spe_sample *s)
{
	return add_sample(h, s);
}

void pmt_hist_prefetch(const struct pmt_hist *h, uint64_t ip)
{
	if (h->ipc)
		__builtin_prefetch(&h->ipc[ipc_slot(ip)]);
}

int pmt_hist_add_record(struct pmt_hist *h, const struct pmt_spe_sample *s, int n)
{
	bool located = false;

	/* chains, keep_low_ip and the --comms/--dsos/--symbols lists take each sample's
	 * own way */
	if (h->cg || h->keep_low_ip || hist_has_filters(h)) {
		for (int i = 0; i < n; i++)
			PMT_FORWARD_IF_ERROR(add_sample(h, &s[i]));
		return 0;
	}
	/* one entry for the record (its samples differ in the event only): found once */
	for (int i = 0; i < n; i++) {
		struct hent_ev *x;
		int slot = sample_slot(h, &s[i]);

		if (slot < 0)
			continue;
		add_totals(h, &s[i], slot);
		if (!located) {
			PMT_FORWARD_IF_ERROR(locate(h, &s[i]));
			h->adding_kernel = h->last_kernel;
			located = true;
		}
		x = entry_event(h, &h->e[h->last_slot], (unsigned)slot);
		if (!x)
			return -PMT_ENOMEM;
		x->period += s[i].period;
		x->weight += s[i].weight;
		x->nr++;
	}
	return 0;
}

bool pmt_hist_takes_brief(const struct pmt_hist *h)
{
	/* the brief has no data source (mem keys), chain or sample of its own to look at */
	return !h->cg && !h->keep_low_ip && !hist_has_filters(h) && !(h->used_keys & MEM_KEYS);
}

int pmt_hist_add_brief(struct pmt_hist *h, const struct pmt_spe_brief *b)
{
	uint32_t epoch, m = b->events;

	if (!m)
		return 0;
	if (!h->ipc_tried)
		ipc_setup(h, b->pid);
	epoch = h->ipc ? ipc_epoch(h, b->pid, pmt_symbols_version(h->syms, b->time)) : 0;
	/* the samples' way remembers its last record: not this one */
	h->last_valid = 0;
	if (!ipc_find(h, b->ip, epoch)) {
		struct pmt_spe_sample s = { .cpu = b->cpu, .pid = b->pid, .tid = b->tid,
					    .time = b->time, .ip = b->ip, .rec = b->rec };

		PMT_FORWARD_IF_ERROR(locate_key(h, &s, epoch));
	}
	h->adding_kernel = h->last_kernel;
	for (; m; m &= m - 1) {
		const unsigned slot = (unsigned)__builtin_ctz(m);
		const uint64_t period = slot == PMT_SPE_SE_INSN ? b->insn_period : b->period;
		struct hent_ev *x = entry_event(h, &h->e[h->last_slot], slot);

		if (!x)
			return -PMT_ENOMEM;
		h->total_period[slot] += period;
		h->total_weight[slot] += b->weight;
		h->nr_samples[slot]++;
		h->whole_period[slot] += period;
		h->whole_weight[slot] += b->weight;
		h->whole_samples[slot]++;
		x->period += period;
		x->weight += b->weight;
		x->nr++;
	}
	return 0;
}
