/* perf.data metadata: the file header, attrs and their ids, and the records that describe
 * the trace (AUXTRACE_INFO, TIME_CONV, pipe-mode HEADER_ATTR/HEADER_FEATURE before the
 * first data record). */
#include "source_priv.h"

/* ---- attrs and ids -------------------------------------------------------------------- */
static int cmp_id(const void *a, const void *b)
{
	const struct id_ent *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

struct pmt_trace_attr *pd_attr_by_id(struct pmt_source *s, uint64_t id)
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

void pd_attrs_done(struct pmt_source *s)
{
	if (s->nr_ids)
		qsort(s->ids, s->nr_ids, sizeof(*s->ids), cmp_id);
	/* perf takes every record's id where the first attr puts it, whatever the others
	 * sample: a recording's counting attrs (sample_type 0) sit beside IDENTIFIER ones */
	s->first_identifier = s->nr_attrs > 0 &&
			      (s->attrs[0].sample_type & PMT_SAMPLE_IDENTIFIER);
	s->meta.timeless = 1;
	for (uint32_t i = 0; i < s->nr_attrs; i++) {
		if (s->attrs[i].sample_type & PMT_SAMPLE_TIME)
			s->meta.timeless = 0;
	}
	s->meta.attrs = s->attrs;
	s->meta.nr_attrs = s->nr_attrs;
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

void pd_parse_auxtrace_info(struct pmt_source *s, const uint8_t *r, size_t size, uint64_t off)
{
	size_t npriv;
	const uint8_t *priv = r + 16;

	if (size < 16) {
		src_warn(s, -PMT_ECORRUPT, off, "AUXTRACE_INFO at 0x%llx too short", (unsigned long long)off);
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
		src_warn(s, -PMT_ECORRUPT, off, "SPE AUXTRACE_INFO at 0x%llx has %zu fields",
			 (unsigned long long)off, npriv);
		return;
	}
	s->meta.auxtrace_version = (uint32_t)rd64(s, priv);
	if (s->meta.auxtrace_version != 2) {
		src_warn(s, -PMT_EVERSION, PMT_DIAG_NO_OFFSET, "SPE AUXTRACE_INFO version %u unknown",
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
			src_warn(s, -PMT_ECORRUPT, off, "SPE AUXTRACE_INFO v2 at 0x%llx has bad sizes",
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
				src_warn(s, -PMT_ECORRUPT, PMT_DIAG_NO_OFFSET, "SPE metadata block %llu bad magic or CPU",
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

void pd_parse_time_conv(struct pmt_source *s, const uint8_t *r, size_t size, uint64_t off)
{
	struct pmt_time_conv *tc = &s->meta.time_conv;
	uint64_t shift;

	if (size < 32)
		return;
	shift = rd64(s, r + 8);
	if (shift >= 64) {
		/* no conversion can shift a 64-bit counter that far: a damaged field */
		if (!s->time_conv_refused) /* the metadata scan and the record pass see it */
			src_warn(s, -PMT_ERANGE, off, "TIME_CONV at 0x%llx has time_shift %llu (must be below 64); "
				 "sample times are the raw counter values",
				 (unsigned long long)off, (unsigned long long)shift);
		s->time_conv_refused = true;
		return;
	}
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
int pd_fill_cpu_midr(struct pmt_source *s)
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
			return src_fail(s, -PMT_ECORRUPT, pos, "HEADER_ATTR: record size %u", size);
		}
		asz = rd32(s, r + 8 + PMT_ATTR_SIZE);
		if (asz == 0)
			asz = PMT_ATTR_SIZE_VER0;
		if (asz < PMT_ATTR_SIZE_VER0 || asz > size - 8u) {
			return src_fail(s, -PMT_ECORRUPT, pos, "HEADER_ATTR: attr size %u", asz);
		}
		rc = add_attr(s, r + 8, asz, r + 8 + asz, (size - 8 - asz) / 8);
		if (rc < 0)
			return rc;
		break;
	}
	case PMT_REC_HEADER_FEATURE:
		if (size >= 16) {
			uint64_t f = rd64(s, r + 8);

			pd_attrs_done(s);
			if (f < PMT_FEAT_BITS)
				pd_parse_feature(s, (unsigned)f, r + 16, size - 16);
		}
		break;
	case PMT_REC_AUXTRACE_INFO:
		pd_parse_auxtrace_info(s, r, size, pos);
		break;
	case PMT_REC_TIME_CONV:
		pd_parse_time_conv(s, r, size, pos);
		break;
	case PMT_REC_AUXTRACE:
		if (size >= 48)
			s->max_aux_cpu = rd32(s, r + 40) < PMT_MAX_CPUS ? rd32(s, r + 40) : 0;
		return 1;
	default:
		/* counts (STAT, STAT_ROUND) are data too: a stat recording has no kernel
		 * record, and a pipe would otherwise be held whole in the window */
		if (type < PMT_REC_HEADER_ATTR || type == PMT_REC_COMPRESSED ||
		    type == PMT_REC_COMPRESSED2 || type == PMT_REC_STAT || type == PMT_REC_STAT_ROUND)
			return 1;
	}
	return 0;
}

/* Gather the metadata perf keeps in records (pipe-mode attrs and features, AUXTRACE_INFO,
 * TIME_CONV) from the records before the first data record. A pipe keeps them in the
 * window (nothing is delivered yet), so they are still returned as events afterwards. */
int pd_prescan(struct pmt_source *s)
{
	uint64_t pos = s->data_start;

	for (;;) {
		const uint8_t *r;
		uint32_t size;
		int rc;

		if (s->stream) {
			if (pd_stream_fill(s, pos + 8) < 0)
				return 0;
			size = rd16(s, pd_win(s) + (pos - s->win_base) + 6);
			if (size < 8 || pd_stream_fill(s, pos + size) < 0)
				return 0;
			r = pd_win(s) + (pos - s->win_base);
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

int pd_read_file_header(struct pmt_source *s)
{
	const uint8_t *h = s->buf;
	uint64_t hsize = rd64(s, h + 8), attr_size, aoff, asz, doff, dsz;

	if (hsize > PMT_PERF_FILE_HEADER_SIZE) {
		return src_fail(s, -PMT_EVERSION, 8, "header size %llu is newer than this build knows (104)",
			  (unsigned long long)hsize);
	}
	if (hsize != PMT_PERF_FILE_HEADER_SIZE && hsize != PMT_PERF_FILE_HEADER_SIZE - 32) {
		return src_fail(s, -PMT_ECORRUPT, 8, "bad header size %llu", (unsigned long long)hsize);
	}
	if (s->size < hsize) {
		return src_fail(s, -PMT_ENEED_MORE, s->size, "file of %zu bytes ends inside the header", s->size);
	}
	attr_size = rd64(s, h + 16);
	aoff = rd64(s, h + 24);
	asz = rd64(s, h + 32);
	doff = rd64(s, h + 40);
	dsz = rd64(s, h + 48);
	if (attr_size < PMT_ATTR_SIZE_VER0 + 16 || attr_size > 4096 + 16) {
		return src_fail(s, -PMT_ECORRUPT, 16, "attr_size %llu is not plausible", (unsigned long long)attr_size);
	}
	if (aoff > s->size || asz > s->size - aoff || asz % attr_size) {
		return src_fail(s, -PMT_ECORRUPT, 24, "attrs section {0x%llx, %llu} is outside the file or not a "
			  "multiple of attr_size %llu", (unsigned long long)aoff,
			  (unsigned long long)asz, (unsigned long long)attr_size);
	}
	if (doff > s->size) {
		return src_fail(s, -PMT_ECORRUPT, 40, "data section offset 0x%llx beyond the file (%zu bytes)",
			  (unsigned long long)doff, s->size);
	}
	for (uint64_t i = 0; i < asz / attr_size; i++) {
		const uint8_t *e = s->buf + aoff + i * attr_size;
		uint64_t ioff = rd64(s, e + attr_size - 16), isz = rd64(s, e + attr_size - 8);
		int rc;

		if (ioff > s->size || isz > s->size - ioff || isz % 8) {
			return src_fail(s, -PMT_ECORRUPT, aoff + i * attr_size, "ids of attr %llu at {0x%llx, %llu} outside the file",
				  (unsigned long long)i, (unsigned long long)ioff,
				  (unsigned long long)isz);
		}
		rc = add_attr(s, e, attr_size - 16, s->buf + ioff, isz / 8);
		if (rc < 0)
			return rc;
	}
	pd_attrs_done(s); /* EVENT_DESC below looks attrs up by id */
	s->data_start = doff;
	if (dsz == 0 && s->size > doff) {
		/* the header written when recording started: the writer never finished */
		src_warn(s, -PMT_ECORRUPT, PMT_DIAG_NO_OFFSET, "data size 0 in the header: the recording was not finished; reading "
			 "its %zu bytes of data to the end of the file", s->size - (size_t)doff);
		s->data_end = s->size;
	} else if (dsz > s->size - doff) {
		src_warn(s, -PMT_ECORRUPT, PMT_DIAG_NO_OFFSET, "data section ends at 0x%llx, beyond the file (%zu bytes); "
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
				src_warn(s, -PMT_ECORRUPT, tab, "feature table at 0x%llx is truncated; features "
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
					src_warn(s, -PMT_ECORRUPT, PMT_DIAG_NO_OFFSET, "feature %u section outside the file", f);
					continue;
				}
				pd_parse_feature(s, f, s->buf + fo, (size_t)fs);
			}
		}
	}
	return 0;
}
