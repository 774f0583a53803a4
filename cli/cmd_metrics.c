/* pmutrace metrics: evaluate metric tables on counts, with retire latencies from samples
 * or tables; --topdown decodes raw SLOTS/PERF_METRICS values. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "commands.h"
#include "pmutrace/common.h"
#include "pmutrace/metrics.h"
#include "pmutrace/perfdata.h"
#include "handoff.h"
#include "metric_opts.h"

/* --json is one JSON document (an array of row objects), --jsonl one object per line, as
 * in every command */
enum { OUT_TEXT, OUT_CSV, OUT_JSON, OUT_JSONL };
/* units evaluated together: a round of a 64-CPU recording (the plan's columns are
 * (inputs + metrics) x this many values) */
enum { UNIT_BLOCK = 64 };
/* intervals summed ahead of the printing thread with -j 2+ (run()): it is woken once half
 * of them wait */
enum { RING = 8 };
/* rows of an interval below which it is printed on the reader's thread (see run()) */
enum { PIPE_ROWS = 128 };

/* Before a JSON row: "[" for the first row of a document, "," between rows. */
static void json_row_start(struct pmt_out *o, int fmt, int *rows)
{
	if (fmt == OUT_JSON)
		pmt_out_str(o, (*rows)++ ? ",\n" : "[\n");
}

/* After the last row: close the document ("[]" when it had none). */
static void json_end(struct pmt_out *o, int fmt, int rows)
{
	if (fmt == OUT_JSON)
		pmt_out_str(o, rows ? "\n]\n" : "[]\n");
}

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: pmutrace metrics [[-i] TRACE] --metrics FILE [--events FILE] [--counts FILE]\n"
		"         [--retire-latency mean|min|max|last|median|pNN]... [--retire-latency TABLE]...\n"
		"         [--retire-latency-per-unit] [-A|--per-core|--per-die|--per-socket|--global]\n"
		"         [-M NAME|GROUP]...\n"
		"         [--literal NAME=VALUE]... [--cpuid STR] [--csv|--json|--jsonl] [-j N] [-v]\n"
		"       pmutrace metrics --metrics FILE --list [-M NAME|GROUP]...\n"
		"       pmutrace metrics --topdown --slots N --perf-metrics 0xM\n"
		"         [--prev-slots N --prev-perf-metrics 0xM] [--csv|--json|--jsonl]\n"
		"TRACE: perf.data with PERF_SAMPLE_WEIGHT_STRUCT samples (retire latency = weight\n"
		"bits 63:48). Without samples for an :R event the table default is used.\n"
		"pNN is the sorted value at index floor(NN/100 x count): p50 is the MEDIAN.\n"
		"--retire-latency-per-unit (or -per-cpu): each unit's rows (CPU, core, die, socket,\n"
		"interval) take the statistic of that unit's own samples; a unit without takes\n"
		"every unit's value (an interval: the table's default), with a warning.\n"
		"-A, --per-core, --per-die, --per-socket, --global: how a TRACE's counts read per\n"
		"CPU are summed (perf stat report's options; default: as recorded). Per core, die\n"
		"or socket needs the recording's CPU topology.\n"
		"-j, --jobs N: a container's frames are decompressed on N - 1 threads ahead of\n"
		"the reading, its counts frames decoded on N, and the metrics evaluated and\n"
		"printed on one more (default: the online CPUs; 1: none); the output is the same.\n"
		"-v, --verbose: say how a TRACE's counts are read (counts frames or STAT records,\n"
		"and why a counts frame is not used).\n");
	fputs(pmt_cli_exit_help, fp);
}

static int set_literal(struct pmt_expr_ctx *ctx, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[64];
	double v;

	if (!eq || (size_t)(eq - arg) >= sizeof(name) || pmt_parse_double(eq + 1, &v) < 0)
		return -PMT_EPARSE;
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = 0;
	return pmt_expr_ctx_set(ctx, name, v);
}

/* A value as text and CSV print it: "nan" and "inf"/"-inf" one way everywhere. */
static void out_num(struct pmt_out *o, double v)
{
	if (isnan(v))
		pmt_out_str(o, "nan");
	else if (isinf(v))
		pmt_out_str(o, v > 0 ? "inf" : "-inf");
	else
		pmt_out_double(o, v, fabs(v) >= 1e6 ? 1 : 6);
}

static int topdown(uint64_t slots, uint64_t m, uint64_t ps, uint64_t pm, int fmt)
{
	struct pmt_topdown t;
	struct pmt_out o;
	int nrows = 0;
	const struct {
		const char *name;
		int level;
		double v;
	} rows[] = {
		{ "tma_retiring", 1, 0 }, { "tma_bad_speculation", 1, 0 },
		{ "tma_frontend_bound", 1, 0 }, { "tma_backend_bound", 1, 0 },
		{ "tma_heavy_operations", 2, 0 }, { "tma_light_operations", 2, 0 },
		{ "tma_branch_mispredicts", 2, 0 }, { "tma_machine_clears", 2, 0 },
		{ "tma_fetch_latency", 2, 0 }, { "tma_fetch_bandwidth", 2, 0 },
		{ "tma_memory_bound", 2, 0 }, { "tma_core_bound", 2, 0 },
	};
	double v[12];

	if (pmt_topdown_decode(slots, m, ps, pm, &t) < 0)
		return pmt_cli_fail("metrics", "--slots must be larger than --prev-slots");
	v[0] = t.retiring; v[1] = t.bad_spec; v[2] = t.fe_bound; v[3] = t.be_bound;
	v[4] = t.heavy_ops; v[5] = t.light_ops; v[6] = t.br_mispredict; v[7] = t.machine_clears;
	v[8] = t.fetch_lat; v[9] = t.fetch_bw; v[10] = t.mem_bound; v[11] = t.core_bound;
	pmt_out_init(&o, stdout, 1 << 14);
	if (fmt == OUT_CSV)
		pmt_out_str(&o, "metric,level,value,unit\n");
	/* text as perf prints a share (two decimals); CSV and JSON with the six decimals of
	 * the metric rows, so a reader rounds once, not twice */
	for (int i = 0; i < 12; i++) {
		if (fmt == OUT_CSV) {
			pmt_out_printf(&o, "%s,%d,", rows[i].name, rows[i].level);
			pmt_out_double(&o, v[i] * 100, 6);
			pmt_out_str(&o, ",%\n");
		} else if (fmt == OUT_JSON || fmt == OUT_JSONL) {
			json_row_start(&o, fmt, &nrows);
			pmt_out_printf(&o, "{\"metric\":\"%s\",\"level\":%d,\"value\":", rows[i].name,
				       rows[i].level);
			pmt_out_double(&o, v[i] * 100, 6);
			pmt_out_str(&o, fmt == OUT_JSON ? ",\"unit\":\"%\"}" : ",\"unit\":\"%\"}\n");
		} else {
			pmt_out_printf(&o, "%-26s L%d %7.2f %%\n", rows[i].name, rows[i].level,
				       v[i] * 100);
		}
	}
	json_end(&o, fmt, nrows);
	return pmt_out_fini(&o) < 0;
}

struct opts {
	const char *trace, *counts;
	const char **metrics, **events, **sel, **retlat;
	size_t nmetrics, nevents, nsel, nretlat;
	int fmt, list, retlat_per_cpu;
	unsigned jobs;
	enum pmt_counts_aggr aggr;
	struct pmt_expr_ctx ctx;
};


/* The text of CSV and JSON rows that does not change from row to row, escaped once: per
 * metric (pmu, name, unit) when the output starts, per unit (interval, aggregation) when
 * its rows start. A row is then copies of these around its number: escaping every field
 * of every row was half of printing 75M rows. Rendered by the writers' own escaping into a
 * memory stream. */
struct row_text {
	FILE *fp;              /* the memory stream the pieces are rendered into */
	char *mem;
	size_t size;
	struct pmt_out o;
	char *metrics;         /* per metric: head, then tail (copied out of mem) */
	size_t *off;           /* [2 x metric + 1]: where each metric's head and tail start */
	char *unit;            /* the unit's head (copied out of mem) */
	size_t unit_len, unit_cap;
};

/* Pieces are copied PIECE_PAD bytes at a time when they fit (fixed-size copies inline
 * into a few moves; a libc call per piece cost more than the copy), so every piece
 * buffer has PIECE_PAD readable bytes after its end. */
enum { PIECE_PAD = 32 };

static inline void put_piece(struct pmt_out *o, const char *p, size_t n)
{
	pmt_out_reserve(o, n + PIECE_PAD);
	if (n <= PIECE_PAD)
		memcpy(o->buf + o->len, p, PIECE_PAD);
	else
		memcpy(o->buf + o->len, p, n);
	o->len += n;
}

/* a piece chosen among a few, each in a fixed-size array */
struct short_text {
	char s[24];
	size_t n;
};

static inline void put_short(struct pmt_out *o, const struct short_text *t)
{
	pmt_out_reserve(o, sizeof(t->s));
	memcpy(o->buf + o->len, t->s, sizeof(t->s));
	o->len += t->n;
}

#define SHORT_TEXT(str) { str, sizeof(str) - 1 }

static size_t text_pos(struct row_text *t)
{
	pmt_out_flush(&t->o);
	return (size_t)ftell(t->fp);
}

static int row_text_init(struct row_text *t, struct pmt_metric_plan *plan, int fmt)
{
	size_t n = pmt_metric_plan_nr_metrics(plan);

	memset(t, 0, sizeof(*t));
	t->fp = open_memstream(&t->mem, &t->size);
	t->off = calloc(2 * n + 1, sizeof(*t->off));
	if (!t->fp || !t->off || pmt_out_init(&t->o, t->fp, 1 << 12) < 0)
		return -PMT_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct pmt_metric *m = pmt_metric_plan_metric(plan, i);

		t->off[2 * i] = text_pos(t);
		if (fmt == OUT_CSV) {
			pmt_out_csv_str(&t->o, m->pmu ? m->pmu : "");
			pmt_out_char(&t->o, ',');
			pmt_out_csv_str(&t->o, m->name);
			pmt_out_char(&t->o, ',');
			t->off[2 * i + 1] = text_pos(t);
			pmt_out_char(&t->o, ',');
			pmt_out_csv_str(&t->o, m->unit ? m->unit : "");
			pmt_out_char(&t->o, ',');
		} else {
			pmt_out_str(&t->o, "\"pmu\":");
			pmt_out_json_str(&t->o, m->pmu ? m->pmu : "");
			pmt_out_str(&t->o, ",\"metric\":");
			pmt_out_json_str(&t->o, m->name);
			pmt_out_str(&t->o, ",\"value\":");
			t->off[2 * i + 1] = text_pos(t);
			pmt_out_str(&t->o, ",\"unit\":");
			pmt_out_json_str(&t->o, m->unit ? m->unit : "");
			pmt_out_str(&t->o, ",\"threshold\":");
		}
	}
	t->off[2 * n] = text_pos(t);
	t->metrics = malloc(t->off[2 * n] + PIECE_PAD);
	if (!t->metrics || t->o.err)
		return -PMT_ENOMEM;
	memcpy(t->metrics, t->mem, t->off[2 * n]);
	return 0;
}

/* the head of a unit's rows, over the one before */
static int row_text_unit(struct row_text *t, const char *iv, const char *ag, int fmt)
{
	if (fseek(t->fp, 0, SEEK_SET) < 0)
		return -PMT_EIO;
	if (fmt == OUT_CSV) {
		pmt_out_csv_str(&t->o, iv);
		pmt_out_char(&t->o, ',');
		pmt_out_csv_str(&t->o, ag);
		pmt_out_char(&t->o, ',');
	} else {
		pmt_out_str(&t->o, "{\"interval\":");
		pmt_out_json_str(&t->o, iv);
		pmt_out_str(&t->o, ",\"aggr\":");
		pmt_out_json_str(&t->o, ag);
		pmt_out_char(&t->o, ',');
	}
	t->unit_len = text_pos(t);
	if (t->unit_len + PIECE_PAD > t->unit_cap) {
		char *u = realloc(t->unit, t->unit_len + PIECE_PAD);

		if (!u)
			return -PMT_ENOMEM;
		t->unit = u;
		t->unit_cap = t->unit_len + PIECE_PAD;
	}
	memcpy(t->unit, t->mem, t->unit_len);
	return t->o.err;
}

static void row_text_fini(struct row_text *t)
{
	if (t->o.buf)
		pmt_out_fini(&t->o);
	if (t->fp)
		fclose(t->fp);
	free(t->mem);
	free(t->metrics);
	free(t->unit);
	free(t->off);
}

/* One unit's rows. A metric whose result depends on an event the counts lack prints as
 * "<not counted>" (null in JSON), as perf stat prints such events, never as a number; each
 * such metric is named once on stderr with the event. Every row has the same columns, and
 * hybrid tables' rows carry their PMU (cpu_core, cpu_atom) as perf stat labels them. */
static void print_rows(struct pmt_out *o, struct pmt_metric_plan *plan,
		       const struct pmt_counts *c, size_t u, const double *val,
		       const int8_t *th, const char *const *missing, uint8_t *warned, int fmt,
		       int *nrows, struct row_text *rt)
{
	const char *iv = pmt_counts_unit_interval(c, u), *ag = pmt_counts_unit_aggr(c, u);

	if (fmt != OUT_TEXT && row_text_unit(rt, iv, ag, fmt) < 0)
		o->err = o->err ? o->err : -PMT_EIO;
	/* [0] not over or no threshold, [1] over, [2] not over */
	static const struct short_text csv_end[3] = { SHORT_TEXT("\n"), SHORT_TEXT("yes\n"),
						      SHORT_TEXT("no\n") };
	static const struct short_text json_th[3] = { SHORT_TEXT("null"), SHORT_TEXT("true"),
						      SHORT_TEXT("false") };
	static const struct short_text counted[2] = { SHORT_TEXT(",\"counted\":true"),
						      SHORT_TEXT(",\"counted\":false") };
	static const struct short_text not_counted = SHORT_TEXT("<not counted>");
	static const struct short_text null = SHORT_TEXT("null");
	static const struct short_text json_end[2] = { SHORT_TEXT("}"), SHORT_TEXT("}\n") };

	for (size_t i = 0; i < pmt_metric_plan_nr_metrics(plan); i++) {
		/* text rows are formatted whole (no pieces) */
		const size_t *off = fmt != OUT_TEXT ? rt->off + 2 * i : NULL;
		const char *head = off ? rt->metrics + off[0] : NULL;
		const char *tail = off ? rt->metrics + off[1] : NULL;
		size_t head_len = off ? off[1] - off[0] : 0, tail_len = off ? off[2] - off[1] : 0;
		int ts = missing[i] || th[i] < 0 ? 0 : th[i] ? 1 : 2;

		if (missing[i] && !warned[i]) {
			const struct pmt_metric *m = pmt_metric_plan_metric(plan, i);
			const char *pmu = m->pmu ? m->pmu : "";

			pmt_warn("metric %s%s%s: event %s not counted; the metric is not computed",
				 pmu, *pmu ? "/" : "", m->name, missing[i]);
			warned[i] = 1;
		}
		if (fmt == OUT_CSV) {
			put_piece(o, rt->unit, rt->unit_len);
			put_piece(o, head, head_len);
			if (missing[i])
				put_short(o, &not_counted);
			else
				out_num(o, val[i]);
			put_piece(o, tail, tail_len);
			put_short(o, &csv_end[ts]);
		} else if (fmt == OUT_JSON || fmt == OUT_JSONL) {
			json_row_start(o, fmt, nrows);
			put_piece(o, rt->unit, rt->unit_len);
			put_piece(o, head, head_len);
			if (missing[i] || isnan(val[i]) || isinf(val[i]))
				put_short(o, &null);
			else
				out_num(o, val[i]);
			put_short(o, &counted[missing[i] != NULL]);
			put_piece(o, tail, tail_len);
			put_short(o, &json_th[ts]);
			put_short(o, &json_end[fmt == OUT_JSONL]);
		} else {
			const struct pmt_metric *m = pmt_metric_plan_metric(plan, i);
			const char *pmu = m->pmu ? m->pmu : "";
			char name[160];

			snprintf(name, sizeof(name), "%s%s%s", pmu, *pmu ? "/" : "", m->name);
			if (*iv || *ag)
				pmt_out_printf(o, "%-14s %-12s ", iv, ag);
			pmt_out_printf(o, "%-50s ", name);
			if (missing[i])
				pmt_out_printf(o, "%16s %-10s\n", "<not counted>", m->unit ? m->unit : "");
			else
				pmt_out_printf(o, "%16.6g %-10s%s\n", val[i], m->unit ? m->unit : "",
					       th[i] > 0 ? "  <== over threshold" : "");
		}
	}
}

/* Selected metrics with what they are computed from (BaseFormula for Intel tables). */
static void list_metrics(struct pmt_metric_plan *plan)
{
	for (size_t i = 0; i < pmt_metric_plan_nr_metrics(plan); i++) {
		const struct pmt_metric *m = pmt_metric_plan_metric(plan, i);

		printf("%s%s%s [%s] %s\n    %s\n", m->name, m->pmu ? " @" : "", m->pmu ? m->pmu : "",
		       m->unit && *m->unit ? m->unit : "-", m->groups ? m->groups : "",
		       m->base_formula ? m->base_formula : m->expr);
		if (m->threshold)
			printf("    threshold: %s\n", m->threshold);
	}
}

/* A recording's unit: its CPUs and, with -I, its interval's samples. */
static void fill_unit(struct pmt_metric_plan *plan, const struct pmt_counts_trace *ct,
		      const struct pmt_counts *c, size_t u, const struct pmt_retlat_samples *smp,
		      enum pmt_retlat_stat stat, double pct, int *warned)
{
	struct pmt_retlat_sel sel = { 0 };
	const char *iv = pmt_counts_unit_interval(c, u), *ag = pmt_counts_unit_aggr(c, u);
	char name[96];

	sel.nr_cpus = pmt_counts_trace_unit_cpus(ct, u, &sel.cpus);
	if (pmt_counts_trace_window(ct, &sel.t_after, &sel.t_until) < 0 && !*warned) {
		pmt_warn("the recording does not place its counting intervals in the samples' "
			 "time: every interval takes the :R of all its unit's samples");
		*warned = 1;
	}
	if (!sel.nr_cpus && !sel.t_until)
		return; /* one total: every sample's value stands */
	snprintf(name, sizeof(name), "%s%s%s", iv, *iv && *ag ? " " : "", ag);
	pmt_metric_plan_fill_retlat_sel(plan, &sel, name, smp, stat, pct);
}

/* What evaluates and prints a counts' units: one thread's at a time (the reader's, or
 * the printing thread's alone while it runs) */
struct emit {
	struct opts *op;
	struct pmt_metric_plan *plan;
	const struct pmt_counts_trace *ct;
	const struct pmt_retlat_samples *smp;
	enum pmt_retlat_stat stat;
	double pct;
	size_t nm, block;      /* metrics; units evaluated at once */
	double *val;           /* [block][nm] */
	int8_t *th;
	int *failed;           /* [block] */
	const char **missing;
	uint8_t *warned;
	int nrows, warned_clock;
	struct row_text rt;
	struct pmt_out o;
};

/* every unit of the counts (item) evaluated and printed: 0, or -PMT_ENOMEM */
static int emit_counts(void *ctx, void *item)
{
	struct emit *e = ctx;
	const struct pmt_counts *c = item;
	const struct opts *op = e->op;

	for (size_t u0 = 0, n; u0 < pmt_counts_nr_units(c); u0 += n) {
		n = pmt_counts_nr_units(c) - u0 < e->block ? pmt_counts_nr_units(c) - u0 : e->block;
		if (e->block == 1) {
			if (op->retlat_per_cpu && e->ct)
				fill_unit(e->plan, e->ct, c, u0, e->smp, e->stat, e->pct,
					  &e->warned_clock);
			else if (op->retlat_per_cpu && op->trace)
				pmt_metric_plan_fill_retlat_unit(e->plan, c, u0, e->smp, e->stat,
								 e->pct);
			e->failed[0] = pmt_metric_plan_eval(e->plan, c, u0, e->val, e->th);
		} else if (pmt_metric_plan_eval_units(e->plan, c, u0, n, e->val, e->th,
						      e->failed) < 0) {
			return -PMT_ENOMEM;
		}
		for (size_t k = 0; k < n; k++) {
			size_t at = k * e->nm;

			if (e->failed[k] > 0)
				pmt_warn("unit %zu: a metric divided modulo by zero (value nan)",
					 u0 + k);
			if ((e->block == 1 ? pmt_metric_plan_missing(e->plan, e->missing)
					   : pmt_metric_plan_missing_at(e->plan, k, e->missing)) < 0)
				return -PMT_ENOMEM;
			print_rows(&e->o, e->plan, c, u0 + k, e->val + at, e->th + at, e->missing,
				   e->warned, op->fmt, &e->nrows, &e->rt);
		}
	}
	return 0;
}

/* The ring of the printing thread: c, then counts with c's events at c's indexes (a plan
 * bound to c reads them as c) and no units. False when out of memory. */
static bool counts_ring(struct pmt_counts *c, struct pmt_counts *ring[RING])
{
	ring[0] = c;
	for (size_t k = 1; k < RING; k++) {
		if (pmt_counts_new(&ring[k]) < 0)
			return false;
		for (size_t i = 0; i < pmt_counts_nr_events(c); i++)
			if (pmt_counts_event(ring[k], pmt_counts_event_name(c, i)) != (int)i)
				return false;
	}
	return true;
}

static int run(struct opts *op)
{
	struct pmt_metric_set ms = { 0 };
	struct pmt_metric_plan *plan = NULL;
	struct pmt_counts *c = NULL;
	struct pmt_counts_trace *ct = NULL;
	struct pmt_retlat_samples smp = { 0 };
	struct pmt_diag diag = PMT_DIAG_INIT;
	struct pmt_retlat_table tab = { 0 };
	enum pmt_retlat_stat stat = PMT_RETLAT_MEAN;
	double pct = 0;
	int rc = 1;
	struct emit e = { 0 };
	struct handoff h = { 0 };
	struct pmt_counts *ring[RING] = { 0 };

	for (size_t i = 0; i < op->nmetrics; i++)
		if (pmt_metric_set_load(&ms, op->metrics[i], &diag) < 0)
			goto out_diag;
	for (size_t i = 0; i < op->nevents; i++)
		if (pmt_retlat_table_load(&tab, op->events[i], &diag) < 0)
			goto out_diag;
	/* each --retire-latency is a statistic or a table file */
	for (size_t i = 0; i < op->nretlat; i++) {
		const char *arg = op->retlat[i];
		int r = pmt_retlat_stat_parse(arg, &stat, &pct);

		if (r == 0)
			continue;
		if (access(arg, F_OK) == 0) {
			if (pmt_retlat_table_load(&tab, arg, &diag) < 0)
				goto out_diag;
		} else if (r == -PMT_ERANGE) {
			rc = pmt_cli_usage_fail("metrics", "--retire-latency %s: a percentile must "
						"be above 0 and at most 100", arg);
			goto out;
		} else {
			pmt_cli_fail("metrics", "--retire-latency %s: No such file or directory, and "
				     "not a statistic (mean, min, max, last, median, pNN)", arg);
			goto out;
		}
	}
	if (pmt_counts_new(&c) < 0)
		goto out;
	if (op->counts && pmt_counts_load(c, op->counts, &diag) < 0)
		goto out_diag;
	diag = (struct pmt_diag)PMT_DIAG_INIT; /* damage read past was logged */
	/* a recording with counts (stat -o, perf stat record) is read round by round */
	if (!op->counts && op->trace) {
		struct pmt_source *src = NULL;
		int r = pmt_source_open(op->trace, &src, &diag);

		/* a container's frames are decompressed on another core: zstd is a third of
		 * reading a recording's counts */
		if (r >= 0 && op->jobs > 1 && pmt_source_threads(src, op->jobs - 1) < 0) {
			pmt_source_close(src);
			r = pmt_diag_set(&diag, -PMT_ENOMEM, op->trace, PMT_DIAG_NO_OFFSET,
					 "out of memory");
		}
		if (r >= 0)
			r = pmt_counts_trace_open_source(src, op->trace, c, &ct, &diag);
		if (r < 0 && r != -PMT_ENOT_FOUND) {
			pmt_cli_fail_diag("metrics", &diag);
			goto out;
		}
		/* only its :R samples count then: say why the rest will be "not counted" */
		if (r == -PMT_ENOT_FOUND)
			pmt_cli_warn("metrics", "%s holds no counts (STAT records of pmutrace stat "
				     "-o or perf stat record); give them with --counts FILE",
				     op->trace);
		diag = (struct pmt_diag)PMT_DIAG_INIT;
	}
	if (ct && op->aggr && pmt_counts_trace_set_aggr(ct, op->aggr, &diag) < 0) {
		pmt_cli_fail_diag("metrics", &diag);
		goto out;
	}
	if (!ct && op->aggr)
		pmt_cli_warn("metrics", "-A, --per-core, --per-die, --per-socket and --global "
			     "apply to the counts of a TRACE, not to --counts");
	if (!ct && !pmt_counts_nr_units(c))
		pmt_counts_unit(c, NULL, NULL);
	if (op->trace && pmt_retlat_samples_from_trace(&smp, op->trace, &diag) < 0) {
		pmt_cli_fail_diag("metrics", &diag);
		goto out;
	}
	if (pmt_metric_plan_new(&ms, op->sel, op->nsel, &op->ctx, &plan, &diag) < 0) {
		pmt_cli_fail_diag("metrics", &diag);
		goto out;
	}
	if (op->list) {
		list_metrics(plan);
		rc = 0;
		goto out;
	}
	/* the events are the recording's from its opening on: only those the metrics read are
	 * summed, and the counts frames' values of the others left unread */
	pmt_metric_plan_bind(plan, c);
	if (ct && pmt_metric_plan_only_in(plan, ct) < 0)
		goto out;
	/* the counts frames decoded on -j threads besides this one (zstd and the columns: half
	 * the CPU of every metric, 70% of one metric's that skips most events): this thread
	 * sums and prints between waits for them, so -j 2 keeps both cores busy */
	if (ct && op->jobs > 1 && pmt_counts_trace_threads(ct, op->jobs) < 0)
		goto out;
	if (ct && pmt_counts_trace_next(ct, c) < 0)
		goto out;
	pmt_metric_plan_fill_retlat(plan, c, op->trace ? &smp : NULL, &tab, stat, pct);
	/* units in blocks, each formula evaluated over a block's units at once; per-CPU
	 * retire latencies change the plan's :R values unit by unit, so those go one by one */
	e = (struct emit){ .op = op, .plan = plan, .ct = ct, .smp = &smp, .stat = stat,
			   .pct = pct };
	e.nm = pmt_metric_plan_nr_metrics(plan);
	e.block = op->retlat_per_cpu && op->trace ? 1 : UNIT_BLOCK;
	e.val = calloc(e.nm * e.block + 1, sizeof(*e.val));
	e.th = calloc(e.nm * e.block + 1, sizeof(*e.th));
	e.failed = calloc(e.block, sizeof(*e.failed));
	e.missing = calloc(e.nm + 1, sizeof(*e.missing));
	e.warned = calloc(e.nm + 1, 1);
	if (!e.val || !e.th || !e.failed || !e.missing || !e.warned)
		goto out;
	if (op->fmt != OUT_TEXT && row_text_init(&e.rt, plan, op->fmt) < 0)
		goto out;
	pmt_out_init(&e.o, stdout, 1 << 16);
	if (op->fmt == OUT_CSV)
		pmt_out_str(&e.o, "interval,aggr,pmu,metric,value,unit,threshold\n");
	/* With -j 2 or more, the intervals' formulas and rows (~30% of this thread's CPU on
	 * 3,600 x 64 x 291 events, --global --csv) are done on a thread of their own while
	 * this one sums the next intervals into the ring's other counts: this thread is the
	 * wall's path. Its warnings (damaged records) may then come before the metric
	 * warnings of intervals before. Not with per-CPU retire latencies: those read the
	 * recording's reader per unit, nor for a few rows an interval (the wake-ups cost
	 * more than the rows: -M tma_retiring --global, 1 row, took 10-20% more CPU). */
	if (ct && op->jobs > 1 && e.block > 1 && e.nm * pmt_counts_nr_units(c) >= PIPE_ROWS &&
	    counts_ring(c, ring) &&
	    handoff_start(&h, (void *const *)ring, RING, RING / 2, emit_counts, &e) == 0) {
		struct pmt_counts *next;

		handoff_put(&h); /* ring[0], c: the first interval */
		while ((next = handoff_slot(&h)) && pmt_counts_trace_next(ct, next) > 0)
			handoff_put(&h);
		handoff_finish(&h);
	} else {
		while (emit_counts(&e, c) == 0 && ct && pmt_counts_trace_next(ct, c) > 0)
			;
	}
	json_end(&e.o, op->fmt, e.nrows);
	rc = pmt_out_fini(&e.o) < 0;
	goto out;
out_diag:
	pmt_diag_print(&diag);
out:
	row_text_fini(&e.rt);
	free(e.failed);
	free(e.val);
	free(e.th);
	free(e.missing);
	free(e.warned);
	for (size_t i = 1; i < RING; i++) /* ring[0] is c */
		pmt_counts_free(ring[i]);
	pmt_metric_plan_free(plan);
	pmt_counts_trace_close(ct);
	pmt_counts_free(c);
	pmt_retlat_samples_fini(&smp);
	pmt_retlat_table_fini(&tab);
	pmt_metric_set_fini(&ms);
	return rc;
}

int cmd_metrics(int argc, char **argv)
{
	enum { O_METRICS = 256, O_EVENTS, O_COUNTS, O_RETLAT, O_CSV, O_JSON, O_JSONL, O_TOPDOWN, O_SLOTS,
	       O_PM, O_PSLOTS, O_PPM, O_LITERAL, O_CPUID, O_LIST, O_RETLAT_PER_CPU, O_PER_CORE,
	       O_PER_DIE, O_PER_SOCKET, O_GLOBAL };
	static const struct option lo[] = {
		{ "metrics", required_argument, NULL, O_METRICS },
		{ "events", required_argument, NULL, O_EVENTS },
		{ "counts", required_argument, NULL, O_COUNTS },
		{ "retire-latency", required_argument, NULL, O_RETLAT },
		{ "retire-latency-per-cpu", no_argument, NULL, O_RETLAT_PER_CPU },
		{ "retire-latency-per-unit", no_argument, NULL, O_RETLAT_PER_CPU },
		{ "no-aggr", no_argument, NULL, 'A' },
		{ "per-core", no_argument, NULL, O_PER_CORE },
		{ "per-die", no_argument, NULL, O_PER_DIE },
		{ "per-socket", no_argument, NULL, O_PER_SOCKET },
		{ "global", no_argument, NULL, O_GLOBAL },
		{ "csv", no_argument, NULL, O_CSV },
		{ "json", no_argument, NULL, O_JSON },
		{ "jsonl", no_argument, NULL, O_JSONL },
		{ "topdown", no_argument, NULL, O_TOPDOWN },
		{ "slots", required_argument, NULL, O_SLOTS },
		{ "perf-metrics", required_argument, NULL, O_PM },
		{ "prev-slots", required_argument, NULL, O_PSLOTS },
		{ "prev-perf-metrics", required_argument, NULL, O_PPM },
		{ "literal", required_argument, NULL, O_LITERAL },
		{ "cpuid", required_argument, NULL, O_CPUID },
		{ "list", no_argument, NULL, O_LIST },
		{ "input", required_argument, NULL, 'i' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts op = { 0 };
	uint64_t slots = 0, pm = 0, ps = 0, ppm = 0;
	int td = 0, have_slots = 0, have_pm = 0, c, rc;

	pmt_expr_ctx_default(&op.ctx);
	op.jobs = pmt_cli_jobs_default();
	while ((c = getopt_long(argc, argv, "AM:hi:j:v", lo, NULL)) != -1) {
		int bad = 0;

		switch (c) {
		case O_METRICS: bad = cli_push_arg(&op.metrics, &op.nmetrics, optarg); break;
		case O_EVENTS: bad = cli_push_arg(&op.events, &op.nevents, optarg); break;
		case 'M':
			/* perf's -M takes a comma-separated list (argv is ours to cut) */
			for (char *sv, *m = strtok_r(optarg, ",", &sv); m && !bad;
			     m = strtok_r(NULL, ",", &sv))
				bad = cli_push_arg(&op.sel, &op.nsel, m);
			break;
		case O_COUNTS: op.counts = optarg; break;
		case 'v': pmt_log_set_level(PMT_LOG_INFO); break;
		case O_RETLAT: bad = cli_push_arg(&op.retlat, &op.nretlat, optarg); break;
		case O_RETLAT_PER_CPU: op.retlat_per_cpu = 1; break;
		case 'A': op.aggr = PMT_COUNTS_PER_CPU; break;
		case O_PER_CORE: op.aggr = PMT_COUNTS_PER_CORE; break;
		case O_PER_DIE: op.aggr = PMT_COUNTS_PER_DIE; break;
		case O_PER_SOCKET: op.aggr = PMT_COUNTS_PER_SOCKET; break;
		case O_GLOBAL: op.aggr = PMT_COUNTS_GLOBAL; break;
		case O_CSV: case O_JSON: case O_JSONL: {
			int f = c == O_CSV ? OUT_CSV : c == O_JSON ? OUT_JSON : OUT_JSONL;

			/* two formats: the last would win and the other be ignored */
			if (op.fmt && op.fmt != f) {
				rc = pmt_cli_usage_fail("metrics", "one output format: --csv, "
							"--json or --jsonl");
				goto done;
			}
			op.fmt = f;
			break;
		}
		case O_TOPDOWN: td = 1; break;
		case O_SLOTS: bad = pmt_parse_u64(optarg, &slots); have_slots = 1; break;
		case O_PM: bad = pmt_parse_u64(optarg, &pm); have_pm = 1; break;
		case O_PSLOTS: bad = pmt_parse_u64(optarg, &ps); break;
		case O_PPM: bad = pmt_parse_u64(optarg, &ppm); break;
		case O_CPUID: op.ctx.cpuid = optarg; break;
		case O_LIST: op.list = 1; break;
		case 'i': op.trace = optarg; break;
		case 'j':
			if (pmt_cli_jobs("metrics", optarg, &op.jobs)) {
				rc = PMT_EXIT_USAGE;
				goto done;
			}
			break;
		case O_LITERAL:
			if (set_literal(&op.ctx, optarg) < 0) {
				rc = pmt_cli_usage_fail("metrics", "bad --literal '%s' (NAME=VALUE, "
							"NAME one of the # literals)", optarg);
				goto done;
			}
			break;
		case 'h': usage(stdout); rc = 0; goto done;
		default: usage(stderr); rc = PMT_EXIT_USAGE; goto done;
		}
		if (bad) {
			rc = pmt_cli_usage_fail("metrics", "bad value '%s' for option %s", optarg,
						argv[optind - 1]);
			goto done;
		}
	}
	if (optind < argc && !op.trace)
		op.trace = argv[optind++];
	if (optind < argc) {
		rc = pmt_cli_usage_fail("metrics", "unexpected argument '%s'", argv[optind]);
	} else if (td) {
		if (!have_slots || !have_pm)
			rc = pmt_cli_usage_fail("metrics", "--topdown needs --slots and "
						"--perf-metrics");
		else
			rc = topdown(slots, pm, ps, ppm, op.fmt);
	} else if (!op.nmetrics) {
		usage(stderr);
		rc = pmt_cli_usage_fail("metrics", "--metrics FILE is required");
	} else {
		rc = run(&op);
	}
done:
	free(op.metrics);
	free(op.events);
	free(op.sel);
	free(op.retlat);
	return rc;
}
