/* report --sort srcline/srcfile with call chains, as perf 7.3 makes it: perf keys the
 * entries by address and file first (sort.c sort__srcline_cmp: the sample's address in its
 * file, a caller's chain address as it stands in the process), each with its own Children
 * and call graph, and merges those of one text afterwards (hists__collapse_resort), per
 * event, into the one of the lowest address. The merged ones' graphs lose their symbols
 * on the way (callchain.c merge_chain_branch keeps only the map), so their frames print as
 * addresses. The table is filled with perf's first entries (report_hist.c, h->src_collapse)
 * and merged here before it is sorted. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "hist_table.h"
#include "hist_srcline.h"
#include "callgraph.h"
#include "hist_rbrank.h"

void hist_frame_at(struct pmt_sym_loc *loc, const struct cg_frame *frame, uint64_t faddr)
{
	/* a function's frames are one, made at its first address */
	loc->map_ip += faddr - frame->addr;
	if (!frame->inlined)
		loc->symoff += faddr - frame->addr;
}

int hist_frame_texts(struct pmt_hist *h, const struct pmt_sym_loc *loc, uint64_t faddr,
		     const char *fsrc, struct hent *k)
{
	size_t tl;
	char buf[4096];

	/* an inlined call's frames: perf's al->srcline (its srcfile is still the
	 * address's) */
	if (fsrc && !(k->srcline = hist_src_intern(h->src, fsrc)))
		return -PMT_ENOMEM;
	/* perf 7.3 looks a caller's line and file up at its chain address taken for one in
	 * the file (sort.c hist_entry__get_srcline and _srcfile with he->ip, a process
	 * address), where the two differ: no file, and where the inline list gave no line
	 * (fsrc), no line either: "SYM+OFFSET" of that address, or "DSO[ADDR]". Only
	 * addr2line's own answers for code without lines ("??:0", ":0", crtstuff.c:0) came
	 * out the same (perf 7.3 on PIE programs, libc, ld.so, stripped and not), and only
	 * in a symbol: a caller in no symbol (a stale return address in libc's padding
	 * between functions, where addr2line names ":0" or "??:0") is "DSO[ADDR]" (perf 7.3
	 * -vvv: its addr2line asked at the process address answers "??:0"); perf 6.1's
	 * addr2line, asked at an address no section of the file holds, answers nothing
	 * there either (a stripped ls's callers: "ls[5586a1598e7e]") */
	if (faddr == loc->map_ip)
		return 0;
	if (!(k->srcfile = hist_src_intern(h->src, "")))
		return -PMT_ENOMEM;
	tl = strlen(k->srcline);
	if (fsrc || (h->compat >= 602 && loc->sym && tl >= 2 && !strcmp(k->srcline + tl - 2, ":0")))
		return 0;
	if (loc->sym)
		snprintf(buf, sizeof(buf), "%s+%" PRIu64, loc->sym,
			 faddr - (loc->map_ip - loc->symoff));
	else
		snprintf(buf, sizeof(buf), "%s[%" PRIx64 "]", loc->dso_short ? loc->dso_short : "",
			 faddr);
	k->srcline = hist_src_intern(h->src, buf);
	return k->srcline ? 0 : -PMT_ENOMEM;
}

struct member {
	const struct hent *e;
	uint32_t at;
	uint32_t rank; /* its place in perf's tree of its first event (perf_order) */
	uint32_t into; /* the rank of the entry perf's merge put it in (with cmp_into) */
};

static const struct pmt_hist *cmp_hist; /* qsort's context: the table being collapsed */
static const uint32_t *cmp_rank;        /* and the ranks of the event being merged */
static const uint32_t *cmp_into;        /* and where perf's merge put each entry, or NULL */

/* perf's per-event input trees hold the event's entries in the order they got it (the
 * event's pool index): ranks[ev][entry] their in-order places, NULL for an unused event;
 * only for keys whose comparison is known here (hist_perf_keys_known), else nothing is
 * set and the entries keep the address order */
static int perf_order(struct pmt_hist *h, uint32_t *ranks[HIST_SLOTS])
{
	uint32_t *order;
	int rc = 0;

	if (!hist_perf_keys_known(h))
		return 0;
	order = malloc((h->n ? h->n : 1) * sizeof(*order));
	if (!order)
		return -PMT_ENOMEM;
	for (unsigned ev = 0; ev < HIST_SLOTS && rc >= 0; ev++) {
		size_t m = 0;

		for (size_t i = 0; i < h->n; i++)
			if (h->e[i].ev_at[ev])
				order[m++] = (uint32_t)i;
		if (!m)
			continue;
		/* the pool grows as entries get an event: its index is the order perf added
		 * them to that event's hists */
		for (size_t i = 1; i < m; i++) {
			uint32_t x = order[i];
			size_t j = i;

			if (h->e[order[j - 1]].ev_at[ev] < h->e[x].ev_at[ev])
				continue;
			while (j && h->e[order[j - 1]].ev_at[ev] > h->e[x].ev_at[ev]) {
				order[j] = order[j - 1];
				j--;
			}
			order[j] = x;
		}
		ranks[ev] = malloc(h->n * sizeof(*ranks[ev]));
		rc = ranks[ev] ? hist_rb_ranks(order, m, hist_perf_cmp, h, ranks[ev], NULL)
				: -PMT_ENOMEM;
	}
	free(order);
	return rc;
}

/* perf's lookups of lines stop for a file after 123 failures in a row (srcline.c
 * A2L_FAIL_LIMIT: __get_srcline clears dso->has_srcline for good, its counter starting at
 * 1), and from then on an address of that file is "SYM+OFFSET" or "DSO[ADDR]" with no
 * source file. perf 7.3 looks an entry's srcline and srcfile up when a comparison first
 * needs them (sort__srcline_collapse, sort__srcfile_collapse), and each caller's lookup at
 * its process address fails: a recording with more than 123 such callers of one file in a
 * row (libc under ls -lR -g) cuts that file off during the merge, and the entries whose
 * text no comparison needed before then (alone in their source file under --sort
 * srcfile,srcline) print perf's text of no line. */
#define A2L_FAIL_LIMIT 123

struct a2l_dso {
	const void *id;
	unsigned fails;
	bool off;
};

struct a2l {
	struct pmt_hist *h;
	uint8_t *known; /* per entry: bit KEY_SRCLINE / KEY_SRCFILE - 8 asked for */
	struct a2l_dso *dsos;
	size_t ndsos;
};

static struct a2l_dso *a2l_dso(struct a2l *a, const void *id)
{
	for (size_t i = 0; i < a->ndsos; i++)
		if (a->dsos[i].id == id)
			return &a->dsos[i];
	/* the entries' files: dsos has room for one per entry */
	a->dsos[a->ndsos] = (struct a2l_dso){ id, 1, false };
	return &a->dsos[a->ndsos++];
}

/* the lookup of entry i's text for key (srcline or srcfile) perf makes when first asked:
 * counted for its file, and perf's text of no line once the file is cut off */
static int a2l_ask(struct a2l *a, uint32_t i, enum key key)
{
	struct hent *e = &a->h->e[i];
	const uint8_t bit = key == KEY_SRCLINE ? 1 : 2;
	const char *line, *fail;
	struct a2l_dso *d;
	bool found, at_file;
	size_t tl;

	if (a->known[i] & bit)
		return 0;
	a->known[i] |= bit;
	if (!e->dso_id)
		return 0; /* no map: perf has nothing to look up */
	at_file = hist_src_looked_up(a->h->src, e->dso_id, e->ip, &line, &fail, &found);
	if (at_file && key == KEY_SRCLINE && e->srcline != line)
		return 0; /* the line its inline list gave: no lookup */
	if (!at_file) {
		/* a caller at its process address: only addr2line's own answers ("??:0",
		 * ":0") succeed there, and a line from the inline list is no lookup */
		tl = strlen(e->srcline);
		found = tl >= 2 && !strcmp(e->srcline + tl - 2, ":0");
		if (key == KEY_SRCLINE && !found && hist_src_is_file_line(e->srcline))
			return 0;
		fail = NULL;
	}
	d = a2l_dso(a, e->dso_id);
	if (d->off) {
		if (!found)
			return 0; /* the same text either way */
		if (key == KEY_SRCFILE)
			e->srcfile = hist_src_intern(a->h->src, "");
		else if (fail)
			e->srcline = fail;
		return e->srcfile ? 0 : -PMT_ENOMEM;
	}
	if (found)
		d->fails = 0;
	else if (++d->fails > A2L_FAIL_LIMIT)
		d->off = true;
	return 0;
}

/* perf's hist_entry__collapse(existing, new) over the keys a2l_cutoff takes, asking for
 * the texts as perf's collapse functions do (left's, then right's) */
static int64_t a2l_cmp(const void *ctx, uint32_t existing, uint32_t added)
{
	struct a2l *a = (struct a2l *)ctx;
	const struct pmt_hist *h = a->h;
	const struct hent *l = &h->e[existing], *r = &h->e[added];
	int64_t c = 0;

	for (unsigned i = 0; i < h->nkeys && !c; i++) {
		switch (h->keys[i]) {
		case KEY_SRCLINE:
		case KEY_SRCFILE:
			/* out of memory only: the texts stay as they were */
			(void)a2l_ask(a, existing, h->keys[i]);
			(void)a2l_ask(a, added, h->keys[i]);
			c = h->keys[i] == KEY_SRCLINE ? strcmp(r->srcline, l->srcline)
						      : strcmp(r->srcfile, l->srcfile);
			break;
		default: /* sym (no collapse function of its own: its cmp), dso, comm */
			c = hist_perf_key_cmp(h, h->keys[i], l, r);
		}
	}
	return c;
}

/* the texts perf's cut-off files give, for the events evs[0..nev) in perf's order, each
 * with its input order known (ranks[ev]): their merges walked in that order, then the texts
 * no comparison asked for (perf looks them up when sorting and printing, after every
 * event's merge: the files cut off by then give no line). perf's files, and so their
 * cut-off, are shared by the events. into[entry]: the entry perf's merge put it in (itself
 * when kept; the events' entries only); merged_rank[entry] (or NULL): a kept entry's place
 * in its event's merged tree */
static int a2l_cutoff(struct pmt_hist *h, uint32_t *const ranks[HIST_SLOTS],
		      const unsigned *evs, unsigned nev, uint32_t *into, uint32_t *merged_rank)
{
	struct a2l a = { h, NULL, NULL, 0 };
	uint32_t *order = NULL, *tree_rank = merged_rank;
	int rc = -PMT_ENOMEM;

	a.known = calloc(h->n ? h->n : 1, 1);
	a.dsos = malloc((h->n ? h->n : 1) * sizeof(*a.dsos));
	/* zeroed: GCC cannot tell the ranks fill the first m */
	order = calloc(h->n ? h->n : 1, sizeof(*order));
	if (!merged_rank)
		tree_rank = malloc((h->n ? h->n : 1) * sizeof(*tree_rank));
	if (!a.known || !a.dsos || !order || !tree_rank)
		goto out;
	rc = 0;
	for (unsigned pass = 0; pass < 2; pass++) {
		for (unsigned k = 0; k < nev && rc >= 0; k++) {
			const unsigned ev = evs[k];
			size_t m = 0;

			for (size_t i = 0; i < h->n; i++)
				if (h->e[i].ev_at[ev])
					order[ranks[ev][i]] = (uint32_t)i, m++;
			if (!pass) {
				rc = hist_rb_ranks(order, m, a2l_cmp, &a, tree_rank, into);
				continue;
			}
			for (size_t i = 0; i < m && rc >= 0; i++) {
				if (h->used_keys & (1u << KEY_SRCLINE))
					rc = a2l_ask(&a, order[i], KEY_SRCLINE);
				if (rc >= 0 && (h->used_keys & (1u << KEY_SRCFILE)))
					rc = a2l_ask(&a, order[i], KEY_SRCFILE);
			}
		}
	}
out:
	free(a.known);
	free(a.dsos);
	free(order);
	if (tree_rank != merged_rank)
		free(tree_rank);
	return rc;
}

#define CMP(x, y)                                  \
	do {                                       \
		if ((x) != (y))                    \
			return (x) < (y) ? -1 : 1; \
	} while (0)

/* the keys but the address and file: the entries that merge */
static int cmp_group(const struct hent *a, const struct hent *b)
{
	const uint32_t keys = cmp_hist->used_keys;

	if (keys & (1u << KEY_SRCLINE))
		CMP((uintptr_t)a->srcline, (uintptr_t)b->srcline);
	if (keys & (1u << KEY_SRCFILE))
		CMP((uintptr_t)a->srcfile, (uintptr_t)b->srcfile);
	if (keys & (1u << KEY_SYM)) {
		CMP((uintptr_t)a->sym_id, (uintptr_t)b->sym_id);
		if (!a->sym_id)
			CMP(a->ip, b->ip);
	}
	if (keys & (1u << KEY_DSO))
		CMP((uintptr_t)a->dso_id, (uintptr_t)b->dso_id);
	if (keys & ((1u << KEY_COMM) | (1u << KEY_PID)))
		CMP(a->comm, b->comm);
	if (keys & (1u << KEY_PID))
		CMP(a->tid, b->tid);
	if (keys & (1u << KEY_CPU))
		CMP(a->cpu, b->cpu);
	if (keys & MEM_KEYS)
		return memcmp(a->mem_f, b->mem_f, sizeof(a->mem_f));
	return 0;
}

/* a group together, in perf's order within it: address, then file */
static int cmp_member(const void *pa, const void *pb)
{
	const struct member *ma = pa, *mb = pb;
	const struct hent *a = ma->e, *b = mb->e;
	int c;

	/* perf's merge, followed: its groups, each in its tree's order */
	if (cmp_into) {
		CMP(ma->into, mb->into);
		CMP(ma->rank, mb->rank);
		return 0;
	}
	if ((c = cmp_group(a, b)) != 0)
		return c;
	if (cmp_rank) {
		CMP(((const struct member *)pa)->rank, ((const struct member *)pb)->rank);
		return 0;
	}
	CMP(a->ip, b->ip);
	CMP((uintptr_t)a->dso_id, (uintptr_t)b->dso_id);
	return 0;
}

/* one event's members of a group in its own tree's order */
static int cmp_event_rank(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;

	CMP(cmp_rank[a->at], cmp_rank[b->at]);
	return 0;
}

/* entry b's counts of slot ev into keep's (both have some): perf's he_stat__add_stat and
 * callchain_merge */
static int merge_slot(struct pmt_hist *h, uint32_t keep, uint32_t b)
{
	struct cg *g = h->cg;
	struct cg_ev *dst;
	const struct cg_ev *src;

	h->ev[keep].period += h->ev[b].period;
	h->ev[keep].weight += h->ev[b].weight;
	h->ev[keep].nr += h->ev[b].nr;
	if (!cg_ev_at(g, keep > b ? keep : b))
		return -PMT_ENOMEM;
	dst = &g->ev[keep];
	src = &g->ev[b];
	dst->acc_period += src->acc_period;
	dst->acc_nr += src->acc_nr;
	if (!dst->has_tid && src->has_tid) {
		dst->tid = src->tid;
		dst->has_tid = 1;
	}
	return cg_merge_unnamed(g, dst, src);
}

/* the group v[0..n) (perf's order) into its first entry, event by event: in each, the
 * first of the group in that event's tree keeps its counts and graph as they are, named
 * (w: room for n members) */
static int merge_group(struct pmt_hist *h, const struct member *v, size_t n,
		       uint32_t *const ranks[HIST_SLOTS], struct member *w)
{
	struct hent *a = &h->e[v[0].at];

	for (unsigned ev = 0; ev < HIST_SLOTS; ev++) {
		const uint16_t bit = (uint16_t)(1u << ev);
		const struct hent *first;
		size_t m = 0;

		for (size_t i = 0; i < n; i++)
			if (h->e[v[i].at].ev_at[ev])
				w[m++] = v[i];
		if (!m)
			continue;
		if (ranks[ev]) {
			cmp_rank = ranks[ev];
			qsort(w, m, sizeof(*w), cmp_event_rank);
		}
		first = &h->e[w[0].at];
		if (first != a) {
			a->ev_at[ev] = first->ev_at[ev];
			a->nosym_first = (uint16_t)((a->nosym_first & ~bit) | (first->nosym_first & bit));
			a->kernel_ev = (uint16_t)((a->kernel_ev & ~bit) | (first->kernel_ev & bit));
		}
		for (size_t i = 1; i < m; i++)
			PMT_FORWARD_IF_ERROR(merge_slot(h, a->ev_at[ev], h->e[w[i].at].ev_at[ev]));
	}
	for (size_t i = 1; i < n; i++)
		h->e[v[i].at].hash = 1; /* merged: dropped below */
	return 0;
}

int hist_collapse(struct pmt_hist *h)
{
	uint32_t *ranks[HIST_SLOTS] = { 0 }, *into;
	struct member *v, *w;
	bool by_into = false;
	size_t i, j, out;
	unsigned ev;
	int rc;

	/* perf merges only when a key has a collapse function of its own (comm, srcline,
	 * srcfile: need_collapse); sym and dso alone print the entry tree's nodes */
	if (h->collapsed)
		return 0;
	if (!(h->src_collapse || (h->tree && (h->used_keys & (1u << KEY_COMM)))))
		return h->tree ? (h->collapsed = 1, hist_tree_order(h)) : 0;
	h->collapsed = 1;
	v = malloc((h->n ? h->n : 1) * sizeof(*v));
	w = malloc((h->n ? h->n : 1) * sizeof(*w));
	into = malloc((h->n ? h->n : 1) * sizeof(*into));
	rc = v && w && into ? perf_order(h, ranks) : -PMT_ENOMEM;
	/* the group's entry is its first in the first event's tree */
	for (ev = 0; ev < HIST_SLOTS && !ranks[ev]; ev++)
		;
	/* one event: perf's files are shared by the events' merges, whose interleaving with
	 * the printing of each is not followed here */
	for (j = ev + 1; j < HIST_SLOTS && !ranks[j]; j++)
		;
	if (rc >= 0 && h->tree) {
		/* each event's entries are its own tree's nodes: each merge follows perf's
		 * (the files' cut-off counted per event, where perf's is shared) */
		unsigned evs[HIST_SLOTS], nev = 0, all[HIST_SLOTS];
		const unsigned nall = pmt_ev_slot_order(&h->slots, all);

		for (unsigned k = 0; k < nall; k++)
			if (ranks[all[k]])
				evs[nev++] = all[k];
		h->tree_ord = malloc((h->n ? h->n : 1) * sizeof(*h->tree_ord));
		rc = h->tree_ord ? a2l_cutoff(h, ranks, evs, nev, into, h->tree_ord)
				 : -PMT_ENOMEM;
		by_into = true;
	} else if (rc >= 0 && ev < HIST_SLOTS && j == HIST_SLOTS) {
		rc = a2l_cutoff(h, ranks, &ev, 1, into, NULL);
		/* the sym key's comparison is not a total order (hist_perftree.c): perf's
		 * merge decides the groups, where the texts alone would merge entries it
		 * keeps apart */
		by_into = (h->used_keys & (1u << KEY_SYM)) != 0;
	}
	for (i = 0; i < h->n && rc >= 0; i++) {
		unsigned e = ev;

		/* with the tree an entry is in one event's only */
		while (h->tree && e < HIST_SLOTS && !(ranks[e] && h->e[i].ev_at[e]))
			e++;
		v[i] = (struct member){ &h->e[i], (uint32_t)i, UINT32_MAX, UINT32_MAX };
		if (e < HIST_SLOTS && h->e[i].ev_at[e]) {
			v[i].rank = ranks[e][i];
			/* the group: the entry perf's merge kept */
			if (by_into)
				v[i].into = into[i];
		}
		h->e[i].hash = 0;
	}
	cmp_hist = h;
	cmp_rank = ev < HIST_SLOTS ? ranks[ev] : NULL;
	cmp_into = by_into ? into : NULL;
	if (rc >= 0)
		qsort(v, h->n, sizeof(*v), cmp_member);
	for (i = 0; i < h->n && rc >= 0; i = j) {
		for (j = i + 1; j < h->n && (by_into ? v[i].into != UINT32_MAX &&
							       v[j].into == v[i].into
						     : !cmp_group(v[i].e, v[j].e));
		     j++)
			;
		if (j - i > 1)
			rc = merge_group(h, v + i, j - i, ranks, w);
	}
	cmp_rank = NULL;
	cmp_into = NULL;
	for (ev = 0; ev < HIST_SLOTS; ev++)
		free(ranks[ev]);
	free(v);
	free(w);
	free(into);
	if (rc < 0)
		return rc;
	/* the kept entries in the order they were made (seq breaks ties as before); the
	 * index no longer finds them: nothing is added after this */
	for (i = 0, out = 0; i < h->n; i++)
		if (!h->e[i].hash) {
			if (h->tree_ord)
				h->tree_ord[out] = h->tree_ord[i];
			h->e[out++] = h->e[i];
		}
	h->n = out;
	memset(h->idx, 0, h->cap * sizeof(*h->idx));
	h->last_valid = 0;
	return 0;
}
