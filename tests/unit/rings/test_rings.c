/* record/rings against a kernel-side writer played by the test: records placed in the data
 * ring as kernel/events/ring_buffer.c places them (wrapping at the end, data_head moved
 * after the bytes), AUX bytes with aux_head, and what the consumer must leave behind. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/rings.h"

#define DATA 4096u
#define AUXSZ 1024u
static uint8_t mem[4096 + DATA];
static uint8_t auxmem[AUXSZ];

static uint64_t *up(size_t off)
{
	return (uint64_t *)(void *)(mem + off);
}

/* kernel side: one record of `size` bytes, header type = tag, payload bytes = tag */
static void produce(uint64_t *head, uint32_t tag, uint16_t size)
{
	uint8_t rec[512];

	memset(rec, (int)tag, sizeof(rec));
	memcpy(rec, &tag, 4);
	rec[4] = rec[5] = 0;
	memcpy(rec + 6, &size, 2);
	for (uint16_t i = 0; i < size; i++)
		mem[4096 + ((*head + i) & (DATA - 1))] = rec[i];
	*head += size;
	*up(1024) = *head; /* data_head */
}

struct seen {
	uint32_t n, tags[64];
	uint16_t sizes[64];
	int stop_at;
};

static int on_rec(void *ctx, const void *rec, size_t size)
{
	struct seen *s = ctx;
	const uint8_t *r = rec;
	uint32_t tag;

	memcpy(&tag, r, 4);
	if (s->stop_at >= 0 && (int)s->n == s->stop_at)
		return -99;
	for (size_t i = 8; i < size; i++)
		assert_int_equal(r[i], (uint8_t)tag); /* a wrapped record arrives joined */
	s->tags[s->n] = tag;
	s->sizes[s->n++] = (uint16_t)size;
	return 0;
}

static void records_wrap_and_the_tail_follows(void **state)
{
	struct pmt_ring r;
	struct seen s = { .stop_at = -1 };
	uint64_t head = DATA - 24; /* the next records straddle the end */

	(void)state;
	memset(mem, 0, sizeof(mem));
	*up(1024) = *up(1032) = head;
	pmt_ring_init_mem(&r, mem, DATA, NULL, 0, false);
	produce(&head, 9, 16);
	produce(&head, 10, 48);  /* wraps inside its payload */
	produce(&head, 11, 104);
	assert_int_equal(pmt_ring_drain(&r, on_rec, &s), 3);
	assert_int_equal(s.tags[1], 10);
	assert_int_equal(s.sizes[1], 48);
	assert_true(*up(1032) == head); /* data_tail: everything consumed */
	/* a header whose size field itself wraps */
	head = 2 * DATA - 4;
	*up(1024) = *up(1032) = head;
	produce(&head, 12, 40);
	s.n = 0;
	assert_int_equal(pmt_ring_drain(&r, on_rec, &s), 1);
	assert_int_equal(s.sizes[0], 40);
	pmt_ring_unmap(&r);
}

static void a_refused_record_stays_in_the_ring(void **state)
{
	struct pmt_ring r;
	struct seen s = { .stop_at = 1 };
	uint64_t head = 0;

	(void)state;
	memset(mem, 0, sizeof(mem));
	pmt_ring_init_mem(&r, mem, DATA, NULL, 0, false);
	produce(&head, 1, 16);
	produce(&head, 2, 16);
	assert_int_equal(pmt_ring_drain(&r, on_rec, &s), -99);
	assert_true(*up(1032) == 16); /* the tail stops before the record not taken */
	s.stop_at = -1;
	s.n = 0;
	assert_int_equal(pmt_ring_drain(&r, on_rec, &s), 1);
	assert_int_equal(s.tags[0], 2);
	/* a corrupt size is reported, never walked past */
	head = 32;
	*up(1032) = 32;
	produce(&head, 3, 8);
	mem[4096 + 32 + 6] = 12; /* not 8-aligned */
	assert_int_equal(pmt_ring_drain(&r, on_rec, &s), -PMT_ECORRUPT);
	pmt_ring_unmap(&r);
}

struct aux_seen {
	uint8_t buf[AUXSZ * 2];
	size_t len;
	uint64_t offset;
	int pieces;
};

static int on_aux(void *ctx, const void *a, size_t alen, const void *b, size_t blen,
		  uint64_t offset)
{
	struct aux_seen *s = ctx;

	memcpy(s->buf, a, alen);
	if (blen)
		memcpy(s->buf + alen, b, blen);
	s->len = alen + blen;
	s->offset = offset;
	s->pieces = blen ? 2 : 1;
	return 0;
}

static void aux_bytes_come_in_order_across_the_end(void **state)
{
	struct pmt_ring r;
	struct aux_seen s = { .len = 0 };
	uint64_t head = AUXSZ - 100;

	(void)state;
	memset(mem, 0, sizeof(mem));
	for (unsigned i = 0; i < AUXSZ; i++)
		auxmem[i] = (uint8_t)(i * 7);
	*up(1064) = head;        /* aux_tail */
	*up(1056) = head + 300;  /* aux_head: 100 bytes at the end, 200 from the start */
	pmt_ring_init_mem(&r, mem, DATA, auxmem, AUXSZ, false);
	assert_int_equal(pmt_ring_drain_aux(&r, on_aux, &s), 300);
	assert_int_equal(s.pieces, 2);
	assert_true(s.offset == head);
	for (unsigned i = 0; i < 300; i++)
		assert_int_equal(s.buf[i], auxmem[(head + i) % AUXSZ]);
	assert_true(*up(1064) == head + 300); /* aux_tail moved: the kernel may reuse it */
	assert_int_equal(pmt_ring_drain_aux(&r, on_aux, &s), 0);
	/* snapshot (overwrite) mode: the tail is not the consumer's to move */
	pmt_ring_init_mem(&r, mem, DATA, auxmem, AUXSZ, true);
	*up(1056) += 64;
	assert_int_equal(pmt_ring_drain_aux(&r, on_aux, &s), 0);
	assert_true(*up(1064) == head + 300);
}

/* struct perf_event_mmap_page: time_enabled at 24, time_running at 32 */
static void times_come_from_the_user_page(void **state)
{
	struct pmt_ring r, none = { 0 };
	uint64_t enabled, running;

	(void)state;
	memset(mem, 0, sizeof(mem));
	*up(24) = 1000000;
	*up(32) = 250000;
	pmt_ring_init_mem(&r, mem, DATA, NULL, 0, false);
	pmt_ring_times(&r, &enabled, &running);
	assert_int_equal(enabled, 1000000);
	assert_int_equal(running, 250000);
	pmt_ring_times(&none, &enabled, &running);
	assert_int_equal(enabled, 0);
	assert_int_equal(running, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(records_wrap_and_the_tail_follows),
		cmocka_unit_test(a_refused_record_stays_in_the_ring),
		cmocka_unit_test(aux_bytes_come_in_order_across_the_end),
		cmocka_unit_test(times_come_from_the_user_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
