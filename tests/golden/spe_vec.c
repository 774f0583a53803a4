/* Golden SPE vectors: the fixtures/spe .vec files are annotated text, one dump line per line:
 *
 *     # comment (to end of line)
 *     @offset 0x1000          stream offset of the first byte (default 0); before any bytes
 *     @flags legacy61 n1      description flavour (dump --legacy61 / --n1)
 *     b0 68 e0 20 84 c0 ff ff a0 | PC 0xffffc08420e068 el1 ns=1
 *     9f 05 00 | "LAT 5 "     quotes keep leading/trailing spaces
 *     ff | Bad packet!        a byte the decoder rejects (or a truncated packet at the end)
 *
 * All lines form one stream, read the way `pmutrace dump` reads it (PAD runs merged up to 16
 * bytes, one byte skipped per bad packet), so every line is exactly one dump line.
 *
 *   spe_vec compile IN.vec OUT.bin OUT.exp   bytes, and the dump text they must produce;
 *                                            prints the dump options for the flags
 *   spe_vec check IN.vec                     decode + describe + re-encode every line, and
 *                                            truncate every packet at every byte position
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/spe.h"

#define MAX_LINES 4096

struct vline {
	int lineno;
	uint8_t bytes[PMT_SPE_PKT_MAX_SZ];
	unsigned n;
	char text[PMT_SPE_DESC_MAX];
};

struct vec {
	const char *path;
	uint64_t offset;
	unsigned flags;
	struct vline *lines;
	unsigned nlines;
	uint8_t *stream;
	size_t len;
};

static int fail(const struct vec *v, int lineno, const char *what)
{
	fprintf(stderr, "%s:%d: %s\n", v->path, lineno, what);
	return 1;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int parse_lines(struct vec *v, FILE *fp);

static int parse(struct vec *v)
{
	FILE *fp = fopen(v->path, "r");
	int rc;

	if (!fp) {
		perror(v->path);
		return 1;
	}
	rc = parse_lines(v, fp);
	fclose(fp);
	return rc;
}

static int parse_lines(struct vec *v, FILE *fp)
{
	char buf[1024];
	int lineno = 0;

	v->lines = calloc(MAX_LINES, sizeof(*v->lines));
	v->stream = malloc(MAX_LINES * PMT_SPE_PKT_MAX_SZ);
	if (!v->lines || !v->stream)
		return 1;
	while (fgets(buf, sizeof(buf), fp)) {
		char *s, *bar, *hash, *tok, *save;
		struct vline *l;

		lineno++;
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		s = trim(buf);
		if (!*s)
			continue;
		if (*s == '@') {
			if (!strncmp(s, "@offset", 7)) {
				if (v->nlines || pmt_parse_u64(trim(s + 7), &v->offset) < 0)
					return fail(v, lineno, "@offset: a number, before any bytes");
			} else if (!strncmp(s, "@flags", 6)) {
				for (tok = strtok_r(s + 6, " \t", &save); tok;
				     tok = strtok_r(NULL, " \t", &save)) {
					if (!strcmp(tok, "legacy61"))
						v->flags |= PMT_SPE_DESC_LEGACY61;
					else if (!strcmp(tok, "n1"))
						v->flags |= PMT_SPE_DESC_N1;
					else
						return fail(v, lineno, "@flags: legacy61 or n1");
				}
			} else {
				return fail(v, lineno, "unknown directive");
			}
			continue;
		}
		bar = strchr(s, '|');
		if (!bar)
			return fail(v, lineno, "want: hex bytes | expected text");
		*bar = '\0';
		if (v->nlines == MAX_LINES)
			return fail(v, lineno, "too many lines");
		l = &v->lines[v->nlines++];
		l->lineno = lineno;
		for (tok = strtok_r(s, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			char *end;
			unsigned long b = strtoul(tok, &end, 16);

			if (*end || end - tok != 2 || l->n == PMT_SPE_PKT_MAX_SZ)
				return fail(v, lineno, "bytes: up to 16 two-digit hex numbers");
			l->bytes[l->n++] = (uint8_t)b;
		}
		if (!l->n)
			return fail(v, lineno, "no bytes");
		s = trim(bar + 1);
		if (*s == '"') {
			size_t k = strlen(s);

			if (k < 2 || s[k - 1] != '"')
				return fail(v, lineno, "unterminated quote");
			s[k - 1] = '\0';
			s++;
		}
		snprintf(l->text, sizeof(l->text), "%s", s);
		memcpy(v->stream + v->len, l->bytes, l->n);
		v->len += l->n;
	}
	if (!v->nlines)
		return fail(v, lineno, "no vectors");
	return 0;
}

static void hexline(FILE *fp, uint64_t pos, const uint8_t *b, unsigned n, const char *text)
{
	fprintf(fp, ".  %08x: ", (unsigned)pos);
	for (unsigned i = 0; i < PMT_SPE_PKT_MAX_SZ; i++)
		i < n ? fprintf(fp, " %02x", b[i]) : fprintf(fp, "   ");
	fprintf(fp, " %s\n", text);
}

static int compile(struct vec *v, const char *bin, const char *exp)
{
	FILE *fb = fopen(bin, "wb"), *fe = fopen(exp, "w");
	size_t pos = 0;

	if (!fb || !fe) {
		perror("output");
		return 1;
	}
	if (fwrite(v->stream, 1, v->len, fb) != v->len)
		return 1;
	fprintf(fe, ". ... ARM SPE data: size %#zx bytes\n", v->len);
	for (unsigned i = 0; i < v->nlines; i++) {
		hexline(fe, pos, v->lines[i].bytes, v->lines[i].n, v->lines[i].text);
		pos += v->lines[i].n;
	}
	if (fclose(fb) || fclose(fe))
		return 1;
	/* dump options matching the vector's flavour */
	printf("%s%s --base %#llx\n", v->flags & PMT_SPE_DESC_LEGACY61 ? " --legacy61" : "",
	       v->flags & PMT_SPE_DESC_N1 ? " --n1" : "", (unsigned long long)v->offset);
	return 0;
}

/* Byte-exact inverse, except what the encoder cannot know: the filler of an alignment pad
 * (zeros by definition). */
static int check_encode(const struct vec *v, const struct vline *l, const struct pmt_spe_packet *p)
{
	uint8_t out[PMT_SPE_PKT_MAX_SZ];
	int n = pmt_spe_packet_encode(p, out, sizeof(out));

	if (n != (int)l->n)
		return fail(v, l->lineno, "re-encoded length differs");
	if (memcmp(out, l->bytes, l->n)) {
		if (p->type != PMT_SPE_ALIGN_PAD || out[0] != l->bytes[0] ||
		    (l->n > 1 && out[1] != l->bytes[1]))
			return fail(v, l->lineno, "re-encoded bytes differ");
	}
	return 0;
}

/* A packet cut at every byte position needs more bytes; a lone extended-header byte is a bad
 * packet (perf, arm-spe.md §1). PAD runs are made of whole 1-byte packets. */
static int check_truncation(const struct vec *v, const struct vline *l, uint64_t off,
			    const struct pmt_spe_packet *p)
{
	char msg[96];

	struct pmt_spe_packet one;
	int base;

	if (p->type == PMT_SPE_PAD)
		return 0;
	/* an alignment pad line may carry merged PAD bytes: cut inside the pad itself only */
	base = pmt_spe_packet_decode(l->bytes, l->n, off, &one);
	if (base <= 0)
		return fail(v, l->lineno, "line does not decode on its own");
	for (unsigned k = 0; k < (unsigned)base; k++) {
		struct pmt_spe_packet q;
		int want = (k == 1 && (l->bytes[0] & 0xFC) == 0x20) ? -PMT_EBAD_PACKET
								   : -PMT_ENEED_MORE;
		int r = pmt_spe_packet_decode(l->bytes, k, off, &q);

		if (r != want) {
			snprintf(msg, sizeof(msg), "cut after %u bytes: got %d, want %s", k, r,
				 want == -PMT_EBAD_PACKET ? "BAD_PACKET" : "NEED_MORE");
			return fail(v, l->lineno, msg);
		}
	}
	return 0;
}

static int check(struct vec *v)
{
	struct pmt_spe_pkt_iter it;
	struct pmt_spe_packet pkt;
	char desc[PMT_SPE_DESC_MAX], msg[PMT_SPE_DESC_MAX * 2 + 64];
	int errors = 0;

	pmt_spe_pkt_iter_init(&it, v->stream, v->len, v->offset);
	it.coalesce_pad = 1;
	for (unsigned i = 0; i < v->nlines; i++) {
		const struct vline *l = &v->lines[i];
		uint64_t off = pmt_spe_pkt_iter_offset(&it);
		size_t pos = it.pos;
		int r = pmt_spe_pkt_next(&it, &pkt);

		if (r < 0) {
			if (r == -PMT_EEOS) {
				errors += fail(v, l->lineno, "stream ended early");
				break;
			}
			pmt_spe_pkt_iter_skip(&it, 1);
			if (l->n != 1 || strcmp(l->text, "Bad packet!")) {
				snprintf(msg, sizeof(msg), "decoder says %s here (one bad byte)",
					 pmt_errstr(r));
				errors += fail(v, l->lineno, msg);
			}
			continue;
		}
		if ((unsigned)r != l->n || memcmp(v->stream + pos, l->bytes, l->n)) {
			snprintf(msg, sizeof(msg), "decoded a %d-byte packet, line has %u bytes", r, l->n);
			errors += fail(v, l->lineno, msg);
			/* resync on the line boundary so one mistake is reported once */
			it.pos = pos + l->n;
			continue;
		}
		if (pmt_spe_packet_desc_flags(&pkt, v->flags, desc, sizeof(desc)) < 0)
			snprintf(desc, sizeof(desc), "<desc failed>");
		if (strcmp(desc, l->text)) {
			snprintf(msg, sizeof(msg), "text \"%s\", want \"%s\"", desc, l->text);
			errors += fail(v, l->lineno, msg);
		}
		/* decode alone (no coalescing) must agree for single packets */
		if (pkt.type != PMT_SPE_PAD) {
			struct pmt_spe_packet q;

			int d;

			memset(&q, 0xff, sizeof(q));
			d = pmt_spe_packet_decode(v->stream + pos, v->len - pos, off, &q);
			/* the iterator may merge PAD bytes into an alignment pad */
			if ((pkt.type == PMT_SPE_ALIGN_PAD ? d <= 0 || d > r : d != r) ||
			    q.type != pkt.type || q.payload != pkt.payload || q.index != pkt.index)
				errors += fail(v, l->lineno, "pmt_spe_packet_decode disagrees");
		}
		errors += check_encode(v, l, &pkt);
		errors += check_truncation(v, l, off, &pkt);
	}
	if (!errors && it.pos != v->len)
		errors += fail(v, 0, "bytes left after the last line");
	if (errors)
		fprintf(stderr, "%s: %d error(s)\n", v->path, errors);
	else
		printf("%s: %u lines OK (%zu bytes)\n", v->path, v->nlines, v->len);
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct vec v = { 0 };
	int rc = 2;

	if (argc == 5 && !strcmp(argv[1], "compile")) {
		v.path = argv[2];
		rc = parse(&v) || compile(&v, argv[3], argv[4]);
	} else if (argc == 3 && !strcmp(argv[1], "check")) {
		v.path = argv[2];
		rc = parse(&v) || check(&v);
	} else {
		fprintf(stderr, "usage: spe_vec compile IN.vec OUT.bin OUT.exp | spe_vec check IN.vec\n");
	}
	free(v.lines);
	free(v.stream);
	return rc;
}
