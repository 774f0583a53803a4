/* record --bundle: the executable files the recording mapped (whole, or with =symbols
 * their symbol and line tables only), and the kernel's kallsyms, carried in the
 * container (its embedded-file frames), so the recording decodes on any machine. Files are
 * noted as their MMAP records pass and read at the end. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_priv.h"

#define BUNDLE_MAX_FILES 4096
#define BUNDLE_MAX_FILE (1ull << 30) /* a larger file is left out (said in the summary) */

void cap_bundle_note(struct cap *c, const char *path)
{
	if (!c->ro->bundle || path[0] != '/' || c->nbundle == BUNDLE_MAX_FILES)
		return;
	for (size_t i = 0; i < c->nbundle; i++)
		if (!strcmp(c->bundle[i], path))
			return;
	if (c->nbundle == c->bundle_cap) {
		size_t cap = c->bundle_cap ? c->bundle_cap * 2 : 64;
		char **v = realloc(c->bundle, cap * sizeof(*v));

		if (!v)
			return;
		c->bundle = v;
		c->bundle_cap = cap;
	}
	if ((c->bundle[c->nbundle] = strdup(path)))
		c->nbundle++;
}

/* An MMAP or MMAP2 record of executable code names a file to carry. */
void cap_bundle_note_record(struct cap *c, const uint8_t *r, size_t size)
{
	uint32_t type;
	uint16_t misc;
	size_t at;

	if (!c->ro->bundle || size < 8)
		return;
	memcpy(&type, r, 4);
	memcpy(&misc, r + 4, 2);
	if (type == 1) { /* MMAP: code unless PERF_RECORD_MISC_MMAP_DATA */
		if (misc & (1u << 13))
			return;
		at = 40;
	} else if (type == 10) { /* MMAP2: prot at 64 */
		uint32_t prot;

		if (size < 72)
			return;
		memcpy(&prot, r + 64, 4);
		if (!(prot & 4))
			return;
		at = 72;
	} else {
		return;
	}
	if (at < size && memchr(r + at, 0, size - at))
		cap_bundle_note(c, (const char *)r + at);
}

static uint32_t le32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t le64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* The GNU build-id from a 64-bit little-endian ELF's PT_NOTE segments (the files this
 * machine runs); 0 bytes when there is none. Every offset is checked against the size. */
size_t cap_elf_build_id(const uint8_t *p, size_t n, uint8_t *id)
{
	uint64_t phoff;
	uint16_t phnum, phentsize;

	if (n < 64 || memcmp(p, "\177ELF", 4) || p[4] != 2 || p[5] != 1)
		return 0;
	phoff = le64(p + 32);
	memcpy(&phentsize, p + 54, 2);
	memcpy(&phnum, p + 56, 2);
	if (phentsize < 56 || phoff > n || (uint64_t)phnum * phentsize > n - phoff)
		return 0;
	for (unsigned i = 0; i < phnum; i++) {
		const uint8_t *ph = p + phoff + (size_t)i * phentsize;
		uint64_t off = le64(ph + 8), sz = le64(ph + 32), pos = 0;

		if (le32(ph) != 4 /* PT_NOTE */ || off > n || sz > n - off)
			continue;
		while (sz - pos >= 12) {
			const uint8_t *nh = p + off + pos;
			uint32_t namesz = le32(nh), descsz = le32(nh + 4), type = le32(nh + 8);
			uint64_t name_al = ((uint64_t)namesz + 3) & ~3ULL;
			uint64_t desc_al = ((uint64_t)descsz + 3) & ~3ULL;

			if (name_al > sz - pos - 12 || desc_al > sz - pos - 12 - name_al)
				break;
			if (type == 3 && namesz == 4 && !memcmp(nh + 12, "GNU", 4) && descsz &&
			    descsz <= 20) {
				memcpy(id, nh + 12 + name_al, descsz);
				return descsz;
			}
			pos += 12 + name_al + desc_al;
		}
	}
	return 0;
}

static int add_one(struct cap *c, const char *path, uint32_t kind)
{
	struct pmt_ctr_file f = { .kind = kind };
	struct stat sb;
	uint8_t *data = NULL;
	size_t len = 0;
	uint64_t stored = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0 || fstat(fd, &sb) < 0 || (kind == PMT_CTR_FILE_ELF && !S_ISREG(sb.st_mode))) {
		if (fd >= 0)
			close(fd);
		c->st->bundle_skipped++;
		return 0;
	}
	if (kind == PMT_CTR_FILE_KALLSYMS) {
		/* a proc file: read to its end */
		size_t cap = 1 << 20;
		ssize_t r;

		data = malloc(cap);
		while (data && (r = read(fd, data + len, cap - len)) > 0) {
			len += (size_t)r;
			if (len == cap) {
				uint8_t *d = realloc(data, cap * 2);

				if (!d) {
					free(data);
					data = NULL;
					break;
				}
				data = d;
				cap *= 2;
			}
		}
		/* kptr_restrict hides the addresses: all zero, of no use */
		if (data && len >= 16 && !memcmp(data, "0000000000000000", 16)) {
			free(data);
			data = NULL;
			c->st->bundle_kallsyms_hidden = 1;
		}
	} else if (sb.st_size > 0 && (uint64_t)sb.st_size <= BUNDLE_MAX_FILE) {
		len = (size_t)sb.st_size;
		data = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (data == MAP_FAILED)
			data = NULL;
		if (data)
			f.build_id_size = (uint8_t)cap_elf_build_id(data, len, f.build_id);
		if (data && memcmp(data, "\177ELF", 4)) {
			munmap(data, len);
			data = NULL;
		}
	}
	close(fd);
	if (!data) {
		c->st->bundle_skipped++;
		return 0;
	}
	snprintf(f.name, sizeof(f.name), "%s", path);
	if (kind == PMT_CTR_FILE_ELF && !(PMT_OPTS_HAS(c->ro, bundle_full) && c->ro->bundle_full))
		rc = pmt_ctr_add_elf_symbols(c->ctr, &f, data, len, &stored, NULL);
	if (rc >= 0 && stored) {
		c->st->bundle_files++;
		c->st->bundle_bytes += stored;
		c->st->bundle_source_bytes += len;
	} else if (rc >= 0 || rc == -PMT_EFORMAT) {
		/* whole: asked for, kallsyms, or an ELF libelf cannot take apart (still the
		 * recording's file) */
		f.kind = kind;
		rc = pmt_ctr_add_file(c->ctr, &f, data, len);
		if (rc >= 0) {
			c->st->bundle_files++;
			c->st->bundle_bytes += len;
			c->st->bundle_source_bytes += len;
		}
	}
	if (kind == PMT_CTR_FILE_KALLSYMS)
		free(data);
	else
		munmap(data, len);
	return rc;
}

/* A mapped file's build-id, read once per file (the mappings of a system share a few
 * hundred files); 0 when it has none or cannot be read. */
size_t cap_build_id(struct cap *c, const char *path, uint8_t *id)
{
	struct stat sb;
	uint8_t *p;
	size_t n = 0;
	int fd;

	if (path[0] != '/')
		return 0;
	for (size_t i = 0; i < c->nbid; i++) {
		if (!strcmp(c->bid[i].path, path)) {
			memcpy(id, c->bid[i].id, c->bid[i].size);
			return c->bid[i].size;
		}
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= 64 &&
	    (uint64_t)sb.st_size <= BUNDLE_MAX_FILE) {
		p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p != MAP_FAILED) {
			n = cap_elf_build_id(p, (size_t)sb.st_size, id);
			munmap(p, (size_t)sb.st_size);
		}
	}
	if (fd >= 0)
		close(fd);
	if (c->nbid < 4096) {
		void *v = realloc(c->bid, (c->nbid + 1) * sizeof(*c->bid));

		if (v) {
			c->bid = v;
			c->bid[c->nbid].path = strdup(path);
			if (c->bid[c->nbid].path) {
				memcpy(c->bid[c->nbid].id, id, n);
				c->bid[c->nbid].size = (uint8_t)n;
				c->nbid++;
			}
		}
	}
	return n;
}

int cap_bundle_write(struct cap *c)
{
	int rc = 0;

	if (!c->ro->bundle || !c->ctr)
		return 0;
	for (size_t i = 0; rc >= 0 && i < c->nbundle; i++)
		rc = add_one(c, c->bundle[i], PMT_CTR_FILE_ELF);
	if (rc >= 0)
		rc = cap_vdso_write(c);
	if (rc >= 0)
		rc = add_one(c, "/proc/kallsyms", PMT_CTR_FILE_KALLSYMS);
	return rc;
}

void cap_bundle_free(struct cap *c)
{
	cap_vdso_free(c);
	for (size_t i = 0; i < c->nbid; i++)
		free(c->bid[i].path);
	free(c->bid);
	c->bid = NULL;
	c->nbid = 0;
	for (size_t i = 0; i < c->nbundle; i++)
		free(c->bundle[i]);
	free(c->bundle);
	c->bundle = NULL;
	c->nbundle = c->bundle_cap = 0;
}
