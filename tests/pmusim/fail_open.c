/* LD_PRELOAD that makes perf_event_open fail, to see what pmutrace says for each refusal
 * the kernel can give. PMT_FAIL_OPEN_ERRNO=N fails every open with errno N (only those of
 * attr.type PMT_FAIL_OPEN_TYPE when that is set); PMT_FAKE_KERNEL=X.Y.Z makes uname()
 * report that release, for the "needs Linux X.Y" explanations. PMT_OPEN_LOG=FILE appends
 * one line per open that reaches the kernel: "type config cpu group_fd -> fd". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "preload_syscall.h"

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	const char *want = getenv("PMT_FAIL_OPEN_ERRNO"), *type = getenv("PMT_FAIL_OPEN_TYPE");
	long a[6];

	PRELOAD_SYSCALL_ARGS(nr, a);
	if (nr == SYS_perf_event_open && want &&
	    (!type || *(const uint32_t *)a[0] == (uint32_t)atoi(type))) {
		errno = atoi(want);
		return -1;
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == SYS_perf_event_open && getenv("PMT_OPEN_LOG")) {
		long fd = real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		int saved = errno;
		FILE *f = fopen(getenv("PMT_OPEN_LOG"), "a");
		uint64_t config;

		memcpy(&config, (const char *)a[0] + 8, 8);
		if (f) {
			/* cpu and group_fd are ints: the upper half of their words is junk */
			fprintf(f, "%u %#llx %d %d -> %ld\n", *(const uint32_t *)a[0],
				(unsigned long long)config, (int)a[2], (int)a[3], fd);
			fclose(f);
		}
		errno = saved;
		return fd;
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int uname(struct utsname *u)
{
	static int (*real)(struct utsname *);
	const char *fake = getenv("PMT_FAKE_KERNEL");
	int rc;

	if (!real)
		real = (int (*)(struct utsname *))dlsym(RTLD_NEXT, "uname");
	rc = real(u);
	if (rc == 0 && fake)
		snprintf(u->release, sizeof(u->release), "%s", fake);
	return rc;
}
