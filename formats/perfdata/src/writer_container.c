/* A pipe-mode perf.data byte stream into a pmutrace container: a stdio stream (so the
 * perf.data writer writes to it as to a file) that reassembles whole records, header and
 * AUXTRACE payload together, and hands each to the container writer, which never splits a
 * record across frames. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "perfdata_priv.h"
#include "pmutrace/container.h"

struct ctr_stream {
	struct pmt_ctr_writer *w;
	uint8_t *buf;
	size_t len, cap;
	bool header_done, data_started;
	bool swap;
	int err;
};

static uint64_t rd(const struct ctr_stream *c, const uint8_t *p, int n)
{
	uint64_t v = 0;

	memcpy(&v, p, (size_t)n);
	if (c->swap)
		v = n == 2 ? pd_bswap16((uint16_t)v) : n == 4 ? __builtin_bswap32((uint32_t)v)
							   : __builtin_bswap64(v);
	return v;
}

/* Hand over every complete record at the front of the buffer. */
static void drain(struct ctr_stream *c)
{
	size_t pos = 0;

	while (!c->err) {
		const uint8_t *p = c->buf + pos;
		size_t left = c->len - pos, need;

		if (!c->header_done) {
			if (left < PMT_PERF_PIPE_HEADER_SIZE)
				break;
			c->swap = rd(c, p, 8) != PMT_PERF_MAGIC2;
			need = PMT_PERF_PIPE_HEADER_SIZE;
			c->header_done = true;
		} else {
			if (left < 8)
				break;
			need = rd(c, p + 6, 2);
			if (need < 8) {
				c->err = -PMT_ECORRUPT;
				break;
			}
			if (rd(c, p, 4) == PMT_REC_AUXTRACE) {
				if (left < 16)
					break;
				need += rd(c, p + 8, 8);
				if (!c->data_started) {
					/* the metadata before the first AUX data: a frame of its own */
					c->data_started = true;
					c->err = pmt_ctr_flush(c->w);
					if (c->err)
						break;
				}
			}
		}
		if (left < need)
			break;
		c->err = pmt_ctr_write(c->w, p, need);
		pos += need;
	}
	memmove(c->buf, c->buf + pos, c->len - pos);
	c->len -= pos;
}

static ssize_t ctr_stream_write(void *cookie, const char *data, size_t n)
{
	struct ctr_stream *c = cookie;

	if (c->err)
		return -1;
	if (c->len + n > c->cap) {
		size_t cap = c->cap ? c->cap : 1 << 16;
		uint8_t *nb;

		while (cap < c->len + n)
			cap *= 2;
		nb = realloc(c->buf, cap);
		if (!nb) {
			c->err = -PMT_ENOMEM;
			return -1;
		}
		c->buf = nb;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, data, n);
	c->len += n;
	drain(c);
	return c->err ? -1 : (ssize_t)n;
}

static int ctr_stream_close(void *cookie)
{
	struct ctr_stream *c = cookie;
	int bad = c->err || c->len; /* an incomplete record at the end is an error */

	free(c->buf);
	free(c);
	return bad ? -1 : 0;
}

FILE *pmt_perf_container_stream(struct pmt_ctr_writer *w)
{
	static const cookie_io_functions_t io = { .write = ctr_stream_write,
						  .close = ctr_stream_close };
	struct ctr_stream *c = calloc(1, sizeof(*c));
	FILE *fp;

	if (!c)
		return NULL;
	c->w = w;
	fp = fopencookie(c, "w", io);
	if (!fp)
		free(c);
	return fp;
}
