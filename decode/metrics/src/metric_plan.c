/* Metric evaluation plans: compile the selected metrics and everything they reference
 * (binding and evaluation: metric_eval.c).
 *
 * Slots: [0, nr_inputs) hold inputs (counts, :R values, tool events); nr_inputs + k holds
 * the value of compiled metric k. Metrics are compiled depth first, so a metric always
 * comes after the metrics it references and one pass in order evaluates each once (the
 * cache perf keeps in its expr context). A reference to a metric still being compiled is
 * a cycle.
 *
 * Each metric is compiled once, also when it fails: its failure is remembered with the
 * problem that caused it, so a table of n metrics costs O(n) compilations whatever its
 * shape (chains, diamonds, cycles), and a problem shared by many metrics (a cycle, a
 * metric that does not parse) is reported once with the number of metrics it took along.
 * A chain deeper than perf's nesting limit is compiled from its far end first (the C
 * stack never holds more than that limit), so a metric's nesting, and whether perf would
 * refuse it, does not depend on the order metrics are compiled in; the metrics unwound
 * on the way are compiled once more.
 */
#define _GNU_SOURCE /* strcasestr */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "expr_priv.h"
#include "metric_plan_priv.h"
#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

static int add_input(struct pmt_metric_plan *p, const char *id, uint8_t kind, double scale)
{
	struct pmt_metric_input *in;
	struct pmt_event_key key;
	int have_key = pmt_event_key_parse(id, &key) == 0;

	if (have_key && key.retire_latency && kind == PMT_MIN_COUNT)
		kind = PMT_MIN_RETLAT;
	for (size_t i = 0; i < p->nr_in; i++)
		if (p->in[i].kind == kind && !strcmp(p->in[i].id, id))
			return (int)i;
	if (p->nr_in == p->cap_in) {
		size_t cap = p->cap_in ? p->cap_in * 2 : 32;

		in = realloc(p->in, cap * sizeof(*in));
		if (!in)
			return -PMT_ENOMEM;
		p->in = in;
		p->cap_in = cap;
	}
	in = &p->in[p->nr_in];
	memset(in, 0, sizeof(*in));
	in->id = strdup(id);
	if (!in->id)
		return -PMT_ENOMEM;
	in->kind = kind;
	in->scale = scale;
	in->count_idx = -1;
	in->value = NAN;
	if (have_key)
		in->key = key;
	return (int)p->nr_in++;
}

static int compile_metric(struct pmt_metric_plan *p, size_t idx);
static bool is_root(const struct pmt_metric_plan *p, size_t idx);
static int compile_root(struct pmt_metric_plan *p, size_t idx);
static void cycle_error(struct pmt_metric_plan *p, size_t idx);

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)(*s | 0x20)) * 0x100000001b3ULL; /* ASCII case folded */
	return h;
}

static int index_names(struct pmt_metric_plan *p)
{
	const struct pmt_metric_set *ms = p->ms;
	size_t cap = 16;

	while (cap < 2 * (2 * ms->nr + 1))
		cap *= 2;
	p->hash = calloc(cap, sizeof(*p->hash));
	if (!p->hash)
		return -PMT_ENOMEM;
	p->hash_mask = cap - 1;
	for (size_t i = 0; i < ms->nr; i++) {
		const char *names[2] = { ms->m[i].name, ms->m[i].legacy_name };

		for (int k = 0; k < 2; k++) {
			size_t h;

			if (!names[k])
				continue;
			h = name_hash(names[k]) & p->hash_mask;
			while (p->hash[h])
				h = (h + 1) & p->hash_mask;
			p->hash[h] = (int)i + 1;
		}
	}
	return 0;
}

/* By name (or Intel LegacyName); in hybrid tables the same name exists once per PMU and
 * a reference means the one of the referring metric's PMU, as perf's per-PMU tables do.
 * The first such metric in table order wins, as a linear search would find it. */
static int find_metric(const struct pmt_metric_plan *p, const char *name, int legacy,
		       const char *pmu)
{
	int any = -PMT_ENOT_FOUND, best = -PMT_ENOT_FOUND;

	for (size_t h = name_hash(name) & p->hash_mask; p->hash[h]; h = (h + 1) & p->hash_mask) {
		int i = p->hash[h] - 1;
		const struct pmt_metric *m = &p->ms->m[i];

		if (strcasecmp(m->name, name) &&
		    !(legacy && m->legacy_name && !strcasecmp(m->legacy_name, name)))
			continue;
		if (!pmu || !m->pmu || !strcmp(pmu, m->pmu)) {
			if (best < 0 || i < best)
				best = i;
		} else if (any < 0 || i < any) {
			any = i;
		}
	}
	return best >= 0 ? best : any;
}

/* Intel constants, named as in the perfmon files. */
static int intel_constant(struct pmt_metric_plan *p, const char *name, double *val)
{
	const struct pmt_expr_ctx *c = &p->ctx;
	char *end;
	double d = strtod(name, &end);

	if (end != name && !*end) {
		*val = d;
		return PMT_EXPR_CONST;
	}
	if (!strcasecmp(name, "SYSTEM_TSC_FREQ"))
		*val = c->system_tsc_freq;
	else if (!strcasecmp(name, "HYPERTHREADING_ON"))
		*val = c->smt_on;
	else if (!strcasecmp(name, "THREADS_PER_CORE"))
		*val = c->smt_on != 0 ? 2 : 1;
	else if (!strcasecmp(name, "SOCKET_COUNT"))
		*val = c->num_packages;
	else if (!strcasecmp(name, "CHAS_PER_SOCKET"))
		*val = c->chas_per_socket;
	else if (strstr(name, "cpus.count"))
		*val = c->num_cpus;
	else if (!strcasecmp(name, "DURATIONTIMEINMILLISECONDS"))
		return add_input(p, "duration_time", PMT_MIN_DURATION, 1e-6);
	else if (!strcasecmp(name, "DURATIONTIMEINSECONDS"))
		return add_input(p, "duration_time", PMT_MIN_DURATION, 1e-9);
	else
		return add_input(p, name, PMT_MIN_COUNT, 1); /* e.g. supplied in the counts */
	return PMT_EXPR_CONST;
}

/* A hybrid table's metric counts its events on its own core PMU (perf stat evaluates the
 * cpu_atom row with cpu_atom/instructions/, not with cpu_core's count): "instructions:u"
 * of a cpu_atom metric is "cpu_atom/instructions/u". :R events stay as written (they are
 * sampled on cpu_core only, as perf's tpebs does). */
static const char *own_pmu_event(const struct pmt_metric *m, const char *id, char *buf,
				 size_t cap)
{
	const char *colon = strchr(id, ':');
	int n;

	if (!hybrid_core_pmu(m->pmu) || strpbrk(id, "/@") || (colon && strchr(colon, 'R')))
		return id;
	n = colon ? snprintf(buf, cap, "%s/%.*s/%s", m->pmu, (int)(colon - id), id, colon + 1)
		  : snprintf(buf, cap, "%s/%s/", m->pmu, id);
	return n > 0 && (size_t)n < cap ? buf : id;
}

static int resolve(void *arg, const char *id, enum pmt_expr_ref_kind kind, double *val)
{
	struct pmt_metric_plan *p = arg;
	const struct pmt_metric *m = &p->ms->m[p->cur_metric];
	int j;

	if (m->intel) {
		char **al = p->in_threshold ? m->talias : m->alias;
		char **to = p->in_threshold ? m->talias_to : m->alias_to;
		size_t n = p->in_threshold ? m->nr_talias : m->nr_alias;

		for (size_t i = 0; i < n; i++) {
			if (strcmp(al[i], id))
				continue;
			if (p->in_threshold)
				id = to[i]; /* a metric, by LegacyName */
			else if (to[i][0] == '=')
				return intel_constant(p, to[i] + 1, val);
			else
				id = to[i];
			break;
		}
		if (!strcasecmp(id, "DURATIONTIMEINSECONDS") ||
		    !strcasecmp(id, "DURATIONTIMEINMILLISECONDS"))
			return intel_constant(p, id, val);
	}
	if (kind == PMT_EXPR_REF_VALUE && (j = find_metric(p, id, m->intel, m->pmu)) >= 0) {
		int r;
		int save = p->cur_metric, save_th = p->in_threshold;

		if (p->state[j] == ST_BUSY) {
			cycle_error(p, (size_t)j);
			p->cause = -1;
			return -PMT_ECYCLE;
		}
		r = compile_metric(p, (size_t)j);
		p->cur_metric = save;
		p->in_threshold = save_th;
		if (r < 0)
			return r;
		return (int)(METRIC_REF | (unsigned)r);
	}
	if (kind == PMT_EXPR_REF_SOURCE_COUNT)
		return add_input(p, id, PMT_MIN_SOURCES, 1);
	if (kind == PMT_EXPR_REF_HAS_EVENT)
		return add_input(p, id, PMT_MIN_HAS_EVENT, 1);
	if (!strcmp(id, "duration_time"))
		return add_input(p, id, PMT_MIN_DURATION, 1e-9); /* perf: seconds in metrics */
	{
		char own[sizeof(((struct pmt_event_key *)0)->pmu) + 256];

		return add_input(p, own_pmu_event(m, id, own, sizeof(own)), PMT_MIN_COUNT, 1);
	}
}

static int compile_one(struct pmt_metric_plan *p, size_t idx, const char *text, int thresh,
		       struct pmt_expr **out)
{
	const struct pmt_metric *m = &p->ms->m[idx];
	struct pmt_expr_error e;
	int r;

	p->cur_metric = (int)idx;
	p->in_threshold = thresh;
	r = pmt_expr_compile(text, m->intel ? PMT_EXPR_INTEL : 0, &p->ctx, resolve, p, out, &e);
	if (r < 0 && r != -PMT_ECYCLE && p->cause < 0) /* else a reference brought its own */
		snprintf(p->err, sizeof(p->err), "metric %s%s: column %d: %s", m->name,
			 thresh ? " (threshold)" : "", e.column, e.msg);
	return r;
}

/* Remember the problem in p->err (once) and return its number. */
static int add_problem(struct pmt_metric_plan *p, int rc)
{
	if (p->nr_prob == p->cap_prob) {
		size_t cap = p->cap_prob ? 2 * p->cap_prob : 8;
		struct plan_problem *n = realloc(p->prob, cap * sizeof(*n));

		if (!n)
			return -1;
		p->prob = n;
		p->cap_prob = cap;
	}
	p->prob[p->nr_prob] = (struct plan_problem){ .msg = strdup(p->err), .rc = rc };
	return p->prob[p->nr_prob].msg ? (int)p->nr_prob++ : -1;
}

/* "m0 -> m1 -> ... -> m999 -> m1000": the chain being compiled from stack[from] on, then
 * idx; its ends only when long. */
static void write_chain(struct pmt_metric_plan *p, size_t from, size_t idx, size_t len)
{
	size_t n = p->depth - from;

	for (size_t i = 0; i <= n && len < sizeof(p->err); i++) {
		size_t at = i < n ? p->stack[from + i] : idx;

		if (n > 6 && i == 3) {
			len += (size_t)snprintf(p->err + len, sizeof(p->err) - len, " -> ...");
			i = n - 3;
			continue;
		}
		len += (size_t)snprintf(p->err + len, sizeof(p->err) - len, "%s%s", i ? " -> " : "",
					p->ms->m[at].name);
	}
}

static void nesting_error(struct pmt_metric_plan *p, size_t idx)
{
	size_t len;

	len = (size_t)snprintf(p->err, sizeof(p->err), "metric %s: metrics nested more than %d deep "
			       "(perf's limit): ", p->ms->m[p->stack[0]].name, METRIC_MAX_NESTING);
	write_chain(p, 0, idx, len);
}

/* "metric a: refers to itself: a -> b -> c -> a", from where the cycle starts */
static void cycle_error(struct pmt_metric_plan *p, size_t idx)
{
	size_t from = 0, len;

	while (from < p->depth && p->stack[from] != idx)
		from++;
	len = (size_t)snprintf(p->err, sizeof(p->err), "metric %s: refers to itself: ",
			       p->ms->m[idx].name);
	write_chain(p, from < p->depth ? from : 0, idx, len);
}

/* The metric being compiled refers to compiled metric k. */
static void note_reference(struct pmt_metric_plan *p, int k)
{
	if (p->pm[k].height > p->sub_height) {
		p->sub_height = p->pm[k].height;
		p->sub_deepest = k;
	}
}

/* The nesting error of a metric whose chain runs through compiled metrics: idx, then the
 * deepest reference of each, its ends only. */
static void height_error(struct pmt_metric_plan *p, size_t idx, int deepest)
{
	size_t len, n = 0, total = 1;

	for (int k = deepest; k >= 0; k = p->pm[k].deepest)
		total++;
	len = (size_t)snprintf(p->err, sizeof(p->err), "metric %s: metrics nested more than %d deep "
			       "(perf's limit): %s", p->ms->m[idx].name, METRIC_MAX_NESTING,
			       p->ms->m[idx].name);
	for (int k = deepest; k >= 0 && len < sizeof(p->err); k = p->pm[k].deepest) {
		n++;
		if (n == 3 && total > 7) {
			len += (size_t)snprintf(p->err + len, sizeof(p->err) - len, " -> ...");
			while (n < total - 4 && p->pm[k].deepest >= 0) {
				k = p->pm[k].deepest;
				n++;
			}
			continue;
		}
		len += (size_t)snprintf(p->err + len, sizeof(p->err) - len, " -> %s",
					p->ms->m[p->pm[k].set_idx].name);
	}
}

static int compile_metric(struct pmt_metric_plan *p, size_t idx)
{
	const struct pmt_metric *m = &p->ms->m[idx];
	struct pmt_expr *e = NULL;
	size_t k, height, outer_height;
	int r, deepest, outer_deepest;

	if (p->state[idx] >= 0) {
		note_reference(p, p->state[idx]);
		return p->state[idx];
	}
	if (p->state[idx] <= ST_FAILED) {
		int pr = ST_FAILED - p->state[idx];

		p->cause = pr;
		return p->prob[pr].rc;
	}
	if (p->depth == METRIC_MAX_NESTING && !is_root(p, idx)) {
		/* unwind, compile idx from the bottom of the stack, then come back */
		p->deeper = true;
		p->deeper_idx = idx;
		return -PMT_ERANGE;
	}
	if (p->depth == METRIC_MAX_NESTING) {
		/* idx waits already: the chain through it is too deep, or a cycle */
		nesting_error(p, idx);
		p->cause = add_problem(p, -PMT_ERANGE);
		return p->cause < 0 ? -PMT_ENOMEM : -PMT_ERANGE;
	}
	p->state[idx] = ST_BUSY;
	p->stack[p->depth++] = idx;
	p->cause = -1;
	outer_height = p->sub_height;
	outer_deepest = p->sub_deepest;
	p->sub_height = 0;
	p->sub_deepest = -1;
	r = compile_one(p, idx, m->expr, 0, &e);
	p->depth--;
	height = p->sub_height + 1;
	deepest = p->sub_deepest;
	p->sub_height = outer_height;
	p->sub_deepest = outer_deepest;
	if (r >= 0 && height > METRIC_MAX_NESTING) {
		/* reached through metrics compiled before: as deep as perf refuses */
		pmt_expr_free(e);
		height_error(p, idx, deepest);
		r = -PMT_ERANGE;
		p->cause = -1;
	}
	if (r < 0) {
		int pr = p->cause;

		if (r == -PMT_ENOMEM || p->deeper) {
			p->state[idx] = ST_NONE;
			return r;
		}
		if (pr < 0) {
			/* the problem is in this metric (or closes here): the first report */
			pr = add_problem(p, r);
			if (pr < 0) {
				p->state[idx] = ST_NONE;
				return -PMT_ENOMEM;
			}
		}
		p->prob[pr].users++;
		p->state[idx] = ST_FAILED - pr;
		p->cause = pr;
		return r;
	}
	if (p->nr_pm == p->cap_pm) {
		size_t cap = p->cap_pm ? p->cap_pm * 2 : 64;
		struct plan_metric *n = realloc(p->pm, cap * sizeof(*n));

		if (!n) {
			pmt_expr_free(e);
			return -PMT_ENOMEM;
		}
		p->pm = n;
		p->cap_pm = cap;
	}
	k = p->nr_pm++;
	p->pm[k] = (struct plan_metric){ .set_idx = idx, .expr = e, .height = height,
					 .deepest = deepest };
	p->state[idx] = (int)k;
	note_reference(p, (int)k);
	return (int)k;
}

/* Thresholds name their parents (tma_x > 0.1 & tma_parent > 0.2) while parents' values
 * name their children, so thresholds are compiled after every value: a threshold is no
 * part of any value's dependency chain and cannot close a cycle. Compiling one may pull in
 * more metrics, whose thresholds the same loop then handles. */
static int compile_thresholds(struct pmt_metric_plan *p)
{
	for (size_t k = 0; k < p->nr_pm; k++) {
		const struct pmt_metric *m = &p->ms->m[p->pm[k].set_idx];
		struct pmt_expr *t = NULL;
		int r;

		if (!m->threshold || !*m->threshold || p->pm[k].thresh)
			continue;
		/* a metric it names that is deeper than the stack: compiled first, then again */
		do {
			p->deeper = false;
			r = compile_one(p, p->pm[k].set_idx, m->threshold, 1, &t);
		} while (r < 0 && p->deeper && (r = compile_root(p, p->deeper_idx)) != -PMT_ENOMEM);
		if (r < 0 && (r == -PMT_ENOMEM || !p->lenient))
			return r;
		if (r < 0) {
			pmt_warn("%s (threshold left out)", p->err);
			p->err[0] = 0;
		}
		p->pm[k].thresh = t;
	}
	return 0;
}

static void relocate(struct pmt_metric_plan *p, struct pmt_expr *e)
{
	if (!e)
		return;
	e->nr_slots = 0;
	for (int i = 0; i < e->nr_ops; i++) {
		struct expr_op *o = &e->ops[i];

		if (o->op != EOP_SLOT)
			continue;
		if (o->slot & METRIC_REF)
			o->slot = (uint32_t)p->nr_in + (o->slot & ~METRIC_REF);
		if ((int)o->slot + 1 > e->nr_slots)
			e->nr_slots = (int)o->slot + 1;
	}
}

static int in_group(const char *groups, const char *g)
{
	size_t n = strlen(g);

	for (const char *s = groups; s && *s;) {
		const char *e = strchr(s, ';');
		size_t l = e ? (size_t)(e - s) : strlen(s);

		if (l == n && !strncasecmp(s, g, n))
			return 1;
		s = e ? e + 1 : NULL;
	}
	return 0;
}

static bool is_root(const struct pmt_metric_plan *p, size_t idx)
{
	for (size_t i = 0; i < p->nr_roots; i++)
		if (p->roots[i] == idx)
			return true;
	return false;
}

/* Compile idx; a chain deeper than the C stack may go is compiled from its far end first
 * (each metric once: compiled metrics are not compiled again). */
static int compile_root(struct pmt_metric_plan *p, size_t idx)
{
	int k = -PMT_EINTERNAL;
	size_t next = idx;

	p->nr_roots = 0;
	for (;;) {
		if (p->nr_roots == p->cap_roots) {
			size_t cap = p->cap_roots ? 2 * p->cap_roots : 8;
			size_t *n = realloc(p->roots, cap * sizeof(*n));

			if (!n)
				return -PMT_ENOMEM;
			p->roots = n;
			p->cap_roots = cap;
		}
		p->roots[p->nr_roots++] = next;
		while (p->nr_roots) {
			p->deeper = false;
			k = compile_metric(p, p->roots[p->nr_roots - 1]);
			if (p->deeper)
				break;
			p->nr_roots--;
		}
		if (!p->deeper)
			return k; /* the last one compiled is idx, at the bottom */
		next = p->deeper_idx;
	}
}

static int select_metric(struct pmt_metric_plan *p, size_t idx)
{
	int k = compile_root(p, idx);

	if (k < 0)
		return k;
	for (size_t i = 0; i < p->nr_sel; i++)
		if (p->sel[i] == (size_t)k)
			return 0;
	p->sel[p->nr_sel++] = (size_t)k;
	return 0;
}

/* Up to three metric names close to `want` (containing it, or a few edits away), the
 * closest first, for the "no metric named" error. */
static void near_names(const struct pmt_metric_set *ms, const char *want, char *out, size_t cap)
{
	struct pmt_near nr;

	pmt_near_init(&nr, want, (unsigned)strlen(want) / 4 + 1, true);
	for (size_t i = 0; i < ms->nr; i++)
		pmt_near_consider(&nr, ms->m[i].name);
	pmt_near_list(&nr, out, cap);
}

int pmt_metric_plan_new(const struct pmt_metric_set *ms, const char *const *select, size_t nsel,
			const struct pmt_expr_ctx *ctx, struct pmt_metric_plan **out,
			struct pmt_diag *diag)
{
	struct pmt_metric_plan *p = calloc(1, sizeof(*p));
	size_t nr_value_in;
	int rc = 0;

	*out = NULL;
	if (!p)
		return pmt_diag_set(diag, -PMT_ENOMEM, NULL, PMT_DIAG_NO_OFFSET, "out of memory");
	p->ms = ms;
	if (ctx)
		p->ctx = *ctx;
	else
		pmt_expr_ctx_default(&p->ctx);
	p->state = malloc((ms->nr + 1) * sizeof(*p->state));
	p->sel = malloc((ms->nr + 1) * sizeof(*p->sel));
	p->stack = malloc(METRIC_MAX_NESTING * sizeof(*p->stack));
	p->cause = -1;
	if (!p->state || !p->sel || !p->stack || index_names(p) < 0) {
		pmt_metric_plan_free(p);
		return pmt_diag_set(diag, -PMT_ENOMEM, NULL, PMT_DIAG_NO_OFFSET, "out of memory");
	}
	for (size_t i = 0; i < ms->nr; i++)
		p->state[i] = ST_NONE;
	p->lenient = !nsel;
	if (!nsel) {
		/* "every metric": one that does not compile is left out, each problem said once */
		for (size_t i = 0; i < ms->nr && rc >= 0; i++) {
			rc = select_metric(p, i);
			if (rc < 0 && rc != -PMT_ENOMEM)
				rc = 0;
		}
		for (size_t k = 0; k < p->nr_prob; k++) {
			if (p->prob[k].users > 1)
				pmt_warn("%s (left out, with %zu metrics that use it)", p->prob[k].msg,
					 p->prob[k].users - 1);
			else
				pmt_warn("%s (left out)", p->prob[k].msg);
		}
		p->err[0] = 0;
	}
	for (size_t s = 0; s < nsel && rc >= 0; s++) {
		int found = 0;

		for (size_t i = 0; i < ms->nr && rc >= 0; i++) {
			if (strcasecmp(ms->m[i].name, select[s]) && !in_group(ms->m[i].groups, select[s]))
				continue;
			found = 1;
			rc = select_metric(p, i);
			if (rc < 0 && rc != -PMT_ENOMEM && p->cause >= 0)
				snprintf(p->err, sizeof(p->err), "%s", p->prob[p->cause].msg);
		}
		if (!found && rc >= 0) {
			char near[256];

			near_names(ms, select[s], near, sizeof(near));
			snprintf(p->err, sizeof(p->err), "no metric or metric group named '%s'%s%s", select[s],
				 near[0] ? "; near names: " : "", near);
			rc = -PMT_ENOT_FOUND;
		}
	}
	nr_value_in = p->nr_in;
	if (rc >= 0)
		rc = compile_thresholds(p);
	for (size_t i = nr_value_in; rc >= 0 && i < p->nr_in; i++)
		p->in[i].threshold_only = 1;
	if (rc >= 0) {
		p->slots = malloc((p->nr_in + p->nr_pm + 1) * sizeof(*p->slots));
		if (!p->slots)
			rc = -PMT_ENOMEM;
	}
	if (rc < 0) {
		/* the compiler's own words, else (out of memory) the code's name */
		pmt_diag_set(diag, rc, NULL, PMT_DIAG_NO_OFFSET, "%s", p->err);
		pmt_metric_plan_free(p);
		return rc;
	}
	for (size_t k = 0; k < p->nr_pm; k++) {
		relocate(p, p->pm[k].expr);
		relocate(p, p->pm[k].thresh);
	}
	*out = p;
	return 0;
}

void pmt_metric_plan_free(struct pmt_metric_plan *p)
{
	if (!p)
		return;
	for (size_t k = 0; k < p->nr_pm; k++) {
		pmt_expr_free(p->pm[k].expr);
		pmt_expr_free(p->pm[k].thresh);
	}
	for (size_t i = 0; i < p->nr_in; i++)
		free(p->in[i].id);
	free(p->in);
	free(p->pm);
	free(p->state);
	free(p->sel);
	free(p->slots);
	free(p->taint);
	free(p->ref_slot);
	free(p->ref_off);
	free(p->ref_select);
	free(p->col_slots);
	free(p->col_stack);
	free(p->col_out);
	free(p->col_failed);
	free(p->stack);
	free(p->roots);
	free(p->hash);
	for (size_t k = 0; k < p->nr_prob; k++)
		free(p->prob[k].msg);
	free(p->prob);
	free(p);
}

size_t pmt_metric_plan_nr_metrics(const struct pmt_metric_plan *p) { return p->nr_sel; }

const struct pmt_metric *pmt_metric_plan_metric(const struct pmt_metric_plan *p, size_t i)
{
	return &p->ms->m[p->pm[p->sel[i]].set_idx];
}

size_t pmt_metric_plan_nr_inputs(const struct pmt_metric_plan *p) { return p->nr_in; }

bool pmt_metric_plan_reads_duration(const struct pmt_metric_plan *p)
{
	for (size_t i = 0; i < p->nr_in; i++)
		if (p->in[i].kind == PMT_MIN_DURATION)
			return true;
	return false;
}

struct pmt_metric_input *pmt_metric_plan_input(struct pmt_metric_plan *p, size_t i)
{
	return &p->in[i];
}
