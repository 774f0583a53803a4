/* Trace source over perf.data: file and pipe mode, either byte order, zstd-compressed
 * records expanded in place with one continuous decompression stream.
 *
 * A regular file (stdin redirected from one included) is mapped, never copied. Records are
 * parsed straight from the mapping with per-field byte swapping, so a swapped file costs no
 * extra pass. A pipe carrying a pipe-mode perf.data is streamed: a read window that grows
 * to the largest record (AUXTRACE payload included) and drops what was delivered. A
 * file-mode perf.data arriving through a pipe needs seeking (its attrs and features follow
 * the data), so it is spooled to an unlinked temporary file ($TMPDIR, else /tmp) and mapped.
 * Only the decompression window is allocated besides, bounded by one chunk plus the
 * largest record.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "perfdata_priv.h"

#define ZCHUNK (256u << 10)
#define ZMAX_RECORD (64u << 20) /* largest AUXTRACE we expand from a compressed stream */
#define STRBUF 4096
#define READ_CHUNK (1u << 20)       /* pipe reads: at least this much per refill */
#define STREAM_RECORD_MAX (1ULL << 32) /* larger records in a pipe are taken for damage */

struct id_ent {
	uint64_t id;
	uint32_t attr;
};

struct pmt_source {
	struct pmt_file_map map;
	int own_map;
	const uint8_t *buf;
	size_t size;
	bool swap;

	struct pmt_trace_meta meta;
	struct pmt_trace_attr *attrs;
	uint32_t nr_attrs, cap_attrs;
	struct id_ent *ids;
	size_t nr_ids, cap_ids;
	bool all_identifier; /* every attr has PERF_SAMPLE_IDENTIFIER */
	uint64_t *cpu_midr;
	uint64_t *cpu_event_filter;
	uint32_t max_aux_cpu;
	uint8_t feat_cpuid_seen;

	uint64_t data_start, data_end, pos;
	uint64_t cur_off;
	/* pipe input: stream bytes [win_base, win_base + win_len) are in win */
	bool stream, eof, own_fd;
	int fd;
	uint8_t *win;
	size_t win_cap, win_len;
	uint64_t win_base;
	uint64_t dropped; /* mapped pages below this were handed back to the kernel */
	uint64_t keep_from; /* a decoder still reads AUX data from here on */
	bool done;

	/* COMPRESSED records: input of the current one, and the decompressed window */
	ZSTD_DCtx *dctx;
	const uint8_t *zin;
	size_t zin_len, zin_pos;
	uint64_t zrec_off;
	bool in_comp;
	uint8_t *dbuf;
	size_t dcap, dlen, dpos;

	char comm[STRBUF];
	char fname[STRBUF];
};

/* ---- byte-order aware loads ---------------------------------------------------------- */
static inline uint16_t rd16(const struct pmt_source *s, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return s->swap ? pd_bswap16(v) : v;
}
static inline uint32_t rd32(const struct pmt_source *s, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return s->swap ? __builtin_bswap32(v) : v;
}
static inline uint64_t rd64(const struct pmt_source *s, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return s->swap ? __builtin_bswap64(v) : v;
}

/* ---- attrs and ids -------------------------------------------------------------------- */
static int cmp_id(const void *a, const void *b)
{
	const struct id_ent *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static struct pmt_trace_attr *attr_by_id(struct pmt_source *s, uint64_t id)
{
	size_t lo = 0, hi = s->nr_ids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->ids[mid].id == id)
			return &s->attrs[s->ids[mid].attr];
		if (s->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Add one attr. `raw` is the attr as stored (file byte order), `raw_size` its bytes there;
 * `ids` points to nr_ids u64 in file order. */
static int add_attr(struct pmt_source *s, const uint8_t *raw, size_t raw_size,
		    const uint8_t *ids, size_t nr_ids)
{
	struct pmt_trace_attr *a, *na;
	size_t n = raw_size < PMT_ATTR_SIZE_MAX ? raw_size : PMT_ATTR_SIZE_MAX;
	uint64_t flags;

	if (s->nr_attrs == s->cap_attrs) {
		/* doubling: a hostile attrs section can hold a hundred thousand entries */
		uint32_t nc = s->cap_attrs ? 2 * s->cap_attrs : 4;

		na = realloc(s->attrs, nc * sizeof(*na));
		if (!na)
			return -PMT_ENOMEM;
		s->attrs = na;
		s->cap_attrs = nc;
	}
	a = &s->attrs[s->nr_attrs];
	memset(a, 0, sizeof(*a));
	memcpy(a->attr, raw, n);
	if (s->swap)
		pd_attr_swap(a->attr, n);
	memcpy(&a->attr_size, a->attr + PMT_ATTR_SIZE, 4);
	memcpy(&a->type, a->attr + PMT_ATTR_TYPE, 4);
	memcpy(&a->config, a->attr + PMT_ATTR_CONFIG, 8);
	memcpy(&a->sample_type, a->attr + PMT_ATTR_SAMPLE_TYPE, 8);
	memcpy(&a->read_format, a->attr + PMT_ATTR_READ_FORMAT, 8);
	memcpy(&flags, a->attr + PMT_ATTR_FLAGS, 8);
	a->sample_id_all = !!(flags & PMT_ATTR_FLAG_SAMPLE_ID_ALL);
	if (nr_ids) {
		struct id_ent *ni;

		a->ids = malloc(nr_ids * sizeof(uint64_t));
		if (!a->ids)
			return -PMT_ENOMEM;
		if (s->nr_ids + nr_ids > s->cap_ids) {
			size_t nc = 2 * (s->nr_ids + nr_ids);

			ni = realloc(s->ids, nc * sizeof(*ni));
			if (!ni) {
				free(a->ids);
				a->ids = NULL;
				return -PMT_ENOMEM;
			}
			s->ids = ni;
			s->cap_ids = nc;
		}
		for (size_t i = 0; i < nr_ids; i++) {
			a->ids[i] = rd64(s, ids + 8 * i);
			s->ids[s->nr_ids].id = a->ids[i];
			s->ids[s->nr_ids].attr = s->nr_attrs;
			s->nr_ids++;
		}
		a->nr_ids = (uint32_t)nr_ids;
	}
	s->nr_attrs++;
	return 0;
}

static void attrs_done(struct pmt_source *s)
{
	if (s->nr_ids)
		qsort(s->ids, s->nr_ids, sizeof(*s->ids), cmp_id);
	s->all_identifier = s->nr_attrs > 0;
	s->meta.timeless = 1;
	for (uint32_t i = 0; i < s->nr_attrs; i++) {
		if (!(s->attrs[i].sample_type & PMT_SAMPLE_IDENTIFIER))
			s->all_identifier = false;
		if (s->attrs[i].sample_type & PMT_SAMPLE_TIME)
			s->meta.timeless = 0;
	}
	s->meta.attrs = s->attrs;
	s->meta.nr_attrs = s->nr_attrs;
}

/* ---- features ------------------------------------------------------------------------- */
/* perf string: u32 len; char[len] (NUL padded). Returns bytes consumed or < 0. */
static int get_str(struct pmt_source *s, const uint8_t *p, size_t len, char **out)
{
	uint32_t n;

	if (len < 4)
		return -PMT_ECORRUPT;
	n = rd32(s, p);
	if (n > len - 4)
		return -PMT_ECORRUPT;
	*out = strndup((const char *)p + 4, n);
	return *out ? (int)(4 + n) : -PMT_ENOMEM;
}

static void set_str(const char **slot, char *v)
{
	free((char *)*slot);
	*slot = v;
}

static int parse_cmdline(struct pmt_source *s, const uint8_t *p, size_t len)
{
	struct pmt_buf b = { 0 };
	uint32_t nr;
	size_t off = 4;

	if (len < 4)
		return -PMT_ECORRUPT;
	nr = rd32(s, p);
	for (uint32_t i = 0; i < nr; i++) {
		char *arg;
		int rc = get_str(s, p + off, len - off, &arg);

		if (rc < 0) {
			pmt_buf_fini(&b);
			return rc;
		}
		off += (size_t)rc;
		if ((i && pmt_buf_append(&b, " ", 1) < 0) ||
		    pmt_buf_append(&b, arg, strlen(arg)) < 0) {
			free(arg);
			pmt_buf_fini(&b);
			return -PMT_ENOMEM;
		}
		free(arg);
	}
	if (pmt_buf_append(&b, "", 1) < 0) {
		pmt_buf_fini(&b);
		return -PMT_ENOMEM;
	}
	set_str(&s->meta.cmdline, (char *)b.data);
	return 0;
}

static int parse_pmu_mappings(struct pmt_source *s, const uint8_t *p, size_t len)
{
	struct pmt_buf b = { 0 };
	uint32_t nr;
	size_t off = 4;
	char num[16];

	if (len < 4)
		return -PMT_ECORRUPT;
	nr = rd32(s, p);
	for (uint32_t i = 0; i < nr; i++) {
		char *name;
		int rc;

		if (len - off < 4)
			goto bad;
		snprintf(num, sizeof(num), "%u:", rd32(s, p + off));
		off += 4;
		rc = get_str(s, p + off, len - off, &name);
		if (rc < 0)
			goto bad;
		off += (size_t)rc;
		if ((i && pmt_buf_append(&b, ",", 1) < 0) || pmt_buf_append(&b, num, strlen(num)) < 0 ||
		    pmt_buf_append(&b, name, strlen(name)) < 0) {
			free(name);
			pmt_buf_fini(&b);
			return -PMT_ENOMEM;
		}
		free(name);
	}
	if (pmt_buf_append(&b, "", 1) < 0) {
		pmt_buf_fini(&b);
		return -PMT_ENOMEM;
	}
	set_str(&s->meta.pmu_mappings, (char *)b.data);
	return 0;
bad:
	pmt_buf_fini(&b);
	return -PMT_ECORRUPT;
}

/* EVENT_DESC: u32 nr, u32 attr_size; per event: attr, u32 nr_ids, string name, u64 ids[]. */
static int parse_event_desc(struct pmt_source *s, const uint8_t *p, size_t len)
{
	uint32_t nr, asz;
	size_t off = 8;

	if (len < 8)
		return -PMT_ECORRUPT;
	nr = rd32(s, p);
	asz = rd32(s, p + 4);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nids;
		char *name;
		int rc;
		struct pmt_trace_attr *a = NULL;

		if (len - off < (size_t)asz + 4)
			return -PMT_ECORRUPT;
		off += asz;
		nids = rd32(s, p + off);
		off += 4;
		rc = get_str(s, p + off, len - off, &name);
		if (rc < 0)
			return rc;
		off += (size_t)rc;
		if ((len - off) / 8 < nids) {
			free(name);
			return -PMT_ECORRUPT;
		}
		if (nids)
			a = attr_by_id(s, rd64(s, p + off));
		else if (i < s->nr_attrs)
			a = &s->attrs[i];
		off += (size_t)nids * 8;
		if (a) {
			free((char *)a->name);
			a->name = name;
		} else {
			free(name);
		}
	}
	return 0;
}

/* HEADER_AUXTRACE: {u64 nr; {u64 file_offset, size}[nr]}, one entry per AUXTRACE record
 * (perf's auxtrace_index__write). The records are read in file order anyway; the index
 * is only checked, so that a file whose index perf would trip over is reported. */
static int parse_auxtrace_index(struct pmt_source *s, const uint8_t *p, size_t len)
{
	uint64_t nr, bad = 0, first_bad = 0;

	if (len < 8)
		return -PMT_ECORRUPT;
	nr = rd64(s, p);
	if (nr > (len - 8) / 16)
		return -PMT_ECORRUPT;
	s->meta.has_auxtrace_index = 1;
	s->meta.nr_auxtrace_index = nr;
	if (s->meta.pipe_mode)
		return 0; /* offsets of a file we do not have */
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t off = rd64(s, p + 8 + 16 * i);

		if (off < s->data_start || off > s->data_end || s->data_end - off < 48 ||
		    rd32(s, s->buf + off) != PMT_REC_AUXTRACE) {
			if (!bad++)
				first_bad = off;
		}
	}
	if (bad)
		pmt_warn("perf.data: %llu of %llu AUXTRACE index entries point at no AUXTRACE "
			 "record (first: 0x%llx); perf may refuse the file",
			 (unsigned long long)bad, (unsigned long long)nr,
			 (unsigned long long)first_bad);
	return 0;
}

static int parse_feature(struct pmt_source *s, unsigned feat, const uint8_t *p, size_t len)
{
	char *str;
	int rc = 0;

	switch (feat) {
	case PMT_FEAT_HOSTNAME: case PMT_FEAT_OSRELEASE: case PMT_FEAT_VERSION: case PMT_FEAT_ARCH:
	case PMT_FEAT_CPUID:
		rc = get_str(s, p, len, &str);
		if (rc < 0)
			break;
		rc = 0;
		set_str(feat == PMT_FEAT_HOSTNAME ? &s->meta.hostname :
			feat == PMT_FEAT_OSRELEASE ? &s->meta.osrelease :
			feat == PMT_FEAT_VERSION ? &s->meta.version :
			feat == PMT_FEAT_ARCH ? &s->meta.arch : &s->meta.cpuid, str);
		break;
	case PMT_FEAT_NRCPUS:
		if (len < 8)
			return -PMT_ECORRUPT;
		s->meta.nr_cpus_avail = rd32(s, p);
		s->meta.nr_cpus_online = rd32(s, p + 4);
		break;
	case PMT_FEAT_CMDLINE:
		rc = parse_cmdline(s, p, len);
		break;
	case PMT_FEAT_PMU_MAPPINGS:
		rc = parse_pmu_mappings(s, p, len);
		break;
	case PMT_FEAT_EVENT_DESC:
		rc = parse_event_desc(s, p, len);
		break;
	case PMT_FEAT_AUXTRACE:
		rc = parse_auxtrace_index(s, p, len);
		break;
	case PMT_FEAT_COMPRESSED:
		/* {u32 version, type, level, ratio, mmap_len} */
		if (len < 20)
			return -PMT_ECORRUPT;
		s->meta.comp_type = rd32(s, p + 4);
		s->meta.comp_level = rd32(s, p + 8);
		s->meta.comp_mmap_len = rd32(s, p + 16);
		if (s->meta.comp_type != 1)
			pmt_warn("perf.data: compression type %u is not zstd", s->meta.comp_type);
		break;
	default:
		break;
	}
	if (rc < 0)
		pmt_warn("perf.data: feature %u is malformed (%s); ignored", feat, pmt_errstr(rc));
	return rc;
}

/* ---- AUXTRACE_INFO, TIME_CONV ----------------------------------------------------------- */
static void set_event_filter(struct pmt_source *s, uint32_t cpu, uint64_t mask)
{
	if (!s->cpu_event_filter) {
		s->cpu_event_filter = calloc(PMT_MAX_CPUS, sizeof(uint64_t));
		if (!s->cpu_event_filter)
			return; /* the caps only refine snoop text; decoding goes on without */
		s->meta.cpu_event_filter = s->cpu_event_filter;
	}
	s->cpu_event_filter[cpu] = mask;
}

static void parse_auxtrace_info(struct pmt_source *s, const uint8_t *r, size_t size, uint64_t off)
{
	size_t npriv;
	const uint8_t *priv = r + 16;

	if (size < 16) {
		pmt_warn("perf.data: AUXTRACE_INFO at 0x%llx too short", (unsigned long long)off);
		return;
	}
	npriv = (size - 16) / 8;
	s->meta.has_auxtrace_info = 1;
	s->meta.auxtrace_type = rd32(s, r + 8);
	if (s->meta.auxtrace_type != PMT_AUXTRACE_ARM_SPE)
		return;
	if (npriv == 2) {
		s->meta.auxtrace_version = 1;
		s->meta.spe_pmu_type = rd64(s, priv);
		return;
	}
	if (npriv < 4) {
		pmt_warn("perf.data: SPE AUXTRACE_INFO at 0x%llx has %zu fields",
			 (unsigned long long)off, npriv);
		return;
	}
	s->meta.auxtrace_version = (uint32_t)rd64(s, priv);
	if (s->meta.auxtrace_version != 2) {
		pmt_warn("perf.data: SPE AUXTRACE_INFO version %u unknown",
			 s->meta.auxtrace_version);
		return;
	}
	{
		uint64_t hdr = rd64(s, priv + 8), ncpu = rd64(s, priv + 24);
		size_t per;
		uint64_t *midr;

		s->meta.spe_pmu_type = rd64(s, priv + 16);
		if (hdr < 4 || hdr > npriv || ncpu == 0 || ncpu > PMT_MAX_CPUS ||
		    (npriv - hdr) / ncpu < 4) {
			pmt_warn("perf.data: SPE AUXTRACE_INFO v2 at 0x%llx has bad sizes",
				 (unsigned long long)off);
			return;
		}
		per = (npriv - hdr) / ncpu;
		/* filled in place when it exists: the record is parsed again when the reader
		 * meets it, and callers may hold meta.cpu_midr */
		midr = s->cpu_midr ? s->cpu_midr : calloc(PMT_MAX_CPUS, sizeof(*midr));
		if (!midr)
			return;
		memset(midr, 0, PMT_MAX_CPUS * sizeof(*midr));
		for (uint64_t i = 0; i < ncpu; i++) {
			const uint8_t *b = priv + 8 * (hdr + i * per);
			uint64_t cpu = rd64(s, b + 8);

			if (rd64(s, b) != PMT_SPE_V2_MAGIC || cpu >= PMT_MAX_CPUS) {
				pmt_warn("perf.data: SPE metadata block %llu bad magic or CPU",
					 (unsigned long long)i);
				continue;
			}
			midr[cpu] = rd64(s, b + 24);
			/* NR_PARAMS counts the u64s after it: MIDR, PMU_TYPE, CAP_MIN_IVAL, then
			 * CAP_EVENT_FILTER from perf 6.18 on */
			if (rd64(s, b + 16) >= 4 && per >= 7)
				set_event_filter(s, (uint32_t)cpu, rd64(s, b + 48));
			if (cpu + 1 > s->meta.nr_cpus)
				s->meta.nr_cpus = (uint32_t)cpu + 1;
		}
		if (s->meta.nr_cpus < ncpu)
			s->meta.nr_cpus = (uint32_t)ncpu;
		s->cpu_midr = midr;
		s->meta.cpu_midr = midr;
	}
}

static void parse_time_conv(struct pmt_source *s, const uint8_t *r, size_t size)
{
	struct pmt_time_conv *tc = &s->meta.time_conv;

	if (size < 32)
		return;
	memset(tc, 0, sizeof(*tc));
	tc->time_shift = (uint16_t)rd64(s, r + 8);
	tc->time_mult = (uint32_t)rd64(s, r + 16);
	tc->time_zero = rd64(s, r + 24);
	if (size >= 50) {
		tc->time_cycles = rd64(s, r + 32);
		tc->time_mask = rd64(s, r + 40);
		tc->cap_user_time_zero = r[48];
		tc->cap_user_time_short = r[49];
	}
	s->meta.has_time_conv = 1;
}

/* MIDR for every CPU from HEADER_CPUID when v2 metadata did not give them. */
static int fill_cpu_midr(struct pmt_source *s)
{
	uint32_t n = s->meta.nr_cpus;

	if (s->meta.nr_cpus_avail > n)
		n = s->meta.nr_cpus_avail;
	if (s->max_aux_cpu + 1 > n)
		n = s->max_aux_cpu + 1;
	if (n == 0)
		n = 1;
	if (n > PMT_MAX_CPUS)
		n = PMT_MAX_CPUS;
	s->meta.nr_cpus = n;
	if (s->cpu_midr)
		return 0;
	s->cpu_midr = calloc(PMT_MAX_CPUS, sizeof(uint64_t));
	if (!s->cpu_midr)
		return -PMT_ENOMEM;
	if (s->meta.cpuid && !strncmp(s->meta.cpuid, "0x", 2)) {
		char *end;
		unsigned long long v = strtoull(s->meta.cpuid, &end, 16);

		/* HEADER_CPUID describes the machine: perf applies it to every CPU, so do we,
		 * even to CPUs beyond the counts the file gives */
		if (*end == 0)
			for (uint32_t i = 0; i < PMT_MAX_CPUS; i++)
				s->cpu_midr[i] = v;
	}
	s->meta.cpu_midr = s->cpu_midr;
	return 0;
}

/* ---- sample parsing --------------------------------------------------------------------- */
static struct pmt_trace_attr *attr_of_sample(struct pmt_source *s, const uint8_t *r, size_t size)
{
	uint64_t st, pos;

	if (s->nr_attrs == 1)
		return &s->attrs[0];
	if (s->nr_attrs == 0)
		return NULL;
	if (s->all_identifier)
		return size >= 16 ? attr_by_id(s, rd64(s, r + 8)) : NULL;
	st = s->attrs[0].sample_type;
	if (!(st & PMT_SAMPLE_ID))
		return &s->attrs[0];
	pos = 8 + 8 * (uint64_t)__builtin_popcountll(st & (PMT_SAMPLE_IP | PMT_SAMPLE_TID |
							    PMT_SAMPLE_TIME | PMT_SAMPLE_ADDR));
	return size >= pos + 8 ? attr_by_id(s, rd64(s, r + pos)) : NULL;
}

static struct pmt_trace_attr *attr_of_other(struct pmt_source *s, const uint8_t *r, size_t size)
{
	uint64_t st, back;

	if (s->nr_attrs == 1)
		return &s->attrs[0];
	if (s->nr_attrs == 0)
		return NULL;
	if (s->all_identifier)
		return size >= 16 ? attr_by_id(s, rd64(s, r + size - 8)) : NULL;
	st = s->attrs[0].sample_type;
	if (!(st & PMT_SAMPLE_ID))
		return &s->attrs[0];
	back = 8 * (1 + (uint64_t)__builtin_popcountll(st & (PMT_SAMPLE_STREAM_ID | PMT_SAMPLE_CPU)));
	return size >= back + 8 ? attr_by_id(s, rd64(s, r + size - back)) : NULL;
}

/* Parse the sample_id trailer; returns the body end (offset where the trailer starts). */
static size_t parse_sid(struct pmt_source *s, const uint8_t *r, size_t size,
			struct pmt_sample_id *sid)
{
	struct pmt_trace_attr *a = attr_of_other(s, r, size);
	uint64_t st;
	size_t n, p;

	memset(sid, 0, sizeof(*sid));
	if (!a || !a->sample_id_all)
		return size;
	st = a->sample_type;
	n = 8 * (size_t)__builtin_popcountll(st & (PMT_SAMPLE_TID | PMT_SAMPLE_TIME | PMT_SAMPLE_ID |
						   PMT_SAMPLE_STREAM_ID | PMT_SAMPLE_CPU |
						   PMT_SAMPLE_IDENTIFIER));
	if (n + 8 > size)
		return size;
	p = size - n;
	if (st & PMT_SAMPLE_TID) {
		sid->pid = rd32(s, r + p);
		sid->tid = rd32(s, r + p + 4);
		p += 8;
	}
	if (st & PMT_SAMPLE_TIME) {
		sid->time = rd64(s, r + p);
		p += 8;
	}
	if (st & PMT_SAMPLE_ID) {
		sid->id = rd64(s, r + p);
		p += 8;
	}
	if (st & PMT_SAMPLE_STREAM_ID) {
		sid->stream_id = rd64(s, r + p);
		p += 8;
	}
	if (st & PMT_SAMPLE_CPU) {
		sid->cpu = rd32(s, r + p);
		p += 8;
	}
	if (st & PMT_SAMPLE_IDENTIFIER)
		sid->id = rd64(s, r + p);
	sid->valid = 1;
	return size - n;
}

static int parse_sample(struct pmt_source *s, const uint8_t *r, size_t size, struct pmt_sample *smp)
{
	struct pmt_trace_attr *a = attr_of_sample(s, r, size);
	const uint8_t *p = r + 8, *end = r + size;
	uint64_t st, v;

	memset(smp, 0, sizeof(*smp));
	if (!a) {
		if (size >= 16 && s->all_identifier)
			smp->id = rd64(s, r + 8);
		return 0;
	}
	smp->attr = a;
	st = smp->sample_type = a->sample_type;

#define NEED(n) do { if ((uint64_t)(end - p) < (uint64_t)(n)) return -PMT_ECORRUPT; } while (0)
#define U64(dst) do { NEED(8); (dst) = rd64(s, p); p += 8; } while (0)
#define SKIP(n) do { NEED(n); p += (n); } while (0)
	if (st & PMT_SAMPLE_IDENTIFIER)
		U64(smp->id);
	if (st & PMT_SAMPLE_IP)
		U64(smp->ip);
	if (st & PMT_SAMPLE_TID) {
		NEED(8);
		smp->pid = rd32(s, p);
		smp->tid = rd32(s, p + 4);
		p += 8;
	}
	if (st & PMT_SAMPLE_TIME)
		U64(smp->time);
	if (st & PMT_SAMPLE_ADDR)
		U64(smp->addr);
	if (st & PMT_SAMPLE_ID)
		U64(smp->id);
	if (st & PMT_SAMPLE_STREAM_ID)
		U64(smp->stream_id);
	if (st & PMT_SAMPLE_CPU) {
		NEED(8);
		smp->cpu = rd32(s, p);
		p += 8;
	}
	if (st & PMT_SAMPLE_PERIOD)
		U64(smp->period);
	if (st & PMT_SAMPLE_READ) {
		uint64_t rf = a->read_format;
		uint64_t ent = 8 + ((rf & PMT_READ_ID) ? 8 : 0) + ((rf & PMT_READ_LOST) ? 8 : 0);

		if (rf & PMT_READ_GROUP) {
			U64(v);
			SKIP(8 * (uint64_t)__builtin_popcountll(rf & (PMT_READ_TOTAL_ENABLED |
								     PMT_READ_TOTAL_RUNNING)));
			if (v > (uint64_t)(end - p) / ent)
				return -PMT_ECORRUPT;
			p += v * ent;
		} else {
			SKIP(ent + 8 * (uint64_t)__builtin_popcountll(rf & (PMT_READ_TOTAL_ENABLED |
									    PMT_READ_TOTAL_RUNNING)));
		}
	}
	if (st & PMT_SAMPLE_CALLCHAIN) {
		U64(v);
		if (v > (uint64_t)(end - p) / 8)
			return -PMT_ECORRUPT;
		p += v * 8;
	}
	if (st & PMT_SAMPLE_RAW) {
		NEED(4);
		v = rd32(s, p);
		SKIP(4 + v);
	}
	if (st & PMT_SAMPLE_BRANCH_STACK) {
		uint64_t bst, ent = 24;

		memcpy(&bst, a->attr + PMT_ATTR_BRANCH_SAMPLE_TYPE, 8);
		U64(v);
		if (bst & PMT_BRANCH_HW_INDEX)
			SKIP(8);
		if (bst & PMT_BRANCH_COUNTERS)
			ent += 8;
		if (v > (uint64_t)(end - p) / ent)
			return -PMT_ECORRUPT;
		p += v * ent;
	}
	if (st & PMT_SAMPLE_REGS_USER) {
		uint64_t mask;

		memcpy(&mask, a->attr + PMT_ATTR_REGS_USER, 8);
		U64(v);
		if (v)
			SKIP(8 * (uint64_t)__builtin_popcountll(mask));
	}
	if (st & PMT_SAMPLE_STACK_USER) {
		U64(v);
		SKIP(v);
		if (v)
			SKIP(8);
	}
	if (st & (PMT_SAMPLE_WEIGHT | PMT_SAMPLE_WEIGHT_STRUCT)) {
		U64(smp->weight);
		/* a big-endian union perf_sample_weight keeps var1_dw in the high half */
		if (s->swap && (st & PMT_SAMPLE_WEIGHT_STRUCT))
			smp->weight = (smp->weight >> 32) | ((smp->weight >> 16) & 0xffff) << 32 |
				      (smp->weight & 0xffff) << 48;
	}
	if (st & PMT_SAMPLE_DATA_SRC)
		U64(smp->data_src);
	if (st & PMT_SAMPLE_TRANSACTION)
		U64(smp->transaction);
	if (st & PMT_SAMPLE_REGS_INTR) {
		uint64_t mask;

		memcpy(&mask, a->attr + PMT_ATTR_REGS_INTR, 8);
		U64(v);
		if (v)
			SKIP(8 * (uint64_t)__builtin_popcountll(mask));
	}
	if (st & PMT_SAMPLE_PHYS_ADDR)
		U64(smp->phys_addr);
#undef NEED
#undef U64
#undef SKIP
	return 0;
}

/* ---- one record ------------------------------------------------------------------------- */
static void copy_str(char *dst, const uint8_t *p, const uint8_t *end)
{
	size_t n = 0;

	while (p + n < end && p[n] && n < STRBUF - 1)
		n++;
	memcpy(dst, p, n);
	dst[n] = 0;
}

/* Decode the record at r (header.size = size bytes; AUXTRACE payload follows and has
 * `payload_avail` bytes readable). Returns 0 or a negative error (event still filled with
 * the header so the caller can skip it). */
static int decode_record(struct pmt_source *s, const uint8_t *r, size_t size, uint64_t off,
			 size_t payload_avail, struct pmt_trace_event *ev)
{
	uint32_t type = rd32(s, r);
	size_t body;
	int rc = 0;

	memset(ev, 0, sizeof(*ev));
	ev->kind = PMT_TEV_RECORD;
	ev->type = type;
	ev->misc = rd16(s, r + 4);
	ev->file_offset = off;
	ev->raw = r;
	ev->raw_size = (uint32_t)size;

	if (type == PMT_REC_SAMPLE) {
		rc = parse_sample(s, r, size, &ev->u.sample);
		if (rc < 0)
			pmt_error("perf.data: SAMPLE at 0x%llx overruns its size %zu",
				  (unsigned long long)off, size);
		return rc;
	}
	body = type < PMT_REC_HEADER_ATTR ? parse_sid(s, r, size, &ev->sid) : size;

#define NEED(n) do { if (body < (n)) goto short_rec; } while (0)
	switch (type) {
	case PMT_REC_AUXTRACE: {
		uint64_t sz;

		NEED(48);
		ev->kind = PMT_TEV_AUXTRACE;
		sz = rd64(s, r + 8);
		ev->u.auxtrace.offset = rd64(s, r + 16);
		ev->u.auxtrace.reference = rd64(s, r + 24);
		ev->u.auxtrace.idx = rd32(s, r + 32);
		ev->u.auxtrace.tid = rd32(s, r + 36);
		ev->u.auxtrace.cpu = rd32(s, r + 40);
		ev->u.auxtrace.data = r + size;
		ev->u.auxtrace.transient = s->stream || s->in_comp;
		if (sz > payload_avail) {
			pmt_error("perf.data: AUXTRACE at 0x%llx: %llu bytes announced, %zu present",
				  (unsigned long long)off, (unsigned long long)sz, payload_avail);
			ev->u.auxtrace.truncated = 1;
			sz = payload_avail;
			rc = 0; /* deliver what is there; the next call reports the end */
		}
		ev->u.auxtrace.size = sz;
		break;
	}
	case PMT_REC_COMM:
		NEED(16);
		ev->u.comm.pid = rd32(s, r + 8);
		ev->u.comm.tid = rd32(s, r + 12);
		copy_str(s->comm, r + 16, r + body);
		ev->u.comm.comm = s->comm;
		ev->u.comm.exec = !!(ev->misc & PMT_MISC_COMM_EXEC);
		break;
	case PMT_REC_MMAP:
		NEED(40);
		ev->u.mmap.pid = rd32(s, r + 8);
		ev->u.mmap.tid = rd32(s, r + 12);
		ev->u.mmap.addr = rd64(s, r + 16);
		ev->u.mmap.len = rd64(s, r + 24);
		ev->u.mmap.pgoff = rd64(s, r + 32);
		copy_str(s->fname, r + 40, r + body);
		ev->u.mmap.filename = s->fname;
		break;
	case PMT_REC_MMAP2:
		NEED(72);
		ev->u.mmap.pid = rd32(s, r + 8);
		ev->u.mmap.tid = rd32(s, r + 12);
		ev->u.mmap.addr = rd64(s, r + 16);
		ev->u.mmap.len = rd64(s, r + 24);
		ev->u.mmap.pgoff = rd64(s, r + 32);
		if (ev->misc & PMT_MISC_MMAP_BUILD_ID) {
			uint8_t n = r[40];

			ev->u.mmap.build_id_size = n > 20 ? 20 : n;
			memcpy(ev->u.mmap.build_id, r + 44, 20);
		}
		ev->u.mmap.prot = rd32(s, r + 64);
		ev->u.mmap.flags = rd32(s, r + 68);
		copy_str(s->fname, r + 72, r + body);
		ev->u.mmap.filename = s->fname;
		break;
	case PMT_REC_AUX:
		NEED(32);
		ev->u.aux.aux_offset = rd64(s, r + 8);
		ev->u.aux.aux_size = rd64(s, r + 16);
		ev->u.aux.flags = rd64(s, r + 24);
		break;
	case PMT_REC_ITRACE_START:
		NEED(16);
		ev->u.itrace_start.pid = rd32(s, r + 8);
		ev->u.itrace_start.tid = rd32(s, r + 12);
		break;
	case PMT_REC_SWITCH:
	case PMT_REC_SWITCH_CPU_WIDE:
		if (type == PMT_REC_SWITCH_CPU_WIDE) {
			NEED(16);
			ev->u.sw.next_prev_pid = rd32(s, r + 8);
			ev->u.sw.next_prev_tid = rd32(s, r + 12);
		}
		ev->u.sw.out = !!(ev->misc & PMT_MISC_SWITCH_OUT);
		ev->u.sw.preempt = !!(ev->misc & PMT_MISC_SWITCH_OUT_PREEMPT);
		break;
	case PMT_REC_LOST:
		NEED(24);
		ev->u.lost.id = rd64(s, r + 8);
		ev->u.lost.lost = rd64(s, r + 16);
		break;
	case PMT_REC_LOST_SAMPLES:
		NEED(16);
		ev->u.lost.lost = rd64(s, r + 8);
		break;
	case PMT_REC_AUXTRACE_INFO:
		parse_auxtrace_info(s, r, size, off);
		break;
	case PMT_REC_TIME_CONV:
		parse_time_conv(s, r, size);
		break;
	default:
		break;
	}
#undef NEED
	return rc;
short_rec:
	pmt_error("perf.data: record type %u at 0x%llx too short (%zu bytes)", type,
		  (unsigned long long)off, size);
	return -PMT_ECORRUPT;
}

/* ---- iteration -------------------------------------------------------------------------- */
static int comp_setup(struct pmt_source *s, const uint8_t *r, size_t size, uint64_t off)
{
	uint32_t type = rd32(s, r);
	size_t hdr = 8, len = size - 8;

	if (type == PMT_REC_COMPRESSED2) {
		uint64_t dsz;

		if (size < 16)
			return -PMT_ECORRUPT;
		dsz = rd64(s, r + 8);
		hdr = 16;
		if (dsz > size - 16)
			return -PMT_ECORRUPT;
		len = (size_t)dsz;
	}
	if (!s->dctx) {
		s->dctx = ZSTD_createDCtx();
		if (!s->dctx)
			return -PMT_ENOMEM;
	}
	s->zin = r + hdr;
	s->zin_len = len;
	s->zin_pos = 0;
	s->zrec_off = off;
	s->in_comp = true;
	return 0;
}

static void comp_abort(struct pmt_source *s)
{
	s->zin_pos = s->zin_len;
	s->dlen = s->dpos = 0;
	s->in_comp = false;
	if (s->dctx)
		ZSTD_DCtx_reset(s->dctx, ZSTD_reset_session_only);
}

static int comp_next(struct pmt_source *s, struct pmt_trace_event *ev)
{
	for (;;) {
		size_t avail = s->dlen - s->dpos, need = 8;

		if (avail >= 8) {
			const uint8_t *r = s->dbuf + s->dpos;
			uint32_t size = rd16(s, r + 6), type = rd32(s, r);

			need = size;
			if (size < 8) {
				s->cur_off = s->zrec_off;
				pmt_error("perf.data: record of size %u inside COMPRESSED record at 0x%llx",
					  size, (unsigned long long)s->zrec_off);
				comp_abort(s);
				return -PMT_ECORRUPT;
			}
			if (type == PMT_REC_AUXTRACE && size >= 48) {
				uint64_t psz = rd64(s, r + 8);

				if (psz > ZMAX_RECORD) {
					s->cur_off = s->zrec_off;
					pmt_error("perf.data: compressed AUXTRACE of %llu bytes at 0x%llx",
						  (unsigned long long)psz,
						  (unsigned long long)s->zrec_off);
					comp_abort(s);
					return -PMT_ECORRUPT;
				}
				need += (size_t)psz;
			}
			if (avail >= need) {
				int rc;

				s->cur_off = s->zrec_off;
				rc = decode_record(s, r, size, s->zrec_off, need - size, ev);
				s->dpos += need;
				return rc;
			}
		}
		if (s->zin_pos >= s->zin_len) {
			/* a record may continue in the next COMPRESSED record: keep the tail */
			s->in_comp = false;
			return -PMT_EEOS;
		}
		if (s->dpos) {
			memmove(s->dbuf, s->dbuf + s->dpos, avail);
			s->dlen = avail;
			s->dpos = 0;
		}
		if (s->dcap < need + ZCHUNK) {
			uint8_t *nb = realloc(s->dbuf, need + ZCHUNK);

			if (!nb)
				return -PMT_ENOMEM;
			s->dbuf = nb;
			s->dcap = need + ZCHUNK;
		}
		{
			ZSTD_outBuffer out = { s->dbuf, s->dcap, s->dlen };
			ZSTD_inBuffer in = { s->zin, s->zin_len, s->zin_pos };
			size_t zr = ZSTD_decompressStream(s->dctx, &out, &in);

			if (ZSTD_isError(zr)) {
				s->cur_off = s->zrec_off;
				pmt_error("perf.data: zstd error in COMPRESSED record at 0x%llx: %s",
					  (unsigned long long)s->zrec_off, ZSTD_getErrorName(zr));
				comp_abort(s);
				return -PMT_ECOMPRESS;
			}
			if (out.pos == s->dlen && in.pos == s->zin_pos)
				in.pos = s->zin_len; /* no progress: treat the input as spent */
			s->dlen = out.pos;
			s->zin_pos = in.pos;
		}
	}
}

/* Keep the resident set flat on huge files: pages already read go back to the kernel,
 * except those from keep_from on (AUX data a decoder still holds). The mapping is private
 * and never written, so a later access to a dropped page simply faults it in again from
 * the page cache. */
static void drop_behind(struct pmt_source *s)
{
	const uint64_t step = 8u << 20;
	uint64_t page, upto, limit = s->cur_off < s->keep_from ? s->cur_off : s->keep_from;

	if (!s->map.mapped || limit < s->dropped + step)
		return;
	page = (uint64_t)sysconf(_SC_PAGESIZE);
	upto = limit & ~(page - 1);
	madvise((void *)(s->buf + s->dropped), upto - s->dropped, MADV_DONTNEED);
	s->dropped = upto;
}

/* Length of a plausible record (payload included) at `pos`, or 0. */
static uint64_t plausible(const struct pmt_source *s, uint64_t pos)
{
	const uint8_t *r = s->buf + pos;
	uint32_t type, size;
	uint64_t len;

	if (s->data_end - pos < 8)
		return 0;
	type = rd32(s, r);
	size = rd16(s, r + 6);
	if (!((type >= 1 && type <= 21) || (type >= 64 && type <= 83)) || size < 8 ||
	    (size % 8 && type != PMT_REC_COMPRESSED))
		return 0;
	len = size;
	if (type == PMT_REC_AUXTRACE) {
		uint64_t payload;

		if (size != 48 || s->data_end - pos < 48)
			return 0;
		payload = rd64(s, r + 8);
		if (payload % 8 || payload > s->data_end - pos - 48)
			return 0;
		len += payload;
	}
	return len <= s->data_end - pos ? len : 0;
}

/* First offset >= from (8-byte steps, as records keep that alignment) where two plausible
 * records follow each other, or one ends exactly at the end of the data. */
static uint64_t resync(const struct pmt_source *s, uint64_t from)
{
	for (uint64_t p = from; p + 8 <= s->data_end; p += 8) {
		uint64_t len = plausible(s, p);

		if (len && (p + len == s->data_end || plausible(s, p + len)))
			return p;
	}
	return s->data_end;
}

static int stream_next(struct pmt_source *s, struct pmt_trace_event *ev);

/* The record at s->pos, of which `have` bytes (payload included) are present: decode it,
 * or set a COMPRESSED record up for expansion (returns 1: read on from its contents). */
static int take_record(struct pmt_source *s, const uint8_t *r, uint64_t have,
		       struct pmt_trace_event *ev)
{
	uint32_t type = rd32(s, r), size = rd16(s, r + 6);
	uint64_t payload = 0, left;
	int rc;

	if (size > have) {
		s->done = true;
		pmt_error("perf.data: record at 0x%llx (type %u, size %u) truncated at 0x%llx",
			  (unsigned long long)s->pos, type, size,
			  (unsigned long long)(s->pos + have));
		return -PMT_ENEED_MORE;
	}
	if (type == PMT_REC_COMPRESSED || type == PMT_REC_COMPRESSED2) {
		uint64_t at = s->pos;

		/* zin points into the input; a pipe's window is not refilled until the
		 * expansion is done */
		s->pos += size;
		rc = comp_setup(s, r, size, at);
		if (rc < 0) {
			pmt_error("perf.data: bad COMPRESSED record at 0x%llx", (unsigned long long)at);
			return rc;
		}
		return 1;
	}
	left = have - size;
	if (type == PMT_REC_AUXTRACE && size >= 48)
		payload = rd64(s, r + 8);
	rc = decode_record(s, r, size, s->pos, (size_t)(payload < left ? payload : left), ev);
	if (payload > left) {
		s->done = true;
		payload = left;
	}
	s->pos += size + payload;
	return rc;
}

int pmt_source_next(struct pmt_source *s, struct pmt_trace_event *ev)
{
	if (s->stream)
		return stream_next(s, ev);
	for (;;) {
		const uint8_t *r;
		uint64_t avail;
		uint32_t size;
		int rc;

		if (s->in_comp) {
			rc = comp_next(s, ev);
			if (rc != -PMT_EEOS)
				return rc;
		}
		if (s->done || s->pos >= s->data_end) {
			s->done = true;
			return -PMT_EEOS;
		}
		s->cur_off = s->pos;
		drop_behind(s);
		avail = s->data_end - s->pos;
		r = s->buf + s->pos;
		if (avail < 8) {
			s->done = true;
			pmt_error("perf.data: truncated record header at 0x%llx",
				  (unsigned long long)s->pos);
			return -PMT_ENEED_MORE;
		}
		size = rd16(s, r + 6);
		if (size < 8) {
			uint64_t at = s->pos;

			/* nothing says where the next record starts: look for one further on
			 * rather than lose the rest of the file (or loop on this one) */
			s->pos = resync(s, at + 8);
			pmt_error("perf.data: record at 0x%llx has size %u; %s 0x%llx",
				  (unsigned long long)at, size,
				  s->pos < s->data_end ? "resuming at" : "nothing readable up to",
				  (unsigned long long)s->pos);
			return -PMT_ECORRUPT;
		}
		rc = take_record(s, r, avail, ev);
		if (rc != 1)
			return rc;
	}
}

/* ---- pipe input ------------------------------------------------------------------------ */
/* Make stream bytes up to `upto` (absolute) available in the window. Bytes before s->pos
 * (delivered records) are dropped first. Returns 0, -PMT_ENEED_MORE when the input ends
 * earlier (the window then holds what exists), -PMT_EIO or -PMT_ENOMEM. */
static int fill(struct pmt_source *s, uint64_t upto)
{
	if (upto <= s->win_base + s->win_len)
		return 0;
	if (s->pos > s->win_base) {
		size_t drop = (size_t)(s->pos - s->win_base);

		memmove(s->win, s->win + drop, s->win_len - drop);
		s->win_len -= drop;
		s->win_base = s->pos;
	}
	while (!s->eof && s->win_base + s->win_len < upto) {
		ssize_t n;

		if (s->win_len == s->win_cap) {
			/* grow with the data that actually arrives, not with what a (maybe
			 * damaged) header announces */
			uint64_t want = upto - s->win_base;
			size_t nc = s->win_cap ? 2 * s->win_cap : READ_CHUNK;
			uint8_t *nw;

			if (nc > want)
				nc = want > READ_CHUNK ? (size_t)want : READ_CHUNK;
			nw = realloc(s->win, nc);
			if (!nw)
				return -PMT_ENOMEM;
			s->win = nw;
			s->win_cap = nc;
		}
		n = read(s->fd, s->win + s->win_len, s->win_cap - s->win_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			pmt_error("perf.data: read error on the input: %s", strerror(errno));
			return -PMT_EIO;
		}
		if (n == 0)
			s->eof = true;
		s->win_len += (size_t)n;
	}
	return s->win_base + s->win_len >= upto ? 0 : -PMT_ENEED_MORE;
}

static int stream_next(struct pmt_source *s, struct pmt_trace_event *ev)
{
	for (;;) {
		const uint8_t *r;
		uint32_t type, size;
		uint64_t payload = 0;
		int rc;

		if (s->in_comp) {
			rc = comp_next(s, ev);
			if (rc != -PMT_EEOS)
				return rc;
		}
		if (s->done)
			return -PMT_EEOS;
		s->cur_off = s->pos;
		rc = fill(s, s->pos + 8);
		if (rc < 0) {
			s->done = true;
			if (rc != -PMT_ENEED_MORE)
				return rc;
			if (s->win_base + s->win_len == s->pos)
				return -PMT_EEOS;
			pmt_error("perf.data: truncated record header at 0x%llx",
				  (unsigned long long)s->pos);
			return rc;
		}
		r = s->win + (s->pos - s->win_base);
		type = rd32(s, r);
		size = rd16(s, r + 6);
		if (size < 8) {
			s->done = true;
			pmt_error("perf.data: record at 0x%llx has size %u; a pipe cannot be searched "
				  "for the next record, stopping", (unsigned long long)s->pos, size);
			return -PMT_ECORRUPT;
		}
		if (type == PMT_REC_AUXTRACE && size >= 48) {
			rc = fill(s, s->pos + 16);
			payload = rc < 0 ? 0 : rd64(s, s->win + (s->pos - s->win_base) + 8);
			if (payload > STREAM_RECORD_MAX) {
				s->done = true;
				pmt_error("perf.data: AUXTRACE at 0x%llx announces %llu bytes; stopping",
					  (unsigned long long)s->pos, (unsigned long long)payload);
				return -PMT_ECORRUPT;
			}
		}
		rc = fill(s, s->pos + size + payload);
		if (rc < 0 && rc != -PMT_ENEED_MORE) {
			s->done = true;
			return rc;
		}
		/* the window may have moved */
		rc = take_record(s, s->win + (s->pos - s->win_base),
				 s->win_base + s->win_len - s->pos, ev);
		if (rc != 1)
			return rc;
	}
}

/* ---- open ------------------------------------------------------------------------------- */
/* One record of the metadata scan: returns 1 at the first data record, 0 to go on, < 0. */
static int prescan_record(struct pmt_source *s, const uint8_t *r, uint32_t size, uint64_t pos)
{
	uint32_t type = rd32(s, r);
	int rc;

	switch (type) {
	case PMT_REC_HEADER_ATTR: {
		uint32_t asz;

		if (size < 8 + PMT_ATTR_SIZE_VER0) {
			pmt_error("perf.data: HEADER_ATTR at 0x%llx: record size %u",
				  (unsigned long long)pos, size);
			return -PMT_ECORRUPT;
		}
		asz = rd32(s, r + 8 + PMT_ATTR_SIZE);
		if (asz == 0)
			asz = PMT_ATTR_SIZE_VER0;
		if (asz < PMT_ATTR_SIZE_VER0 || asz > size - 8u) {
			pmt_error("perf.data: HEADER_ATTR at 0x%llx: attr size %u",
				  (unsigned long long)pos, asz);
			return -PMT_ECORRUPT;
		}
		rc = add_attr(s, r + 8, asz, r + 8 + asz, (size - 8 - asz) / 8);
		if (rc < 0)
			return rc;
		break;
	}
	case PMT_REC_HEADER_FEATURE:
		if (size >= 16) {
			uint64_t f = rd64(s, r + 8);

			attrs_done(s);
			if (f < PMT_FEAT_BITS)
				parse_feature(s, (unsigned)f, r + 16, size - 16);
		}
		break;
	case PMT_REC_AUXTRACE_INFO:
		parse_auxtrace_info(s, r, size, pos);
		break;
	case PMT_REC_TIME_CONV:
		parse_time_conv(s, r, size);
		break;
	case PMT_REC_AUXTRACE:
		if (size >= 48)
			s->max_aux_cpu = rd32(s, r + 40) < PMT_MAX_CPUS ? rd32(s, r + 40) : 0;
		return 1;
	default:
		if (type < PMT_REC_HEADER_ATTR || type == PMT_REC_COMPRESSED ||
		    type == PMT_REC_COMPRESSED2)
			return 1;
	}
	return 0;
}

/* Gather the metadata perf keeps in records (pipe-mode attrs and features, AUXTRACE_INFO,
 * TIME_CONV) from the records before the first data record. A pipe keeps them in the
 * window (nothing is delivered yet), so they are still returned as events afterwards. */
static int prescan(struct pmt_source *s)
{
	uint64_t pos = s->data_start;

	for (;;) {
		const uint8_t *r;
		uint32_t size;
		int rc;

		if (s->stream) {
			if (fill(s, pos + 8) < 0)
				return 0;
			size = rd16(s, s->win + (pos - s->win_base) + 6);
			if (size < 8 || fill(s, pos + size) < 0)
				return 0;
			r = s->win + (pos - s->win_base);
		} else {
			if (pos + 8 > s->data_end)
				return 0;
			r = s->buf + pos;
			size = rd16(s, r + 6);
			if (size < 8 || size > s->data_end - pos)
				return 0;
		}
		rc = prescan_record(s, r, size, pos);
		if (rc)
			return rc < 0 ? rc : 0;
		pos += size;
	}
}

static int read_file_header(struct pmt_source *s, uint64_t *err_off)
{
	const uint8_t *h = s->buf;
	uint64_t hsize = rd64(s, h + 8), attr_size, aoff, asz, doff, dsz;

	if (hsize > PMT_PERF_FILE_HEADER_SIZE) {
		pmt_error("perf.data: header size %llu is newer than this build knows (104)",
			  (unsigned long long)hsize);
		*err_off = 8;
		return -PMT_EVERSION;
	}
	if (hsize != PMT_PERF_FILE_HEADER_SIZE && hsize != PMT_PERF_FILE_HEADER_SIZE - 32) {
		pmt_error("perf.data: bad header size %llu", (unsigned long long)hsize);
		*err_off = 8;
		return -PMT_ECORRUPT;
	}
	if (s->size < hsize) {
		pmt_error("perf.data: file of %zu bytes ends inside the header", s->size);
		*err_off = s->size;
		return -PMT_ENEED_MORE;
	}
	attr_size = rd64(s, h + 16);
	aoff = rd64(s, h + 24);
	asz = rd64(s, h + 32);
	doff = rd64(s, h + 40);
	dsz = rd64(s, h + 48);
	if (attr_size < PMT_ATTR_SIZE_VER0 + 16 || attr_size > 4096 + 16) {
		pmt_error("perf.data: attr_size %llu is not plausible", (unsigned long long)attr_size);
		*err_off = 16;
		return -PMT_ECORRUPT;
	}
	if (aoff > s->size || asz > s->size - aoff || asz % attr_size) {
		pmt_error("perf.data: attrs section {0x%llx, %llu} is outside the file or not a "
			  "multiple of attr_size %llu", (unsigned long long)aoff,
			  (unsigned long long)asz, (unsigned long long)attr_size);
		*err_off = 24;
		return -PMT_ECORRUPT;
	}
	if (doff > s->size) {
		pmt_error("perf.data: data section offset 0x%llx beyond the file (%zu bytes)",
			  (unsigned long long)doff, s->size);
		*err_off = 40;
		return -PMT_ECORRUPT;
	}
	for (uint64_t i = 0; i < asz / attr_size; i++) {
		const uint8_t *e = s->buf + aoff + i * attr_size;
		uint64_t ioff = rd64(s, e + attr_size - 16), isz = rd64(s, e + attr_size - 8);
		int rc;

		if (ioff > s->size || isz > s->size - ioff || isz % 8) {
			pmt_error("perf.data: ids of attr %llu at {0x%llx, %llu} outside the file",
				  (unsigned long long)i, (unsigned long long)ioff,
				  (unsigned long long)isz);
			*err_off = aoff + i * attr_size;
			return -PMT_ECORRUPT;
		}
		rc = add_attr(s, e, attr_size - 16, s->buf + ioff, isz / 8);
		if (rc < 0)
			return rc;
	}
	attrs_done(s); /* EVENT_DESC below looks attrs up by id */
	s->data_start = doff;
	if (dsz > s->size - doff) {
		pmt_warn("perf.data: data section ends at 0x%llx, beyond the file (%zu bytes); "
			 "reading what is there", (unsigned long long)(doff + dsz), s->size);
		s->data_end = s->size;
	} else {
		s->data_end = doff + dsz;
	}
	if (hsize == PMT_PERF_FILE_HEADER_SIZE && dsz <= s->size - doff) {
		uint64_t tab = doff + dsz, nfeat = 0;

		for (unsigned w = 0; w < 4; w++)
			nfeat += (uint64_t)__builtin_popcountll(rd64(s, h + 72 + 8 * w));
		if (nfeat * 16 > s->size - tab) {
			if (nfeat)
				pmt_warn("perf.data: feature table at 0x%llx is truncated; features "
					 "ignored", (unsigned long long)tab);
		} else {
			uint64_t k = 0;

			for (unsigned f = 0; f < PMT_FEAT_BITS; f++) {
				uint64_t fo, fs;

				if (!(rd64(s, h + 72 + 8 * (f / 64)) & (1ULL << (f % 64))))
					continue;
				fo = rd64(s, s->buf + tab + 16 * k);
				fs = rd64(s, s->buf + tab + 16 * k + 8);
				k++;
				if (fo > s->size || fs > s->size - fo) {
					pmt_warn("perf.data: feature %u section outside the file", f);
					continue;
				}
				parse_feature(s, f, s->buf + fo, (size_t)fs);
			}
		}
	}
	return 0;
}

static int map_fd(struct pmt_source *s, int fd, size_t size)
{
	void *p = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;

	if (!size) {
		s->buf = (const uint8_t *)"";
		s->size = 0;
		return 0;
	}
	if (p == MAP_FAILED) {
		pmt_error("cannot map the input: %s", strerror(errno));
		return -PMT_EIO;
	}
	s->map.data = p;
	s->map.size = size;
	s->map.mapped = 1;
	s->own_map = 1;
	s->buf = p;
	s->size = size;
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -PMT_EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* A file-mode perf.data on a pipe: its attrs and features follow the data, so copy the
 * stream to an unlinked temporary file and map that (the disk, not memory, holds it). */
static int spool(struct pmt_source *s)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	struct stat st;
	int fd, rc = 0;

	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/pmutrace-spool-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		pmt_error("file-mode perf.data on a pipe must be copied to seek in it, but %s: %s; "
			  "pass the file name or write it with `convert --pipe`", path,
			  strerror(errno));
		return -PMT_EIO;
	}
	unlink(path);
	for (;;) {
		rc = write_all(fd, s->win, s->win_len);
		if (rc < 0 || s->eof)
			break;
		s->win_base += s->win_len;
		s->win_len = 0;
		s->pos = s->win_base;
		rc = fill(s, s->win_base + 1);
		if (rc == -PMT_ENEED_MORE)
			rc = 0;
		if (rc < 0)
			break;
	}
	if (rc < 0 || fstat(fd, &st) < 0) {
		pmt_error("copying the file-mode perf.data from the pipe to %s failed", dir);
		close(fd);
		return -PMT_EIO;
	}
	free(s->win);
	s->win = NULL;
	s->win_cap = s->win_len = 0;
	s->win_base = s->pos = 0;
	s->stream = false;
	rc = map_fd(s, fd, (size_t)st.st_size);
	close(fd);
	return rc;
}

static int source_init(struct pmt_source *s, uint64_t *err_off)
{
	uint64_t magic;
	int rc;

	if (s->size < 16) {
		pmt_error("not a perf.data file: %zu bytes", s->size);
		*err_off = 0;
		return -PMT_EFORMAT;
	}
	memcpy(&magic, s->buf, 8);
	if (magic == __builtin_bswap64(PMT_PERF_MAGIC2)) {
		s->swap = true;
	} else if (magic != PMT_PERF_MAGIC2) {
		if (!memcmp(s->buf, "PERFFILE", 8)) {
			pmt_error("perf.data: version 1 format (PERFFILE) is not supported");
			*err_off = 0;
			return -PMT_EVERSION;
		}
		pmt_error("not a perf.data file (bad magic)");
		*err_off = 0;
		return -PMT_EFORMAT;
	}
	s->meta.swapped = s->swap;
	if (rd64(s, s->buf + 8) == PMT_PERF_PIPE_HEADER_SIZE) {
		s->meta.pipe_mode = 1;
		s->data_start = PMT_PERF_PIPE_HEADER_SIZE;
		s->data_end = s->stream ? UINT64_MAX : s->size;
	} else if (s->stream) {
		rc = spool(s);
		if (rc < 0) {
			*err_off = 0;
			return rc;
		}
		return source_init(s, err_off);
	} else {
		rc = read_file_header(s, err_off);
		if (rc < 0)
			return rc;
	}
	s->pos = s->data_start;
	rc = prescan(s);
	if (rc < 0) {
		*err_off = s->data_start;
		return rc;
	}
	attrs_done(s);
	return fill_cpu_midr(s);
}

static int open_common(struct pmt_source *s, struct pmt_source **out, uint64_t *err_offset)
{
	uint64_t dummy;
	int rc;

	s->keep_from = UINT64_MAX;
	rc = source_init(s, err_offset ? err_offset : &dummy);
	if (rc < 0) {
		pmt_source_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

int pmt_source_open_mem(const void *buf, size_t len, struct pmt_source **out,
			uint64_t *err_offset)
{
	struct pmt_source *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (err_offset)
		*err_offset = 0;
	if (!s)
		return -PMT_ENOMEM;
	s->buf = buf;
	s->size = len;
	return open_common(s, out, err_offset);
}

int pmt_source_open(const char *path, struct pmt_source **out, uint64_t *err_offset)
{
	struct pmt_source *s = calloc(1, sizeof(*s));
	bool is_stdin = !strcmp(path, "-");
	struct stat st;
	int fd, rc;

	*out = NULL;
	if (err_offset)
		*err_offset = 0;
	if (!s)
		return -PMT_ENOMEM;
	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0 && !is_stdin)
			close(fd);
		free(s);
		return -PMT_EIO;
	}
	if (S_ISREG(st.st_mode)) {
		rc = map_fd(s, fd, (size_t)st.st_size);
		if (!is_stdin)
			close(fd);
		if (rc < 0) {
			free(s);
			return rc;
		}
		return open_common(s, out, err_offset);
	}
	s->stream = true;
	s->meta.streamed = 1;
	s->fd = fd;
	s->own_fd = !is_stdin;
	rc = fill(s, 16);
	if (rc < 0 && rc != -PMT_ENEED_MORE) {
		pmt_source_close(s);
		return rc;
	}
	s->buf = s->win ? s->win : (const uint8_t *)"";
	s->size = s->win_len;
	return open_common(s, out, err_offset);
}

const struct pmt_trace_meta *pmt_source_meta(const struct pmt_source *s) { return &s->meta; }

void pmt_source_keep_from(struct pmt_source *s, uint64_t file_offset)
{
	if (s)
		s->keep_from = file_offset;
}

uint64_t pmt_source_offset(const struct pmt_source *s) { return s->cur_off; }

void pmt_source_close(struct pmt_source *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nr_attrs; i++) {
		free(s->attrs[i].ids);
		free((char *)s->attrs[i].name);
	}
	free(s->attrs);
	free(s->ids);
	free(s->cpu_midr);
	free(s->cpu_event_filter);
	free((char *)s->meta.cpuid);
	free((char *)s->meta.hostname);
	free((char *)s->meta.osrelease);
	free((char *)s->meta.version);
	free((char *)s->meta.arch);
	free((char *)s->meta.cmdline);
	free((char *)s->meta.pmu_mappings);
	ZSTD_freeDCtx(s->dctx);
	free(s->dbuf);
	free(s->win);
	if (s->own_fd)
		close(s->fd);
	if (s->own_map)
		pmt_file_unmap(&s->map);
	free(s);
}
