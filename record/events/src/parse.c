/* perf's event syntax (tools/perf/util/parse-events.{l,y}) for the recorder */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/events.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} generic[] = {
	{ "cpu-clock", PMT_TYPE_SOFTWARE, PMT_SW_CPU_CLOCK },
	{ "task-clock", PMT_TYPE_SOFTWARE, PMT_SW_TASK_CLOCK },
	{ "page-faults", PMT_TYPE_SOFTWARE, PMT_SW_PAGE_FAULTS },
	{ "faults", PMT_TYPE_SOFTWARE, PMT_SW_PAGE_FAULTS },
	{ "context-switches", PMT_TYPE_SOFTWARE, PMT_SW_CONTEXT_SWITCHES },
	{ "cs", PMT_TYPE_SOFTWARE, PMT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PMT_TYPE_SOFTWARE, PMT_SW_CPU_MIGRATIONS },
	{ "migrations", PMT_TYPE_SOFTWARE, PMT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PMT_TYPE_SOFTWARE, PMT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PMT_TYPE_SOFTWARE, PMT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PMT_TYPE_SOFTWARE, PMT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PMT_TYPE_SOFTWARE, PMT_SW_EMULATION_FAULTS },
	{ "dummy", PMT_TYPE_SOFTWARE, PMT_SW_DUMMY },
	{ "bpf-output", PMT_TYPE_SOFTWARE, PMT_SW_BPF_OUTPUT },
	{ "cgroup-switches", PMT_TYPE_SOFTWARE, PMT_SW_CGROUP_SWITCHES },
	{ "cycles", PMT_TYPE_HARDWARE, 0 },
	{ "cpu-cycles", PMT_TYPE_HARDWARE, 0 },
	{ "instructions", PMT_TYPE_HARDWARE, 1 },
	{ "cache-references", PMT_TYPE_HARDWARE, 2 },
	{ "cache-misses", PMT_TYPE_HARDWARE, 3 },
	{ "branch-instructions", PMT_TYPE_HARDWARE, 4 },
	{ "branches", PMT_TYPE_HARDWARE, 4 },
	{ "branch-misses", PMT_TYPE_HARDWARE, 5 },
	{ "bus-cycles", PMT_TYPE_HARDWARE, 6 },
	{ "stalled-cycles-frontend", PMT_TYPE_HARDWARE, 7 },
	{ "stalled-cycles-backend", PMT_TYPE_HARDWARE, 8 },
	{ "ref-cycles", PMT_TYPE_HARDWARE, 9 },
};
#define N_GENERIC (sizeof(generic) / sizeof(generic[0]))

/* perf's own terms, listed after a PMU's formats when a term is unknown */
static const char perf_terms[] = "config,config1,config2,config3,config4,name,period,freq";

struct pmt_evsel *pmt_evlist_add(struct pmt_evlist *l)
{
	if (l->nr == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 8;
		struct pmt_evsel *n = realloc(l->ev, cap * sizeof(*n));

		if (!n)
			return NULL;
		l->ev = n;
		l->cap = cap;
	}
	memset(&l->ev[l->nr], 0, sizeof(l->ev[0]));
	l->ev[l->nr].attr.size = PMT_ATTR_SIZE_VER9;
	l->ev[l->nr].leader = l->nr;
	l->ev[l->nr].nr_members = 1;
	return &l->ev[l->nr++];
}

void pmt_evlist_to_front(struct pmt_evlist *l, uint32_t i)
{
	struct pmt_evsel e;

	if (!i || i >= l->nr)
		return;
	e = l->ev[i];
	memmove(&l->ev[1], &l->ev[0], i * sizeof(e));
	l->ev[0] = e;
	/* indices below i moved up by one; i itself is now 0 */
	for (uint32_t k = 0; k < l->nr; k++) {
		uint32_t *ld = &l->ev[k].leader;

		*ld = *ld == i ? 0 : *ld < i ? *ld + 1 : *ld;
	}
}

void pmt_evlist_fini(struct pmt_evlist *l)
{
	free(l->ev);
	memset(l, 0, sizeof(*l));
}

static uint64_t *config_word(struct pmt_perf_attr *a, unsigned w)
{
	switch (w) {
	case 0: return &a->config;
	case 1: return &a->config1;
	case 2: return &a->config2;
	case 3: return &a->config3;
	default: return &a->config4;
	}
}

void pmt_evsel_set_config_if_unset(struct pmt_evsel *e, const char *term, uint64_t value)
{
	const struct pmt_pmu_format *f = e->pmu ? pmt_pmu_format_find(e->pmu, term) : NULL;
	uint64_t cfg[5];

	if (!f || (e->config_set[f->word] & pmt_pmu_format_mask(f)))
		return;
	for (unsigned w = 0; w < 5; w++)
		cfg[w] = *config_word(&e->attr, w);
	if (pmt_pmu_format_apply(f, value, cfg, NULL) == 0)
		*config_word(&e->attr, f->word) = cfg[f->word];
}

bool pmt_evsel_term_set(const struct pmt_evsel *e, const char *term)
{
	const struct pmt_pmu_format *f = e->pmu ? pmt_pmu_format_find(e->pmu, term) : NULL;

	return f && (*config_word((struct pmt_perf_attr *)&e->attr, f->word) &
		     pmt_pmu_format_mask(f));
}

static int parse_value(const char *s, size_t n, uint64_t *v)
{
	char buf[32];
	char *end;

	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	*v = strtoull(buf, &end, 0);
	return *end || buf[0] == '-' ? -1 : 0;
}

static int modifiers(struct pmt_evsel *e, const char *event, const char *m,
		     struct pmt_diag *diag)
{
	bool u = false, k = false, h = false;
	unsigned precise = 0;

	for (; *m; m++) {
		switch (*m) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		case 'p': precise++; break;
		case 'I': e->attr.flags |= PMT_ATTR_FLAG_EXCLUDE_IDLE; break;
		case 'D': e->attr.flags |= PMT_ATTR_FLAG_PINNED; break;
		default:
			return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
					    "event '%s': unknown modifier '%c' (modifiers: u k h "
					    "p pp ppp I D)", event, *m);
		}
	}
	if (precise > 3)
		return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
				    "event '%s': precise_ip is at most 3 (ppp)", event);
	if (u || k || h) {
		/* perf: naming a privilege level excludes the ones not named */
		e->excl_mods = true;
		e->attr.flags &= ~(PMT_ATTR_FLAG_EXCLUDE_USER | PMT_ATTR_FLAG_EXCLUDE_KERNEL |
				   PMT_ATTR_FLAG_EXCLUDE_HV);
		if (!u)
			e->attr.flags |= PMT_ATTR_FLAG_EXCLUDE_USER;
		if (!k)
			e->attr.flags |= PMT_ATTR_FLAG_EXCLUDE_KERNEL;
		if (!h)
			e->attr.flags |= PMT_ATTR_FLAG_EXCLUDE_HV;
	}
	e->attr.flags |= (uint64_t)precise << PMT_ATTR_PRECISE_SHIFT;
	return 0;
}

static int unknown_term(const struct pmt_pmu *pmu, const char *event, const char *t, size_t n,
			struct pmt_diag *diag)
{
	char valid[1024];
	size_t len = 0;

	valid[0] = 0;
	for (uint32_t i = 0; i < pmu->nr_formats && len < sizeof(valid) - 64; i++)
		len += (size_t)snprintf(valid + len, sizeof(valid) - len, "%s,",
					pmu->formats[i].name);
	return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
			    "event '%s': unknown term '%.*s' for PMU '%s'; valid terms: %s%s", event,
			    (int)n, t, pmu->name, valid, perf_terms);
}

/* one term "name=value" or "flag" of a PMU event */
static int term(struct pmt_evsel *e, const char *event, const char *t, size_t n,
		struct pmt_diag *diag)
{
	const char *eq = memchr(t, '=', n);
	size_t kl = eq ? (size_t)(eq - t) : n;
	uint64_t v = 1, max, cfg[5];
	char key[48];
	const struct pmt_pmu_format *f;

	if (!kl || kl >= sizeof(key))
		return unknown_term(e->pmu, event, t, kl, diag);
	memcpy(key, t, kl);
	key[kl] = 0;
	/* a name is text, not a number */
	if (!strcmp(key, "name")) {
		if (!eq)
			return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
					    "event '%s': name needs a value", event);
		snprintf(e->name, sizeof(e->name), "%.*s", (int)(n - kl - 1), eq + 1);
		return 0;
	}
	if (eq && parse_value(eq + 1, n - kl - 1, &v) < 0)
		return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
				    "event '%s': term %s: '%.*s' is not a number", event, key,
				    (int)(n - kl - 1), eq + 1);
	if (!strcmp(key, "period")) {
		e->attr.sample_period = v;
		e->attr.flags &= ~PMT_ATTR_FLAG_FREQ;
		e->period_set = true;
		return 0;
	}
	if (!strcmp(key, "freq")) {
		e->attr.sample_period = v;
		e->attr.flags |= PMT_ATTR_FLAG_FREQ;
		e->freq_set = true;
		return 0;
	}
	for (unsigned w = 0; w < 5; w++) {
		static const char *const words[] = { "config", "config1", "config2", "config3",
						     "config4" };

		if (!strcmp(key, words[w])) {
			*config_word(&e->attr, w) = v;
			e->config_set[w] = ~0ULL;
			return 0;
		}
	}
	f = pmt_pmu_format_find(e->pmu, key);
	if (!f)
		return unknown_term(e->pmu, event, t, kl, diag);
	for (unsigned w = 0; w < 5; w++)
		cfg[w] = *config_word(&e->attr, w);
	if (pmt_pmu_format_apply(f, v, cfg, &max) < 0)
		return pmt_diag_set(diag, -PMT_ERANGE, NULL, PMT_DIAG_NO_OFFSET,
				    "event '%s': value too big for format (%s), maximum is %llu",
				    event, key, (unsigned long long)max);
	*config_word(&e->attr, f->word) = cfg[f->word];
	e->config_set[f->word] |= pmt_pmu_format_mask(f);
	return 0;
}

/* PMUs that "name" means: itself, or every NAME_N when no PMU is called NAME */
static bool pmu_matches(const char *pmu, const char *name, size_t n)
{
	if (strlen(pmu) == n && !strncmp(pmu, name, n))
		return true;
	if (strncmp(pmu, name, n) || pmu[n] != '_' || !pmu[n + 1])
		return false;
	for (const char *p = pmu + n + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static int pmu_event(struct pmt_evlist *l, const struct pmt_pmus *pmus, const char *ev,
		     size_t len, struct pmt_diag *diag)
{
	const char *s1 = memchr(ev, '/', len);
	const char *s2 = memchr(s1 + 1, '/', len - (size_t)(s1 + 1 - ev));
	size_t pl = (size_t)(s1 - ev);
	char event[256], mods[16];
	bool exact = false;
	uint32_t found = 0;

	snprintf(event, sizeof(event), "%.*s", (int)len, ev);
	if (!s2)
		return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
				    "event '%s': no closing '/' after the terms", event);
	{
		const char *m = s2 + 1;
		size_t ml = len - (size_t)(m - ev);

		if (ml && *m == ':')
			m++, ml--;
		if (ml >= sizeof(mods))
			return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
					    "event '%s': too many modifiers", event);
		memcpy(mods, m, ml);
		mods[ml] = 0;
	}
	for (uint32_t i = 0; i < pmus->nr; i++)
		if (strlen(pmus->pmu[i].name) == pl && !strncmp(pmus->pmu[i].name, ev, pl))
			exact = true;
	for (uint32_t i = 0; i < pmus->nr; i++) {
		const struct pmt_pmu *pmu = &pmus->pmu[i];
		struct pmt_evsel *e;
		const char *t = s1 + 1;
		int rc;

		if (exact ? strlen(pmu->name) != pl || strncmp(pmu->name, ev, pl)
			  : !pmu_matches(pmu->name, ev, pl))
			continue;
		e = pmt_evlist_add(l);
		if (!e)
			return -PMT_ENOMEM;
		found++;
		e->pmu = pmu;
		e->attr.type = pmu->type;
		snprintf(e->name, sizeof(e->name), "%s/%.*s/%s", pmu->name, (int)(s2 - s1 - 1),
			 s1 + 1, mods);
		while (t < s2) {
			const char *c = memchr(t, ',', (size_t)(s2 - t));
			size_t tl = c ? (size_t)(c - t) : (size_t)(s2 - t);

			if (tl && (rc = term(e, event, t, tl, diag)) < 0)
				return rc;
			t += tl + 1;
		}
		if ((rc = modifiers(e, event, mods, diag)) < 0)
			return rc;
	}
	if (!found) {
		char names[1024];
		size_t n = 0;

		names[0] = 0;
		for (uint32_t i = 0; i < pmus->nr && n < sizeof(names) - 64; i++)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? " " : "",
					      pmus->pmu[i].name);
		return pmt_diag_set(diag, -PMT_ENO_PMU, NULL, PMT_DIAG_NO_OFFSET,
				    "event '%s': no PMU '%.*s' in %s/bus/event_source/devices "
				    "(there: %s)%s", event, (int)pl, ev, pmus->root,
				    n ? names : "none",
				    !strncmp(ev, "arm_spe", 7)
					    ? ". Arm SPE needs a CPU with SPE (a VM must expose it), "
					      "a kernel with CONFIG_ARM_SPE_PMU and the arm_spe_pmu "
					      "module loaded; if dmesg says 'profiling buffer "
					      "inaccessible', boot with kpti=off"
					    : "");
	}
	return 0;
}

static int generic_event(struct pmt_evlist *l, const char *ev, size_t len, struct pmt_diag *diag)
{
	const char *colon = memchr(ev, ':', len);
	size_t nl = colon ? (size_t)(colon - ev) : len;
	char event[256], mods[16];
	struct pmt_evsel *e;

	snprintf(event, sizeof(event), "%.*s", (int)len, ev);
	for (size_t i = 0; i < N_GENERIC; i++) {
		if (strlen(generic[i].name) != nl || strncmp(generic[i].name, ev, nl))
			continue;
		if (colon && len - nl - 1 >= sizeof(mods))
			return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
					    "event '%s': too many modifiers", event);
		snprintf(mods, sizeof(mods), "%.*s", colon ? (int)(len - nl - 1) : 0,
			 colon ? colon + 1 : "");
		e = pmt_evlist_add(l);
		if (!e)
			return -PMT_ENOMEM;
		e->attr.type = generic[i].type;
		e->attr.config = generic[i].config;
		snprintf(e->name, sizeof(e->name), "%.*s", (int)(sizeof(e->name) - 1), event);
		return modifiers(e, event, mods, diag);
	}
	return pmt_diag_set(diag, -PMT_ENOT_FOUND, NULL, PMT_DIAG_NO_OFFSET,
			    "event '%s': not a generic event (cpu-clock, task-clock, dummy, "
			    "cycles, instructions, ...) and no PMU/term/ form", event);
}

int pmt_events_parse(struct pmt_evlist *l, const struct pmt_pmus *pmus, const char *str,
		     struct pmt_diag *diag)
{
	const char *p = str;

	if (!*p)
		return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
				    "empty event string");
	while (*p) {
		const char *q = p;
		bool inside = false;
		int rc;

		/* commas between the slashes separate terms, not events */
		while (*q && (inside || *q != ',')) {
			if (*q == '/')
				inside = !inside;
			q++;
		}
		if (*p == '{' || memchr(p, '{', (size_t)(q - p)))
			return pmt_diag_set(diag, -PMT_EUNSUPPORTED, NULL, PMT_DIAG_NO_OFFSET,
					    "event groups {...} are not supported yet: '%s'", str);
		if (q == p)
			return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
					    "empty event in '%s'", str);
		rc = memchr(p, '/', (size_t)(q - p)) ? pmu_event(l, pmus, p, (size_t)(q - p), diag)
						     : generic_event(l, p, (size_t)(q - p), diag);
		if (rc < 0)
			return rc;
		p = *q ? q + 1 : q;
	}
	return 0;
}
