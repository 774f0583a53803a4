/* perf.data header features (HEADER_CPUID, CMDLINE, PMU_MAPPINGS, EVENT_DESC, AUXTRACE,
 * ...) into the trace metadata. */
#include "source_priv.h"

/* ---- features ------------------------------------------------------------------------- */
/* Features are metadata, read once: every field goes through the bounds-checked cursor, so
 * a length that lies stops the parse instead of reading past the section. The cursor reads
 * little-endian and swaps on request: the other byte order than this (little-endian) host's
 * is the file's being swapped. */
static void feat_cursor(const struct pmt_source *s, struct pmt_cursor *c, const uint8_t *p,
			size_t len)
{
	pmt_cursor_init(c, p, len, s->swap ^ (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__));
}

/* perf string: u32 len; char[len] (NUL padded). 0 or < 0. */
static int get_str(struct pmt_cursor *c, char **out)
{
	uint32_t n;

	if (pmt_cursor_u32(c, &n) < 0 || n > pmt_cursor_left(c))
		return -PMT_ECORRUPT;
	*out = strndup((const char *)c->buf + c->pos, n);
	if (!*out)
		return -PMT_ENOMEM;
	c->pos += n;
	return 0;
}

static void set_str(const char **slot, char *v)
{
	free((char *)*slot);
	*slot = v;
}

/* "a b c" from CMDLINE's u32 nr; string[nr] */
static int parse_cmdline(struct pmt_source *s, const uint8_t *p, size_t len)
{
	struct pmt_cursor c;
	struct pmt_buf b = { 0 };
	uint32_t nr;
	int rc = 0;

	feat_cursor(s, &c, p, len);
	if (pmt_cursor_u32(&c, &nr) < 0)
		return -PMT_ECORRUPT;
	for (uint32_t i = 0; i < nr && rc >= 0; i++) {
		char *arg;

		rc = get_str(&c, &arg);
		if (rc < 0)
			break;
		if ((i && pmt_buf_append(&b, " ", 1) < 0) ||
		    pmt_buf_append(&b, arg, strlen(arg)) < 0)
			rc = -PMT_ENOMEM;
		free(arg);
	}
	if (rc >= 0 && pmt_buf_append(&b, "", 1) < 0)
		rc = -PMT_ENOMEM;
	if (rc < 0) {
		pmt_buf_fini(&b);
		return rc;
	}
	set_str(&s->meta.cmdline, (char *)b.data);
	return 0;
}

/* "0-1;2-3", the nodes' CPU lists in order, from NUMA_TOPOLOGY's u32 nr; {u32 node;
 * u64 mem_total, mem_free; string cpus}[nr] */
static int parse_numa(struct pmt_source *s, const uint8_t *p, size_t len)
{
	struct pmt_cursor c;
	struct pmt_buf b = { 0 };
	uint32_t nr;
	int rc = 0;

	feat_cursor(s, &c, p, len);
	if (pmt_cursor_u32(&c, &nr) < 0 || nr > pmt_cursor_left(&c) / 24)
		return -PMT_ECORRUPT;
	for (uint32_t i = 0; i < nr && rc >= 0; i++) {
		char *cpus;

		if (pmt_cursor_skip(&c, 20) < 0 || (rc = get_str(&c, &cpus)) < 0) {
			rc = rc < 0 ? rc : -PMT_ECORRUPT;
			break;
		}
		if ((i && pmt_buf_append(&b, ";", 1) < 0) ||
		    pmt_buf_append(&b, cpus, strlen(cpus)) < 0)
			rc = -PMT_ENOMEM;
		free(cpus);
	}
	if (rc >= 0 && pmt_buf_append(&b, "", 1) < 0)
		rc = -PMT_ENOMEM;
	if (rc < 0) {
		pmt_buf_fini(&b);
		return rc;
	}
	set_str(&s->meta.numa_nodes, (char *)b.data);
	return 0;
}

/* "type:name,..." from PMU_MAPPINGS' u32 nr; {u32 type; string name}[nr] */
static int parse_pmu_mappings(struct pmt_source *s, const uint8_t *p, size_t len)
{
	struct pmt_cursor c;
	struct pmt_buf b = { 0 };
	uint32_t nr;
	char num[16];
	int rc = 0;

	feat_cursor(s, &c, p, len);
	if (pmt_cursor_u32(&c, &nr) < 0)
		return -PMT_ECORRUPT;
	for (uint32_t i = 0; i < nr && rc >= 0; i++) {
		uint32_t type;
		char *name;

		if (pmt_cursor_u32(&c, &type) < 0) {
			rc = -PMT_ECORRUPT;
			break;
		}
		rc = get_str(&c, &name);
		if (rc < 0)
			break;
		snprintf(num, sizeof(num), "%u:", type);
		if ((i && pmt_buf_append(&b, ",", 1) < 0) || pmt_buf_append(&b, num, strlen(num)) < 0 ||
		    pmt_buf_append(&b, name, strlen(name)) < 0)
			rc = -PMT_ENOMEM;
		free(name);
	}
	if (rc >= 0 && pmt_buf_append(&b, "", 1) < 0)
		rc = -PMT_ENOMEM;
	if (rc < 0) {
		pmt_buf_fini(&b);
		return rc;
	}
	set_str(&s->meta.pmu_mappings, (char *)b.data);
	return 0;
}

/* EVENT_DESC: u32 nr, u32 attr_size; per event: attr, u32 nr_ids, string name, u64 ids[]. */
static int parse_event_desc(struct pmt_source *s, const uint8_t *p, size_t len)
{
	struct pmt_cursor c;
	uint32_t nr, asz;

	feat_cursor(s, &c, p, len);
	if (pmt_cursor_u32(&c, &nr) < 0 || pmt_cursor_u32(&c, &asz) < 0)
		return -PMT_ECORRUPT;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nids;
		uint64_t id = 0;
		char *name;
		int rc;
		struct pmt_trace_attr *a = NULL;

		if (pmt_cursor_skip(&c, asz) < 0 || pmt_cursor_u32(&c, &nids) < 0)
			return -PMT_ECORRUPT;
		rc = get_str(&c, &name);
		if (rc < 0)
			return rc;
		if (pmt_cursor_left(&c) / 8 < nids) {
			free(name);
			return -PMT_ECORRUPT;
		}
		if (nids) {
			pmt_cursor_u64(&c, &id);
			a = pd_attr_by_id(s, id);
			pmt_cursor_skip(&c, ((size_t)nids - 1) * 8);
		} else if (i < s->nr_attrs) {
			a = &s->attrs[i];
		}
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
	struct pmt_cursor c;
	uint64_t nr, bad = 0, first_bad = 0;

	feat_cursor(s, &c, p, len);
	if (pmt_cursor_u64(&c, &nr) < 0 || nr > pmt_cursor_left(&c) / 16)
		return -PMT_ECORRUPT;
	s->meta.has_auxtrace_index = 1;
	s->meta.nr_auxtrace_index = nr;
	if (s->meta.pipe_mode)
		return 0; /* offsets of a file we do not have */
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t off, size;

		pmt_cursor_u64(&c, &off);
		pmt_cursor_u64(&c, &size);
		/* the record it names, in the mapped file: its type word */
		if (off < s->data_start || off > s->data_end || s->data_end - off < 48 ||
		    rd32(s, s->buf + off) != PMT_REC_AUXTRACE) {
			if (!bad++)
				first_bad = off;
		}
	}
	if (bad)
		src_warn(s, -PMT_ECORRUPT, first_bad, "%llu of %llu AUXTRACE index entries point at no AUXTRACE "
			 "record (first: 0x%llx); perf may refuse the file",
			 (unsigned long long)bad, (unsigned long long)nr,
			 (unsigned long long)first_bad);
	return 0;
}

/* HEADER_BUILD_ID: build_id_event records back to back (see the writer): {u32 type;
 * u16 misc, size; s32 pid; u8 build_id[20]; u8 size (MISC_BUILD_ID_SIZE); pad[3];
 * char filename[size - 36]} */
static int parse_build_ids(struct pmt_source *s, const uint8_t *p, size_t len)
{
	struct pmt_build_id_ent *v = NULL;
	struct pmt_cursor c;
	size_t n = 0;

	feat_cursor(s, &c, p, len);
	while (pmt_cursor_left(&c) >= 36) {
		size_t at = c.pos;
		uint16_t misc, size;
		uint32_t pid;
		uint8_t id[20], id_size;
		struct pmt_build_id_ent *e;
		const char *name;

		pmt_cursor_skip(&c, 4);
		pmt_cursor_u16(&c, &misc);
		pmt_cursor_u16(&c, &size);
		pmt_cursor_u32(&c, &pid);
		pmt_cursor_bytes(&c, id, sizeof(id));
		pmt_cursor_u8(&c, &id_size);
		if (size < 36 || size > len - at) {
			c.pos = at;
			break;
		}
		e = realloc(v, (n + 1) * sizeof(*v));
		if (!e) {
			free(v);
			return -PMT_ENOMEM;
		}
		v = e;
		e = &v[n];
		e->pid = (int32_t)pid;
		e->cpumode = misc & 7;
		memcpy(e->id, id, sizeof(id));
		/* PERF_RECORD_MISC_BUILD_ID_SIZE: the size byte is valid; else 20 */
		e->size = (misc & (1u << 15)) && id_size <= 20 ? id_size : 20;
		name = (const char *)p + at + 36;
		e->filename = strndup(name, strnlen(name, size - 36u));
		if (!e->filename) {
			c.pos = at;
			break;
		}
		n++;
		c.pos = at + size;
	}
	s->meta.build_ids = v;
	s->meta.nr_build_ids = (uint32_t)n;
	return c.pos == len || n ? 0 : -PMT_ECORRUPT;
}

static int get_lists(struct pmt_cursor *c, char ***out, uint32_t *nr)
{
	uint32_t n;
	int rc = 0;

	/* a list is at least its u32 length: a count beyond that lies */
	if (pmt_cursor_u32(c, &n) < 0 || n > pmt_cursor_left(c) / 4)
		return -PMT_ECORRUPT;
	*out = calloc((size_t)n + 1, sizeof(char *));
	if (!*out)
		return -PMT_ENOMEM;
	for (*nr = 0; *nr < n && rc >= 0; ++*nr)
		rc = get_str(c, &(*out)[*nr]);
	if (rc < 0)
		--*nr;
	return rc;
}

static int get_ids(struct pmt_cursor *c, int32_t *v, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++)
		if (pmt_cursor_u32(c, (uint32_t *)&v[i]) < 0)
			return -PMT_ECORRUPT;
	return 0;
}

/* HEADER_CPU_TOPOLOGY as perf's process_cpu_topology() reads it: the lists, then (perf
 * >= 4.x) core and socket id per CPU of NRCPUS' available count, then (perf >= 5.3) the
 * die lists and ids; each later part may be missing */
static int parse_cpu_topology(struct pmt_source *s, const uint8_t *p, size_t len)
{
	struct pmt_cpu_topology *t = &s->topology;
	struct pmt_cursor c;
	uint32_t n = s->meta.nr_cpus_avail;
	int rc;

	pmt_cpu_topology_fini(t);
	s->meta.topology = NULL;
	feat_cursor(s, &c, p, len);
	rc = get_lists(&c, &t->packages, &t->nr_packages);
	if (rc >= 0)
		rc = get_lists(&c, &t->cores, &t->nr_cores);
	if (rc >= 0 && pmt_cursor_left(&c)) {
		/* the ids are read by NRCPUS' count, which comes first in feature order */
		if (!n || n > pmt_cursor_left(&c) / 8)
			rc = -PMT_ECORRUPT;
		t->nr_cpus = n;
		t->core_id = rc >= 0 ? calloc(n, sizeof(int32_t)) : NULL;
		t->socket_id = rc >= 0 ? calloc(n, sizeof(int32_t)) : NULL;
		if (rc >= 0 && (!t->core_id || !t->socket_id))
			rc = -PMT_ENOMEM;
		for (uint32_t i = 0; rc >= 0 && i < n; i++)
			if (pmt_cursor_u32(&c, (uint32_t *)&t->core_id[i]) < 0 ||
			    pmt_cursor_u32(&c, (uint32_t *)&t->socket_id[i]) < 0)
				rc = -PMT_ECORRUPT;
	}
	if (rc >= 0 && t->nr_cpus && pmt_cursor_left(&c)) {
		rc = get_lists(&c, &t->dies, &t->nr_dies);
		t->die_id = rc >= 0 ? calloc(n, sizeof(int32_t)) : NULL;
		if (rc >= 0)
			rc = t->die_id ? get_ids(&c, t->die_id, n) : -PMT_ENOMEM;
	}
	if (rc < 0) {
		pmt_cpu_topology_fini(t);
		return rc;
	}
	s->meta.topology = t;
	return 0;
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
	struct pmt_cursor c;
	char *str;
	int rc = 0;

	feat_cursor(s, &c, p, len);
	switch (feat) {
	case PMT_FEAT_HOSTNAME: case PMT_FEAT_OSRELEASE: case PMT_FEAT_VERSION: case PMT_FEAT_ARCH:
	case PMT_FEAT_CPUID:
		rc = get_str(&c, &str);
		if (rc < 0)
			break;
		set_str(feat == PMT_FEAT_HOSTNAME ? &s->meta.hostname :
			feat == PMT_FEAT_OSRELEASE ? &s->meta.osrelease :
			feat == PMT_FEAT_VERSION ? &s->meta.version :
			feat == PMT_FEAT_ARCH ? &s->meta.arch : &s->meta.cpuid, str);
		break;
	case PMT_FEAT_NRCPUS:
		if (pmt_cursor_left(&c) < 8)
			return -PMT_ECORRUPT;
		pmt_cursor_u32(&c, &s->meta.nr_cpus_avail);
		pmt_cursor_u32(&c, &s->meta.nr_cpus_online);
		break;
	case PMT_FEAT_CPU_TOPOLOGY:
		rc = parse_cpu_topology(s, p, len);
		break;
	case PMT_FEAT_CMDLINE:
		rc = parse_cmdline(s, p, len);
		break;
	case PMT_FEAT_NUMA_TOPOLOGY:
		rc = parse_numa(s, p, len);
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
		if (pmt_cursor_left(&c) < 20)
			return -PMT_ECORRUPT;
		pmt_cursor_skip(&c, 4);
		pmt_cursor_u32(&c, &s->meta.comp_type);
		pmt_cursor_u32(&c, &s->meta.comp_level);
		pmt_cursor_skip(&c, 4);
		pmt_cursor_u32(&c, &s->meta.comp_mmap_len);
		/* perf stat record writes the feature with PERF_COMP_NONE (0) */
		if (s->meta.comp_type > 1)
			src_warn(s, -PMT_EUNSUPPORTED, PMT_DIAG_NO_OFFSET, "compression type %u is not zstd", s->meta.comp_type);
		break;
	case PMT_FEAT_CLOCKID:
		if (pmt_cursor_u64(&c, &s->meta.clock_res_ns) < 0)
			rc = -PMT_ECORRUPT;
		break;
	case PMT_FEAT_CLOCK_DATA: {
		/* {u32 version (1), clockid; u64 tod_ns, clockid_ns}: perf takes nothing from
		 * another version (process_clock_data) */
		uint32_t version;

		if (pmt_cursor_left(&c) < 24 || (pmt_cursor_u32(&c, &version), version != 1)) {
			rc = -PMT_ECORRUPT; /* warned below, naming the offset */
			break;
		}
		pmt_cursor_u32(&c, &s->meta.clock_clockid);
		pmt_cursor_u64(&c, &s->meta.clock_tod_ns);
		pmt_cursor_u64(&c, &s->meta.clock_ref_ns);
		s->meta.has_clock_data = 1;
		break;
	}
	default:
		break;
	}
	if (rc < 0) {
		const char *name = feat < sizeof(feature_names) / sizeof(feature_names[0])
					   ? feature_names[feat] : "unknown";

		/* a file-mode section lies in the mapped file; a pipe's is in a record */
		if (!s->stream && p >= s->buf && p < s->buf + s->size)
			src_warn(s, rc, (uint64_t)(p - s->buf), "offset 0x%llx: feature %u (HEADER_%s, %zu bytes) is malformed "
				 "(%s); ignored", (unsigned long long)(p - s->buf), feat, name, len,
				 pmt_errstr(rc));
		else
			src_warn(s, rc, PMT_DIAG_NO_OFFSET, "feature %u (HEADER_%s, %zu bytes) is malformed (%s); ignored",
				 feat, name, len, pmt_errstr(rc));
	}
	return rc;
}
