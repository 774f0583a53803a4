/* AUX offsets in the frame infos: each frame info lists, per AUX stream (cpu, idx), the
 * offset of its first AUXTRACE record in the frame, the end of its last, the records and
 * the jumps between them. Checked against the AUXTRACE records parsed back out of each
 * decompressed frame (perf's record layout, read here by hand), for the writer on one
 * thread and on its pool, with records in pieces, a per-thread stream, jumps inside and
 * between frames; a file with the infos of the writer before them (104 bytes) reads with
 * no ranges and slices as before; a flipped bit anywhere in the new fields or the checksum
 * names that info with its file offset and makes slices read its frame. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/container.h"

#include "ctr_test_util.h"

#define NREC 600
#define MAXLEN 5000

static const uint32_t cpus[] = { 0, 1, 2, UINT32_MAX }; /* the last: per-thread, idx 3 */

static uint8_t *write_trace(unsigned threads, size_t *len)
{
	struct pmt_ctr_writer_opts o = PMT_OPTS_INIT(pmt_ctr_writer_opts, .level = 1,
						     .frame_size = 16u << 10, .threads = threads);
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_ctr_writer *w;
	char *buf = NULL;
	FILE *fp = open_memstream(&buf, len);
	uint8_t pipe[16] = "PERFILE2", hdr[48], side[40];
	static uint8_t aux[MAXLEN], whole[48 + MAXLEN];
	uint64_t off[4] = { 0, 1u << 20, 0, 4096 };

	assert_non_null(fp);
	for (unsigned i = 0; i < MAXLEN; i++)
		aux[i] = (uint8_t)(i * 131 % 251 | 0x80);
	assert_int_equal(pmt_ctr_writer_new(fp, &o, &w, &d), 0);
	pmt_put_le64(pipe + 8, 16);
	assert_int_equal(pmt_ctr_write(w, pipe, sizeof(pipe)), 0);
	assert_int_equal(pmt_ctr_flush(w), 0);
	for (unsigned i = 0; i < NREC; i++) {
		unsigned s = i % 4;
		size_t n = 8 + (i * 7919u) % (MAXLEN - 8), cut = n / 3;
		struct pmt_ctr_piece v[3] = { { hdr, sizeof(hdr) }, { aux, cut }, { aux + cut, n - cut } };

		ctr_test_auxtrace(hdr, n, off[s], s, 1000 + s, cpus[s]);
		if (i % 3) { /* in pieces (a ring that wrapped) or whole */
			assert_int_equal(pmt_ctr_writev(w, v, 3), 0);
		} else {
			memcpy(whole, hdr, sizeof(hdr));
			memcpy(whole + sizeof(hdr), aux, n);
			assert_int_equal(pmt_ctr_write(w, whole, sizeof(hdr) + n), 0);
		}
		off[s] += n;
		/* jumps: CPU 1 every 37 records (the kernel's truncations, the drop policy) */
		if (s == 1 && i % 37 == 1)
			off[s] += 65536;
		if (i % 23 == 0) { /* PERF_RECORD_COMM-shaped sideband */
			memset(side, 0, sizeof(side));
			pmt_put_le32(side, 3);
			side[6] = sizeof(side);
			assert_int_equal(pmt_ctr_write(w, side, sizeof(side)), 0);
		}
	}
	assert_int_equal(pmt_ctr_writer_close(w, &d), 0);
	assert_int_equal(fclose(fp), 0);
	return (uint8_t *)buf;
}

/* What a frame's AUXTRACE records say, parsed from its decompressed records */
static void expect_ranges(const struct pmt_ctr_frame *f, struct pmt_ctr_frame_info *want)
{
	size_t at = f->index == 0 ? 16 : 0; /* the pipe header */

	want->aux_n = 0;
	while (at + 8 <= f->size) {
		const uint8_t *p = f->data + at;
		size_t size = pmt_le16(p + 6);

		assert_true(size >= 8);
		if (pmt_le32(p) == 71) {
			uint64_t n = pmt_le64(p + 8), o = pmt_le64(p + 16);
			uint32_t idx = pmt_le32(p + 32), cpu = pmt_le32(p + 40), k;

			for (k = 0; k < want->aux_n; k++)
				if (want->aux[k].cpu == cpu && want->aux[k].idx == idx)
					break;
			if (k == want->aux_n) {
				assert_true(k < PMT_CTR_AUX_RANGES);
				want->aux[want->aux_n++] = (struct pmt_ctr_aux_range){
					.cpu = cpu, .idx = idx, .first = o, .end = o };
			}
			want->aux[k].gaps += want->aux[k].records && want->aux[k].end != o;
			want->aux[k].records++;
			want->aux[k].end = o + n;
			size += n;
		}
		at += size;
	}
	assert_int_equal(at, f->size);
}

static unsigned check_file(const uint8_t *buf, size_t len)
{
	static struct ctr_test_infos in;
	static struct pmt_ctr_frame_info want;
	struct pmt_ctr_reader *r;
	struct pmt_ctr_frame f;
	struct pmt_diag d = PMT_DIAG_INIT;
	unsigned k = 0, gaps = 0, per_thread = 0;
	int rc;

	in.n = 0;
	rc = pmt_ctr_frame_infos(buf, len, ctr_test_note_info, &in);
	assert_int_equal(rc, (int)in.n);
	assert_int_equal(pmt_ctr_reader_new(buf, len, "aux", &r, &d), 0);
	while (pmt_ctr_next(r, &f, &d) > 0) {
		const struct pmt_ctr_frame_info *got = &in.v[k++];

		assert_true(k <= in.n);
		assert_int_equal(got->index, f.index);
		assert_false(got->damaged);
		expect_ranges(&f, &want);
		assert_int_equal(got->aux_n, want.aux_n);
		assert_int_equal(got->aux_state, want.aux_n ? PMT_CTR_AUX_LISTED
							     : PMT_CTR_AUX_UNKNOWN);
		for (unsigned i = 0; i < want.aux_n; i++) {
			assert_int_equal(got->aux[i].cpu, want.aux[i].cpu);
			assert_int_equal(got->aux[i].idx, want.aux[i].idx);
			assert_int_equal(got->aux[i].first, want.aux[i].first);
			assert_int_equal(got->aux[i].end, want.aux[i].end);
			assert_int_equal(got->aux[i].records, want.aux[i].records);
			assert_int_equal(got->aux[i].gaps, want.aux[i].gaps);
			gaps += want.aux[i].gaps;
			per_thread += want.aux[i].cpu == UINT32_MAX;
		}
	}
	assert_int_equal(k, in.n);
	pmt_ctr_reader_free(r);
	/* the trace is what it says: jumps inside frames, the per-thread stream */
	assert_true(gaps > 0);
	assert_true(per_thread > 0);
	return k;
}

static void ranges_match_records(void **state)
{
	(void)state;
	for (unsigned threads = 1; threads <= 2; threads++) {
		size_t len;
		uint8_t *buf = write_trace(threads, &len);

		assert_true(check_file(buf, len) > 20);
		free(buf);
	}
}

static bool keep_cpu0(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	(void)ctx;
	return fi->auxtraces && (fi->cpu_mask & 1) && !(fi->flags & PMT_CTR_FI_ANY_CPU);
}

static int slice_skips(const uint8_t *buf, size_t len)
{
	struct pmt_ctr_reader *r;
	struct pmt_diag d = PMT_DIAG_INIT;
	int n;

	assert_int_equal(pmt_ctr_reader_new(buf, len, "aux", &r, &d), 0);
	n = pmt_ctr_slice(r, keep_cpu0, NULL);
	pmt_ctr_reader_free(r);
	return n;
}

/* the writer before the AUX ranges: 104-byte infos */
static void previous_infos(void **state)
{
	static struct ctr_test_infos in;
	size_t len, olen;
	uint8_t *buf = write_trace(1, &len), *old;
	int rc;

	(void)state;
	setenv("PMT_CTR_TEST_SHORT_FINFO", "104", 1);
	old = write_trace(1, &olen);
	unsetenv("PMT_CTR_TEST_SHORT_FINFO");
	in.n = 0;
	rc = pmt_ctr_frame_infos(old, olen, ctr_test_note_info, &in);
	assert_int_equal(rc, (int)in.n);
	assert_true(in.n > 20);
	for (unsigned i = 0; i < in.n; i++) {
		assert_false(in.v[i].damaged);
		assert_int_equal(in.v[i].aux_n, 0);
		assert_int_equal(in.v[i].aux_state, PMT_CTR_AUX_UNKNOWN);
		assert_true(in.v[i].stream_offset != PMT_CTR_NO_OFFSET);
	}
	/* each new info is the old one and its ranges: 8 + 32 per stream + 4 bytes more */
	assert_true(len > olen);
	assert_int_equal(slice_skips(old, olen), slice_skips(buf, len));
	assert_true(slice_skips(buf, len) > 0);
	free(buf);
	free(old);
}

struct damaged {
	unsigned n, bad;
	uint64_t at;
	uint32_t index;
};

static int note_damage(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	struct damaged *dm = ctx;

	dm->n++;
	if (fi->damaged) {
		dm->bad++;
		dm->at = fi->info_offset;
		dm->index = fi->index;
	}
	return 0;
}

/* every bit of the AUX ranges and the checksum of one frame info, flipped in turn */
static void flipped_bits(void **state)
{
	static struct ctr_test_infos in;
	size_t len;
	uint8_t *buf = write_trace(1, &len), *copy = malloc(len);
	size_t info = 0, n;
	int skips = slice_skips(buf, len);
	unsigned flips = 0;
	int rc;

	(void)state;
	assert_non_null(copy);
	in.n = 0;
	rc = pmt_ctr_frame_infos(buf, len, ctr_test_note_info, &in);
	assert_int_equal(rc, (int)in.n);
	/* the info after frame 5: right after the frame, a skippable frame 0x184D2A54 */
	info = in.v[5].offset + in.v[5].size;
	assert_int_equal(pmt_le32(buf + info), 0x184D2A54);
	n = pmt_le32(buf + info + 4);
	assert_true(n > 104 + 8 + 4);
	assert_true(skips > 0);
	for (size_t byte = 104; byte < n; byte++) {
		for (unsigned bit = 0; bit < 8; bit += 3) {
			struct damaged dm = { 0 };

			memcpy(copy, buf, len);
			copy[info + 8 + byte] ^= (uint8_t)(1u << bit);
			assert_int_equal(pmt_ctr_frame_infos(copy, len, note_damage, &dm), (int)in.n);
			assert_int_equal(dm.n, in.n);
			assert_int_equal(dm.bad, 1);
			assert_int_equal(dm.at, info);
			/* a slice cannot pass over frames it cannot judge */
			assert_int_equal(slice_skips(copy, len), 0);
			flips++;
		}
	}
	assert_true(flips > 100);
	free(copy);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ranges_match_records),
		cmocka_unit_test(previous_infos),
		cmocka_unit_test(flipped_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
