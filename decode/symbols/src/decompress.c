/* Kernel modules as distributions ship them (Debian: NAME.ko.xz; others NAME.ko.zst): perf
 * (and gzip) decompresses such a file to a temporary one before it reads it (its
 * dso__decompress_kmodule_path); pmutrace into a memfd, read by path as the bundled files
 * are, so libelf, libdw and the code reader need no change. Each file (path, size and
 * modification time) is decompressed once per process and its memfd kept open, so the
 * path stays valid for every symbol session; past CACHE_MAX files the oldest is closed
 * (a session still using it then loses its source lines, not its symbols). */
#define _GNU_SOURCE /* memfd_create */
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "pmutrace/files.h"
#include "dso_find.h"

#define CACHE_MAX 64
#define OUT_MAX (1ULL << 30) /* no kernel module is near this; a bomb stops here */

static struct {
	char *path;
	off_t size;
	struct timespec mtime;
	int fd;
	char out[32];
} cache[CACHE_MAX];
static unsigned victim; /* the next entry to reuse when the cache is full */

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 1 << 20;
	uint8_t *b;

	while (n < need)
		n *= 2;
	if (n == *cap)
		return 0;
	if (n > OUT_MAX || !(b = realloc(*buf, n)))
		return -1;
	*buf = b;
	*cap = n;
	return 0;
}

static int unxz(const uint8_t *in, size_t len, uint8_t **out, size_t *olen)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = 0;
	lzma_ret r;

	*out = NULL;
	if (lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
		return -1;
	s.next_in = in;
	s.avail_in = len;
	do {
		if (grow(out, &cap, s.total_out + 1) < 0)
			break;
		s.next_out = *out + s.total_out;
		s.avail_out = cap - s.total_out;
		r = lzma_code(&s, LZMA_FINISH);
	} while (r == LZMA_OK);
	*olen = s.total_out;
	lzma_end(&s);
	return r == LZMA_STREAM_END ? 0 : -1;
}

static int gunzip(const uint8_t *in, size_t len, uint8_t **out, size_t *olen)
{
	z_stream z = { 0 };
	size_t cap = 0;
	int r = Z_OK;

	*out = NULL;
	*olen = 0;
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) /* 16: the gzip wrapper */
		return -1;
	z.next_in = (Bytef *)in;
	z.avail_in = len > UINT32_MAX ? UINT32_MAX : (uInt)len;
	while (r == Z_OK) {
		if (grow(out, &cap, *olen + 1) < 0)
			break;
		z.next_out = *out + *olen;
		z.avail_out = (uInt)(cap - *olen);
		r = inflate(&z, Z_NO_FLUSH);
		*olen = z.total_out;
	}
	inflateEnd(&z);
	return r == Z_STREAM_END ? 0 : -1;
}

static int unzstd(const uint8_t *in, size_t len, uint8_t **out, size_t *olen)
{
	ZSTD_DStream *d = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, len, 0 };
	size_t cap = 0, rc = 1;

	*out = NULL;
	*olen = 0;
	if (!d)
		return -1;
	while (ib.pos < ib.size || rc) {
		ZSTD_outBuffer ob;

		if (grow(out, &cap, *olen + 1) < 0)
			break;
		ob = (ZSTD_outBuffer){ *out + *olen, cap - *olen, 0 };
		rc = ZSTD_decompressStream(d, &ob, &ib);
		*olen += ob.pos;
		if (ZSTD_isError(rc) || (!ob.pos && ib.pos == ib.size && rc))
			break; /* damaged, or cut short: no more input for the frame */
	}
	ZSTD_freeDStream(d);
	return ib.pos == ib.size && rc == 0 ? 0 : -1;
}

int dso_decompressed(const char *path, char *out, size_t cap)
{
	size_t n = strlen(path);
	struct stat st;
	static const uint8_t xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
	static const uint8_t zst[4] = { 0x28, 0xb5, 0x2f, 0xfd };
	static const uint8_t gz[2] = { 0x1f, 0x8b };
	struct pmt_file_map map = { 0 };
	struct pmt_diag diag = PMT_DIAG_INIT;
	uint8_t *data = NULL;
	size_t len = 0;
	int fd, rc, slot = -1;

	/* perf's compressed module names (kmod_path__parse) */
	if (!(n > 3 && !strcmp(path + n - 3, ".xz")) && !(n > 4 && !strcmp(path + n - 4, ".zst")) &&
	    !(n > 3 && !strcmp(path + n - 3, ".gz")))
		return 0;
	if (stat(path, &st) < 0)
		return 0;
	for (int i = 0; i < CACHE_MAX; i++) {
		if (cache[i].path && !strcmp(cache[i].path, path) && cache[i].size == st.st_size &&
		    cache[i].mtime.tv_sec == st.st_mtim.tv_sec &&
		    cache[i].mtime.tv_nsec == st.st_mtim.tv_nsec) {
			snprintf(out, cap, "%s", cache[i].out);
			return 1;
		}
		if (!cache[i].path && slot < 0)
			slot = i;
	}
	if (slot < 0) {
		slot = (int)(victim++ % CACHE_MAX);
		close(cache[slot].fd);
		free(cache[slot].path);
		cache[slot].path = NULL;
	}
	if (pmt_file_map(path, &map, &diag) < 0)
		return 0;
	if (map.size >= sizeof(xz) && !memcmp(map.data, xz, sizeof(xz)))
		rc = unxz(map.data, map.size, &data, &len);
	else if (map.size >= sizeof(zst) && !memcmp(map.data, zst, sizeof(zst)))
		rc = unzstd(map.data, map.size, &data, &len);
	else if (map.size >= sizeof(gz) && !memcmp(map.data, gz, sizeof(gz)))
		rc = gunzip(map.data, map.size, &data, &len);
	else
		rc = 1; /* not compressed: read as it is */
	pmt_file_unmap(&map);
	if (rc) {
		free(data);
		if (rc < 0)
			pmt_warn("%s: cannot decompress it (damaged xz, zstd or gzip data); not used", path);
		return rc < 0 ? -PMT_EFORMAT : 0;
	}
	fd = memfd_create("pmutrace-module", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len) {
		if (fd >= 0)
			close(fd);
		free(data);
		pmt_warn("%s: cannot hold it decompressed in memory (%m); not used", path);
		return -PMT_EIO;
	}
	free(data);
	snprintf(out, cap, "/proc/self/fd/%d", fd);
	cache[slot].path = strdup(path);
	cache[slot].size = st.st_size;
	cache[slot].mtime = st.st_mtim;
	cache[slot].fd = fd;
	snprintf(cache[slot].out, sizeof(cache[slot].out), "%s", out);
	return 1;
}
