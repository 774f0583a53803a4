#include "pmutrace/common.h"

#include "progress_priv.h"

static enum pmt_log_level pmt_log_level = PMT_LOG_WARN;
static pmt_log_fn pmt_log_sink;
static void *pmt_log_ctx;
/* added to atomically: threads warn too (metrics' printing thread beside its reader) */
static unsigned long pmt_log_counts[PMT_LOG_DEBUG + 1];

static void count_one(enum pmt_log_level level)
{
	__atomic_fetch_add(&pmt_log_counts[level], 1, __ATOMIC_RELAXED);
}

unsigned long pmt_log_count(enum pmt_log_level level)
{
	if ((unsigned)level > PMT_LOG_DEBUG)
		return 0;
	return __atomic_load_n(&pmt_log_counts[level], __ATOMIC_RELAXED);
}

void pmt_cli_warn(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	count_one(PMT_LOG_WARN);
	progress_interrupt();
	fprintf(stderr, "pmutrace %s: warning: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

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
	count_one(level);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	progress_interrupt();
	if (pmt_log_sink)
		pmt_log_sink(level, msg, pmt_log_ctx);
	else
		fprintf(stderr, "pmutrace: %s: %s\n", prefix[level], msg);
}
