/* A one-line account of what a trace holds, for a user who asked for something it lacks
 * (an SPE decode of a cpu-clock recording): its events and their sample counts. */
#include <inttypes.h>
#include <stdlib.h>

#include "pmutrace/perfdata.h"

int pmt_source_describe(struct pmt_source *src, char *out, size_t cap)
{
	const struct pmt_trace_meta *m = pmt_source_meta(src);
	uint64_t *n = calloc(m->nr_attrs + 1, sizeof(*n)), aux = 0;
	/* what the kernel said it lost, as perf's session stats count it */
	uint64_t aux_recs = 0, truncated = 0, partial = 0, collisions = 0, lost = 0, lost_s = 0;
	struct pmt_trace_event ev;
	size_t len = 0;
	int rc;

	if (!n)
		return -PMT_ENOMEM;
	while ((rc = pmt_source_next(src, &ev)) != -PMT_EEOS) {
		if (rc < 0)
			continue; /* damage is reported by the source; count what can be read */
		if (ev.kind == PMT_TEV_AUXTRACE)
			aux += ev.u.auxtrace.size;
		else if (ev.type == PMT_REC_SAMPLE && ev.u.sample.attr)
			n[ev.u.sample.attr - m->attrs]++;
		else if (ev.type == PMT_REC_AUX) {
			aux_recs++;
			truncated += !!(ev.u.aux.flags & PMT_AUX_FLAG_TRUNCATED);
			partial += !!(ev.u.aux.flags & PMT_AUX_FLAG_PARTIAL);
			collisions += !!(ev.u.aux.flags & PMT_AUX_FLAG_COLLISION);
		} else if (ev.type == PMT_REC_LOST) {
			lost += ev.u.lost.lost;
		} else if (ev.type == PMT_REC_LOST_SAMPLES) {
			lost_s += ev.u.lost.lost;
		}
	}
	out[0] = 0;
	for (uint32_t i = 0; i < m->nr_attrs && len < cap; i++) {
		const char *name = m->attrs[i].name;
		int k;

		if (name)
			k = snprintf(out + len, cap - len, "%s%s: %" PRIu64 " samples", i ? "; " : "",
				     name, n[i]);
		else
			k = snprintf(out + len, cap - len, "%sattr type %u config %#" PRIx64 ": %" PRIu64
				     " samples", i ? "; " : "", m->attrs[i].type, m->attrs[i].config,
				     n[i]);
		len += k > 0 ? (size_t)k : 0;
	}
	if (len < cap) {
		int k = snprintf(out + len, cap - len, "%s%" PRIu64 " bytes of AUX data",
				 m->nr_attrs ? "; " : "", aux);

		len += k > 0 ? (size_t)k : 0;
	}
	if (len < cap && (aux_recs || lost || lost_s))
		snprintf(out + len, cap - len, "; %" PRIu64 " AUX records (%" PRIu64 " truncated, %"
			 PRIu64 " partial, %" PRIu64 " collisions); lost: %" PRIu64 " (LOST), %"
			 PRIu64 " (LOST_SAMPLES)", aux_recs, truncated, partial, collisions, lost,
			 lost_s);
	free(n);
	return 0;
}
