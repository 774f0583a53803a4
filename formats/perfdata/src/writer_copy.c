/* Copying a trace read by pmt_source into a writer (pmutrace convert): the metadata that
 * perf keeps in header features and attrs, then the records, re-encoded when the byte
 * order changes. */
#include <stddef.h>
#include <stdio.h>

#include "writer_priv.h"

int pmt_perf_writer_set_midr(struct pmt_perf_writer *w, uint64_t midr)
{
	char cpuid[32];

	snprintf(cpuid, sizeof(cpuid), "0x%016llx", (unsigned long long)midr);
	return pmt_perf_writer_set_feature_str(w, PMT_FEAT_CPUID, cpuid);
}

int pmt_perf_writer_copy_meta(struct pmt_perf_writer *w, const struct pmt_trace_meta *m)
{
	static const struct { unsigned feat; size_t off; } strs[] = {
		{ PMT_FEAT_HOSTNAME, offsetof(struct pmt_trace_meta, hostname) },
		{ PMT_FEAT_OSRELEASE, offsetof(struct pmt_trace_meta, osrelease) },
		{ PMT_FEAT_VERSION, offsetof(struct pmt_trace_meta, version) },
		{ PMT_FEAT_ARCH, offsetof(struct pmt_trace_meta, arch) },
		{ PMT_FEAT_CPUID, offsetof(struct pmt_trace_meta, cpuid) },
	};
	int rc = 0;

	for (uint32_t i = 0; rc >= 0 && i < m->nr_attrs; i++)
		rc = pmt_perf_writer_add_attr(w, m->attrs[i].attr, sizeof(m->attrs[i].attr),
					      m->attrs[i].ids, m->attrs[i].nr_ids,
					      m->attrs[i].name);
	for (size_t i = 0; rc >= 0 && i < sizeof(strs) / sizeof(strs[0]); i++) {
		const char *v = *(const char *const *)((const char *)m + strs[i].off);

		if (v)
			rc = pmt_perf_writer_set_feature_str(w, strs[i].feat, v);
	}
	if (rc >= 0 && (m->nr_cpus_online || m->nr_cpus_avail))
		rc = pmt_perf_writer_set_nrcpus(w, m->nr_cpus_online, m->nr_cpus_avail);
	if (rc >= 0 && m->topology)
		rc = pmt_perf_writer_set_cpu_topology(w, m->topology);
	if (rc >= 0 && m->cmdline) {
		const char *argv1[1] = { m->cmdline };

		rc = pmt_perf_writer_set_cmdline(w, 1, argv1);
	}
	/* perf script -F tod needs it: a converted -k recording keeps its time of day */
	if (rc >= 0 && m->has_clock_data)
		rc = pmt_perf_writer_set_clock_data(w, m->clock_clockid, m->clock_tod_ns,
						    m->clock_ref_ns, m->clock_res_ns);
	if (rc >= 0 && m->numa_nodes)
		rc = pmt_perf_writer_set_numa_nodes(w, m->numa_nodes);
	return rc;
}

/* a record whose bytes cannot be copied (the byte order changes), re-encoded when pmutrace
 * knows its layout */
static int write_reencoded(struct pmt_perf_writer *w, const struct pmt_trace_meta *m,
			   const struct pmt_trace_event *ev)
{
	int rc;

	switch (ev->type) {
	case PMT_REC_TIME_CONV:
		return pmt_perf_writer_write_time_conv(w, &m->time_conv);
	case PMT_REC_SAMPLE:
		rc = pmt_perf_writer_write_sample(w, &ev->u.sample);
		break;
	default:
		rc = pmt_perf_writer_write_record_swapped(w, ev->raw, ev->raw_size);
		break;
	}
	return rc == -PMT_EUNSUPPORTED ? 1 : rc;
}

int pmt_perf_writer_copy_event(struct pmt_perf_writer *w, const struct pmt_trace_meta *m,
			       const struct pmt_trace_event *ev)
{
	if (ev->type == PMT_REC_HEADER_ATTR || ev->type == PMT_REC_HEADER_FEATURE)
		return 0;
	if (ev->kind == PMT_TEV_AUXTRACE)
		return pmt_perf_writer_write_auxtrace(w, ev->u.auxtrace.data, ev->u.auxtrace.size,
						      ev->u.auxtrace.offset,
						      ev->u.auxtrace.reference,
						      ev->u.auxtrace.idx, ev->u.auxtrace.tid,
						      ev->u.auxtrace.cpu);
	if (m->swapped == w->swap)
		return pmt_perf_writer_write_record(w, ev->raw, ev->raw_size);
	return write_reencoded(w, m, ev);
}
