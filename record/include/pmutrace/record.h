/* pmutrace record layer: perf_event_open, ring and AUX draining, the container writer.
 * Uses only the common and formats layers. */
#ifndef PMUTRACE_RECORD_H
#define PMUTRACE_RECORD_H

#include "pmutrace/formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version string of the record layer, "pmutrace X.Y.Z". */
PMT_API const char *pmt_record_version(void);

#ifdef __cplusplus
}
#endif
#endif
