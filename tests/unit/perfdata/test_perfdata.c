/* perf.data reader and writer.
 *
 * Expected values come from (a) the constants this test writes itself, checked after a
 * trip through the writer and the reader in every layout (file, pipe, swapped), (b) the
 * perf.data layout as documented in perf's perf.data-file-format.txt and the kernel uapi
 * (byte-level checks below, derived by hand in comments), and (c) perf itself: files
 * recorded by `perf record` at test time and counts printed by `perf report -D`.
 */
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

enum { S_IP = 1, S_TID = 2, S_TIME = 4, S_ADDR = 8, S_ID = 64, S_CPU = 128, S_PERIOD = 256,
       S_WEIGHT_STRUCT = 1 << 24, S_DATA_SRC = 1 << 15, S_IDENT = 1 << 16, S_PHYS = 1 << 19 };
#define SID_ALL (1ULL << 18)

static char tmpdir[64];

static void tmp_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

static int setup_dir(void **state)
{
	strcpy(tmpdir, "/tmp/pmt_perfdata_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void make_attr(uint8_t *attr, uint32_t type, uint64_t config, uint64_t st, uint64_t flags)
{
	memset(attr, 0, 136);
	memcpy(attr, &type, 4);
	memcpy(attr + 8, &config, 8);
	memcpy(attr + 24, &st, 8);
	memcpy(attr + 40, &flags, 8);
}

static const uint8_t aux_payload[13] = { 0xb0, 1, 2, 3, 4, 5, 6, 7, 0x80, 0x71, 9, 9, 9 };

/* The reference trace every layout must reproduce. */
static void write_reference(const char *path, const struct pmt_perf_writer_opts *opts)
{
	struct pmt_perf_writer *w;
	uint8_t a1[136], a2[136];
	uint64_t ids1[2] = { 101, 102 }, ids2[1] = { 201 };
	const char *argv[] = { "perf", "record", "-e", "arm_spe//" };
	uint32_t cpus[2] = { 0, 1 };
	uint64_t midr[2] = { 0x410fd0c0, 0x410fd490 };
	struct pmt_time_conv tc = { .time_shift = 31, .time_mult = 1 << 30, .time_zero = 777,
				    .time_cycles = 5, .time_mask = 0xffff,
				    .cap_user_time_zero = 1, .cap_user_time_short = 1 };
	struct pmt_sample_id sid = { .valid = 1, .pid = 10, .tid = 11, .time = 12345,
				     .cpu = 1, .id = 201 };
	struct pmt_sample smp = { .id = 101, .ip = 0xffff800010001000ULL, .pid = 10, .tid = 11,
				  .time = 99999, .addr = 0xaaaa, .cpu = 1, .period = 4096,
				  .weight = 0x0003000200000001ULL, .data_src = 0x288100142ULL,
				  .phys_addr = 0x8000 };

	make_attr(a1, 8, 1, S_IDENT | S_IP | S_TID | S_TIME | S_ADDR | S_CPU | S_PERIOD |
		  S_WEIGHT_STRUCT | S_DATA_SRC | S_PHYS, SID_ALL);
	make_attr(a2, 1, 9, S_IDENT | S_TID | S_TIME | S_CPU, SID_ALL | 1);
	assert_int_equal(pmt_perf_writer_open(path, opts, &w), 0);
	assert_int_equal(pmt_perf_writer_add_attr(w, a1, 136, ids1, 2, "arm_spe_0//"), 0);
	assert_int_equal(pmt_perf_writer_add_attr(w, a2, 136, ids2, 1, "dummy:u"), 0);
	assert_int_equal(pmt_perf_writer_set_feature_str(w, PMT_FEAT_HOSTNAME, "box"), 0);
	assert_int_equal(pmt_perf_writer_set_feature_str(w, PMT_FEAT_ARCH, "aarch64"), 0);
	assert_int_equal(pmt_perf_writer_set_feature_str(w, PMT_FEAT_OSRELEASE, "6.1.0"), 0);
	assert_int_equal(pmt_perf_writer_set_feature_str(w, PMT_FEAT_CPUID,
							 "0x00000000410fd0c0"), 0);
	assert_int_equal(pmt_perf_writer_set_nrcpus(w, 2, 4), 0);
	assert_int_equal(pmt_perf_writer_set_cmdline(w, 4, argv), 0);
	assert_int_equal(pmt_perf_writer_set_compressed(w, 3, 5, 528384), 0);
	assert_int_equal(pmt_perf_writer_write_auxtrace_info_spe_v2(w, 8, 2, cpus, midr, NULL), 0);
	assert_int_equal(pmt_perf_writer_write_time_conv(w, &tc), 0);
	assert_int_equal(pmt_perf_writer_write_comm(w, 10, 11, "spe-loop", true, &sid), 0);
	assert_int_equal(pmt_perf_writer_write_mmap2(w, 10, 11, 0x400000, 0x1000, 0, 5, 2,
						     "/usr/bin/spe-loop", &sid), 0);
	assert_int_equal(pmt_perf_writer_write_auxtrace(w, aux_payload, sizeof(aux_payload),
							0x40, 7, 1, 11, 1), 0);
	assert_int_equal(pmt_perf_writer_write_sample(w, &smp), 0);
	assert_int_equal(pmt_perf_writer_close(w), 0);
}

static void check_reference(const char *path, bool pipe, bool swapped)
{
	struct pmt_source *s;
	const struct pmt_trace_meta *m;
	struct pmt_trace_event ev;
	int n = 0, rc;

	assert_int_equal(pmt_source_open(path, &s, NULL), 0);
	m = pmt_source_meta(s);
	assert_int_equal(m->pipe_mode, pipe);
	assert_int_equal(m->swapped, swapped);
	assert_int_equal(m->timeless, 0);
	assert_int_equal(m->nr_attrs, 2);
	assert_int_equal(m->attrs[0].type, 8);
	assert_int_equal(m->attrs[0].config, 1);
	assert_int_equal(m->attrs[0].sample_id_all, 1);
	assert_int_equal(m->attrs[0].nr_ids, 2);
	assert_int_equal(m->attrs[0].ids[1], 102);
	assert_string_equal(m->attrs[0].name, "arm_spe_0//");
	assert_string_equal(m->attrs[1].name, "dummy:u");
	assert_int_equal(m->attrs[1].type, 1);
	assert_int_equal(m->attrs[1].attr[40] & 1, 1); /* disabled bit survived the swap */
	assert_string_equal(m->hostname, "box");
	assert_string_equal(m->arch, "aarch64");
	assert_string_equal(m->osrelease, "6.1.0");
	assert_string_equal(m->cpuid, "0x00000000410fd0c0");
	assert_string_equal(m->cmdline, "perf record -e arm_spe//");
	assert_int_equal(m->nr_cpus_online, 2);
	assert_int_equal(m->nr_cpus_avail, 4);
	assert_int_equal(m->comp_type, 1);
	assert_int_equal(m->comp_level, 3);
	assert_int_equal(m->comp_mmap_len, 528384);
	assert_int_equal(m->has_auxtrace_info, 1);
	assert_int_equal(m->auxtrace_type, 4);
	assert_int_equal(m->auxtrace_version, 2);
	assert_int_equal(m->spe_pmu_type, 8);
	assert_true(m->nr_cpus >= 2);
	/* v2 per-CPU MIDRs win over HEADER_CPUID */
	assert_int_equal(m->cpu_midr[0], 0x410fd0c0);
	assert_int_equal(m->cpu_midr[1], 0x410fd490);
	assert_int_equal(m->has_time_conv, 1);
	assert_int_equal(m->time_conv.time_shift, 31);
	assert_int_equal(m->time_conv.time_mult, 1 << 30);
	assert_int_equal(m->time_conv.time_zero, 777);
	assert_int_equal(m->time_conv.time_mask, 0xffff);
	assert_int_equal(m->time_conv.cap_user_time_short, 1);

	while ((rc = pmt_source_next(s, &ev)) != -PMT_EEOS) {
		assert_int_equal(rc, 0);
		switch (ev.type) {
		case PMT_REC_COMM:
			assert_int_equal(ev.u.comm.pid, 10);
			assert_int_equal(ev.u.comm.tid, 11);
			assert_string_equal(ev.u.comm.comm, "spe-loop");
			assert_int_equal(ev.u.comm.exec, 1);
			assert_int_equal(ev.sid.valid, 1);
			assert_int_equal(ev.sid.time, 12345);
			assert_int_equal(ev.sid.cpu, 1);
			assert_int_equal(ev.sid.id, 201);
			n++;
			break;
		case PMT_REC_MMAP2:
			assert_int_equal(ev.u.mmap.addr, 0x400000);
			assert_int_equal(ev.u.mmap.len, 0x1000);
			assert_int_equal(ev.u.mmap.prot, 5);
			assert_int_equal(ev.u.mmap.flags, 2);
			assert_string_equal(ev.u.mmap.filename, "/usr/bin/spe-loop");
			assert_int_equal(ev.sid.tid, 11);
			n++;
			break;
		case PMT_REC_AUXTRACE:
			assert_int_equal(ev.kind, PMT_TEV_AUXTRACE);
			/* 13 bytes padded with zeros (PAD packets) to 16 */
			assert_int_equal(ev.u.auxtrace.size, 16);
			assert_memory_equal(ev.u.auxtrace.data, aux_payload, 13);
			assert_int_equal(ev.u.auxtrace.data[13] | ev.u.auxtrace.data[15], 0);
			assert_int_equal(ev.u.auxtrace.offset, 0x40);
			assert_int_equal(ev.u.auxtrace.reference, 7);
			assert_int_equal(ev.u.auxtrace.idx, 1);
			assert_int_equal(ev.u.auxtrace.tid, 11);
			assert_int_equal(ev.u.auxtrace.cpu, 1);
			n++;
			break;
		case PMT_REC_SAMPLE:
			assert_non_null(ev.u.sample.attr);
			assert_ptr_equal(ev.u.sample.attr, &m->attrs[0]);
			assert_int_equal(ev.u.sample.id, 101);
			assert_int_equal(ev.u.sample.ip, 0xffff800010001000ULL);
			assert_int_equal(ev.u.sample.pid, 10);
			assert_int_equal(ev.u.sample.tid, 11);
			assert_int_equal(ev.u.sample.time, 99999);
			assert_int_equal(ev.u.sample.addr, 0xaaaa);
			assert_int_equal(ev.u.sample.cpu, 1);
			assert_int_equal(ev.u.sample.period, 4096);
			/* var1_dw = 1, var3_w (retire latency) = 3 in host terms */
			assert_int_equal(ev.u.sample.weight, 0x0003000200000001ULL);
			assert_int_equal(ev.u.sample.data_src, 0x288100142ULL);
			assert_int_equal(ev.u.sample.phys_addr, 0x8000);
			n++;
			break;
		default:
			break;
		}
	}
	assert_int_equal(n, 4);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_EEOS);
	pmt_source_close(s);
}

static void roundtrip(bool pipe, bool swap)
{
	char path[128];
	struct pmt_perf_writer_opts o = { .pipe = pipe, .swap = swap };

	tmp_path(path, sizeof(path), "ref.data");
	write_reference(path, &o);
	check_reference(path, pipe, swap);
}

static void test_roundtrip_file(void **state) { roundtrip(false, false); }
static void test_roundtrip_pipe(void **state) { roundtrip(true, false); }
static void test_roundtrip_swapped(void **state) { roundtrip(false, true); }
static void test_roundtrip_swapped_pipe(void **state) { roundtrip(true, true); }

static uint64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* The swapped file really is big-endian, by the documented layout. */
static void test_swapped_bytes(void **state)
{
	char path[128];
	struct pmt_perf_writer_opts o = { .swap = 1 };
	struct pmt_file_map m;
	uint64_t attrs_off;

	tmp_path(path, sizeof(path), "be.data");
	write_reference(path, &o);
	assert_int_equal(pmt_file_map(path, &m, NULL), 0);
	assert_memory_equal(m.data, "2ELIFREP", 8); /* "PERFILE2" as a big-endian u64 */
	assert_int_equal(be64(m.data + 8), 104);       /* header size */
	assert_int_equal(be64(m.data + 16), 128 + 16); /* attr_size: VER7 attr + ids section */
	attrs_off = be64(m.data + 24);
	assert_int_equal(be64(m.data + 32), 2 * 144);
	/* attr type 8, big-endian u32 at attr offset 0 */
	assert_int_equal(m.data[attrs_off + 3], 8);
	/* sample_id_all is bitfield bit 18; a big-endian compiler allocates bitfields from
	 * the top, so it is bit 63-18 = 45 of the big-endian u64: byte 2, mask 0x20 */
	assert_int_equal(m.data[attrs_off + 40 + 2], 0x20);
	assert_int_equal(m.data[attrs_off + 40 + 7], 0);
	/* as perf record lays a file out: header, the attrs' ids, the attrs, then the data
	 * (so a file cut short keeps its attrs); the first record is AUXTRACE_INFO (70) */
	assert_true(attrs_off >= 104 && (attrs_off - 104) % 8 == 0);
	assert_int_equal(be64(m.data + 40), attrs_off + 2 * 144);
	assert_int_equal(m.data[attrs_off + 2 * 144 + 3], 70);
	pmt_file_unmap(&m);
}

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
static void test_compressed(void **state)
{
	char plain[128], comp[128];
	struct pmt_perf_writer *w;
	struct pmt_perf_writer_opts o = { 0 };
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

/* ---- bad input ------------------------------------------------------------------------- */
static void quiet(enum pmt_log_level l, const char *msg, void *ctx) { }

static uint8_t *ref_bytes(size_t *len)
{
	char path[128];
	struct pmt_perf_writer_opts o = { 0 };
	struct pmt_file_map m;
	uint8_t *b;

	tmp_path(path, sizeof(path), "bad.data");
	write_reference(path, &o);
	assert_int_equal(pmt_file_map(path, &m, NULL), 0);
	b = malloc(m.size);
	assert_non_null(b);
	memcpy(b, m.data, m.size);
	*len = m.size;
	pmt_file_unmap(&m);
	return b;
}

/* Drain a source; every call must make progress: at most records + errors + 1 calls. */
static int drain(struct pmt_source *s, size_t len)
{
	struct pmt_trace_event ev;
	int errors = 0;

	for (size_t i = 0; i < len / 8 + 2; i++) {
		int rc = pmt_source_next(s, &ev);

		if (rc == -PMT_EEOS)
			return errors;
		if (rc < 0)
			errors++;
	}
	fail_msg("source did not reach the end");
	return -1;
}

static void test_bad_magic_version(void **state)
{
	size_t len;
	uint8_t *b = ref_bytes(&len);
	struct pmt_source *s;
	struct pmt_diag d = PMT_DIAG_INIT;
	char msg[256];

	pmt_log_set_sink(quiet, NULL);
	memcpy(b, "NOTPERF!", 8);
	assert_int_equal(pmt_source_open_mem(b, len, &s, &d), -PMT_EFORMAT);
	assert_null(s);
	assert_int_equal(d.code, -PMT_EFORMAT);
	assert_int_equal(d.offset, 0);
	pmt_diag_format(&d, msg, sizeof(msg));
	assert_string_equal(msg, "(memory): offset 0: not a perf.data file (no PERFILE2 magic)");
	memcpy(b, "PERFFILE", 8);
	assert_int_equal(pmt_source_open_mem(b, len, &s, &d), -PMT_EVERSION);
	memcpy(b, "PERFILE2", 8);
	b[8] = 200; /* header size from a future perf */
	assert_int_equal(pmt_source_open_mem(b, len, &s, &d), -PMT_EVERSION);
	assert_int_equal(d.offset, 8);
	b[8] = 104;
	b[16] = 5; /* attr_size nonsense */
	assert_int_equal(pmt_source_open_mem(b, len, &s, &d), -PMT_ECORRUPT);
	assert_int_equal(d.offset, 16);
	pmt_diag_format(&d, msg, sizeof(msg));
	assert_string_equal(msg, "(memory): offset 0x10: attr_size 5 is not plausible");
	b[16] = 144;
	assert_int_equal(pmt_source_open_mem(b, len, &s, NULL), 0);
	pmt_source_close(s);
	assert_int_equal(pmt_source_open_mem(b, 10, &s, &d), -PMT_EFORMAT);
	/* a missing file: the system's words and the file's name */
	assert_int_equal(pmt_source_open("/nonexistent/x.data", &s, &d), -PMT_EIO);
	pmt_diag_format(&d, msg, sizeof(msg));
	assert_string_equal(msg, "/nonexistent/x.data: No such file or directory");
	pmt_log_set_sink(NULL, NULL);
	free(b);
}

static void test_truncated_everywhere(void **state)
{
	size_t len;
	uint8_t *b = ref_bytes(&len);

	pmt_log_set_sink(quiet, NULL);
	for (size_t k = 0; k <= len; k++) {
		uint8_t *c = malloc(k ? k : 1); /* exact-size copy so ASan sees overreads */
		struct pmt_source *s;

		memcpy(c, b, k);
		if (pmt_source_open_mem(c, k, &s, NULL) == 0) {
			drain(s, k);
			pmt_source_close(s);
		}
		free(c);
	}
	pmt_log_set_sink(NULL, NULL);
	free(b);
}

/* Offset of the first record of `type` in a file-mode image. */
static size_t find_record(const uint8_t *b, uint32_t type)
{
	uint64_t off, end;

	memcpy(&off, b + 40, 8);
	memcpy(&end, b + 48, 8);
	end += off;
	while (off + 8 <= end) {
		uint32_t t;
		uint16_t sz;

		memcpy(&t, b + off, 4);
		memcpy(&sz, b + off + 6, 2);
		if (t == type)
			return (size_t)off;
		if (t == PMT_REC_AUXTRACE) {
			uint64_t p;

			memcpy(&p, b + off + 8, 8);
			off += p;
		}
		off += sz;
	}
	fail_msg("record type %u not found", type);
	return 0;
}

static void test_corrupt_sizes(void **state)
{
	size_t len, at;
	uint8_t *b = ref_bytes(&len), *c;
	struct pmt_source *s;
	struct pmt_trace_event ev;
	uint16_t sz;
	int rc;

	pmt_log_set_sink(quiet, NULL);
	c = malloc(len);
	/* 0-size record: an error at its offset, then the reader finds the next record (the
	 * MMAP2 the writer put after the COMM) and goes on; never a loop */
	memcpy(c, b, len);
	at = find_record(c, PMT_REC_COMM);
	memset(c + at + 6, 0, 2);
	assert_int_equal(pmt_source_open_mem(c, len, &s, NULL), 0);
	do
		rc = pmt_source_next(s, &ev);
	while (rc == 0);
	assert_int_equal(rc, -PMT_ECORRUPT);
	assert_int_equal(pmt_source_offset(s), at);
	assert_int_equal(pmt_source_next(s, &ev), 0);
	assert_int_equal(ev.type, PMT_REC_MMAP2);
	assert_string_equal(ev.u.mmap.filename, "/usr/bin/spe-loop");
	assert_int_equal(pmt_source_next(s, &ev), 0);
	assert_int_equal(ev.type, PMT_REC_AUXTRACE);
	assert_int_equal(pmt_source_next(s, &ev), 0);
	assert_int_equal(ev.type, PMT_REC_SAMPLE);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_EEOS);
	pmt_source_close(s);

	/* all-zero data: one error, no record invented, no loop */
	memcpy(c, b, len);
	{
		uint64_t doff, dsz;

		memcpy(&doff, c + 40, 8);
		memcpy(&dsz, c + 48, 8);
		memset(c + doff, 0, dsz);
	}
	assert_int_equal(pmt_source_open_mem(c, len, &s, NULL), 0);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_ECORRUPT);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_EEOS);
	pmt_source_close(s);

	/* huge size running past the data */
	memcpy(c, b, len);
	sz = 0xfff8;
	memcpy(c + at + 6, &sz, 2);
	assert_int_equal(pmt_source_open_mem(c, len, &s, NULL), 0);
	do
		rc = pmt_source_next(s, &ev);
	while (rc == 0);
	assert_int_equal(rc, -PMT_ENEED_MORE);
	assert_int_equal(pmt_source_offset(s), at);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_EEOS);
	pmt_source_close(s);

	/* a SAMPLE too short for its sample_type: error, and the reader goes on */
	memcpy(c, b, len);
	at = find_record(c, PMT_REC_SAMPLE);
	memcpy(&sz, c + at + 6, 2);
	{
		/* shrink it to 16 bytes and turn the rest into a harmless record of type 99 */
		uint16_t rest = (uint16_t)(sz - 16), small = 16;
		uint32_t t99 = 99;

		memcpy(c + at + 6, &small, 2);
		memcpy(c + at + 16, &t99, 4);
		memset(c + at + 20, 0, 2);
		memcpy(c + at + 22, &rest, 2);
	}
	assert_int_equal(pmt_source_open_mem(c, len, &s, NULL), 0);
	do
		rc = pmt_source_next(s, &ev);
	while (rc == 0 && ev.type != PMT_REC_SAMPLE);
	assert_int_equal(rc, -PMT_ECORRUPT);
	assert_int_equal(pmt_source_offset(s), at);
	assert_int_equal(pmt_source_next(s, &ev), 0);
	assert_int_equal(ev.type, 99);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_EEOS);
	pmt_source_close(s);

	/* AUXTRACE announcing more bytes than the file holds: what exists is delivered */
	memcpy(c, b, len);
	at = find_record(c, PMT_REC_AUXTRACE);
	{
		uint64_t huge = 1ULL << 40;

		memcpy(c + at + 8, &huge, 8);
	}
	assert_int_equal(pmt_source_open_mem(c, len, &s, NULL), 0);
	do
		rc = pmt_source_next(s, &ev);
	while (rc == 0 && ev.type != PMT_REC_AUXTRACE);
	assert_int_equal(rc, 0);
	assert_int_equal(ev.u.auxtrace.truncated, 1);
	assert_true(ev.u.auxtrace.size >= 13 && ev.u.auxtrace.size < len);
	assert_memory_equal(ev.u.auxtrace.data, aux_payload, 13);
	assert_int_equal(pmt_source_next(s, &ev), -PMT_EEOS);
	pmt_source_close(s);

	pmt_log_set_sink(NULL, NULL);
	free(c);
	free(b);
}

/* ---- files written by perf itself ------------------------------------------------------ */

/* perf report -D prints "  <NAME> events: <n>" in its aggregated stats. */
static long perf_count(const char *file, const char *name)
{
	char cmd[512], line[256];
	FILE *p;
	long n = 0;

	snprintf(cmd, sizeof(cmd), "perf report -D -i %s 2>/dev/null | sed -n '/^Aggregated stats/,/stats:$/p'",
		 file);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char nm[64];
		long v;

		if (sscanf(line, " %63s events: %ld", nm, &v) == 2 && !strcmp(nm, name))
			n = v;
	}
	pclose(p);
	return n;
}

static void check_perf_file(const char *path, bool pipe)
{
	struct pmt_source *s;
	struct pmt_trace_event ev;
	const struct pmt_trace_meta *m;
	long n_comm = 0, n_mmap2 = 0, n_sample = 0, n_mmap = 0;
	uint32_t true_pid = 0;
	int rc;

	assert_int_equal(pmt_source_open(path, &s, NULL), 0);
	m = pmt_source_meta(s);
	assert_int_equal(m->pipe_mode, pipe);
	assert_int_equal(m->timeless, 0);
	assert_true(m->nr_attrs >= 1);
	assert_int_equal(m->attrs[0].type, 1); /* PERF_TYPE_SOFTWARE, cpu-clock = 0 */
	assert_int_equal(m->attrs[0].config, 0);
	assert_non_null(m->hostname);
	while ((rc = pmt_source_next(s, &ev)) != -PMT_EEOS) {
		assert_int_equal(rc, 0);
		switch (ev.type) {
		case PMT_REC_COMM:
			n_comm++;
			if (!strcmp(ev.u.comm.comm, "true"))
				true_pid = ev.u.comm.pid;
			break;
		case PMT_REC_MMAP2:
			n_mmap2++;
			assert_true(ev.u.mmap.len > 0);
			assert_true(ev.u.mmap.filename[0] != 0);
			break;
		case PMT_REC_MMAP:
			n_mmap++;
			break;
		case PMT_REC_SAMPLE:
			n_sample++;
			assert_non_null(ev.u.sample.attr);
			assert_true(ev.u.sample.time > 0);
			assert_true(ev.u.sample.period > 0);
			assert_true(ev.u.sample.cpu < m->nr_cpus_avail || m->nr_cpus_avail == 0);
			if (true_pid)
				assert_int_equal(ev.u.sample.pid, true_pid);
			break;
		default:
			break;
		}
	}
	assert_int_equal(n_comm, perf_count(path, "COMM"));
	assert_int_equal(n_mmap2, perf_count(path, "MMAP2"));
	assert_int_equal(n_mmap, perf_count(path, "MMAP"));
	assert_int_equal(n_sample, perf_count(path, "SAMPLE"));
	assert_true(n_comm >= 1);
	pmt_source_close(s);
}

static void test_perf_recorded(void **state)
{
	char f[128], z[128], p[128], cmd[512];

	tmp_path(f, sizeof(f), "perf.data");
	tmp_path(z, sizeof(z), "perfz.data");
	tmp_path(p, sizeof(p), "perf.pipe");
	snprintf(cmd, sizeof(cmd), "perf record -q -e cpu-clock -o %s -- true >/dev/null 2>&1", f);
	if (system("command -v perf >/dev/null 2>&1") || system(cmd)) {
		skip();
		return;
	}
	check_perf_file(f, false);
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -z -e cpu-clock -o %s -- sh -c 'ls /usr/bin >/dev/null' >/dev/null 2>&1",
		 z);
	assert_int_equal(system(cmd), 0);
	check_perf_file(z, false);
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -e cpu-clock -o - -- true 2>/dev/null | cat > %s", p);
	assert_int_equal(system(cmd), 0);
	check_perf_file(p, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_file),
		cmocka_unit_test(test_roundtrip_pipe),
		cmocka_unit_test(test_roundtrip_swapped),
		cmocka_unit_test(test_roundtrip_swapped_pipe),
		cmocka_unit_test(test_swapped_bytes),
		cmocka_unit_test(test_kernel_records),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_bad_magic_version),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_corrupt_sizes),
		cmocka_unit_test(test_perf_recorded),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
