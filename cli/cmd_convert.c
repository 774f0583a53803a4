/* pmutrace convert: write a trace as perf.data. The input is a perf.data (re-written,
 * COMPRESSED records expanded) or, with --raw, a raw SPE AUX buffer wrapped the way
 * `perf record` would store it: SPE attr, AUXTRACE_INFO v1, AUXTRACE records. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/symbols.h"
#include "pmutrace/container.h"

#define SPE_DEFAULT_PMU_TYPE 8 /* as in the shared perf 6.1 references */

struct convert_opts {
	const char *in, *out, *comm;
	uint64_t kernel_start, kernel_len; /* --kernel-mmap; len 0: none */
	uint8_t kernel_build_id[20], kernel_build_id_size; /* its build-id: HEADER_BUILD_ID */
	unsigned nmods;        /* --module-mmap START,LEN,PATH[,BUILDID] (parsed as --mmap's) */
	bool build_id_feature; /* build-ids in HEADER_BUILD_ID, plain MMAP2 records */
	unsigned nbundle;      /* --bundle LOCAL[=NAME] */
	const char *bundle[64];
	bool bundle_symbols[64]; /* --bundle-symbols: that one's symbol and line tables only */
	const char *bundle_kallsyms;
	unsigned nmaps;
	struct raw_map {
		char *arg;        /* private copy of the option; path points into it */
		const char *path;
		uint64_t start, len, pgoff;
		uint8_t build_id[20];
		uint8_t build_id_size;
	} maps[16], mods[8];
	bool raw, timeless, has_time_conv, has_midr, spe_v2, has_event_filter;
	uint32_t cpu, tid, pid;
	bool has_pid, container, spe_columns;
	int level;
	uint32_t frame_size; /* container: uncompressed bytes per data frame */
	uint64_t midr, chunk, pmu_type, event_filter;
	struct pmt_time_conv tc;
	struct pmt_perf_writer_opts wo;
};

#define PIPE_DEFAULT_CHUNK (4u << 20)

static int usage(FILE *fp)
{
	fprintf(fp,
		"usage: pmutrace convert IN -o OUT.perf.data [options]\n"
		"  IN is a perf.data file, or with --raw a raw Arm SPE buffer\n"
		"  -o, --output FILE      output perf.data (\"-\" = stdout, pipe mode)\n"
		"      --raw              IN is a raw SPE AUX buffer\n"
		"      --cpu N            CPU of the raw buffer (default 0)\n"
		"      --tid T            thread of the raw buffer (default 1234)\n"
		"      --pid P            process (default = tid)\n"
		"      --comm NAME        write a COMM record for pid/tid\n"
		"      --mmap START,LEN,PGOFF,PATH[,BUILDID]  an MMAP2 record for pid/tid (up to 16;\n"
		"                         BUILDID in hex makes it a build-id MMAP2)\n"
		"      --bundle FILE[=NAME]  with --container: carry FILE (an ELF file) as the file\n"
		"                         the trace maps as NAME (default FILE), found by build-id\n"
		"      --bundle-symbols FILE[=NAME]  as --bundle, but only FILE's symbol and line\n"
		"                         tables (small; annotate then needs the file itself)\n"
		"      --bundle-kallsyms FILE  with --container: carry the kernel's symbols\n"
		"      --build-id-feature  the --mmap build-ids in the HEADER_BUILD_ID table (as perf\n"
		"                         record's default), plain MMAP2 records (file mode)\n"
		"      --kernel-mmap START,LEN[,BUILDID]  the kernel's text map as perf record\n"
		"                         writes it ([kernel.kallsyms]_text, pgoff = START as\n"
		"                         _text); BUILDID (hex) into HEADER_BUILD_ID\n"
		"      --module-mmap START,LEN,PATH[,BUILDID]  with --kernel-mmap: a kernel\n"
		"                         module's map (MMAP, pid -1, as perf record writes it)\n"
		"      --midr 0xMIDR      write feature CPUID as \"0x%%016llx\"\n"
		"      --timeless         no PERF_SAMPLE_TIME\n"
		"      --time-conv S,M,Z  time_shift,time_mult,time_zero of TIME_CONV (without it\n"
		"                         a timed file gets the identity conversion)\n"
		"      --chunk BYTES      split the AUX data into AUXTRACE records of BYTES\n"
		"                         (pipe mode default: 4M)\n"
		"      --pmu-type N       SPE PMU type (default 8)\n"
		"      --spe-v2           AUXTRACE_INFO v2 (per-CPU MIDR, perf >= 6.13)\n"
		"      --event-filter MASK  v2 with the SPE PMU's caps/event_filter (perf >= 6.18)\n"
		"      --pipe             pipe-mode output\n"
		"      --swap             opposite byte order\n"
		"      --container        write a pmutrace container (zstd frames of a pipe-mode\n"
		"                         perf.data, indexed; `zstd -dc OUT | perf script -i -`)\n"
		"      --level N          its zstd level (default 1)\n"
		"      --frame-size BYTES  uncompressed bytes per data frame (k/M suffixes,\n"
		"                         64k..1G, default 4M): smaller frames make --cpu and\n"
		"                         --time slices read less\n"
		"      --spe-columns      with --container: AUX bytes split by SPE packet field\n"
		"                         before zstd (1.3-1.9x smaller; pmutrace reads it, zstd -dc\n"
		"                         and so perf do not)\n");
	fputs(pmt_cli_exit_help, fp);
	return fp == stdout ? 0 : PMT_EXIT_USAGE;
}

static int parse_u32(const char *s, uint32_t *v)
{
	uint64_t x;

	if (pmt_parse_u64(s, &x) < 0 || x > UINT32_MAX)
		return -PMT_EPARSE;
	*v = (uint32_t)x;
	return 0;
}

static int parse_time_conv(const char *s, struct pmt_time_conv *tc)
{
	char buf[128], *a, *b;
	uint64_t shift, mult, zero;

	if (strlen(s) >= sizeof(buf))
		return -PMT_EPARSE;
	strcpy(buf, s);
	a = strchr(buf, ',');
	if (!a)
		return -PMT_EPARSE;
	*a++ = 0;
	b = strchr(a, ',');
	if (!b)
		return -PMT_EPARSE;
	*b++ = 0;
	if (pmt_parse_u64(buf, &shift) < 0 || pmt_parse_u64(a, &mult) < 0 ||
	    pmt_parse_u64(b, &zero) < 0 || shift > 63 || mult > UINT32_MAX)
		return -PMT_EPARSE;
	memset(tc, 0, sizeof(*tc));
	tc->time_shift = (uint16_t)shift;
	tc->time_mult = (uint32_t)mult;
	tc->time_zero = zero;
	tc->cap_user_time_zero = 1;
	return 0;
}

/* A build-id in hex, up to 20 bytes: 0 or -PMT_EPARSE */
static int parse_build_id(const char *hex, uint8_t *id, uint8_t *size)
{
	size_t n = strlen(hex);

	if (!n || n % 2 || n > 40 || strspn(hex, "0123456789abcdefABCDEF") != n)
		return -PMT_EPARSE;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned b;

		sscanf(hex + 2 * i, "%2x", &b);
		id[i] = (uint8_t)b;
	}
	*size = (uint8_t)(n / 2);
	return 0;
}

/* START,LEN,PGOFF,PATH[,BUILDID] (a module: START,LEN,PATH[,BUILDID], pgoff 0) into
 * tab[*n]: BUILDID is hex (up to 20 bytes), so the MMAP2 record carries it as a kernel with
 * build-id mmaps (perf record --buildid-mmap) writes it */
static int parse_mmap(const char *opt, struct raw_map *tab, unsigned cap, unsigned *n,
		      bool module)
{
	struct raw_map *m;
	char *f[3], *arg, *bid;
	int nf = module ? 2 : 3;

	if (*n == cap)
		return -PMT_ERANGE;
	m = &tab[*n];
	memset(m, 0, sizeof(*m));
	arg = m->arg = strdup(opt); /* argv stays intact for the CMDLINE feature */
	if (!arg)
		return -PMT_ENOMEM;
	(*n)++;
	for (int i = 0; i < nf; i++) {
		f[i] = arg;
		arg = strchr(arg, ',');
		if (!arg)
			return -PMT_EPARSE;
		*arg++ = 0;
	}
	if (pmt_parse_u64(f[0], &m->start) < 0 || pmt_parse_u64(f[1], &m->len) < 0 ||
	    (!module && pmt_parse_u64(f[2], &m->pgoff) < 0) || !*arg)
		return -PMT_EPARSE;
	bid = strrchr(arg, ',');
	if (bid) {
		if (parse_build_id(bid + 1, m->build_id, &m->build_id_size) < 0)
			return -PMT_EPARSE;
		*bid = 0;
	}
	m->path = arg;
	return 0;
}

static void free_maps(struct convert_opts *o)
{
	for (unsigned i = 0; i < o->nmaps; i++)
		free(o->maps[i].arg);
	for (unsigned i = 0; i < o->nmods; i++)
		free(o->mods[i].arg);
}

/* Where the records go: the output file, through a container when asked. */
struct output {
	struct pmt_out_file file;
	struct pmt_ctr_writer *ctr;
	FILE *ctr_stream;
	struct pmt_perf_writer *w;
};

static void output_abort(struct output *out)
{
	pmt_perf_writer_close(out->w);
	if (out->ctr_stream)
		fclose(out->ctr_stream);
	pmt_ctr_writer_close(out->ctr, NULL);
	pmt_out_file_abort(&out->file);
}

/* The output: refused when it is the input (under any name), written to a temporary file
 * that only a complete conversion renames over the target. */
static int output_open(const struct convert_opts *o, struct output *out)
{
	const char *inputs[] = { o->in };
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_perf_writer_opts wo = o->wo;
	FILE *fp;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = pmt_out_file_open(&out->file, o->out, inputs, 1, &d);
	if (rc < 0) {
		pmt_cli_fail_diag("convert", &d);
		return rc;
	}
	fp = out->file.fp;
	if (o->container) {
		struct pmt_ctr_writer_opts co = { .sz = sizeof(co), .level = o->level,
						  .spe_columns = o->spe_columns,
						  .frame_size = o->frame_size };

		rc = pmt_ctr_writer_new(fp, &co, &out->ctr, &d);
		if (rc < 0) {
			pmt_out_file_abort(&out->file);
			pmt_cli_fail_diag("convert", &d);
			return rc;
		}
		fp = out->ctr_stream = pmt_perf_container_stream(out->ctr);
		wo.pipe = 1; /* the container holds a pipe-mode perf.data */
		if (!fp)
			rc = -PMT_ENOMEM;
	}
	if (rc >= 0)
		rc = pmt_perf_writer_new(fp, &wo, &out->w);
	if (rc < 0) {
		output_abort(out);
		pmt_cli_fail("convert", "cannot write %s: %s", o->out, pmt_errstr(rc));
	}
	return rc;
}

/* Finish the writer; keep the file only when everything was written. */
/* One local file into the container as what the trace calls NAME (its build-id read from
 * it), or kallsyms. */
static int bundle_one(struct pmt_ctr_writer *ctr, const char *local, const char *name,
		      uint32_t kind, bool symbols_only)
{
	struct pmt_ctr_file f = { .kind = kind };
	struct pmt_file_map m = { 0 };
	struct pmt_diag d = PMT_DIAG_INIT;
	size_t n = 0;
	int rc;

	if (access(local, R_OK)) { /* said so, not "not an ELF file" */
		pmt_cli_warn("convert", "--bundle %s: %s", local, strerror(errno));
		return -PMT_EIO;
	}
	if (kind == PMT_CTR_FILE_ELF &&
	    pmt_symbols_file_build_id(local, f.build_id, &n) < 0) {
		pmt_cli_warn("convert", "--bundle %s: not an ELF file", local);
		return -PMT_EFORMAT;
	}
	f.build_id_size = (uint8_t)n;
	snprintf(f.name, sizeof(f.name), "%s", name);
	if (pmt_file_map(local, &m, &d) < 0) {
		pmt_diag_print(&d);
		return -PMT_EIO;
	}
	if (symbols_only) {
		rc = pmt_ctr_add_elf_symbols(ctr, &f, m.data, m.size, NULL, &d);
		if (rc < 0)
			pmt_cli_warn("convert", "--bundle-symbols %s: %s", local, d.msg);
	} else {
		rc = pmt_ctr_add_file(ctr, &f, m.data, m.size);
	}
	pmt_file_unmap(&m);
	return rc;
}

static int add_bundle(const struct convert_opts *o, struct pmt_ctr_writer *ctr)
{
	int rc = 0;

	for (unsigned i = 0; rc >= 0 && i < o->nbundle; i++) {
		const char *eq = strchr(o->bundle[i], '=');
		char local[4096];

		snprintf(local, sizeof(local), "%.*s", eq ? (int)(eq - o->bundle[i]) : 4095,
			 o->bundle[i]);
		rc = bundle_one(ctr, local, eq ? eq + 1 : local, PMT_CTR_FILE_ELF,
				o->bundle_symbols[i]);
	}
	if (rc >= 0 && o->bundle_kallsyms)
		rc = bundle_one(ctr, o->bundle_kallsyms, "/proc/kallsyms", PMT_CTR_FILE_KALLSYMS,
				false);
	return rc;
}

static int output_close(const struct convert_opts *o, struct output *out, int rc)
{
	struct pmt_diag d = PMT_DIAG_INIT;
	int rc2 = pmt_perf_writer_close(out->w);

	out->w = NULL;
	if (rc >= 0)
		rc = rc2;
	if (out->ctr_stream) {
		if (fclose(out->ctr_stream) && rc >= 0)
			rc = -PMT_EIO;
		out->ctr_stream = NULL;
	}
	if (out->ctr && rc >= 0)
		rc = add_bundle(o, out->ctr);
	if (out->ctr) {
		rc2 = pmt_ctr_writer_close(out->ctr, &d);
		out->ctr = NULL;
		if (rc >= 0)
			rc = rc2;
	}
	if (rc < 0) {
		pmt_out_file_abort(&out->file);
		return pmt_cli_fail("convert", "writing %s failed: %s; nothing was written",
				    o->out, pmt_errstr(rc));
	}
	if (pmt_out_file_commit(&out->file, &d) < 0)
		return pmt_cli_fail_diag("convert", &d);
	return 0;
}

static int set_common_features(struct pmt_perf_writer *w, const struct convert_opts *o,
			       int argc, char **argv)
{
	int rc = pmt_perf_writer_set_cmdline(w, argc, (const char *const *)argv);

	if (rc >= 0 && o->has_midr)
		rc = pmt_perf_writer_set_midr(w, o->midr);
	return rc;
}

static int convert_raw(const struct convert_opts *o, int argc, char **argv)
{
	struct pmt_file_map m;
	struct output out;
	struct pmt_perf_writer *w;
	struct pmt_diag diag = PMT_DIAG_INIT;
	uint8_t attr[136];
	uint64_t id = 1;
	uint32_t pid = o->has_pid ? o->pid : o->tid;
	int rc;

	rc = pmt_file_map(o->in, &m, &diag);
	if (rc < 0)
		return pmt_cli_fail_diag("convert", &diag);
	if (output_open(o, &out) < 0) {
		pmt_file_unmap(&m);
		return 1;
	}
	w = out.w;
	pmt_attr_init_spe(attr, (uint32_t)o->pmu_type, !o->timeless);
	/* no EVENT_DESC name: perf then calls it "unknown attr type: N", which sets the
	 * event column width in the perf 6.1 references */
	rc = pmt_perf_writer_add_attr(w, attr, sizeof(attr), &id, 1, NULL);
	if (rc >= 0)
		rc = set_common_features(w, o, argc, argv);
	if (rc >= 0)
		rc = pmt_perf_writer_set_nrcpus(w, o->cpu + 1, o->cpu + 1);
	for (unsigned i = 0; rc >= 0 && o->build_id_feature && i < o->nmaps; i++)
		if (o->maps[i].build_id_size)
			rc = pmt_perf_writer_add_build_id(w, (int32_t)(o->has_pid ? o->pid : o->tid),
							  2 /* user */, o->maps[i].build_id,
							  o->maps[i].build_id_size, o->maps[i].path);
	/* the kernel's build-id goes where perf record puts it: HEADER_BUILD_ID, pid -1,
	 * cpumode kernel, named as the kernel's map */
	if (rc >= 0 && o->kernel_len && o->kernel_build_id_size)
		rc = pmt_perf_writer_add_build_id(w, -1, 1 /* kernel */, o->kernel_build_id,
						  o->kernel_build_id_size, "[kernel.kallsyms]");
	for (unsigned i = 0; rc >= 0 && i < o->nmods; i++)
		if (o->mods[i].build_id_size)
			rc = pmt_perf_writer_add_build_id(w, -1, 1 /* kernel */, o->mods[i].build_id,
							  o->mods[i].build_id_size, o->mods[i].path);
	if (rc == -PMT_EUNSUPPORTED)
		return pmt_cli_fail("convert", "--build-id-feature and build-ids in --kernel-mmap "
				    "or --module-mmap need file mode (no --pipe, --container or -o -)");
	if (rc >= 0 && !o->timeless) {
		/* timestamps exist: perf converts them through TIME_CONV; identity unless given.
		 * Before AUXTRACE_INFO, as perf record writes it: perf copies the conversion
		 * when it reads AUXTRACE_INFO, so a later TIME_CONV leaves every time 0 */
		struct pmt_time_conv ident = { .time_mult = 1, .cap_user_time_zero = 1 };

		rc = pmt_perf_writer_write_time_conv(w, o->has_time_conv ? &o->tc : &ident);
	}
	if (rc >= 0) {
		if (o->spe_v2)
			rc = pmt_perf_writer_write_auxtrace_info_spe_v2(
				w, o->pmu_type, 1, &o->cpu, &o->midr,
				o->has_event_filter ? &o->event_filter : NULL);
		else
			rc = pmt_perf_writer_write_auxtrace_info_spe_v1(w, o->pmu_type, false);
	}
	if (rc >= 0 && o->kernel_len) {
		struct pmt_sample_id ksid = { .valid = 1, .pid = UINT32_MAX, .tid = 0,
					      .cpu = o->cpu, .id = id };

		rc = pmt_perf_writer_write_kernel_mmap(w, o->kernel_start, o->kernel_len,
						       o->kernel_start, &ksid);
		for (unsigned i = 0; rc >= 0 && i < o->nmods; i++)
			rc = pmt_perf_writer_write_module_mmap(w, o->mods[i].start, o->mods[i].len,
							       o->mods[i].path, &ksid);
	}
	if (rc >= 0 && (o->comm || o->nmaps)) {
		struct pmt_sample_id sid = { .valid = 1, .pid = pid, .tid = o->tid,
					     .cpu = o->cpu, .id = id };

		if (o->comm)
			rc = pmt_perf_writer_write_comm(w, pid, o->tid, o->comm, false, &sid);
		for (unsigned i = 0; rc >= 0 && i < o->nmaps; i++) {
			const struct raw_map *rm = &o->maps[i];

			rc = rm->build_id_size && !o->build_id_feature
				     ? pmt_perf_writer_write_mmap2_build_id(
					       w, pid, o->tid, rm->start, rm->len, rm->pgoff,
					       5 /* r-x */, 2 /* private */, rm->build_id,
					       rm->build_id_size, rm->path, &sid)
				     : pmt_perf_writer_write_mmap2(w, pid, o->tid, rm->start, rm->len,
								   rm->pgoff, 5, 2, rm->path, &sid);
		}
	}
	for (uint64_t off = 0; rc >= 0 && off < m.size;) {
		uint64_t n = m.size - off;

		if (o->chunk && n > o->chunk)
			n = o->chunk;
		rc = pmt_perf_writer_write_auxtrace(w, m.data + off, n, off, 0, 0, o->tid, o->cpu);
		off += n;
	}
	rc = output_close(o, &out, rc);
	pmt_file_unmap(&m);
	return rc;
}

/* The input's attrs and header features; --midr replaces its CPUID. */
static int copy_meta(struct pmt_perf_writer *w, const struct pmt_trace_meta *m,
		     const struct convert_opts *o)
{
	int rc = pmt_perf_writer_copy_meta(w, m);

	if (rc >= 0 && o->has_midr)
		rc = pmt_perf_writer_set_midr(w, o->midr);
	return rc;
}

static int convert_perf(const struct convert_opts *o, int argc, char **argv)
{
	struct pmt_source *src;
	struct output out;
	struct pmt_perf_writer *w;
	const struct pmt_trace_meta *m;
	struct pmt_trace_event ev;
	struct pmt_diag diag = PMT_DIAG_INIT;
	uint64_t dropped = 0, bad = 0;
	int rc;

	rc = pmt_source_open(o->in, &src, &diag);
	if (rc < 0)
		return pmt_cli_fail_diag("convert", &diag);
	m = pmt_source_meta(src);
	if (output_open(o, &out) < 0) {
		pmt_source_close(src);
		return 1;
	}
	w = out.w;
	rc = copy_meta(w, m, o);
	while (rc >= 0) {
		int r = pmt_source_next(src, &ev);

		if (r == -PMT_EEOS)
			break;
		if (r < 0) {
			bad++;
			continue;
		}
		rc = pmt_perf_writer_copy_event(w, m, &ev);
		if (rc == 1) {
			dropped++;
			rc = 0;
		}
	}
	rc = output_close(o, &out, rc);
	pmt_source_close(src);
	if (dropped)
		pmt_cli_warn("convert", "%llu records of kinds that cannot change byte order were "
			     "dropped", (unsigned long long)dropped);
	if (rc)
		return rc;
	/* the output holds every readable record: written, but damaged (exit status 2) */
	if (bad)
		pmt_cli_warn("convert", "%llu unreadable records in %s were skipped",
			     (unsigned long long)bad, o->in);
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	enum { O_RAW = 256, O_CPU, O_TID, O_PID, O_COMM, O_MIDR, O_TIMELESS, O_TIME_CONV,
	       O_CHUNK, O_PMU_TYPE, O_PIPE, O_SWAP, O_V2, O_MMAP, O_EVFILT, O_CONTAINER, O_LEVEL, O_SPE_COLUMNS,
	       O_FRAME_SIZE,
	       O_KMMAP, O_BIDFEAT, O_BUNDLE, O_BUNDLE_KSYMS, O_BUNDLE_SYMS, O_MODMMAP };
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "raw", no_argument, NULL, O_RAW },
		{ "cpu", required_argument, NULL, O_CPU },
		{ "tid", required_argument, NULL, O_TID },
		{ "pid", required_argument, NULL, O_PID },
		{ "comm", required_argument, NULL, O_COMM },
		{ "mmap", required_argument, NULL, O_MMAP },
		{ "kernel-mmap", required_argument, NULL, O_KMMAP },
		{ "module-mmap", required_argument, NULL, O_MODMMAP },
		{ "build-id-feature", no_argument, NULL, O_BIDFEAT },
		{ "bundle", required_argument, NULL, O_BUNDLE },
		{ "bundle-symbols", required_argument, NULL, O_BUNDLE_SYMS },
		{ "bundle-kallsyms", required_argument, NULL, O_BUNDLE_KSYMS },
		{ "midr", required_argument, NULL, O_MIDR },
		{ "timeless", no_argument, NULL, O_TIMELESS },
		{ "time-conv", required_argument, NULL, O_TIME_CONV },
		{ "chunk", required_argument, NULL, O_CHUNK },
		{ "pmu-type", required_argument, NULL, O_PMU_TYPE },
		{ "spe-v2", no_argument, NULL, O_V2 },
		{ "event-filter", required_argument, NULL, O_EVFILT },
		{ "pipe", no_argument, NULL, O_PIPE },
		{ "swap", no_argument, NULL, O_SWAP },
		{ "container", no_argument, NULL, O_CONTAINER },
		{ "level", required_argument, NULL, O_LEVEL },
		{ "frame-size", required_argument, NULL, O_FRAME_SIZE },
		{ "spe-columns", no_argument, NULL, O_SPE_COLUMNS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct convert_opts o = { .tid = 1234, .pmu_type = SPE_DEFAULT_PMU_TYPE,
				  .wo = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = 0) };
	int c, rc;

	while ((c = getopt_long(argc, argv, "o:h", lopts, NULL)) != -1) {
		int bad = 0;
		uint64_t v;

		switch (c) {
		case 'o': o.out = optarg; break;
		case O_RAW: o.raw = true; break;
		case O_CPU: bad = parse_u32(optarg, &o.cpu) < 0 || o.cpu >= PMT_MAX_CPUS; break;
		case O_TID: bad = parse_u32(optarg, &o.tid) < 0; break;
		case O_PID: bad = parse_u32(optarg, &o.pid) < 0; o.has_pid = true; break;
		case O_COMM: o.comm = optarg; break;
		case O_MMAP:
			bad = parse_mmap(optarg, o.maps, 16, &o.nmaps, false) < 0;
			break;
		case O_MODMMAP:
			bad = parse_mmap(optarg, o.mods, 8, &o.nmods, true) < 0;
			break;
		case O_BIDFEAT: o.build_id_feature = true; break;
		case O_BUNDLE:
		case O_BUNDLE_SYMS:
			bad = o.nbundle == sizeof(o.bundle) / sizeof(o.bundle[0]);
			if (!bad) {
				o.bundle_symbols[o.nbundle] = c == O_BUNDLE_SYMS;
				o.bundle[o.nbundle++] = optarg;
			}
			break;
		case O_BUNDLE_KSYMS: o.bundle_kallsyms = optarg; break;
		case O_KMMAP: {
			char *comma = strchr(optarg, ',');

			char *bid = comma ? strchr(comma + 1, ',') : NULL;

			bad = !comma;
			if (!bad) {
				*comma = 0;
				if (bid)
					*bid = 0;
				bad = pmt_parse_u64(optarg, &o.kernel_start) < 0 ||
				      pmt_parse_u64(comma + 1, &o.kernel_len) < 0 || !o.kernel_len ||
				      (bid && parse_build_id(bid + 1, o.kernel_build_id,
							     &o.kernel_build_id_size) < 0);
				*comma = ',';
				if (bid)
					*bid = ',';
			}
			break;
		}
		case O_MIDR: bad = pmt_parse_u64(optarg, &o.midr) < 0; o.has_midr = true; break;
		case O_TIMELESS: o.timeless = true; break;
		case O_TIME_CONV:
			bad = parse_time_conv(optarg, &o.tc) < 0;
			o.has_time_conv = true;
			break;
		case O_CHUNK: bad = pmt_parse_size(optarg, &o.chunk) < 0 || o.chunk == 0; break;
		case O_PMU_TYPE: bad = pmt_parse_u64(optarg, &o.pmu_type) < 0; break;
		case O_V2: o.spe_v2 = true; break;
		case O_EVFILT:
			bad = pmt_parse_u64(optarg, &o.event_filter) < 0;
			o.has_event_filter = o.spe_v2 = true;
			break;
		case O_PIPE: o.wo.pipe = 1; break;
		case O_SWAP: o.wo.swap = 1; break;
		case O_CONTAINER: o.container = true; break;
		case O_SPE_COLUMNS: o.spe_columns = true; break;
		case O_LEVEL:
			if (pmt_parse_u64(optarg, &v) || v < 1 || v > 19) {
				free_maps(&o);
				return pmt_cli_usage_fail("convert", "--level: 1..19, got '%s'", optarg);
			}
			o.level = (int)v;
			break;
		case O_FRAME_SIZE:
			/* below 64 KiB the frame headers and infos cost more than they save */
			if (pmt_parse_size(optarg, &v) || v < (64u << 10) || v > (1u << 30)) {
				free_maps(&o);
				return pmt_cli_usage_fail("convert", "--frame-size: 64k..1G, got "
							  "'%s'", optarg);
			}
			o.frame_size = (uint32_t)v;
			break;
		case 'h': free_maps(&o); return usage(stdout);
		default: free_maps(&o); return usage(stderr);
		}
		if (bad) {
			free_maps(&o);
			return pmt_cli_usage_fail("convert", "bad option value '%s'", optarg);
		}
	}
	if (optind + 1 != argc || !o.out) {
		free_maps(&o);
		return usage(stderr);
	}
	o.in = argv[optind];
	if (o.timeless && o.has_time_conv) {
		free_maps(&o);
		return pmt_cli_fail("convert", "--timeless and --time-conv exclude each other");
	}
	if (o.spe_columns && !o.container) {
		free_maps(&o);
		return pmt_cli_usage_fail("convert", "--spe-columns is a container encoding: add "
					  "--container");
	}
	if ((o.nbundle || o.bundle_kallsyms) && !o.container) {
		free_maps(&o);
		return pmt_cli_usage_fail("convert", "--bundle needs --container (perf.data has "
					  "no place for files)");
	}
	if (!strcmp(o.out, "-") || o.container)
		o.wo.pipe = 1;
	/* a pipe reader holds a whole AUXTRACE record: keep them the size perf's mmap reads
	 * give, so streaming a converted pipe file stays bounded */
	if (o.wo.pipe && !o.chunk)
		o.chunk = PIPE_DEFAULT_CHUNK;
	rc = o.raw ? convert_raw(&o, argc, argv) : convert_perf(&o, argc, argv);
	free_maps(&o);
	return rc;
}
