/* perf.data header features (HEADER_CPUID, CMDLINE, PMU_MAPPINGS, EVENT_DESC, AUXTRACE,
 * ...) into the trace metadata. */
#include "source_priv.h"

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
			a = pd_attr_by_id(s, rd64(s, p + off));
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
		src_warn(s, "%llu of %llu AUXTRACE index entries point at no AUXTRACE "
			 "record (first: 0x%llx); perf may refuse the file",
			 (unsigned long long)bad, (unsigned long long)nr,
			 (unsigned long long)first_bad);
	return 0;
}

/* HEADER_BUILD_ID: build_id_event records back to back (see the writer) */
static int parse_build_ids(struct pmt_source *s, const uint8_t *p, size_t len)
{
	struct pmt_build_id_ent *v = NULL;
	size_t n = 0, off = 0;

	while (off + 36 <= len) {
		uint16_t misc = rd16(s, p + off + 4), size = rd16(s, p + off + 6);
		struct pmt_build_id_ent *e;
		const uint8_t *name = p + off + 36;
		size_t nl;

		if (size < 36 || size > len - off)
			break;
		e = realloc(v, (n + 1) * sizeof(*v));
		if (!e) {
			free(v);
			return -PMT_ENOMEM;
		}
		v = e;
		e = &v[n];
		e->pid = (int32_t)rd32(s, p + off + 8);
		e->cpumode = misc & 7;
		memcpy(e->id, p + off + 12, 20);
		/* PERF_RECORD_MISC_BUILD_ID_SIZE: the size byte is valid; else 20 */
		e->size = (misc & (1u << 15)) && p[off + 32] <= 20 ? p[off + 32] : 20;
		nl = strnlen((const char *)name, size - 36);
		e->filename = strndup((const char *)name, nl);
		if (!e->filename)
			break;
		n++;
		off += size;
	}
	s->meta.build_ids = v;
	s->meta.nr_build_ids = (uint32_t)n;
	return off == len || n ? 0 : -PMT_ECORRUPT;
}

/* perf's HEADER_* names (util/header.h), so a message says which feature is bad */
static const char *const feature_names[] = {
	"RESERVED", "TRACING_DATA", "BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION", "ARCH",
	"NRCPUS", "CPUDESC", "CPUID", "TOTAL_MEM", "CMDLINE", "EVENT_DESC", "CPU_TOPOLOGY",
	"NUMA_TOPOLOGY", "BRANCH_STACK", "PMU_MAPPINGS", "GROUP_DESC", "AUXTRACE", "STAT",
	"CACHE", "SAMPLE_TIME", "MEM_TOPOLOGY", "CLOCKID", "DIR_FORMAT", "BPF_PROG_INFO",
	"BPF_BTF", "COMPRESSED", "CPU_PMU_CAPS", "CLOCK_DATA", "HYBRID_TOPOLOGY", "PMU_CAPS",
};

int pd_parse_feature(struct pmt_source *s, unsigned feat, const uint8_t *p, size_t len)
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
	case PMT_FEAT_BUILD_ID:
		if (!s->meta.build_ids)
			rc = parse_build_ids(s, p, len);
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
		/* perf stat record writes the feature with PERF_COMP_NONE (0) */
		if (s->meta.comp_type > 1)
			src_warn(s, "compression type %u is not zstd", s->meta.comp_type);
		break;
	default:
		break;
	}
	if (rc < 0) {
		const char *name = feat < sizeof(feature_names) / sizeof(feature_names[0])
					   ? feature_names[feat] : "unknown";

		/* a file-mode section lies in the mapped file; a pipe's is in a record */
		if (!s->stream && p >= s->buf && p < s->buf + s->size)
			src_warn(s, "offset 0x%llx: feature %u (HEADER_%s, %zu bytes) is malformed "
				 "(%s); ignored", (unsigned long long)(p - s->buf), feat, name, len,
				 pmt_errstr(rc));
		else
			src_warn(s, "feature %u (HEADER_%s, %zu bytes) is malformed (%s); ignored",
				 feat, name, len, pmt_errstr(rc));
	}
	return rc;
}
