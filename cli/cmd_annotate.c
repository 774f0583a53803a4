/* pmutrace annotate: hot functions' instructions with their samples and latencies
 * (decode/output's pmt_annotate over script's decode wiring). */
#include <getopt.h>
#include <stdlib.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/output.h"

struct annotate_ctx {
	struct pmt_annotate_opts o;
	struct pmt_annotate *a;
	struct pmt_out out;
	int compat;
};

enum { OPT_SYMBOL = 1000, OPT_EVENT, OPT_TOP };

static int on_opt(void *vctx, int c, const char *arg)
{
	struct annotate_ctx *ctx = vctx;
	uint64_t v;

	switch (c) {
	case 's':
	case OPT_SYMBOL: ctx->o.symbol = arg; return 0;
	case OPT_EVENT: ctx->o.event = arg; return 0;
	case OPT_TOP:
		if (pmt_parse_u64(arg, &v) || !v || v > 10000)
			return pmt_cli_usage_fail("annotate", "bad --top '%s' (1..10000)", arg);
		ctx->o.top = (unsigned)v;
		return 0;
	default:
		return PMT_EXIT_USAGE;
	}
}

static int on_begin(void *vctx, const char *path, const struct pmt_trace_meta *meta, int compat,
		    struct pmt_symbols *syms)
{
	struct annotate_ctx *ctx = vctx;

	(void)path;
	ctx->o.meta = meta;
	ctx->compat = compat;
	if (!syms)
		return pmt_cli_fail("annotate", "no address spaces: annotate needs a trace with "
				    "its MMAP records (not --raw)");
	if (pmt_annotate_new(syms, &ctx->o, &ctx->a) < 0 || pmt_out_init(&ctx->out, stdout, 1 << 16))
		return pmt_cli_fail("annotate", "out of memory");
	return 0;
}

static int on_sample(const struct pmt_spe_sample *s, void *vctx)
{
	struct annotate_ctx *ctx = vctx;

	return pmt_annotate_add(ctx->a, s);
}

static int on_end(void *vctx, int rc, const struct pmt_spe_rec_stats *st, uint32_t enabled)
{
	struct annotate_ctx *ctx = vctx;
	struct pmt_diag diag = PMT_DIAG_INIT;
	int status = 0;

	(void)st;
	(void)enabled;
	if (!ctx->a)
		return rc < 0 ? PMT_EXIT_ERROR : 0;
	if (rc >= 0 && pmt_annotate_print(ctx->a, &ctx->out, ctx->compat, &diag) < 0)
		status = pmt_cli_fail_diag("annotate", &diag);
	if (pmt_out_fini(&ctx->out) < 0 && !status)
		status = pmt_cli_fail("annotate", "writing the output failed");
	pmt_annotate_free(ctx->a);
	return rc < 0 ? PMT_EXIT_ERROR : status;
}

int cmd_annotate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "symbol", required_argument, NULL, OPT_SYMBOL },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "top", required_argument, NULL, OPT_TOP },
		{ NULL, 0, NULL, 0 },
	};
	struct annotate_ctx ctx = { .o = { .sz = sizeof(ctx.o) } };
	const struct spe_consumer c = {
		.usage = "usage: pmutrace annotate [-i] [FILE] [-s|--symbol NAME] [--event NAME] [--top N]\n"
			 "         [--symfs DIR] [--kallsyms FILE] [--itrace=OPTS] [filters]\n"
			 "  The hottest functions (default 5; --symbol: that one), disassembled with\n"
			 "  each instruction's share of the event's samples (default instructions),\n"
			 "  its samples, the average total, issue and translation latency of its SPE\n"
			 "  samples, and the source line (file:line) where it changes.\n",
		.opts = opts,
		.shortopts = "s:",
		.opt = on_opt,
		.begin = on_begin,
		.sample = on_sample,
		.end = on_end,
		.ctx = &ctx,
	};

	return spe_decode_consume(argc, argv, &c);
}
