/* Private to the perf.data writer (writer_*.c): its state, the byte encoders every record
 * uses, and the steps its files share. writer_file.c lays out the file (header, attrs,
 * features, pipe-mode metadata records); writer_records.c encodes the records. */
#ifndef PMUTRACE_WRITER_PRIV_H
#define PMUTRACE_WRITER_PRIV_H

#include <stdlib.h>


#define NAME_ALIGN 64 /* perf pads feature strings to this */

#include "perfdata_priv.h"

struct wattr {
	uint8_t attr[PMT_ATTR_SIZE_MAX];
	uint64_t *ids;
	uint32_t nr_ids;
	uint64_t id_off; /* file mode: where its ids are written */
	char *name;
};

struct pmt_perf_writer {
	FILE *fp;
	bool own_file, pipe, swap, started;
	struct pmt_out_file file; /* opened by pmt_perf_writer_open() */
	int err;
	uint64_t off, data_off, attrs_off;
	struct wattr *attrs;
	uint32_t nr_attrs;
	char *str[PMT_FEAT_BITS];
	bool has_nrcpus, has_comp, has_clock;
	struct pmt_cpu_topology topology; /* nr_cpus 0: none */
	uint32_t online, avail;
	uint32_t comp_level, comp_ratio, comp_mmap_len;
	uint32_t clockid;
	uint64_t clock_tod_ns, clock_ref_ns, clock_res_ns;
	char **argv;
	int argc;
	/* file mode: offsets of the AUXTRACE records for the HEADER_AUXTRACE index */
	bool has_auxtrace;
	uint64_t *aux_off;
	size_t nr_aux, cap_aux;
	struct pmt_buf rec; /* scratch for one record or feature */
	struct pmt_build_id_ent *bids; /* HEADER_BUILD_ID entries (filenames owned) */
	size_t nr_bids;
};

/* ---- encoding --------------------------------------------------------------------------- */
static inline void put(struct pmt_perf_writer *w, const void *p, size_t n)
{
	if (pmt_buf_append(&w->rec, p, n) < 0 && !w->err)
		w->err = -PMT_ENOMEM;
}
static inline void put16(struct pmt_perf_writer *w, uint16_t v)
{
	if (w->swap)
		v = pd_bswap16(v);
	put(w, &v, 2);
}
static inline void put32(struct pmt_perf_writer *w, uint32_t v)
{
	if (w->swap)
		v = __builtin_bswap32(v);
	put(w, &v, 4);
}
static inline void put64(struct pmt_perf_writer *w, uint64_t v)
{
	if (w->swap)
		v = __builtin_bswap64(v);
	put(w, &v, 8);
}
static inline void put_zero(struct pmt_perf_writer *w, size_t n)
{
	static const uint8_t z[64];

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		put(w, z, k);
		n -= k;
	}
}
static inline void put_hdr(struct pmt_perf_writer *w, uint32_t type, uint16_t misc)
{
	w->rec.len = 0;
	put32(w, type);
	put16(w, misc);
	put16(w, 0); /* size, fixed by pdw_end_rec() */
}
/* NUL-terminated, zero padded to 8 bytes (record strings) */
static inline void put_cstr8(struct pmt_perf_writer *w, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	put(w, s, n);
	put_zero(w, 8 - n % 8);
}
/* feature string: u32 len; char[len] NUL padded to NAME_ALIGN */
static inline void put_fstr(struct pmt_perf_writer *w, const char *s)
{
	size_t n = strlen(s), len = (n + 1 + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	put32(w, (uint32_t)len);
	put(w, s, n);
	put_zero(w, len - n);
}

/* writer_file.c */
void pdw_emit(struct pmt_perf_writer *w, const void *p, size_t n);
int pdw_start(struct pmt_perf_writer *w);
int pdw_seal_rec(struct pmt_perf_writer *w);
int pdw_end_rec(struct pmt_perf_writer *w);

#endif
