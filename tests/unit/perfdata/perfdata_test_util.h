/* What the perf.data tests share: a scratch folder, attrs and the reference trace that every
 * layout (file, pipe, swapped) must reproduce. Included by tests/unit/perfdata/test_*.c. */
#ifndef PMT_TEST_PERFDATA_UTIL_H
#define PMT_TEST_PERFDATA_UTIL_H

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"

enum { S_IP = 1, S_TID = 2, S_TIME = 4, S_ADDR = 8, S_ID = 64, S_CPU = 128, S_PERIOD = 256,
       S_WEIGHT_STRUCT = 1 << 24, S_DATA_SRC = 1 << 15, S_IDENT = 1 << 16, S_PHYS = 1 << 19 };
#define SID_ALL (1ULL << 18)

static char tmpdir[64];

static inline void tmp_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

static inline int setup_dir(void **state)
{
	strcpy(tmpdir, "/tmp/pmt_perfdata_XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static inline int teardown_dir(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static inline void make_attr(uint8_t *attr, uint32_t type, uint64_t config, uint64_t st, uint64_t flags)
{
	memset(attr, 0, 136);
	memcpy(attr, &type, 4);
	memcpy(attr + 8, &config, 8);
	memcpy(attr + 24, &st, 8);
	memcpy(attr + 40, &flags, 8);
}

static const uint8_t aux_payload[13] = { 0xb0, 1, 2, 3, 4, 5, 6, 7, 0x80, 0x71, 9, 9, 9 };

/* The reference trace every layout must reproduce. */
static inline void write_reference(const char *path, const struct pmt_perf_writer_opts *opts)
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

#endif
