/* perf.data writer: file mode (seek back to finish the header) and pipe mode, host or
 * swapped byte order. Each record is built in one scratch buffer and written with one
 * fwrite, so nothing is allocated per record once the buffer has grown. */
#include "writer_priv.h"

void pdw_emit(struct pmt_perf_writer *w, const void *p, size_t n)
{
	if (w->err || !n)
		return;
	if (fwrite(p, 1, n, w->fp) != n)
		w->err = -PMT_EIO;
	w->off += n;
}

/* Patch the size into the record header. */
int pdw_seal_rec(struct pmt_perf_writer *w)
{
	uint16_t sz;

	if (w->err)
		return w->err;
	if (w->rec.len > 0xfff8 || w->rec.len % 8)
		return -PMT_ERANGE;
	sz = (uint16_t)w->rec.len;
	if (w->swap)
		sz = pd_bswap16(sz);
	memcpy(w->rec.data + 6, &sz, 2);
	return 0;
}

/* Patch the size into the record header and write it. */
int pdw_end_rec(struct pmt_perf_writer *w)
{
	PMT_FORWARD_IF_ERROR(pdw_seal_rec(w));
	pdw_emit(w, w->rec.data, w->rec.len);
	return w->err;
}

static uint32_t out_attr_size(const struct pmt_perf_writer *w)
{
	/* 128 (VER7) is what perf 6.1 knows; only grow to 136 when config3 is used */
	for (uint32_t i = 0; i < w->nr_attrs; i++)
		for (int b = 128; b < PMT_ATTR_SIZE_MAX; b++)
			if (w->attrs[i].attr[b])
				return PMT_ATTR_SIZE_MAX;
	return 128;
}

static void put_attr(struct pmt_perf_writer *w, const struct wattr *a, uint32_t size)
{
	uint8_t tmp[PMT_ATTR_SIZE_MAX];

	memcpy(tmp, a->attr, sizeof(tmp));
	memcpy(tmp + PMT_ATTR_SIZE, &size, 4);
	if (w->swap)
		pd_attr_swap(tmp, size);
	put(w, tmp, size);
}

/* Build one feature's payload in w->rec; returns false when the feature is not set. */
static bool build_feature(struct pmt_perf_writer *w, unsigned f)
{
	switch (f) {
	case PMT_FEAT_HOSTNAME:
		/* always present: perf finds the word size of a byte-swapped file's feature
		 * bitmap by looking for the HOSTNAME bit, and drops all features without it */
		put_fstr(w, w->str[f] ? w->str[f] : "unknown");
		return true;
	case PMT_FEAT_OSRELEASE: case PMT_FEAT_VERSION: case PMT_FEAT_ARCH:
	case PMT_FEAT_CPUDESC: case PMT_FEAT_CPUID:
		if (!w->str[f])
			return false;
		put_fstr(w, w->str[f]);
		return true;
	case PMT_FEAT_NRCPUS:
		if (!w->has_nrcpus)
			return false;
		put32(w, w->avail); /* perf writes nr_cpus_avail first */
		put32(w, w->online);
		return true;
	case PMT_FEAT_CPU_TOPOLOGY: {
		const struct pmt_cpu_topology *t = &w->topology;

		/* perf reads the per-CPU ids by NRCPUS' available count */
		if (!t->nr_cpus || !w->has_nrcpus || t->nr_cpus != w->avail)
			return false;
		put32(w, t->nr_packages);
		for (uint32_t i = 0; i < t->nr_packages; i++)
			put_fstr(w, t->packages[i]);
		put32(w, t->nr_cores);
		for (uint32_t i = 0; i < t->nr_cores; i++)
			put_fstr(w, t->cores[i]);
		for (uint32_t c = 0; c < t->nr_cpus; c++) {
			put32(w, (uint32_t)t->core_id[c]);
			put32(w, (uint32_t)t->socket_id[c]);
		}
		/* perf leaves the die part out when sysfs has no die lists */
		if (!t->nr_dies || !t->die_id)
			return true;
		put32(w, t->nr_dies);
		for (uint32_t i = 0; i < t->nr_dies; i++)
			put_fstr(w, t->dies[i]);
		for (uint32_t c = 0; c < t->nr_cpus; c++)
			put32(w, (uint32_t)t->die_id[c]);
		return true;
	}
	case PMT_FEAT_BUILD_ID:
		/* build_id_event: header {PERF_RECORD_HEADER_BUILD_ID, misc = cpumode |
		 * PERF_RECORD_MISC_BUILD_ID_SIZE}, pid, build_id[20], size, 3 reserved, the
		 * filename NUL-padded to 64 bytes (perf's NAME_ALIGN) */
		if (w->pipe || !w->nr_bids)
			return false;
		for (size_t i = 0; i < w->nr_bids; i++) {
			const struct pmt_build_id_ent *b = &w->bids[i];
			size_t fl = strlen(b->filename) + 1, pad = (fl + 63) / 64 * 64;
			uint8_t id[24] = { 0 };

			memcpy(id, b->id, b->size);
			id[20] = b->size;
			put32(w, 67);
			put16(w, (uint16_t)(b->cpumode | (1u << 15)));
			put16(w, (uint16_t)(8 + 4 + 24 + pad));
			put32(w, (uint32_t)b->pid);
			put(w, id, sizeof(id));
			put(w, b->filename, fl);
			put_zero(w, pad - fl);
		}
		return true;
	case PMT_FEAT_COMPRESSED:
		if (!w->has_comp)
			return false;
		put32(w, 0); /* version, as perf writes it */
		put32(w, 1); /* PERF_COMP_ZSTD */
		put32(w, w->comp_level);
		put32(w, w->comp_ratio);
		put32(w, w->comp_mmap_len);
		return true;
	case PMT_FEAT_CLOCKID:
		/* perf record -k: the clock's resolution (u64 ns), 0 when unknown */
		if (!w->has_clock)
			return false;
		put64(w, w->clock_res_ns);
		return true;
	case PMT_FEAT_CLOCK_DATA:
		/* {u32 version 1, clockid; u64 tod_ns, clockid_ns} (perf's write_clock_data) */
		if (!w->has_clock)
			return false;
		put32(w, 1);
		put32(w, w->clockid);
		put64(w, w->clock_tod_ns);
		put64(w, w->clock_ref_ns);
		return true;
	case PMT_FEAT_NUMA_TOPOLOGY: {
		const char *p = w->str[f];
		uint32_t nr = 1;

		if (!p)
			return false;
		for (const char *q = p; *q; q++)
			nr += *q == ';';
		put32(w, nr);
		for (uint32_t node = 0; node < nr; node++) {
			const char *end = strchr(p, ';');
			size_t n = end ? (size_t)(end - p) : strlen(p);
			char cpus[256];

			snprintf(cpus, sizeof(cpus), "%.*s", (int)n, p);
			put32(w, node);
			put64(w, 0); /* mem_total, mem_free: perf c2c reads only the CPUs */
			put64(w, 0);
			put_fstr(w, cpus);
			p += n + (end != NULL);
		}
		return true;
	}
	case PMT_FEAT_CMDLINE:
		if (!w->argv)
			return false;
		put32(w, (uint32_t)w->argc);
		for (int i = 0; i < w->argc; i++)
			put_fstr(w, w->argv[i]);
		return true;
	case PMT_FEAT_AUXTRACE:
		/* perf record's index of the AUXTRACE records: {u64 nr; {u64 offset, size}[nr]}
		 * with size = header.size (payload excluded). perf script only accepts -F
		 * fields the SPE attr lacks when this feature is present. Pipe mode has no
		 * offsets (perf never synthesizes it there). */
		if (w->pipe || !w->has_auxtrace)
			return false;
		put64(w, w->nr_aux);
		for (size_t i = 0; i < w->nr_aux; i++) {
			put64(w, w->aux_off[i]);
			put64(w, 48);
		}
		return true;
	case PMT_FEAT_EVENT_DESC: {
		uint32_t asz = out_attr_size(w);
		bool any = false;

		for (uint32_t i = 0; i < w->nr_attrs; i++)
			any |= w->attrs[i].name != NULL;
		if (!any)
			return false;
		put32(w, w->nr_attrs);
		put32(w, asz);
		for (uint32_t i = 0; i < w->nr_attrs; i++) {
			const struct wattr *a = &w->attrs[i];

			put_attr(w, a, asz);
			put32(w, a->nr_ids);
			put_fstr(w, a->name ? a->name : "");
			for (uint32_t k = 0; k < a->nr_ids; k++)
				put64(w, a->ids[k]);
		}
		return true;
	}
	default:
		return false;
	}
}

/* Pipe mode: attrs and features travel as records ahead of the data. */
/* The file header: where the attrs and the data are; data_size 0 and no features until
 * close (perf reads such a file to its end: "was the 'perf record' command properly
 * terminated?"), so a recording cut short keeps everything it wrote. */
static void put_file_header(struct pmt_perf_writer *w, uint64_t data_size, const uint64_t *bitmap)
{
	uint32_t asz = out_attr_size(w);

	w->rec.len = 0;
	put64(w, PMT_PERF_MAGIC2);
	put64(w, PMT_PERF_FILE_HEADER_SIZE);
	put64(w, asz + 16);
	put64(w, w->attrs_off);
	put64(w, (uint64_t)w->nr_attrs * (asz + 16));
	put64(w, w->data_off);
	put64(w, data_size);
	put64(w, 0);
	put64(w, 0);
	for (int i = 0; i < 4; i++)
		put64(w, bitmap ? bitmap[i] : 0);
}

static int rewrite_header(struct pmt_perf_writer *w, uint64_t data_size, const uint64_t *bitmap,
			  uint64_t resume_at)
{
	put_file_header(w, data_size, bitmap);
	if (!w->err && (fseek(w->fp, 0, SEEK_SET) ||
			fwrite(w->rec.data, 1, w->rec.len, w->fp) != w->rec.len ||
			fseek(w->fp, (long)resume_at, SEEK_SET)))
		w->err = -PMT_EIO;
	return w->err;
}

/* File mode, before the first record: the ids and the attrs section right after the
 * header, as perf record lays a file out, and a header that points at them. */
static int write_attrs(struct pmt_perf_writer *w)
{
	uint32_t asz = out_attr_size(w);

	for (uint32_t i = 0; i < w->nr_attrs; i++) {
		w->attrs[i].id_off = w->off;
		w->rec.len = 0;
		for (uint32_t k = 0; k < w->attrs[i].nr_ids; k++)
			put64(w, w->attrs[i].ids[k]);
		pdw_emit(w, w->rec.data, w->rec.len);
	}
	w->attrs_off = w->off;
	w->rec.len = 0;
	for (uint32_t i = 0; i < w->nr_attrs; i++) {
		put_attr(w, &w->attrs[i], asz);
		put64(w, w->attrs[i].id_off);
		put64(w, (uint64_t)w->attrs[i].nr_ids * 8);
	}
	pdw_emit(w, w->rec.data, w->rec.len);
	w->data_off = w->off;
	return rewrite_header(w, 0, NULL, w->off);
}

int pdw_start(struct pmt_perf_writer *w)
{
	if (w->started)
		return w->err;
	w->started = true;
	if (!w->pipe)
		return write_attrs(w);
	for (uint32_t i = 0; i < w->nr_attrs; i++) {
		put_hdr(w, PMT_REC_HEADER_ATTR, 0);
		put_attr(w, &w->attrs[i], out_attr_size(w));
		for (uint32_t k = 0; k < w->attrs[i].nr_ids; k++)
			put64(w, w->attrs[i].ids[k]);
		pdw_end_rec(w);
	}
	/* perf record's pipe mode names each event in an EVENT_UPDATE record: perf <= 6.x
	 * reads no EVENT_DESC from a pipe and would make up a name from the attr
	 * ("cpu-clock:HG") */
	for (uint32_t i = 0; i < w->nr_attrs; i++) {
		size_t nl;

		if (!w->attrs[i].name || !w->attrs[i].nr_ids)
			continue;
		nl = strlen(w->attrs[i].name) + 1;
		put_hdr(w, PMT_REC_EVENT_UPDATE, 0);
		put64(w, PMT_EVENT_UPDATE_NAME);
		put64(w, w->attrs[i].ids[0]);
		put(w, w->attrs[i].name, nl);
		put_zero(w, (8 - nl % 8) % 8);
		pdw_end_rec(w);
	}
	for (unsigned f = 0; f < PMT_FEAT_BITS; f++) {
		put_hdr(w, PMT_REC_HEADER_FEATURE, 0);
		put64(w, f);
		if (!build_feature(w, f))
			continue;
		put_zero(w, (8 - w->rec.len % 8) % 8);
		pdw_end_rec(w);
	}
	return w->err;
}

/* ---- public API ------------------------------------------------------------------------- */
int pmt_perf_writer_new(FILE *fp, const struct pmt_perf_writer_opts *opts,
			struct pmt_perf_writer **out)
{
	struct pmt_perf_writer *w;
	uint8_t hdr[PMT_PERF_FILE_HEADER_SIZE] = { 0 };

	*out = NULL;
	if (!fp || (opts && !PMT_OPTS_HAS(opts, swap)))
		return -PMT_EINVAL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -PMT_ENOMEM;
	if (opts) {
		w->pipe = opts->pipe;
		w->swap = opts->swap;
	}
	w->fp = fp;
	/* placeholder in file mode (patched at close); the final header in pipe mode */
	{
		uint64_t magic = PMT_PERF_MAGIC2, size = PMT_PERF_PIPE_HEADER_SIZE;

		if (w->swap) {
			magic = __builtin_bswap64(magic);
			size = __builtin_bswap64(size);
		}
		memcpy(hdr, &magic, 8);
		memcpy(hdr + 8, &size, 8);
	}
	pdw_emit(w, hdr, w->pipe ? PMT_PERF_PIPE_HEADER_SIZE : PMT_PERF_FILE_HEADER_SIZE);
	w->data_off = w->off;
	*out = w;
	return w->err;
}

int pmt_perf_writer_open(const char *path, const struct pmt_perf_writer_opts *opts,
			 struct pmt_perf_writer **out)
{
	struct pmt_out_file f;
	int rc = pmt_out_file_open(&f, path, NULL, 0, NULL);

	*out = NULL;
	if (rc < 0)
		return rc;
	rc = pmt_perf_writer_new(f.fp, opts, out);
	if (rc < 0 && !*out) {
		pmt_out_file_abort(&f);
		return rc;
	}
	(*out)->file = f;
	(*out)->own_file = true;
	return rc;
}

int pmt_perf_writer_add_attr(struct pmt_perf_writer *w, const void *attr, size_t size,
			     const uint64_t *ids, uint32_t nr_ids, const char *name)
{
	struct wattr *na, *a;

	if (w->started || size > PMT_ATTR_SIZE_MAX || size < 8)
		return -PMT_EINVAL;
	na = realloc(w->attrs, (w->nr_attrs + 1) * sizeof(*na));
	if (!na)
		return -PMT_ENOMEM;
	w->attrs = na;
	a = &w->attrs[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	memcpy(a->attr, attr, size);
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(uint64_t));
		if (!a->ids)
			return -PMT_ENOMEM;
		memcpy(a->ids, ids, nr_ids * sizeof(uint64_t));
		a->nr_ids = nr_ids;
	}
	if (name && !(a->name = strdup(name))) {
		free(a->ids);
		return -PMT_ENOMEM;
	}
	w->nr_attrs++;
	return 0;
}

int pmt_perf_writer_set_feature_str(struct pmt_perf_writer *w, unsigned feat, const char *value)
{
	char *v;

	if (feat >= PMT_FEAT_BITS || w->started ||
	    !(feat == PMT_FEAT_HOSTNAME || feat == PMT_FEAT_OSRELEASE || feat == PMT_FEAT_VERSION ||
	      feat == PMT_FEAT_ARCH || feat == PMT_FEAT_CPUDESC || feat == PMT_FEAT_CPUID))
		return -PMT_EINVAL;
	v = strdup(value);
	if (!v)
		return -PMT_ENOMEM;
	free(w->str[feat]);
	w->str[feat] = v;
	return 0;
}

int pmt_perf_writer_add_build_id(struct pmt_perf_writer *w, int32_t pid, uint16_t cpumode,
				 const uint8_t *build_id, size_t build_id_size,
				 const char *filename)
{
	struct pmt_build_id_ent *b;

	if (!w || !build_id || !filename || build_id_size > 20 || strlen(filename) > 4000)
		return -PMT_EINVAL;
	if (w->pipe)
		return -PMT_EUNSUPPORTED;
	b = realloc(w->bids, (w->nr_bids + 1) * sizeof(*b));
	if (!b)
		return -PMT_ENOMEM;
	w->bids = b;
	b += w->nr_bids;
	memset(b, 0, sizeof(*b));
	b->pid = pid;
	b->cpumode = cpumode;
	b->size = (uint8_t)build_id_size;
	memcpy(b->id, build_id, build_id_size);
	if (!(b->filename = strdup(filename)))
		return -PMT_ENOMEM;
	w->nr_bids++;
	return 0;
}

int pmt_perf_writer_set_numa_nodes(struct pmt_perf_writer *w, const char *cpulists)
{
	char *v;

	if (w->started || !cpulists || !*cpulists || strlen(cpulists) > 4000)
		return -PMT_EINVAL;
	v = strdup(cpulists);
	if (!v)
		return -PMT_ENOMEM;
	free(w->str[PMT_FEAT_NUMA_TOPOLOGY]);
	w->str[PMT_FEAT_NUMA_TOPOLOGY] = v;
	return 0;
}

int pmt_perf_writer_set_nrcpus(struct pmt_perf_writer *w, uint32_t online, uint32_t avail)
{
	if (w->started)
		return -PMT_EINVAL;
	w->has_nrcpus = true;
	w->online = online;
	w->avail = avail;
	return 0;
}

int pmt_perf_writer_set_cpu_topology(struct pmt_perf_writer *w,
				     const struct pmt_cpu_topology *t)
{
	if (!w || !t || w->started || !t->core_id || !t->socket_id)
		return -PMT_EINVAL;
	pmt_cpu_topology_fini(&w->topology);
	return pd_cpu_topology_copy(&w->topology, t);
}

int pmt_perf_writer_set_compressed(struct pmt_perf_writer *w, uint32_t level, uint32_t ratio,
				   uint32_t mmap_len)
{
	if (w->started)
		return -PMT_EINVAL;
	w->has_comp = true;
	w->comp_level = level;
	w->comp_ratio = ratio;
	w->comp_mmap_len = mmap_len;
	return 0;
}

int pmt_perf_writer_set_clock_data(struct pmt_perf_writer *w, uint32_t clockid,
				   uint64_t tod_ns, uint64_t clockid_ns, uint64_t res_ns)
{
	if (w->started)
		return -PMT_EINVAL;
	w->has_clock = true;
	w->clockid = clockid;
	w->clock_tod_ns = tod_ns;
	w->clock_ref_ns = clockid_ns;
	w->clock_res_ns = res_ns;
	return 0;
}

int pmt_perf_writer_set_cmdline(struct pmt_perf_writer *w, int argc, const char *const *argv)
{
	if (w->started || argc < 0)
		return -PMT_EINVAL;
	for (int i = 0; i < w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	w->argv = calloc((size_t)argc + 1, sizeof(char *));
	w->argc = 0;
	if (!w->argv)
		return -PMT_ENOMEM;
	for (int i = 0; i < argc; i++) {
		w->argv[i] = strdup(argv[i]);
		if (!w->argv[i])
			return -PMT_ENOMEM;
		w->argc++;
	}
	return 0;
}

static void free_writer(struct pmt_perf_writer *w)
{
	for (uint32_t i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].ids);
		free(w->attrs[i].name);
	}
	free(w->attrs);
	for (unsigned f = 0; f < PMT_FEAT_BITS; f++)
		free(w->str[f]);
	for (int i = 0; i < w->argc; i++)
		free(w->argv[i]);
	free(w->argv);
	free(w->aux_off);
	for (size_t i = 0; i < w->nr_bids; i++)
		free((char *)w->bids[i].filename);
	free(w->bids);
	pmt_cpu_topology_fini(&w->topology);
	pmt_buf_fini(&w->rec);
	free(w);
}

/* File mode tail: feature table + payloads right after the data (where perf looks for
 * them), then the id arrays and the attrs section, then the real header at offset 0. */
static void finish_file(struct pmt_perf_writer *w)
{
	uint64_t data_size = w->off - w->data_off, bitmap[4] = { 0 }, tab = w->off, nfeat = 0;
	uint8_t *table;

	for (unsigned f = 0; f < PMT_FEAT_BITS; f++) {
		w->rec.len = 0;
		if (build_feature(w, f)) {
			bitmap[f / 64] |= 1ULL << (f % 64);
			nfeat++;
		}
	}
	table = calloc(nfeat ? nfeat : 1, 16);
	if (!table) {
		w->err = -PMT_ENOMEM;
		return;
	}
	pdw_emit(w, table, nfeat * 16); /* placeholder */
	for (unsigned f = 0, k = 0; f < PMT_FEAT_BITS; f++) {
		uint64_t o = w->off, sz;

		w->rec.len = 0;
		if (!build_feature(w, f))
			continue;
		pdw_emit(w, w->rec.data, w->rec.len);
		sz = w->off - o;
		if (w->swap) {
			o = __builtin_bswap64(o);
			sz = __builtin_bswap64(sz);
		}
		memcpy(table + 16 * k, &o, 8);
		memcpy(table + 16 * k + 8, &sz, 8);
		k++;
	}
	if (!w->err &&
	    (fseek(w->fp, (long)tab, SEEK_SET) || fwrite(table, 1, nfeat * 16, w->fp) != nfeat * 16))
		w->err = -PMT_EIO;
	free(table);
	/* last: until here the header says "data to the end of the file" */
	rewrite_header(w, data_size, bitmap, w->off);
}

int pmt_perf_writer_close(struct pmt_perf_writer *w)
{
	int rc;

	if (!w)
		return 0;
	pdw_start(w);
	if (!w->pipe)
		finish_file(w);
	if (fflush(w->fp) && !w->err)
		w->err = -PMT_EIO;
	if (w->own_file) {
		if (w->err)
			pmt_out_file_abort(&w->file);
		else
			w->err = pmt_out_file_commit(&w->file, NULL);
	}
	rc = w->err;
	free_writer(w);
	return rc;
}
