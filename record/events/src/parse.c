/* perf 7.3's event syntax (tools/perf/util/parse-events.{l,y}, pmus.c, pmu.c) for the
 * recorder: events, PMU terms, aliases, modifiers and groups */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events_priv.h"

/* perf's own terms, listed after a PMU's formats when a term is unknown */
static const char perf_terms[] = "config,config1,config2,config3,config4,name,period,freq";

struct ctx {
	const struct pmt_pmus *pmus;
	const struct pmt_event_table *table;
	const char *cputype;         /* the core PMU events without a PMU go to, or NULL */
	struct pmt_evlist *out;      /* events of this string, in the order written */
	struct pmt_diag *diag;
	char event[256];             /* the event being parsed, for messages */
};

#define FAIL(c, code, ...) pmt_diag_set((c)->diag, code, NULL, PMT_DIAG_NO_OFFSET, __VA_ARGS__)

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

static int modifiers(struct ctx *c, struct pmt_evsel *e, const char *m, size_t n, bool group)
{
	bool u = false, k = false, h = false;
	unsigned precise = 0;

	for (size_t i = 0; i < n; i++) {
		switch (m[i]) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		case 'p': precise++; break;
		case 'P': precise = 3; break; /* perf asks for the most, then falls back */
		case 'G': e->attr.flags |= PMT_ATTR_FLAG_EXCLUDE_HOST; break;
		case 'H': e->attr.flags |= PMT_ATTR_FLAG_EXCLUDE_GUEST; break;
		case 'I': e->attr.flags |= PMT_ATTR_FLAG_EXCLUDE_IDLE; break;
		case 'D': e->attr.flags |= PMT_ATTR_FLAG_PINNED; break;
		case 'e': e->attr.flags |= PMT_ATTR_FLAG_EXCLUSIVE; break;
		case 'S': e->sample_read = true; break;
		case 'R': e->retire_lat = true; break;
		case 'b': break; /* perf stat's BPF counters: nothing in the attr */
		case 'W':
			/* perf takes W on groups only */
			if (group) {
				e->weak_group = true;
				break;
			}
			return FAIL(c, -PMT_EPARSE, "event '%s': W (weak group) is a modifier of "
				    "groups: {a,b}:W", c->event);
		default:
			return FAIL(c, -PMT_EPARSE, "event '%s': unknown modifier '%c' (modifiers: "
				    "u k h p pp ppp P G H I D e S R b, W on a group)", c->event,
				    m[i]);
		}
	}
	if (precise > 3)
		return FAIL(c, -PMT_EPARSE, "event '%s': precise_ip is at most 3 (ppp)", c->event);
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
	if (precise) {
		e->attr.flags &= ~(3ULL << PMT_ATTR_PRECISE_SHIFT);
		e->attr.flags |= (uint64_t)precise << PMT_ATTR_PRECISE_SHIFT;
	}
	return 0;
}

static int unknown_term(struct ctx *c, const struct pmt_pmu *pmu, const char *t, size_t n)
{
	char valid[1024], near[320], want[96];
	size_t len = 0;

	valid[0] = 0;
	for (uint32_t i = 0; i < pmu->nr_formats && len < sizeof(valid) - 64; i++)
		len += (size_t)snprintf(valid + len, sizeof(valid) - len, "%s,",
					pmu->formats[i].name);
	snprintf(want, sizeof(want), "%.*s", (int)n, t);
	pmt_events_suggest(want, c->pmus, c->table, pmu, near, sizeof(near));
	return FAIL(c, -PMT_EPARSE, "event '%s': unknown term '%.*s' for PMU '%s'%s; valid terms: "
		    "%s%s, or an event of the PMU", c->event, (int)n, t, pmu->name, near, valid,
		    perf_terms);
}

/* cycles, L1-dcache-load-misses: the type and config of a built-in hardware event, with the
 * PMU's type in config[63:32] where the kernel takes it (intel-hybrid.txt) */
static bool hardware_name(const struct pmt_pmus *pmus, const struct pmt_pmu *pmu,
			  const char *name, size_t n, uint32_t *type, uint64_t *config)
{
	if (pmt_legacy_find(name, n, type, config)) {
		if (*type != PMT_TYPE_HARDWARE)
			return false;
	} else if (pmt_cache_find(name, n, config)) {
		*type = PMT_TYPE_HW_CACHE;
	} else {
		return false;
	}
	if (pmu && pmus->extended_type)
		*config |= (uint64_t)pmu->type << 32;
	return true;
}

static int terms(struct ctx *c, struct pmt_evsel *e, const char *t, size_t n, int depth);

/* a term that names an event of the PMU: its sysfs alias, a table event or a hardware
 * event; 1 when it is none of them */
static int event_term(struct ctx *c, struct pmt_evsel *e, const char *t, size_t n, int depth)
{
	const struct pmt_pmu_alias *a = pmt_pmu_alias_find(e->pmu, t, n);
	const struct pmt_table_event *te;
	uint32_t type;
	uint64_t config;

	if (a)
		return terms(c, e, a->terms, strlen(a->terms), depth + 1);
	te = c->table ? pmt_event_table_find(c->table, t, n, e->pmu) : NULL;
	if (te)
		return terms(c, e, te->terms, strlen(te->terms), depth + 1);
	if (e->pmu->core && hardware_name(c->pmus, e->pmu, t, n, &type, &config)) {
		e->attr.type = type;
		e->attr.config = config;
		return 0;
	}
	return 1;
}

/* one term "name=value" or "flag" of a PMU event */
static int term(struct ctx *c, struct pmt_evsel *e, const char *t, size_t n, int depth)
{
	const char *eq = memchr(t, '=', n);
	size_t kl = eq ? (size_t)(eq - t) : n;
	uint64_t v = 1, max, cfg[5];
	char key[96];
	const struct pmt_pmu_format *f;
	int rc;

	if (!kl || kl >= sizeof(key))
		return unknown_term(c, e->pmu, t, kl);
	memcpy(key, t, kl);
	key[kl] = 0;
	if (!eq && !pmt_pmu_format_find(e->pmu, key) && depth < 4 &&
	    (rc = event_term(c, e, t, n, depth)) <= 0)
		return rc;
	if (eq && parse_value(eq + 1, n - kl - 1, &v) < 0 && strcmp(key, "name"))
		return FAIL(c, -PMT_EPARSE, "event '%s': term %s: '%.*s' is not a number", c->event,
			    key, (int)(n - kl - 1), eq + 1);
	if (!strcmp(key, "name")) {
		if (!eq)
			return FAIL(c, -PMT_EPARSE, "event '%s': name needs a value", c->event);
		snprintf(e->name, sizeof(e->name), "%.*s", (int)(n - kl - 1), eq + 1);
		e->named = true;
		return 0;
	}
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
			*pmt_evsel_config_word(&e->attr, w) = v;
			e->config_set[w] = ~0ULL;
			return 0;
		}
	}
	f = pmt_pmu_format_find(e->pmu, key);
	if (!f)
		return unknown_term(c, e->pmu, t, kl);
	for (unsigned w = 0; w < 5; w++)
		cfg[w] = *pmt_evsel_config_word(&e->attr, w);
	if (pmt_pmu_format_apply(f, v, cfg, &max) < 0)
		return FAIL(c, -PMT_ERANGE, "event '%s': value too big for format (%s), maximum is "
			    "%llu", c->event, key, (unsigned long long)max);
	/* perf packs a core PMU's terms over what is there (pmu->perf_event_attr_init_default
	 * unset: an alias's ldlat=3 and ldlat=30 give 31), other PMUs' replace the bits */
	if (e->pmu->core)
		cfg[f->word] |= *pmt_evsel_config_word(&e->attr, f->word);
	*pmt_evsel_config_word(&e->attr, f->word) = cfg[f->word];
	e->config_set[f->word] |= pmt_pmu_format_mask(f);
	return 0;
}

/* comma-separated terms */
static int terms(struct ctx *c, struct pmt_evsel *e, const char *t, size_t n, int depth)
{
	const char *end = t + n;

	while (t < end) {
		const char *comma = memchr(t, ',', (size_t)(end - t));
		size_t tl = comma ? (size_t)(comma - t) : (size_t)(end - t);
		int rc;

		while (tl && isspace((unsigned char)*t))
			t++, tl--;
		if (tl && (rc = term(c, e, t, tl, depth)) < 0)
			return rc;
		t += tl + 1;
	}
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

static bool is_topdown(const struct pmt_evsel *e, const char *name, size_t n)
{
	/* the PERF_METRICS events exist where the PMU lists slots (Ice Lake and later) */
	return e->pmu && e->pmu->core && pmt_pmu_alias_find(e->pmu, "slots", 5) &&
	       ((n == 5 && !strncasecmp(name, "slots", 5)) ||
		(n > 8 && !strncasecmp(name, "topdown-", 8)));
}

/* perf's arch_is_topdown_slots(): a table's TOPDOWN.SLOTS is the slots event by its
 * encoding (raw config 0x400 on a PERF_METRICS PMU), whatever its name */
static bool is_slots_encoding(const struct pmt_evsel *e)
{
	return e->pmu && e->pmu->core && pmt_pmu_alias_find(e->pmu, "slots", 5) &&
	       e->attr.type == PMT_TYPE_RAW && e->attr.config == 0x400 && !e->attr.config1;
}

static struct pmt_evsel *new_event(struct ctx *c, const struct pmt_pmu *pmu)
{
	struct pmt_evsel *e = pmt_evlist_add(c->out);

	if (e && pmu) {
		e->pmu = pmu;
		e->attr.type = pmu->type;
	}
	return e;
}

/* perf's "EVENT/terms/" where EVENT is no PMU but an event of the table (a metric's
 * OCR.DEMAND_RFO.L3_MISS@offcore_rsp\=0x103b800002@): the event on each core PMU with
 * those terms first, so the table's own terms come after them and win, as perf 7.3 adds
 * them (its attr carries the table's offcore_rsp). Returns the events made, 0 for none. */
static int table_event_terms(struct ctx *c, const char *ev, size_t pl, const char *body,
			     size_t bl, const char *m, size_t ml)
{
	int found = 0;

	for (uint32_t i = 0; c->table && i < c->pmus->nr; i++) {
		const struct pmt_pmu *pmu = &c->pmus->pmu[i];
		struct pmt_evsel *e;
		int rc;

		if (!pmu->core || !pmt_event_table_find(c->table, ev, pl, pmu))
			continue;
		if (!(e = new_event(c, pmu)))
			return -PMT_ENOMEM;
		found++;
		snprintf(e->name, sizeof(e->name), "%.*s/%.*s/%.*s", (int)pl, ev, (int)bl, body,
			 (int)ml, m);
		if ((rc = terms(c, e, body, bl, 0)) < 0 ||
		    (rc = event_term(c, e, ev, pl, 0)) < 0 || (rc = modifiers(c, e, m, ml, false)) < 0)
			return rc;
	}
	return found;
}

static int pmu_event(struct ctx *c, const char *ev, size_t len)
{
	const char *s1 = memchr(ev, '/', len);
	const char *s2 = memchr(s1 + 1, '/', len - (size_t)(s1 + 1 - ev));
	size_t pl = (size_t)(s1 - ev), ml;
	const char *m;
	bool exact = false;
	int found = 0;
	const struct pmt_pmus *pmus = c->pmus;

	if (!s2)
		return FAIL(c, -PMT_EPARSE, "event '%s': no closing '/' after the terms", c->event);
	m = s2 + 1;
	ml = len - (size_t)(m - ev);
	if (ml && *m == ':')
		m++, ml--;
	for (uint32_t i = 0; i < pmus->nr; i++)
		if (strlen(pmus->pmu[i].name) == pl && !strncmp(pmus->pmu[i].name, ev, pl))
			exact = true;
	for (uint32_t i = 0; i < pmus->nr; i++) {
		const struct pmt_pmu *pmu = &pmus->pmu[i];
		const char *body = s1 + 1;
		size_t bl = (size_t)(s2 - s1 - 1);
		struct pmt_evsel *e;
		int rc;

		if (exact ? strlen(pmu->name) != pl || strncmp(pmu->name, ev, pl)
			  : !pmu_matches(pmu->name, ev, pl))
			continue;
		if (!(e = new_event(c, pmu)))
			return -PMT_ENOMEM;
		found++;
		snprintf(e->name, sizeof(e->name), "%s/%.*s/%.*s", pmu->name, (int)bl, body,
			 (int)ml, m);
		if ((rc = terms(c, e, body, bl, 0)) < 0 || (rc = modifiers(c, e, m, ml, false)) < 0)
			return rc;
		e->topdown = (!memchr(body, ',', bl) && is_topdown(e, body, bl)) ||
			     is_slots_encoding(e);
	}
	if (!found && (found = table_event_terms(c, ev, pl, s1 + 1, (size_t)(s2 - s1 - 1), m,
						 ml)) < 0)
		return (int)found;
	if (!found) {
		char names[1024], near[320], want[96];
		size_t n = 0;

		names[0] = 0;
		for (uint32_t i = 0; i < pmus->nr && n < sizeof(names) - 64; i++)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", i ? " " : "",
					      pmus->pmu[i].name);
		snprintf(want, sizeof(want), "%.*s", (int)pl, ev);
		pmt_events_suggest(want, pmus, NULL, NULL, near, sizeof(near));
		return FAIL(c, -PMT_ENO_PMU, "event '%s': no PMU '%.*s' in "
			    "%s/bus/event_source/devices (there: %s)%s%s", c->event, (int)pl, ev,
			    pmus->root, n ? names : "none", near,
			    !strncmp(ev, "arm_spe", 7)
				    ? ". Arm SPE needs a CPU with SPE (a VM must expose it), "
				      "a kernel with CONFIG_ARM_SPE_PMU and the arm_spe_pmu "
				      "module loaded; if dmesg says 'profiling buffer "
				      "inaccessible', boot with kpti=off"
				    : "");
	}
	return 0;
}

/* an event of a fixed type without a PMU: software, raw, hardware where sysfs has no core PMU */
static int pmu_less_event(struct ctx *c, uint32_t type, uint64_t config, const char *m,
			  size_t ml)
{
	struct pmt_evsel *e = new_event(c, NULL);

	if (!e)
		return -PMT_ENOMEM;
	e->attr.type = type;
	e->attr.config = config;
	snprintf(e->name, sizeof(e->name), "%.*s", (int)sizeof(e->name) - 1, c->event);
	return modifiers(c, e, m, ml, false);
}

/* rNNNN: on a hybrid machine the kernel gives PERF_TYPE_RAW to the PMU of that type
 * (cpu_core), so perf 7.3 opens it on that PMU's CPUs alone, whatever --cputype says, and
 * names it after the PMU */
static int raw_event(struct ctx *c, uint64_t raw, const char *ev, size_t nl, const char *m,
		     size_t ml)
{
	const struct pmt_pmu *pmu = NULL;
	struct pmt_evsel *e;

	for (uint32_t i = 0; pmt_pmus_nr_core(c->pmus) > 1 && i < c->pmus->nr; i++)
		if (c->pmus->pmu[i].core && c->pmus->pmu[i].type == PMT_TYPE_RAW)
			pmu = &c->pmus->pmu[i];
	if (!pmu)
		return pmu_less_event(c, PMT_TYPE_RAW, raw, m, ml);
	if (!(e = new_event(c, pmu)))
		return -PMT_ENOMEM;
	e->attr.config = raw;
	snprintf(e->name, sizeof(e->name), "%s/%.*s/%.*s", pmu->name, (int)nl, ev, (int)ml, m);
	return modifiers(c, e, m, ml, false);
}

/* --cputype's core PMU as perf 7.3's perf_pmus__pmu_for_pmu_filter finds it: the name in
 * full or without its "cpu_" (core, atom, lowpower) */
static const char *cputype_pmu(const struct pmt_pmus *pmus, const char *cputype)
{
	for (uint32_t i = 0; i < pmus->nr; i++) {
		const char *name = pmus->pmu[i].name;
		bool short_name = !strncmp(name, "cpu_", 4) && !strcmp(name + 4, cputype);

		if (pmus->pmu[i].core && (!strcmp(name, cputype) || short_name))
			return name;
	}
	return NULL;
}

/* the core PMUs a PMU-less event goes to (all of them, or --cputype's) */
static bool wanted_core(const struct ctx *c, const struct pmt_pmu *pmu)
{
	return pmu->core && (!c->cputype || !strcmp(c->cputype, pmu->name));
}

static int name_event(struct ctx *c, const char *ev, size_t len)
{
	const char *colon = memchr(ev, ':', len);
	size_t nl = colon ? (size_t)(colon - ev) : len, ml = colon ? len - nl - 1 : 0;
	const char *m = colon ? colon + 1 : "";
	const struct pmt_pmus *pmus = c->pmus;
	uint32_t type, added = 0, ncore = 0, first = c->out->nr;
	uint64_t config, raw;
	struct pmt_evsel *e;
	bool hw;
	int rc;

	if (!nl)
		return FAIL(c, -PMT_EPARSE, "event '%s': no event name before ':'", c->event);
	/* rNNNN: perf's raw event (hex; r0xNNNN taken too) */
	if (ev[0] == 'r' && nl > 1) {
		size_t h = nl > 3 && ev[1] == '0' && (ev[2] | 32) == 'x' ? 3 : 1, i = h;

		while (i < nl && isxdigit((unsigned char)ev[i]))
			i++;
		if (i == nl && i > h) {
			char hex[24];

			if (nl - h > 16)
				return FAIL(c, -PMT_ERANGE, "event '%s': raw config over 64 bits",
					    c->event);
			snprintf(hex, sizeof(hex), "%.*s", (int)(nl - h), ev + h);
			raw = strtoull(hex, NULL, 16);
			return raw_event(c, raw, ev, nl, m, ml);
		}
	}
	if (nl == 13 && !strncmp(ev, "duration_time", nl))
		return pmu_less_event(c, PMT_TOOL_PMU_TYPE, PMT_TOOL_DURATION_TIME, m, ml);
	if (nl == 9 && !strncmp(ev, "user_time", nl))
		return pmu_less_event(c, PMT_TOOL_PMU_TYPE, PMT_TOOL_USER_TIME, m, ml);
	if (nl == 11 && !strncmp(ev, "system_time", nl))
		return pmu_less_event(c, PMT_TOOL_PMU_TYPE, PMT_TOOL_SYSTEM_TIME, m, ml);
	if (pmt_legacy_find(ev, nl, &type, &config) && type == PMT_TYPE_SOFTWARE)
		return pmu_less_event(c, type, config, m, ml);
	/* perf 7.3 looks the name up in every PMU first: a sysfs alias or a table event of the
	 * PMU wins over the built-in hardware event of the same name */
	for (uint32_t i = 0; i < pmus->nr; i++) {
		const struct pmt_pmu *pmu = &pmus->pmu[i];
		const struct pmt_pmu_alias *a = pmt_pmu_alias_find(pmu, ev, nl);
		const char *t = a ? a->terms : NULL;

		if (pmu->core && !wanted_core(c, pmu))
			continue;
		ncore += pmu->core;
		if (!t && c->table) {
			const struct pmt_table_event *te = pmt_event_table_find(c->table, ev, nl, pmu);

			t = te ? te->terms : NULL;
		}
		if (!t)
			continue;
		if (!(e = new_event(c, pmu)))
			return -PMT_ENOMEM;
		added++;
		if ((rc = terms(c, e, t, strlen(t), 1)) < 0 ||
		    (rc = modifiers(c, e, m, ml, false)) < 0)
			return rc;
		e->topdown = is_topdown(e, ev, nl) || is_slots_encoding(e);
	}
	hw = !added && hardware_name(pmus, NULL, ev, nl, &type, &config);
	for (uint32_t i = 0; hw && i < pmus->nr; i++) {
		const struct pmt_pmu *pmu = &pmus->pmu[i];

		if (!wanted_core(c, pmu))
			continue;
		if (!(e = new_event(c, pmu)))
			return -PMT_ENOMEM;
		added++;
		hardware_name(pmus, pmu, ev, nl, &e->attr.type, &e->attr.config);
		if ((rc = modifiers(c, e, m, ml, false)) < 0)
			return rc;
	}
	/* no core PMU in sysfs (a VM): the event as perf opens it without one */
	if (hw && !added && !ncore)
		return pmu_less_event(c, type, config, m, ml);
	if (!added) {
		char near[320], want[96];

		snprintf(want, sizeof(want), "%.*s", (int)nl, ev);
		pmt_events_suggest(want, pmus, c->table, NULL, near, sizeof(near));
		return FAIL(c, -PMT_ENOT_FOUND, "event '%s': no event '%.*s' (not a built-in, "
			    "cache or raw event, no PMU's events/ alias%s)%s%s", c->event, (int)nl, ev,
			    pmt_event_table_size(c->table) ? ", not in the event tables" : "", near,
			    pmt_event_table_size(c->table)
				    ? ""
				    : "; named events need an event table (--events FILE)");
	}
	/* perf names the copies of a hybrid event after their PMU */
	for (uint32_t i = first; i < c->out->nr; i++) {
		e = &c->out->ev[i];
		/* and, on a hybrid machine, an event --cputype put on one of them */
		if (e->pmu && (added > 1 || (c->cputype && !e->topdown &&
					     pmt_pmus_nr_core(pmus) > 1)))
			snprintf(e->name, sizeof(e->name), "%s/%.*s/%.*s", e->pmu->name, (int)nl,
				 ev, (int)ml, m);
		else
			snprintf(e->name, sizeof(e->name), "%.*s", (int)sizeof(e->name) - 1, c->event);
	}
	return 0;
}

static int one_event(struct ctx *c, const char *ev, size_t len)
{
	snprintf(c->event, sizeof(c->event), "%.*s", (int)len, ev);
	if (!len)
		return FAIL(c, -PMT_EPARSE, "empty event");
	if (memchr(ev, '{', len) || memchr(ev, '}', len))
		return FAIL(c, -PMT_EPARSE, "event '%s': a '{' or '}' out of place (a group is "
			    "{EVENT,EVENT,...}[:MODIFIERS], not nested)", c->event);
	return memchr(ev, '/', len) ? pmu_event(c, ev, len) : name_event(c, ev, len);
}

/* the end of the event or group starting at p: the next ',' outside slashes and braces */
static const char *item_end(const char *p, bool in_group)
{
	bool slash = false;

	for (; *p; p++) {
		if (*p == '/')
			slash = !slash;
		else if (!slash && (*p == ',' || (in_group && *p == '}')))
			break;
	}
	return p;
}

/* {a,b,...}[:mods] from p ('{'); *end gets the character after it */
static int group(struct ctx *c, const char *p, const char **end)
{
	uint32_t first = c->out->nr;
	const char *q, *m, *start = p;
	size_t ml;
	int rc;

	p++;
	for (;;) {
		if (*p == '{')
			return FAIL(c, -PMT_EPARSE, "groups do not nest: '%s'", p);
		q = item_end(p, true);
		if ((rc = one_event(c, p, (size_t)(q - p))) < 0)
			return rc;
		if (*q == '}')
			break;
		if (!*q)
			return FAIL(c, -PMT_EPARSE, "group without its closing '}'");
		p = q + 1;
	}
	m = q + 1;
	if (*m == ':')
		m++;
	ml = strcspn(m, ",");
	if (m == q + 1 && ml)
		return FAIL(c, -PMT_EPARSE, "after a group's '}' comes ',' or ':MODIFIERS', not "
			    "'%.*s'", (int)ml, m);
	snprintf(c->event, sizeof(c->event), "%.*s", (int)(m + ml - start), start);
	for (uint32_t i = first; i < c->out->nr; i++) {
		const uint64_t sched = PMT_ATTR_FLAG_PINNED | PMT_ATTR_FLAG_EXCLUSIVE;
		uint64_t own = c->out->ev[i].attr.flags & sched;

		c->out->ev[i].leader = first;
		if ((rc = modifiers(c, &c->out->ev[i], m, ml, true)) < 0)
			return rc;
		/* perf: a group's D and e pin and reserve the leader (the kernel schedules the
		 * group by it); a member keeps only its own */
		if (i != first)
			c->out->ev[i].attr.flags = (c->out->ev[i].attr.flags & ~sched) | own;
	}
	c->out->ev[first].nr_members = c->out->nr - first;
	*end = m + ml;
	return 0;
}

/* perf's x86 arch_evlist__add_required_events: the topdown-* metrics are read through
 * slots, so a list with a metric and no slots of its PMU gets slots, as the leader of the
 * metric's group (or next to it, grouped later), with the metric's privilege modifiers */
static int add_slots(struct ctx *c, uint32_t first)
{
	for (uint32_t i = first; i < c->out->nr; i++) {
		const struct pmt_pmu_alias *a;
		const struct pmt_pmu *pmu = c->out->ev[i].pmu;
		uint64_t flags = c->out->ev[i].attr.flags &
				 (PMT_ATTR_FLAG_EXCLUDE_USER | PMT_ATTR_FLAG_EXCLUDE_KERNEL |
				  PMT_ATTR_FLAG_EXCLUDE_HV | PMT_ATTR_FLAG_EXCLUDE_HOST |
				  PMT_ATTR_FLAG_EXCLUDE_GUEST);
		uint32_t leader = c->out->ev[i].leader, at;
		bool have = false, grouped;
		struct pmt_evsel *s;
		int rc;

		if (!c->out->ev[i].topdown || pmt_evsel_is_slots(&c->out->ev[i]))
			continue;
		for (uint32_t j = first; j < c->out->nr; j++)
			have |= c->out->ev[j].pmu == pmu && pmt_evsel_is_slots(&c->out->ev[j]);
		if (have || !(a = pmt_pmu_alias_find(pmu, "slots", 5)))
			continue;
		grouped = c->out->ev[leader].nr_members > 1;
		at = grouped ? leader : i;
		if (!(s = pmt_evlist_insert(c->out, at)))
			return -PMT_ENOMEM;
		s->pmu = pmu;
		s->attr.type = pmu->type;
		s->topdown = true;
		s->excl_mods = c->out->ev[i + 1].excl_mods;
		/* perf 7.3 names an event of one of several core PMUs after its PMU */
		if (pmt_pmus_nr_core(c->pmus) > 1)
			snprintf(s->name, sizeof(s->name), "%s/slots/", pmu->name);
		else
			snprintf(s->name, sizeof(s->name), "slots");
		snprintf(c->event, sizeof(c->event), "slots");
		if ((rc = terms(c, s, a->terms, strlen(a->terms), 1)) < 0)
			return rc;
		s->attr.flags |= flags;
		if (grouped) {
			s->nr_members = c->out->ev[at + 1].nr_members + 1;
			c->out->ev[at + 1].nr_members = 1;
			for (uint32_t j = at + 1; j < c->out->nr; j++)
				if (c->out->ev[j].leader == at + 1)
					c->out->ev[j].leader = at;
		}
		i++;
	}
	return 0;
}

int pmt_events_parse_opts(struct pmt_evlist *l, const struct pmt_pmus *pmus, const char *str,
			  const struct pmt_events_opts *o, struct pmt_diag *diag)
{
	struct ctx c = { .pmus = pmus, .out = l, .diag = diag };
	uint32_t first = l->nr;
	const char *p = str;
	int rc = 0;

	if (o && !PMT_OPTS_HAS(o, cputype))
		return -PMT_EINVAL;
	if (o) {
		c.table = o->table;
		c.cputype = o->cputype ? cputype_pmu(pmus, o->cputype) : NULL;
		if (o->cputype && !c.cputype)
			return FAIL(&c, -PMT_ENO_PMU, "--cputype %s is not supported: no core PMU "
				    "%s or cpu_%s in %s/bus/event_source/devices (a hybrid machine "
				    "has cpu_core and cpu_atom, Arrow Lake-H cpu_lowpower too)",
				    o->cputype, o->cputype, o->cputype, pmus->root);
	}
	if (!*p)
		return FAIL(&c, -PMT_EPARSE, "empty event string");
	while (*p && rc >= 0) {
		const char *q = p;

		if (*p == '{') {
			rc = group(&c, p, &q);
		} else {
			q = item_end(p, false);
			rc = one_event(&c, p, (size_t)(q - p));
		}
		if (rc >= 0 && *q && *q != ',')
			rc = FAIL(&c, -PMT_EPARSE, "unexpected '%c' in '%s'", *q, str);
		if (rc >= 0 && *q == ',' && !q[1])
			rc = FAIL(&c, -PMT_EPARSE, "empty event at the end of '%s'", str);
		p = *q ? q + 1 : q;
	}
	if (rc >= 0)
		rc = add_slots(&c, first);
	if (rc >= 0)
		rc = pmt_events_fix_groups(l, first, pmus, diag);
	if (rc < 0)
		l->nr = first;
	return rc;
}

int pmt_events_parse(struct pmt_evlist *l, const struct pmt_pmus *pmus, const char *str,
		     struct pmt_diag *diag)
{
	return pmt_events_parse_opts(l, pmus, str, NULL, diag);
}
