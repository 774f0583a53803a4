/* pmutrace decode layer: SPE records and synthetic samples, sinks and reports,
 * symbols, metrics (expression engine, metric tables, retire latency, topdown).
 */
#ifndef PMUTRACE_DECODE_H
#define PMUTRACE_DECODE_H

#include "pmutrace/formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* =====================================================================================
 * SPE records, synthetic samples, sinks, reports
 * ===================================================================================== */

/* =====================================================================================
 * Metrics: expressions, metric tables, retire latency, topdown, calibration
 * ===================================================================================== */

#ifdef __cplusplus
}
#endif
#endif
