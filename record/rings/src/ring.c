#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pmutrace/rings.h"

/* struct perf_event_mmap_page offsets (include/uapi/linux/perf_event.h) */
enum {
	UP_LOCK = 8, UP_TIME_ENABLED = 24, UP_TIME_RUNNING = 32, UP_CAPS = 40, UP_TIME_SHIFT = 50, UP_TIME_MULT = 52, UP_TIME_ZERO = 64,
	UP_TIME_CYCLES = 80, UP_TIME_MASK = 88, UP_DATA_HEAD = 1024, UP_DATA_TAIL = 1032,
	UP_DATA_OFFSET = 1040, UP_DATA_SIZE = 1048, UP_AUX_HEAD = 1056, UP_AUX_TAIL = 1064,
	UP_AUX_OFFSET = 1072, UP_AUX_SIZE = 1080,
};
#define CAP_USER_TIME_ZERO (1ULL << 4)
#define CAP_USER_TIME_SHORT (1ULL << 5)

static uint64_t *u64_at(const struct pmt_ring *r, size_t off)
{
	return (uint64_t *)(void *)(r->base + off);
}

void pmt_ring_init_mem(struct pmt_ring *r, void *base, uint64_t data_size, void *aux,
		       uint64_t aux_size, bool aux_overwrite)
{
	memset(r, 0, sizeof(*r));
	r->base = base;
	r->data_size = data_size;
	r->data = (uint8_t *)base + 4096;
	r->aux = aux;
	r->aux_size = aux_size;
	r->aux_overwrite = aux_overwrite;
}

int pmt_ring_map(struct pmt_ring *r, int fd, uint32_t data_pages, uint32_t aux_pages,
		 bool aux_overwrite, size_t page_size)
{
	size_t len = (1 + (size_t)data_pages) * page_size;
	void *base, *aux = NULL;

	memset(r, 0, sizeof(*r));
	if (!data_pages || (data_pages & (data_pages - 1)) || (aux_pages & (aux_pages - 1)))
		return -PMT_EINVAL;
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return errno == EPERM ? -PMT_EPERM : -PMT_EIO;
	if (aux_pages) {
		uint64_t off = len, size = (uint64_t)aux_pages * page_size;

		/* the kernel reads where the AUX area goes from the user page */
		memcpy((uint8_t *)base + UP_AUX_OFFSET, &off, 8);
		memcpy((uint8_t *)base + UP_AUX_SIZE, &size, 8);
		aux = mmap(NULL, size, aux_overwrite ? PROT_READ : PROT_READ | PROT_WRITE,
			   MAP_SHARED, fd, (off_t)off);
		if (aux == MAP_FAILED) {
			int e = errno;

			munmap(base, len);
			errno = e;
			return e == EPERM ? -PMT_EPERM : -PMT_EIO;
		}
	}
	pmt_ring_init_mem(r, base, (uint64_t)data_pages * page_size, aux,
			  (uint64_t)aux_pages * page_size, aux_overwrite);
	r->data = (uint8_t *)base + page_size;
	r->map_len = len;
	return 0;
}

void pmt_ring_unmap(struct pmt_ring *r)
{
	if (r->aux && r->map_len)
		munmap(r->aux, r->aux_size);
	if (r->base && r->map_len)
		munmap(r->base, r->map_len);
	free(r->scratch);
	memset(r, 0, sizeof(*r));
}

void pmt_ring_clock(const struct pmt_ring *r, struct pmt_ring_clock *c)
{
	const uint8_t *p = r->base;
	uint64_t caps;

	memset(c, 0, sizeof(*c));
	memcpy(&caps, p + UP_CAPS, 8);
	if (!(caps & CAP_USER_TIME_ZERO))
		return;
	c->valid = true;
	memcpy(&c->time_shift, p + UP_TIME_SHIFT, 2);
	memcpy(&c->time_mult, p + UP_TIME_MULT, 4);
	memcpy(&c->time_zero, p + UP_TIME_ZERO, 8);
	memcpy(&c->time_cycles, p + UP_TIME_CYCLES, 8);
	memcpy(&c->time_mask, p + UP_TIME_MASK, 8);
	c->cap_user_time_short = !!(caps & CAP_USER_TIME_SHORT);
}

int pmt_ring_drain(struct pmt_ring *r, pmt_ring_record_fn fn, void *ctx)
{
	const uint64_t mask = r->data_size - 1;
	uint64_t head = __atomic_load_n(u64_at(r, UP_DATA_HEAD), __ATOMIC_ACQUIRE);
	uint64_t tail = *u64_at(r, UP_DATA_TAIL);
	int n = 0, rc = 0;

	while (tail < head) {
		uint64_t pos = tail & mask;
		uint16_t size;
		const uint8_t *rec;

		if (head - tail < 8) {
			rc = -PMT_ECORRUPT;
			break;
		}
		/* the header's size field may itself wrap */
		if (pos + 8 <= r->data_size) {
			memcpy(&size, r->data + pos + 6, 2);
		} else {
			uint8_t h[8];
			size_t first = (size_t)(r->data_size - pos);

			memcpy(h, r->data + pos, first);
			memcpy(h + first, r->data, 8 - first);
			memcpy(&size, h + 6, 2);
		}
		if (size < 8 || (size & 7) || size > head - tail) {
			rc = -PMT_ECORRUPT;
			break;
		}
		if (pos + size <= r->data_size) {
			rec = r->data + pos;
		} else {
			size_t first = (size_t)(r->data_size - pos);

			if (r->scratch_cap < size) {
				uint8_t *s = realloc(r->scratch, 65536);

				if (!s) {
					rc = -PMT_ENOMEM;
					break;
				}
				r->scratch = s;
				r->scratch_cap = 65536; /* header.size is 16 bits */
			}
			memcpy(r->scratch, r->data + pos, first);
			memcpy(r->scratch + first, r->data, size - first);
			rec = r->scratch;
		}
		rc = fn(ctx, rec, size);
		if (rc < 0)
			break;
		tail += size;
		n++;
		r->records++;
		r->bytes += size;
	}
	__atomic_store_n(u64_at(r, UP_DATA_TAIL), tail, __ATOMIC_RELEASE);
	return rc < 0 ? rc : n;
}

/* the len bytes before head, as one piece or two when they wrap */
static int hand_out(struct pmt_ring *r, uint64_t head, uint64_t len, pmt_ring_aux_fn fn,
		    void *ctx)
{
	uint64_t pos = (head - len) & (r->aux_size - 1);

	if (pos + len <= r->aux_size)
		return fn(ctx, r->aux + pos, (size_t)len, NULL, 0, head - len);
	return fn(ctx, r->aux + pos, (size_t)(r->aux_size - pos), r->aux,
		  (size_t)(len - (r->aux_size - pos)), head - len);
}

int64_t pmt_ring_drain_aux(struct pmt_ring *r, pmt_ring_aux_fn fn, void *ctx)
{
	uint64_t head, tail, len;
	int rc;

	if (!r->aux || r->aux_overwrite)
		return 0;
	head = __atomic_load_n(u64_at(r, UP_AUX_HEAD), __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE); /* smp_rmb(): bytes after the head read */
	tail = *u64_at(r, UP_AUX_TAIL);
	if (head <= tail)
		return 0;
	len = head - tail;
	if (len > r->aux_size)
		len = r->aux_size; /* cannot happen with a kernel that honours aux_tail */
	rc = hand_out(r, head, len, fn, ctx);
	if (rc < 0)
		return rc;
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* smp_mb(): reads done before the tail moves */
	__atomic_store_n(u64_at(r, UP_AUX_TAIL), head, __ATOMIC_RELAXED);
	r->aux_bytes += len;
	return (int64_t)len;
}

static bool has_wrapped(const struct pmt_ring *r, uint64_t head)
{
	uint64_t from = r->aux_size > 512 ? r->aux_size - 512 : 0;

	if (head >= r->aux_size)
		return true;
	if (head > from)
		from = head;
	for (uint64_t i = from & ~7ull; i + 8 <= r->aux_size; i += 8) {
		uint64_t v;

		memcpy(&v, r->aux + i, 8);
		if (v)
			return true;
	}
	return false;
}

int64_t pmt_ring_aux_snapshot(struct pmt_ring *r, uint64_t *old_head, bool *wrapped,
			      uint64_t max_len, pmt_ring_aux_fn fn, void *ctx)
{
	uint64_t head, old, len;
	int rc;

	if (!r->aux)
		return 0;
	head = __atomic_load_n(u64_at(r, UP_AUX_HEAD), __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (!*wrapped && has_wrapped(r, head))
		*wrapped = true;
	if (!*wrapped && head == *old_head)
		return 0; /* nothing new; a wrapped area is taken whole again, as perf does */
	old = *old_head;
	*old_head = head;
	if (*wrapped) {
		/* the whole area, ending at head */
		if (head < r->aux_size)
			head += r->aux_size;
		old = head - r->aux_size;
	}
	len = head - old;
	if (len > r->aux_size)
		len = r->aux_size;
	if (max_len && len > max_len)
		len = max_len; /* --snapshot=SIZE: the last SIZE bytes, as perf */
	rc = hand_out(r, head, len, fn, ctx);
	if (rc < 0)
		return rc;
	r->aux_bytes += len;
	return (int64_t)len;
}

void pmt_ring_times(const struct pmt_ring *r, uint64_t *enabled, uint64_t *running)
{
	uint32_t seq;

	*enabled = *running = 0;
	if (!r->base)
		return;
	/* the kernel bumps lock around each update (perf_event_update_userpage) */
	do {
		seq = __atomic_load_n((uint32_t *)(void *)(r->base + UP_LOCK), __ATOMIC_ACQUIRE);
		*enabled = __atomic_load_n(u64_at(r, UP_TIME_ENABLED), __ATOMIC_RELAXED);
		*running = __atomic_load_n(u64_at(r, UP_TIME_RUNNING), __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n((uint32_t *)(void *)(r->base + UP_LOCK), __ATOMIC_RELAXED) != seq);
}
