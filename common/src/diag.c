#include <inttypes.h>

#include "pmutrace/common.h"

static int diag_vset(struct pmt_diag *d, int code, const char *file, uint64_t offset,
		     uint32_t line, const char *fmt, va_list ap)
{
	if (code > 0)
		code = -code;
	if (!d)
		return code;
	d->code = code;
	d->file = file;
	d->offset = offset;
	d->line = line;
	d->column = -1;
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	return code;
}

int pmt_diag_set(struct pmt_diag *d, int code, const char *file, uint64_t offset,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = diag_vset(d, code, file, offset, 0, fmt, ap);
	va_end(ap);
	return code;
}

int pmt_diag_set_line(struct pmt_diag *d, int code, const char *file, uint32_t line,
		      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = diag_vset(d, code, file, PMT_DIAG_NO_OFFSET, line, fmt, ap);
	va_end(ap);
	return code;
}

int pmt_diag_set_column(struct pmt_diag *d, int code, const char *file, uint32_t line,
			int32_t column, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = diag_vset(d, code, file, PMT_DIAG_NO_OFFSET, line, fmt, ap);
	va_end(ap);
	if (d)
		d->column = column;
	return code;
}

int pmt_diag_warn(struct pmt_diag *d, int code, const char *file, uint64_t offset,
		  uint32_t line, const char *fmt, ...)
{
	struct pmt_diag damage;
	char buf[sizeof(damage.msg) + 4096];
	va_list ap;

	va_start(ap, fmt);
	code = diag_vset(&damage, code, file, offset, line, fmt, ap);
	va_end(ap);
	pmt_diag_format(&damage, buf, sizeof(buf));
	pmt_warn("%s", buf);
	if (d && !d->code)
		*d = damage;
	return code;
}

int pmt_diag_format(const struct pmt_diag *d, char *out, size_t cap)
{
	const char *msg = d->msg[0] ? d->msg : pmt_errstr(d->code);

	if (d->file && d->line && d->column >= 0)
		return snprintf(out, cap, "%s:%" PRIu32 ":%" PRId32 ": %s", d->file, d->line,
				d->column, msg);
	if (d->file && d->line)
		return snprintf(out, cap, "%s:%" PRIu32 ": %s", d->file, d->line, msg);
	if (d->file && d->offset != PMT_DIAG_NO_OFFSET)
		return snprintf(out, cap, "%s: offset %#" PRIx64 ": %s", d->file, d->offset, msg);
	if (d->file)
		return snprintf(out, cap, "%s: %s", d->file, msg);
	return snprintf(out, cap, "%s", msg);
}

void pmt_diag_print(const struct pmt_diag *d)
{
	char buf[sizeof(d->msg) + 4096]; /* the file name may be a long path */

	pmt_diag_format(d, buf, sizeof(buf));
	pmt_error("%s", buf);
}
