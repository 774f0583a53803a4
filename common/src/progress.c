/* The progress line of long decodes (script, report, export) on a terminal. */
#include <stdlib.h>
#include <time.h>

#include "pmutrace/common.h"

#include "progress_priv.h"

#define REDRAW_NS 200000000ull /* at most 5 lines a second: readable, and cheap */

/* the line on the terminal now: a log message clears it first (one decode at a time) */
static struct pmt_progress *shown_line;

void progress_interrupt(void)
{
	if (shown_line && shown_line->shown) {
		fputs("\r\033[K", shown_line->fp);
		shown_line->shown = 0; /* the next tick draws it again, under the message */
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int pmt_progress_init(struct pmt_progress *p, FILE *fp, const char *what, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	/* a disabled line never reads the clock: the check never passes */
	p->next_check = UINT64_MAX;
	if (!fp)
		return 0;
	p->stream_pos = calloc(PMT_PROGRESS_STREAMS, sizeof(*p->stream_pos));
	if (!p->stream_pos)
		return -PMT_ENOMEM;
	p->fp = fp;
	p->what = what;
	p->total = total;
	p->next_check = PMT_PROGRESS_EVERY;
	p->t0 = p->last = now_ns();
	return 0;
}

void pmt_progress_stream(struct pmt_progress *p, uint32_t stream, uint64_t offset)
{
	if (!p->stream_pos || stream >= PMT_PROGRESS_STREAMS || offset <= p->stream_pos[stream])
		return;
	p->pos += offset - p->stream_pos[stream];
	p->stream_pos[stream] = offset;
}

static void mb(char *buf, size_t cap, double bytes)
{
	if (bytes >= 1e9)
		snprintf(buf, cap, "%.2f GB", bytes / 1e9);
	else
		snprintf(buf, cap, "%.1f MB", bytes / 1e6);
}

void pmt_progress_tick(struct pmt_progress *p)
{
	uint64_t now, pos;
	double el, rate;
	char done[32], all[32], eta[48] = "";

	p->next_check = p->samples + PMT_PROGRESS_EVERY;
	if (!p->fp)
		return;
	now = now_ns();
	if (now - p->last < REDRAW_NS)
		return;
	p->last = now;
	pos = p->pos;
	el = (double)(now - p->t0) / 1e9;
	rate = el > 0 ? (double)pos / el : 0;
	mb(done, sizeof(done), (double)pos);
	if (p->total && pos <= p->total) {
		mb(all, sizeof(all), (double)p->total);
		if (rate > 0)
			snprintf(eta, sizeof(eta), ", ETA %.0f s",
				 (double)(p->total - pos) / rate);
		fprintf(p->fp, "\r\033[K%s: %s of %s (%.0f%%), %llu samples, %.1f MB/s, %.0f "
			       "samples/s%s", p->what, done, all, 100.0 * (double)pos /
			(double)p->total, (unsigned long long)p->samples, rate / 1e6,
			el > 0 ? (double)p->samples / el : 0.0, eta);
	} else {
		fprintf(p->fp, "\r\033[K%s: %s, %llu samples, %.1f MB/s, %.0f samples/s", p->what,
			done, (unsigned long long)p->samples, rate / 1e6,
			el > 0 ? (double)p->samples / el : 0.0);
	}
	fflush(p->fp);
	p->shown = 1;
	shown_line = p;
}

void pmt_progress_fini(struct pmt_progress *p)
{
	if (p->fp && p->shown) {
		fputs("\r\033[K", p->fp);
		fflush(p->fp);
	}
	if (shown_line == p)
		shown_line = NULL;
	free(p->stream_pos);
	p->stream_pos = NULL;
	p->shown = 0;
	p->fp = NULL;
	p->next_check = UINT64_MAX;
}
