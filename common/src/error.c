#include "pmutrace/common.h"

static const char *const pmt_error_names[PMT_ERROR_COUNT] = {
	[PMT_OK] = "success",
	[PMT_EINTERNAL] = "internal error",
	[PMT_EINVAL] = "invalid argument",
	[PMT_ENOMEM] = "out of memory",
	[PMT_EEOS] = "end of stream",
	[PMT_ENEED_MORE] = "truncated input (need more bytes)",
	[PMT_EBAD_PACKET] = "bad packet",
	[PMT_EIO] = "input/output error",
	[PMT_EFORMAT] = "unrecognised file format",
	[PMT_EVERSION] = "unsupported format version",
	[PMT_ECORRUPT] = "corrupt data",
	[PMT_EUNSUPPORTED] = "unsupported feature",
	[PMT_EPARSE] = "syntax error",
	[PMT_ENOT_FOUND] = "not found",
	[PMT_EPERM] = "permission denied",
	[PMT_ENO_PMU] = "PMU not available",
	[PMT_ECYCLE] = "circular definition",
	[PMT_EDIV_ZERO] = "modulo by zero",
	[PMT_ERANGE] = "value out of range",
	[PMT_ENOSYNC] = "decoder not synchronised",
	[PMT_ECOMPRESS] = "compression error",
	[PMT_ELOST] = "data lost",
};

const char *pmt_errstr(int err)
{
	if (err < 0)
		err = -err;
	if (err >= PMT_ERROR_COUNT || !pmt_error_names[err])
		return "unknown error";
	return pmt_error_names[err];
}
