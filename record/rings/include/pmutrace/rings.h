/* pmutrace record/rings: the consumer side of a perf_event mmap (user page, data ring, AUX
 * area) per the kernel's protocol (../shared/reference/perf-abi.md section 1): data_head
 * read with acquire, records copied (a record that wraps is joined in a scratch buffer),
 * data_tail stored with release; aux_head read, read barrier, bytes handed out (two
 * pieces when they wrap), full barrier, aux_tail written. The ring works on any memory
 * laid out as the kernel lays it out, so tests and the simulated PMU drive it too. */
#ifndef PMUTRACE_RINGS_H
#define PMUTRACE_RINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmutrace/common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pmt_ring {
	uint8_t *base;         /* user page; the data ring follows it */
	size_t map_len;        /* bytes mapped at base (0: not ours to unmap) */
	uint8_t *data;
	uint64_t data_size;    /* power of 2 */
	uint8_t *aux;          /* NULL without an AUX area */
	uint64_t aux_size;     /* power of 2 */
	bool aux_overwrite;    /* snapshot mode: the kernel ignores aux_tail */
	uint8_t *scratch;      /* a record that wraps, joined; grows to the largest record */
	size_t scratch_cap;
	uint64_t records, bytes, aux_bytes;
};

/* The user page's fields (struct perf_event_mmap_page) that a recorder needs. */
struct pmt_ring_clock {
	bool valid;            /* cap_user_time_zero: the kernel filled them */
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero, time_cycles, time_mask;
	bool cap_user_time_short;
};

/* Map fd's ring: 1 + data_pages pages (data_pages a power of 2), then with aux_pages the
 * AUX area (aux_offset/aux_size written to the user page first; read-only in overwrite
 * mode). Errors keep errno; -PMT_EPERM for EPERM (the mlock limit: perf_event_mlock_kb). */
PMT_API int pmt_ring_map(struct pmt_ring *r, int fd, uint32_t data_pages, uint32_t aux_pages,
			 bool aux_overwrite, size_t page_size);
/* Use memory the caller laid out (user page + data ring, optional AUX area). */
PMT_API void pmt_ring_init_mem(struct pmt_ring *r, void *base, uint64_t data_size, void *aux,
			       uint64_t aux_size, bool aux_overwrite);
PMT_API void pmt_ring_unmap(struct pmt_ring *r);
PMT_API void pmt_ring_clock(const struct pmt_ring *r, struct pmt_ring_clock *c);
/* The ring owner's time_enabled and time_running as the kernel last wrote them to the user
 * page (under its seqlock): running < enabled means the event was multiplexed. */
PMT_API void pmt_ring_times(const struct pmt_ring *r, uint64_t *enabled, uint64_t *running);

/* Every whole record in the data ring, oldest first; fn returns < 0 to stop (the tail
 * then stays before that record). Returns the records handed out or fn's error;
 * -PMT_ECORRUPT when a header's size is impossible (0, not 8-aligned, past the head). */
typedef int (*pmt_ring_record_fn)(void *ctx, const void *rec, size_t size);
PMT_API int pmt_ring_drain(struct pmt_ring *r, pmt_ring_record_fn fn, void *ctx);

/* The AUX bytes since the last call: [tail, head) as one or two pieces (the second when
 * they wrap), `offset` the first byte's position in the AUX stream. Overwrite mode hands
 * out nothing (take snapshots with pmt_ring_aux_snapshot). Returns bytes or fn's error. */
typedef int (*pmt_ring_aux_fn)(void *ctx, const void *a, size_t alen, const void *b,
			       size_t blen, uint64_t offset);
PMT_API int64_t pmt_ring_drain_aux(struct pmt_ring *r, pmt_ring_aux_fn fn, void *ctx);

/* Snapshot mode (overwrite AUX area, the producer stopped by the caller): the bytes that
 * arrived since *old_head, or the whole area once it has wrapped (again at every call, new
 * bytes or not), as perf's arm_spe_find_snapshot decides it (head past the size, or data in
 * the area's last 512 bytes of a fresh, zeroed mapping), cut to the last max_len bytes
 * (0: no cut). *wrapped persists between calls. Returns the bytes handed to fn (0 when
 * nothing new) or fn's error. */
PMT_API int64_t pmt_ring_aux_snapshot(struct pmt_ring *r, uint64_t *old_head, bool *wrapped,
				      uint64_t max_len, pmt_ring_aux_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
