/* Counts as `perf stat record` stores them (tools/lib/perf/include/perf/event.h):
 * EVENT_UPDATE per event, THREAD_MAP, CPU_MAP, STAT_CONFIG, then per read one STAT per
 * counter with its cumulative values and a STAT_ROUND. Sizes follow perf 7.3's writer
 * (checked with its report -D), so perf 6.1 and 7.3 `perf stat report` read them. */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/counting.h"

enum { REC_THREAD_MAP = 73, REC_CPU_MAP = 74, REC_STAT_CONFIG = 75, REC_STAT = 76,
       REC_STAT_ROUND = 77, REC_EVENT_UPDATE = 78 };
enum { UPDATE_UNIT = 0, UPDATE_SCALE = 1, UPDATE_NAME = 2, UPDATE_CPUS = 3 };
enum { CONFIG_AGGR_MODE = 0, CONFIG_INTERVAL = 1, CONFIG_SCALE = 2 };
/* perf 7.3's enum aggr_mode (6.1 numbers CORE 4: perf 6.1 reads --per-core recordings
 * only with stat report --per-core) */
enum { PERF_AGGR_NONE = 0, PERF_AGGR_GLOBAL = 1, PERF_AGGR_SOCKET = 2, PERF_AGGR_DIE = 3,
       PERF_AGGR_CORE = 6, PERF_AGGR_THREAD = 7 };
/* sizeof(struct perf_record_event_update) in perf 7.3: header, type, id, a 16-byte union */
#define UPDATE_FIXED 40

static void hdr(uint8_t *b, uint32_t type, size_t size)
{
	uint32_t t = type;
	uint16_t misc = 0, sz = (uint16_t)size;

	memcpy(b, &t, 4);
	memcpy(b + 4, &misc, 2);
	memcpy(b + 6, &sz, 2);
}

static void put64(uint8_t *b, uint64_t v)
{
	memcpy(b, &v, 8);
}

static int update_str(struct pmt_perf_writer *w, uint64_t type, uint64_t id, const char *s)
{
	uint8_t b[UPDATE_FIXED + 176] = { 0 };
	size_t len = strlen(s), size = UPDATE_FIXED + ((len + 1 + 7) & ~(size_t)7);

	if (len >= 160)
		len = 159, size = UPDATE_FIXED + 160;
	hdr(b, REC_EVENT_UPDATE, size);
	put64(b + 8, type);
	put64(b + 16, id);
	memcpy(b + 24, s, len);
	return pmt_perf_writer_write_record(w, b, size);
}

static uint64_t first_id(const struct pmt_count_plan *p, const struct pmt_counter *c, uint32_t e)
{
	for (uint32_t ci = 0; ci < p->nr_cpus; ci++)
		for (uint32_t ti = 0; ti < pmt_counter_nr_threads(c); ti++)
			if (pmt_counter_id(c, e, ci, ti))
				return pmt_counter_id(c, e, ci, ti);
	return 0;
}

/* a cpu map as perf's PERF_CPU_MAP__CPUS form: u16 type, u16 nr, u16 cpu[nr] (-1 = any) */
static int cpu_map(struct pmt_perf_writer *w, const struct pmt_count_plan *p, uint32_t rtype,
		   uint64_t id)
{
	size_t head = rtype == REC_EVENT_UPDATE ? 24 : 8;
	size_t size = (head + 4 + 2 * (size_t)p->nr_cpus + 7) & ~(size_t)7;
	uint8_t *b = calloc(1, size);
	uint16_t nr = (uint16_t)p->nr_cpus;
	int rc;

	if (!b)
		return -PMT_ENOMEM;
	hdr(b, rtype, size);
	if (rtype == REC_EVENT_UPDATE) {
		put64(b + 8, UPDATE_CPUS);
		put64(b + 16, id);
	}
	memcpy(b + head + 2, &nr, 2);
	for (uint32_t i = 0; i < p->nr_cpus; i++) {
		uint16_t cpu = (uint16_t)p->cpu[i];

		memcpy(b + head + 4 + 2 * i, &cpu, 2);
	}
	rc = pmt_perf_writer_write_record(w, b, size);
	free(b);
	return rc;
}

static int thread_map(struct pmt_perf_writer *w, const struct pmt_counter *c,
		      const int32_t *threads, bool per_cpu)
{
	uint32_t n = pmt_counter_nr_threads(c);
	size_t size = 16 + 24 * (size_t)n;
	uint8_t *b = calloc(1, size);
	int rc;

	if (!b)
		return -PMT_ENOMEM;
	hdr(b, REC_THREAD_MAP, size);
	put64(b + 8, n);
	for (uint32_t i = 0; i < n; i++) {
		int64_t pid = per_cpu || !threads ? -1 : threads[i];
		char path[64];
		FILE *f;

		put64(b + 16 + 24 * i, (uint64_t)pid);
		if (pid < 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%lld/comm", (long long)pid);
		f = fopen(path, "r");
		if (f) {
			char comm[17] = "";

			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = 0;
			memcpy(b + 24 + 24 * i, comm, strnlen(comm, 15));
			fclose(f);
		}
	}
	rc = pmt_perf_writer_write_record(w, b, size);
	free(b);
	return rc;
}

int pmt_stat_add_attrs(struct pmt_perf_writer *w, const struct pmt_count_plan *p,
		       const struct pmt_counter *c)
{
	uint32_t nt = pmt_counter_nr_threads(c), n = p->nr_cpus * nt;
	uint64_t *ids = calloc(n ? n : 1, sizeof(*ids));
	int rc = 0;

	if (!ids)
		return -PMT_ENOMEM;
	for (uint32_t e = 0; rc >= 0 && e < p->ev.nr; e++) {
		uint32_t k = 0;

		for (uint32_t ci = 0; ci < p->nr_cpus; ci++)
			for (uint32_t ti = 0; ti < nt; ti++)
				if (pmt_counter_id(c, e, ci, ti))
					ids[k++] = pmt_counter_id(c, e, ci, ti);
		rc = pmt_perf_writer_add_attr(w, &p->ev.ev[e].attr, PMT_ATTR_SIZE_MAX, ids, k,
					      p->ev.ev[e].name);
	}
	free(ids);
	return rc;
}

int pmt_stat_write_header(struct pmt_perf_writer *w, const struct pmt_count_plan *p,
			  const struct pmt_counter *c, const int32_t *threads, enum pmt_aggr aggr,
			  uint64_t interval_ms)
{
	static const uint64_t mode[] = {
		[PMT_AGGR_GLOBAL] = PERF_AGGR_GLOBAL, [PMT_AGGR_CPU] = PERF_AGGR_NONE,
		[PMT_AGGR_CORE] = PERF_AGGR_CORE, [PMT_AGGR_SOCKET] = PERF_AGGR_SOCKET,
		[PMT_AGGR_DIE] = PERF_AGGR_DIE, [PMT_AGGR_THREAD] = PERF_AGGR_THREAD,
	};
	uint8_t b[8 + 8 + 3 * 16];
	int rc = 0;

	for (uint32_t e = 0; rc >= 0 && e < p->ev.nr; e++) {
		uint64_t id = first_id(p, c, e);

		if (!id)
			continue; /* never opened: no STAT records name it */
		if (p->unit[e][0])
			rc = update_str(w, UPDATE_UNIT, id, p->unit[e]);
		if (rc >= 0 && p->scale[e] != 1.0) {
			uint8_t s[UPDATE_FIXED + 8] = { 0 };

			hdr(s, REC_EVENT_UPDATE, UPDATE_FIXED + 8);
			put64(s + 8, UPDATE_SCALE);
			put64(s + 16, id);
			memcpy(s + 24, &p->scale[e], 8);
			rc = pmt_perf_writer_write_record(w, s, UPDATE_FIXED + 8);
		}
		if (rc >= 0 && p->per_cpu)
			rc = cpu_map(w, p, REC_EVENT_UPDATE, id);
		if (rc >= 0)
			rc = update_str(w, UPDATE_NAME, id, p->ev.ev[e].name);
	}
	if (rc >= 0)
		rc = thread_map(w, c, threads, p->per_cpu);
	if (rc >= 0)
		rc = cpu_map(w, p, REC_CPU_MAP, 0);
	if (rc < 0)
		return rc;
	hdr(b, REC_STAT_CONFIG, sizeof(b));
	put64(b + 8, 3);
	put64(b + 16, CONFIG_AGGR_MODE);
	put64(b + 24, mode[aggr]);
	put64(b + 32, CONFIG_INTERVAL);
	put64(b + 40, interval_ms);
	put64(b + 48, CONFIG_SCALE);
	put64(b + 56, 1);
	return pmt_perf_writer_write_record(w, b, sizeof(b));
}

int pmt_stat_write_round(struct pmt_perf_writer *w, const struct pmt_count_plan *p,
			 const struct pmt_counter *c, uint64_t time_ns, bool final)
{
	uint8_t b[48];
	int rc = 0;

	for (uint32_t e = 0; rc >= 0 && e < p->ev.nr; e++) {
		for (uint32_t ci = 0; rc >= 0 && ci < p->nr_cpus; ci++) {
			for (uint32_t ti = 0; rc >= 0 && ti < pmt_counter_nr_threads(c); ti++) {
				const struct pmt_count_value *v = pmt_counter_value(c, e, ci, ti);
				uint64_t id = pmt_counter_id(c, e, ci, ti);

				if (!id)
					continue;
				/* the CPU itself (-1 for a thread's counter), as perf 6.1 and
				 * 7.3 write and check it, not its index in the CPU map */
				int32_t cpu = p->cpu[ci];

				hdr(b, REC_STAT, sizeof(b));
				put64(b + 8, id);
				memcpy(b + 16, &cpu, 4);
				memcpy(b + 20, &ti, 4);
				put64(b + 24, v->val);
				put64(b + 32, v->ena);
				put64(b + 40, v->run);
				rc = pmt_perf_writer_write_record(w, b, sizeof(b));
			}
		}
	}
	if (rc < 0)
		return rc;
	hdr(b, REC_STAT_ROUND, 24);
	put64(b + 8, final ? 1 : 0);
	put64(b + 16, time_ns);
	return pmt_perf_writer_write_record(w, b, 24);
}
