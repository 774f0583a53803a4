/* The calls every export takes, passed to its backend (backend.h). */
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/export.h"
#include "backend.h"

int pmt_export_sample(struct pmt_export *x, const struct pmt_spe_sample *s)
{
	return x->ops->sample(x, s);
}

int pmt_export_sample_fn(const struct pmt_spe_sample *s, void *ctx)
{
	struct pmt_export *x = ctx;

	return x->ops->sample(x, s);
}

int pmt_export_event(struct pmt_export *x, const struct pmt_trace_event *ev)
{
	return x->ops->event ? x->ops->event(x, ev) : 0;
}

int pmt_export_metric(struct pmt_export *x, const struct pmt_export_metric *m)
{
	return x->ops->metric ? x->ops->metric(x, m) : 0;
}

int64_t pmt_export_finish(struct pmt_export *x, const struct pmt_spe_rec_stats *stats,
			  uint32_t enabled, struct pmt_diag *diag)
{
	return x->ops->finish(x, stats, enabled, diag);
}

void pmt_export_free(struct pmt_export *x)
{
	if (x)
		x->ops->free(x);
}

const char *export_op_name(uint32_t op)
{
	if (op & PMT_SPE_OP_F_LDST)
		return (op & PMT_SPE_OP_F_ST) ? "ST" : "LD";
	if (op & PMT_SPE_OP_F_BRANCH)
		return "BR";
	return (op & PMT_SPE_OP_F_OTHER) ? "OTHER" : "";
}

int export_alloc(size_t size, const struct export_ops *ops, const char *where,
		 const struct pmt_export_opts *opts, struct pmt_export **out, void **self,
		 struct pmt_diag *diag)
{
	struct pmt_export *x;

	if (out)
		*out = NULL;
	if (!where || !out || !PMT_OPTS_HAS(opts, compat))
		return pmt_diag_set(diag, -PMT_EINVAL, where, PMT_DIAG_NO_OFFSET,
				    "invalid export options");
	x = calloc(1, size);
	if (!x)
		return pmt_diag_set(diag, -PMT_ENOMEM, where, PMT_DIAG_NO_OFFSET, "out of memory");
	x->ops = ops;
	*self = x;
	return 0;
}
