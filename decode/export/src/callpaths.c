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
 * where there is none) and the row it was given */
struct node {
	uint64_t parent, sym, ip; /* key */
	int64_t id;
};

/* an address under a parent in a process, once resolved: pmt_symbols_resolve() per
 * frame is what would cost, so a chain seen before costs a probe per frame */
struct addr_node {
	uint64_t parent, pid, ip; /* key */
	int64_t node;
};

void export_callpaths_init(struct export_callpaths *cp)
{
	memset(cp, 0, sizeof(*cp));
	cp->nodes.ksz = 3 * sizeof(uint64_t);
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

/* the node of one frame under parent, made (with its row) when new */
static int64_t frame_node(struct export_callpaths *cp, struct export_ids *ids,
			  struct pmt_symbols *syms, const struct pmt_spe_sample *s, int64_t parent,
			  uint64_t ip, callpath_row_fn fn, void *ctx)
{
	struct sample_ids o;
	struct node key, *n;
	struct callpath_row r;
	bool is_new;
	int rc;

	memset(&o, 0, sizeof(o));
	if (syms)
		pmt_symbols_resolve(syms, s->pid, ip, s->time, &o.loc);
	key.parent = (uint64_t)parent;
	key.sym = o.loc.sym ? (uint64_t)(uintptr_t)o.loc.sym_id : 0;
	key.ip = o.loc.sym ? 0 : ip;
	n = itab_get(&cp->nodes, &key, &is_new);
	if (!n)
		return -PMT_ENOMEM;
	if (!is_new)
		return n->id;
	n->id = (int64_t)cp->nodes.n + ROOT_ID;
	r = (struct callpath_row){ .id = n->id, .parent_id = parent, .ip = key.ip };
	if (o.loc.dso) {
		rc = export_ids_of_loc(ids, &o);
		if (rc < 0)
			return rc;
		r.symbol_id = o.sym_id;
	}
	rc = fn(ctx, &r, &o);
	return rc < 0 ? rc : r.id;
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
