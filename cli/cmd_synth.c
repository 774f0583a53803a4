/* pmutrace synth: write a deterministic synthetic raw SPE stream (see spe_synth.c). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/spe.h"

static int usage(FILE *fp)
{
	fprintf(fp,
		"usage: pmutrace synth [-o FILE] [--records N | --size BYTES] [--seed S]\n"
		"                      [--mix n1|v2|loads|stores|branches|other|hip12]\n"
		"                      [--no-timestamps]\n"
		"                      [--context] [--sve] [--pa] [--record-size B]\n"
		"                      [--text START,LEN] [--kernel-pct P]\n"
		"  Writes raw SPE bytes (default: 1000 records to stdout). Same seed, same bytes.\n"
		"  --size BYTES stops at the last whole record that fits (k/M/G suffixes).\n"
		"  --record-size B  PAD-fill records to B bytes (64..128, 0 = no fill; default 64)\n"
		"  --text START,LEN  user PCs in that range (e.g. a binary's text where it is mapped)\n"
		"  --kernel-pct P    share of kernel PCs, 0..100 (default 10)\n"
		"  Wrap the result in a perf.data with `pmutrace convert --raw`.\n");
	fputs(pmt_cli_exit_help, fp);
	return fp == stdout ? 0 : PMT_EXIT_USAGE;
}

int cmd_synth(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "records", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "mix", required_argument, NULL, 'm' },
		{ "no-timestamps", no_argument, NULL, 'T' },
		{ "context", no_argument, NULL, 'c' },
		{ "sve", no_argument, NULL, 'v' },
		{ "pa", no_argument, NULL, 'p' },
		{ "record-size", required_argument, NULL, 'R' },
		{ "text", required_argument, NULL, 't' },
		{ "kernel-pct", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pmt_spe_synth_opts so;
	struct pmt_spe_synth s;
	const char *out = NULL;
	uint64_t records = 1000, size = 0, v;
	uint8_t *buf;
	size_t chunk = 1 << 20, used = 0;
	FILE *fp;
	struct pmt_out_file of;
	struct pmt_diag diag = PMT_DIAG_INIT;
	int c, rc = 0;

	pmt_spe_synth_opts_init(&so);
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'n':
			if (pmt_parse_u64(optarg, &records) < 0)
				return pmt_cli_usage_fail("synth", "--records: not a number: '%s'", optarg);
			break;
		case 's':
			if (pmt_parse_size(optarg, &size) < 0)
				return pmt_cli_usage_fail("synth", "--size: not a size: '%s'", optarg);
			break;
		case 'S':
			if (pmt_parse_u64(optarg, &so.seed) < 0)
				return pmt_cli_usage_fail("synth", "--seed: not a number: '%s'", optarg);
			break;
		case 'm':
			if (pmt_spe_synth_mix_parse(optarg, &so.mix) < 0)
				return pmt_cli_usage_fail("synth", "--mix: unknown mix '%s' (n1, v2, loads, "
							  "stores, branches, other, hip12)", optarg);
			break;
		case 'T': so.timestamps = 0; break;
		case 'c': so.context = 1; break;
		case 'v': so.sve = 1; break;
		case 'p': so.pa = 1; break;
		case 'R':
			if (pmt_parse_u64(optarg, &v) < 0 || (v && (v < 64 || v > PMT_SPE_SYNTH_RECORD_MAX)))
				return pmt_cli_usage_fail("synth", "--record-size: want 0 or 64..%d, got '%s'",
							  PMT_SPE_SYNTH_RECORD_MAX, optarg);
			so.record_size = (uint16_t)v;
			break;
		case 't': {
			char *comma = strchr(optarg, ',');

			if (!comma)
				return pmt_cli_usage_fail("synth", "--text: want START,LEN, got '%s'",
							  optarg);
			*comma = 0;
			rc = pmt_parse_u64(optarg, &so.text_base) < 0 ||
			     pmt_parse_size(comma + 1, &so.text_len) < 0 || so.text_len < 4;
			*comma = ',';
			if (rc)
				return pmt_cli_usage_fail("synth", "--text: want START,LEN (LEN >= 4), "
							  "got '%s'", optarg);
			break;
		}
		case 'k':
			if (pmt_parse_u64(optarg, &v) < 0 || v > 100)
				return pmt_cli_usage_fail("synth", "--kernel-pct: want 0..100, got '%s'",
							  optarg);
			so.kernel_pct = (uint8_t)v;
			break;
		case 'h': return usage(stdout);
		default: return usage(stderr);
		}
	}
	if (optind != argc)
		return usage(stderr);
	if (pmt_spe_synth_init(&s, &so) < 0)
		return pmt_cli_fail("synth", "invalid options");
	if (pmt_out_file_open(&of, out, NULL, 0, &diag) < 0)
		return pmt_cli_fail_diag("synth", &diag);
	fp = of.fp;
	buf = malloc(chunk);
	if (!buf) {
		pmt_out_file_abort(&of);
		return pmt_cli_fail("synth", "out of memory");
	}
	/* --size bounds bytes (whole records only); otherwise --records bounds records */
	for (uint64_t done = 0, written = 0;;) {
		int n;

		if (!size && done >= records)
			break;
		if (chunk - used < PMT_SPE_SYNTH_RECORD_MAX) {
			if (fwrite(buf, 1, used, fp) != used) {
				rc = -1;
				break;
			}
			used = 0;
		}
		if (size && size - written < PMT_SPE_SYNTH_RECORD_MAX) {
			int64_t k = pmt_spe_synth_fill(&s, buf + used, (size_t)(size - written));

			used += (size_t)(k > 0 ? k : 0);
			break;
		}
		n = pmt_spe_synth_next_record(&s, buf + used, chunk - used);
		if (n < 0) {
			rc = -1;
			break;
		}
		used += (size_t)n;
		written += (uint64_t)n;
		done++;
	}
	if (!rc && used && fwrite(buf, 1, used, fp) != used)
		rc = -1;
	free(buf);
	if (rc) {
		pmt_out_file_abort(&of);
		return pmt_cli_fail("synth", "writing %s failed: %s", out ? out : "stdout",
				    strerror(errno));
	}
	if (pmt_out_file_commit(&of, &diag) < 0)
		return pmt_cli_fail_diag("synth", &diag);
	return 0;
}
