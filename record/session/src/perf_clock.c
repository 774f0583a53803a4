/* The kernel's perf clock (the samples' time) against CLOCK_MONOTONIC, measured: a dummy
 * event on this thread with COMM records and their time, and a rename to the same name,
 * which makes the kernel write a COMM record stamped with the perf clock. The two clocks
 * drift apart (17 ms on a test VM), so counting rounds timed by CLOCK_MONOTONIC are placed
 * among the samples by this offset where the rings give no TIME_CONV. */
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture_priv.h"

#define UP_DATA_HEAD 1024
#define UP_DATA_OFFSET 1040
#define REC_COMM 3

/* the time of the first COMM record in the ring (its sample_id: TIME only) */
static bool first_comm_time(const uint8_t *base, size_t page, uint64_t *t)
{
	uint64_t head, off, size, pos = 0;

	head = __atomic_load_n((const uint64_t *)(base + UP_DATA_HEAD), __ATOMIC_ACQUIRE);
	memcpy(&off, base + UP_DATA_OFFSET, 8);
	memcpy(&size, base + UP_DATA_OFFSET + 8, 8);
	if (!off || !size) { /* kernels before 4.1 put the data right after the page */
		off = page;
		size = page;
	}
	while (pos + 8 <= head && pos + 8 <= size) {
		uint32_t type;
		uint16_t sz;

		memcpy(&type, base + off + pos, 4);
		memcpy(&sz, base + off + pos + 6, 2);
		if (sz < 16 || pos + sz > size)
			return false;
		if (type == REC_COMM) {
			memcpy(t, base + off + pos + sz - 8, 8);
			return true;
		}
		pos += sz;
	}
	return false;
}

bool cap_perf_clock_offset(int64_t *offset)
{
	struct pmt_perf_attr attr;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char name[17] = "";
	uint64_t a, b, t;
	bool ok = false;
	uint8_t *m;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.type = PMT_TYPE_SOFTWARE;
	attr.size = PMT_ATTR_SIZE_VER9;
	attr.config = PMT_SW_DUMMY;
	attr.sample_type = PMT_SAMPLE_TIME;
	attr.flags = PMT_ATTR_FLAG_COMM | PMT_ATTR_FLAG_SAMPLE_ID_ALL |
		     PMT_ATTR_FLAG_EXCLUDE_KERNEL | PMT_ATTR_FLAG_EXCLUDE_HV;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0x8 /* CLOEXEC */);
	if (fd < 0)
		return false;
	m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (m != MAP_FAILED) {
		prctl(PR_GET_NAME, name);
		a = cap_now_ns();
		prctl(PR_SET_NAME, name);
		b = cap_now_ns();
		if (first_comm_time(m, page, &t)) {
			*offset = (int64_t)(t - (a + (b - a) / 2));
			ok = true;
		}
		munmap(m, 2 * page);
	}
	close((int)fd);
	return ok;
}
