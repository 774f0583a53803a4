/* -F srccode: the source line of a sample's ip under its line, as perf's
 * map__fprintf_srccode() prints it ("|LINE     TEXT"), once per change of file or line
 * on each thread (perf's per-thread srccode_state). Source files are read once. */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "sink_priv.h"

struct src_file {
	char *path;
	struct pmt_file_map map;
	int ok;             /* 0: the file could not be read (perf prints nothing) */
	uint32_t nlines;
	uint32_t *line_off; /* [nlines]: where each line starts */
};

#define SRC_THREADS 4096 /* direct-mapped by tid: a trace has far fewer threads */

struct sink_srccode {
	struct src_file *files;
	size_t nfiles, cap;
	const char *last_name; /* the srcline's file string of the last lookup, and its file */
	struct src_file *last;
	struct {
		int32_t tid;
		uint8_t used;
		unsigned line;
		size_t file; /* index in files (which realloc moves) */
	} state[SRC_THREADS];
};

/* util/srccode.c's find_srcfile(): the file mapped and split into lines once */
static struct src_file *src_file(struct sink_srccode *c, const char *path)
{
	struct src_file *f;

	if (c->last && (path == c->last_name || !strcmp(path, c->last->path)))
		return c->last_name = path, c->last;
	for (size_t i = 0; i < c->nfiles; i++)
		if (!strcmp(c->files[i].path, path))
			return c->last_name = path, c->last = &c->files[i];
	if (c->nfiles == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 16;
		struct src_file *nf = realloc(c->files, ncap * sizeof(*nf));

		if (!nf)
			return NULL;
		/* the cached pointer moves with the array */
		c->last = NULL;
		c->files = nf;
		c->cap = ncap;
	}
	f = &c->files[c->nfiles];
	memset(f, 0, sizeof(*f));
	if (!(f->path = strdup(path)))
		return NULL;
	c->nfiles++;
	if (pmt_file_map(path, &f->map, NULL) == 0 && f->map.size && f->map.size < UINT32_MAX) {
		const uint8_t *d = f->map.data, *e = d + f->map.size, *q;
		uint32_t n = 1;

		/* a line starts at 0 and after every '\n' that is not the last byte */
		for (const uint8_t *p = d; (q = memchr(p, '\n', (size_t)(e - p))) && q + 1 < e; p = q + 1)
			n++;
		f->line_off = malloc(n * sizeof(*f->line_off));
		if (f->line_off) {
			f->line_off[f->nlines++] = 0;
			for (const uint8_t *p = d; (q = memchr(p, '\n', (size_t)(e - p))) && q + 1 < e;
			     p = q + 1)
				f->line_off[f->nlines++] = (uint32_t)(q + 1 - d);
			f->ok = 1;
		}
	}
	c->last_name = path;
	return c->last = f;
}

void sink_srccode(struct pmt_spe_sink *k, const struct pmt_spe_sample *s,
		  const struct pmt_sym_loc *loc)
{
	struct sink_srccode *c = k->srccode;
	const char *name, *text, *nl;
	unsigned line;
	uint64_t va;
	struct src_file *f;
	size_t slot = (uint32_t)s->tid % SRC_THREADS, len;

	if (!loc->dso || !pmt_symbols_srcline(k->symbols, loc, &name, &line, &va))
		return;
	if (!c && !(c = k->srccode = calloc(1, sizeof(*c))))
		return;
	/* the same file and line as this thread's last printed one: nothing */
	if (c->state[slot].used && c->state[slot].tid == s->tid && c->state[slot].line == line &&
	    !strcmp(c->files[c->state[slot].file].path, name))
		return;
	f = src_file(c, name);
	/* find_sourceline(): lines count from 1; none past the end */
	if (!f || !f->ok || line == 0 || line > f->nlines)
		return;
	text = (const char *)f->map.data + f->line_off[line - 1];
	nl = memchr(text, '\n', f->map.size - f->line_off[line - 1]);
	len = nl ? (size_t)(nl - text) : f->map.size - f->line_off[line - 1];
	pmt_out_printf(k->out, "|%-8u %.*s\n", line, (int)len, text);
	c->state[slot].used = 1;
	c->state[slot].tid = s->tid;
	c->state[slot].line = line;
	c->state[slot].file = (size_t)(f - c->files);
}

void sink_srccode_free(struct sink_srccode *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nfiles; i++) {
		free(c->files[i].path);
		free(c->files[i].line_off);
		if (c->files[i].map.data)
			pmt_file_unmap(&c->files[i].map);
	}
	free(c->files);
	free(c);
}
