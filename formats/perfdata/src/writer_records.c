/* perf.data writer: records (kernel records with their sample_id trailer, AUXTRACE, SPE
 * AUXTRACE_INFO, TIME_CONV, samples) and copies between byte orders. */
#include "pmutrace/container.h"
#include "writer_priv.h"

int pmt_perf_writer_write_record(struct pmt_perf_writer *w, const void *raw, size_t size)
{
	PMT_FORWARD_IF_ERROR(pdw_start(w));
	if (size < 8)
		return -PMT_EINVAL;
	{
		uint32_t type;

		memcpy(&type, raw, 4);
		if ((w->swap ? __builtin_bswap32(type) : type) == PMT_REC_AUXTRACE_INFO)
			w->has_auxtrace = true;
	}
	pdw_emit(w, raw, size);
	return w->err;
}

/* An AUXTRACE record's header in w->rec, its offset noted for file mode's index */
static int auxtrace_header(struct pmt_perf_writer *w, uint64_t padded, uint64_t offset,
			   uint64_t reference, uint32_t idx, uint32_t tid, uint32_t cpu)
{
	PMT_FORWARD_IF_ERROR(pdw_start(w));
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
	return pdw_seal_rec(w);
}

int pmt_perf_writer_write_auxtrace(struct pmt_perf_writer *w, const void *data, uint64_t size,
				   uint64_t offset, uint64_t reference, uint32_t idx,
				   uint32_t tid, uint32_t cpu)
{
	static const uint8_t zero[8];
	uint64_t padded = (size + 7) & ~7ULL;

	PMT_FORWARD_IF_ERROR(auxtrace_header(w, padded, offset, reference, idx, tid, cpu));
	pdw_emit(w, w->rec.data, w->rec.len);
	pdw_emit(w, data, (size_t)size);
	pdw_emit(w, zero, (size_t)(padded - size));
	return w->err;
}

int pmt_perf_writer_write_auxtrace_ctr(struct pmt_perf_writer *w, struct pmt_ctr_writer *ctr,
				       const void *a, size_t alen, const void *b, size_t blen,
				       uint64_t offset, uint64_t reference, uint32_t idx,
				       uint32_t tid, uint32_t cpu)
{
	static const uint8_t zero[8];
	uint64_t padded = (alen + blen + 7) & ~7ULL;
	struct pmt_ctr_piece v[4];

	PMT_FORWARD_IF_ERROR(auxtrace_header(w, padded, offset, reference, idx, tid, cpu));
	/* the records before it reach the container first, whole */
	if (fflush(w->fp))
		return w->err = -PMT_EIO;
	v[0] = (struct pmt_ctr_piece){ w->rec.data, w->rec.len };
	v[1] = (struct pmt_ctr_piece){ a, alen };
	v[2] = (struct pmt_ctr_piece){ b, blen };
	v[3] = (struct pmt_ctr_piece){ zero, (size_t)(padded - alen - blen) };
	w->err = pmt_ctr_writev(ctr, v, 4);
	w->off += w->rec.len + padded;
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

	PMT_FORWARD_IF_ERROR(pdw_start(w));
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
	return pdw_end_rec(w);
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
	PMT_FORWARD_IF_ERROR(pdw_start(w));
	put_hdr(w, PMT_REC_COMM, exec ? PMT_MISC_COMM_EXEC : 0);
	put32(w, pid);
	put32(w, tid);
	put_cstr8(w, comm, 15); /* TASK_COMM_LEN - 1 */
	put_sid(w, sid);
	return pdw_end_rec(w);
}

int pmt_perf_writer_write_mmap2(struct pmt_perf_writer *w, uint32_t pid, uint32_t tid,
				uint64_t addr, uint64_t len, uint64_t pgoff, uint32_t prot,
				uint32_t flags, const char *filename,
				const struct pmt_sample_id *sid)
{
	PMT_FORWARD_IF_ERROR(pdw_start(w));
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
	return pdw_end_rec(w);
}

/* A map of the kernel's (PERF_RECORD_MMAP, cpumode kernel, pid -1) */
static int write_kernel_map(struct pmt_perf_writer *w, uint64_t start, uint64_t len,
			    uint64_t pgoff, const char *name, const struct pmt_sample_id *sid)
{
	PMT_FORWARD_IF_ERROR(pdw_start(w));
	put_hdr(w, PMT_REC_MMAP, 1 /* PERF_RECORD_MISC_KERNEL */);
	put32(w, UINT32_MAX); /* pid -1 */
	put32(w, 0);
	put64(w, start);
	put64(w, len);
	put64(w, pgoff);
	put_cstr8(w, name, 4095);
	put_sid(w, sid);
	return pdw_end_rec(w);
}

int pmt_perf_writer_write_kernel_mmap(struct pmt_perf_writer *w, uint64_t start, uint64_t len,
				      uint64_t text_addr, const struct pmt_sample_id *sid)
{
	return write_kernel_map(w, start, len, text_addr, "[kernel.kallsyms]_text", sid);
}

int pmt_perf_writer_write_module_mmap(struct pmt_perf_writer *w, uint64_t start, uint64_t len,
				      const char *path, const struct pmt_sample_id *sid)
{
	return path ? write_kernel_map(w, start, len, 0, path, sid) : -PMT_EINVAL;
}

int pmt_perf_writer_write_mmap2_build_id(struct pmt_perf_writer *w, uint32_t pid, uint32_t tid,
					 uint64_t addr, uint64_t len, uint64_t pgoff,
					 uint32_t prot, uint32_t flags, const uint8_t *build_id,
					 size_t build_id_size, const char *filename,
					 const struct pmt_sample_id *sid)
{
	uint8_t bid[24] = { 0 };

	if (!build_id || build_id_size > 20)
		return -PMT_EINVAL;
	bid[0] = (uint8_t)build_id_size;
	memcpy(bid + 4, build_id, build_id_size);
	PMT_FORWARD_IF_ERROR(pdw_start(w));
	/* PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID */
	put_hdr(w, PMT_REC_MMAP2, 2 | (1u << 14));
	put32(w, pid);
	put32(w, tid);
	put64(w, addr);
	put64(w, len);
	put64(w, pgoff);
	put(w, bid, sizeof(bid)); /* build_id_size, 3 reserved bytes, build_id[20] */
	put32(w, prot);
	put32(w, flags);
	put_cstr8(w, filename, 4095);
	put_sid(w, sid);
	return pdw_end_rec(w);
}

int pmt_perf_writer_write_time_conv(struct pmt_perf_writer *w, const struct pmt_time_conv *tc)
{
	PMT_FORWARD_IF_ERROR(pdw_start(w));
	put_hdr(w, PMT_REC_TIME_CONV, 0);
	put64(w, tc->time_shift);
	put64(w, tc->time_mult);
	put64(w, tc->time_zero);
	put64(w, tc->time_cycles);
	put64(w, tc->time_mask);
	put(w, &tc->cap_user_time_zero, 1);
	put(w, &tc->cap_user_time_short, 1);
	put_zero(w, 6);
	return pdw_end_rec(w);
}

int pmt_perf_writer_write_auxtrace_info_spe_v1(struct pmt_perf_writer *w, uint64_t pmu_type,
					       bool per_cpu_mmaps)
{
	PMT_FORWARD_IF_ERROR(pdw_start(w));
	w->has_auxtrace = true;
	put_hdr(w, PMT_REC_AUXTRACE_INFO, 0);
	put32(w, PMT_AUXTRACE_ARM_SPE);
	put32(w, 0);
	put64(w, pmu_type);
	put64(w, per_cpu_mmaps);
	return pdw_end_rec(w);
}

int pmt_perf_writer_write_auxtrace_info_spe_v2(struct pmt_perf_writer *w, uint64_t pmu_type,
					       uint32_t nr_cpus, const uint32_t *cpus,
					       const uint64_t *midr, const uint64_t *event_filter)
{
	PMT_FORWARD_IF_ERROR(pdw_start(w));
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
	return pdw_end_rec(w);
}

int pmt_perf_writer_write_auxtrace_info_spe_cpus(struct pmt_perf_writer *w, uint64_t pmu_type,
						  uint32_t nr_cpus, const struct pmt_spe_cpu_meta *cpus)
{
	PMT_FORWARD_IF_ERROR(pdw_start(w));
	/* header.size is a u16: 48 bytes of header and info, then 7 u64 per CPU */
	if (nr_cpus == 0 || nr_cpus > (65535u - 48) / 56)
		return -PMT_EINVAL;
	w->has_auxtrace = true;
	put_hdr(w, PMT_REC_AUXTRACE_INFO, 0);
	put32(w, PMT_AUXTRACE_ARM_SPE);
	put32(w, 0);
	put64(w, 2);
	put64(w, 4);
	put64(w, pmu_type);
	put64(w, nr_cpus);
	for (uint32_t i = 0; i < nr_cpus; i++) {
		put64(w, PMT_SPE_V2_MAGIC);
		put64(w, cpus[i].cpu);
		put64(w, 4);
		put64(w, cpus[i].midr);
		put64(w, cpus[i].pmu_type);
		put64(w, cpus[i].min_interval);
		put64(w, cpus[i].event_filter);
	}
	return pdw_end_rec(w);
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

	PMT_FORWARD_IF_ERROR(pdw_start(w));
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
	return pdw_end_rec(w);
}
