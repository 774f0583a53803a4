/* The capture's state, shared by capture.c (open, map, workload) and capture_io.c
 * (container, draining, the loop). */
#ifndef PMT_CAPTURE_PRIV_H
#define PMT_CAPTURE_PRIV_H

#include <stdio.h>
#include <sys/types.h>

#include "pmutrace/perfdata.h"
#include "pmutrace/record.h"
#include "pmutrace/rings.h"

#define CAP_MAX_THREADS 4096

struct cap {
	const struct pmt_record_plan *plan;
	const struct pmt_record_opts *o;
	const struct pmt_record_run_opts *ro;
	struct pmt_record_stats *st;
	pid_t child;                 /* the workload, -1 none */
	int go_fd, err_fd;
	int threads[CAP_MAX_THREADS];
	int nthreads;
	uint32_t nslots;             /* rings */
	int32_t *slot_cpu;           /* [slot]: CPU, -1 per thread */
	int *fds;                    /* [slot][thread][event] */
	size_t nfds;
	struct pmt_ring *rings;      /* [slot] */
	int *ring_fd;                /* [slot]: the fd that owns the ring */
	uint8_t *reenable;           /* [slot]: AUX TRUNCATED seen, enable after draining */
	bool stopped;                /* cap_enable(false) ran: nothing turns an event back on */
	uint64_t *snap_head;         /* [slot]: snapshot mode, aux_head at the last snapshot */
	bool *snap_wrapped;          /* [slot]: the area has wrapped */
	uint64_t **ids;              /* [event][n] */
	uint32_t *nids;
	uint32_t cur_slot;           /* the ring being drained */
	uint64_t t0, last_progress, last_flush;
	FILE *fp, *stream;           /* the output and the container's record stream */
	struct pmt_ctr_writer *ctr;
	struct pmt_perf_writer *w;
	int progress_shown;
	uint64_t flushed_in;          /* bytes captured when the last frame ended */
	long flushed_out;             /* the output's size then (-1: a pipe) */
	char **bundle;               /* --bundle: the mapped files to carry */
	size_t nbundle, bundle_cap;
	struct { char *path; uint8_t id[20], size; } *bid; /* build-ids read so far */
	size_t nbid;
	uint8_t *vdso;               /* the recorder's own [vdso] image (vdso.c), read once */
	size_t vdso_len;
	uint64_t vdso_base;          /* where it is mapped in the recorder */
	uint8_t vdso_id[20], vdso_id_size;
	bool vdso_read, vdso_used;   /* read tried; a record named it (carried at the end) */
	struct pmt_counter *counter; /* the run opts' counting plan, opened; NULL none */
	int32_t *count_threads;      /* its threads when counted per thread */
	uint64_t count_next;         /* when the next interval's round is due */
	int64_t count_clock_delta;   /* the samples' clock - CLOCK_MONOTONIC: t0 in the samples'
				      * clock is t0 + this (PMT_CTR_FILE_COUNT_CLOCK) */
	uint64_t count_t0_source;    /* 1: by the rings' TIME_CONV, 0: CLOCK_MONOTONIC */
};
#define FD_IX(c, s, t, e) (((size_t)(s) * (size_t)(c)->nthreads + (size_t)(t)) * \
			   (c)->plan->ev.nr + (e))

uint64_t cap_now_ns(void);
void cap_counts_clock(struct cap *c);
/* perf clock - CLOCK_MONOTONIC now, measured (perf_clock.c); false when it cannot be */
bool cap_perf_clock_offset(int64_t *offset);
int cap_counts_write_clock(struct cap *c);
void cap_enable(struct cap *c, bool on);
void cap_reenable_slot(struct cap *c, uint32_t s);
void cap_slot_aux_enable(struct cap *c, uint32_t s, bool on);
int cap_output_open(struct cap *c, struct pmt_diag *diag);
int cap_output_close(struct cap *c, int rc, struct pmt_diag *diag);
int cap_drain_all(struct cap *c, struct pmt_diag *diag);
int cap_loop(struct cap *c, struct pmt_diag *diag);
int cap_synthesize(struct cap *c);
int cap_snapshot(struct cap *c, struct pmt_diag *diag);
/* --bundle (bundle.c): note a mapped file (or an MMAP/MMAP2 record's), write them all */
void cap_bundle_note(struct cap *c, const char *path);
void cap_bundle_note_record(struct cap *c, const uint8_t *rec, size_t size);
int cap_bundle_write(struct cap *c);
size_t cap_build_id(struct cap *c, const char *path, uint8_t *id);
void cap_bundle_free(struct cap *c);
/* the GNU build-id note of an ELF image in memory; 0 bytes when none (bundle.c) */
size_t cap_elf_build_id(const uint8_t *p, size_t n, uint8_t *id);
/* the vdso (vdso.c): its build-id for a [vdso] map at addr (and a note to carry it); 0
 * without --bundle or for a process of the other ABI; a [vdso] MMAP2 record with
 * the build-id put in, in buf (the record itself when there is nothing to change); the
 * image into the container; free it */
size_t cap_vdso_build_id(struct cap *c, uint64_t addr, uint8_t *id);
const uint8_t *cap_vdso_record(struct cap *c, const uint8_t *r, size_t size, uint8_t *buf,
			       size_t cap);
int cap_vdso_write(struct cap *c);
void cap_vdso_free(struct cap *c);
/* counting events beside the samples (capture_counts.c): open on the recording's target,
 * their attrs before the stream starts, perf stat record's header, a round when an
 * interval is due (or the last one), on/off with the sampling events */
const struct pmt_count_plan *cap_counts_plan(const struct cap *c);
int cap_counts_open(struct cap *c, struct pmt_diag *diag);
int cap_counts_add_attrs(struct cap *c);
int cap_counts_header(struct cap *c);
int cap_counts_round(struct cap *c, bool last);
void cap_counts_enable(struct cap *c, bool on);
void cap_counts_free(struct cap *c);
#endif
