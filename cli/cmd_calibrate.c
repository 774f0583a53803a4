/* pmutrace calibrate: per-event retire-latency distributions from PEBS samples, written as
 * an Intel or pmu-tools retire-latency table; --compare prints them next to a table. */
#include <getopt.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: pmutrace calibrate [-i] [TRACE] -o FILE [--format intel|pmu-tools] [--full]\n"
		"         [--compare TABLE]\n"
		"TRACE (or -i TRACE; default ./perf.data, as perf): perf.data with\n"
		"PERF_SAMPLE_WEIGHT_STRUCT samples (perf record -W); - is stdin. -o - is stdout.\n"
		"--full adds the whole histogram as \"Values[N]\": count keys (genretlat's layout).\n"
		"pNN is the sorted value at index floor(NN/100 x count): p50 is the MEDIAN.\n");
	fputs(pmt_cli_exit_help, fp);
}

static void print_stats(struct pmt_out *o, const struct pmt_retlat_samples *s,
			const struct pmt_retlat_table *cmp)
{
	if (cmp)
		pmt_out_printf(o, "%-44s %10s %9s %9s %7s %7s %6s | %9s %7s %7s %7s\n", "event",
			       "count", "mean", "median", "min", "max", "p99", "tbl mean",
			       "tbl med", "tbl min", "tbl max");
	else
		pmt_out_printf(o, "%-44s %10s %9s %9s %7s %7s %6s %6s %7s\n", "event", "count",
			       "mean", "median", "min", "max", "p90", "p99", "mode");
	for (size_t i = 0; i < s->nr; i++) {
		struct pmt_retlat_stats st;
		int t;

		pmt_retlat_dist_stats(&s->ev[i], &st);
		if (!cmp) {
			pmt_out_printf(o, "%-44s %10llu %9.2f %9.0f %7.0f %7.0f %6.0f %6.0f %7.0f\n",
				       s->ev[i].name, (unsigned long long)st.count, st.mean,
				       st.median, st.min, st.max, st.p90, st.p99, st.mode);
			continue;
		}
		pmt_out_printf(o, "%-44s %10llu %9.2f %9.0f %7.0f %7.0f %6.0f | ", s->ev[i].name,
			       (unsigned long long)st.count, st.mean, st.median, st.min, st.max,
			       st.p99);
		t = pmt_retlat_table_find(cmp, s->ev[i].name);
		if (t < 0) {
			pmt_out_str(o, "(not in table)\n");
			continue;
		}
		pmt_out_printf(o, "%9.2f %7.0f %7.0f %7.0f\n", cmp->e[t].mean, cmp->e[t].median,
			       cmp->e[t].min, cmp->e[t].max);
	}
	if (cmp) {
		for (size_t i = 0; i < cmp->nr; i++)
			if (pmt_retlat_dist_find(s, cmp->e[i].name) < 0)
				pmt_out_printf(o, "%-44s %10s %9s %9s %7s %7s %6s | %9.2f %7.0f %7.0f "
					       "%7.0f\n", cmp->e[i].name, "0", "-", "-", "-", "-", "-",
					       cmp->e[i].mean, cmp->e[i].median, cmp->e[i].min,
					       cmp->e[i].max);
	}
}

int cmd_calibrate(int argc, char **argv)
{
	enum { O_FORMAT = 256, O_FULL, O_COMPARE };
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "full", no_argument, NULL, O_FULL },
		{ "compare", required_argument, NULL, O_COMPARE },
		{ "input", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum pmt_retlat_format fmt = PMT_RETLAT_FMT_PMU_TOOLS;
	const char *out = NULL, *compare = NULL, *trace = NULL;
	struct pmt_retlat_samples s = { 0 };
	struct pmt_retlat_table cmp = { 0 };
	struct pmt_diag diag = PMT_DIAG_INIT;
	struct pmt_out_file of;
	const char *inputs[2];
	struct pmt_out o;
	int full = 0, c, rc;

	while ((c = getopt_long(argc, argv, "o:hi:", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'i': trace = optarg; break;
		case O_FORMAT:
			if (!strcasecmp(optarg, "intel"))
				fmt = PMT_RETLAT_FMT_INTEL;
			else if (!strcasecmp(optarg, "pmu-tools") || !strcasecmp(optarg, "pmutools"))
				fmt = PMT_RETLAT_FMT_PMU_TOOLS;
			else
				return pmt_cli_usage_fail("calibrate", "unknown --format '%s' (intel "
							  "or pmu-tools)", optarg);
			break;
		case O_FULL: full = 1; break;
		case O_COMPARE: compare = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return PMT_EXIT_USAGE;
		}
	}
	trace = pmt_cli_input(trace, argc, argv, optind);
	if (!trace) {
		usage(stderr);
		return pmt_cli_usage_fail("calibrate", "expected one TRACE (or -i TRACE)");
	}
	inputs[0] = trace;
	inputs[1] = compare;
	if (!out && !compare)
		return pmt_cli_usage_fail("calibrate", "-o FILE (or --compare TABLE) is required");
	if (compare && pmt_retlat_table_load(&cmp, compare, &diag) < 0) {
		pmt_diag_print(&diag);
		return pmt_cli_fail("calibrate", "cannot load table %s", compare);
	}
	/* refuse an output that is an input before any work */
	if (out && pmt_out_file_open(&of, out, inputs, 2, &diag) < 0) {
		pmt_retlat_table_fini(&cmp);
		return pmt_cli_fail_diag("calibrate", &diag);
	}
	rc = pmt_retlat_samples_from_trace(&s, trace, &diag);
	if (rc < 0) {
		if (out)
			pmt_out_file_abort(&of);
		pmt_retlat_table_fini(&cmp);
		return pmt_cli_fail_diag("calibrate", &diag);
	}
	if (!s.nr) {
		/* nothing to calibrate from: no table at all rather than an empty one */
		if (out)
			pmt_out_file_abort(&of);
		pmt_retlat_samples_fini(&s);
		pmt_retlat_table_fini(&cmp);
		return pmt_cli_fail("calibrate", "%s has no samples with a retire latency "
				    "(PERF_SAMPLE_WEIGHT_STRUCT); record PEBS events with perf "
				    "record -W", trace);
	}
	if (s.nr_skipped)
		pmt_warn("%s: %llu samples without retire latency or event name skipped", trace,
			 (unsigned long long)s.nr_skipped);
	rc = 0;
	if (out) {
		if (pmt_retlat_write(&s, fmt, full, of.fp) < 0) {
			pmt_out_file_abort(&of);
			rc = pmt_cli_fail("calibrate", "writing %s failed", out);
		} else if (pmt_out_file_commit(&of, &diag) < 0) {
			rc = pmt_cli_fail_diag("calibrate", &diag);
		}
	}
	/* the summary table goes where it does not mix with a table written to stdout */
	pmt_out_init(&o, out && !strcmp(out, "-") ? stderr : stdout, 1 << 14);
	print_stats(&o, &s, compare ? &cmp : NULL);
	if (pmt_out_fini(&o) < 0)
		rc = 1;
	pmt_retlat_samples_fini(&s);
	pmt_retlat_table_fini(&cmp);
	return rc;
}
