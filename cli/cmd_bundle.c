/* pmutrace bundle add TRACE FILE[=NAME]...: carry files in an existing container (the
 * recording is copied with them into a new file that replaces it when complete);
 * pmutrace bundle extract TRACE NAME|BUILD-ID -o FILE: take one back out. */
#include <getopt.h>
#include <stdlib.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/container.h"
#include "pmutrace/symbols.h"

static int usage(FILE *fp)
{
	fprintf(fp, "usage: pmutrace bundle add TRACE.pmt FILE[=NAME]... [--kallsyms FILE] [--symbols-only]\n"
		    "       pmutrace bundle extract TRACE.pmt NAME|BUILD-ID -o FILE\n"
		    "  add: carry ELF files (as the file the trace maps as NAME, default FILE; found\n"
		    "  by build-id when decoding) and the kernel's kallsyms in a pmutrace container,\n"
		    "  so it decodes on any machine; --symbols-only carries only their symbol and\n"
		    "  line tables (no code: annotate needs the file). The container is rewritten:\n"
		    "  the old one stays until the new one is complete.\n"
		    "  extract: write a carried file (by the name the trace maps, or its build-id).\n");
	fputs(pmt_cli_exit_help, fp);
	return fp == stdout ? 0 : PMT_EXIT_USAGE;
}

static int add_one(struct pmt_ctr_writer *w, const char *spec, uint32_t kind, int symbols_only)
{
	const char *eq = kind == PMT_CTR_FILE_ELF ? strchr(spec, '=') : NULL;
	struct pmt_ctr_file f = { .kind = kind };
	struct pmt_file_map m = { 0 };
	struct pmt_diag d = PMT_DIAG_INIT;
	char local[4096];
	size_t n = 0;
	int rc;

	snprintf(local, sizeof(local), "%.*s", eq ? (int)(eq - spec) : 4095, spec);
	snprintf(f.name, sizeof(f.name), "%s", kind == PMT_CTR_FILE_KALLSYMS ? "/proc/kallsyms"
						 : eq ? eq + 1 : local);
	/* mapped first: a file that is not there is said so, not "not an ELF file" */
	if (pmt_file_map(local, &m, &d) < 0)
		return pmt_cli_fail_diag("bundle", &d);
	if (kind == PMT_CTR_FILE_ELF && pmt_symbols_file_build_id(local, f.build_id, &n) < 0) {
		pmt_file_unmap(&m);
		return pmt_cli_fail("bundle", "%s: not an ELF file", local);
	}
	f.build_id_size = (uint8_t)n;
	if (kind == PMT_CTR_FILE_ELF && symbols_only) {
		rc = pmt_ctr_add_elf_symbols(w, &f, m.data, m.size, NULL, &d);
		pmt_file_unmap(&m);
		return rc < 0 ? pmt_cli_fail("bundle", "adding %s: %s", local, d.msg) : 0;
	}
	rc = pmt_ctr_add_file(w, &f, m.data, m.size);
	pmt_file_unmap(&m);
	return rc < 0 ? pmt_cli_fail("bundle", "adding %s: %s", local, pmt_errstr(rc)) : 0;
}

struct extract {
	const char *want;
	const struct pmt_ctr_file *hit;
	struct pmt_ctr_file copy;
};

static int match(const struct pmt_ctr_file *f, void *ctx)
{
	struct extract *x = ctx;
	char hex[41];

	for (unsigned i = 0; i < f->build_id_size; i++)
		sprintf(hex + 2 * i, "%02x", f->build_id[i]);
	hex[2 * f->build_id_size] = 0;
	/* a whole file wins over a symbols-only copy of the same one */
	if ((!strcmp(f->name, x->want) || (f->build_id_size && !strcmp(hex, x->want))) &&
	    (!x->hit || x->copy.kind == PMT_CTR_FILE_ELF_SYMBOLS)) {
		x->copy = *f;
		x->hit = &x->copy;
	}
	return 0;
}

static int extract(const char *trace, const char *want, const char *out)
{
	struct pmt_file_map in = { 0 };
	struct pmt_diag d = PMT_DIAG_INIT;
	struct pmt_out_file of;
	struct extract x = { .want = want };
	void *data = NULL;
	size_t len = 0;
	int rc;

	if (pmt_file_map(trace, &in, &d) < 0)
		return pmt_cli_fail_diag("bundle", &d);
	if (!pmt_ctr_is_container(in.data, in.size)) {
		pmt_file_unmap(&in);
		return pmt_cli_fail("bundle", "%s is not a pmutrace container", trace);
	}
	pmt_ctr_files(in.data, in.size, match, &x);
	if (!x.hit) {
		pmt_file_unmap(&in);
		return pmt_cli_fail("bundle", "%s carries no file named or with build-id '%s' "
				    "(pmutrace info lists what it carries)", trace, want);
	}
	rc = pmt_ctr_file_read(x.hit, &data, &len);
	pmt_file_unmap(&in);
	if (rc < 0)
		return pmt_cli_fail("bundle", "%s: the embedded %s: %s", trace, want, pmt_errstr(rc));
	if (pmt_out_file_open(&of, out, &trace, 1, &d) < 0) {
		free(data);
		return pmt_cli_fail_diag("bundle", &d);
	}
	if (fwrite(data, 1, len, of.fp) != len) {
		free(data);
		pmt_out_file_abort(&of);
		return pmt_cli_fail("bundle", "writing %s: %m", out);
	}
	free(data);
	return pmt_out_file_commit(&of, &d) < 0 ? pmt_cli_fail_diag("bundle", &d) : 0;
}

int cmd_bundle(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "symbols-only", no_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "kallsyms", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *kallsyms = NULL, *trace, *out = NULL;
	int symbols_only = 0;
	struct pmt_file_map in = { 0 };
	struct pmt_out_file of;
	struct pmt_ctr_writer *w = NULL;
	struct pmt_ctr_writer_opts wo = { .sz = sizeof(wo) };
	struct pmt_diag d = PMT_DIAG_INIT;
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (c) {
		case 'k': kallsyms = optarg; break;
		case 's': symbols_only = 1; break;
		case 'o': out = optarg; break;
		case 'h': return usage(stdout);
		default: return usage(stderr);
		}
	}
	if (argc - optind >= 1 && !strcmp(argv[optind], "extract")) {
		if (argc - optind != 3 || !out || kallsyms || symbols_only)
			return usage(stderr);
		return extract(argv[optind + 1], argv[optind + 2], out);
	}
	if (argc - optind < 2 || strcmp(argv[optind], "add") ||
	    (argc - optind < 3 && !kallsyms) || out)
		return usage(stderr);
	trace = argv[optind + 1];
	if (pmt_file_map(trace, &in, &d) < 0)
		return pmt_cli_fail_diag("bundle", &d);
	if (!pmt_ctr_is_container(in.data, in.size)) {
		pmt_file_unmap(&in);
		return pmt_cli_fail("bundle", "%s is not a pmutrace container (perf.data has no "
				    "place for files: convert it with --container first)", trace);
	}
	/* the trace itself is the target: replaced only when the copy is complete */
	if (pmt_out_file_open(&of, trace, NULL, 0, &d) < 0) {
		pmt_file_unmap(&in);
		return pmt_cli_fail_diag("bundle", &d);
	}
	if (pmt_ctr_writer_new(of.fp, &wo, &w, &d) < 0 || pmt_ctr_copy(in.data, in.size, trace, w, &d) < 0) {
		pmt_ctr_writer_close(w, NULL);
		pmt_out_file_abort(&of);
		pmt_file_unmap(&in);
		return pmt_cli_fail_diag("bundle", &d);
	}
	for (int i = optind + 2; rc == 0 && i < argc; i++)
		rc = add_one(w, argv[i], PMT_CTR_FILE_ELF, symbols_only);
	if (rc == 0 && kallsyms)
		rc = add_one(w, kallsyms, PMT_CTR_FILE_KALLSYMS, 0);
	pmt_file_unmap(&in);
	if (pmt_ctr_writer_close(w, &d) < 0 && rc == 0)
		rc = pmt_cli_fail_diag("bundle", &d);
	if (rc) {
		pmt_out_file_abort(&of);
		return rc;
	}
	if (pmt_out_file_commit(&of, &d) < 0)
		return pmt_cli_fail_diag("bundle", &d);
	return 0;
}
