/* The columns perf_sample__fprintf_start() adds to a -F line beside tid, cpu and time:
 * misc's cpumode letters and tod's time of day. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"
#include "sink_priv.h"

char *sink_put_misc(char *p, uint16_t misc)
{
	/* a letter per test as perf tests them, (misc & X) == X over PERF_RECORD_MISC_KERNEL
	 * (1), USER (2), HYPERVISOR (3), GUEST_KERNEL (4), GUEST_USER (5): a hypervisor
	 * sample is "KUH"; then "%*s" of " " to 6 */
	static const char letters[] = "KUHGg";
	size_t n = 0;

	for (unsigned mode = 1; mode <= 5; mode++)
		if ((misc & mode) == mode)
			p[n++] = letters[mode - 1];
	memset(p + n, ' ', 6 - n);
	return p + 6;
}

char *sink_put_tod(struct pmt_spe_sink *k, char *p, uint64_t t)
{
	/* tod_scnprintf(): the time moved by the clock data's pair of readings in perf's u64
	 * arithmetic, local time "%Y-%m-%d %H:%M:%S.%06lu " (the date formatted once a
	 * second) */
	uint64_t ns = k->clock_tod_ns + (t - k->clock_ref_ns);
	int64_t sec = (int64_t)(ns / 1000000000u);
	size_t n;

	if (!k->tod_text[0] || sec != k->tod_sec) {
		time_t tt = (time_t)sec;
		struct tm tm;

		if (!localtime_r(&tt, &tm))
			snprintf(k->tod_text, sizeof(k->tod_text), "failed");
		else
			strftime(k->tod_text, sizeof(k->tod_text), "%Y-%m-%d %H:%M:%S", &tm);
		k->tod_sec = sec;
	}
	n = strlen(k->tod_text);
	memcpy(p, k->tod_text, n);
	p += n;
	if (strcmp(k->tod_text, "failed")) {
		/* six digits with leading zeros: 10^6 + usecs with its '1' made the '.' */
		pmt_fmt_u64(p, 1000000 + (ns % 1000000000u) / 1000);
		*p = '.';
		p += 7;
	}
	*p++ = ' ';
	return p;
}
