/* The call-path tree of callpaths.h. */
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/perf_abi.h"
#include "callpaths.h"

/* PERF_CONTEXT_MAX: chain entries at or above it mark where kernel, user or guest frames
 * begin; perf's resolver skips them */
#define CONTEXT_MAX ((uint64_t)-4095)
#define ROOT_ID 1

/* the tree's key (perf's call_path__findnew(): the parent's children by symbol, or by ip
 * where there is none) and the row it was given. An inlined function's node is perf's
 * symbol made for it at one address (its inline list is kept per file address): the file,
 * the address and the depth of the inlined call (0 for a real frame) */
struct node {
	uint64_t parent, sym, ip, depth; /* key */
	int64_t id;
};

/* an address under a parent in a process, once resolved: pmt_symbols_resolve() per
 * frame is what would cost, so a chain seen before costs a probe per frame */
struct addr_node {
	uint64_t parent, pid, ip; /* key */
	int64_t node;
};

#define INLINE_MAX 64

void export_callpaths_init(struct export_callpaths *cp, int compat)
{
	memset(cp, 0, sizeof(*cp));
	cp->inlines = compat >= 602;
	cp->nodes.ksz = 4 * sizeof(uint64_t);
	cp->nodes.esz = sizeof(struct node);
	cp->by_addr.ksz = 3 * sizeof(uint64_t);
	cp->by_addr.esz = sizeof(struct addr_node);
}

void export_callpaths_fini(struct export_callpaths *cp)
{
	itab_free(&cp->nodes);
	itab_free(&cp->by_addr);
}

void export_callpaths_event(struct export_callpaths *cp, const struct pmt_trace_event *ev)
{
	if (ev->kind != PMT_TEV_RECORD || !cp->by_addr.n)
		return;
	if (ev->type == PMT_REC_MMAP || ev->type == PMT_REC_MMAP2 ||
	    (ev->type == PMT_REC_COMM && ev->u.comm.exec)) {
		itab_clear(&cp->by_addr);
	}
}

/* the node of key, made (with its row, after the rows of the frame's dso and symbol)
 * when new; an inlined function's (key->depth > 0) has a symbol of its own, named inlined */
static int64_t node_of(struct export_callpaths *cp, struct export_ids *ids,
		       const struct node *key, struct sample_ids *frame, const char *inlined,
		       callpath_row_fn fn, void *ctx)
{
	struct callpath_row r;
	struct node *n;
	bool is_new;
	int rc;

	n = itab_get(&cp->nodes, key, &is_new);
	if (!n)
		return -PMT_ENOMEM;
	if (!is_new) {
		/* a file first met here under a known node (its map changed): its row still */
		if (!inlined && (frame->new_dso || frame->new_sym) &&
		    (rc = fn(ctx, NULL, frame)) < 0)
			return rc;
		return n->id;
	}
	n->id = (int64_t)cp->nodes.n + ROOT_ID;
	r = (struct callpath_row){ .id = n->id, .parent_id = (int64_t)key->parent, .ip = key->ip };
	if (inlined) {
		frame->loc.sym = inlined;
		frame->new_dso = false;
		frame->new_sym = true;
		frame->sym_id = export_ids_new_symbol(ids);
		r.ip = 0; /* the key's address is the symbol's identity, not the row's */
	}
	r.symbol_id = frame->sym_id;
	rc = fn(ctx, &r, frame);
	return rc < 0 ? rc : r.id;
}

/* The node of one frame under parent: its function's, then (perf 7.3) a node per function
 * inlined at the address, outermost first, as perf's append_inlines() adds them in caller
 * order. */
static int64_t frame_node(struct export_callpaths *cp, struct export_ids *ids,
			  struct pmt_symbols *syms, const struct pmt_spe_sample *s, int64_t parent,
			  uint64_t ip, callpath_row_fn fn, void *ctx)
{
	struct pmt_inline_frame fr[INLINE_MAX];
	struct sample_ids o;
	struct node key;
	int64_t id;
	int n, rc;

	memset(&o, 0, sizeof(o));
	if (syms)
		pmt_symbols_resolve(syms, s->pid, ip, s->time, &o.loc);
	/* the ids (the rows are written with a new node: a node's frame has them) */
	if (o.loc.dso && (rc = export_ids_of_loc(ids, &o)) < 0)
		return rc;
	key = (struct node){ .parent = (uint64_t)parent,
			     .sym = o.loc.sym ? (uint64_t)(uintptr_t)o.loc.sym_id : 0,
			     .ip = o.loc.sym ? 0 : ip };
	n = cp->inlines && o.loc.sym && o.loc.dso ? pmt_symbols_inlines(syms, &o.loc, fr, INLINE_MAX)
						    : 0;
	/* a holder perf names from addr2line by its DWARF name (a GCC clone: "spin" for
	 * spin.constprop.0, script's "spin (inlined)") is that inlined function's node in
	 * place of the symbol's, as in perf 7.3's chains */
	if (n >= 1 && n < INLINE_MAX && fr[n - 1].inlined)
		id = parent;
	else
		id = node_of(cp, ids, &key, &o, NULL, fn, ctx);
	if (id < 0 || !n)
		return id;
	for (int j = fr[n - 1].inlined && n < INLINE_MAX ? n - 1 : n - 2; j >= 0 && id > 0; j--) {
		key = (struct node){ .parent = (uint64_t)id,
				     .sym = (uint64_t)(uintptr_t)o.loc.dso_id,
				     .ip = o.loc.map_ip, .depth = (uint64_t)j + 1 };
		id = node_of(cp, ids, &key, &o, fr[j].func ? fr[j].func : "??", fn, ctx);
	}
	return id;
}

int64_t export_callpath_of(struct export_callpaths *cp, struct export_ids *ids,
			   struct pmt_symbols *syms, const struct pmt_spe_sample *s,
			   callpath_row_fn fn, void *ctx)
{
	const struct pmt_callchain *cc = s->callchain;
	int64_t parent = ROOT_ID;

	if (!cc)
		return 0;
	for (uint64_t i = cc->nr; i-- > 0;) {
		struct addr_node key, *a;
		bool is_new;
		int64_t id;

		if (cc->ips[i] >= CONTEXT_MAX)
			continue;
		if (!cp->have_root) {
			struct callpath_row root = { .id = ROOT_ID };
			struct sample_ids none;
			int rc;

			memset(&none, 0, sizeof(none));
			rc = fn(ctx, &root, &none);
			if (rc < 0)
				return rc;
			cp->have_root = true;
		}
		key = (struct addr_node){ .parent = (uint64_t)parent,
					  .pid = (uint64_t)(uint32_t)s->pid, .ip = cc->ips[i] };
		a = itab_get(&cp->by_addr, &key, &is_new);
		if (!a)
			return -PMT_ENOMEM;
		if (!is_new) {
			parent = a->node;
			continue;
		}
		id = frame_node(cp, ids, syms, s, parent, cc->ips[i], fn, ctx);
		if (id < 0)
			return id;
		a->node = id; /* a is still valid: only nodes grew */
		parent = id;
	}
	return parent == ROOT_ID ? 0 : parent;
}
