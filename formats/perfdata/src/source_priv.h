/* Private to the perf.data trace source (source_*.c): the source's state and the steps its
 * files share. The reader is layered one way: bytes in (source_input.c: mapped file, pipe
 * window, spooling) -> record framing incl. COMPRESSED (source_framing.c) -> file header,
 * features, attrs and metadata records (source_meta.c, source_features.c) -> typed records
 * and samples (source_records.c). */
#ifndef PMUTRACE_SOURCE_PRIV_H
#define PMUTRACE_SOURCE_PRIV_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "perfdata_priv.h"
#include "pmutrace/container.h"

#define ZCHUNK (256u << 10)
#define ZMAX_RECORD (64u << 20) /* largest AUXTRACE we expand from a compressed stream */
#define STRBUF 4096
#define READ_CHUNK (1u << 20)       /* pipe reads: at least this much per refill */
#define STREAM_RECORD_MAX (1ULL << 32) /* larger records in a pipe are taken for damage */

struct id_ent {
	uint64_t id;
	uint32_t attr;
};

struct pmt_source {
	struct pmt_cpu_topology topology; /* meta.topology points here when read */
	char *name; /* the input as the user named it, for messages ("stdin" for -) */
	struct pmt_diag *diag; /* where open reports a failure */
	const char *diag_name; /* the caller's path (or a literal): the diag outlives the source */
	struct pmt_diag diag_ignored;
	struct pmt_file_map map;
	int own_map;
	const uint8_t *buf;
	size_t size;
	bool swap;

	struct pmt_trace_meta meta;
	struct pmt_trace_attr *attrs;
	uint32_t nr_attrs, cap_attrs;
	struct id_ent *ids;
	size_t nr_ids, cap_ids;
	bool first_identifier; /* the first attr has PERF_SAMPLE_IDENTIFIER: every record's
				* id is there (perf's evlist__set_id_pos) */
	uint64_t *cpu_midr;
	uint64_t *cpu_event_filter;
	uint32_t max_aux_cpu;
	uint8_t feat_cpuid_seen;
	bool time_conv_refused; /* an invalid TIME_CONV was reported */

	uint64_t data_start, data_end, pos;
	uint64_t cur_off;
	/* pipe input: stream bytes [win_base, win_base + win_len) are in win */
	bool stream, eof, own_fd;
	/* a pmutrace container: its frames' records feed the pipe-mode window */
	struct pmt_ctr_reader *ctr;
	struct pmt_ctr_frame ctr_frame;
	size_t ctr_pos;
	bool ctr_drops_told;  /* the writer's drops were reported */
	int fd;
	uint8_t *win;
	size_t win_cap, win_len;
	uint64_t win_base;
	/* non-NULL: the window's bytes are read where they are, in the container's current
	 * frame, instead of being copied into win (pd_win()) */
	const uint8_t *wview;
	uint64_t dropped; /* mapped pages below this were handed back to the kernel */
	uint64_t keep_from; /* a decoder still reads AUX data from here on */
	bool done;

	/* COMPRESSED records: input of the current one, and the decompressed window */
	ZSTD_DCtx *dctx;
	const uint8_t *zin;
	size_t zin_len, zin_pos;
	uint64_t zrec_off;
	bool in_comp;
	uint8_t *dbuf;
	size_t dcap, dlen, dpos;

	char comm[STRBUF];
	char fname[STRBUF];
	/* pmt_source_damage(): the first damage read past, or the error that stopped the
	 * latest read; last, away from the fields every record touches */
	struct pmt_diag damage;
};

/* ---- byte-order aware loads ---------------------------------------------------------- */
/* where the window's bytes are: a pipe's (or a record crossing frames) in win, a
 * container frame's in the frame */
static inline const uint8_t *pd_win(const struct pmt_source *s)
{
	return s->wview ? s->wview : s->win;
}

static inline uint16_t rd16(const struct pmt_source *s, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return s->swap ? pd_bswap16(v) : v;
}
static inline uint32_t rd32(const struct pmt_source *s, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return s->swap ? __builtin_bswap32(v) : v;
}
static inline uint64_t rd64(const struct pmt_source *s, const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return s->swap ? __builtin_bswap64(v) : v;
}

/* Damage is logged in the words the CLI prints ("FILE: record at 0x.. ...") and kept in
 * s->damage with its code and offset (PMT_DIAG_NO_OFFSET when it has none): an error
 * replaces what is there, a warning only fills it when it is empty. */
void pd_damage(struct pmt_source *s, enum pmt_log_level level, int code, uint64_t off,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
#define src_error(s, code, off, fmt, ...) \
	pd_damage((s), PMT_LOG_ERROR, (code), (off), fmt, ##__VA_ARGS__)
/* Open fails with a diagnostic: returns code */
#define src_fail(s, code, off, fmt, ...) \
	pmt_diag_set((s)->diag, (code), (s)->diag_name, (off), fmt, ##__VA_ARGS__)
#define src_warn(s, code, off, fmt, ...) \
	pd_damage((s), PMT_LOG_WARN, (code), (off), fmt, ##__VA_ARGS__)

/* source_meta.c: attrs, ids, metadata records, the file header and the pipe prescan */
struct pmt_trace_attr *pd_attr_by_id(struct pmt_source *s, uint64_t id);
void pd_attrs_done(struct pmt_source *s);
void pd_parse_auxtrace_info(struct pmt_source *s, const uint8_t *r, size_t size, uint64_t off);
void pd_parse_time_conv(struct pmt_source *s, const uint8_t *r, size_t size, uint64_t off);
int pd_fill_cpu_midr(struct pmt_source *s);
int pd_prescan(struct pmt_source *s);
int pd_read_file_header(struct pmt_source *s);
/* source_features.c */
int pd_parse_feature(struct pmt_source *s, unsigned feat, const uint8_t *p, size_t len);
/* source_records.c */
int pd_decode_record(struct pmt_source *s, const uint8_t *r, size_t size, uint64_t off,
		     size_t payload_avail, struct pmt_trace_event *ev);
/* source_input.c */
void pd_drop_behind(struct pmt_source *s);
int pd_stream_fill(struct pmt_source *s, uint64_t upto);
int pd_ctr_frame_start(struct pmt_source *s);

#endif
