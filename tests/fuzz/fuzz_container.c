/* Fuzz the container reader: open from memory, plan a slice from the frame infos, walk
 * every frame (damaged ones included) and touch the records each gives and walk them
 * (pmt_ctr_frame_describe), and the readable part of a frame the input ends inside
 * (pmt_ctr_cut_frame); then copy it
 * through a writer, whose frame infos walk the records and their SPE packets. Seeds: small
 * containers made by convert --container. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/container.h"

/* embedded files: their frames parsed and their bytes decompressed */
static int touch_file(const struct pmt_ctr_file *f, void *ctx)
{
	volatile uint64_t *sink = ctx;
	void *p;
	size_t n;

	if (f->size < (1u << 24) && pmt_ctr_file_read(f, &p, &n) == 0) {
		*sink += n ? ((const uint8_t *)p)[n - 1] : 0;
		free(p);
	}
	*sink += f->kind + f->build_id_size + (uint8_t)f->name[0];
	return 0;
}

static int touch_info(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	volatile uint64_t *sink = ctx;

	*sink += fi->flags + fi->cpu_mask + fi->ts_lo;
	return 0;
}

/* every other frame, and the CPUs of the low half: a slice that skips some */
static bool keep_some(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	(void)ctx;
	return (fi->index & 1) || (fi->cpu_mask & 0xffffffffu);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_ctr_reader *r;
	struct pmt_ctr_frame f;
	volatile uint64_t sink = 0;
	uint8_t *copy = malloc(size ? size : 1); /* exact size: overreads hit the redzone */
	int rc;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (pmt_ctr_reader_new(copy, size, "fuzz", &r, NULL) == 0) {
		sink += (uint64_t)pmt_ctr_slice(r, keep_some, NULL);
		/* every call moves on: bounded by the input size */
		for (size_t n = 0; n <= size && (rc = pmt_ctr_next(r, &f, NULL)) != 0; n++) {
			struct pmt_ctr_frame_info fi;

			if (rc > 0 && f.size)
				sink += f.data[f.size - 1];
			/* every frame's records walked as for one without its info */
			if (rc > 0 && pmt_ctr_frame_describe(r, &f, &fi) == 0)
				sink += fi.records + fi.aux_n + fi.ts_hi;
		}
		sink += pmt_ctr_stats(r)->frames;
		{
			/* the frame the input ends inside, streamed and walked */
			struct pmt_ctr_cut cut;

			if (pmt_ctr_cut_frame(r, &cut) > 0)
				sink += cut.decoded + cut.whole + cut.fi.records + cut.cut_aux_have;
		}
		pmt_ctr_reader_free(r);
	}
	pmt_ctr_files(copy, size, touch_file, (void *)&sink);
	pmt_ctr_frame_infos(copy, size, touch_info, (void *)&sink);
	{
		struct pmt_ctr_writer_opts o = { .sz = sizeof(o), .level = 1, .threads = 1 };
		struct pmt_ctr_writer *w;
		FILE *fp = fopen("/dev/null", "w");

		if (fp && pmt_ctr_writer_new(fp, &o, &w, NULL) == 0) {
			sink += (uint64_t)pmt_ctr_copy(copy, size, "fuzz", w, NULL);
			pmt_ctr_writer_close(w, NULL);
		}
		if (fp)
			fclose(fp);
	}
	free(copy);
	return (int)(sink & 0);
}
