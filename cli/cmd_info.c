/* pmutrace info: what a trace file holds. For a container: writer, frames, sizes and ratio,
 * whether the writer finished, and exactly what was lost in a damaged or cut file; for any
 * trace: its events with their sample counts and its AUX bytes. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/container.h"
#include "pmutrace/perfdata.h"

static int usage(FILE *fp)
{
	fprintf(fp, "usage: pmutrace info [-v] [-i] [FILE]\n"
		    "  What FILE (default ./perf.data; a perf.data or a pmutrace container) holds:\n"
		    "  events and sample counts, AUX bytes; for a container also its frames,\n"
		    "  counts frames, compression ratio and what a damaged or cut file lost.\n"
		    "  -v, --verbose   every counts frame on a line of its own\n");
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

/* An AUX stream over the frame infos: where its offsets ran and where they jumped */
struct aux_stream {
	uint32_t cpu, idx;
	uint64_t first, end;       /* the first frame's first offset, the last frame's end */
	uint64_t records, gaps;    /* gaps: jumps inside frames and between frames */
	uint64_t gap_bytes;        /* offsets passed over by the jumps between frames */
	uint64_t lost_bytes;       /* AUX bytes of its damaged frames */
};

/* what the frame infos say: the frames a --cpu or --time slice can pass over, the AUX
 * streams, and what the damaged frames held */
struct infos_sum {
	uint32_t n, aux_only, timed, damaged_infos, partial;
	uint32_t cpu_lo, cpu_hi;
	uint64_t ts_lo, ts_hi;
	const uint64_t *read;      /* file offsets of the data frames decompressed, ascending
				    * (by offset, not number: damage to a frame's header can
				    * shift the reader's count) */
	size_t nread;
	const struct pmt_time_conv *tc; /* the trace's, or NULL */
	struct aux_stream *st;
	size_t nst, cap;
	/* infos made by walking frames read without one (pmt_ctr_frame_describe), in file
	 * order: summed in their place among the others */
	const struct pmt_ctr_frame_info *walked;
	size_t nwalked, walked_at;
};

static struct aux_stream *stream_of(struct infos_sum *s, const struct pmt_ctr_aux_range *r)
{
	for (size_t i = 0; i < s->nst; i++)
		if (s->st[i].cpu == r->cpu && s->st[i].idx == r->idx)
			return &s->st[i];
	if (s->nst == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct aux_stream *v = realloc(s->st, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->st = v;
		s->cap = cap;
	}
	s->st[s->nst] = (struct aux_stream){ .cpu = r->cpu, .idx = r->idx, .first = r->first,
					     .end = r->first };
	return &s->st[s->nst++];
}

static void print_cpu(uint32_t cpu)
{
	if (cpu == UINT32_MAX)
		printf("per-thread");
	else
		printf("CPU %" PRIu32, cpu);
}

/* SPE timestamps, and on perf's clock through the trace's TIME_CONV when it has one */
static void print_times(uint64_t ts_lo, uint64_t ts_hi, const struct pmt_time_conv *tc)
{
	printf(", SPE timestamps 0x%" PRIx64 "-0x%" PRIx64, ts_lo, ts_hi);
	if (tc) {
		uint64_t lo = pmt_time_conv_to_perf(tc, ts_lo);
		uint64_t hi = pmt_time_conv_to_perf(tc, ts_hi);

		/* perf's seconds.microseconds, as script prints sample times */
		printf(", time %" PRIu64 ".%06" PRIu64 "-%" PRIu64 ".%06" PRIu64, lo / 1000000000,
		       lo % 1000000000 / 1000, hi / 1000000000, hi % 1000000000 / 1000);
	}
}

static void print_range(const char *what, uint32_t frame, const struct pmt_ctr_aux_range *r,
			bool records)
{
	printf("%s: data frame %" PRIu32 ": ", what, frame);
	print_cpu(r->cpu);
	printf(" (idx %" PRIu32 ") AUX offsets 0x%" PRIx64 "-0x%" PRIx64 " (%" PRIu64 " bytes",
	       r->idx, r->first, r->end, r->end - r->first);
	if (records)
		printf(", %" PRIu32 " AUXTRACE records", r->records);
	printf(")\n");
}

/* A data frame the reader could not read: what its info says it held */
static void print_lost_frame(const struct pmt_ctr_frame_info *fi, const struct pmt_time_conv *tc)
{
	printf("lost: data frame %" PRIu32 " (file offset %" PRIu64 "): %" PRIu32 " records, %"
	       PRIu32 " AUXTRACE records, %" PRIu64 " AUX bytes", fi->index, fi->offset,
	       fi->records, fi->auxtraces, fi->aux_bytes);
	if (fi->flags & PMT_CTR_FI_TIMED)
		print_times(fi->ts_lo, fi->ts_hi, tc);
	printf("\n");
	for (uint32_t i = 0; i < fi->aux_n; i++)
		print_range("lost", fi->index, &fi->aux[i], false);
	if (fi->auxtraces && fi->aux_state == PMT_CTR_AUX_UNKNOWN)
		printf("lost: data frame %" PRIu32 ": its AUX offsets are not known (a writer "
		       "before them)\n", fi->index);
}

static int cmp_offset(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* walked: made by pmt_ctr_frame_describe, not in the file (no slice passes over it) */
static int add_info(struct infos_sum *s, const struct pmt_ctr_frame_info *fi, bool walked)
{
	bool lost;

	lost = !s->nread || !bsearch(&fi->offset, s->read, s->nread, sizeof(*s->read), cmp_offset);
	if (lost)
		print_lost_frame(fi, s->tc);
	s->partial += fi->aux_state == PMT_CTR_AUX_PARTIAL;
	for (uint32_t i = 0; i < fi->aux_n; i++) {
		const struct pmt_ctr_aux_range *r = &fi->aux[i];
		struct aux_stream *a = stream_of(s, r);

		if (!a)
			return -1;
		if (r->first != a->end) {
			a->gaps++;
			a->gap_bytes += r->first > a->end ? r->first - a->end : 0;
		}
		a->gaps += r->gaps;
		a->records += r->records;
		a->end = r->end;
		if (lost)
			a->lost_bytes += r->end - r->first;
	}
	s->n += !walked;
	if (!walked && !(fi->flags & (PMT_CTR_FI_SIDEBAND | PMT_CTR_FI_UNPARSED)) && fi->auxtraces)
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

/* The file offset of a data frame the reader decompressed (the others are lost) */
static int note_read(uint64_t **read, size_t *n, size_t *cap, uint64_t offset)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 256;
		uint64_t *v = realloc(*read, c * sizeof(*v));

		if (!v)
			return -1;
		*read = v;
		*cap = c;
	}
	(*read)[(*n)++] = offset;
	return 0;
}

/* the walked infos of the frames before `before` */
static int add_walked(struct infos_sum *s, uint64_t before)
{
	while (s->walked_at < s->nwalked && s->walked[s->walked_at].offset < before)
		if (add_info(s, &s->walked[s->walked_at++], true) < 0)
			return -1;
	return 0;
}

static int sum_info(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	struct infos_sum *s = ctx;

	if (add_walked(s, fi->offset) < 0)
		return -1;
	if (fi->damaged) {
		/* its fields may be wrong: none is used */
		s->damaged_infos++;
		pmt_cli_warn("info", "the frame info at file offset %" PRIu64 " fails its "
			     "checksum (data frame %" PRIu32 " as read): slices read that frame",
			     fi->info_offset, fi->index);
		return 0;
	}
	return add_info(s, fi, false);
}

/* the file offsets of the data frames with an intact frame info, in file order */
struct offsets {
	uint64_t *v;
	size_t n, cap;
};

static int note_info(const struct pmt_ctr_frame_info *fi, void *ctx)
{
	struct offsets *o = ctx;

	return fi->damaged || note_read(&o->v, &o->n, &o->cap, fi->offset) == 0 ? 0 : -1;
}

/* One line per AUX stream: its offsets and what is missing from them */
static void print_streams(const struct infos_sum *s)
{
	for (size_t i = 0; i < s->nst; i++) {
		const struct aux_stream *a = &s->st[i];

		printf("AUX stream: ");
		print_cpu(a->cpu);
		printf(" (idx %" PRIu32 "): offsets 0x%" PRIx64 "-0x%" PRIx64 ", %" PRIu64
		       " AUXTRACE records, %" PRIu64 " gaps", a->idx,
		       a->first, a->end, a->records, a->gaps);
		if (a->gap_bytes)
			printf(" (%" PRIu64 " bytes between frames)", a->gap_bytes);
		if (a->lost_bytes)
			printf(", %" PRIu64 " bytes in damaged frames", a->lost_bytes);
		printf("\n");
	}
	if (s->partial)
		printf("AUX streams: %" PRIu32 " frames hold more than %d streams: only the first "
		       "%d of each are listed\n", s->partial, PMT_CTR_AUX_RANGES, PMT_CTR_AUX_RANGES);
}

/* The frame the file ends inside: what its readable part holds (zstd -dc prints it; no
 * reader of ours takes it, since the checksum that would vouch for it is cut off) and what
 * is lost after it */
static void print_cut_columns(const struct pmt_ctr_cut *c, uint64_t ts_before)
{
	const struct pmt_ctr_frame_info *fi = &c->lost;

	printf("cut: data frame %" PRIu32 " (columns, file offset %" PRIu64 "): the file holds %"
	       PRIu64 " of its bytes", c->index, c->offset, c->file_bytes);
	if (c->parts)
		printf(", %" PRIu32 " of its %" PRIu32 " parts whole", c->parts_whole, c->parts);
	else
		printf(", not its whole header");
	printf("; its records are rebuilt only from all of its parts, so none are readable\n");
	printf("lost: data frame %" PRIu32 ": ", c->index);
	if (c->content_size != PMT_CTR_NO_OFFSET)
		printf("%" PRIu64 " bytes of records (all of them)", c->content_size);
	else
		printf("all of its records (how many bytes is not known: its header is cut)");
	if (c->listed) {
		printf(": %" PRIu32 " records, %" PRIu32 " AUXTRACE records, %" PRIu64 " AUX bytes",
		       fi->records, fi->auxtraces, fi->aux_bytes);
		if (fi->flags & PMT_CTR_FI_UNPARSED)
			printf(" (its records could not all be walked)");
	} else {
		printf(" (which records is not known: its first part, which lists them, is cut)");
	}
	if (ts_before)
		printf(", SPE timestamps after 0x%" PRIx64, ts_before);
	printf("\n");
	for (uint32_t i = 0; c->listed && i < fi->aux_n; i++)
		print_range("lost", c->index, &fi->aux[i], false);
}

static void print_cut_frame(const struct pmt_ctr_cut *c, const struct pmt_time_conv *tc,
			    uint64_t ts_before)
{
	const struct pmt_ctr_frame_info *fi = &c->fi;

	if (c->columns) {
		print_cut_columns(c, ts_before);
		return;
	}

	printf("cut: data frame %" PRIu32 " (file offset %" PRIu64 "): the file holds %" PRIu64
	       " of its bytes, which decompress to %" PRIu64 " bytes (", c->index, c->offset,
	       c->file_bytes, c->decoded);
	if (c->content_size != PMT_CTR_NO_OFFSET)
		printf("its header states %" PRIu64 ")", c->content_size);
	else
		printf("its header states no size)");
	printf(", %" PRIu64 " of them whole records; unchecked (its checksum is cut off), so "
	       "not read, but `zstd -dc` prints them", c->whole);
	if (c->zerr)
		printf("; zstd stopped: %s", c->zerr);
	printf("\n");
	printf("readable: data frame %" PRIu32 ": %" PRIu32 " records, %" PRIu32
	       " AUXTRACE records, %" PRIu64 " AUX bytes", c->index, fi->records, fi->auxtraces,
	       fi->aux_bytes);
	if (fi->flags & PMT_CTR_FI_TIMED)
		print_times(fi->ts_lo, fi->ts_hi, tc);
	if (fi->flags & PMT_CTR_FI_UNPARSED)
		printf(" (its records could not all be walked)");
	printf("\n");
	for (uint32_t i = 0; i < fi->aux_n; i++)
		print_range("readable", c->index, &fi->aux[i], true);
	if (c->where == PMT_CTR_CUT_IN_AUX) {
		struct pmt_ctr_aux_range have = c->cut_aux, rest = c->cut_aux;

		have.end = have.first + c->cut_aux_have;
		rest.first = have.end;
		printf("cut: data frame %" PRIu32 ": an AUXTRACE record of %" PRIu64
		       " AUX bytes is cut after %" PRIu64 " of them", c->index,
		       c->cut_aux.end - c->cut_aux.first, c->cut_aux_have);
		if (c->cut_timed)
			print_times(c->cut_ts_lo, c->cut_ts_hi, tc);
		printf("\n");
		print_range("readable", c->index, &have, false);
		print_range("lost", c->index, &rest, false);
	} else if (c->where == PMT_CTR_CUT_IN_HEADER) {
		printf("lost: data frame %" PRIu32 ": a record whose header is cut after %" PRIu64
		       " bytes", c->index, c->cut_have);
		if (c->cut_type)
			printf(" (type %" PRIu32 ")", c->cut_type);
		printf("\n");
	} else if (c->where == PMT_CTR_CUT_IN_RECORD) {
		printf("lost: data frame %" PRIu32 ": a record of type %" PRIu32 " cut after %"
		       PRIu64 " of its %" PRIu64 " bytes\n", c->index, c->cut_type, c->cut_have,
		       c->cut_size);
	}
	if (c->content_size != PMT_CTR_NO_OFFSET)
		printf("lost: data frame %" PRIu32 ": %" PRIu64 " bytes of records after the cut"
		       " (of %" PRIu64 ")", c->index, c->content_size - c->decoded,
		       c->content_size);
	else
		printf("lost: data frame %" PRIu32 ": the records after the cut (how many bytes is "
		       "not known: its header states no size and its frame info comes after it)",
		       c->index);
	if (fi->flags & PMT_CTR_FI_TIMED || c->cut_timed)
		printf(", SPE timestamps after 0x%" PRIx64,
		       c->cut_timed && c->cut_ts_hi > fi->ts_hi ? c->cut_ts_hi : fi->ts_hi);
	printf("\n");
}

struct counts_sum {
	struct pmt_ctr_counts_ref *v;
	size_t n, cap;
};

static int note_counts(const struct pmt_ctr_counts_ref *ref, void *ctx)
{
	struct counts_sum *cs = ctx;

	if (cs->n == cs->cap) {
		size_t c = cs->cap ? 2 * cs->cap : 16;
		struct pmt_ctr_counts_ref *v = realloc(cs->v, c * sizeof(*v));

		if (!v)
			return -PMT_ENOMEM;
		cs->v = v;
		cs->cap = c;
	}
	cs->v[cs->n++] = *ref;
	return 0;
}

/* the names of a version 2 frame's other record types */
static void print_other_types(const uint64_t types[2])
{
	const char *sep = "";

	for (uint32_t t = 0; t < 128; t++) {
		if (!(types[t >> 6] >> (t & 63) & 1))
			continue;
		printf("%s%s", sep, pmt_perf_record_name(t));
		sep = ", ";
	}
}

/* One line per container (counts frames, FORMAT.md "Counts frames"), and with -v one per
 * frame: where it is, the data frame it stands for, its keys, records, rounds' time range
 * and whether it is usable. */
static void print_counts_frames(const struct pmt_file_map *m, uint32_t data_frames, bool verbose)
{
	struct counts_sum cs = { 0 };
	struct pmt_ctr_counts *dec = NULL;
	uint64_t stats = 0, rounds = 0, bytes = 0;
	size_t mixed = 0, unusable = 0;

	if (pmt_ctr_counts_list(m->data, m->size, note_counts, &cs) < 0 ||
	    (cs.n && verbose && pmt_ctr_counts_new(&dec) < 0)) {
		pmt_cli_warn("info", "out of memory");
		goto out;
	}
	if (!cs.n)
		goto out;
	for (size_t i = 0; i < cs.n; i++) {
		stats += cs.v[i].nstats;
		rounds += cs.v[i].nrounds;
		bytes += cs.v[i].size;
		mixed += cs.v[i].version == 2;
		unusable += cs.v[i].damaged != NULL;
	}
	printf("counts frames: %zu for %zu of %" PRIu32 " data frames (%zu also holding other "
	       "records), %" PRIu64 " STAT and %" PRIu64 " STAT_ROUND records, %" PRIu64
	       " bytes", cs.n, cs.n, data_frames, mixed, stats, rounds, bytes);
	if (unusable)
		printf("; %zu not usable (their data frames' records are read)", unusable);
	printf("\n");
	for (size_t i = 0; verbose && i < cs.n; i++) {
		const struct pmt_ctr_counts_ref *r = &cs.v[i];
		struct pmt_ctr_counts_frame f;
		const char *why = r->damaged;

		printf("  counts frame at %" PRIu64 " (%" PRIu64 " bytes): data frame %" PRIu32
		       " at %" PRIu64 ", stream 0x%" PRIx64 "-0x%" PRIx64, r->at, r->size, r->index,
		       r->offset, r->stream_offset, r->stream_offset + r->stream_size);
		if (!why && pmt_ctr_counts_decode(dec, m->data, m->size, r->at, &f, &why) == 0) {
			printf(", version %" PRIu32 ", %" PRIu32 " keys, %" PRIu32 " STAT and %"
			       PRIu32 " STAT_ROUND records", r->version, f.nkeys, f.nstats,
			       f.nrounds);
			if (f.nrounds)
				printf(", rounds %" PRIu64 ".%09" PRIu64 "-%" PRIu64 ".%09" PRIu64
				       " s", f.round_time[0] / 1000000000, f.round_time[0] % 1000000000,
				       f.round_time[f.nrounds - 1] / 1000000000,
				       f.round_time[f.nrounds - 1] % 1000000000);
			if (r->version == 2) {
				printf(", other records: ");
				print_other_types(r->other_types);
			}
			printf(", checksum ok\n");
		} else {
			printf(", not usable: %s\n", why ? why : "out of memory");
		}
	}
out:
	pmt_ctr_counts_free(dec);
	free(cs.v);
}

static void container_info(const char *path, const struct pmt_file_map *m,
			   const struct pmt_time_conv *tc, bool verbose)
{
	struct pmt_ctr_reader *r;
	struct pmt_ctr_frame f;
	struct pmt_diag d = PMT_DIAG_INIT;
	const struct pmt_ctr_stats *st;
	uint64_t *read = NULL;
	size_t nread = 0, read_cap = 0, nwalked = 0, walked_cap = 0;
	struct offsets with_info = { 0 };
	struct pmt_ctr_frame_info *walked = NULL;
	uint64_t ts_seen = 0; /* the newest SPE timestamp of the frames read */
	int rc;

	if (pmt_ctr_reader_new(m->data, m->size, path, &r, &d) < 0) {
		pmt_diag_print(&d);
		return;
	}
	if (pmt_ctr_frame_infos(m->data, m->size, note_info, &with_info) < 0)
		pmt_cli_warn("info", "out of memory");
	while ((rc = pmt_ctr_next(r, &f, &d)) != 0) {
		if (rc < 0) {
			char msg[512];

			pmt_diag_format(&d, msg, sizeof(msg));
			pmt_cli_warn("info", "%s", msg);
			continue;
		}
		if (note_read(&read, &nread, &read_cap, f.offset) < 0) {
			pmt_cli_warn("info", "out of memory");
			break;
		}
		if (with_info.n && bsearch(&f.offset, with_info.v, with_info.n, sizeof(*with_info.v),
					   cmp_offset))
			continue;
		/* no info after it (cut off, damaged, an older writer): its records walked */
		if (nwalked == walked_cap) {
			size_t c = walked_cap ? 2 * walked_cap : 4;
			struct pmt_ctr_frame_info *v = realloc(walked, c * sizeof(*v));

			if (!v) {
				pmt_cli_warn("info", "out of memory");
				break;
			}
			walked = v;
			walked_cap = c;
		}
		if (pmt_ctr_frame_describe(r, &f, &walked[nwalked]) == 0)
			nwalked++;
	}
	free(with_info.v);
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
		struct infos_sum is = { .cpu_lo = UINT32_MAX, .read = read, .nread = nread,
					.tc = tc, .walked = walked, .nwalked = nwalked };

		if (pmt_ctr_frame_infos(m->data, m->size, sum_info, &is) < 0 ||
		    add_walked(&is, UINT64_MAX) < 0)
			pmt_cli_warn("info", "out of memory");
		printf("frame infos: %" PRIu32 " of %" PRIu32 " frames (%" PRIu32
		       " of AUX data only, which --cpu and --time slices can pass over)",
		       is.n, st->frames + st->damaged, is.aux_only);
		if (nwalked)
			printf("; %zu without one (their records walked for AUX offsets and "
			       "times)", nwalked);
		if (is.cpu_lo <= is.cpu_hi)
			printf("; CPUs %" PRIu32 "-%" PRIu32, is.cpu_lo, is.cpu_hi);
		if (is.timed)
			printf("; SPE timestamps 0x%" PRIx64 "-0x%" PRIx64, is.ts_lo, is.ts_hi);
		if (is.damaged_infos)
			printf("; %" PRIu32 " damaged", is.damaged_infos);
		printf("\n");
		print_streams(&is);
		free(is.st);
		ts_seen = is.timed ? is.ts_hi : 0;
	}
	free(walked);
	free(read);
	print_counts_frames(m, st->frames + st->damaged, verbose);
	{
		struct pmt_ctr_cut cut;
		int rc_cut = pmt_ctr_cut_frame(r, &cut);

		if (rc_cut > 0)
			print_cut_frame(&cut, tc, ts_seen);
		else if (rc_cut < 0)
			pmt_cli_warn("info", "out of memory");
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
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = NULL;
	struct pmt_source *src;
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_file_map m;
	char what[1024];
	bool verbose = false;
	int c;

	while ((c = getopt_long(argc, argv, "hi:v", opts, NULL)) != -1) {
		switch (c) {
		case 'i': path = optarg; break;
		case 'v': verbose = true; break;
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
		/* opened first for its TIME_CONV, which puts lost frames' SPE times on perf's
		 * clock */
		int rc = pmt_source_open(path, &src, &d);
		const struct pmt_trace_meta *meta = rc < 0 ? NULL : pmt_source_meta(src);

		printf("file: %s\n", path);
		container_info(path, &m, meta && meta->has_time_conv ? &meta->time_conv : NULL,
			       verbose);
		pmt_file_unmap(&m);
		if (rc < 0)
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
