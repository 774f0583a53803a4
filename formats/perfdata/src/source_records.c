/* Typed records: one perf.data record (kernel or perf tool) into a pmt_trace_event,
 * samples parsed per their attr's sample_type. */
#include "source_priv.h"

/* ---- sample parsing --------------------------------------------------------------------- */
static struct pmt_trace_attr *attr_of_sample(struct pmt_source *s, const uint8_t *r, size_t size)
{
	uint64_t st, pos;

	if (s->nr_attrs == 1)
		return &s->attrs[0];
	if (s->nr_attrs == 0)
		return NULL;
	if (s->first_identifier)
		return size >= 16 ? pd_attr_by_id(s, rd64(s, r + 8)) : NULL;
	st = s->attrs[0].sample_type;
	if (!(st & PMT_SAMPLE_ID))
		return &s->attrs[0];
	pos = 8 + 8 * (uint64_t)__builtin_popcountll(st & (PMT_SAMPLE_IP | PMT_SAMPLE_TID |
							    PMT_SAMPLE_TIME | PMT_SAMPLE_ADDR));
	return size >= pos + 8 ? pd_attr_by_id(s, rd64(s, r + pos)) : NULL;
}

static struct pmt_trace_attr *attr_of_other(struct pmt_source *s, const uint8_t *r, size_t size)
{
	uint64_t st, back;

	if (s->nr_attrs == 1)
		return &s->attrs[0];
	if (s->nr_attrs == 0)
		return NULL;
	if (s->first_identifier)
		return size >= 16 ? pd_attr_by_id(s, rd64(s, r + size - 8)) : NULL;
	st = s->attrs[0].sample_type;
	if (!(st & PMT_SAMPLE_ID))
		return &s->attrs[0];
	back = 8 * (1 + (uint64_t)__builtin_popcountll(st & (PMT_SAMPLE_STREAM_ID | PMT_SAMPLE_CPU)));
	return size >= back + 8 ? pd_attr_by_id(s, rd64(s, r + size - back)) : NULL;
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
		if (size >= 16 && s->first_identifier)
			smp->id = rd64(s, r + 8);
		return 0;
	}
	smp->attr = a;
	smp->callchain_swap = s->swap; /* the registers are read by it too */
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
		smp->callchain = p;
		smp->callchain_nr = v;
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
		/* abi 0 (PERF_SAMPLE_REGS_ABI_NONE): a kernel thread, no registers follow */
		if (v) {
			smp->regs_user_abi = v;
			smp->regs_user_mask = mask;
			smp->regs_user = p;
			SKIP(8 * (uint64_t)__builtin_popcountll(mask));
		}
	}
	if (st & PMT_SAMPLE_STACK_USER) {
		U64(v);
		if (v) {
			const uint8_t *stack = p;

			SKIP(v);
			/* dyn_size: how much of the copy the kernel could read */
			U64(smp->stack_user_size);
			if (smp->stack_user_size > v)
				return -PMT_ERANGE;
			smp->stack_user = stack;
		}
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
int pd_decode_record(struct pmt_source *s, const uint8_t *r, size_t size, uint64_t off,
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
		if (rc == -PMT_ERANGE) /* perf: "user stack dump failure" */
			src_error(s, rc = -PMT_ECORRUPT, off, "SAMPLE at 0x%llx: the user stack's "
				  "dyn_size is larger than the stack copy", (unsigned long long)off);
		else if (rc < 0)
			src_error(s, rc, off, "SAMPLE at 0x%llx overruns its size %zu",
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
		/* perf's auxtrace_queues__add_buffer(): a pipe's chunk goes to
		 * auxtrace_copy_data()'s malloc, a file's is used where it is mapped */
		ev->u.auxtrace.pad_base = s->meta.pipe_mode ? 0
					  : ev->u.auxtrace.transient ? ev->u.auxtrace.offset
					  : (uint64_t)(uintptr_t)ev->u.auxtrace.data;
		if (sz > payload_avail) {
			src_error(s, -PMT_ENEED_MORE, off, "AUXTRACE at 0x%llx: %llu bytes announced, %zu present",
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
	case PMT_REC_FORK:
	case PMT_REC_EXIT:
		NEED(32);
		ev->u.task.pid = rd32(s, r + 8);
		ev->u.task.ppid = rd32(s, r + 12);
		ev->u.task.tid = rd32(s, r + 16);
		ev->u.task.ptid = rd32(s, r + 20);
		ev->u.task.time = rd64(s, r + 24);
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
		ev->u.mmap.maj = rd32(s, r + 40);
		ev->u.mmap.min = rd32(s, r + 44);
		ev->u.mmap.ino = rd64(s, r + 48);
		ev->u.mmap.ino_generation = rd64(s, r + 56);
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
		pd_parse_auxtrace_info(s, r, size, off);
		break;
	case PMT_REC_TIME_CONV:
		pd_parse_time_conv(s, r, size, off);
		break;
	default:
		break;
	}
#undef NEED
	return rc;
short_rec:
	src_error(s, -PMT_ECORRUPT, off, "record type %u at 0x%llx too short (%zu bytes)", type,
		  (unsigned long long)off, size);
	return -PMT_ECORRUPT;
}
