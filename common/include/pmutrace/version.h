/* pmutrace common: the version, generated once from project(VERSION) in CMakeLists.txt. */
#ifndef PMUTRACE_VERSION_H
#define PMUTRACE_VERSION_H

#include "pmutrace/errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "pmutrace X.Y.Z", from the project version in CMakeLists.txt. */
PMT_API const char *pmt_version(void);

#ifdef __cplusplus
}
#endif
#endif
