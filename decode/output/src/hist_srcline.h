/* The texts of report --sort srcline and srcfile (hist_srcline.c). Private to
 * decode/output. */
#ifndef PMT_OUTPUT_HIST_SRCLINE_H
#define PMT_OUTPUT_HIST_SRCLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "pmutrace/symbols.h"

struct hist_src;
int hist_src_new(struct hist_src **out);
void hist_src_free(struct hist_src *s); /* NULL is a no-op */
/* perf 7.3's srcline ("FILE:LINE", "SYM+OFFSET", "DSO[ADDR]", "??:0") and srcfile (FILE or
 * "") of an address: looked up once per (file, address), interned (equal texts are the
 * same pointer, valid until s is freed). 0 or -PMT_ENOMEM. */
int hist_src_texts(struct hist_src *s, struct pmt_symbols *syms, const struct pmt_sym_loc *loc,
		   const char **line, const char **file);
/* whether (dso_id, map_ip) was looked up as an address in its file: then its line, whether
 * a line was found there (perf's lookup succeeded), and the "SYM+OFFSET" or "DSO[ADDR]" perf
 * prints there once it no longer looks lines up in that file */
bool hist_src_looked_up(const struct hist_src *s, const void *dso_id, uint64_t map_ip,
			const char **line, const char **fail, bool *found);
/* the texts of compat's perf (PMT_PERF_*, 0 = newest); before the first hist_src_texts */
void hist_src_set_compat(struct hist_src *s, int compat);
/* whether text is "FILE:LINE" (a found line), not "SYM+OFFSET" (a C++ name's "::" is
 * followed by more than digits) or "DSO[ADDR]" */
bool hist_src_is_file_line(const char *text);
/* perf 6.1's lookups of a file's lines turned off after 123 failures before its first
 * success: count61 counts `lookups` lookups of the text an entry was given at (dso_id,
 * map_ip) (a success when it is the line found at that address); cut61 makes a line
 * found there perf 6.1's text of no line (and no source file) once the file is off.
 * 0 or -PMT_ENOMEM. */
int hist_src_count61(struct hist_src *s, const void *dso_id, uint64_t map_ip, const char *text,
		     unsigned lookups);
int hist_src_cut61(struct hist_src *s, const void *dso_id, uint64_t map_ip, const char **line,
		   const char **file);
/* the interned copy of text (as the texts above); NULL: out of memory */
const char *hist_src_intern(struct hist_src *s, const char *text);

#endif
