/* perf.data reader: kernel records laid out by hand from include/uapi/linux/perf_event.h,
 * and COMPRESSED/COMPRESSED2 records carrying a zstd stream of them (split points inside
 * records). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "perfdata_test_util.h"

/* ---- kernel records laid out by hand from include/uapi/linux/perf_event.h ------------ */
struct rb {
	uint8_t b[512];
	size_t n;
};

static void rb_u32(struct rb *r, uint32_t v) { memcpy(r->b + r->n, &v, 4); r->n += 4; }
static void rb_u64(struct rb *r, uint64_t v) { memcpy(r->b + r->n, &v, 8); r->n += 8; }
static void rb_hdr(struct rb *r, uint32_t type, uint16_t misc)
{
	r->n = 0;
	rb_u32(r, type);
	memcpy(r->b + 4, &misc, 2);
	r->n = 8;
}
/* sample_id trailer for sample_type TID|TIME|CPU|IDENTIFIER: {pid, tid}, time, {cpu, res}, id */
static void rb_end(struct rb *r, struct pmt_perf_writer *w)
{
	uint16_t sz;

	rb_u32(r, 21);
	rb_u32(r, 22);
	rb_u64(r, 5000);
	rb_u32(r, 3);
	rb_u32(r, 0);
	rb_u64(r, 42);
	sz = (uint16_t)r->n;
	memcpy(r->b + 6, &sz, 2);
	assert_int_equal(pmt_perf_writer_write_record(w, r->b, r->n), 0);
}

static void test_kernel_records(void **state)
{
	char path[128];
	struct pmt_perf_writer *w;
	uint8_t attr[136];
	uint64_t id = 42;
	struct rb r;
	struct pmt_source *s;
	const struct pmt_trace_meta *m;
	struct pmt_trace_event ev;
	int seen = 0, rc;

	tmp_path(path, sizeof(path), "kernel.data");
	make_attr(attr, 8, 0, S_IDENT | S_TID | S_TIME | S_CPU, SID_ALL);
	assert_int_equal(pmt_perf_writer_open(path, NULL, &w), 0);
	assert_int_equal(pmt_perf_writer_add_attr(w, attr, 136, &id, 1, NULL), 0);
	assert_int_equal(pmt_perf_writer_set_feature_str(w, PMT_FEAT_CPUID,
							 "0x00000000410fd0c0"), 0);
	assert_int_equal(pmt_perf_writer_write_auxtrace_info_spe_v1(w, 9, true), 0);
	rb_hdr(&r, 11, 0); /* AUX {aux_offset, aux_size, flags} */
	rb_u64(&r, 0x1000);
	rb_u64(&r, 0x800);
	rb_u64(&r, 0x1 | 0x4); /* TRUNCATED | PARTIAL */
	rb_end(&r, w);
	rb_hdr(&r, 12, 0); /* ITRACE_START {pid, tid} */
	rb_u32(&r, 7);
	rb_u32(&r, 8);
	rb_end(&r, w);
	rb_hdr(&r, 15, (1 << 13) | (1 << 14)); /* SWITCH_CPU_WIDE, out + preempt */
	rb_u32(&r, 30);
	rb_u32(&r, 31);
	rb_end(&r, w);
	rb_hdr(&r, 2, 0); /* LOST {id, lost} */
	rb_u64(&r, 42);
	rb_u64(&r, 17);
	rb_end(&r, w);
	rb_hdr(&r, 13, 0); /* LOST_SAMPLES {lost} */
	rb_u64(&r, 19);
	rb_end(&r, w);
	rb_hdr(&r, 1, 0); /* MMAP {pid, tid, addr, len, pgoff, filename} */
	rb_u32(&r, 1);
	rb_u32(&r, 2);
	rb_u64(&r, 0xffff800008000000ULL);
	rb_u64(&r, 0x2000000);
	rb_u64(&r, 0);
	memcpy(r.b + r.n, "[kernel.kallsyms]\0\0\0\0\0\0", 24);
	r.n += 24;
	rb_end(&r, w);
	rb_hdr(&r, 10, 1 << 14); /* MMAP2, build-id form */
	rb_u32(&r, 1);
	rb_u32(&r, 2);
	rb_u64(&r, 0x400000);
	rb_u64(&r, 0x1000);
	rb_u64(&r, 0);
	r.b[r.n] = 20; /* build_id_size, u8 + u8 + u16 reserved, build_id[20] */
	memset(r.b + r.n + 1, 0, 3);
	for (int i = 0; i < 20; i++)
		r.b[r.n + 4 + i] = (uint8_t)(0xa0 + i);
	r.n += 24;
	rb_u32(&r, 5);
	rb_u32(&r, 2);
	memcpy(r.b + r.n, "/bin/x\0\0", 8);
	r.n += 8;
	rb_end(&r, w);
	assert_int_equal(pmt_perf_writer_close(w), 0);

	assert_int_equal(pmt_source_open(path, &s, NULL), 0);
	m = pmt_source_meta(s);
	assert_int_equal(m->timeless, 0);
	assert_int_equal(m->auxtrace_version, 1);
	assert_int_equal(m->spe_pmu_type, 9);
	/* v1: HEADER_CPUID's MIDR for every CPU */
	assert_int_equal(m->cpu_midr[0], 0x410fd0c0);
	assert_int_equal(m->cpu_midr[100], 0x410fd0c0);
	while ((rc = pmt_source_next(s, &ev)) != -PMT_EEOS) {
		assert_int_equal(rc, 0);
		if (ev.type != PMT_REC_AUXTRACE_INFO) {
			assert_int_equal(ev.sid.valid, 1);
			assert_int_equal(ev.sid.pid, 21);
			assert_int_equal(ev.sid.tid, 22);
			assert_int_equal(ev.sid.time, 5000);
			assert_int_equal(ev.sid.cpu, 3);
			assert_int_equal(ev.sid.id, 42);
		}
		switch (ev.type) {
		case PMT_REC_AUX:
			assert_int_equal(ev.u.aux.aux_offset, 0x1000);
			assert_int_equal(ev.u.aux.aux_size, 0x800);
			assert_int_equal(ev.u.aux.flags, 5);
			seen |= 1;
			break;
		case PMT_REC_ITRACE_START:
			assert_int_equal(ev.u.itrace_start.pid, 7);
			assert_int_equal(ev.u.itrace_start.tid, 8);
			seen |= 2;
			break;
		case PMT_REC_SWITCH_CPU_WIDE:
			assert_int_equal(ev.u.sw.next_prev_pid, 30);
			assert_int_equal(ev.u.sw.next_prev_tid, 31);
			assert_int_equal(ev.u.sw.out, 1);
			assert_int_equal(ev.u.sw.preempt, 1);
			seen |= 4;
			break;
		case PMT_REC_LOST:
			assert_int_equal(ev.u.lost.id, 42);
			assert_int_equal(ev.u.lost.lost, 17);
			seen |= 8;
			break;
		case PMT_REC_LOST_SAMPLES:
			assert_int_equal(ev.u.lost.lost, 19);
			seen |= 16;
			break;
		case PMT_REC_MMAP:
			assert_int_equal(ev.u.mmap.addr, 0xffff800008000000ULL);
			assert_string_equal(ev.u.mmap.filename, "[kernel.kallsyms]");
			seen |= 32;
			break;
		case PMT_REC_MMAP2:
			assert_int_equal(ev.u.mmap.build_id_size, 20);
			assert_int_equal(ev.u.mmap.build_id[0], 0xa0);
			assert_int_equal(ev.u.mmap.build_id[19], 0xb3);
			assert_int_equal(ev.u.mmap.prot, 5);
			assert_string_equal(ev.u.mmap.filename, "/bin/x");
			seen |= 64;
			break;
		default:
			break;
		}
	}
	assert_int_equal(seen, 127);
	pmt_source_close(s);
}

/* ---- COMPRESSED records -------------------------------------------------------------- */

/* Build a file whose data are COMPRESSED/COMPRESSED2 records carrying one zstd stream of
 * the plain records; split points fall inside records. */
/* --call-graph dwarf's fields, after CALLCHAIN in perf_output_sample()'s order: REGS_USER
 * {abi, one u64 per bit of sample_regs_user}, STACK_USER {size, bytes, dyn_size} */
static void rb_dwarf_sample(struct rb *r, struct pmt_perf_writer *w, uint64_t abi,
			    uint64_t stack_size, uint64_t dyn_size)
{
	uint16_t sz;

	rb_hdr(r, 9, 2); /* SAMPLE, user mode */
	rb_u64(r, 42);   /* IDENTIFIER */
	rb_u64(r, 0x401000);
	rb_u32(r, 7);
	rb_u32(r, 8);
	rb_u64(r, 0);    /* CALLCHAIN: nr 0, a user-mode sample with exclude_callchain_user */
	rb_u64(r, abi);
	if (abi) {
		rb_u64(r, 0x111); /* bit 0 */
		rb_u64(r, 0x333); /* bit 2 */
	}
	rb_u64(r, stack_size);
	for (uint64_t i = 0; i < stack_size; i++)
		r->b[r->n++] = (uint8_t)(0xa0 + i);
	if (stack_size)
		rb_u64(r, dyn_size);
	sz = (uint16_t)r->n;
	memcpy(r->b + 6, &sz, 2);
	assert_int_equal(pmt_perf_writer_write_record(w, r->b, r->n), 0);
}

static void test_user_regs_stack(void **state)
{
	char path[128];
	struct pmt_perf_writer *w;
	uint8_t attr[136];
	uint64_t id = 42, mask = 0x5, v;
	struct rb r;
	struct pmt_source *s;
	struct pmt_trace_event ev;
	const struct pmt_sample *smp = &ev.u.sample;

	(void)state;
	tmp_path(path, sizeof(path), "dwarf.data");
	make_attr(attr, 1, 0, S_IDENT | S_IP | S_TID | (1 << 5) | (1 << 12) | (1 << 13), SID_ALL);
	memcpy(attr + 80, &mask, 8); /* sample_regs_user */
	assert_int_equal(pmt_perf_writer_open(path, NULL, &w), 0);
	assert_int_equal(pmt_perf_writer_add_attr(w, attr, 136, &id, 1, NULL), 0);
	rb_dwarf_sample(&r, w, 2, 16, 12);
	rb_dwarf_sample(&r, w, 0, 0, 0);  /* a kernel thread: no registers, no stack */
	rb_dwarf_sample(&r, w, 2, 16, 24); /* dyn_size past the copy: perf's "user stack
					    * dump failure" */
	assert_int_equal(pmt_perf_writer_close(w), 0);

	assert_int_equal(pmt_source_open(path, &s, NULL), 0);
	while (pmt_source_next(s, &ev) == 0 && ev.type != 9)
		;
	assert_int_equal(ev.type, 9);
	assert_int_equal(smp->regs_user_abi, 2);
	assert_int_equal(smp->regs_user_mask, 5);
	assert_true(pmt_sample_reg(smp, 0, &v));
	assert_int_equal(v, 0x111);
	assert_true(pmt_sample_reg(smp, 2, &v));
	assert_int_equal(v, 0x333);
	assert_false(pmt_sample_reg(smp, 1, &v));
	assert_non_null(smp->stack_user);
	assert_int_equal(smp->stack_user_size, 12);
	assert_int_equal(smp->stack_user[0], 0xa0);
	assert_int_equal(smp->stack_user[11], 0xab);

	assert_int_equal(pmt_source_next(s, &ev), 0);
	assert_int_equal(ev.type, 9);
	assert_int_equal(smp->ip, 0x401000);
	assert_null(smp->regs_user);
	assert_false(pmt_sample_reg(smp, 0, &v));
	assert_null(smp->stack_user);

	assert_int_equal(pmt_source_next(s, &ev), -PMT_ECORRUPT);
	assert_non_null(strstr(pmt_source_damage(s)->msg, "dyn_size is larger than the stack"));
	pmt_source_close(s);
}

static void test_compressed(void **state)
{
	char plain[128], comp[128];
	struct pmt_perf_writer *w;
	struct pmt_perf_writer_opts o = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = 0);
	uint8_t attr[136];
	uint64_t id = 1;
	struct pmt_sample_id sid = { .valid = 1, .id = 1 };
	struct pmt_file_map m;
	uint64_t doff, dsz;
	ZSTD_CCtx *cc;
	uint8_t zbuf[1 << 16];
	struct pmt_source *s;
	struct pmt_trace_event ev;
	int nc = 0, rc;

	tmp_path(plain, sizeof(plain), "plain.data");
	tmp_path(comp, sizeof(comp), "comp.data");
	make_attr(attr, 1, 0, S_IDENT | S_TID | S_TIME, SID_ALL);
	assert_int_equal(pmt_perf_writer_open(plain, &o, &w), 0);
	assert_int_equal(pmt_perf_writer_add_attr(w, attr, 136, &id, 1, NULL), 0);
	for (int i = 0; i < 200; i++) {
		char name[16];

		snprintf(name, sizeof(name), "t%d", i);
		sid.pid = sid.tid = (uint32_t)i;
		assert_int_equal(pmt_perf_writer_write_comm(w, (uint32_t)i, (uint32_t)i, name,
							    false, &sid), 0);
	}
	assert_int_equal(pmt_perf_writer_close(w), 0);

	assert_int_equal(pmt_file_map(plain, &m, NULL), 0);
	memcpy(&doff, m.data + 40, 8);
	memcpy(&dsz, m.data + 48, 8);
	cc = ZSTD_createCCtx();
	assert_non_null(cc);
	assert_int_equal(pmt_perf_writer_open(comp, &o, &w), 0);
	assert_int_equal(pmt_perf_writer_add_attr(w, attr, 136, &id, 1, NULL), 0);
	/* chunks of 1000 bytes (not a multiple of any record size) */
	for (uint64_t off = 0, k = 0; off < dsz; off += 1000, k++) {
		ZSTD_inBuffer in = { m.data + doff + off, dsz - off < 1000 ? dsz - off : 1000, 0 };
		uint8_t rec[8 + 8 + sizeof(zbuf)];
		ZSTD_outBuffer out = { zbuf, sizeof(zbuf), 0 };
		bool v2 = k % 2;
		uint32_t type = v2 ? 83 : 81;
		size_t hdr = v2 ? 16 : 8, size;
		uint16_t sz16;

		assert_false(ZSTD_isError(ZSTD_compressStream2(cc, &out, &in, ZSTD_e_flush)));
		assert_int_equal(in.pos, in.size);
		size = hdr + out.pos;
		if (v2)
			size = (size + 7) & ~(size_t)7; /* COMPRESSED2 pads to 8 */
		memset(rec, 0, size);
		memcpy(rec, &type, 4);
		sz16 = (uint16_t)size;
		memcpy(rec + 6, &sz16, 2);
		if (v2) {
			uint64_t dlen = out.pos;

			memcpy(rec + 8, &dlen, 8);
		}
		memcpy(rec + hdr, zbuf, out.pos);
		assert_int_equal(pmt_perf_writer_write_record(w, rec, size), 0);
	}
	assert_int_equal(pmt_perf_writer_close(w), 0);
	ZSTD_freeCCtx(cc);
	pmt_file_unmap(&m);

	assert_int_equal(pmt_source_open(comp, &s, NULL), 0);
	while ((rc = pmt_source_next(s, &ev)) != -PMT_EEOS) {
		char name[16];

		assert_int_equal(rc, 0);
		assert_int_equal(ev.type, PMT_REC_COMM);
		snprintf(name, sizeof(name), "t%d", nc);
		assert_string_equal(ev.u.comm.comm, name);
		assert_int_equal(ev.u.comm.pid, nc);
		assert_int_equal(ev.sid.tid, nc);
		nc++;
	}
	assert_int_equal(nc, 200);
	pmt_source_close(s);
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_records),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_user_regs_stack),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
