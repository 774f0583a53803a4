/* The exports share one handle: struct pmt_export is the first member of each backend's
 * own struct, and the public calls (export.c) go through its operations. */
#ifndef PMUTRACE_EXPORT_BACKEND_H
#define PMUTRACE_EXPORT_BACKEND_H

#include "pmutrace/export.h"

struct export_ops {
	int (*sample)(struct pmt_export *x, const struct pmt_spe_sample *s);
	/* a sideband record (MMAP/MMAP2): NULL when the backend takes none */
	int (*event)(struct pmt_export *x, const struct pmt_trace_event *ev);
	/* a metric row: NULL when the backend keeps none */
	int (*metric)(struct pmt_export *x, const struct pmt_export_metric *m);
	int64_t (*finish)(struct pmt_export *x, const struct pmt_spe_rec_stats *stats,
			  uint32_t enabled, struct pmt_diag *diag);
	void (*free)(struct pmt_export *x);
};

struct pmt_export {
	const struct export_ops *ops;
};

/* A backend's struct of size bytes into *self (zeroed, ops set, its first member a struct
 * pmt_export) after the arguments were checked (*out = NULL until the backend is ready);
 * 0 or -PMT_E* with diag set. */
int export_alloc(size_t size, const struct export_ops *ops, const char *where,
		 const struct pmt_export_opts *opts, struct pmt_export **out, void **self,
		 struct pmt_diag *diag);

/* script --csv's op column: the operation class of a record's op bits */
const char *export_op_name(uint32_t op);

#endif
