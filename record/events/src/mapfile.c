/* Intel perfmon's mapfile.csv: which event files a CPU has. Rows are
 * "Family-model,Version,Filename,EventType,Core Type,Native Model ID,Core Role Name"; the
 * family-model is a regular expression over perf's CPUID string (GenuineIntel-6-AD or
 * GenuineIntel-6-55-[01234], compared without the stepping when it names none, as perf's
 * x86 strcmp_cpuid_str does). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events_priv.h"

/* perf's x86 get_cpuid_str: VENDOR-FAMILY-MODEL-STEPPING, model and stepping in hex */
static int cpuid(char *out, size_t cap)
{
	const char *env = getenv("PERF_CPUID");
	char line[256], vendor[32] = "";
	unsigned family = 0, model = 0, stepping = 0, have = 0;
	FILE *f;

	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return 0;
	}
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return -1;
	while (have != 15 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "vendor_id : %31s", vendor) == 1)
			have |= 1;
		else if (sscanf(line, "cpu family : %u", &family) == 1)
			have |= 2;
		else if (sscanf(line, "model : %u", &model) == 1)
			have |= 4;
		else if (sscanf(line, "stepping : %u", &stepping) == 1)
			have |= 8;
	}
	fclose(f);
	if (have != 15)
		return -1;
	snprintf(out, cap, "%s-%u-%X-%X", vendor, family, model, stepping);
	return 0;
}

static bool matches(const char *pattern, const char *id)
{
	char re_text[256], want[128];
	unsigned dashes = 0;
	regex_t re;
	regmatch_t m;
	bool ok;

	for (const char *p = pattern; *p; p++)
		dashes += *p == '-';
	snprintf(want, sizeof(want), "%s", id);
	if (dashes < 3) {
		/* the row names no stepping: compare VENDOR-FAMILY-MODEL */
		char *q = want;

		for (unsigned i = 0; q && i < 3; i++) {
			q = strchr(q, '-');
			if (q && i < 2)
				q++;
		}
		if (q)
			*q = 0;
	}
	if (strlen(pattern) > sizeof(re_text) - 8)
		return false;
	snprintf(re_text, sizeof(re_text), "^(%.240s)$", pattern);
	if (regcomp(&re, re_text, REG_EXTENDED | REG_ICASE | REG_NOSUB))
		return false;
	ok = regexec(&re, want, 1, &m, 0) == 0;
	regfree(&re);
	return ok;
}

int pmt_event_table_load_mapfile(struct pmt_event_table *t, const char *dir,
				 struct pmt_diag *diag)
{
	char path[4096], line[1024], id[128];
	FILE *f;
	int files = 0, rc = 0;
	unsigned lineno = 0;

	if (cpuid(id, sizeof(id)) < 0)
		return pmt_diag_set(diag, -PMT_ENOT_FOUND, NULL, PMT_DIAG_NO_OFFSET,
				    "%s/mapfile.csv: the CPU is not known (no PERF_CPUID, no "
				    "/proc/cpuinfo)", dir);
	snprintf(path, sizeof(path), "%s/mapfile.csv", dir);
	f = fopen(path, "r");
	if (!f)
		return pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET, "cannot read it");
	while (rc >= 0 && fgets(line, sizeof(line), f)) {
		char *field[7] = { 0 }, *p = line, json[4096];
		const char *pmu = NULL;
		unsigned n = 0;

		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		while (n < 7 && p) {
			field[n++] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = 0;
		}
		if (lineno == 1 || n < 4 || !matches(field[0], id))
			continue;
		/* event files only: metrics, retire latencies and uncore PMUs are not core
		 * events (an uncore table's Units name PMUs perf renames) */
		if (strcasecmp(field[3], "core") && strcasecmp(field[3], "hybridcore") &&
		    strcasecmp(field[3], "offcore") && strcasecmp(field[3], "fp_arith_inst"))
			continue;
		/* Core Type: hybrid parts' atom (0x20) and core (0x40) files */
		if (n > 4 && field[4][0])
			pmu = strtoul(field[4], NULL, 0) == 0x20 ? "cpu_atom" : "cpu_core";
		snprintf(json, sizeof(json), "%s/%s", dir, field[2] + (field[2][0] == '/'));
		rc = pmt_event_table_load_json(t, json, pmu, diag);
		files += rc >= 0;
	}
	fclose(f);
	if (rc >= 0 && !files)
		rc = pmt_diag_set(diag, -PMT_ENOT_FOUND, path, PMT_DIAG_NO_OFFSET,
				  "no event files for CPU %s (PERF_CPUID sets another)", id);
	return rc < 0 ? rc : files;
}
