/* perf report --sort KEYS over decoded samples: one histogram per synthetic event, entries
 * keyed by the sort keys (sym, dso, comm, cpu, ...) as perf keys them (tools/perf/util/sort.c,
 * hist.c). This file sets the table up and takes the samples in (the address cache, the
 * ways of a sample, a record and a brief); hist_entries.c makes the entries;
 * report_print.c sorts and prints them. */
#include <stddef.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "pmutrace/perf_abi.h"
#include "hist_table.h"

#include "callgraph.h"
#include "hist_rbrank.h"
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
	if (h->src)
		hist_src_set_compat(h->src, compat);
	h->cut61 = h->src && compat && compat < 602;
	h->cut61_same_in_sample = h->cut61;
	for (unsigned i = 0; i < h->nkeys && h->keys[i] != KEY_SRCLINE && h->keys[i] != KEY_SRCFILE;
	     i++)
		if (h->keys[i] != KEY_COMM && h->keys[i] != KEY_PID)
			h->cut61_same_in_sample = 0;
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
	if (h->tree)
		hist_rb_fini(h->tree);
	free(h->tree);
	h->tree = NULL;
	free(h->tree_ord);
	h->tree_ord = NULL;
	hist_tree_groups_free(h);
	h->tree_cached = 0;
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
	/* the sym key's order is not total once inlined frames have entries, and the
	 * entries merged by text are each event's own (the texts perf's cut-off leaves them
	 * differ by event): perf's nodes are followed (hist_perftree.c). Not for the sym
	 * key alone under --perf-compat=6.1: perf 6.1 names inlined frames its own way, and
	 * comm's collapse of the split entries merged a graph into addresses where perf 6.1
	 * printed the names (symbols.cxx_inline, 2 recordings in 8) */
	if (hist_perf_keys_known(h) &&
	    (h->src_collapse || ((h->used_keys & (1u << KEY_SYM)) && !(h->used_keys & SRC_KEYS) &&
				 !g->no_inline && h->compat >= 700))) {
		h->tree = calloc(1, sizeof(*h->tree));
		if (!h->tree) {
			cg_free(g);
			return -PMT_ENOMEM;
		}
		/* the walks were a quarter of a -g report's time, and most keys' entries sit in
		 * a group no walk can miss them in; the merges by text compare what the index
		 * does not key */
		h->tree_cached = !h->src_collapse;
	}
	/* the graphs of entries perf's merge puts together merge by address */
	g->node_addrs = g->want_src || (h->tree && (h->used_keys & (1u << KEY_COMM)));
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
	free(h->groups61);
	free(h->ev);
	free(h->ev_seen);
	free(h->comms);
	hist_src_free(h->src);
	hist_filter_free(h);
	cg_free(h->cg);
	if (h->tree)
		hist_rb_fini(h->tree);
	free(h->tree);
	free(h->tree_ord);
	hist_tree_groups_free(h);
	free(h);
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
	/* keep_low_ip needs each record's map_ip, which the cache does not keep, and cut61
	 * each sample's lookup (the text of an address changes once its file is off) */
	if (h->cg || h->keep_low_ip || h->cut61 ||
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
	int rc = hist_make_key(h, s, NULL, 0, NULL, &k);
	bool group = false;

	h->last_kernel = k.kernel;
	h->last_nosym = !k.sym;
	h->last_objoff = k.objoff;
	h->last_map_ip = k.ip;
	if (h->cut61) {
		h->last_key61 = k;
		if (rc >= 0)
			rc = hist_group61(h, &k, &group);
		h->last_group61 = group;
	}
	if (rc >= 0)
		rc = hist_find_or_add(h, &k, &h->last_slot);
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
	h->sample_comm_set = 0;
	/* perf's nodes are per event: the record's other samples walk their own tree */
	if (h->tree) {
		h->adding_slot = (unsigned)slot;
		h->last_valid = 0;
	}
	PMT_FORWARD_IF_ERROR(locate(h, s));
	/* perf 6.1 asks for the text when the keys before it are equal to an entry's (its
	 * search reaches an entry next to the new one, of those keys when there is one) */
	if (h->cut61 && h->last_group61)
		PMT_FORWARD_IF_ERROR(hist_count61(h, &h->last_key61, 1));
	h->adding_kernel = h->last_kernel;
	x = hist_entry_event(h, &h->e[h->last_slot], (unsigned)slot);
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
		return hist_add_chain(h, s, (uint32_t)(x - h->ev), (unsigned)slot);
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
	if (h->cg || h->keep_low_ip || hist_has_filters(h) || h->cut61) {
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
		x = hist_entry_event(h, &h->e[h->last_slot], (unsigned)slot);
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
	return !h->cg && !h->keep_low_ip && !hist_has_filters(h) && !(h->used_keys & MEM_KEYS) &&
	       !h->cut61;
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
		struct hent_ev *x = hist_entry_event(h, &h->e[h->last_slot], slot);

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
