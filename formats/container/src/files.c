/* Embedded files: walking a container's frames for them, and their bytes. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pmutrace/container.h"

#include "frame_sizes.h"
#include "layout.h"

#define ZSTD_MAGIC 0xFD2FB528u

/* one file frame's payload (see pmt_ctr_add_file) into f; 0 or -PMT_ECORRUPT */
static int parse_file(const uint8_t *p, size_t n, uint64_t offset, struct pmt_ctr_file *f)
{
	size_t nl;

	if (n < 46 || memcmp(p, "PMTFILE", 8))
		return -PMT_ECORRUPT;
	nl = p[36] | (size_t)p[37] << 8;
	if (p[12] > 20 || nl >= sizeof(f->name) || 38 + nl + 8 > n)
		return -PMT_ECORRUPT;
	memset(f, 0, sizeof(*f));
	f->kind = pmt_le32(p + 8);
	f->build_id_size = p[12];
	memcpy(f->build_id, p + 13, f->build_id_size);
	memcpy(f->name, p + 38, nl);
	f->size = pmt_le64(p + 38 + nl);
	f->offset = offset;
	f->zdata = p + 38 + nl + 8;
	f->zsize = n - (38 + nl + 8);
	return 0;
}

int pmt_ctr_files(const void *buf, size_t len,
		  int (*fn)(const struct pmt_ctr_file *f, void *ctx), void *ctx)
{
	const uint8_t *b = buf;
	struct ctr_sizes sizes;
	size_t pos = 0;
	int count = 0;

	if (!pmt_ctr_is_container(buf, len))
		return -PMT_EFORMAT;
	ctr_sizes_init(&sizes, b, len);
	while (len - pos >= 8) {
		uint32_t magic = pmt_le32(b + pos);

		if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
			size_t n = pmt_le32(b + pos + 4);
			struct pmt_ctr_file f;

			if (n > len - pos - 8)
				break;
			if (magic == SKIP_FILE && parse_file(b + pos + 8, n, pos, &f) == 0) {
				int rc = fn(&f, ctx);

				if (rc < 0)
					return rc;
				count++;
			}
			pos += 8 + n;
		} else if (magic == ZSTD_MAGIC) {
			size_t c = ctr_frame_size(&sizes, b, len, pos);

			if (ZSTD_isError(c))
				break; /* damaged or cut: the reader reports it; files stop here */
			pos += c;
		} else {
			break;
		}
	}
	return count;
}

int pmt_ctr_file_read(const struct pmt_ctr_file *f, void **out, size_t *len)
{
	void *p;
	size_t n;

	*out = NULL;
	if (f->size > ((size_t)1 << 34))
		return -PMT_ECORRUPT;
	p = malloc(f->size ? f->size : 1);
	if (!p)
		return -PMT_ENOMEM;
	n = ZSTD_decompress(p, f->size, f->zdata, f->zsize);
	if (ZSTD_isError(n) || n != f->size) {
		free(p);
		return -PMT_ECORRUPT;
	}
	*out = p;
	*len = n;
	return 0;
}

static int copy_file(const struct pmt_ctr_file *f, void *ctx)
{
	struct pmt_ctr_writer *w = ctx;
	void *p;
	size_t n;
	int rc = pmt_ctr_file_read(f, &p, &n);

	if (rc < 0)
		return rc;
	rc = pmt_ctr_add_file(w, f, p, n);
	free(p);
	return rc;
}

int pmt_ctr_copy(const void *buf, size_t len, const char *name, struct pmt_ctr_writer *w,
		 struct pmt_diag *diag)
{
	struct pmt_ctr_reader *r;
	struct pmt_ctr_frame f;
	int rc, n = 0;

	rc = pmt_ctr_reader_new(buf, len, name, &r, diag);
	if (rc < 0)
		return rc;
	while ((rc = pmt_ctr_next(r, &f, diag)) > 0) {
		rc = pmt_ctr_write(w, f.data, f.size);
		if (rc >= 0)
			rc = pmt_ctr_flush(w);
		if (rc < 0) {
			pmt_diag_set(diag, rc, name, f.offset, "copying data frame %u: %s", f.index,
				     pmt_errstr(rc));
			break;
		}
		n++;
	}
	pmt_ctr_reader_free(r);
	if (rc < 0)
		return rc;
	rc = pmt_ctr_files(buf, len, copy_file, w);
	if (rc < 0)
		return pmt_diag_set(diag, rc, name, PMT_DIAG_NO_OFFSET, "copying its embedded files: %s",
				    pmt_errstr(rc));
	return n;
}
