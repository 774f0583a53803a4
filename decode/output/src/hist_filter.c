/* perf report's --comms, --dsos and --symbols: which samples a report's entries show.
 * perf decides it once per sample from the sample's own thread, file and symbol
 * (machine__resolve's al->filtered) and the sample's callers' entries (Children) inherit
 * it, so a sample left out is left out everywhere but in the file's totals, as --pid's
 * are (pmt_hist_add_hidden). Checked with perf 7.3 on two-process recordings. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "pmutrace/symbols.h"
#include "hist_table.h"

/* perf's strlist of the option: the words between commas, each whole; an empty word
 * after the last comma is none (strlist__parse_list), so "" is an empty list */
struct hist_names {
	size_t n;
	char *text;   /* the words, NUL-separated */
	const char **word;
};

static void names_free(struct hist_names *l)
{
	if (!l)
		return;
	free(l->text);
	free(l->word);
	free(l);
}

static int names_new(const char *list, struct hist_names **out)
{
	struct hist_names *l;
	size_t n = 1;

	*out = NULL;
	if (!list)
		return 0;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -PMT_ENOMEM;
	for (const char *p = list; *p; p++)
		n += *p == ',';
	l->text = strdup(list);
	l->word = calloc(n, sizeof(*l->word));
	if (!l->text || !l->word) {
		names_free(l);
		return -PMT_ENOMEM;
	}
	for (char *p = l->text, *comma; *p; p = comma + 1) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		l->word[l->n++] = p;
		if (!comma)
			break;
	}
	*out = l;
	return 0;
}

static bool names_have(const struct hist_names *l, const char *s)
{
	for (size_t i = 0; s && i < l->n; i++)
		if (!strcmp(l->word[i], s))
			return true;
	return false;
}

void hist_filter_free(struct pmt_hist *h)
{
	names_free(h->comm_list);
	names_free(h->dso_list);
	names_free(h->sym_list);
	h->comm_list = h->dso_list = h->sym_list = NULL;
}

int pmt_hist_set_filter(struct pmt_hist *h, const struct pmt_hist_filter_opts *o)
{
	int rc;

	if (!h || !o || o->sz < sizeof(size_t) || o->sz > sizeof(*o))
		return -PMT_EINVAL;
	hist_filter_free(h);
	rc = names_new(o->comms, &h->comm_list);
	if (rc >= 0)
		rc = names_new(o->dsos, &h->dso_list);
	if (rc >= 0)
		rc = names_new(o->symbols, &h->sym_list);
	if (rc < 0)
		hist_filter_free(h);
	return rc;
}

bool hist_filtered(struct pmt_hist *h, const struct pmt_spe_sample *s)
{
	struct pmt_sym_loc loc;

	if (h->comm_list) {
		/* a thread without a COMM is ":TID" to perf (thread__new) */
		const char *c = pmt_symbols_comm(h->syms, s->tid, s->time);
		char tidname[16];

		if (!c) {
			snprintf(tidname, sizeof(tidname), ":%d", (int)s->tid);
			c = tidname;
		}
		if (!names_have(h->comm_list, c))
			return true;
	}
	if (!h->dso_list && !h->sym_list)
		return false;
	pmt_symbols_resolve(h->syms, s->pid, s->ip, s->time, &loc);
	/* a file by its short or its long name; an address in no file is left out */
	if (h->dso_list && (!loc.dso || !(names_have(h->dso_list, loc.dso_short) ||
					 names_have(h->dso_list, loc.dso))))
		return true;
	if (h->sym_list) {
		char start[24];

		if (!loc.sym)
			return true;
		if (names_have(h->sym_list, loc.sym))
			return false;
		/* or the symbol's start as an address of the process (map__unmap_ip) */
		snprintf(start, sizeof(start), "0x%" PRIx64,
			 loc.sym_start + loc.map_start - loc.map_pgoff);
		return !names_have(h->sym_list, start);
	}
	return false;
}

static const struct hist_names *list_of(const struct pmt_hist *h, enum key k)
{
	return k == KEY_COMM ? h->comm_list : k == KEY_DSO ? h->dso_list
					    : k == KEY_SYM ? h->sym_list : NULL;
}

uint32_t hist_elided(const struct pmt_hist *h)
{
	uint32_t m = 0;

	for (unsigned i = 0; i < h->nkeys; i++) {
		const struct hist_names *l = list_of(h, h->keys[i]);

		if (l && l->n == 1)
			m |= 1u << i;
	}
	/* perf shows them all again rather than no column at all */
	return m == (1u << h->nkeys) - 1 ? 0 : m;
}

void hist_elided_note(const struct pmt_hist *h, struct pmt_out *out)
{
	for (unsigned i = 0; i < h->nkeys; i++) {
		const struct hist_names *l = list_of(h, h->keys[i]);

		if (l && l->n == 1)
			pmt_out_printf(out, "# %s: %s\n", h->keys[i] == KEY_SYM ? "symbol"
							  : hist_key_names[h->keys[i]], l->word[0]);
	}
}
