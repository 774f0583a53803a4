#include <stdlib.h>

#include "pmutrace/common.h"

int pmt_buf_reserve(struct pmt_buf *b, size_t extra)
{
	size_t want, cap;
	uint8_t *p;

	if (extra > SIZE_MAX - b->len)
		return -PMT_ENOMEM;
	want = b->len + extra;
	if (want <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < want)
		cap = cap > SIZE_MAX / 2 ? want : cap * 2;
	p = realloc(b->data, cap);
	if (!p)
		return -PMT_ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int pmt_buf_append(struct pmt_buf *b, const void *p, size_t n)
{
	PMT_FORWARD_IF_ERROR(pmt_buf_reserve(b, n));
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

void pmt_buf_fini(struct pmt_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
