#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "pmutrace/common.h"

int pmt_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == ' ')
		return -PMT_EPARSE;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -PMT_EPARSE;
	*out = v;
	return 0;
}

int pmt_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || !*s || *s == '-' || *s == ' ')
		return -PMT_EPARSE;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -PMT_EPARSE;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: return -PMT_EPARSE;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -PMT_EPARSE;
	*out = (uint64_t)v << shift;
	return 0;
}

int pmt_parse_double(const char *s, double *out)
{
	char *end;

	if (!s || !*s)
		return -PMT_EPARSE;
	errno = 0;
	*out = strtod(s, &end);
	if (errno || *end)
		return -PMT_EPARSE;
	return 0;
}

int pmt_cli_fail_diag(const char *cmd, const struct pmt_diag *d)
{
	char buf[sizeof(d->msg) + 4096];

	pmt_diag_format(d, buf, sizeof(buf));
	return pmt_cli_fail(cmd, "%s", buf);
}

const char pmt_cli_exit_help[] =
	"exit status: 0 all input read; 1 error, no usable output; 2 output written, but data\n"
	"  was lost, damaged or substituted (said on stderr); 129 usage error.\n";

static void cli_message(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "pmutrace %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int pmt_cli_usage_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_message(cmd, fmt, ap);
	va_end(ap);
	return PMT_EXIT_USAGE;
}

int pmt_cli_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_message(cmd, fmt, ap);
	va_end(ap);
	return PMT_EXIT_ERROR;
}

const char *pmt_cli_input(const char *given, int argc, char **argv, int first)
{
	/* as perf: -i FILE or FILE, else ./perf.data */
	if (first < argc && !given)
		given = argv[first++];
	if (first != argc)
		return NULL;
	return given ? given : "perf.data";
}

int pmt_cli_jobs(const char *cmd, const char *arg, unsigned *jobs)
{
	uint64_t v;

	if (pmt_parse_u64(arg, &v) < 0 || v < 1 || v > 256)
		return pmt_cli_usage_fail(cmd, "bad -j '%s' (threads: 1 to 256)", arg);
	*jobs = (unsigned)v;
	return 0;
}

unsigned pmt_cli_jobs_default(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}
