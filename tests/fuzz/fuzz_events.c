/* record/events and record/discovery text parsers: an event string against two SPE-like
 * PMUs (one with split format ranges), a format file, a CPU list; then the record plan of
 * what parsed, which walks every attr rule. The input's first byte picks what it feeds:
 * from 0xf0 on, Intel hybrid core PMUs (aliases, topdown, extended types) and, before the
 * first newline, a JSON event table the event string may name events of. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/events.h"
#include "pmutrace/pmu.h"
#include "pmutrace/record.h"

static struct pmt_pmu_format fmts[] = {
	{ "ts_enable", 0, 1, { 0 }, { 0 } },       { "pa_enable", 0, 1, { 1 }, { 1 } },
	{ "load_filter", 0, 1, { 33 }, { 33 } },   { "discard", 0, 1, { 35 }, { 35 } },
	{ "event_filter", 1, 1, { 0 }, { 63 } },   { "min_latency", 2, 1, { 0 }, { 11 } },
	{ "split", 0, 3, { 4, 8, 12 }, { 5, 8, 13 } }, { "inv", 3, 1, { 0 }, { 63 } },
};
static struct pmt_pmu_cap caps[] = { { "min_interval", "1024" } };

static struct pmt_pmu_format core_fmts[] = {
	{ "cmask", 0, 1, { 24 }, { 31 } },      { "edge", 0, 1, { 18 }, { 18 } },
	{ "event", 0, 1, { 0 }, { 7 } },        { "frontend", 1, 1, { 0 }, { 23 } },
	{ "inv", 0, 1, { 23 }, { 23 } },        { "ldlat", 1, 1, { 0 }, { 15 } },
	{ "offcore_rsp", 1, 1, { 0 }, { 63 } }, { "umask", 0, 1, { 8 }, { 15 } },
};
static struct pmt_pmu_alias core_aliases[] = {
	{ "instructions", "event=0xc0" },      { "mem-loads", "event=0xcd,umask=0x1,ldlat=3" },
	{ "slots", "event=0x00,umask=0x4" },   { "topdown-bad-spec", "event=0x00,umask=0x81" },
	{ "topdown-retiring", "event=0x00,umask=0x80" },
	{ "loop", "loop2" }, { "loop2", "loop" }, /* aliases naming each other: bounded */
};

/* the events of s on a hybrid machine's cpu_atom + cpu_core, with the table in t */
static void intel(char *s, const uint8_t tag)
{
	static struct pmt_pmu pmu[3];
	struct pmt_pmus set;
	struct pmt_evlist l = { 0 };
	struct pmt_event_table *table = NULL;
	struct pmt_events_opts eo = { .sz = sizeof(eo) };
	struct pmt_record_plan p;
	struct pmt_record_opts o = { .sz = sizeof(o), .page_size = 4096 };
	struct pmt_diag d = PMT_DIAG_INIT;
	char *nl = strchr(s, '\n');

	if (nl) {
		char path[] = "/tmp/fuzz_events_XXXXXX";
		int fd = mkstemp(path);

		*nl = 0;
		if (fd >= 0) {
			if (write(fd, s, strlen(s)) >= 0)
				pmt_event_table_load(&table, path, &d);
			close(fd);
			unlink(path);
		}
		s = nl + 1;
	}
	memset(pmu, 0, sizeof(pmu));
	memset(&set, 0, sizeof(set));
	for (int i = 0; i < 2; i++) {
		strcpy(pmu[i].name, i ? "cpu_core" : "cpu_atom");
		pmu[i].type = i ? 4 : 10;
		pmu[i].core = pmu[i].has_cpus = true;
		pmu[i].cpus.bits[0] = i ? 0xff : 0xf00;
		pmu[i].formats = core_fmts;
		pmu[i].nr_formats = sizeof(core_fmts) / sizeof(core_fmts[0]);
		pmu[i].aliases = core_aliases;
		pmu[i].nr_aliases = i ? sizeof(core_aliases) / sizeof(core_aliases[0]) : 2;
	}
	strcpy(pmu[2].name, "software");
	pmu[2].type = 1;
	strcpy(set.root, "/fuzz");
	set.pmu = pmu;
	set.nr = 3;
	set.online.bits[0] = 0xfff;
	set.extended_type = tag & 1;
	eo.table = table;
	eo.cputype = tag & 2 ? "atom" : NULL;
	o.target = (enum pmt_record_target)(tag / 4 % 3);
	if (pmt_events_parse_opts(&l, &set, s, &eo, &d) >= 0) {
		if (pmt_record_plan_build(&p, &l, &set, &o, &d) >= 0 || p.ev.ev)
			pmt_record_plan_fini(&p);
	} else {
		pmt_evlist_fini(&l);
	}
	pmt_event_table_free(table);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmt_pmu pmu[2];
	struct pmt_pmus set;
	char *s;

	if (!size)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = 0;
	if (data[0] >= 0xf0) {
		intel(s, data[0]);
		free(s);
		return 0;
	}
	switch (data[0] % 3) {
	case 0: {
		struct pmt_pmu_format f;

		if (pmt_pmu_format_parse(s, &f) == 0) {
			uint64_t cfg[5] = { 0 }, max;

			pmt_pmu_format_apply(&f, 0x123456789abcdefULL, cfg, &max);
		}
		break;
	}
	case 1: {
		struct pmt_cpumask m;

		if (pmt_cpumask_parse(s, &m) == 0)
			(void)pmt_cpumask_next(&m, (unsigned)pmt_cpumask_count(&m));
		break;
	}
	default: {
		struct pmt_evlist l = { 0 };
		struct pmt_record_plan p;
		struct pmt_record_opts o = { .sz = sizeof(o), .page_size = 4096 };
		struct pmt_diag d = PMT_DIAG_INIT;

		memset(pmu, 0, sizeof(pmu));
		memset(&set, 0, sizeof(set));
		for (int i = 0; i < 2; i++) {
			strcpy(pmu[i].name, i ? "arm_spe_1" : "arm_spe_0");
			pmu[i].type = 8 + (uint32_t)i;
			pmu[i].has_cpus = true;
			pmu[i].cpus.bits[0] = i ? 0xc : 0x3;
			pmu[i].formats = fmts;
			pmu[i].nr_formats = sizeof(fmts) / sizeof(fmts[0]);
			pmu[i].caps = caps;
			pmu[i].nr_caps = 1;
		}
		strcpy(set.root, "/fuzz");
		set.pmu = pmu;
		set.nr = 2;
		set.online.bits[0] = 0xf;
		o.target = (enum pmt_record_target)(data[0] / 3 % 5);
		o.per_thread = data[0] & 0x80;
		o.cpus.bits[0] = 0x5;
		if (pmt_events_parse(&l, &set, s, &d) >= 0) {
			if (pmt_record_plan_build(&p, &l, &set, &o, &d) >= 0 || p.ev.ev)
				pmt_record_plan_fini(&p);
		} else {
			pmt_evlist_fini(&l);
		}
		break;
	}
	}
	free(s);
	return 0;
}
