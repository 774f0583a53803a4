/* perf.data writer: file mode (seek back to finish the header) and pipe mode, host or
 * swapped byte order. Each record is built in one scratch buffer and written with one
 * fwrite, so nothing is allocated per record once the buffer has grown. */
#include <stdlib.h>

#include "perfdata_priv.h"

#define NAME_ALIGN 64 /* perf pads feature strings to this */

struct wattr {
	uint8_t attr[PMT_ATTR_SIZE_MAX];
	uint64_t *ids;
	uint32_t nr_ids;
	char *name;
};

struct pmt_perf_writer {
	FILE *fp;
	bool own_fp, pipe, swap, started;
	int err;
	uint64_t off, data_off;
	struct wattr *attrs;
	uint32_t nr_attrs;
	char *str[PMT_FEAT_BITS];
	bool has_nrcpus, has_comp;
	uint32_t online, avail;
	uint32_t comp_level, comp_ratio, comp_mmap_len;
	char **argv;
	int argc;
	/* file mode: offsets of the AUXTRACE records for the HEADER_AUXTRACE index */
	bool has_auxtrace;
	uint64_t *aux_off;
	size_t nr_aux, cap_aux;
	struct pmt_buf rec; /* scratch for one record or feature */
};

/* ---- encoding --------------------------------------------------------------------------- */
static void put(struct pmt_perf_writer *w, const void *p, size_t n)
{
	if (pmt_buf_append(&w->rec, p, n) < 0 && !w->err)
		w->err = -PMT_ENOMEM;
}
static void put16(struct pmt_perf_writer *w, uint16_t v)
{
	if (w->swap)
		v = pd_bswap16(v);
	put(w, &v, 2);
}
static void put32(struct pmt_perf_writer *w, uint32_t v)
{
	if (w->swap)
		v = __builtin_bswap32(v);
	put(w, &v, 4);
}
static void put64(struct pmt_perf_writer *w, uint64_t v)
{
	if (w->swap)
		v = __builtin_bswap64(v);
	put(w, &v, 8);
}
static void put_zero(struct pmt_perf_writer *w, size_t n)
{
	static const uint8_t z[64];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		put(w, z, k);
		n -= k;
	}
}
static void put_hdr(struct pmt_perf_writer *w, uint32_t type, uint16_t misc)
{
	w->rec.len = 0;
	put32(w, type);
	put16(w, misc);
	put16(w, 0); /* size, fixed by end_rec() */
}
/* NUL-terminated, zero padded to 8 bytes (record strings) */
static void put_cstr8(struct pmt_perf_writer *w, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	put(w, s, n);
	put_zero(w, 8 - n % 8);
}
/* feature string: u32 len; char[len] NUL padded to NAME_ALIGN */
static void put_fstr(struct pmt_perf_writer *w, const char *s)
{
	size_t n = strlen(s), len = (n + 1 + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	put32(w, (uint32_t)len);
	put(w, s, n);
	put_zero(w, len - n);
}

static void emit(struct pmt_perf_writer *w, const void *p, size_t n)
{
	if (w->err || !n)
		return;
	if (fwrite(p, 1, n, w->fp) != n)
		w->err = -PMT_EIO;
	w->off += n;
}

static int start(struct pmt_perf_writer *w);

/* Patch the size into the record header and write it. */
static int end_rec(struct pmt_perf_writer *w)
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
	emit(w, w->rec.data, w->rec.len);
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
	case PMT_FEAT_COMPRESSED:
		if (!w->has_comp)
			return false;
		put32(w, 0); /* version, as perf writes it */
		put32(w, 1); /* PERF_COMP_ZSTD */
		put32(w, w->comp_level);
		put32(w, w->comp_ratio);
		put32(w, w->comp_mmap_len);
		return true;
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
static int start(struct pmt_perf_writer *w)
{
	if (w->started)
		return w->err;
	w->started = true;
	if (!w->pipe)
		return w->err;
	for (uint32_t i = 0; i < w->nr_attrs; i++) {
		put_hdr(w, PMT_REC_HEADER_ATTR, 0);
		put_attr(w, &w->attrs[i], out_attr_size(w));
		for (uint32_t k = 0; k < w->attrs[i].nr_ids; k++)
			put64(w, w->attrs[i].ids[k]);
		end_rec(w);
	}
	for (unsigned f = 0; f < PMT_FEAT_BITS; f++) {
		put_hdr(w, PMT_REC_HEADER_FEATURE, 0);
		put64(w, f);
		if (!build_feature(w, f))
			continue;
		put_zero(w, (8 - w->rec.len % 8) % 8);
		end_rec(w);
	}
	return w->err;
}

/* ---- public API ------------------------------------------------------------------------- */
int pmt_perf_writer_open(const char *path, const struct pmt_perf_writer_opts *opts,
			 struct pmt_perf_writer **out)
{
	struct pmt_perf_writer *w = calloc(1, sizeof(*w));
	uint8_t hdr[PMT_PERF_FILE_HEADER_SIZE] = { 0 };

	*out = NULL;
	if (!w)
		return -PMT_ENOMEM;
	if (opts) {
		w->pipe = opts->pipe;
		w->swap = opts->swap;
	}
	if (!strcmp(path, "-")) {
		w->fp = stdout;
	} else {
		w->fp = fopen(path, "wb");
		w->own_fp = true;
	}
	if (!w->fp) {
		free(w);
		return -PMT_EIO;
	}
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
	emit(w, hdr, w->pipe ? PMT_PERF_PIPE_HEADER_SIZE : PMT_PERF_FILE_HEADER_SIZE);
	w->data_off = w->off;
	*out = w;
	return w->err;
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

int pmt_perf_writer_set_nrcpus(struct pmt_perf_writer *w, uint32_t online, uint32_t avail)
{
	if (w->started)
		return -PMT_EINVAL;
	w->has_nrcpus = true;
	w->online = online;
	w->avail = avail;
	return 0;
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

int pmt_perf_writer_write_record(struct pmt_perf_writer *w, const void *raw, size_t size)
{
	PMT_FORWARD_IF_ERROR(start(w));
	if (size < 8)
		return -PMT_EINVAL;
	{
		uint32_t type;

		memcpy(&type, raw, 4);
		if ((w->swap ? __builtin_bswap32(type) : type) == PMT_REC_AUXTRACE_INFO)
			w->has_auxtrace = true;
	}
	emit(w, raw, size);
	return w->err;
}

int pmt_perf_writer_write_auxtrace(struct pmt_perf_writer *w, const void *data, uint64_t size,
				   uint64_t offset, uint64_t reference, uint32_t idx,
				   uint32_t tid, uint32_t cpu)
{
	static const uint8_t zero[8];
	uint64_t padded = (size + 7) & ~7ULL;

	PMT_FORWARD_IF_ERROR(start(w));
	w->has_auxtrace = true;
	if (!w->pipe) {
		if (w->nr_aux == w->cap_aux) {
			size_t nc = w->cap_aux ? 2 * w->cap_aux : 64;
			uint64_t *na = realloc(w->aux_off, nc * sizeof(*na));

			if (!na)
				return w->err = -PMT_ENOMEM;
			w->aux_off = na;
			w->cap_aux = nc;
		}
		w->aux_off[w->nr_aux++] = w->off;
	}
	put_hdr(w, PMT_REC_AUXTRACE, 0);
	put64(w, padded);
	put64(w, offset);
	put64(w, reference);
	put32(w, idx);
	put32(w, tid);
	put32(w, cpu);
	put32(w, 0);
	PMT_FORWARD_IF_ERROR(end_rec(w));
	emit(w, data, (size_t)size);
	emit(w, zero, (size_t)(padded - size));
	return w->err;
}

static const struct wattr *attr_for_id(const struct pmt_perf_writer *w, uint64_t id)
{
	for (uint32_t i = 0; i < w->nr_attrs; i++)
		for (uint32_t k = 0; k < w->attrs[i].nr_ids; k++)
			if (w->attrs[i].ids[k] == id)
				return &w->attrs[i];
	return w->nr_attrs ? &w->attrs[0] : NULL;
}

static uint64_t attr_u64(const struct wattr *a, int off)
{
	uint64_t v;

	memcpy(&v, a->attr + off, 8);
	return v;
}

/* Field layouts of records after the header and before the sample_id trailer, as perf's
 * perf_event__*_swap() see them: '4' a u32, '8' a u64, 'b' the rest as bytes (strings),
 * 'q' the rest as u64s, 't' the rest as THREAD_MAP entries {u64 pid; char comm[16]},
 * 'B' 24 bytes kept as they are.
 * NULL: no layout known (CPU_MAP, EVENT_UPDATE, STAT*, ...). */
static const char *swap_layout(uint32_t type, uint16_t misc)
{
	switch (type) {
	case PMT_REC_MMAP: return "44888b";
	case PMT_REC_MMAP2:
		/* maj min ino ino_generation, or the build-id form's 24 bytes */
		return misc & PMT_MISC_MMAP_BUILD_ID ? "44888B44b" : "44888448844b";
	case PMT_REC_LOST: return "88";
	case PMT_REC_COMM: return "44b";
	case PMT_REC_EXIT: case PMT_REC_FORK: return "44448";
	case PMT_REC_AUX: return "888";
	case PMT_REC_ITRACE_START: case PMT_REC_SWITCH_CPU_WIDE: return "44";
	case PMT_REC_LOST_SAMPLES: return "8";
	case PMT_REC_SWITCH: case PMT_REC_FINISHED_ROUND: case PMT_REC_FINISHED_INIT: return "";
	case PMT_REC_ID_INDEX: return "q";
	case PMT_REC_AUXTRACE_INFO: return "44q";
	case PMT_REC_THREAD_MAP: return "8t";
	default: return NULL;
	}
}

static void swap_at(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint8_t t = p[i];

		p[i] = p[n - 1 - i];
		p[n - 1 - i] = t;
	}
}

int pmt_perf_writer_write_record_swapped(struct pmt_perf_writer *w, const void *raw, size_t size)
{
	const char *lay;
	uint8_t *r;
	uint32_t type;
	uint16_t misc;
	size_t p = 8, end = size;

	PMT_FORWARD_IF_ERROR(start(w));
	if (size < 8 || size % 8 || size > 0xfff8)
		return -PMT_EINVAL;
	memcpy(&type, raw, 4);
	memcpy(&misc, (const uint8_t *)raw + 4, 2);
	if (!w->swap) { /* the input is the swapped side */
		type = __builtin_bswap32(type);
		misc = pd_bswap16(misc);
	}
	lay = swap_layout(type, misc);
	if (!lay)
		return -PMT_EUNSUPPORTED;
	if (type == PMT_REC_AUXTRACE_INFO)
		w->has_auxtrace = true;
	w->rec.len = 0;
	put(w, raw, size);
	if (w->err)
		return w->err;
	r = w->rec.data;
	swap_at(r, 4);
	swap_at(r + 4, 2);
	if (type < PMT_REC_HEADER_ATTR && w->nr_attrs &&
	    (attr_u64(&w->attrs[0], PMT_ATTR_FLAGS) & PMT_ATTR_FLAG_SAMPLE_ID_ALL)) {
		/* the trailer: u32 pairs for TID and CPU, u64s for the rest */
		uint64_t st = attr_u64(&w->attrs[0], PMT_ATTR_SAMPLE_TYPE);
		static const uint64_t bits[] = { PMT_SAMPLE_TID, PMT_SAMPLE_TIME, PMT_SAMPLE_ID,
						 PMT_SAMPLE_STREAM_ID, PMT_SAMPLE_CPU,
						 PMT_SAMPLE_IDENTIFIER };
		size_t n = 8 * (size_t)__builtin_popcountll(
				       st & (PMT_SAMPLE_TID | PMT_SAMPLE_TIME | PMT_SAMPLE_ID |
					     PMT_SAMPLE_STREAM_ID | PMT_SAMPLE_CPU |
					     PMT_SAMPLE_IDENTIFIER));

		if (n + 8 <= size) {
			size_t q = end = size - n;

			for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
				if (!(st & bits[i]))
					continue;
				if (bits[i] == PMT_SAMPLE_TID || bits[i] == PMT_SAMPLE_CPU) {
					swap_at(r + q, 4);
					swap_at(r + q + 4, 4);
				} else {
					swap_at(r + q, 8);
				}
				q += 8;
			}
		}
	}
	for (; *lay && p < end; lay++) {
		switch (*lay) {
		case '4':
		case '8': {
			size_t k = (size_t)(*lay - '0');

			if (end - p < k)
				return -PMT_ECORRUPT;
			swap_at(r + p, k);
			p += k;
			break;
		}
		case 'q':
			for (; end - p >= 8; p += 8)
				swap_at(r + p, 8);
			break;
		case 't':
			for (; end - p >= 24; p += 24)
				swap_at(r + p, 8);
			break;
		case 'B':
			if (end - p < 24)
				return -PMT_ECORRUPT;
			p += 24;
			break;
		default: /* 'b' */
			p = end;
		}
	}
	return end_rec(w);
}

static void put_sid(struct pmt_perf_writer *w, const struct pmt_sample_id *sid)
{
	static const struct pmt_sample_id none;
	uint64_t st;

	if (!w->nr_attrs || !(attr_u64(&w->attrs[0], PMT_ATTR_FLAGS) & PMT_ATTR_FLAG_SAMPLE_ID_ALL))
		return;
	if (!sid)
		sid = &none;
	st = attr_u64(&w->attrs[0], PMT_ATTR_SAMPLE_TYPE);
	if (st & PMT_SAMPLE_TID) {
		put32(w, sid->pid);
		put32(w, sid->tid);
	}
	if (st & PMT_SAMPLE_TIME)
		put64(w, sid->time);
	if (st & PMT_SAMPLE_ID)
		put64(w, sid->id);
	if (st & PMT_SAMPLE_STREAM_ID)
		put64(w, sid->stream_id);
	if (st & PMT_SAMPLE_CPU) {
		put32(w, sid->cpu);
		put32(w, 0);
	}
	if (st & PMT_SAMPLE_IDENTIFIER)
		put64(w, sid->id);
}

int pmt_perf_writer_write_comm(struct pmt_perf_writer *w, uint32_t pid, uint32_t tid,
			       const char *comm, bool exec, const struct pmt_sample_id *sid)
{
	PMT_FORWARD_IF_ERROR(start(w));
	put_hdr(w, PMT_REC_COMM, exec ? PMT_MISC_COMM_EXEC : 0);
	put32(w, pid);
	put32(w, tid);
	put_cstr8(w, comm, 15); /* TASK_COMM_LEN - 1 */
	put_sid(w, sid);
	return end_rec(w);
}

int pmt_perf_writer_write_mmap2(struct pmt_perf_writer *w, uint32_t pid, uint32_t tid,
				uint64_t addr, uint64_t len, uint64_t pgoff, uint32_t prot,
				uint32_t flags, const char *filename,
				const struct pmt_sample_id *sid)
{
	PMT_FORWARD_IF_ERROR(start(w));
	put_hdr(w, PMT_REC_MMAP2, 2 /* PERF_RECORD_MISC_USER */);
	put32(w, pid);
	put32(w, tid);
	put64(w, addr);
	put64(w, len);
	put64(w, pgoff);
	put_zero(w, 24); /* maj, min, ino, ino_generation */
	put32(w, prot);
	put32(w, flags);
	put_cstr8(w, filename, 4095);
	put_sid(w, sid);
	return end_rec(w);
}

int pmt_perf_writer_write_time_conv(struct pmt_perf_writer *w, const struct pmt_time_conv *tc)
{
	PMT_FORWARD_IF_ERROR(start(w));
	put_hdr(w, PMT_REC_TIME_CONV, 0);
	put64(w, tc->time_shift);
	put64(w, tc->time_mult);
	put64(w, tc->time_zero);
	put64(w, tc->time_cycles);
	put64(w, tc->time_mask);
	put(w, &tc->cap_user_time_zero, 1);
	put(w, &tc->cap_user_time_short, 1);
	put_zero(w, 6);
	return end_rec(w);
}

int pmt_perf_writer_write_auxtrace_info_spe_v1(struct pmt_perf_writer *w, uint64_t pmu_type,
					       bool per_cpu_mmaps)
{
	PMT_FORWARD_IF_ERROR(start(w));
	w->has_auxtrace = true;
	put_hdr(w, PMT_REC_AUXTRACE_INFO, 0);
	put32(w, PMT_AUXTRACE_ARM_SPE);
	put32(w, 0);
	put64(w, pmu_type);
	put64(w, per_cpu_mmaps);
	return end_rec(w);
}

int pmt_perf_writer_write_auxtrace_info_spe_v2(struct pmt_perf_writer *w, uint64_t pmu_type,
					       uint32_t nr_cpus, const uint32_t *cpus,
					       const uint64_t *midr, const uint64_t *event_filter)
{
	PMT_FORWARD_IF_ERROR(start(w));
	/* header.size is a u16: 48 bytes of header and info, then 6 or 7 u64 per CPU */
	if (nr_cpus == 0 || nr_cpus > (65535u - 48) / (event_filter ? 56 : 48))
		return -PMT_EINVAL;
	w->has_auxtrace = true;
	put_hdr(w, PMT_REC_AUXTRACE_INFO, 0);
	put32(w, PMT_AUXTRACE_ARM_SPE);
	put32(w, 0);
	put64(w, 2);        /* HEADER_VERSION */
	put64(w, 4);        /* HEADER_SIZE in u64 */
	put64(w, pmu_type); /* PMU_TYPE_V2 */
	put64(w, nr_cpus);
	for (uint32_t i = 0; i < nr_cpus; i++) {
		put64(w, PMT_SPE_V2_MAGIC);
		put64(w, cpus[i]);
		put64(w, event_filter ? 4 : 3); /* MIDR, PMU_TYPE, CAP_MIN_IVAL[, EVENT_FILTER] */
		put64(w, midr[i]);
		put64(w, pmu_type);
		put64(w, 0);
		if (event_filter)
			put64(w, event_filter[i]);
	}
	return end_rec(w);
}

int pmt_perf_writer_write_sample(struct pmt_perf_writer *w, const struct pmt_sample *smp)
{
	const struct wattr *a = attr_for_id(w, smp->id);
	const uint64_t ok = PMT_SAMPLE_IDENTIFIER | PMT_SAMPLE_IP | PMT_SAMPLE_TID |
			    PMT_SAMPLE_TIME | PMT_SAMPLE_ADDR | PMT_SAMPLE_ID | PMT_SAMPLE_STREAM_ID |
			    PMT_SAMPLE_CPU | PMT_SAMPLE_PERIOD | PMT_SAMPLE_WEIGHT |
			    PMT_SAMPLE_WEIGHT_STRUCT | PMT_SAMPLE_DATA_SRC | PMT_SAMPLE_TRANSACTION |
			    PMT_SAMPLE_PHYS_ADDR;
	uint64_t st;

	PMT_FORWARD_IF_ERROR(start(w));
	if (!a)
		return -PMT_EINVAL;
	st = attr_u64(a, PMT_ATTR_SAMPLE_TYPE);
	if (st & ~ok)
		return -PMT_EUNSUPPORTED;
	put_hdr(w, PMT_REC_SAMPLE, 2 /* PERF_RECORD_MISC_USER */);
	if (st & PMT_SAMPLE_IDENTIFIER)
		put64(w, smp->id);
	if (st & PMT_SAMPLE_IP)
		put64(w, smp->ip);
	if (st & PMT_SAMPLE_TID) {
		put32(w, smp->pid);
		put32(w, smp->tid);
	}
	if (st & PMT_SAMPLE_TIME)
		put64(w, smp->time);
	if (st & PMT_SAMPLE_ADDR)
		put64(w, smp->addr);
	if (st & PMT_SAMPLE_ID)
		put64(w, smp->id);
	if (st & PMT_SAMPLE_STREAM_ID)
		put64(w, smp->stream_id);
	if (st & PMT_SAMPLE_CPU) {
		put32(w, smp->cpu);
		put32(w, 0);
	}
	if (st & PMT_SAMPLE_PERIOD)
		put64(w, smp->period);
	if (st & (PMT_SAMPLE_WEIGHT | PMT_SAMPLE_WEIGHT_STRUCT)) {
		uint64_t v = smp->weight;

		/* a big-endian union perf_sample_weight keeps var1_dw in the high half */
		if (w->swap && (st & PMT_SAMPLE_WEIGHT_STRUCT))
			v = (v & 0xffffffff) << 32 | ((v >> 32) & 0xffff) << 16 | v >> 48;
		put64(w, v);
	}
	if (st & PMT_SAMPLE_DATA_SRC)
		put64(w, smp->data_src);
	if (st & PMT_SAMPLE_TRANSACTION)
		put64(w, smp->transaction);
	if (st & PMT_SAMPLE_PHYS_ADDR)
		put64(w, smp->phys_addr);
	return end_rec(w);
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
	pmt_buf_fini(&w->rec);
	free(w);
}

/* File mode tail: feature table + payloads right after the data (where perf looks for
 * them), then the id arrays and the attrs section, then the real header at offset 0. */
static void finish_file(struct pmt_perf_writer *w)
{
	uint64_t data_size = w->off - w->data_off, bitmap[4] = { 0 }, tab = w->off, nfeat = 0;
	uint64_t attrs_off, *id_off;
	uint32_t asz = out_attr_size(w);
	uint8_t *table;

	for (unsigned f = 0; f < PMT_FEAT_BITS; f++) {
		w->rec.len = 0;
		if (build_feature(w, f)) {
			bitmap[f / 64] |= 1ULL << (f % 64);
			nfeat++;
		}
	}
	table = calloc(nfeat ? nfeat : 1, 16);
	id_off = calloc(w->nr_attrs ? w->nr_attrs : 1, sizeof(*id_off));
	if (!table || !id_off) {
		w->err = -PMT_ENOMEM;
		goto out;
	}
	emit(w, table, nfeat * 16); /* placeholder */
	for (unsigned f = 0, k = 0; f < PMT_FEAT_BITS; f++) {
		uint64_t o = w->off, sz;

		w->rec.len = 0;
		if (!build_feature(w, f))
			continue;
		emit(w, w->rec.data, w->rec.len);
		sz = w->off - o;
		if (w->swap) {
			o = __builtin_bswap64(o);
			sz = __builtin_bswap64(sz);
		}
		memcpy(table + 16 * k, &o, 8);
		memcpy(table + 16 * k + 8, &sz, 8);
		k++;
	}
	for (uint32_t i = 0; i < w->nr_attrs; i++) {
		id_off[i] = w->off;
		w->rec.len = 0;
		for (uint32_t k = 0; k < w->attrs[i].nr_ids; k++)
			put64(w, w->attrs[i].ids[k]);
		emit(w, w->rec.data, w->rec.len);
	}
	attrs_off = w->off;
	w->rec.len = 0;
	for (uint32_t i = 0; i < w->nr_attrs; i++) {
		put_attr(w, &w->attrs[i], asz);
		put64(w, id_off[i]);
		put64(w, (uint64_t)w->attrs[i].nr_ids * 8);
	}
	emit(w, w->rec.data, w->rec.len);
	if (w->err)
		goto out;
	if (fseek(w->fp, (long)tab, SEEK_SET) || fwrite(table, 1, nfeat * 16, w->fp) != nfeat * 16) {
		w->err = -PMT_EIO;
		goto out;
	}
	w->rec.len = 0;
	put64(w, PMT_PERF_MAGIC2);
	put64(w, PMT_PERF_FILE_HEADER_SIZE);
	put64(w, asz + 16);
	put64(w, attrs_off);
	put64(w, (uint64_t)w->nr_attrs * (asz + 16));
	put64(w, w->data_off);
	put64(w, data_size);
	put64(w, 0);
	put64(w, 0);
	for (int i = 0; i < 4; i++)
		put64(w, bitmap[i]);
	if (!w->err && (fseek(w->fp, 0, SEEK_SET) ||
			fwrite(w->rec.data, 1, w->rec.len, w->fp) != w->rec.len))
		w->err = -PMT_EIO;
out:
	free(table);
	free(id_off);
}

int pmt_perf_writer_close(struct pmt_perf_writer *w)
{
	int rc;

	if (!w)
		return 0;
	start(w);
	if (!w->pipe)
		finish_file(w);
	if (fflush(w->fp) && !w->err)
		w->err = -PMT_EIO;
	if (w->own_fp && fclose(w->fp) && !w->err)
		w->err = -PMT_EIO;
	rc = w->err;
	free_writer(w);
	return rc;
}
