/* bytes -> records -> samples under every itrace option and compat level. The first
 * byte picks the options; the rest is the SPE stream. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"

struct fctx {
	struct pmt_spe_sink *sink[3];
	struct pmt_spe_report *rep;
};

/* every sample through every sink format and the report */
static int count_sample(const struct pmt_spe_sample *s, void *ctx)
{
	struct fctx *c = ctx;

	for (int i = 0; i < 3; i++)
		pmt_spe_sink_write(c->sink[i], s);
	return pmt_spe_report_add(c->rep, s);
}

static int same_record(const struct pmt_spe_record *a, const struct pmt_spe_record *b)
{
	return a->offset == b->offset && a->events == b->events && a->from_ip == b->from_ip &&
	       a->to_ip == b->to_ip && a->prev_br_tgt == b->prev_br_tgt &&
	       a->virt_addr == b->virt_addr && a->phys_addr == b->phys_addr &&
	       a->timestamp == b->timestamp && a->context_id == b->context_id &&
	       a->op == b->op && a->latency == b->latency && a->issue_lat == b->issue_lat &&
	       a->xlat_lat == b->xlat_lat && a->source == b->source &&
	       a->op_class == b->op_class && a->op_payload == b->op_payload &&
	       a->has_ts == b->has_ts && a->partial == b->partial &&
	       a->npackets == b->npackets;
}

/* Oracle: the fused record assembler and the reference path (generic packet iterator) give
 * the same records and statistics, in one buffer or fed in chunks of `step` bytes. */
static void compare_paths(const uint8_t *data, size_t size, int emit_partial, size_t step)
{
	struct pmt_spe_rec_decoder *d[2];
	const struct pmt_spe_rec_stats *s[2];
	struct pmt_spe_record r[2];
	size_t pos = 0;

	for (int i = 0; i < 2; i++) {
		struct pmt_spe_rec_opts o = PMT_OPTS_INIT(pmt_spe_rec_opts,
							  .emit_partial = (uint8_t)emit_partial,
							  .reference = (uint8_t)i);

		if (pmt_spe_rec_new(&o, &d[i]) < 0)
			abort();
	}
	do {
		size_t n = step && step < size - pos ? step : size - pos;

		for (int i = 0; i < 2; i++)
			pmt_spe_rec_feed(d[i], data + pos, n, pos);
		for (;;) {
			int a = pmt_spe_rec_next(d[0], &r[0]);
			int b = pmt_spe_rec_next(d[1], &r[1]);

			if (a != b || (a == 1 && !same_record(&r[0], &r[1])))
				abort();
			if (a != 1)
				break;
		}
		pos += n;
	} while (pos < size);
	s[0] = pmt_spe_rec_stats(d[0]);
	s[1] = pmt_spe_rec_stats(d[1]);
	if (s[0]->records != s[1]->records || s[0]->bytes_skipped != s[1]->bytes_skipped ||
	    s[0]->bad_ranges != s[1]->bad_ranges || s[0]->records_dropped != s[1]->records_dropped ||
	    s[0]->have_bad != s[1]->have_bad || s[0]->first_bad_offset != s[1]->first_bad_offset)
		abort();
	pmt_spe_rec_free(d[0]);
	pmt_spe_rec_free(d[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const itr[] = { "bfmtaMi1i", "", "i3i", "bl", "Mi1i", "fmt", "a",
					   "i10us" };
	static const uint64_t midrs[] = { 0, 0x410fd0c0, 0x410fd4f0, 0xc00fac40 };
	struct pmt_spe_run_opts o;
	struct pmt_spe_rec_stats st;
	static FILE *devnull;
	static struct fctx c;
	struct pmt_out out;
	uint32_t en;
	char line[200];

	if (!size)
		return 0;
	compare_paths(data + 1, size - 1, data[0] & 8, 0);
	compare_paths(data + 1, size - 1, data[0] & 8, 17 + (data[0] & 0x37));
	o = PMT_OPTS_INIT(pmt_spe_run_opts);
	pmt_itrace_parse(itr[data[0] & 7], &o.itrace, NULL);
	o.compat = (data[0] & 8) ? PMT_PERF_6_1 : PMT_PERF_NEWEST;
	o.midr = midrs[(data[0] >> 4) & 3];
	o.raw_timed = (data[0] >> 6) & 1;
	o.tid = 1;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull || pmt_out_init(&out, devnull, 4096) < 0)
		return 0;
	c.rep = NULL;
	for (int i = 0; i < 3; i++)
		c.sink[i] = NULL;
	for (int i = 0; i < 3; i++) {
		struct pmt_spe_sink_opts so = { .sz = sizeof(so), .fmt = (enum pmt_sink_format)i,
						.compat = o.compat, .show_time = o.raw_timed };

		if (pmt_spe_sink_new(&out, &so, &c.sink[i]) < 0)
			goto done;
	}
	if (pmt_spe_report_new(&c.rep) < 0)
		goto done;
	pmt_spe_run_raw(data + 1, size - 1, &o, count_sample, &c, &st, &en);
	pmt_spe_report_print(c.rep, &out, data[0] >> 7, 3, o.compat, en);
done:
	pmt_spe_report_free(c.rep);
	for (int i = 0; i < 3; i++)
		pmt_spe_sink_free(c.sink[i]);
	pmt_out_fini(&out);
	pmt_spe_rec_stats_str(&st, line, sizeof(line));
	return 0;
}
