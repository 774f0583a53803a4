/* The HTML report: strings from the trace escaped (a file name and a title with markup and
 * control bytes), the per-CPU timeline's counts through times out of order, AUX losses
 * placed by stream position whether their AUX record comes before or after the data
 * around them, and the metric rows' hook. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/perf_abi.h"
#include "pmutrace/output.h"

struct page {
	struct pmt_symbols *syms;
	struct pmt_html *h;
	struct pmt_spe_record rec;
};

static void open_page(struct page *p, const char *title)
{
	struct pmt_symbols_opts so = { .sz = sizeof(so), .buildid_dir = "" };
	struct pmt_html_opts ho = { .sz = sizeof(ho), .title = title };

	memset(p, 0, sizeof(*p));
	assert_int_equal(pmt_symbols_new(&so, &p->syms), 0);
	ho.symbols = p->syms;
	assert_int_equal(pmt_html_new(&ho, &p->h), 0);
}

/* one SPE record (its instruction sample) on cpu at stream offset off, time t */
static void record(struct page *p, uint32_t cpu, uint64_t off, uint64_t t, uint64_t ip)
{
	struct pmt_spe_sample s = { .event = PMT_SPE_SE_INSN, .cpu = cpu, .pid = 7, .tid = 7,
				    .time = t, .ip = ip, .period = 1, .weight = 5 };

	p->rec.offset = off;
	s.rec = &p->rec;
	assert_int_equal(pmt_html_add(p->h, &s), 0);
}

static void aux_loss(struct page *p, uint32_t cpu, uint64_t off, uint64_t size, uint64_t flags)
{
	struct pmt_trace_event ev = { .kind = PMT_TEV_RECORD, .type = PMT_REC_AUX };

	ev.sid.valid = 1;
	ev.sid.cpu = cpu;
	ev.sid.time = 1; /* the sideband clock: not used to place it */
	ev.u.aux.aux_offset = off;
	ev.u.aux.aux_size = size;
	ev.u.aux.flags = flags;
	assert_int_equal(pmt_html_add_event(p->h, &ev), 0);
}

/* the page as a string (caller frees); the page is freed */
static __attribute__((noinline)) char *close_page(struct page *p)
{
	char *mem = NULL;
	size_t sz = 0;
	FILE *fp = open_memstream(&mem, &sz);
	struct pmt_out o;

	assert_non_null(fp);
	assert_int_equal(pmt_out_init(&o, fp, 4096), 0);
	assert_int_equal(pmt_html_write(p->h, &o, NULL, 1u << PMT_SPE_SE_INSN), 0);
	assert_int_equal(pmt_out_fini(&o), 0);
	fclose(fp);
	pmt_html_free(p->h);
	pmt_symbols_free(p->syms);
	return mem;
}

static void test_escaped(void **state)
{
	static const char file[] = "/lib/<img src=x onerror=alert(1)>&\"'.so";
	struct pmt_trace_event mm = { .kind = PMT_TEV_RECORD, .type = PMT_REC_MMAP2 };
	struct page p;
	char *html;

	(void)state;
	open_page(&p, "t<script>\x01");
	mm.u.mmap.pid = mm.u.mmap.tid = 7;
	mm.u.mmap.addr = 0x400000;
	mm.u.mmap.len = 0x10000;
	mm.u.mmap.filename = file;
	mm.u.mmap.prot = 5;
	assert_int_equal(pmt_symbols_add_event(p.syms, &mm), 0);
	record(&p, 0, 0, 100, 0x401000);
	html = close_page(&p);
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<img"));
	assert_null(strstr(html, "\x01"));
	assert_non_null(strstr(html, "<title>pmutrace report: t&lt;script&gt;&#xfffd;</title>"));
	assert_non_null(strstr(html, "data-dso=\"&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;.so\""));
	free(html);
}

static uint64_t attr_u64(const char *html, const char *after, const char *name)
{
	const char *at = strstr(html, after);
	char key[64];

	assert_non_null(at);
	snprintf(key, sizeof(key), "%s=\"", name);
	at = strstr(at, key);
	assert_non_null(at);
	return strtoull(at + strlen(key), NULL, 10);
}

static void test_timeline_out_of_order(void **state)
{
	struct page p;
	char *html;
	uint64_t n0 = 0, n3 = 0;

	(void)state;
	open_page(&p, "t");
	/* a late time first, then far earlier ones, then a span of hours: the bins move and
	 * widen, the counts stay */
	for (int i = 0; i < 1000; i++) {
		uint64_t t = i % 3 == 0 ? 5000000000ull - (uint64_t)i * 1000
			   : i % 3 == 1 ? 1000 + (uint64_t)i : 3600000000000ull + (uint64_t)i;
		uint32_t cpu = i % 4 == 0 ? 3 : 0;

		record(&p, cpu, (uint64_t)i * 64, t, 0x1000 + (uint64_t)i * 4);
		*(cpu ? &n3 : &n0) += 1;
	}
	html = close_page(&p);
	assert_int_equal(attr_u64(html, "data-cpu=\"0\"", "data-records"), n0);
	assert_int_equal(attr_u64(html, "data-cpu=\"3\"", "data-records"), n3);
	assert_null(strstr(html, "data-cpu=\"1\" data-records"));
	free(html);
}

static void test_losses_by_position(void **state)
{
	struct page p;
	char *html;

	(void)state;
	open_page(&p, "t");
	/* cpu 0: the AUX record first (data stops at 0x100), then the data around it */
	aux_loss(&p, 0, 0x100, 0, PMT_AUX_FLAG_TRUNCATED | PMT_AUX_FLAG_PARTIAL);
	record(&p, 0, 0x00, 1000, 0x1000);
	record(&p, 0, 0xc0, 2000, 0x1004);
	record(&p, 0, 0x100, 9000, 0x1008);
	/* cpu 1: the data past the loss decoded before the AUX record (a collision of the
	 * chunk 0x40..0x80) came */
	record(&p, 1, 0x00, 100, 0x2000);
	record(&p, 1, 0x40, 200, 0x2004);
	record(&p, 1, 0x80, 700, 0x2008);
	record(&p, 1, 0xc0, 800, 0x200c);
	aux_loss(&p, 1, 0x40, 0x40, PMT_AUX_FLAG_COLLISION);
	/* cpu 0 again: a loss no record follows */
	aux_loss(&p, 0, 0x200, 0, PMT_AUX_FLAG_TRUNCATED);
	html = close_page(&p);
	assert_non_null(strstr(html, "data-kind=\"AUX truncated partial\" data-cpu=\"0\" "
				     "data-stream-end=\"256\" data-start=\"2000\" data-end=\"9000\""));
	assert_non_null(strstr(html, "data-kind=\"AUX collision\" data-cpu=\"1\" "
				     "data-stream-end=\"128\" data-start=\"200\" data-end=\"700\""));
	assert_non_null(strstr(html, "data-kind=\"AUX truncated\" data-cpu=\"0\" "
				     "data-stream-end=\"512\" data-start=\"9000\" x="));
	assert_int_equal(attr_u64(html, "data-loss=\"aux-truncated\"", "data-count"), 2);
	assert_int_equal(attr_u64(html, "data-loss=\"aux-collision\"", "data-count"), 1);
	free(html);
}

static void test_metrics_hook(void **state)
{
	struct pmt_html_metric m = { .name = "tma_<retiring>", .unit = "%", .value = 25.1,
				     .retlat_measured = 12.5, .retlat_default = 10 };
	struct page p;
	char *html;

	(void)state;
	open_page(&p, "t");
	html = close_page(&p);
	assert_non_null(strstr(html, "data-metrics=\"0\""));
	free(html);
	open_page(&p, "t");
	assert_int_equal(pmt_html_add_metric(p.h, &m), 0);
	m.name = "tma_light";
	m.depth = 1;
	assert_int_equal(pmt_html_add_metric(p.h, &m), 0);
	html = close_page(&p);
	assert_non_null(strstr(html, "data-metrics=\"2\""));
	assert_non_null(strstr(html, "data-name=\"tma_&lt;retiring&gt;\" data-value=\"25.1\""));
	/* the tree: the child's connector starts under its parent's row (y 24, the first
	 * after the legend; the parent's retire-latency line between them) */
	assert_non_null(strstr(html, "<svg class=\"chart mtree\" data-metrics=\"2\""));
	assert_non_null(strstr(html, "<text class=\"mrl\" x=\"768\" y=\"56\">measured 12.5 / "
				     "default 10.0</text>"));
	assert_non_null(strstr(html, "<path class=\"mlink\" d=\"M12 41V70H24\"/>"));
	/* 25.1 % of the 330-unit track */
	assert_non_null(strstr(html, "<rect class=\"mbar\" x=\"430\" y=\"28\" width=\"82.8\""));
	free(html);
	/* no retire latency anywhere (a counting recording): no latency legend or bar */
	{
		struct pmt_html_metric c = { .name = "cs_per_msec", .unit = "per_msec",
					     .value = 2.5, .retlat_measured = NAN,
					     .retlat_default = NAN, .where = "1.000 CPU0" };

		open_page(&p, "t");
		assert_int_equal(pmt_html_add_metric(p.h, &c), 0);
		html = close_page(&p);
		assert_non_null(strstr(html, "<text class=\"mgroup\" x=\"4\" y=\"38\">1.000 CPU0"));
		assert_null(strstr(html, "class=\"rlm\""));
		assert_null(strstr(html, "retire latencies (TPEBS)"));
		free(html);
	}
	/* two :R events: a line for each, named, with its own latencies; one: none */
	{
		const struct pmt_html_retlat rl[2] = { { "A.B:R", 12.5, 10 },
						       { "C.D:R", NAN, 58 } };

		m.retlat = rl;
		m.nr_retlat = 1;
		open_page(&p, "t");
		assert_int_equal(pmt_html_add_metric(p.h, &m), 0);
		html = close_page(&p);
		assert_non_null(strstr(html, "<g class=\"mretlat\" data-metric=\"tma_light\" "
					     "data-event=\"A.B:R\""));
		assert_null(strstr(html, "data-event=\"C.D:R\""));
		free(html);
		m.nr_retlat = 2;
		open_page(&p, "t");
		assert_int_equal(pmt_html_add_metric(p.h, &m), 0);
		html = close_page(&p);
		assert_non_null(strstr(html, "<g class=\"mretlat\" data-metric=\"tma_light\" "
					     "data-event=\"A.B:R\" data-retlat-measured=\"12.5\" "
					     "data-retlat-default=\"10\">"));
		/* no measured latency: its bar is empty, the text says so */
		assert_non_null(strstr(html, "<g class=\"mretlat\" data-metric=\"tma_light\" "
					     "data-event=\"C.D:R\" data-retlat-default=\"58\">"));
		assert_non_null(strstr(html, "measured - / default 58.0</text>"));
		free(html);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escaped),
		cmocka_unit_test(test_timeline_out_of_order),
		cmocka_unit_test(test_losses_by_position),
		cmocka_unit_test(test_metrics_hook),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
