/* Metric expression compiler: perf's expr.l lexer and expr.y grammar, emitting postfix code.
 *
 * The lexer mirrors flex's rules: the longest match wins and a tie goes to the earlier
 * rule, so "1e9" is a number, "1e+9" is the ID "1e" followed by "+9", and "min_x" is an ID
 * while "min" is a keyword. Characters no rule matches are ignored, as perf's ". {}" does.
 */
#include <ctype.h>
#include <math.h>
#include <regex.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "expr_priv.h"
#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

enum tok {
	T_END = 0, T_NUM, T_ID, T_MIN, T_MAX, T_IF, T_ELSE, T_DRATIO, T_SOURCE_COUNT,
	T_HAS_EVENT, T_STRCMP_CPUID, T_GE, T_LE, T_EQ,
	/* single characters are their own code (>= 32) */
};

struct parser {
	const char *text;
	size_t pos;      /* next unread byte */
	size_t tok_pos;  /* start of the current token */
	int tok;
	double num;
	char *id;        /* current ID (normalised), owned */
	size_t id_cap;
	unsigned flags;
	const struct pmt_expr_ctx *ctx;
	pmt_expr_resolve_fn resolve;
	void *arg;
	struct pmt_expr *e;
	int ops_cap;
	int depth;
	int nest;        /* recursion depth of the parser */
	int err;
	struct pmt_expr_error *errp;
};

static int fail(struct parser *p, size_t at, int code, const char *fmt, const char *what)
{
	if (p->err)
		return p->err;
	p->err = -code;
	if (p->errp) {
		p->errp->column = (int)at + 1;
		snprintf(p->errp->msg, sizeof(p->errp->msg), fmt, what ? what : "");
	}
	return p->err;
}

static int is_sym_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == ':' || c == '@' || c == '?';
}

static size_t digits(const char *s)
{
	size_t n = 0;

	while (isdigit((unsigned char)s[n]))
		n++;
	return n;
}

/* Length of the longest match of ([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)(e-?[0-9]+)? at s. */
static size_t number_len(const char *s)
{
	size_t n = digits(s), j;

	if (n) {
		if (s[n] == '.')
			n += 1 + digits(s + n + 1);
	} else if (s[0] == '.' && isdigit((unsigned char)s[1])) {
		n = 1 + digits(s + 1);
	} else {
		return 0;
	}
	if (s[n] == 'e') {
		j = n + 1;
		if (s[j] == '-')
			j++;
		if (isdigit((unsigned char)s[j]))
			n = j + digits(s + j);
	}
	return n;
}

/* perf's ID rules, plus one leniency: inside a "pmu@term=value@" event an '=' (which
 * jevents escapes when it builds perf's tables from the source JSON) is part of the ID. */
static size_t symbol_len(const char *s)
{
	size_t n = 0;
	int in_pmu = 0;

	for (;;) {
		if (s[n] == '@')
			in_pmu = !in_pmu;
		if (is_sym_char((unsigned char)s[n]) || (in_pmu && s[n] == '=' && n))
			n++;
		else if (s[n] == '\\' && (s[n + 1] == '-' || s[n + 1] == ',' || s[n + 1] == '='))
			n += 2;
		else
			return n;
	}
}

static int id_reserve(struct parser *p, size_t need)
{
	char *n;

	if (need <= p->id_cap)
		return 0;
	n = realloc(p->id, need * 2);
	if (!n)
		return fail(p, p->tok_pos, PMT_ENOMEM, "out of memory%s", NULL);
	p->id = n;
	p->id_cap = need * 2;
	return 0;
}

static const struct {
	const char *name;
	size_t off;
} literals[] = {
	{ "num_cpus", offsetof(struct pmt_expr_ctx, num_cpus) },
	{ "num_cpus_online", offsetof(struct pmt_expr_ctx, num_cpus_online) },
	{ "num_cores", offsetof(struct pmt_expr_ctx, num_cores) },
	{ "num_dies", offsetof(struct pmt_expr_ctx, num_dies) },
	{ "num_packages", offsetof(struct pmt_expr_ctx, num_packages) },
	{ "slots", offsetof(struct pmt_expr_ctx, slots) },
	{ "smt_on", offsetof(struct pmt_expr_ctx, smt_on) },
	{ "system_tsc_freq", offsetof(struct pmt_expr_ctx, system_tsc_freq) },
	{ "has_pmem", offsetof(struct pmt_expr_ctx, has_pmem) },
	{ "core_wide", offsetof(struct pmt_expr_ctx, core_wide) },
	{ "target_cpu", offsetof(struct pmt_expr_ctx, target_cpu) },
	{ "chas_per_socket", offsetof(struct pmt_expr_ctx, chas_per_socket) },
};

static int literal_index(const char *name)
{
	if (name[0] == '#')
		name++;
	for (size_t i = 0; i < sizeof(literals) / sizeof(literals[0]); i++)
		if (!strcasecmp(name, literals[i].name))
			return (int)i;
	return -PMT_ENOT_FOUND;
}

int pmt_expr_ctx_get(const struct pmt_expr_ctx *ctx, const char *name, double *val)
{
	int i = literal_index(name);

	if (i < 0)
		return i;
	memcpy(val, (const char *)ctx + literals[i].off, sizeof(*val));
	return 0;
}

int pmt_expr_ctx_set(struct pmt_expr_ctx *ctx, const char *name, double val)
{
	int i = literal_index(name);

	if (i < 0)
		return i;
	memcpy((char *)ctx + literals[i].off, &val, sizeof(val));
	return 0;
}

static const struct {
	const char *kw;
	int tok;
} keywords[] = {
	{ "d_ratio", T_DRATIO }, { "max", T_MAX }, { "min", T_MIN }, { "if", T_IF },
	{ "else", T_ELSE }, { "source_count", T_SOURCE_COUNT }, { "has_event", T_HAS_EVENT },
	{ "strcmp_cpuid_str", T_STRCMP_CPUID },
};

static int next(struct parser *p)
{
	const char *s = p->text;

	for (;;) {
		unsigned char c = (unsigned char)s[p->pos];
		size_t nl, sl;

		p->tok_pos = p->pos;
		if (!c) {
			p->tok = T_END;
			return 0;
		}
		if (isspace(c)) {
			p->pos++;
			continue;
		}
		nl = number_len(s + p->pos);
		sl = symbol_len(s + p->pos);
		if (nl && nl >= sl) {
			char buf[64];

			if (nl >= sizeof(buf))
				return fail(p, p->pos, PMT_EPARSE, "number too long%s", NULL);
			memcpy(buf, s + p->pos, nl);
			buf[nl] = 0;
			p->num = strtod(buf, NULL);
			p->pos += nl;
			p->tok = T_NUM;
			return 0;
		}
		if (sl) {
			size_t o = 0;

			if (id_reserve(p, sl + 16))
				return p->err;
			for (size_t i = 0; i < sl; i++) {
				char ch = s[p->pos + i];

				if (ch == '\\') {
					ch = s[p->pos + ++i];
				} else if (ch == '?') {
					char num[16];
					int n = snprintf(num, sizeof(num), "%d", p->ctx->runtime);

					if (id_reserve(p, o + (size_t)n + sl + 1))
						return p->err;
					memcpy(p->id + o, num, (size_t)n);
					o += (size_t)n;
					continue;
				}
				p->id[o++] = ch;
			}
			p->id[o] = 0;
			p->pos += sl;
			p->tok = T_ID;
			/* keywords only match the whole symbol and never contain escapes */
			for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
				if (o == sl && !strcmp(p->id, keywords[k].kw))
					p->tok = keywords[k].tok;
			if (o == sl && !strcmp(p->id, "NaN")) {
				p->tok = T_NUM;
				p->num = NAN;
			}
			return 0;
		}
		if (c == '#') {
			size_t n = 1;
			char name[64];

			while (isalnum((unsigned char)s[p->pos + n]) || s[p->pos + n] == '_' ||
			       s[p->pos + n] == '.' || s[p->pos + n] == '-')
				n++;
			if (n > 1) {
				if (n - 1 >= sizeof(name))
					return fail(p, p->pos, PMT_EPARSE, "literal too long%s", NULL);
				memcpy(name, s + p->pos + 1, n - 1);
				name[n - 1] = 0;
				if (pmt_expr_ctx_get(p->ctx, name, &p->num) < 0)
					return fail(p, p->pos, PMT_EPARSE, "unknown literal #%s", name);
				p->pos += n;
				p->tok = T_NUM;
				return 0;
			}
			p->pos++;
			continue;
		}
		if (p->flags & PMT_EXPR_INTEL) {
			if (c == '[') {
				const char *close = strchr(s + p->pos, ']');

				p->pos = close ? (size_t)(close - s) + 1 : p->pos + 1;
				continue;
			}
			if (c == '>' || c == '<' || c == '=') {
				size_t j = p->pos + 1;

				while (s[j] == ' ' || s[j] == '\t')
					j++;
				if (s[j] == '=') {
					p->pos = j + 1;
					p->tok = c == '>' ? T_GE : c == '<' ? T_LE : T_EQ;
					return 0;
				}
			}
		}
		if (strchr("|^&<>-+*/%(),", c)) {
			p->pos++;
			p->tok = c;
			return 0;
		}
		p->pos++; /* perf's lexer drops any other character */
	}
}

/* Constant folding: in postfix code an operator whose operands are each a single CONST
 * has exactly those CONSTs right before it. Evaluating them with the evaluator itself keeps
 * the semantics identical; "% 0" is left for run time, where it reports its error. */
static void fold(struct pmt_expr *e)
{
	static const int arity[] = {
		[EOP_NEG] = 1, [EOP_SELECT] = 3, [EOP_CONST] = 0, [EOP_SLOT] = 0,
	};
	struct expr_op *last = &e->ops[e->nr_ops - 1];
	int n = last->op == EOP_NEG || last->op == EOP_SELECT ? arity[last->op] :
		last->op > EOP_SLOT ? 2 : 0;
	struct pmt_expr tmp;
	double v;

	if (!n || e->nr_ops < n + 1)
		return;
	for (int i = 2; i <= n + 1; i++)
		if (e->ops[e->nr_ops - i].op != EOP_CONST)
			return;
	tmp = (struct pmt_expr){ .ops = last - n, .nr_ops = n + 1, .max_depth = n };
	if (pmt_expr_eval(&tmp, NULL, &v) < 0)
		return;
	e->nr_ops -= n;
	e->ops[e->nr_ops - 1] = (struct expr_op){ .op = EOP_CONST, .k = v };
}

static int emit(struct parser *p, uint32_t op, uint32_t slot, double k)
{
	static const signed char delta[] = {
		[EOP_CONST] = 1, [EOP_SLOT] = 1, [EOP_ADD] = -1, [EOP_SUB] = -1, [EOP_MUL] = -1,
		[EOP_DIV] = -1, [EOP_MOD] = -1, [EOP_OR] = -1, [EOP_AND] = -1, [EOP_XOR] = -1,
		[EOP_LT] = -1, [EOP_GT] = -1, [EOP_GE] = -1, [EOP_LE] = -1, [EOP_EQ] = -1,
		[EOP_NEG] = 0, [EOP_MIN] = -1, [EOP_MAX] = -1, [EOP_DRATIO] = -1, [EOP_SELECT] = -2,
	};
	struct pmt_expr *e = p->e;

	if (p->err)
		return p->err;
	if (e->nr_ops == p->ops_cap) {
		int cap = p->ops_cap ? p->ops_cap * 2 : 16;
		struct expr_op *n = realloc(e->ops, (size_t)cap * sizeof(*n));

		if (!n)
			return fail(p, p->tok_pos, PMT_ENOMEM, "out of memory%s", NULL);
		e->ops = n;
		p->ops_cap = cap;
	}
	e->ops[e->nr_ops++] = (struct expr_op){ .op = op, .slot = slot, .k = k };
	p->depth += delta[op];
	fold(e);
	if (p->depth > e->max_depth)
		e->max_depth = p->depth;
	if (e->max_depth > EXPR_MAX_DEPTH)
		return fail(p, p->tok_pos, PMT_ERANGE, "expression nested too deeply%s", NULL);
	if (op == EOP_SLOT && (int)slot + 1 > e->nr_slots)
		e->nr_slots = (int)slot + 1;
	return 0;
}

static const char *tok_name(int tok)
{
	static char one[2];

	switch (tok) {
	case T_END: return "end of expression";
	case T_NUM: return "number";
	case T_ID: return "identifier";
	case T_MIN: return "min";
	case T_MAX: return "max";
	case T_IF: return "if";
	case T_ELSE: return "else";
	case T_DRATIO: return "d_ratio";
	case T_SOURCE_COUNT: return "source_count";
	case T_HAS_EVENT: return "has_event";
	case T_STRCMP_CPUID: return "strcmp_cpuid_str";
	case T_GE: return ">=";
	case T_LE: return "<=";
	case T_EQ: return "==";
	default:
		one[0] = (char)tok;
		one[1] = 0;
		return one;
	}
}

static int expect(struct parser *p, int tok)
{
	char msg[64];

	if (p->err)
		return p->err;
	if (p->tok != tok) {
		snprintf(msg, sizeof(msg), "expected '%s'", tok_name(tok));
		fail(p, p->tok_pos, PMT_EPARSE, "%s", msg);
		if (p->errp) {
			size_t l = strlen(p->errp->msg);

			snprintf(p->errp->msg + l, sizeof(p->errp->msg) - l, ", found '%s'",
				 tok_name(p->tok));
		}
		return p->err;
	}
	return next(p);
}

static int resolve_id(struct parser *p, enum pmt_expr_ref_kind kind)
{
	double v = NAN;
	int r;

	if (p->resolve) {
		r = p->resolve(p->arg, p->id, kind, &v);
		if (r < 0 && r != PMT_EXPR_CONST)
			return fail(p, p->tok_pos, -r, "cannot resolve '%s'", p->id);
	} else {
		r = PMT_EXPR_CONST;
	}
	if (r == PMT_EXPR_CONST)
		return emit(p, EOP_CONST, 0, v);
	return emit(p, EOP_SLOT, (uint32_t)r, 0);
}

/* !strcmp_cpuid_str(id, cpuid) of x86: the ID is an extended regex that must match the
 * whole cpuid string. */
static double cpuid_matches(const char *re, const char *cpuid)
{
	regex_t r;
	regmatch_t m;
	double v;

	if (!cpuid)
		return NAN;
	if (regcomp(&r, re, REG_EXTENDED))
		return 0;
	v = !regexec(&r, cpuid, 1, &m, 0) && m.rm_so == 0 &&
	    (size_t)m.rm_eo == strlen(cpuid);
	regfree(&r);
	return v;
}

static int parse_if(struct parser *p);
static int parse_expr(struct parser *p, int minprec);

static int binprec(int tok)
{
	switch (tok) {
	case '|': return 1;
	case '^': return 2;
	case '&': return 3;
	case '<': case '>': case T_GE: case T_LE: case T_EQ: return 4;
	case '-': case '+': return 5;
	case '*': case '/': case '%': return 6;
	default: return 0;
	}
}

static uint32_t binop(int tok)
{
	switch (tok) {
	case '|': return EOP_OR;
	case '^': return EOP_XOR;
	case '&': return EOP_AND;
	case '<': return EOP_LT;
	case '>': return EOP_GT;
	case T_GE: return EOP_GE;
	case T_LE: return EOP_LE;
	case T_EQ: return EOP_EQ;
	case '-': return EOP_SUB;
	case '+': return EOP_ADD;
	case '*': return EOP_MUL;
	case '/': return EOP_DIV;
	default: return EOP_MOD;
	}
}

static int parse_call2(struct parser *p, uint32_t op)
{
	next(p);
	expect(p, '(');
	parse_expr(p, 1);
	expect(p, ',');
	parse_expr(p, 1);
	expect(p, ')');
	return emit(p, op, 0, 0);
}

static int parse_call_id(struct parser *p, int which)
{
	next(p);
	expect(p, '(');
	if (p->err)
		return p->err;
	if (p->tok != T_ID)
		return fail(p, p->tok_pos, PMT_EPARSE, "expected an event name, found '%s'",
			    tok_name(p->tok));
	if (which == T_STRCMP_CPUID)
		emit(p, EOP_CONST, 0, cpuid_matches(p->id, p->ctx->cpuid));
	else
		resolve_id(p, which == T_SOURCE_COUNT ? PMT_EXPR_REF_SOURCE_COUNT :
							PMT_EXPR_REF_HAS_EVENT);
	next(p);
	return expect(p, ')');
}

static int parse_primary_inner(struct parser *p);

/* Bounds the parser's recursion ("((((..." or "----...") like the evaluation stack. */
static int parse_primary(struct parser *p)
{
	if (p->err)
		return p->err;
	if (++p->nest > EXPR_MAX_DEPTH)
		return fail(p, p->tok_pos, PMT_ERANGE, "expression nested too deeply%s", NULL);
	parse_primary_inner(p);
	p->nest--;
	return p->err;
}

static int parse_primary_inner(struct parser *p)
{
	switch (p->tok) {
	case T_NUM:
		emit(p, EOP_CONST, 0, p->num);
		return next(p);
	case T_ID:
		resolve_id(p, PMT_EXPR_REF_VALUE);
		return next(p);
	case '(':
		next(p);
		parse_if(p);
		return expect(p, ')');
	case '-':
		next(p);
		parse_primary(p);
		return emit(p, EOP_NEG, 0, 0);
	case T_MIN:
		return parse_call2(p, EOP_MIN);
	case T_MAX:
		return parse_call2(p, EOP_MAX);
	case T_DRATIO:
		return parse_call2(p, EOP_DRATIO);
	case T_SOURCE_COUNT:
	case T_HAS_EVENT:
	case T_STRCMP_CPUID:
		return parse_call_id(p, p->tok);
	default:
		return fail(p, p->tok_pos, PMT_EPARSE, "unexpected '%s'", tok_name(p->tok));
	}
}

/* Precedence climbing over expr.y's %left levels; every level is left-associative. */
static int parse_expr(struct parser *p, int minprec)
{
	int prec;

	parse_primary(p);
	while (!p->err && (prec = binprec(p->tok)) >= minprec && prec) {
		int op = p->tok;

		next(p);
		parse_expr(p, prec + 1);
		emit(p, binop(op), 0, 0);
	}
	return p->err;
}

/* if_expr: expr IF expr ELSE if_expr | expr */
static int parse_if(struct parser *p)
{
	parse_expr(p, 1);
	if (!p->err && p->tok == T_IF) {
		next(p);
		parse_expr(p, 1);
		expect(p, T_ELSE);
		parse_if(p);
		emit(p, EOP_SELECT, 0, 0);
	}
	return p->err;
}

int pmt_expr_compile(const char *text, unsigned flags, const struct pmt_expr_ctx *ctx,
		     pmt_expr_resolve_fn resolve, void *arg, struct pmt_expr **out,
		     struct pmt_expr_error *err)
{
	struct pmt_expr_ctx dflt;
	struct parser p = { .text = text, .flags = flags, .ctx = ctx, .resolve = resolve,
			    .arg = arg, .errp = err };

	if (err) {
		err->column = 0;
		err->msg[0] = 0;
	}
	if (!text || !out)
		return -PMT_EINVAL;
	*out = NULL;
	if (!ctx) {
		pmt_expr_ctx_default(&dflt);
		p.ctx = &dflt;
	}
	p.e = calloc(1, sizeof(*p.e));
	if (!p.e)
		return -PMT_ENOMEM;
	next(&p);
	if (!p.err && p.tok == T_END)
		fail(&p, p.tok_pos, PMT_EPARSE, "empty expression%s", NULL);
	parse_if(&p);
	if (!p.err && p.tok != T_END)
		fail(&p, p.tok_pos, PMT_EPARSE, "unexpected '%s' after the expression",
		     tok_name(p.tok));
	free(p.id);
	if (p.err) {
		pmt_expr_free(p.e);
		return p.err;
	}
	*out = p.e;
	return 0;
}

void pmt_expr_free(struct pmt_expr *e)
{
	if (!e)
		return;
	free(e->ops);
	free(e);
}

int pmt_expr_nr_slots(const struct pmt_expr *e) { return e->nr_slots; }
int pmt_expr_nr_ops(const struct pmt_expr *e) { return e->nr_ops; }

/* This machine's CPU identity in perf's get_cpuid_str() form, for strcmp_cpuid_str() when
 * neither --cpuid nor a trace names one: x86 "GenuineIntel-6-AD-1" (vendor, family, model,
 * stepping from CPUID, perf's arch/x86/util/header.c); arm64 the MIDR as "0x%016llx" from
 * sysfs (arch/arm64/util/header.c); NULL elsewhere. */
static const char *host_cpuid(void)
{
	static char buf[64];
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d, family, model;
	char vendor[13];

	if (buf[0])
		return buf;
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return NULL;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return NULL;
	family = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family >= 0x6)
		model += ((a >> 16) & 0xf) << 4;
	snprintf(buf, sizeof(buf), "%s-%u-%X-%X", vendor, family, model, a & 0xf);
	return buf;
#else
	FILE *fp;
	unsigned long long midr;

	if (buf[0])
		return buf;
	fp = fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "r");
	if (!fp)
		return NULL;
	if (fscanf(fp, "%llx", &midr) == 1)
		snprintf(buf, sizeof(buf), "0x%016llx", midr);
	fclose(fp);
	return buf[0] ? buf : NULL;
#endif
}

void pmt_expr_ctx_default(struct pmt_expr_ctx *c)
{
	long n = sysconf(_SC_NPROCESSORS_CONF), on = sysconf(_SC_NPROCESSORS_ONLN);

	memset(c, 0, sizeof(*c));
	c->num_cpus = n > 0 ? (double)n : 1;
	c->num_cpus_online = on > 0 ? (double)on : c->num_cpus;
	c->num_cores = c->num_cpus;
	c->num_dies = 1;
	c->num_packages = 1;
	c->slots = 6; /* pipeline width of current P-cores */
	c->system_tsc_freq = 1e9;
	c->chas_per_socket = 1;
	c->target_cpu = 0;
	c->cpuid = host_cpuid();
}

struct table_arg {
	const char *const *names;
	size_t n;
};

static int table_resolve(void *arg, const char *id, enum pmt_expr_ref_kind kind, double *val)
{
	const struct table_arg *t = arg;

	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->names[i], id))
			continue;
		if (kind == PMT_EXPR_REF_VALUE)
			return (int)i;
		*val = 1; /* source_count/has_event of a known value */
		return PMT_EXPR_CONST;
	}
	*val = kind == PMT_EXPR_REF_HAS_EVENT ? 0 : NAN;
	return PMT_EXPR_CONST;
}

int pmt_expr_eval_str(const char *text, unsigned flags, const struct pmt_expr_ctx *ctx,
		      const char *const *names, const double *vals, size_t n, double *out,
		      struct pmt_expr_error *err)
{
	struct table_arg t = { names, n };
	struct pmt_expr *e;
	int r = pmt_expr_compile(text, flags, ctx, table_resolve, &t, &e, err);

	if (r < 0)
		return r;
	r = pmt_expr_eval(e, vals, out);
	if (r < 0 && err) {
		err->column = 0;
		snprintf(err->msg, sizeof(err->msg), "modulo by zero");
	}
	pmt_expr_free(e);
	return r;
}
