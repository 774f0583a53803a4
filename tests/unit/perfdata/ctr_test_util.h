/* What the container tests share: a container in memory of records of perf's header shape.
 * Included by tests/unit/perfdata/test_ctr_*.c (after cmocka.h). */
#ifndef PMT_TEST_CTR_UTIL_H
#define PMT_TEST_CTR_UTIL_H

#include <stdio.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/container.h"

#define CTR_TEST_REC 96

/* nrec records of unknown types (0x4000 + i % 7), CTR_TEST_REC bytes each, payload byte k
 * of record i = i * mul + k * (i % mod); before record i, between(w, i) (may be NULL) may
 * add what it likes. The writer's opts: level 1, 4 KiB frames, the given threads. */
static inline uint8_t *ctr_test_make(size_t *len, unsigned nrec, unsigned mul, unsigned mod,
				     unsigned threads,
				     void (*between)(struct pmt_ctr_writer *w, unsigned i))
{
	struct pmt_ctr_writer_opts o = { .sz = sizeof(o), .level = 1, .frame_size = 4096,
					 .threads = threads };
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_writer *w;
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	uint8_t r[CTR_TEST_REC];

	assert_non_null(fp);
	assert_int_equal(pmt_ctr_writer_new(fp, &o, &w, &d), 0);
	for (unsigned i = 0; i < nrec; i++) {
		if (between)
			between(w, i);
		/* perf's record header: FINISHED_ROUND-sized records of an unknown type */
		memset(r, 0, sizeof(r));
		pmt_put_le32(r, 0x4000 | (i % 7));
		r[6] = CTR_TEST_REC;
		for (unsigned k = 8; k < CTR_TEST_REC; k++)
			r[k] = (uint8_t)(i * mul + k * (i % mod));
		assert_int_equal(pmt_ctr_write(w, r, sizeof(r)), 0);
	}
	assert_int_equal(pmt_ctr_writer_close(w, &d), 0);
	assert_int_equal(fclose(fp), 0);
	return (uint8_t *)buf;
}

/* PERF_RECORD_AUXTRACE's header: type 71, size 48, then AUX size, offset, reference, idx,
 * tid, cpu */
static inline void ctr_test_auxtrace(uint8_t hdr[48], uint64_t size, uint64_t offset, uint32_t idx,
				     uint32_t tid, uint32_t cpu)
{
	memset(hdr, 0, 48);
	pmt_put_le32(hdr, 71);
	hdr[6] = 48;
	pmt_put_le64(hdr + 8, size);
	pmt_put_le64(hdr + 16, offset);
	pmt_put_le32(hdr + 32, idx);
	pmt_put_le32(hdr + 36, tid);
	pmt_put_le32(hdr + 40, cpu);
}

/* Every frame info of a container (pmt_ctr_frame_infos' callback) */
struct ctr_test_infos {
	struct pmt_ctr_frame_info v[4096];
	unsigned n;
};

static inline int ctr_test_note_info(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	struct ctr_test_infos *in = ctx;

	assert_true(in->n < 4096);
	in->v[in->n++] = *fi;
	return 0;
}
#endif
