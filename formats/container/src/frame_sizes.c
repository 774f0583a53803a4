/* A walk over a container's frames needs each data frame's size. zstd finds it by reading
 * every block header of the frame (ZSTD_findFrameCompressedSize): on a mapped 450 MB file
 * that faulted every page in at open (metrics' max RSS 470 MB), just to pass over frames
 * on the way to a bundled file or a frame info. The index the writer puts before the seek
 * table has the sizes: it is found from the end, and each size is checked against the
 * next frame's magic before it is trusted. */
#include <string.h>
#include <zstd.h>

#include "frame_sizes.h"
#include "pmutrace/bytes.h"
#include "reader.h"

void ctr_sizes_init(struct ctr_sizes *z, const uint8_t *b, size_t len)
{
	size_t seek_size, seek_start, start;
	uint32_t n;

	memset(z, 0, sizeof(*z));
	/* zstd's seek table trailer: u32 frames, u8 descriptor, u32 magic */
	if (len < 17 || pmt_le32(b + len - 4) != SEEKABLE_MAGIC)
		return;
	n = pmt_le32(b + len - 9);
	seek_size = 8 + (size_t)n * ((b[len - 5] & 0x80) ? 12 : 8) + 9;
	if (n > len / 8 || seek_size > len)
		return;
	seek_start = len - seek_size;
	if (pmt_le32(b + seek_start) != SKIP_SEEK || pmt_le32(b + seek_start + 4) != seek_size - 8)
		return;
	/* the index ends where the seek table begins; it has an entry for every data frame,
	 * column frames too, which the seek table leaves out: n or more */
	for (uint64_t count = n; 8 + 12 + 16 * count <= seek_start; count++) {
		start = seek_start - (size_t)(8 + 12 + 16 * count);
		if (pmt_le32(b + start) == SKIP_INDEX &&
		    pmt_le32(b + start + 4) == 12 + 16 * count &&
		    !memcmp(b + start + 8, "PMTINDEX", 8) && pmt_le32(b + start + 16) == count) {
			z->ent = b + start + 20;
			z->n = (uint32_t)count;
			return;
		}
	}
}

static int frame_starts_at(const uint8_t *b, size_t len, size_t pos)
{
	uint32_t magic;

	if (pos == len)
		return 1;
	if (len - pos < 4)
		return 0;
	magic = pmt_le32(b + pos);
	return magic == ZSTD_MAGIC || (magic & 0xFFFFFFF0u) == 0x184D2A50u;
}

size_t ctr_frame_size(struct ctr_sizes *z, const uint8_t *b, size_t len, size_t pos)
{
	while (z->at < z->n && pmt_le64(z->ent + 16 * (size_t)z->at) < pos)
		z->at++;
	if (z->at < z->n && pmt_le64(z->ent + 16 * (size_t)z->at) == pos) {
		size_t size = pmt_le32(z->ent + 16 * (size_t)z->at + 8);

		if (size >= 4 && size <= len - pos && frame_starts_at(b, len, pos + size))
			return size;
	}
	return ZSTD_findFrameCompressedSize(b + pos, len - pos);
}
