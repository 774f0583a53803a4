/* pmutrace script: SPE samples from perf.data or a raw AUX buffer; report shares its decode
 * (spe_decode_command), export too with samples of its own (spe_decode_consume). */
#include <ctype.h>
#include <getopt.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/container.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"
#include "pmutrace/symbols.h"
#include "pmutrace/metrics.h"
#include "metric_opts.h"
#include "decode_opts.h"



/* the trace's MMAP/COMM/FORK records build the address spaces symbols come from; perf
 * report's "Total Lost Samples" counts LOST_SAMPLES */
struct sideband {
	struct pmt_symbols *syms;
	struct pmt_html *html;
	uint64_t lost_samples;
	const struct spe_consumer *cons; /* export: sees the records too */
};

static int feed_symbols(const struct pmt_trace_event *ev, void *ctx)
{
	struct sideband *sb = ctx;

	sb->lost_samples += pmt_trace_event_lost_samples(ev);
	if (sb->html) {
		int rc = pmt_html_add_event(sb->html, ev);

		if (rc < 0)
			return rc;
	}
	if (sb->cons && sb->cons->event) {
		int rc = sb->cons->event(sb->cons->ctx, ev);

		if (rc < 0)
			return rc;
	}
	return pmt_symbols_add_event(sb->syms, ev);
}

/* --call-graph dwarf recordings: the user frames of a sample from its stack copy */
static int unwind_user(const struct pmt_sample *smp, uint64_t *ips, unsigned max, void *ctx)
{
	struct sideband *sb = ctx;

	return pmt_symbols_unwind(sb->syms, smp, ips, max);
}

/* Samples whose user stack gave no frame lost their user chain: said, and the status
 * follows. Unwindings that stopped early are perf's too (a stack copy ends, code without
 * CFI): -v counts them. */
static void note_unwinding(const char *cmd, const char *path, const struct pmt_symbols *syms,
			   bool verbose)
{
	struct pmt_unwind_stats u;

	pmt_symbols_unwind_stats(syms, &u);
	if (!u.samples)
		return;
	if (verbose)
		fprintf(stderr, "%s: dwarf unwinding: %" PRIu64 " samples, %" PRIu64 " frames, "
			"%" PRIu64 " stopped before the outermost frame, %" PRIu64 " without a "
			"frame\n", path, u.samples, u.frames, u.truncated, u.failed);
	if (u.failed)
		pmt_cli_warn(cmd, "%s: %" PRIu64 " of %" PRIu64 " samples' user stacks not "
			     "unwound (their pc in no file with code that was found): their call "
			     "chains hold only the kernel part", path, u.failed, u.samples);
}

struct sink_ctx {
	struct pmt_spe_sink *sink;
	struct pmt_spe_report *rep;
	struct pmt_hist *hist;
	struct pmt_html *html;
	const struct pmt_sample_filter *filter; /* NULL: every sample */
	/* report's --pid/--tid (NULL: none): the other threads' samples stay in the totals */
	const struct pmt_sample_filter *threads;
	struct pmt_sample_filter threads_only;
	const struct spe_consumer *cons;        /* export: takes every sample */
	struct pmt_sample_pipe *pipe;           /* -j: the writer's thread */
	struct pmt_sink_blocks *blocks;         /* -j: rows made on the decoder's threads */
	/* the progress line: its position is the AUX bytes decoded, nearly all of an SPE
	 * trace; not the trace's read position, which runs ahead of the decode (chunks are
	 * queued) or stands still (one AUXTRACE record may hold the whole trace) */
	struct pmt_progress progress;
};

/* the input's size for the progress line's share; 0 (none) for a pipe or a container,
 * whose position counts the uncompressed stream; *container: a container file */
static uint64_t input_size(const char *path, bool *container)
{
	uint8_t magic[64];
	struct stat st;
	size_t n = 0;
	FILE *fp;

	*container = false;
	if (!strcmp(path, "-") || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	fp = fopen(path, "rb");
	if (fp) {
		n = fread(magic, 1, sizeof(magic), fp);
		fclose(fp);
	}
	*container = pmt_ctr_is_container(magic, n);
	return *container ? 0 : (uint64_t)st.st_size;
}

static void count_progress(struct sink_ctx *c, const struct pmt_spe_sample *s, int n)
{
	if (pmt_progress_due(&c->progress, (uint64_t)n) && s->rec)
		pmt_progress_stream(&c->progress, s->cpu, s->rec->offset);
	pmt_progress_add(&c->progress, (uint64_t)n);
}

/* the writer's part of a sample, on the writer's thread with -j */
static int write_sample(const struct pmt_spe_sample *s, void *ctx)
{
	struct sink_ctx *c = ctx;

	if (c->html)
		return pmt_html_add(c->html, s);
	if (c->cons)
		return c->cons->sample(s, c->cons->ctx);
	if (c->hist)
		return pmt_hist_add(c->hist, s);
	if (c->rep)
		return pmt_spe_report_add(c->rep, s);
	pmt_spe_sink_write(c->sink, s);
	return 0;
}

static int on_sample(const struct pmt_spe_sample *s, void *ctx)
{
	struct sink_ctx *c = ctx;

	count_progress(c, s, 1);
	if (c->filter && !pmt_sample_filter_match(c->filter, s))
		return 0;
	if (c->threads && !pmt_sample_filter_match(c->threads, s))
		return pmt_hist_add_hidden(c->hist, s);
	return c->pipe ? pmt_sample_pipe_put(c->pipe, s, 1) : write_sample(s, c);
}

static int on_record(const struct pmt_spe_sample *s, int n, void *ctx)
{
	struct sink_ctx *c = ctx;

	count_progress(c, s, n);
	if (c->pipe)
		return pmt_sample_pipe_put(c->pipe, s, n);
	for (int i = 0; i < n; i++)
		pmt_spe_sink_write(c->sink, &s[i]);
	return 0;
}

/* -j on a container: a block of SPE samples' rows, on whichever decoder thread is free */
static int on_block_rows(unsigned slot, const struct pmt_spe_sample *s, size_t n, void *ctx)
{
	return pmt_sink_blocks_rows(((struct sink_ctx *)ctx)->blocks, slot, s, n);
}

/* ... and out, in block order */
static int on_block_out(unsigned slot, const struct pmt_spe_sample *s, size_t n, void *ctx)
{
	struct sink_ctx *c = ctx;

	if (n)
		count_progress(c, s, (int)n);
	return pmt_sink_blocks_out(c->blocks, slot);
}

/* report's samples a record at a time, when nothing filters them */
static int on_record_hist(const struct pmt_spe_sample *s, int n, void *ctx)
{
	struct sink_ctx *c = ctx;

	count_progress(c, s, n);
	return pmt_hist_add_record(c->hist, s, n);
}

/* report's records in brief, when its table reads no more of their samples */
static int on_brief_hist(const struct pmt_spe_brief *b, void *ctx)
{
	struct sink_ctx *c = ctx;

	if (pmt_progress_due(&c->progress, b->n))
		pmt_progress_stream(&c->progress, b->cpu, b->rec->offset);
	pmt_progress_add(&c->progress, b->n);
	return pmt_hist_add_brief(c->hist, b);
}

static void prefetch_hist(uint64_t ip, void *ctx)
{
	pmt_hist_prefetch(((struct sink_ctx *)ctx)->hist, ip);
}

/* The first and last sample time, for --time percentages (perf slices that span). */
struct span {
	uint64_t first, last;
};

static int note_span(const struct pmt_spe_sample *s, void *ctx)
{
	struct span *sp = ctx;

	if (s->time < sp->first)
		sp->first = s->time;
	if (s->time > sp->last)
		sp->last = s->time;
	return 0;
}

static int slice_source(struct pmt_source *src, const struct pmt_sample_filter *f)
{
	struct pmt_source_slice sl = { .sz = sizeof(sl), .nr_cpus = f->cpus.n,
				       .cpu_lo = f->cpus.lo, .cpu_hi = f->cpus.hi,
				       .nr_times = f->nr_time, .t_lo = f->t_lo, .t_hi = f->t_hi };

	return pmt_source_slice(src, &sl);
}

/* perf prints event names right-aligned to the longest name in the evlist */
static unsigned name_width(const struct pmt_trace_meta *m, uint32_t enabled, int compat)
{
	size_t w = 0;

	for (unsigned ev = 0; (!m || m->has_auxtrace_info) && ev < PMT_SPE_SE_COUNT; ev++)
		if (enabled & (1u << ev) && strlen(pmt_spe_event_name(ev, compat)) > w)
			w = strlen(pmt_spe_event_name(ev, compat));
	if (!m) {
		/* a minimal perf.data without EVENT_DESC: "unknown attr type: 8" */
		return 20;
	}
	for (uint32_t i = 0; i < m->nr_attrs; i++) {
		char buf[128];
		size_t l = (size_t)pmt_trace_event_name(m, PMT_EV_ATTR(i), compat, buf, sizeof(buf));

		if (l > w)
			w = l;
	}
	return (unsigned)w;
}

static int decode_command(int argc, char **argv, int is_report, const struct spe_consumer *cons)
{
	struct script_opts so;
	struct sink_ctx ctx;
	struct pmt_out out;
	struct pmt_spe_rec_stats st;
	struct pmt_file_map map = { 0 };
	struct pmt_source *src = NULL;
	struct pmt_symbols *syms = NULL;
	struct sideband sb = { 0 };
	uint32_t enabled = 0;
	bool brstack;
	bool container = false; /* the input is a container file */
	struct pmt_spe_sink_opts sink_opts = { .sz = sizeof(sink_opts) };
	struct pmt_out_file html_file = { 0 };
	char line[256];
	int rc, begin_rc, cons_rc = 0, early = 0, metric_rc = 0;

	rc = decode_parse_args(&so, argc, argv, cons);
	if (rc) {
		metric_opts_fini(&so.metrics);
		return rc < 0 ? 0 : rc;
	}
	memset(&ctx, 0, sizeof(ctx));
	memset(&st, 0, sizeof(st));
	ctx.cons = cons;
	if (pmt_out_init(&out, stdout, 1 << 18))
		return pmt_cli_fail(so.cmd, "out of memory");
	if (is_report && pmt_spe_report_new(&ctx.rep)) {
		pmt_out_fini(&out);
		return pmt_cli_fail(so.cmd, "out of memory");
	}
	if (so.raw) {
		struct pmt_diag diag = PMT_DIAG_INIT;

		if (pmt_file_map(so.path, &map, &diag)) {
			pmt_spe_report_free(ctx.rep);
			pmt_out_fini(&out);
			return pmt_cli_fail_diag(so.cmd, &diag);
		}
	} else {
		struct pmt_diag diag = PMT_DIAG_INIT;

		rc = pmt_source_open(so.path, &src, &diag);
		if (rc < 0) {
			pmt_spe_report_free(ctx.rep);
			pmt_out_fini(&out);
			return pmt_cli_fail_diag(so.cmd, &diag);
		}
		if (pmt_sample_filter_check(&so.filter, pmt_source_meta(src), &diag) < 0) {
			pmt_source_close(src);
			pmt_spe_report_free(ctx.rep);
			pmt_out_fini(&out);
			diag.file = so.path;
			return pmt_cli_fail_diag(so.cmd, &diag);
		}
		/* perf report's default; also for SPE's samples when a filter names what
		 * only a table of entries shows */
		if (is_report && !so.sort && (!pmt_source_meta(src)->has_auxtrace_info ||
					      (!so.html && (so.comms || so.dsos || so.symbols))))
			so.sort = "comm,dso,sym";
		if (so.fields) {
			struct pmt_diag d = PMT_DIAG_INIT;

			if (pmt_spe_fields_check(pmt_source_meta(src), so.fields, &d) < 0) {
				pmt_source_close(src);
				pmt_spe_report_free(ctx.rep);
				pmt_out_fini(&out);
				return pmt_cli_fail(so.cmd, "%s: %s", so.path, d.msg);
			}
		}
	}
	if ((so.fields & PMT_FIELDS_SYMBOLS) || so.sort || cons || so.html ||
	    (src && pmt_trace_has_own_samples(pmt_source_meta(src)))) {
		struct pmt_symbols_opts sym_opts = { .sz = sizeof(sym_opts), .symfs = so.symfs,
						     .compat = so.run.compat,
						     .kallsyms = so.kallsyms,
						     .vmlinux = so.vmlinux,
						     .debuginfod = so.debuginfod,
						     .no_demangle = so.no_demangle };

		if (pmt_symbols_new(&sym_opts, &syms) < 0) {
			pmt_spe_report_free(ctx.rep);
			pmt_source_close(src);
			if (so.raw)
				pmt_file_unmap(&map);
			pmt_out_fini(&out);
			return pmt_cli_fail(so.cmd, "out of memory");
		}
		if (src) {
			const struct pmt_trace_meta *tm = pmt_source_meta(src);

			/* a container's own copies of its files come first */
			if (pmt_symbols_add_source_files(syms, src) < 0) {
				pmt_symbols_free(syms);
				pmt_spe_report_free(ctx.rep);
				pmt_source_close(src);
				pmt_out_fini(&out);
				return pmt_cli_fail(so.cmd, "out of memory");
			}

			for (uint32_t i = 0; i < tm->nr_build_ids; i++)
				pmt_symbols_add_build_id(syms, tm->build_ids[i].filename,
							 tm->build_ids[i].id, tm->build_ids[i].size);
		}
		sb.syms = syms;
		sb.cons = cons;
		so.run.event_fn = feed_symbols;
		so.run.event_ctx = &sb;
		so.run.unwind_fn = unwind_user;
		so.run.unwind_ctx = &sb;
		if (so.sort) {
			struct pmt_diag d = PMT_DIAG_INIT;
			struct pmt_hist_filter_opts fo = PMT_OPTS_INIT(
				pmt_hist_filter_opts, .comms = so.comms, .dsos = so.dsos,
				.symbols = so.symbols);

			rc = pmt_hist_new(so.sort, syms, &ctx.hist, &d);
			if (rc >= 0)
				rc = pmt_hist_set_filter(ctx.hist, &fo);
			if (rc >= 0) {
				pmt_hist_set_mode(ctx.hist, so.run.compat, so.mem);
				pmt_hist_set_time_slices(ctx.hist, so.time);
				pmt_hist_set_relative(ctx.hist, so.percentage_relative != 0);
				if (src)
					pmt_hist_set_trace(ctx.hist, pmt_source_meta(src));
				if (src && !so.mem) {
					struct pmt_hist_callgraph_opts cgo = PMT_OPTS_INIT(
						pmt_hist_callgraph_opts,
						.spec = so.callgraph && *so.callgraph ? so.callgraph : NULL,
						.children = so.children, .inverted = so.inverted != 0,
						.max_stack_given = so.max_stack_given != 0,
						.max_stack = so.max_stack,
						.no_inline = so.no_inline != 0);

					rc = pmt_hist_set_callgraph(ctx.hist, &cgo, &d);
					if (rc >= 0 && so.percent_limit > 0)
						pmt_hist_set_percent_limit(ctx.hist, so.percent_limit,
									   so.percent_limit_after_g != 0);
				}
			}
			if (rc < 0) {
				pmt_hist_free(ctx.hist);
				pmt_symbols_free(syms);
				pmt_spe_report_free(ctx.rep);
				pmt_source_close(src);
				if (so.raw)
					pmt_file_unmap(&map);
				pmt_out_fini(&out);
				return rc == -PMT_EPARSE || rc == -PMT_EUNSUPPORTED
					       ? pmt_cli_usage_fail(so.cmd, "%s", d.msg)
							 : pmt_cli_fail(so.cmd, "out of memory");
			}
		}
	}
	enabled = pmt_spe_itrace_events(&so.run.itrace, so.run.compat, &brstack);
	sink_opts.fmt = so.fmt;
	sink_opts.compat = so.run.compat;
	sink_opts.show_time = so.raw ? so.run.raw_timed : !pmt_source_meta(src)->timeless;
	sink_opts.brstack = brstack;
	sink_opts.hide_callchain = so.hide_callchain;
	sink_opts.no_inline = so.no_inline;
	sink_opts.fields = so.fields;
	sink_opts.symbols = syms;
	sink_opts.meta = src ? pmt_source_meta(src) : NULL;
	sink_opts.name_width = name_width(src ? pmt_source_meta(src) : NULL, enabled,
					  so.run.compat);
	rc = pmt_spe_sink_new(&out, &sink_opts, &ctx.sink);
	if (rc < 0) {
		pmt_spe_report_free(ctx.rep);
		pmt_source_close(src);
		if (so.raw)
			pmt_file_unmap(&map);
		pmt_out_fini(&out);
		return pmt_cli_fail(so.cmd, "%s", pmt_errstr(rc));
	}
	if (so.html) {
		/* the page's file is made before the decode: a bad path fails at once */
		struct pmt_html_opts ho = PMT_OPTS_INIT(pmt_html_opts, .compat = so.run.compat,
							.symbols = syms, .title = so.path,
							.top = so.top_given ? so.top : 0,
							.meta = src ? pmt_source_meta(src) : NULL,
							.comm_list = so.comms, .dso_list = so.dsos,
							.sym_list = so.symbols);
		struct pmt_diag diag = PMT_DIAG_INIT;
		const char *inputs[] = { so.path };

		if (pmt_html_new(&ho, &ctx.html) < 0) {
			early = pmt_cli_fail(so.cmd, "out of memory");
			goto release;
		}
		sb.html = ctx.html;
		if (pmt_out_file_open(&html_file, so.html, inputs, 1, &diag) < 0) {
			early = pmt_cli_fail_diag(so.cmd, &diag);
			goto release;
		}
	}
	/* -j: the AUX queues' packets are decoded into records on threads beside the
	 * merge, on as many as decompress frames ahead */
	if (so.jobs > 1)
		so.run.decode_threads = so.jobs > 2 ? so.jobs - 2 : 1;
	if (so.filter.time_pct) {
		/* percentages of the trace's span: one pass to find it first */
		struct span sp = { UINT64_MAX, 0 };
		struct pmt_spe_run_opts o = so.run;
		struct pmt_diag diag = PMT_DIAG_INIT;

		o.record_fn = NULL;
		if (so.raw) {
			pmt_spe_run_raw(map.data, map.size, &o, note_span, &sp, NULL, NULL);
		} else {
			struct pmt_source *pass;

			if (pmt_source_open(so.path, &pass, &diag) == 0) {
				pmt_source_threads(pass, so.jobs > 2 ? so.jobs - 2 : so.jobs - 1);
				pmt_spe_run_source(pass, &o, note_span, &sp, NULL, NULL);
				pmt_source_close(pass);
			}
		}
		pmt_sample_filter_set_span(&so.filter, sp.first == UINT64_MAX ? 0 : sp.first,
					   sp.last);
	}
	/* perf report's --pid and --tid hide the other threads' entries, whose samples its
	 * totals keep (--percentage absolute); its --cpu and --time drop the samples */
	if (ctx.hist && (so.filter.pids.n || so.filter.tids.n)) {
		ctx.threads_only = so.filter;
		ctx.threads_only.cpus.n = 0;
		ctx.threads_only.nr_time = 0;
		ctx.threads = &ctx.threads_only;
		so.filter.pids.n = so.filter.tids.n = 0;
	}
	if (pmt_sample_filter_active(&so.filter))
		ctx.filter = &so.filter;
	/* the samples of other CPUs and times are not printed: leave their frames unread.
	 * Not for --html and export, which also count what was decoded. */
	if (src && ctx.filter && !ctx.html && !cons && slice_source(src, &so.filter) < 0) {
		early = pmt_cli_fail(so.cmd, "out of memory");
		goto release;
	}
	if (!is_report && !cons)
		pmt_spe_sink_header(ctx.sink);
	if (!is_report && !ctx.filter && !cons)
		so.run.record_fn = on_record;
	/* write_sample's order: a page or a consumer takes the samples before the table */
	if (ctx.hist && !ctx.filter && !ctx.threads && !ctx.html && !cons) {
		so.run.record_fn = on_record_hist;
		so.run.prefetch_fn = prefetch_hist;
		if (pmt_hist_takes_brief(ctx.hist))
			so.run.brief_fn = on_brief_hist;
	}
	/* the consumer opens its output only for a trace that could be opened */
	begin_rc = cons ? cons->begin(cons->ctx, so.path, src ? pmt_source_meta(src) : NULL,
				      so.run.compat, syms) : 0;
	/* on a terminal, unless script's rows go to that terminal too */
	if (so.progress < 0)
		so.progress = isatty(STDERR_FILENO) && (is_report || cons || !isatty(STDOUT_FILENO));
	if (pmt_progress_init(&ctx.progress, so.progress ? stderr : NULL, so.cmd,
			      so.raw ? map.size : input_size(so.path, &container)) < 0)
		pmt_cli_warn(so.cmd, "no progress line: out of memory");
	/* -j: a container's frames are decompressed ahead, and the rows are written on a
	 * thread of their own unless the writer reads the address spaces, which the decode
	 * adds to as it reads the trace's records */
	if (so.jobs > 1 && src && pmt_source_threads(src, so.jobs > 2 ? so.jobs - 2 : 1) < 0)
		pmt_cli_warn(so.cmd, "-j: no threads to decompress ahead: out of memory");
	if (so.jobs > 1 && !syms && !ctx.html && !cons && !ctx.hist) {
		/* a time-ordered container's samples are made on a thread of the decoder's,
		 * which writes them too; otherwise they go to a writer's thread from here. Not
		 * for a perf.data: its main thread has no frames to read, and the samples made
		 * here balance the two threads better (bench/parallel_decode.sh: at -j 2 the
		 * writer's thread took 60% of the CPU with the samples, 42% without) */
		bool sampler;

		so.run.sample_thread = container;
		sampler = pmt_spe_run_sample_thread(src ? pmt_source_meta(src) : NULL, &so.run);
		/* -j 2 on a container: the writer's thread and the one decompressing keep
		 * both cores busy; a record worker as well cost more CPU in hand-overs than
		 * it took off this thread (bench/parallel_decode.sh, README) */
		if (sampler && so.jobs == 2 && container)
			so.run.decode_threads = 0;
		/* CSV and JSONL rows: made in blocks by the sampler's thread, and by the merge
		 * when it would wait for that thread (bench/parallel_decode.sh, README) */
		if (sampler && so.run.record_fn == on_record &&
		    pmt_sink_blocks_new(ctx.sink, PMT_SPE_BLOCK_SLOTS, &ctx.blocks) == 0) {
			so.run.block_rows_fn = on_block_rows;
			so.run.block_out_fn = on_block_out;
		}
		if (!sampler && pmt_sample_pipe_new(write_sample, &ctx, &ctx.pipe) < 0)
			pmt_cli_warn(so.cmd, "-j: no writer thread: out of memory");
	}
	if (begin_rc)
		rc = 0;
	else if (so.raw)
		rc = pmt_spe_run_raw(map.data, map.size, &so.run, on_sample, &ctx, &st, &enabled);
	else
		rc = pmt_spe_run_source(src, &so.run, on_sample, &ctx, &st, &enabled);
	{
		int prc = pmt_sample_pipe_free(ctx.pipe);

		pmt_sink_blocks_free(ctx.blocks);

		if (prc < 0 && rc >= 0)
			rc = prc;
	}
	pmt_progress_fini(&ctx.progress);
	if (so.verbose && src) {
		uint32_t nread, nskipped;

		pmt_source_frames(src, &nread, &nskipped);
		fprintf(stderr, "%s: %" PRIu32 " data frames read, %" PRIu32 " passed over\n",
			so.path, nread, nskipped);
	}
	if (syms)
		note_unwinding(so.cmd, so.path, syms, so.verbose);
	if (ctx.html) {
		struct pmt_out page;
		struct pmt_diag diag = PMT_DIAG_INIT;

		if (rc >= 0 && so.metrics.ntables) {
			metric_rc = metric_opts_rows(&so.metrics, so.cmd, so.path, metric_row_to_html,
						     ctx.html);
			if (metric_rc)
				rc = -PMT_EIO;
		}
		if (rc >= 0 && pmt_out_init(&page, html_file.fp, 1 << 16) < 0)
			rc = -PMT_ENOMEM;
		if (rc >= 0) {
			int wrc = pmt_html_write(ctx.html, &page, &st, enabled);

			if (pmt_out_fini(&page) < 0 || wrc < 0)
				rc = wrc < 0 ? wrc : -PMT_EIO;
		}
		if (rc < 0)
			pmt_out_file_abort(&html_file);
		else if (pmt_out_file_commit(&html_file, &diag) < 0)
			early = pmt_cli_fail_diag(so.cmd, &diag);
	} else if (ctx.hist)
		pmt_hist_print_as(ctx.hist, &out, so.run.compat, sb.lost_samples,
				  so.json ? PMT_SINK_JSONL : so.fmt == PMT_SINK_CSV ? PMT_SINK_CSV
										 : PMT_SINK_TEXT);
	else if (is_report)
		pmt_spe_report_print(ctx.rep, &out, so.json, so.top, so.run.compat, enabled);
	if (pmt_out_fini(&out) < 0 && rc >= 0)
		rc = -PMT_EIO;
	if (pmt_spe_rec_stats_str(&st, line, sizeof(line)) > 0)
		pmt_cli_warn(so.cmd, "%s: %s", strcmp(so.path, "-") ? so.path : "stdin", line);
	/* the consumer ends while the address spaces and the trace are still there */
	if (cons)
		cons_rc = begin_rc ? begin_rc : cons->end(cons->ctx, rc, &st, enabled);
release:
	if (early)
		pmt_out_fini(&out);
	metric_opts_fini(&so.metrics);
	pmt_html_free(ctx.html);
	pmt_spe_report_free(ctx.rep);
	pmt_hist_free(ctx.hist);
	pmt_spe_sink_free(ctx.sink);
	pmt_symbols_free(syms);
	pmt_source_close(src);
	if (so.raw)
		pmt_file_unmap(&map);
	if (early)
		return early;
	if (metric_rc)
		return metric_rc; /* the page was not written; the reason is on stderr */
	if (cons)
		return cons_rc;
	if (rc < 0)
		return pmt_cli_fail(so.cmd, "%s", pmt_errstr(rc));
	return 0;
}

int spe_decode_command(int argc, char **argv, int is_report)
{
	return decode_command(argc, argv, is_report, NULL);
}

int spe_decode_consume(int argc, char **argv, const struct spe_consumer *c)
{
	return decode_command(argc, argv, 0, c);
}

int cmd_script(int argc, char **argv)
{
	return spe_decode_command(argc, argv, 0);
}
