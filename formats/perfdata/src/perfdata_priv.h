/* Private perf.data layout shared by the reader (source.c) and the writer (perfdata_write.c).
 * Offsets follow include/uapi/linux/perf_event.h and tools/perf/util/header.c. */
#ifndef PMUTRACE_PERFDATA_PRIV_H
#define PMUTRACE_PERFDATA_PRIV_H

#include "pmutrace/perfdata.h"

static inline uint16_t pd_bswap16(uint16_t v) { return (uint16_t)(v >> 8 | v << 8); }

/* Convert an attr between byte orders in place (`size` bytes valid). The flags word is a
 * bitfield: its bytes stay in place and each byte's bits are mirrored, as perf's
 * perf_event__attr_swap() does. */
void pd_attr_swap(uint8_t *attr, size_t size);

/* A deep copy of src into dst (cleared first); on failure dst holds nothing. */
int pd_cpu_topology_copy(struct pmt_cpu_topology *dst, const struct pmt_cpu_topology *src);

#endif
