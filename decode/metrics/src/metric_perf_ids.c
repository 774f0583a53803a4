/* A metric expression's IDs as perf 7.3's expr.y computes them, into a reproduced libbpf
 * hashmap (perf_order_priv.h): which IDs, and the map history their walk order follows. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/metrics.h"
#include "perf_order_priv.h"

/* the tool PMU's other names: perf reads these IDs as its own values, which is not
 * reproduced here */
static bool tool_value(const char *id)
{
	static const char *const tool[] = { "has_pmem", "num_cores", "num_cpus",
					    "num_cpus_online", "num_dies", "num_packages",
					    "slots", "smt_on", "system_tsc_freq", "core_wide",
					    "target_cpu" };

	for (size_t i = 0; i < sizeof(tool) / sizeof(tool[0]); i++)
		if (!strcmp(id, tool[i]))
			return true;
	return false;
}

static bool is_sym(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '_' || c == '.' || c == ':' || c == '@' || c == '?';
}

/* expr.l's number: a match as long as the symbol is a number (flex takes the first rule
 * of two equally long matches) */
static bool all_number(const char *s, size_t n)
{
	size_t i = 0;
	bool digits = false;

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++, digits = true;
	if (i < n && s[i] == '.')
		i++;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++, digits = true;
	if (digits && i < n && s[i] == 'e') {
		size_t j = i + 1;

		if (j < n && s[j] == '-')
			j++;
		if (j < n && s[j] >= '0' && s[j] <= '9') {
			while (j < n && s[j] >= '0' && s[j] <= '9')
				j++;
			i = j;
		}
	}
	return digits && i == n;
}

/* the ')' closing the '(' at p, or e */
static const char *closing(const char *p, const char *e)
{
	int depth = 0;

	for (; p < e; p++) {
		if (*p == '\\' && p + 1 < e)
			p++;
		else if (*p == '(')
			depth++;
		else if (*p == ')' && --depth == 0)
			return p;
	}
	return e;
}

/* the end of the symbol (escapes kept) or '#' literal starting at p */
static const char *sym_end(const char *p, const char *e)
{
	if (*p == '#') {
		for (p++; p < e && (is_sym(*p) || *p == '-'); p++)
			;
		return p;
	}
	while (p < e && (is_sym(*p) || (*p == '\\' && p + 1 < e)))
		p += *p == '\\' ? 2 : 1;
	return p;
}

/* expr.y computing IDs: every leaf ID a map of its own, each operator the union of its
 * operands' maps (ids__union(): the smaller one's entries, in walk order, set into the
 * larger, the left one on a tie), a constant condition keeping one branch. The maps'
 * histories decide the walk order of the result. */
struct uparse {
	const char *p, *e;
	const struct pmt_expr_ctx *ctx;
	int rc;
	unsigned depth; /* nesting, bounded: a hostile table must not exhaust the stack */
};

static struct phm *phm_new(void)
{
	return calloc(1, sizeof(struct phm));
}

static void phm_free(struct phm *m)
{
	if (m)
		phm_fini(m);
	free(m);
}

static struct phm *phm_union(struct uparse *u, struct phm *a, struct phm *b)
{
	const char **walk;
	size_t n;

	if (!a)
		return b;
	if (!b)
		return a;
	if (a->sz < b->sz) {
		struct phm *t = a;

		a = b;
		b = t;
	}
	walk = calloc(b->sz + 1, sizeof(*walk));
	n = walk ? phm_walk(b, walk) : 0;
	if (!walk)
		u->rc = -PMT_ENOMEM;
	for (size_t i = 0; i < n && u->rc >= 0; i++)
		u->rc = phm_add(a, walk[i]);
	free(walk);
	phm_free(b);
	return a;
}

static void skip_space(struct uparse *u)
{
	while (u->p < u->e && (*u->p == ' ' || *u->p == '\t' || *u->p == '\n'))
		u->p++;
}

static bool next_word(struct uparse *u, const char *w)
{
	size_t n = strlen(w);

	skip_space(u);
	return (size_t)(u->e - u->p) >= n && !strncmp(u->p, w, n) &&
	       (u->p + n == u->e || !is_sym(u->p[n]));
}

static struct phm *u_if(struct uparse *u);
static struct phm *u_bin(struct uparse *u, int level);

static struct phm *u_primary(struct uparse *u)
{
	const char *t;
	char id[256];
	size_t n = 0;
	struct phm *m;

	skip_space(u);
	if (u->p >= u->e || u->depth > 256) {
		u->rc = -PMT_EUNSUPPORTED;
		return NULL;
	}
	if (*u->p == '-' || *u->p == '!') {
		u->p++;
		u->depth++;
		m = u_bin(u, 6);
		u->depth--;
		return m;
	}
	if (*u->p == '(') {
		u->p++;
		u->depth++;
		m = u_if(u);
		u->depth--;
		skip_space(u);
		if (u->p < u->e && *u->p == ')')
			u->p++;
		return m;
	}
	t = sym_end(u->p, u->e);
	if (t == u->p) {
		u->rc = -PMT_EUNSUPPORTED;
		return NULL;
	}
	if (*u->p == '#' || all_number(u->p, (size_t)(t - u->p))) {
		u->p = t;
		return NULL;
	}
	for (const char *c = u->p; c < t; c++) {
		if (*c == '\\')
			c++;
		if (n + 1 < sizeof(id))
			id[n++] = *c;
	}
	id[n] = 0;
	u->p = t;
	skip_space(u);
	if (u->p < u->e && *u->p == '(') { /* min, max, d_ratio, source_count, has_event, ... */
		bool value_only = !strcmp(id, "has_event") || !strcmp(id, "strcmp_cpuid_str");
		const char *close = closing(u->p, u->e);

		if (value_only) {
			u->p = close + (close < u->e);
			return NULL;
		}
		u->p++;
		u->depth++;
		m = u_if(u);
		for (skip_space(u); u->p < u->e && *u->p == ',' && u->rc >= 0; skip_space(u)) {
			u->p++;
			m = phm_union(u, m, u_if(u));
		}
		u->depth--;
		if (u->p < u->e && *u->p == ')')
			u->p++;
		return m;
	}
	if (strchr(id, '?') || tool_value(id)) {
		u->rc = -PMT_EUNSUPPORTED;
		return NULL;
	}
	m = phm_new();
	if (!m || phm_add(m, id) < 0)
		u->rc = -PMT_ENOMEM;
	return m;
}

/* expr.y's precedence, loosest first: | ^ & < > + - * / % */
static struct phm *u_bin(struct uparse *u, int level)
{
	static const char *const ops[] = { "|", "^", "&", "<>", "+-", "*/%" };
	struct phm *m;

	if (level >= 6)
		return u_primary(u);
	m = u_bin(u, level + 1);
	for (skip_space(u); u->p < u->e && u->rc >= 0 && strchr(ops[level], *u->p);
	     skip_space(u)) {
		u->p++;
		m = phm_union(u, m, u_bin(u, level + 1));
	}
	return m;
}

static struct phm *u_if(struct uparse *u)
{
	struct phm *x = u_bin(u, 0), *c, *y;
	const char *cs, *ce;
	struct pmt_expr_error err;
	char *text;
	double v = 0;

	if (u->rc < 0 || !next_word(u, "if"))
		return x;
	u->p += 2;
	cs = u->p;
	c = u_bin(u, 0);
	ce = u->p;
	if (!next_word(u, "else")) {
		u->rc = -PMT_EUNSUPPORTED;
		phm_free(c);
		return x;
	}
	u->p += 4;
	u->depth++;
	y = u_if(u); /* else ... if ... else: right-recursive */
	u->depth--;
	if (c && c->sz)
		return phm_union(u, phm_union(u, x, c), y);
	phm_free(c);
	if (!u->ctx) {
		u->rc = -PMT_EUNSUPPORTED;
		phm_free(y);
		return x;
	}
	text = strndup(cs, (size_t)(ce - cs));
	if (!text || pmt_expr_eval_str(text, 0, u->ctx, NULL, NULL, 0, &v, &err) < 0)
		u->rc = text ? -PMT_EUNSUPPORTED : -PMT_ENOMEM;
	free(text);
	if (u->rc >= 0 && v == 0) {
		phm_free(x);
		return y;
	}
	phm_free(y);
	return x;
}

/* expr__find_ids() into m: the expression's map and m's, united (the start rule).
 * -PMT_EUNSUPPORTED where perf's IDs depend on values this does not know: a constant "if"
 * condition without ctx, '?' (the runtime parameter), a tool value. */
int perf_add_ids(struct phm *m, const char *expr, const struct pmt_expr_ctx *ctx)
{
	struct uparse u = { expr, expr + strlen(expr), ctx, 0, 0 };
	struct phm *x = u_if(&u), *old;

	if (u.rc < 0) {
		phm_free(x);
		return u.rc;
	}
	old = phm_new();
	if (!old) {
		phm_free(x);
		return -PMT_ENOMEM;
	}
	*old = *m;
	x = phm_union(&u, x, old);
	if (!x) {
		memset(m, 0, sizeof(*m));
		return u.rc;
	}
	*m = *x;
	free(x);
	return u.rc;
}
