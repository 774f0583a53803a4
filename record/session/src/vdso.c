/* The vdso: not a file, so neither the kernel's MMAP2 records nor a mapped path give its
 * build-id or its bytes. perf record copies the image from its own process into its
 * build-id cache (tools/perf/util/vdso.c); here the image, read once from the recorder's
 * /proc/self/maps [vdso] region (one kernel: the same image in every 64-bit process), is
 * carried with --bundle, and [vdso] MMAP2 records get its build-id (perf's --buildid-mmap
 * form), which is how a decoder elsewhere finds the carried image. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_priv.h"

#define VDSO_MAX (1u << 20) /* a few pages; anything larger is not a vdso */
#define REC_MMAP2 10
#define MISC_MMAP_BUILD_ID (1u << 14)

static void vdso_read(struct cap *c)
{
	char line[512];
	unsigned long long start, end;
	FILE *f;

	c->vdso_read = true;
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strstr(line, "[vdso]") || sscanf(line, "%llx-%llx", &start, &end) != 2 ||
		    end <= start || end - start > VDSO_MAX)
			continue;
		c->vdso = malloc((size_t)(end - start));
		if (c->vdso) {
			memcpy(c->vdso, (const void *)(uintptr_t)start, (size_t)(end - start));
			c->vdso_len = (size_t)(end - start);
			c->vdso_base = start;
			c->vdso_id_size = (uint8_t)cap_elf_build_id(c->vdso, c->vdso_len,
								    c->vdso_id);
		}
		break;
	}
	if (f)
		fclose(f);
}

/* A 32-bit (compat) process has the kernel's other vdso, which perf tells by the process's
 * ELF class (vdso32); its map lies below 4 GiB, a 64-bit process's above: a map on the
 * other side of that line than the recorder's own is not given this image's build-id. */
static bool same_abi(const struct cap *c, uint64_t addr)
{
	return (addr >> 32 != 0) == (c->vdso_base >> 32 != 0);
}

size_t cap_vdso_build_id(struct cap *c, uint64_t addr, uint8_t *id)
{
	if (!c->ro->bundle)
		return 0;
	if (!c->vdso_read)
		vdso_read(c);
	if (!c->vdso_id_size || !same_abi(c, addr))
		return 0;
	c->vdso_used = true;
	memcpy(id, c->vdso_id, c->vdso_id_size);
	return c->vdso_id_size;
}

const uint8_t *cap_vdso_record(struct cap *c, const uint8_t *r, size_t size, uint8_t *buf,
			       size_t cap)
{
	uint32_t type;
	uint16_t misc;
	uint8_t id[20];
	uint64_t addr;
	size_t n;

	if (!c->ro->bundle || size < 80 || size > cap)
		return r;
	memcpy(&type, r, 4);
	memcpy(&misc, r + 4, 2);
	if (type != REC_MMAP2 || (misc & MISC_MMAP_BUILD_ID) || memcmp(r + 72, "[vdso]", 7))
		return r;
	memcpy(&addr, r + 16, 8);
	if (!(n = cap_vdso_build_id(c, addr, id)))
		return r;
	/* the build-id takes the place of maj, min, ino and ino_generation: same size */
	memcpy(buf, r, size);
	misc |= MISC_MMAP_BUILD_ID;
	memcpy(buf + 4, &misc, 2);
	memset(buf + 40, 0, 24);
	buf[40] = (uint8_t)n;
	memcpy(buf + 44, id, n);
	return buf;
}

int cap_vdso_write(struct cap *c)
{
	struct pmt_ctr_file f = { .kind = PMT_CTR_FILE_ELF };
	int rc;

	if (!c->vdso_used || !c->vdso)
		return 0;
	/* whole: a few pages, and its code is what annotate would read */
	snprintf(f.name, sizeof(f.name), "[vdso]");
	memcpy(f.build_id, c->vdso_id, c->vdso_id_size);
	f.build_id_size = c->vdso_id_size;
	rc = pmt_ctr_add_file(c->ctr, &f, c->vdso, c->vdso_len);
	if (rc >= 0) {
		c->st->bundle_files++;
		c->st->bundle_bytes += c->vdso_len;
		c->st->bundle_source_bytes += c->vdso_len;
	}
	return rc;
}

void cap_vdso_free(struct cap *c)
{
	free(c->vdso);
	c->vdso = NULL;
	c->vdso_len = 0;
}
