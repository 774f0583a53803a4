/* For the preloads that wrap syscall(2): its six argument words, read from the variadic
 * call the way glibc's syscall() reads them, to look at or to pass on unchanged. */
#ifndef PMT_PRELOAD_SYSCALL_H
#define PMT_PRELOAD_SYSCALL_H

#include <stdarg.h>

#define PRELOAD_SYSCALL_ARGS(nr, a)                          \
	do {                                                 \
		va_list ap_;                                 \
		va_start(ap_, nr);                           \
		for (int i_ = 0; i_ < 6; i_++)               \
			(a)[i_] = va_arg(ap_, long);         \
		va_end(ap_);                                 \
	} while (0)

#endif
