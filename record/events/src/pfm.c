/* --pfm-events: libpfm4 event strings into attrs, split and grouped as perf 7.3's
 * parse_libpfm_events_option() (tools/perf/util/pfm.c) does, so that the same string gives
 * the same events, names, groups and attrs. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>

#include "pmutrace/dynlib.h"
#include "pmutrace/events.h"

/* libpfm4 is loaded by --pfm-events only: relocating its event tables cost every other
 * command ~0.6 ms and 300 page faults at start-up */
#define PFM_FUNCS(X, api)                                                                  \
	X(api, pfm_initialize) X(api, pfm_strerror) X(api, pfm_get_perf_event_encoding)
PMT_DYNLIB_DEFINE(pfm, "libpfm.so.4", PFM_FUNCS);

/* the kernel's bitfield word of perf_event_attr from libpfm4's own struct (its header has
 * the kernel's layout; pmutrace keeps the word as flags) */
static uint64_t attr_flags(const struct perf_event_attr *a)
{
	uint64_t f = 0;

	f |= a->pinned ? PMT_ATTR_FLAG_PINNED : 0;
	f |= a->exclusive ? PMT_ATTR_FLAG_EXCLUSIVE : 0;
	f |= a->exclude_user ? PMT_ATTR_FLAG_EXCLUDE_USER : 0;
	f |= a->exclude_kernel ? PMT_ATTR_FLAG_EXCLUDE_KERNEL : 0;
	f |= a->exclude_hv ? PMT_ATTR_FLAG_EXCLUDE_HV : 0;
	f |= a->exclude_idle ? PMT_ATTR_FLAG_EXCLUDE_IDLE : 0;
	f |= a->freq ? PMT_ATTR_FLAG_FREQ : 0;
	f |= a->exclude_host ? PMT_ATTR_FLAG_EXCLUDE_HOST : 0;
	f |= a->exclude_guest ? PMT_ATTR_FLAG_EXCLUDE_GUEST : 0;
	f |= (uint64_t)a->precise_ip << PMT_ATTR_PRECISE_SHIFT;
	return f;
}

static const struct pmt_pmu *pmu_by_type(const struct pmt_pmus *pmus, uint32_t type)
{
	for (uint32_t i = 0; pmus && i < pmus->nr; i++)
		if (pmus->pmu[i].type == type)
			return &pmus->pmu[i];
	return NULL;
}

static int encode(struct pmt_evsel *e, const struct pmt_pmus *pmus, const char *ev,
		  const char *str, struct pmt_diag *diag)
{
	struct perf_event_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	/* perf's default: user and kernel, unless the event's u/k modifiers say otherwise */
	ret = pfm.pfm_get_perf_event_encoding(ev, PFM_PLM0 | PFM_PLM3, &a, NULL, NULL);
	if (ret != PFM_SUCCESS) {
		/* perf prints the whole option; the event is what the user must fix */
		bool whole = !strcmp(ev, str);

		return pmt_diag_set(diag, ret == PFM_ERR_NOTFOUND ? -PMT_ENOT_FOUND : -PMT_EPARSE,
				    NULL, PMT_DIAG_NO_OFFSET,
				    "--pfm-events: event '%s'%s%s%s: libpfm4: %s%s", ev,
				    whole ? "" : " (in '", whole ? "" : str, whole ? "" : "')",
				    pfm.pfm_strerror(ret),
				    ret == PFM_ERR_NOTFOUND
					    ? " (libpfm4's showevtinfo lists the events of this CPU; "
					      "LIBPFM_FORCE_PMU=NAME picks another PMU model)"
					    : "");
	}
	snprintf(e->name, sizeof(e->name), "%s", ev);
	e->pmu = pmu_by_type(pmus, a.type);
	e->attr.type = a.type;
	e->attr.config = a.config;
	e->attr.config1 = a.config1;
	e->attr.config2 = a.config2;
	e->attr.sample_period = a.sample_period;
	e->attr.flags = attr_flags(&a);
	/* evsel__config keeps a period libpfm4 set (is_libpfm_event): -c and -F do not win */
	e->freq_set = a.freq;
	e->period_set = a.sample_period && !a.freq;
	return 0;
}

int pmt_events_parse_pfm(struct pmt_evlist *l, const struct pmt_pmus *pmus, const char *str,
			 struct pmt_diag *diag)
{
	char *copy, *p, *q;
	int ret, grp = -1, added = 0; /* grp: -1 outside a group, else members seen so far */
	uint32_t leader = 0;

	ret = pmt_dynlib_load(&pfm_lib, "--pfm-events", diag);
	if (ret < 0)
		return ret;
	ret = pfm.pfm_initialize();
	if (ret != PFM_SUCCESS)
		return pmt_diag_set(diag, -PMT_EUNSUPPORTED, NULL, PMT_DIAG_NO_OFFSET,
				    "--pfm-events: libpfm4 failed to initialize: %s",
				    pfm.pfm_strerror(ret));
	copy = p = strdup(str);
	if (!copy)
		return -PMT_ENOMEM;
	/* perf splits at each of , { }: '{' after a token opens a group that token leads
	 * ("a{b}" is the group {a,b}), '}' after a token closes it */
	for (q = p; strsep(&p, ",{}"); q = p) {
		char sep = p ? str[p - copy - 1] : 0;
		struct pmt_evsel *e;

		if (sep == '{') {
			if (grp > -1) {
				ret = pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
						   "--pfm-events '%s': nested event groups not "
						   "supported", str);
				goto out;
			}
			grp = 0;
		}
		if (!*q) {
			if (sep == '}') {
				if (grp < 0)
					goto unopened;
				grp = -1;
			}
			continue;
		}
		e = pmt_evlist_add(l);
		if (!e) {
			ret = -PMT_ENOMEM;
			goto out;
		}
		ret = encode(e, pmus, q, str, diag);
		if (ret < 0) {
			l->nr--;
			goto out;
		}
		added++;
		if (grp == 0) {
			leader = l->nr - 1;
			e->nr_members = 0;
		}
		if (grp > -1) {
			e->leader = leader;
			l->ev[leader].nr_members++;
			grp++;
		}
		if (sep == '}') {
			if (grp < 0)
				goto unopened;
			grp = -1;
		}
	}
	ret = added;
	goto out;
unopened:
	ret = pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
			   "--pfm-events '%s': cannot close a non-existing event group", str);
out:
	free(copy);
	return ret;
}
