/* The srcline and srcfile keys of report --sort: perf 7.3's texts of an address (sort.c
 * hist_entry__srcline, hist_entry__get_srcfile), worked out once per distinct address
 * and interned, so that entries compare and hash them as pointers. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "hist_srcline.h"

#define ARENA_CHUNK 16384

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	char data[];
};

/* an address already asked for: (file, address in it) -> its texts */
struct addr_slot {
	const void *dso_id;
	uint64_t map_ip;
	const char *line, *file;
	const char *fail; /* the line perf prints once it stops looking up (hist_src_looked_up) */
	bool found;       /* a line was found: perf's lookup succeeded */
};

struct hist_src {
	struct arena_chunk *chunks;
	const char **texts;    /* open addressing over the interned texts */
	size_t texts_cap, texts_n;
	struct addr_slot *addrs;
	size_t addrs_cap, addrs_n;
	bool unknown_no_file; /* "??:0" has no source file (perf 6.1), not "??" (7.3) */
	/* perf 6.1's count of each file's failed lookups (hist_src_count61): one per file
	 * that had a lookup, fails61_n of them */
	struct fails61 {
		const void *dso_id;
		unsigned fails; /* dso->a2l_fails: 1 until a lookup succeeds, then 0 for good */
		bool off;       /* dso->has_srcline cleared */
	} *fails61;
	size_t fails61_n, fails61_cap;
};

int hist_src_new(struct hist_src **out)
{
	struct hist_src *s = calloc(1, sizeof(*s));

	if (!s)
		return -PMT_ENOMEM;
	s->texts_cap = 256;
	s->addrs_cap = 1024;
	s->texts = calloc(s->texts_cap, sizeof(*s->texts));
	s->addrs = calloc(s->addrs_cap, sizeof(*s->addrs));
	if (!s->texts || !s->addrs) {
		hist_src_free(s);
		return -PMT_ENOMEM;
	}
	*out = s;
	return 0;
}

void hist_src_free(struct hist_src *s)
{
	if (!s)
		return;
	while (s->chunks) {
		struct arena_chunk *c = s->chunks;

		s->chunks = c->next;
		free(c);
	}
	free(s->texts);
	free(s->addrs);
	free(s->fails61);
	free(s);
}

static uint64_t text_hash(const char *t, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)t[i]) * 0x100000001b3ULL;
	return h;
}

/* a copy that lives as long as s: the entries point at it */
static const char *arena_copy(struct hist_src *s, const char *t, size_t n)
{
	struct arena_chunk *c = s->chunks;
	char *p;

	if (!c || c->cap - c->used < n + 1) {
		size_t cap = n + 1 > ARENA_CHUNK ? n + 1 : ARENA_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = s->chunks;
		c->used = 0;
		c->cap = cap;
		s->chunks = c;
	}
	p = c->data + c->used;
	memcpy(p, t, n);
	p[n] = 0;
	c->used += n + 1;
	return p;
}

static int grow_texts(struct hist_src *s)
{
	size_t cap = s->texts_cap * 2;
	const char **v = calloc(cap, sizeof(*v));

	if (!v)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < s->texts_cap; i++) {
		size_t j;

		if (!s->texts[i])
			continue;
		j = text_hash(s->texts[i], strlen(s->texts[i])) & (cap - 1);
		while (v[j])
			j = (j + 1) & (cap - 1);
		v[j] = s->texts[i];
	}
	free(s->texts);
	s->texts = v;
	s->texts_cap = cap;
	return 0;
}

/* the one copy of the n bytes at t; NULL: out of memory */
static const char *intern(struct hist_src *s, const char *t, size_t n)
{
	size_t j;

	if (s->texts_n * 4 >= s->texts_cap * 3 && grow_texts(s) < 0)
		return NULL;
	for (j = text_hash(t, n) & (s->texts_cap - 1); s->texts[j]; j = (j + 1) & (s->texts_cap - 1))
		if (!strncmp(s->texts[j], t, n) && !s->texts[j][n])
			return s->texts[j];
	s->texts[j] = arena_copy(s, t, n);
	if (s->texts[j])
		s->texts_n++;
	return s->texts[j];
}

/* perf's texts: "FILE:LINE" (the file's last part) where libdw or addr2line answers,
 * else "SYM+OFFSET" (decimal) in a symbol, else "DSO[ADDR]"; the source file is what comes
 * before the ':' of the first, empty for the others */
static int make_texts(struct hist_src *s, struct pmt_symbols *syms, const struct pmt_sym_loc *loc,
		      const char **line_text, const char **file_text, struct addr_slot *slot)
{
	char buf[4096];
	const char *file, *slash;
	unsigned line;
	uint64_t va;
	int rc, n, fn;
	bool unknown;

	if (!loc->dso) {
		/* no map: perf's SRCLINE_UNKNOWN and no_srcfile */
		*line_text = intern(s, "??:0", 4);
		*file_text = intern(s, "", 0);
		return *line_text && *file_text ? 0 : -PMT_ENOMEM;
	}
	rc = pmt_symbols_srcline_perf(syms, loc, &file, &line, &va);
	/* addr2line's "??" for a file it cannot name is kept as one: "??:0", source file
	 * "??" (checked with perf 7.3 on _start of the AArch64 fixtures); perf 6.1's
	 * hist_entry__get_srcfile takes "??:0" for no file (a stripped ls's functions) */
	if (rc == 2 && !file)
		file = "??";
	unknown = rc == 2 && !strcmp(file, "??") && s->unknown_no_file;
	if (loc->sym)
		fn = snprintf(buf, sizeof(buf), "%s+%" PRIu64, loc->sym, loc->symoff);
	else
		fn = snprintf(buf, sizeof(buf), "%s[%" PRIx64 "]", loc->dso_short ? loc->dso_short : "",
			      va != UINT64_MAX ? va : loc->map_ip);
	fn = fn < 0 ? 0 : fn >= (int)sizeof(buf) ? (int)sizeof(buf) - 1 : fn;
	slot->found = rc == 1 || rc == 2;
	if (!(slot->fail = intern(s, buf, (size_t)fn)))
		return -PMT_ENOMEM;
	if (slot->found) {
		slash = strrchr(file, '/');
		file = slash ? slash + 1 : file;
		n = snprintf(buf, sizeof(buf), "%s:%u", file, line);
		n = n < 0 ? 0 : n >= (int)sizeof(buf) ? (int)sizeof(buf) - 1 : n;
		*line_text = intern(s, buf, (size_t)n);
		*file_text = unknown ? intern(s, "", 0) : intern(s, file, strlen(file));
	} else {
		*line_text = slot->fail;
		*file_text = intern(s, "", 0);
	}
	return *line_text && *file_text ? 0 : -PMT_ENOMEM;
}

static size_t addr_slot(const void *dso_id, uint64_t map_ip, size_t cap)
{
	uint64_t h = ((uintptr_t)dso_id ^ (map_ip * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;

	return (size_t)(h >> 20) & (cap - 1);
}

static int grow_addrs(struct hist_src *s)
{
	size_t cap = s->addrs_cap * 2;
	struct addr_slot *v = calloc(cap, sizeof(*v));

	if (!v)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < s->addrs_cap; i++) {
		size_t j;

		if (!s->addrs[i].line)
			continue;
		for (j = addr_slot(s->addrs[i].dso_id, s->addrs[i].map_ip, cap); v[j].line;
		     j = (j + 1) & (cap - 1))
			;
		v[j] = s->addrs[i];
	}
	free(s->addrs);
	s->addrs = v;
	s->addrs_cap = cap;
	return 0;
}

int hist_src_texts(struct hist_src *s, struct pmt_symbols *syms, const struct pmt_sym_loc *loc,
		   const char **line, const char **file)
{
	size_t j;

	struct addr_slot made;

	/* without a file there is nothing to look up */
	if (!loc->dso || !loc->dso_id)
		return make_texts(s, syms, loc, line, file, &made);
	if (s->addrs_n * 2 >= s->addrs_cap)
		PMT_FORWARD_IF_ERROR(grow_addrs(s));
	for (j = addr_slot(loc->dso_id, loc->map_ip, s->addrs_cap); s->addrs[j].line;
	     j = (j + 1) & (s->addrs_cap - 1))
		if (s->addrs[j].dso_id == loc->dso_id && s->addrs[j].map_ip == loc->map_ip) {
			*line = s->addrs[j].line;
			*file = s->addrs[j].file;
			return 0;
		}
	PMT_FORWARD_IF_ERROR(make_texts(s, syms, loc, line, file, &made));
	made.dso_id = loc->dso_id;
	made.map_ip = loc->map_ip;
	made.line = *line;
	made.file = *file;
	s->addrs[j] = made;
	s->addrs_n++;
	return 0;
}

bool hist_src_looked_up(const struct hist_src *s, const void *dso_id, uint64_t map_ip,
			const char **line, const char **fail, bool *found)
{
	for (size_t j = addr_slot(dso_id, map_ip, s->addrs_cap); s->addrs[j].line;
	     j = (j + 1) & (s->addrs_cap - 1))
		if (s->addrs[j].dso_id == dso_id && s->addrs[j].map_ip == map_ip) {
			*line = s->addrs[j].line;
			*fail = s->addrs[j].fail;
			*found = s->addrs[j].found;
			return true;
		}
	return false;
}

const char *hist_src_intern(struct hist_src *s, const char *text)
{
	return intern(s, text, strlen(text));
}

void hist_src_set_compat(struct hist_src *s, int compat)
{
	s->unknown_no_file = compat && compat < 602;
}

bool hist_src_is_file_line(const char *text)
{
	const char *colon = strrchr(text, ':');

	return colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1);
}

/* perf 6.1's srcline.c __get_srcline counts a file's failed lookups only until one
 * succeeds ("if (dso->a2l_fails && ++dso->a2l_fails > A2L_FAIL_LIMIT)", the counter
 * starting at 1 and set to 0 by a success): 123 failures before the first success turn
 * the file's lookups off for good. perf 7.3 counts failures in a row instead
 * (hist_collapse.c). */
#define A2L_FAIL_LIMIT_61 123

static struct fails61 *fails61_of(struct hist_src *s, const void *dso_id)
{
	for (size_t i = 0; i < s->fails61_n; i++)
		if (s->fails61[i].dso_id == dso_id)
			return &s->fails61[i];
	if (s->fails61_n == s->fails61_cap) {
		size_t cap = s->fails61_cap ? s->fails61_cap * 2 : 16;
		struct fails61 *v = realloc(s->fails61, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->fails61 = v;
		s->fails61_cap = cap;
	}
	s->fails61[s->fails61_n] = (struct fails61){ dso_id, 1, false };
	return &s->fails61[s->fails61_n++];
}

int hist_src_count61(struct hist_src *s, const void *dso_id, uint64_t map_ip, const char *text,
		     unsigned lookups)
{
	struct fails61 *f = fails61_of(s, dso_id);
	const char *line, *fail;
	bool found;

	if (!f)
		return -PMT_ENOMEM;
	if (f->off || !f->fails)
		return 0; /* nothing counts any more */
	if (hist_src_looked_up(s, dso_id, map_ip, &line, &fail, &found) && found && text == line)
		f->fails = 0;
	else if ((f->fails += lookups) > A2L_FAIL_LIMIT_61)
		f->off = true;
	return 0;
}

int hist_src_cut61(struct hist_src *s, const void *dso_id, uint64_t map_ip, const char **line,
		   const char **file)
{
	const char *at_file, *fail;
	bool found;

	for (size_t i = 0; i < s->fails61_n; i++) {
		if (s->fails61[i].dso_id != dso_id)
			continue;
		/* a line its lookup found is "SYM+OFFSET" or "DSO[ADDR]" once the file is off */
		if (s->fails61[i].off &&
		    hist_src_looked_up(s, dso_id, map_ip, &at_file, &fail, &found) && found &&
		    *line == at_file) {
			*line = fail;
			*file = intern(s, "", 0);
		}
		break;
	}
	return *file ? 0 : -PMT_ENOMEM;
}
