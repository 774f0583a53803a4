#include <math.h>
#include <stdlib.h>

#include "pmutrace/common.h"

int pmt_out_init(struct pmt_out *o, FILE *fp, size_t cap)
{
	memset(o, 0, sizeof(*o));
	if (cap < 4096)
		cap = 4096;
	o->buf = malloc(cap);
	if (!o->buf)
		return -PMT_ENOMEM;
	o->fp = fp;
	o->cap = cap;
	return 0;
}

int pmt_out_flush(struct pmt_out *o)
{
	if (o->len && !o->err && fwrite(o->buf, 1, o->len, o->fp) != o->len)
		o->err = -PMT_EIO;
	o->len = 0;
	if (!o->err && fflush(o->fp) != 0)
		o->err = -PMT_EIO;
	return o->err;
}

int pmt_out_fini(struct pmt_out *o)
{
	int rc = o->buf ? pmt_out_flush(o) : o->err;

	free(o->buf);
	o->buf = NULL;
	o->cap = 0;
	return rc;
}

void pmt_out_grow(struct pmt_out *o, size_t need)
{
	if (o->len && !o->err && fwrite(o->buf, 1, o->len, o->fp) != o->len)
		o->err = -PMT_EIO;
	o->len = 0;
	if (need > o->cap) {
		char *p = realloc(o->buf, need);

		if (!p) {
			/* Callers write right after reserving, so there is no safe way on. */
			fputs("pmutrace: out of memory in output buffer\n", stderr);
			abort();
		}
		o->buf = p;
		o->cap = need;
	}
}

void pmt_out_mem(struct pmt_out *o, const void *p, size_t n)
{
	pmt_out_reserve(o, n);
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

void pmt_out_str(struct pmt_out *o, const char *s)
{
	pmt_out_mem(o, s, strlen(s));
}

void pmt_out_printf(struct pmt_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	pmt_out_reserve(o, 256);
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= o->cap - o->len) {
		pmt_out_grow(o, (size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
	}
	o->len += (size_t)n;
}

void pmt_out_double(struct pmt_out *o, double v, int prec)
{
	if (isnan(v))
		pmt_out_str(o, "nan");
	else if (isinf(v))
		pmt_out_str(o, v < 0 ? "-inf" : "inf");
	else
		pmt_out_printf(o, "%.*f", prec, v);
}

void pmt_out_json_str(struct pmt_out *o, const char *s)
{
	pmt_out_char(o, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			pmt_out_char(o, '\\');
			pmt_out_char(o, (char)c);
		} else if (c < 0x20) {
			pmt_out_printf(o, "\\u%04x", c);
		} else {
			pmt_out_char(o, (char)c);
		}
	}
	pmt_out_char(o, '"');
}

void pmt_out_csv_str(struct pmt_out *o, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		pmt_out_str(o, s);
		return;
	}
	pmt_out_char(o, '"');
	for (; *s; s++) {
		if (*s == '"')
			pmt_out_char(o, '"');
		pmt_out_char(o, *s);
	}
	pmt_out_char(o, '"');
}
