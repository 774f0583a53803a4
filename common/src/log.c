#include "pmutrace/common.h"

static enum pmt_log_level pmt_log_level = PMT_LOG_WARN;
static pmt_log_fn pmt_log_sink;
static void *pmt_log_ctx;

void pmt_log_set_level(enum pmt_log_level level) { pmt_log_level = level; }
enum pmt_log_level pmt_log_get_level(void) { return pmt_log_level; }

void pmt_log_set_sink(pmt_log_fn fn, void *ctx)
{
	pmt_log_sink = fn;
	pmt_log_ctx = ctx;
}

void pmt_log(enum pmt_log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = { "error", "warning", "info", "debug" };
	char msg[1024];
	va_list ap;

	if (level > pmt_log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (pmt_log_sink)
		pmt_log_sink(level, msg, pmt_log_ctx);
	else
		fprintf(stderr, "pmutrace: %s: %s\n", prefix[level], msg);
}
