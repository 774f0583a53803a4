/* Postfix evaluator with perf's expr.y semantics (see tpebs.md §2, "Semantics"; its
 * "NaN propagates" for | & ^ is older perf's: perf 7.3's are logic_or()/logic_and()). */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "expr_priv.h"
#include "pmutrace/common.h"
#include "pmutrace/metrics.h"

static inline int is_zero(double v)
{
	return fpclassify(v) == FP_ZERO;
}

/* perf 7.3's '|' and '&' (expr.y since 6.5) decide from one side when that side is finite
 * ("is_const") and settles the result: 1 | x is 1 and 0 & x is 0 whatever x is, NaN too;
 * a finite side that does not settle it (0 | x, 1 & x) gives the other side as it is; two
 * sides that are not finite give NaN. So a threshold such as "m > 0.2 & other > 0.1" is
 * 0 ("good") when m is NaN but other is not over, and NaN (no class) when other is over:
 * perf 7.3's -j prints "metric-threshold" : "good" for a NaN tma_lock_latency this way. */
static inline double logic_or(double a, double b)
{
	if (isfinite(a) && isfinite(b))
		return is_zero(a) && is_zero(b) ? 0 : 1;
	if (isfinite(a))
		return is_zero(a) ? b : 1;
	if (isfinite(b))
		return is_zero(b) ? a : 1;
	return NAN;
}

static inline double logic_and(double a, double b)
{
	if (isfinite(a) && isfinite(b))
		return is_zero(a) || is_zero(b) ? 0 : 1;
	if (isfinite(a))
		return is_zero(a) ? 0 : b;
	if (isfinite(b))
		return is_zero(b) ? 0 : a;
	return NAN;
}

/* One binary operation (not NEG or SELECT); *rc set for "%" by 0. Shared by the unit-by-unit
 * and the column evaluators, so they cannot differ. */
static inline __attribute__((always_inline)) double apply_op(uint32_t op, double a, double b,
							     int *rc)
{
	switch (op) {
	case EOP_ADD: return isnan(a) || isnan(b) ? NAN : a + b;
	case EOP_SUB: return isnan(a) || isnan(b) ? NAN : a - b;
	case EOP_MUL: return isnan(a) || isnan(b) ? NAN : a * b;
	case EOP_DIV: return is_zero(b) || isnan(a) || isnan(b) ? NAN : a / b;
	case EOP_MOD:
		/* perf computes (long)a % (long)b. fmod of the truncated values is the same
		 * where that is defined, and stays defined past LONG_MAX; a divisor that
		 * truncates to 0 would trap in perf, so it is "% by 0" too. */
		if (is_zero(b) || (!isnan(b) && trunc(b) == 0)) {
			/* perf aborts the whole expression (YYABORT) */
			*rc = -PMT_EDIV_ZERO;
			return NAN;
		}
		return isnan(a) || isnan(b) ? NAN : fmod(trunc(a), trunc(b));
	case EOP_OR: return logic_or(a, b);
	case EOP_AND: return logic_and(a, b);
	case EOP_XOR: return isfinite(a) && isfinite(b) ? is_zero(a) != is_zero(b) : NAN;
	case EOP_LT: return isnan(a) || isnan(b) ? NAN : a < b;
	case EOP_GT: return isnan(a) || isnan(b) ? NAN : a > b;
	case EOP_GE: return isnan(a) || isnan(b) ? NAN : a >= b;
	case EOP_LE: return isnan(a) || isnan(b) ? NAN : a <= b;
	case EOP_EQ: return isnan(a) || isnan(b) ? NAN : a == b;
	case EOP_MIN: return a < b ? a : b;
	case EOP_MAX: return a > b ? a : b;
	case EOP_DRATIO: return b == 0 ? 0 : a / b;
	default: *rc = -PMT_EINTERNAL; return NAN;
	}
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
		st[sp - 1] = apply_op(o->op, a, b, &rc);
		/* a '|' or '&' one finite side settled depends on that side only */
		if (slot_taint && (o->op == EOP_OR || o->op == EOP_AND) &&
		    isfinite(st[sp - 1]) && !(isfinite(a) && isfinite(b)))
			ts[sp - 1] = isfinite(a) ? ts[sp - 1] : ts[sp];
		else if (slot_taint && !ts[sp - 1])
			ts[sp - 1] = ts[sp];
		if (rc == -PMT_EINTERNAL)
			return rc;
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

/* a[k] = a[k] op b[k]; op is a constant at every call, so each loop is one operation's */
static inline __attribute__((always_inline)) void op_columns(uint32_t op, double *a,
							     const double *b, size_t n,
							     uint8_t *failed)
{
	for (size_t k = 0; k < n; k++) {
		int rc = 0;

		a[k] = apply_op(op, a[k], b[k], &rc);
		failed[k] |= rc != 0;
	}
}

static bool binary_op(uint32_t op)
{
	return op >= EOP_ADD && op <= EOP_DRATIO && op != EOP_NEG;
}

/* a[k] = a[k] op b[k] for every unit; -PMT_EINTERNAL for an unknown op */
static int column_op(uint32_t op, double *a, const double *b, size_t n, uint8_t *failed)
{
	switch (op) {
#define COLUMN_OP(OP) case OP: op_columns(OP, a, b, n, failed); return 0;
	COLUMN_OP(EOP_ADD) COLUMN_OP(EOP_SUB) COLUMN_OP(EOP_MUL) COLUMN_OP(EOP_DIV)
	COLUMN_OP(EOP_MOD) COLUMN_OP(EOP_OR) COLUMN_OP(EOP_AND) COLUMN_OP(EOP_XOR)
	COLUMN_OP(EOP_LT) COLUMN_OP(EOP_GT) COLUMN_OP(EOP_GE) COLUMN_OP(EOP_LE)
	COLUMN_OP(EOP_EQ) COLUMN_OP(EOP_MIN) COLUMN_OP(EOP_MAX) COLUMN_OP(EOP_DRATIO)
#undef COLUMN_OP
	default: return -PMT_EINTERNAL;
	}
}

int expr_eval_columns(const struct pmt_expr *e, const double *slots, size_t n, double *stack,
		      double *out, uint8_t *failed)
{
	int sp = 0;

	if (!e->nr_ops) {
		for (size_t k = 0; k < n; k++)
			out[k] = NAN;
		return 0;
	}
	for (int i = 0; i < e->nr_ops; i++) {
		const struct expr_op *o = &e->ops[i];
		double *top = stack + (size_t)sp * n;

		switch (o->op) {
		case EOP_CONST:
			for (size_t k = 0; k < n; k++)
				top[k] = o->k;
			sp++;
			continue;
		case EOP_SLOT:
			/* a slot that is the right operand goes to the operation in place
			 * rather than through the stack (most operands are slots) */
			if (i + 1 < e->nr_ops && sp && binary_op(o[1].op)) {
				if (column_op(o[1].op, top - n, slots + (size_t)o->slot * n, n,
					      failed) < 0)
					return -PMT_EINTERNAL;
				i++;
				continue;
			}
			memcpy(top, slots + (size_t)o->slot * n, n * sizeof(*top));
			sp++;
			continue;
		case EOP_NEG: {
			double *a = top - n;

			for (size_t k = 0; k < n; k++)
				a[k] = -a[k];
			continue;
		}
		case EOP_SELECT: {
			/* stack: t c f -> (c == +-0 ? f : t) */
			double *t = top - 3 * n, *c = top - 2 * n, *f = top - n;

			for (size_t k = 0; k < n; k++)
				if (is_zero(c[k]))
					t[k] = f[k];
			sp -= 2;
			continue;
		}
		default:
			if (column_op(o->op, top - 2 * n, top - n, n, failed) < 0)
				return -PMT_EINTERNAL;
			sp--;
		}
	}
	for (size_t k = 0; k < n; k++)
		out[k] = failed[k] ? NAN : stack[k];
	return 0;
}

uint32_t expr_taint(const struct pmt_expr *e, const double *slots, const uint32_t *slot_taint)
{
	uint32_t taint = 0;
	double v;

	eval_core(e, slots, &v, slot_taint, &taint);
	return taint;
}
