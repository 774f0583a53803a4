/* The events a recording needs for a metric plan (record --tpebs): each :R input as the
 * event perf's tpebs samples (intel-tpebs.c evsel__tpebs_event: the metric's event with the
 * last 'R' of its modifiers made 'p'), each counted input as perf's metricgroup writes it
 * (pmu@terms@ becomes pmu/terms/). Tool events (duration_time, user_time, system_time)
 * are not events to open. */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/metrics.h"

static int is_tool_event(const char *id)
{
	return !strcmp(id, "duration_time") || !strcmp(id, "user_time") ||
	       !strcmp(id, "system_time");
}

/* id into an event string; retlat: the R modifier becomes p (precise sampling), and an
 * event without a PMU goes to core_pmu when one is given */
static int event_string(const char *id, int retlat, const char *core_pmu, char *out,
			size_t cap)
{
	size_t n = strlen(id);
	char *r;

	if (n + 1 > cap)
		return -PMT_ERANGE;
	memcpy(out, id, n + 1);
	r = strchr(out, '@');
	if (!r && retlat && core_pmu) {
		/* EV:mods -> pmu/EV/mods */
		const char *colon = strchr(id, ':');
		size_t el = colon ? (size_t)(colon - id) : n;

		if ((size_t)snprintf(out, cap, "%s/%.*s/%s", core_pmu, (int)el, id,
				     colon ? colon + 1 : "") >= cap)
			return -PMT_ERANGE;
	} else if (r) {
		/* pmu@terms@mods */
		*r = '/';
		r = strchr(r + 1, '@');
		if (r)
			*r = '/';
	}
	if (!retlat)
		return 0;
	r = strrchr(out, 'R');
	/* the R must be a modifier: after ':' or the closing '/' */
	if (!r || (!strchr(out, ':') && (!strchr(out, '/') || r < strrchr(out, '/'))))
		return -PMT_EINVAL;
	*r = 'p';
	return 0;
}

static int add_unique(char ***list, size_t *nr, const char *s)
{
	char **n, *d;

	for (size_t i = 0; i < *nr; i++)
		if (!strcmp((*list)[i], s))
			return 0;
	n = realloc(*list, (*nr + 1) * sizeof(*n));
	if (!n)
		return -PMT_ENOMEM;
	*list = n;
	d = strdup(s);
	if (!d)
		return -PMT_ENOMEM;
	n[(*nr)++] = d;
	return 1;
}

int pmt_metric_plan_events(struct pmt_metric_plan *p, const char *core_pmu,
			   struct pmt_metric_events *ev)
{
	size_t nin = pmt_metric_plan_nr_inputs(p);
	int rc = 0;

	memset(ev, 0, sizeof(*ev));
	for (size_t i = 0; i < nin && rc >= 0; i++) {
		const struct pmt_metric_input *in = pmt_metric_plan_input(p, i);
		char buf[sizeof(in->key.pmu) + sizeof(in->key.event) + sizeof(in->key.mods) + 8];

		if (in->kind == PMT_MIN_DURATION || in->kind == PMT_MIN_HAS_EVENT ||
		    is_tool_event(in->id))
			continue;
		rc = event_string(in->id, in->kind == PMT_MIN_RETLAT, core_pmu, buf, sizeof(buf));
		if (rc < 0) {
			snprintf(ev->bad, sizeof(ev->bad), "%s", in->id);
			break;
		}
		if (in->kind == PMT_MIN_RETLAT)
			rc = add_unique(&ev->sampled, &ev->nr_sampled, buf);
		else
			rc = add_unique(&ev->counted, &ev->nr_counted, buf);
	}
	if (rc < 0)
		pmt_metric_events_fini(ev);
	return rc < 0 ? rc : 0;
}

void pmt_metric_events_fini(struct pmt_metric_events *ev)
{
	for (size_t i = 0; i < ev->nr_sampled; i++)
		free(ev->sampled[i]);
	for (size_t i = 0; i < ev->nr_counted; i++)
		free(ev->counted[i]);
	free(ev->sampled);
	free(ev->counted);
	ev->sampled = ev->counted = NULL;
	ev->nr_sampled = ev->nr_counted = 0;
}
