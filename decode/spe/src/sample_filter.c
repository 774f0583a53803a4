/* Which samples a user asked for, with perf's options: --cpu LIST, --pid LIST, --tid LIST
 * and --time (perf's "start,stop" in seconds, either side open, or percentage slices of the
 * trace "A%-B%[,C%-D%...]"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"

/* "0-3,7" into a sorted list of ranges. */
static int parse_list(const char *s, struct pmt_id_ranges *r, uint64_t max)
{
	const char *p = s;

	r->n = 0;
	while (*p) {
		char *end;
		unsigned long long a = strtoull(p, &end, 10), b = a;

		if (end == p || a > max)
			return -PMT_EPARSE;
		p = end;
		if (*p == '-') {
			b = strtoull(p + 1, &end, 10);
			if (end == p + 1 || b < a || b > max)
				return -PMT_EPARSE;
			p = end;
		}
		if (r->n == PMT_FILTER_MAX_RANGES)
			return -PMT_ERANGE;
		r->lo[r->n] = a;
		r->hi[r->n++] = b;
		if (*p == ',')
			p++;
		else if (*p)
			return -PMT_EPARSE;
	}
	return r->n ? 0 : -PMT_EPARSE;
}

static bool in_list(const struct pmt_id_ranges *r, uint64_t v)
{
	if (!r->n)
		return true;
	for (unsigned i = 0; i < r->n; i++)
		if (v >= r->lo[i] && v <= r->hi[i])
			return true;
	return false;
}

int pmt_sample_filter_cpus(struct pmt_sample_filter *f, const char *list)
{
	return parse_list(list, &f->cpus, PMT_MAX_CPUS - 1);
}

int pmt_sample_filter_pids(struct pmt_sample_filter *f, const char *list)
{
	return parse_list(list, &f->pids, INT32_MAX);
}

int pmt_sample_filter_tids(struct pmt_sample_filter *f, const char *list)
{
	return parse_list(list, &f->tids, INT32_MAX);
}

/* Seconds as perf prints them ("12887.015899") into ns; "" is open. */
static int parse_secs(const char *s, size_t n, uint64_t *ns, uint64_t open)
{
	char buf[64], *end;
	double v;

	if (!n) {
		*ns = open;
		return 0;
	}
	if (n >= sizeof(buf))
		return -PMT_EPARSE;
	memcpy(buf, s, n);
	buf[n] = 0;
	v = strtod(buf, &end);
	if (*end || v < 0 || !isfinite(v))
		return -PMT_EPARSE;
	*ns = (uint64_t)llround(v * 1e9);
	return 0;
}

int pmt_sample_filter_time(struct pmt_sample_filter *f, const char *spec)
{
	const char *comma;

	f->nr_time = 0;
	f->time_pct = strchr(spec, '%') != NULL;
	if (f->time_pct) {
		/* "A%-B%[,C%-D%...]" */
		const char *p = spec;

		while (*p) {
			char *end;
			double a = strtod(p, &end), b;

			if (end == p || *end != '%' || end[1] != '-')
				return -PMT_EPARSE;
			p = end + 2;
			b = strtod(p, &end);
			if (end == p || *end != '%' || a < 0 || b > 100 || b < a)
				return -PMT_EPARSE;
			if (f->nr_time == PMT_FILTER_MAX_RANGES)
				return -PMT_ERANGE;
			f->pct_lo[f->nr_time] = a;
			f->pct_hi[f->nr_time++] = b;
			p = end + 1;
			if (*p == ',')
				p++;
			else if (*p)
				return -PMT_EPARSE;
		}
		return f->nr_time ? 0 : -PMT_EPARSE;
	}
	comma = strchr(spec, ',');
	if (!comma || parse_secs(spec, (size_t)(comma - spec), &f->t_lo[0], 0) < 0 ||
	    parse_secs(comma + 1, strlen(comma + 1), &f->t_hi[0], UINT64_MAX) < 0 ||
	    f->t_hi[0] < f->t_lo[0])
		return -PMT_EPARSE;
	f->nr_time = 1;
	return 0;
}

void pmt_sample_filter_set_span(struct pmt_sample_filter *f, uint64_t first, uint64_t last)
{
	if (!f->time_pct)
		return;
	/* as perf: slices of the span from the first to the last sample's time */
	for (unsigned i = 0; i < f->nr_time; i++) {
		double span = (double)(last - first);

		f->t_lo[i] = first + (uint64_t)(span * f->pct_lo[i] / 100);
		f->t_hi[i] = first + (uint64_t)(span * f->pct_hi[i] / 100);
	}
	f->time_pct = false;
}

bool pmt_sample_filter_match(const struct pmt_sample_filter *f, const struct pmt_spe_sample *s)
{
	if (!in_list(&f->cpus, s->cpu) || !in_list(&f->tids, (uint64_t)(int64_t)s->tid) ||
	    (f->pids.n && (s->pid < 0 || !in_list(&f->pids, (uint64_t)s->pid))))
		return false;
	if (f->nr_time) {
		for (unsigned i = 0; i < f->nr_time; i++)
			if (s->time >= f->t_lo[i] && s->time <= f->t_hi[i])
				return true;
		return false;
	}
	return true;
}

bool pmt_sample_filter_active(const struct pmt_sample_filter *f)
{
	return f->cpus.n || f->pids.n || f->tids.n || f->nr_time;
}

int pmt_sample_filter_check(const struct pmt_sample_filter *f, const struct pmt_trace_meta *m,
			    struct pmt_diag *diag)
{
	bool seen[PMT_TYPE_BREAKPOINT + 1] = { false };

	if (!f->cpus.n || !m)
		return 0;
	/* perf_session__cpu_bitmap(): the first event of each generic type must sample its
	 * CPU, or --cpu could only ever select nothing; PMU types (SPE's) are not checked */
	for (uint32_t i = 0; i < m->nr_attrs; i++) {
		const struct pmt_trace_attr *a = &m->attrs[i];

		if (a->type > PMT_TYPE_BREAKPOINT || seen[a->type])
			continue;
		seen[a->type] = true;
		if (!(a->sample_type & PMT_SAMPLE_CPU))
			return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
					    "File does not contain CPU events. Remove -C option "
					    "to proceed.");
	}
	return 0;
}
