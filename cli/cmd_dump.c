/* pmutrace dump: every SPE packet with its offset, bytes and fields, laid out as
 * `perf report -D` does, from a raw AUX buffer (--raw) or from a trace's AUXTRACE records. */
#include <errno.h>
#include <getopt.h>

#include "commands.h"
#include "decode_opts.h"
#include "pmutrace/common.h"
#include "pmutrace/spe.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/perfdata.h"

struct dump_opts {
	unsigned desc_flags;
	uint8_t cpu_given;  /* --n1 or --midr: else each chunk's CPU from the file decides */
	uint64_t base; /* --base: stream offset of a raw file's first byte */
	struct pmt_sample_filter filter; /* --cpu, --tid: the AUXTRACE chunks shown */
	struct pmt_sample_filter when;   /* --pid, --time: chunks and records shown */
	struct pmt_spe_threads *threads; /* --pid: a chunk's threads' processes */
	unsigned jobs;      /* -j: threads (a container's frames are decompressed ahead) */
	int verbose;        /* -v: a container's data frames read and passed over */
	struct pmt_out out;
	/* the last packet text: perf 7.3's arm_spe_dump() prints its uninitialised stack
	 * buffer for an OTHER payload it does not describe, which still holds the text of
	 * the last packet described, also one of the chunk before */
	char prev_desc[PMT_SPE_DESC_MAX];
};

static void put_hex8(char *p, unsigned v)
{
	p[0] = "0123456789abcdef"[(v >> 4) & 0xf];
	p[1] = "0123456789abcdef"[v & 0xf];
}

/* One line: ".  %08x: " + " %02x" per byte, padded to 16 bytes, then " desc". */
static void dump_line(struct dump_opts *d, uint64_t pos, const uint8_t *p, unsigned n,
		      const char *desc)
{
	struct pmt_out *o = &d->out;
	char *s;

	pmt_out_reserve(o, 16 + 3 * PMT_SPE_PKT_MAX_SZ + 4);
	s = o->buf + o->len;
	memcpy(s, ".  ", 3);
	s += 3;
	for (int sh = 24; sh >= 0; sh -= 8, s += 2)
		put_hex8(s, (unsigned)(pos >> sh) & 0xff); /* %08x: the low 32 bits */
	*s++ = ':';
	*s++ = ' ';
	for (unsigned i = 0; i < PMT_SPE_PKT_MAX_SZ; i++, s += 3) {
		s[0] = ' ';
		if (i < n) {
			put_hex8(s + 1, p[i]);
		} else {
			s[1] = ' ';
			s[2] = ' ';
		}
	}
	*s++ = ' ';
	o->len = (size_t)(s - o->buf);
	pmt_out_str(o, desc);
	pmt_out_char(o, '\n');
}

/* Returns the number of bad bytes met. `base` is the stream offset of buf[0], `pad_base`
 * where its alignment pads measure from (perf: the buffer's address). */
static uint64_t dump_spe(struct dump_opts *d, const uint8_t *buf, size_t len, uint64_t base,
			 uint64_t pad_base)
{
	struct pmt_spe_pkt_iter it;
	struct pmt_spe_packet pkt;
	char desc[PMT_SPE_DESC_MAX];
	uint64_t bad = 0;
	int n;

	pmt_out_printf(&d->out, ". ... ARM SPE data: size %#zx bytes\n", len);
	pmt_spe_pkt_iter_init(&it, buf, len, base);
	it.coalesce_pad = 1;
	it.pad_base = pad_base;
	for (;;) {
		size_t pos = it.pos;

		n = pmt_spe_pkt_next(&it, &pkt);
		if (n == -PMT_EEOS)
			break;
		if (n < 0) {
			/* perf shows one byte and resyncs at the next one */
			dump_line(d, pos, buf + pos, 1, "Bad packet!");
			pmt_spe_pkt_iter_skip(&it, 1);
			bad++;
			continue;
		}
		if (pmt_spe_packet_desc_flags(&pkt, d->desc_flags, desc, sizeof(desc)) < 0)
			desc[0] = '\0';
		else if (!desc[0] && pkt.type == PMT_SPE_OP_TYPE &&
			 !(d->desc_flags & PMT_SPE_DESC_LEGACY61))
			/* perf 7.3 writes nothing for an OTHER payload outside its subclasses
			 * and prints its description buffer as the packet before left it */
			memcpy(desc, d->prev_desc, sizeof(desc));
		memcpy(d->prev_desc, desc, sizeof(d->prev_desc));
		dump_line(d, pos, buf + pos, (unsigned)n, desc); /* n <= 16 */
	}
	return bad;
}

static int dump_raw(struct dump_opts *d, const char *path)
{
	struct pmt_file_map m;
	uint64_t bad;

	struct pmt_diag diag = PMT_DIAG_INIT;

	if (pmt_file_map(path, &m, &diag) < 0)
		return pmt_cli_fail_diag("dump", &diag);
	bad = dump_spe(d, m.data, m.size, d->base, d->base);
	pmt_file_unmap(&m);
	if (bad)
		pmt_cli_warn("dump", "%llu bad byte(s) in %s", (unsigned long long)bad,
			     strcmp(path, "-") ? path : "stdin");
	return 0;
}

/* Calls fn with the perf time of each TIMESTAMP packet of a chunk (the times script gives
 * its samples) until fn returns true. */
static void chunk_times(const struct pmt_trace_meta *m, const struct pmt_trace_event *ev,
			bool (*fn)(void *ctx, uint64_t t), void *ctx)
{
	struct pmt_spe_pkt_iter it;
	struct pmt_spe_packet pkt;

	pmt_spe_pkt_iter_init(&it, ev->u.auxtrace.data, ev->u.auxtrace.size, ev->u.auxtrace.offset);
	for (int n; (n = pmt_spe_pkt_next(&it, &pkt)) != -PMT_EEOS;) {
		if (n < 0) {
			pmt_spe_pkt_iter_skip(&it, 1);
			continue;
		}
		if (pkt.type == PMT_SPE_TIMESTAMP &&
		    fn(ctx, m->has_time_conv ? pmt_time_conv_to_perf(&m->time_conv, pkt.payload)
					     : pkt.payload))
			return;
	}
}

static bool in_time_ranges(const struct pmt_sample_filter *f, uint64_t t)
{
	for (unsigned i = 0; i < f->nr_time; i++)
		if (t >= f->t_lo[i] && t <= f->t_hi[i])
			return true;
	return false;
}

struct time_probe {
	const struct pmt_sample_filter *f;
	bool hit;
};

static bool probe_time(void *ctx, uint64_t t)
{
	struct time_probe *p = ctx;

	p->hit = in_time_ranges(p->f, t);
	return p->hit;
}

static bool pid_wanted(const struct dump_opts *d, int32_t pid)
{
	for (unsigned i = 0; i < d->when.pids.n; i++)
		if (pid >= 0 && (uint64_t)pid >= d->when.pids.lo[i] &&
		    (uint64_t)pid <= d->when.pids.hi[i])
			return true;
	return false;
}

/* A chunk holds samples of its own thread's process and of its CONTEXT packets' threads'
 * (a per-CPU chunk holds many). */
static bool chunk_has_pid(const struct dump_opts *d, const struct pmt_trace_event *ev)
{
	struct pmt_spe_pkt_iter it;
	struct pmt_spe_packet pkt;

	if (pid_wanted(d, pmt_spe_threads_pid(d->threads, (int32_t)ev->u.auxtrace.tid)))
		return true;
	pmt_spe_pkt_iter_init(&it, ev->u.auxtrace.data, ev->u.auxtrace.size, ev->u.auxtrace.offset);
	for (int n; (n = pmt_spe_pkt_next(&it, &pkt)) != -PMT_EEOS;) {
		if (n < 0)
			pmt_spe_pkt_iter_skip(&it, 1);
		else if (pkt.type == PMT_SPE_CONTEXT &&
			 pid_wanted(d, pmt_spe_threads_pid(d->threads, (int32_t)pkt.payload)))
			return true;
	}
	return false;
}

/* --pid and --time as script applies them to samples: a record by its sample id (one
 * without a sample id is shown), a chunk by its threads' processes and its timestamps. */
static bool event_wanted(const struct dump_opts *d, const struct pmt_trace_meta *m,
			 const struct pmt_trace_event *ev)
{
	if (ev->kind == PMT_TEV_AUXTRACE) {
		struct time_probe p = { &d->when, !d->when.nr_time };

		if (d->when.pids.n && !chunk_has_pid(d, ev))
			return false;
		if (!p.hit)
			chunk_times(m, ev, probe_time, &p);
		return p.hit;
	}
	if (!ev->sid.valid)
		return true;
	if (d->when.pids.n && !pid_wanted(d, (int32_t)ev->sid.pid))
		return false;
	return !d->when.nr_time || in_time_ranges(&d->when, ev->sid.time);
}

struct span {
	uint64_t first, last;
};

static bool widen_span(void *ctx, uint64_t t)
{
	struct span *sp = ctx;

	if (t < sp->first)
		sp->first = t;
	if (t > sp->last)
		sp->last = t;
	return false;
}

/* --time percentages are of the span of the samples' times, as in script: one pass over
 * the chunks' timestamps first. */
static void set_time_span(struct dump_opts *d, const char *path)
{
	struct pmt_source *src;
	struct pmt_trace_event ev;
	struct span sp = { UINT64_MAX, 0 };

	if (pmt_source_open(path, &src, NULL) < 0)
		return; /* the dump itself says why */
	for (int rc; (rc = pmt_source_next(src, &ev)) != -PMT_EEOS;) {
		if (rc < 0)
			break;
		if (ev.kind == PMT_TEV_AUXTRACE)
			chunk_times(pmt_source_meta(src), &ev, widen_span, &sp);
	}
	pmt_source_close(src);
	pmt_sample_filter_set_span(&d->when, sp.first == UINT64_MAX ? 0 : sp.first, sp.last);
}

static bool is_n1(uint64_t midr)
{
	/* implementer Arm (0x41), part 0xd0c: Neoverse N1 */
	return (midr >> 24 & 0xff) == 0x41 && (midr >> 4 & 0xfff) == 0xd0c;
}

/* perf -D names N1's IMPDEF event bit by the file's MIDR (its metadata, else its CPUID) */
static unsigned chunk_desc_flags(const struct dump_opts *d, const struct pmt_trace_meta *m,
				 uint32_t cpu)
{
	uint64_t midr = 0;

	if (d->cpu_given || !m || !m->cpu_midr || !m->nr_cpus)
		return d->desc_flags;
	midr = cpu < m->nr_cpus && m->cpu_midr[cpu] ? m->cpu_midr[cpu] : m->cpu_midr[0];
	return is_n1(midr) ? d->desc_flags | PMT_SPE_DESC_N1 : d->desc_flags;
}

/* --cpu and --time on a container: the data frames that hold none of those chunks are
 * passed over unread (their frame infos say so), as script's slices are */
static int slice_dump(struct pmt_source *src, const struct dump_opts *d)
{
	struct pmt_source_slice sl = { .sz = sizeof(sl), .nr_cpus = d->filter.cpus.n,
				       .cpu_lo = d->filter.cpus.lo, .cpu_hi = d->filter.cpus.hi,
				       .nr_times = d->when.nr_time, .t_lo = d->when.t_lo,
				       .t_hi = d->when.t_hi };

	return pmt_source_slice(src, &sl);
}

static int dump_trace(struct dump_opts *d, const char *path)
{
	struct pmt_source *src;
	struct pmt_trace_event ev;
	struct pmt_diag diag = PMT_DIAG_INIT;
	uint64_t bad = 0, stream_base;
	unsigned given_flags;
	bool sliced;
	int rc;

	rc = pmt_source_open(path, &src, &diag);
	if (rc == -PMT_EFORMAT) {
		char msg[600];

		pmt_diag_format(&diag, msg, sizeof(msg));
		return pmt_cli_fail("dump", "%s; use --raw for a raw SPE buffer", msg);
	}
	if (rc < 0)
		return pmt_cli_fail_diag("dump", &diag);
	/* perf 6.1 and 7.3 count a pipe-mode stream's offsets from after its 16-byte header
	 * (the first record is at 0), a file, a pipe and a container's frames alike */
	stream_base = pmt_source_meta(src)->perf_offset_base;
	sliced = d->filter.cpus.n || d->when.nr_time;
	if ((sliced && slice_dump(src, d) < 0) ||
	    (d->jobs > 1 && pmt_source_threads(src, d->jobs - 1) < 0)) {
		pmt_source_close(src);
		return pmt_cli_fail("dump", "out of memory");
	}
	for (uint64_t last_err = UINT64_MAX;;) {
		rc = pmt_source_next(src, &ev);
		if (rc == -PMT_EEOS)
			break;
		if (rc < 0) {
			uint64_t at = pmt_source_offset(src);

			pmt_cli_warn("dump", "%s: %s at file offset %#llx, skipped",
				     strcmp(path, "-") ? path : "stdin",
				     pmt_errstr(rc), (unsigned long long)at);
			if (at == last_err)
				break; /* no progress: stop rather than spin */
			last_err = at;
			continue;
		}
		if (d->threads && pmt_spe_threads_note(d->threads, &ev) < 0) {
			pmt_source_close(src);
			return pmt_cli_fail("dump", "out of memory");
		}
		if (sliced && pmt_source_slice_omits(&ev))
			continue;
		if (pmt_sample_filter_active(&d->when) &&
		    !event_wanted(d, pmt_source_meta(src), &ev))
			continue;
		if (ev.kind == PMT_TEV_AUXTRACE && pmt_sample_filter_active(&d->filter)) {
			struct pmt_spe_sample chunk = { .cpu = ev.u.auxtrace.cpu,
							.tid = (int32_t)ev.u.auxtrace.tid,
							.pid = -1 };

			if (!pmt_sample_filter_match(&d->filter, &chunk))
				continue;
		}
		pmt_out_printf(&d->out, "\n%#llx [%#x]: %s",
			       (unsigned long long)(ev.file_offset - stream_base),
			       ev.raw_size, pmt_perf_record_name(ev.type));
		if (ev.kind != PMT_TEV_AUXTRACE) {
			pmt_out_char(&d->out, '\n');
			continue;
		}
		pmt_out_printf(&d->out, " size: %#llx  offset: %#llx  ref: %#llx  idx: %u  tid: %u  cpu: %d\n",
			       (unsigned long long)ev.u.auxtrace.size,
			       (unsigned long long)ev.u.auxtrace.offset,
			       (unsigned long long)ev.u.auxtrace.reference, ev.u.auxtrace.idx,
			       ev.u.auxtrace.tid, (int)ev.u.auxtrace.cpu);
		given_flags = d->desc_flags;
		d->desc_flags = chunk_desc_flags(d, pmt_source_meta(src), ev.u.auxtrace.cpu);
		bad += dump_spe(d, ev.u.auxtrace.data, ev.u.auxtrace.size, ev.u.auxtrace.offset,
				ev.u.auxtrace.pad_base);
		d->desc_flags = given_flags;
	}
	if (d->verbose) {
		uint32_t nread, nskipped;

		pmt_source_frames(src, &nread, &nskipped);
		fprintf(stderr, "%s: %u data frames read, %u passed over\n", path, nread, nskipped);
	}
	pmt_source_close(src);
	if (bad)
		pmt_cli_warn("dump", "%llu bad byte(s) in %s", (unsigned long long)bad,
			     strcmp(path, "-") ? path : "stdin");
	return 0;
}

static int usage(FILE *fp)
{
	fprintf(fp,
		"usage: pmutrace dump [--raw [--base OFFSET]] [--perf-compat=VER] [--n1|--midr MIDR]\n"
		"         [--cpu LIST] [--tid LIST] [--pid LIST] [--time START,STOP|A%%-B%%]\n"
		"         [-j N] [-v]\n"
		"         [-i] [FILE]\n"
		"  Print every SPE packet (offset, bytes, fields) as perf report -D does.\n"
		"  FILE (or -i FILE; default ./perf.data) is a perf.data trace, or with --raw a raw\n"
		"  SPE AUX buffer ('-' = stdin).\n"
		"  --base OFFSET  AUX stream offset of the raw file's first byte (alignment pads)\n"
		"  --perf-compat=VER  the packet text of that perf release (X.Y, the model of the\n"
		"              nearest earlier one of 6.1 6.13 ... 7.3, as script's; default newest):\n"
		"              releases before 6.13 print perf 6.1's OP_TYPE/EVENTS text\n"
		"  --legacy61  the same as --perf-compat=6.1\n"
		"  --n1        name IMPDEF event bit 12 LATE-PREFETCH (Neoverse N1; default: the\n"
		"              file's MIDR decides, as in perf)\n"
		"  --midr MIDR the CPU's MIDR_EL1, as script takes it: a Neoverse N1 one is --n1\n"
		"  --cpu LIST, --tid LIST (0-3,7)  only the AUXTRACE chunks of those CPUs or\n"
		"              threads (the other records are shown, but with --cpu or --time\n"
		"              not FINISHED_ROUND, AUX and ITRACE_START: a container's frames\n"
		"              that hold only those and other chunks are passed over unread)\n"
		"  --pid LIST, --time START,STOP|A%%-B%%[,C%%-D%%]  as script's: records by their\n"
		"              sample id's pid and time (records without one are shown), chunks\n"
		"              holding samples of those processes (by their thread and CONTEXT\n"
		"              packets) and with a timestamp in those times\n"
		"  -j, --jobs N  threads: a container's frames are decompressed ahead on N - 1\n"
		"              of them (default: the online CPUs; 1: none); the output is the same\n"
		"  -v, --verbose  a container's data frames read and passed over\n");
	fputs(pmt_cli_exit_help, fp);
	return fp == stdout ? 0 : PMT_EXIT_USAGE;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "raw", no_argument, NULL, 'r' },
		{ "legacy61", no_argument, NULL, 'L' },
		{ "perf-compat", required_argument, NULL, 'P' },
		{ "n1", no_argument, NULL, 'N' },
		{ "base", required_argument, NULL, 'b' },
		{ "midr", required_argument, NULL, 'm' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "tid", required_argument, NULL, 't' },
		{ "pid", required_argument, NULL, 'p' },
		{ "time", required_argument, NULL, 'T' },
		{ "input", required_argument, NULL, 'i' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dump_opts d = { 0 };
	const char *path = NULL;
	int raw = 0, c, rc, frc;

	d.jobs = pmt_cli_jobs_default();
	while ((c = getopt_long(argc, argv, "rhvi:j:", opts, NULL)) != -1) {
		switch (c) {
		case 'i': path = optarg; break;
		case 'v': d.verbose = 1; break;
		case 'j':
			if (pmt_cli_jobs("dump", optarg, &d.jobs))
				return PMT_EXIT_USAGE;
			break;
		case 'r': raw = 1; break;
		case 'L': d.desc_flags |= PMT_SPE_DESC_LEGACY61; break;
		case 'P': {
			int compat;

			if ((rc = decode_perf_compat("dump", optarg, &compat)))
				return rc;
			/* the text perf 6.1 prints; 7.3's from the next model on (only those two
			 * releases are checked: the change lies between them) */
			if (compat < 613)
				d.desc_flags |= PMT_SPE_DESC_LEGACY61;
			else
				d.desc_flags &= ~(unsigned)PMT_SPE_DESC_LEGACY61;
			break;
		}
		case 'N': d.desc_flags |= PMT_SPE_DESC_N1; d.cpu_given = 1; break;
		case 'b':
			if (pmt_parse_u64(optarg, &d.base) < 0)
				return pmt_cli_usage_fail("dump", "--base: not a number: '%s'", optarg);
			break;
		case 'm': {
			uint64_t midr;

			if (pmt_parse_u64(optarg, &midr) < 0)
				return pmt_cli_usage_fail("dump", "bad --midr '%s'", optarg);
			d.cpu_given = 1;
			if (is_n1(midr))
				d.desc_flags |= PMT_SPE_DESC_N1;
			break;
		}
		case 'c':
			if (pmt_sample_filter_cpus(&d.filter, optarg) < 0)
				return pmt_cli_usage_fail("dump", "bad --cpu list '%s' (want e.g. 0-3,7)",
							  optarg);
			break;
		case 't':
			if (pmt_sample_filter_tids(&d.filter, optarg) < 0)
				return pmt_cli_usage_fail("dump", "bad --tid list '%s' (want e.g. 0-3,7)",
							  optarg);
			break;
		case 'p':
			if (pmt_sample_filter_pids(&d.when, optarg) < 0)
				return pmt_cli_usage_fail("dump", "bad --pid list '%s' (want e.g. 0-3,7)",
							  optarg);
			break;
		case 'T':
			if (pmt_sample_filter_time(&d.when, optarg) < 0)
				return pmt_cli_usage_fail("dump", "bad --time '%s' (perf's START,STOP in "
							  "seconds, or A%%-B%%[,C%%-D%%])", optarg);
			break;
		case 'h': return usage(stdout);
		default: return usage(stderr);
		}
	}
	path = pmt_cli_input(path, argc, argv, optind);
	if (!path)
		return usage(stderr);
	if (raw && (pmt_sample_filter_active(&d.filter) || pmt_sample_filter_active(&d.when)))
		return pmt_cli_usage_fail("dump", "--cpu, --tid, --pid and --time select a trace's "
					  "records and AUXTRACE chunks: a raw buffer has none");
	if (d.when.pids.n && pmt_spe_threads_new(&d.threads) < 0)
		return pmt_cli_fail("dump", "out of memory");
	if (d.when.time_pct)
		set_time_span(&d, path);
	if (pmt_out_init(&d.out, stdout, 1 << 16) < 0) {
		pmt_spe_threads_free(d.threads);
		return pmt_cli_fail("dump", "out of memory");
	}
	rc = raw ? dump_raw(&d, path) : dump_trace(&d, path);
	frc = pmt_out_fini(&d.out);
	pmt_spe_threads_free(d.threads);
	if (frc < 0 && !rc)
		rc = pmt_cli_fail("dump", "writing the output failed: %s", pmt_errstr(frc));
	return rc;
}
