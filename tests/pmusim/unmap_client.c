/* A recorder's teardown as pmutrace and perf do it, with the event left enabled (as after
 * a re-enable following TRUNCATED): unmap the AUX area and the ring, wait, then close.
 * The kernel stops writing into a ring once it is unmapped (perf_mmap_close), so the
 * simulated PMU's producer must not touch those pages either: this program dies of
 * SIGSEGV where it does. Run under LD_PRELOAD=pmusim.so with PMUSIM_TYPE=8. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	uint8_t attr[136] = { 0 };
	uint32_t type = 8, size = sizeof(attr);
	const long page = sysconf(_SC_PAGESIZE);
	uint8_t *base, *aux;
	int fd;

	memcpy(attr, &type, 4);
	memcpy(attr + 4, &size, 4);
	fd = (int)syscall(SYS_perf_event_open, attr, -1, 0, -1, 0);
	if (fd < 0)
		return perror("perf_event_open"), 1;
	base = mmap(NULL, (size_t)page * 9, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	aux = mmap(NULL, (size_t)page * 4, PROT_READ | PROT_WRITE, MAP_SHARED, fd, page * 9);
	if (base == MAP_FAILED || aux == MAP_FAILED)
		return perror("mmap"), 1;
	ioctl(fd, 0x2400 /* PERF_EVENT_IOC_ENABLE */, 0);
	usleep(20000); /* the producer runs: the 16 KiB area fills, or the stream ends */
	ioctl(fd, 0x2400, 0); /* re-enabled, as after TRUNCATED */
	munmap(aux, (size_t)page * 4);
	munmap(base, (size_t)page * 9);
	usleep(50000); /* the producer's loop comes round many times */
	close(fd);
	puts("closed");
	return 0;
}
