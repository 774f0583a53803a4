/* pmutrace common: little-endian loads and stores, the bounds-checked cursor for headers and
 * metadata, a growable byte buffer. */
#ifndef PMUTRACE_BYTES_H
#define PMUTRACE_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pmutrace/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- byte readers --------------------------------------------------------------------
 * Unaligned little/big-endian loads. Bounds are the caller's job on hot paths; the
 * checked cursor below is for headers and metadata. */
static inline uint16_t pmt_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t pmt_le32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}
static inline uint64_t pmt_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}
static inline void pmt_put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void pmt_put_le32(uint8_t *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	memcpy(p, &v, 4);
}
static inline void pmt_put_le64(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

/* A bounds-checked cursor over a byte range; `swap` reads the other byte order. */
struct pmt_cursor {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	bool swap;
};
static inline void pmt_cursor_init(struct pmt_cursor *c, const void *buf, size_t len, bool swap)
{
	c->buf = (const uint8_t *)buf;
	c->len = len;
	c->pos = 0;
	c->swap = swap;
}
static inline size_t pmt_cursor_left(const struct pmt_cursor *c) { return c->len - c->pos; }
/* Each returns 0 or -PMT_ENEED_MORE (cursor unchanged). */
PMT_API int pmt_cursor_u8(struct pmt_cursor *c, uint8_t *v);
PMT_API int pmt_cursor_u16(struct pmt_cursor *c, uint16_t *v);
PMT_API int pmt_cursor_u32(struct pmt_cursor *c, uint32_t *v);
PMT_API int pmt_cursor_u64(struct pmt_cursor *c, uint64_t *v);
PMT_API int pmt_cursor_bytes(struct pmt_cursor *c, void *dst, size_t n);
PMT_API int pmt_cursor_skip(struct pmt_cursor *c, size_t n);

/* ---- growable byte buffer --------------------------------------------------------------*/
struct pmt_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};
PMT_API int pmt_buf_reserve(struct pmt_buf *b, size_t extra); /* 0 or -PMT_ENOMEM */
PMT_API int pmt_buf_append(struct pmt_buf *b, const void *p, size_t n);
PMT_API void pmt_buf_fini(struct pmt_buf *b);


#ifdef __cplusplus
}
#endif
#endif
