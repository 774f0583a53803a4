/* Private layout of a compiled metric expression (postfix code). */
#ifndef PMT_EXPR_PRIV_H
#define PMT_EXPR_PRIV_H

#include <stddef.h>
#include <stdint.h>

enum expr_opcode {
	EOP_CONST = 0, /* push k */
	EOP_SLOT,      /* push slots[slot] */
	EOP_ADD, EOP_SUB, EOP_MUL, EOP_DIV, EOP_MOD,
	EOP_OR, EOP_AND, EOP_XOR, EOP_LT, EOP_GT, EOP_GE, EOP_LE, EOP_EQ,
	EOP_NEG, EOP_MIN, EOP_MAX, EOP_DRATIO,
	EOP_SELECT,    /* stack: a c b -> (c == +-0 ? b : a) */
};

struct expr_op {
	uint32_t op;
	uint32_t slot;
	double k;
};

struct pmt_expr {
	struct expr_op *ops;
	int nr_ops;
	int max_depth;
	int nr_slots;
};

/* The first missing input (its slot_taint, non-zero) that the value of e depends on, 0 when
 * none: slot_taint[s] is non-zero for a slot whose value is missing. A select depends only
 * on its condition and the branch it takes, so a guarded missing event does not count. */
uint32_t expr_taint(const struct pmt_expr *e, const double *slots, const uint32_t *slot_taint);

/* e for n units at once, each operation over every unit before the next: slots[s * n + k]
 * is slot s of unit k, stack has room for (e->max_depth + 1) x n values. out[k] is unit
 * k's value, NaN where its "%" divided by 0, and failed[k] is set then (never cleared: the
 * caller zeroes it per expression). Returns 0 or -PMT_EINTERNAL. */
int expr_eval_columns(const struct pmt_expr *e, const double *slots, size_t n, double *stack,
		      double *out, uint8_t *failed);

/* Evaluation stack bound; deeper expressions are rejected at compile time. */
#define EXPR_MAX_DEPTH 256

#endif
