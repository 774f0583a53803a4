/* Fuzz a perf.data through the whole samples path: trace source -> per-CPU SPE queues ->
 * records -> synthetic samples, and the trace's own SAMPLE records -> every sample writer
 * (with the trace's event table), the report, the --sort histogram and report --c2c's
 * tables (the trace's NUMA topology read for its Node column) (the perf.data-only
 * targets never reached the sampler, so a corrupt TIME_CONV went unnoticed), with the
 * sideband fed to the symbols and --call-graph dwarf stacks unwound. The first
 * byte picks the --itrace options and the compat level; the rest is the file. Then the
 * samples are decoded again with and without decode threads (-j), which must give the
 * same samples in the same order, the same damage counts and the same return value, and
 * with the samples made on a thread of their own too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/perfdata.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"
#include "pmutrace/symbols.h"

struct fctx {
	struct pmt_spe_sink *sink[3];
	struct pmt_spe_report *rep;
	struct pmt_hist *hist;
	struct pmt_c2c *c2c;
};

static void quiet(enum pmt_log_level level, const char *msg, void *ctx) { }

/* the address spaces, so that --call-graph dwarf samples reach the unwinder */
static int feed(const struct pmt_trace_event *ev, void *ctx)
{
	return pmt_symbols_add_event(ctx, ev);
}

static int unwind(const struct pmt_sample *smp, uint64_t *ips, unsigned max, void *ctx)
{
	return pmt_symbols_unwind(ctx, smp, ips, max);
}

static int to_all(const struct pmt_spe_sample *s, void *ctx)
{
	struct fctx *c = ctx;

	for (int i = 0; i < 3; i++)
		pmt_spe_sink_write(c->sink[i], s);
	if (pmt_hist_add(c->hist, s) < 0 || pmt_c2c_add(c->c2c, s) < 0)
		return -1;
	return pmt_spe_report_add(c->rep, s);
}

struct digest {
	uint64_t n, hash;
	/* block mode: each slot's samples as its rows callback saw them (in parts or whole),
	 * hashed in block order when the block goes out */
	struct pmt_spe_sample *slot[PMT_SPE_BLOCK_SLOTS];
	size_t slot_n[PMT_SPE_BLOCK_SLOTS], slot_cap[PMT_SPE_BLOCK_SLOTS];
};

static int hash_sample(const struct pmt_spe_sample *s, void *ctx)
{
	struct digest *d = ctx;
	uint64_t v[] = { s->event, s->cpu, (uint32_t)s->pid, (uint32_t)s->tid, s->flags, s->time,
			 s->ip, s->addr, s->period, s->weight, s->data_src };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		d->hash = (d->hash ^ v[i]) * 0x100000001b3ULL;
	d->n++;
	return 0;
}

static uint64_t hash_one(const struct pmt_spe_sample *s)
{
	struct digest d = { .hash = 0xcbf29ce484222325ULL };

	hash_sample(s, &d);
	return d.hash;
}

/* on either thread: what the block's rows would be made of, the parts it comes in after
 * the ones before */
static int block_rows(unsigned slot, const struct pmt_spe_sample *s, size_t n, void *ctx)
{
	struct digest *d = ctx;

	if (slot >= PMT_SPE_BLOCK_SLOTS)
		abort();
	if (d->slot_n[slot] + n > d->slot_cap[slot]) {
		size_t cap = 2 * (d->slot_n[slot] + n);
		struct pmt_spe_sample *m = realloc(d->slot[slot], cap * sizeof(*m));

		if (!m)
			abort();
		d->slot[slot] = m;
		d->slot_cap[slot] = cap;
	}
	if (n)
		memcpy(d->slot[slot] + d->slot_n[slot], s, n * sizeof(*s));
	d->slot_n[slot] += n;
	return 0;
}

/* in order: the block's count and first sample are those the rows were made of; its samples
 * count in order */
static int block_out(unsigned slot, const struct pmt_spe_sample *s, size_t n, void *ctx)
{
	struct digest *d = ctx;

	if (slot >= PMT_SPE_BLOCK_SLOTS || d->slot_n[slot] != n ||
	    (n && hash_one(s) != hash_one(d->slot[slot])))
		abort();
	for (size_t i = 0; i < n; i++)
		hash_sample(&d->slot[slot][i], d);
	d->slot_n[slot] = 0;
	return 0;
}

/* the samples of o over buf with threads decode threads: their digest, stats and rc;
 * sample_thread 2: in blocks (rows made by either thread) */
static int digest_run(const uint8_t *buf, size_t size, const struct pmt_spe_run_opts *o,
		      uint32_t threads, int sample_thread, struct digest *d,
		      struct pmt_spe_rec_stats *st)
{
	struct pmt_spe_run_opts ro = *o;
	struct pmt_source *src;
	int rc;

	ro.decode_threads = threads;
	ro.sample_thread = sample_thread > 0;
	if (sample_thread == 2) {
		ro.block_rows_fn = block_rows;
		ro.block_out_fn = block_out;
	}
	ro.event_fn = NULL; /* the symbols are gone */
	ro.unwind_fn = NULL;
	d->n = 0;
	d->hash = 0xcbf29ce484222325ULL;
	memset(d->slot, 0, sizeof(d->slot));
	memset(d->slot_n, 0, sizeof(d->slot_n));
	memset(d->slot_cap, 0, sizeof(d->slot_cap));
	memset(st, 0, sizeof(*st));
	if (pmt_source_open_mem(buf, size, &src, NULL) != 0)
		return 1;
	rc = pmt_spe_run_source(src, &ro, hash_sample, d, st, NULL);
	pmt_source_close(src);
	for (unsigned i = 0; i < PMT_SPE_BLOCK_SLOTS; i++)
		free(d->slot[i]);
	return rc;
}

static void same_with_threads(const uint8_t *buf, size_t size, const struct pmt_spe_run_opts *o)
{
	struct pmt_spe_rec_stats st1, st2;
	struct digest d1, d2;
	int rc1 = digest_run(buf, size, o, 0, 0, &d1, &st1);

	/* records decoded on workers; the samples made on a thread of their own, with and
	 * without the record workers, and in blocks */
	for (int v = 0; v < 4; v++) {
		int rc2 = digest_run(buf, size, o, v < 2 ? 2 : 0, v == 3 ? 2 : v > 0, &d2, &st2);

		if (rc1 != rc2 || d1.n != d2.n || d1.hash != d2.hash ||
		    memcmp(&st1, &st2, sizeof(st1)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const itr[] = { "", "bfmtaMi1i", "i1il", "bl", "i3i", "M", "bfmtaMi1il",
					   "t" };
	static FILE *devnull;
	struct fctx c = { { NULL, NULL, NULL }, NULL, NULL, NULL };
	struct pmt_symbols_opts syo = { .sz = sizeof(syo), .debuginfod = "" };
	struct pmt_symbols *syms = NULL;
	struct pmt_spe_run_opts o;
	struct pmt_source *src;
	struct pmt_out out;
	uint32_t en = 0;
	uint8_t *copy;

	if (size < 1)
		return 0;
	pmt_log_set_sink(quiet, NULL);
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	copy = malloc(size); /* exact size: overreads hit the redzone */
	if (!copy || !devnull || pmt_out_init(&out, devnull, 4096) < 0) {
		free(copy);
		return 0;
	}
	memcpy(copy, data + 1, size - 1);
	o = PMT_OPTS_INIT(pmt_spe_run_opts);
	pmt_itrace_parse(itr[data[0] & 7], &o.itrace, NULL);
	o.compat = (data[0] & 8) ? PMT_PERF_6_1 : PMT_PERF_NEWEST;
	o.tid = -1;
	if (pmt_source_open_mem(copy, size - 1, &src, NULL) == 0) {
		for (int i = 0; i < 3; i++) {
			struct pmt_spe_sink_opts so = { .sz = sizeof(so),
							.fmt = (enum pmt_sink_format)i,
							.compat = o.compat, .show_time = true,
							.meta = pmt_source_meta(src) };

			if (pmt_spe_sink_new(&out, &so, &c.sink[i]) < 0)
				goto done;
		}
		if (pmt_spe_report_new(&c.rep) < 0 || pmt_symbols_new(&syo, &syms) < 0 ||
		    pmt_hist_new("sym,dso,comm,cpu", syms, &c.hist, NULL) < 0)
			goto done;
		pmt_hist_set_trace(c.hist, pmt_source_meta(src));
		{
			struct pmt_c2c_opts co = PMT_OPTS_INIT(pmt_c2c_opts, .compat = o.compat,
							       .meta = pmt_source_meta(src),
							       .display = -1,
							       .flags = (unsigned)(data[0] >> 3) & 15);

			if (pmt_c2c_new(syms, &co, &c.c2c) < 0)
				goto done;
		}
		o.event_fn = feed;
		o.event_ctx = syms;
		o.unwind_fn = unwind;
		o.unwind_ctx = syms;
		pmt_spe_run_source(src, &o, to_all, &c, NULL, &en);
		pmt_spe_report_print(c.rep, &out, data[0] >> 7, 3, o.compat, en);
		pmt_hist_print(c.hist, &out, o.compat, 0);
		pmt_c2c_print(c.c2c, &out, (enum pmt_sink_format)((data[0] >> 4) % 3));
done:
		pmt_c2c_free(c.c2c);
		pmt_hist_free(c.hist);
		pmt_symbols_free(syms);
		pmt_spe_report_free(c.rep);
		for (int i = 0; i < 3; i++)
			pmt_spe_sink_free(c.sink[i]);
		pmt_source_close(src);
	}
	pmt_out_fini(&out);
	if (size > 1)
		same_with_threads(copy, size - 1, &o);
	free(copy);
	return 0;
}
