/* perf.data writer and reader: one reference trace through the writer and the reader in
 * every layout (file, pipe, swapped); the expected values are the constants the test writes
 * itself, and the swapped file's bytes are checked against perf's perf.data-file-format.txt
 * layout by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <unistd.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "perfdata_test_util.h"

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
	struct pmt_perf_writer_opts o = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = pipe, .swap = swap);

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
	struct pmt_perf_writer_opts o = PMT_OPTS_INIT(pmt_perf_writer_opts, .swap = 1);
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

/* A trace copied into the other byte order (what convert --swap does): the metadata and every
 * record come out equal when read back, the header records are made once (not copied), and
 * --midr's CPUID replaces the input's. */
static void test_copy_swapped(void **state)
{
	char in[128], out[128];
	struct pmt_perf_writer_opts o = PMT_OPTS_INIT(pmt_perf_writer_opts, .swap = 1);
	struct pmt_perf_writer *w;
	struct pmt_source *a, *b;
	const struct pmt_trace_meta *ma, *mb;
	struct pmt_trace_event ea, eb;
	int n = 0, ra;

	tmp_path(in, sizeof(in), "copy-in.data");
	tmp_path(out, sizeof(out), "copy-out.data");
	write_reference(in, NULL);
	assert_int_equal(pmt_source_open(in, &a, NULL), 0);
	ma = pmt_source_meta(a);
	assert_int_equal(pmt_perf_writer_open(out, &o, &w), 0);
	assert_int_equal(pmt_perf_writer_copy_meta(w, ma), 0);
	assert_int_equal(pmt_perf_writer_set_midr(w, 0x413fd0c1), 0);
	while ((ra = pmt_source_next(a, &ea)) == 0)
		assert_int_equal(pmt_perf_writer_copy_event(w, ma, &ea), 0);
	assert_int_equal(ra, -PMT_EEOS);
	assert_int_equal(pmt_perf_writer_close(w), 0);
	pmt_source_close(a);

	assert_int_equal(pmt_source_open(in, &a, NULL), 0);
	assert_int_equal(pmt_source_open(out, &b, NULL), 0);
	ma = pmt_source_meta(a);
	mb = pmt_source_meta(b);
	assert_int_equal(mb->swapped, 1);
	assert_int_equal(mb->nr_attrs, ma->nr_attrs);
	assert_string_equal(mb->attrs[0].name, ma->attrs[0].name);
	assert_int_equal(mb->attrs[0].ids[1], ma->attrs[0].ids[1]);
	assert_string_equal(mb->hostname, ma->hostname);
	assert_string_equal(mb->cmdline, ma->cmdline);
	assert_int_equal(mb->nr_cpus_avail, ma->nr_cpus_avail);
	assert_string_equal(mb->cpuid, "0x00000000413fd0c1");
	for (;;) {
		do
			ra = pmt_source_next(a, &ea);
		while (ra == 0 && (ea.type == PMT_REC_HEADER_ATTR || ea.type == PMT_REC_HEADER_FEATURE));
		assert_int_equal(pmt_source_next(b, &eb), ra);
		if (ra)
			break;
		assert_int_equal(eb.type, ea.type);
		assert_int_equal(eb.raw_size, ea.raw_size);
		if (ea.type == PMT_REC_SAMPLE) {
			assert_int_equal(eb.u.sample.ip, ea.u.sample.ip);
			assert_int_equal(eb.u.sample.time, ea.u.sample.time);
		}
		n++;
	}
	assert_int_equal(ra, -PMT_EEOS);
	assert_true(n >= 4);
	pmt_source_close(a);
	pmt_source_close(b);
}

/* The writer's options carry their size: a struct without it (zeroed, as before sz existed)
 * or too small for the fields this build reads is refused, not read; NULL is file mode. */
static void test_writer_opts_size(void **state)
{
	struct pmt_perf_writer_opts o = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = 1);
	struct pmt_perf_writer *w;
	FILE *fp = tmpfile();

	assert_non_null(fp);
	assert_int_equal(pmt_perf_writer_new(fp, &o, &w), 0);
	assert_int_equal(pmt_perf_writer_close(w), 0);
	o.sz = 0;
	assert_int_equal(pmt_perf_writer_new(fp, &o, &w), -PMT_EINVAL);
	assert_null(w);
	o.sz = offsetof(struct pmt_perf_writer_opts, swap);
	assert_int_equal(pmt_perf_writer_new(fp, &o, &w), -PMT_EINVAL);
	assert_int_equal(pmt_perf_writer_new(fp, NULL, &w), 0);
	assert_int_equal(pmt_perf_writer_close(w), 0);
	fclose(fp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_file),
		cmocka_unit_test(test_roundtrip_pipe),
		cmocka_unit_test(test_roundtrip_swapped),
		cmocka_unit_test(test_roundtrip_swapped_pipe),
		cmocka_unit_test(test_swapped_bytes),
		cmocka_unit_test(test_writer_opts_size),
		cmocka_unit_test(test_copy_swapped),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
