#include "pmutrace/common.h"

int pmt_cursor_bytes(struct pmt_cursor *c, void *dst, size_t n)
{
	if (pmt_cursor_left(c) < n)
		return -PMT_ENEED_MORE;
	memcpy(dst, c->buf + c->pos, n);
	c->pos += n;
	return 0;
}

int pmt_cursor_skip(struct pmt_cursor *c, size_t n)
{
	if (pmt_cursor_left(c) < n)
		return -PMT_ENEED_MORE;
	c->pos += n;
	return 0;
}

int pmt_cursor_u8(struct pmt_cursor *c, uint8_t *v)
{
	return pmt_cursor_bytes(c, v, 1);
}

int pmt_cursor_u16(struct pmt_cursor *c, uint16_t *v)
{
	if (pmt_cursor_left(c) < 2)
		return -PMT_ENEED_MORE;
	*v = pmt_le16(c->buf + c->pos);
	if (c->swap)
		*v = __builtin_bswap16(*v);
	c->pos += 2;
	return 0;
}

int pmt_cursor_u32(struct pmt_cursor *c, uint32_t *v)
{
	if (pmt_cursor_left(c) < 4)
		return -PMT_ENEED_MORE;
	*v = pmt_le32(c->buf + c->pos);
	if (c->swap)
		*v = __builtin_bswap32(*v);
	c->pos += 4;
	return 0;
}

int pmt_cursor_u64(struct pmt_cursor *c, uint64_t *v)
{
	if (pmt_cursor_left(c) < 8)
		return -PMT_ENEED_MORE;
	*v = pmt_le64(c->buf + c->pos);
	if (c->swap)
		*v = __builtin_bswap64(*v);
	c->pos += 8;
	return 0;
}
