/* pmutrace common: the progress line a long decode shows on a terminal. */
#ifndef PMUTRACE_PROGRESS_H
#define PMUTRACE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pmutrace/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- progress line ----------------------------------------------------------------------
 * A status line on a terminal while a long decode runs: bytes decoded (of the input's size,
 * with the share and an ETA when the size is known), samples, rates. The bytes are the
 * streams' positions (an SPE trace: each CPU's AUX offset) summed: the caller reports one
 * with pmt_progress_stream() when pmt_progress_due(), then counts samples with
 * pmt_progress_add(), which reads the clock only every PMT_PROGRESS_EVERY samples; the
 * line is redrawn at most 5 times a second and cleared by fini. Caller-owned: fields are
 * public for the inline checks, set by init. */
#define PMT_PROGRESS_EVERY 4096
#define PMT_PROGRESS_STREAMS 4096 /* streams tracked (CPUs); others are not counted */
struct pmt_progress {
	FILE *fp;              /* NULL: off (every call is a no-op) */
	const char *what;      /* the line's prefix, e.g. the command */
	uint64_t total;        /* input bytes; 0: not known (no share, no ETA) */
	uint64_t *stream_pos;  /* [PMT_PROGRESS_STREAMS] each stream's last position */
	uint64_t pos;          /* their sum: the bytes decoded */
	uint64_t samples, next_check;
	uint64_t t0, last;     /* CLOCK_MONOTONIC ns: start, last redraw */
	int shown;             /* a line is on the terminal */
};
/* fp NULL: off. Returns 0, or -PMT_ENOMEM (then off). */
PMT_API int pmt_progress_init(struct pmt_progress *p, FILE *fp, const char *what,
			      uint64_t total);
/* every PMT_PROGRESS_EVERY samples: redraw when 200 ms have passed */
PMT_API void pmt_progress_tick(struct pmt_progress *p);
/* will adding n samples check the clock? (the time to report a position) */
static inline bool pmt_progress_due(const struct pmt_progress *p, uint64_t n)
{
	return p->samples + n >= p->next_check;
}
/* stream (a CPU) has been decoded up to offset */
PMT_API void pmt_progress_stream(struct pmt_progress *p, uint32_t stream, uint64_t offset);
static inline void pmt_progress_add(struct pmt_progress *p, uint64_t n)
{
	p->samples += n;
	if (p->samples >= p->next_check)
		pmt_progress_tick(p);
}
PMT_API void pmt_progress_fini(struct pmt_progress *p); /* clears the line */


#ifdef __cplusplus
}
#endif
#endif
