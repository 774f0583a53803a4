/* pmutrace info: what a trace file holds. For a container: writer, frames, sizes and ratio,
 * whether the writer finished, and exactly what was lost in a damaged or cut file; for any
 * trace: its events with their sample counts and its AUX bytes. */
#include <getopt.h>
#include <inttypes.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/container.h"
#include "pmutrace/perfdata.h"

static int usage(FILE *fp)
{
	fprintf(fp, "usage: pmutrace info [-i] [FILE]\n"
		    "  What FILE (default ./perf.data; a perf.data or a pmutrace container) holds:\n"
		    "  events and sample counts, AUX bytes; for a container also its frames,\n"
		    "  compression ratio and what a damaged or cut file lost.\n");
	fputs(pmt_cli_exit_help, fp);
	return fp == stdout ? 0 : PMT_EXIT_USAGE;
}

static int print_file(const struct pmt_ctr_file *f, void *ctx)
{
	(void)ctx;
	printf("embedded: %s %s, %" PRIu64 " bytes (%zu compressed)", f->kind == PMT_CTR_FILE_ELF ? "ELF" :
	       f->kind == PMT_CTR_FILE_ELF_SYMBOLS ? "ELF symbols" :
	       f->kind == PMT_CTR_FILE_KALLSYMS ? "kallsyms" : "file", f->name, f->size, f->zsize);
	if (f->build_id_size) {
		printf(", build-id ");
		for (unsigned i = 0; i < f->build_id_size; i++)
			printf("%02x", f->build_id[i]);
	}
	printf("\n");
	return 0;
}

/* what the frame infos say: the frames a --cpu or --time slice can pass over */
struct infos_sum {
	uint32_t n, aux_only, timed;
	uint32_t cpu_lo, cpu_hi;
	uint64_t ts_lo, ts_hi;
};

static int sum_info(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	struct infos_sum *s = ctx;

	s->n++;
	if (!(fi->flags & (PMT_CTR_FI_SIDEBAND | PMT_CTR_FI_UNPARSED)) && fi->auxtraces)
		s->aux_only++;
	if (fi->auxtraces && !(fi->flags & PMT_CTR_FI_ANY_CPU)) {
		s->cpu_lo = fi->cpu_lo < s->cpu_lo ? fi->cpu_lo : s->cpu_lo;
		s->cpu_hi = fi->cpu_hi > s->cpu_hi ? fi->cpu_hi : s->cpu_hi;
	}
	if (fi->flags & PMT_CTR_FI_TIMED) {
		s->ts_lo = !s->timed || fi->ts_lo < s->ts_lo ? fi->ts_lo : s->ts_lo;
		s->ts_hi = !s->timed || fi->ts_hi > s->ts_hi ? fi->ts_hi : s->ts_hi;
		s->timed++;
	}
	return 0;
}

static void container_info(const char *path, const struct pmt_file_map *m)
{
	struct pmt_ctr_reader *r;
	struct pmt_ctr_frame f;
	struct pmt_diag d = PMT_DIAG_INIT;
	const struct pmt_ctr_stats *st;
	int rc;

	if (pmt_ctr_reader_new(m->data, m->size, path, &r, &d) < 0) {
		pmt_diag_print(&d);
		return;
	}
	while ((rc = pmt_ctr_next(r, &f, &d)) != 0) {
		if (rc < 0) {
			char msg[512];

			pmt_diag_format(&d, msg, sizeof(msg));
			pmt_cli_warn("info", "%s", msg);
		}
	}
	st = pmt_ctr_stats(r);
	printf("container: version %d, written by %s\n", PMT_CTR_VERSION, st->writer);
	printf("data frames: %" PRIu32 " read, %" PRIu32 " damaged\n", st->frames, st->damaged);
	if (st->column_frames)
		printf("column frames: %" PRIu32 " of them (AUX bytes by SPE field: not readable "
		       "through zstd -dc)\n", st->column_frames);
	printf("bytes: %" PRIu64 " compressed -> %" PRIu64 " (ratio %.2f)\n", st->bytes_in,
	       st->bytes_out, st->bytes_in ? (double)st->bytes_out / (double)st->bytes_in : 0.0);
	printf("finished: %s\n", st->has_index ? "yes (index and seek table present)"
					       : "no (cut short or killed: frames walked)");
	if (st->has_writer_stats) {
		const struct pmt_ctr_writer_stats *ws = &st->writer_stats;

		printf("writer: policy %s when compression falls behind: %" PRIu64 " records "
		       "waited (%.3f s), %" PRIu64 " AUXTRACE records dropped (%" PRIu64
		       " bytes), %" PRIu32 " frames below level %d (lowest %d, raised back %"
		       PRIu32 " times)\n",
		       ws->policy == PMT_CTR_BACKLOG_DROP ? "drop" :
		       ws->policy == PMT_CTR_BACKLOG_LOWER ? "lower" : "block", ws->waits,
		       (double)ws->wait_ns / 1e9, ws->dropped, ws->dropped_bytes,
		       ws->lowered_frames, ws->level, ws->level_min, ws->raised);
	} else if (st->dropped_in_frames) {
		printf("writer: %" PRIu64 " AUXTRACE records dropped when compression fell behind "
		       "(by the frame infos: the writer did not finish)\n", st->dropped_in_frames);
	}
	{
		struct infos_sum is = { .cpu_lo = UINT32_MAX };

		pmt_ctr_frame_infos(m->data, m->size, sum_info, &is);
		printf("frame infos: %" PRIu32 " of %" PRIu32 " frames (%" PRIu32
		       " of AUX data only, which --cpu and --time slices can pass over)",
		       is.n, st->frames + st->damaged, is.aux_only);
		if (is.cpu_lo <= is.cpu_hi)
			printf("; CPUs %" PRIu32 "-%" PRIu32, is.cpu_lo, is.cpu_hi);
		if (is.timed)
			printf("; SPE timestamps 0x%" PRIx64 "-0x%" PRIx64, is.ts_lo, is.ts_hi);
		printf("\n");
	}
	pmt_ctr_files(m->data, m->size, print_file, NULL);
	if (st->lost_bytes || st->truncated)
		printf("lost: %" PRIu64 " bytes of the file%s\n", st->lost_bytes,
		       st->truncated ? ", including a frame the file ends inside" : "");
	pmt_ctr_reader_free(r);
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	struct pmt_source *src;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_file_map m;
	char what[1024];
	int c;

	while ((c = getopt_long(argc, argv, "hi:", opts, NULL)) != -1) {
		switch (c) {
		case 'i': path = optarg; break;
		case 'h': return usage(stdout);
		default: return usage(stderr);
		}
	}
	path = pmt_cli_input(path, argc, argv, optind);
	if (!path)
		return usage(stderr);
	if (pmt_file_map(path, &m, &d) < 0)
		return pmt_cli_fail_diag("info", &d);
	/* a file that is no trace at all gets the error alone (exit 1: no output); a
	 * container tells what it holds even when its perf.data does not open */
	if (pmt_ctr_is_container(m.data, m.size)) {
		printf("file: %s\n", path);
		container_info(path, &m);
		pmt_file_unmap(&m);
		if (pmt_source_open(path, &src, &d) < 0)
			return pmt_cli_fail_diag("info", &d);
	} else {
		pmt_file_unmap(&m);
		if (pmt_source_open(path, &src, &d) < 0)
			return pmt_cli_fail_diag("info", &d);
		printf("file: %s\n", path);
	}
	printf("perf.data: %s mode, %s byte order\n",
	       pmt_source_meta(src)->pipe_mode ? "pipe" : "file",
	       pmt_source_meta(src)->swapped ? "swapped" : "host");
	pmt_source_describe(src, what, sizeof(what));
	printf("holds: %s\n", what);
	pmt_source_close(src);
	return 0;
}
