/* Postfix evaluator with perf's expr.y semantics (see tpebs.md §2, "Semantics"). */
#include <math.h>

#include "expr_priv.h"
#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

static inline int is_zero(double v)
{
	return fpclassify(v) == FP_ZERO;
}

/* The evaluator; with slot_taint it also carries, beside each value, the first missing
 * input that value depends on. Inlined into both entry points, so the plain evaluation
 * keeps no taint work. */
static inline __attribute__((always_inline)) int
eval_core(const struct pmt_expr *e, const double *slots, double *out,
	  const uint32_t *slot_taint, uint32_t *taint_out)
{
	double st[EXPR_MAX_DEPTH + 1];
	uint32_t ts[EXPR_MAX_DEPTH + 1];
	int sp = 0, rc = 0;

	st[0] = NAN; /* an empty expression (the compiler never makes one) */
	ts[0] = 0;

	for (int i = 0; i < e->nr_ops; i++) {
		const struct expr_op *o = &e->ops[i];
		double a, b;

		if (o->op == EOP_CONST) {
			if (slot_taint)
				ts[sp] = 0;
			st[sp++] = o->k;
			continue;
		}
		if (o->op == EOP_SLOT) {
			if (slot_taint)
				ts[sp] = slot_taint[o->slot];
			st[sp++] = slots[o->slot];
			continue;
		}
		if (o->op == EOP_NEG) {
			st[sp - 1] = -st[sp - 1];
			continue;
		}
		if (o->op == EOP_SELECT) {
			double f = st[--sp], c = st[--sp];

			/* a select depends on its condition and the branch it takes only */
			if (is_zero(c)) {
				st[sp - 1] = f;
				if (slot_taint)
					ts[sp - 1] = ts[sp + 1];
			}
			if (slot_taint && ts[sp])
				ts[sp - 1] = ts[sp];
			continue;
		}
		b = st[--sp];
		a = st[sp - 1];
		if (slot_taint && !ts[sp - 1])
			ts[sp - 1] = ts[sp];
		switch (o->op) {
		case EOP_ADD: a = isnan(a) || isnan(b) ? NAN : a + b; break;
		case EOP_SUB: a = isnan(a) || isnan(b) ? NAN : a - b; break;
		case EOP_MUL: a = isnan(a) || isnan(b) ? NAN : a * b; break;
		case EOP_DIV:
			a = is_zero(b) || isnan(a) || isnan(b) ? NAN : a / b;
			break;
		case EOP_MOD:
			/* perf computes (long)a % (long)b. fmod of the truncated values is the
			 * same where that is defined, and stays defined past LONG_MAX; a divisor
			 * that truncates to 0 would trap in perf, so it is "% by 0" too. */
			if (is_zero(b) || (!isnan(b) && trunc(b) == 0)) {
				/* perf aborts the whole expression (YYABORT) */
				rc = -PMT_EDIV_ZERO;
				a = NAN;
			} else if (isnan(a) || isnan(b)) {
				a = NAN;
			} else {
				a = fmod(trunc(a), trunc(b));
			}
			break;
		case EOP_OR:
			a = isnan(a) || isnan(b) ? NAN : (is_zero(a) && is_zero(b) ? 0 : 1);
			break;
		case EOP_AND:
			a = isnan(a) || isnan(b) ? NAN : (is_zero(a) || is_zero(b) ? 0 : 1);
			break;
		case EOP_XOR:
			a = isnan(a) || isnan(b) ? NAN : (is_zero(a) != is_zero(b) ? 1 : 0);
			break;
		case EOP_LT: a = isnan(a) || isnan(b) ? NAN : a < b; break;
		case EOP_GT: a = isnan(a) || isnan(b) ? NAN : a > b; break;
		case EOP_GE: a = isnan(a) || isnan(b) ? NAN : a >= b; break;
		case EOP_LE: a = isnan(a) || isnan(b) ? NAN : a <= b; break;
		case EOP_EQ: a = isnan(a) || isnan(b) ? NAN : a == b; break;
		case EOP_MIN: a = a < b ? a : b; break;
		case EOP_MAX: a = a > b ? a : b; break;
		case EOP_DRATIO: a = b == 0 ? 0 : a / b; break;
		default: return -PMT_EINTERNAL;
		}
		st[sp - 1] = a;
	}
	*out = rc ? NAN : st[0];
	if (taint_out)
		*taint_out = sp ? ts[0] : 0;
	return rc;
}

int pmt_expr_eval(const struct pmt_expr *e, const double *slots, double *out)
{
	return eval_core(e, slots, out, NULL, NULL);
}

uint32_t expr_taint(const struct pmt_expr *e, const double *slots, const uint32_t *slot_taint)
{
	uint32_t taint = 0;
	double v;

	eval_core(e, slots, &v, slot_taint, &taint);
	return taint;
}
