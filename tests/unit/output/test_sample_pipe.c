/* pmt_sample_pipe: the writer's thread gets every sample put, in the order put, with the
 * record, branch stack and call chain each had when it was put, although the caller reuses
 * one record, one branch stack and one chain buffer for all (as the decoder does); the n samples of one put share a
 * record copy; fn's error stops the writing and comes back from put and free. The
 * reference is the sequence the caller made, kept on its side. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "pmutrace/common.h"
#include "pmutrace/output.h"

#define N 30000 /* several batches of 4096 */

struct got {
	uint64_t time[N], rec_off[N], br_from[N];
	uint64_t chain_nr[N], chain_sum[N]; /* UINT64_MAX: no chain */
	const struct pmt_spe_record *rec[N];
	int n, fail_at;
};

static int take(const struct pmt_spe_sample *s, void *ctx)
{
	struct got *g = ctx;

	if (g->n == g->fail_at)
		return -PMT_EIO;
	g->time[g->n] = s->time;
	g->rec_off[g->n] = s->rec ? s->rec->offset : UINT64_MAX;
	g->br_from[g->n] = s->brstack ? s->brstack->e[0].from : UINT64_MAX;
	g->rec[g->n] = s->rec;
	g->chain_nr[g->n] = g->chain_sum[g->n] = UINT64_MAX;
	if (s->callchain) {
		g->chain_nr[g->n] = s->callchain->nr;
		g->chain_sum[g->n] = 0;
		for (uint64_t k = 0; k < s->callchain->nr; k++)
			g->chain_sum[g->n] += s->callchain->ips[k] * (k + 1);
	}
	g->n++;
	return 0;
}

/* the chain sample i carries: i % 7 entries (none for i % 7 == 0), entry k = i + k */
static uint64_t chain_sum_of(uint64_t i, uint64_t nr)
{
	uint64_t sum = 0;

	for (uint64_t k = 0; k < nr; k++)
		sum += (i + k) * (k + 1);
	return sum;
}

/* samples in puts of 1 to 4, every third without a record, every fifth with a branch
 * stack, most with a call chain; returns put's first error */
static int feed(struct pmt_sample_pipe *p, int *made)
{
	struct pmt_spe_record rec;
	struct pmt_spe_brstack br;
	struct pmt_spe_sample s[4];
	/* one chain buffer per sample of a put, reused by every put */
	struct { uint64_t nr, ips[8]; } chain[4];
	int i = 0;

	memset(&br, 0, sizeof(br));
	while (i < N) {
		int n = 1 + i % 4 > N - i ? N - i : 1 + i % 4;

		memset(&rec, 0, sizeof(rec));
		rec.offset = 1000u + (uint64_t)i;
		for (int k = 0; k < n; k++) {
			memset(&s[k], 0, sizeof(s[k]));
			s[k].time = (uint64_t)(i + k);
			s[k].rec = (i % 3) ? &rec : NULL;
			s[k].brstack = (i + k) % 5 ? NULL : &br;
			chain[k].nr = (uint64_t)(i + k) % 7;
			for (uint64_t e = 0; e < chain[k].nr; e++)
				chain[k].ips[e] = (uint64_t)(i + k) + e;
			s[k].callchain = chain[k].nr ? (const struct pmt_callchain *)&chain[k] : NULL;
		}
		/* one branch stack for all puts: the next put changes it, most likely before
		 * the writer gets to this one */
		br.e[0].from = 7u * (uint64_t)i;
		int rc = pmt_sample_pipe_put(p, s, n);

		if (rc < 0)
			return rc;
		i += n;
		*made = i;
	}
	return 0;
}

static void in_order(void **state)
{
	struct got *g = calloc(1, sizeof(*g));
	struct pmt_sample_pipe *p;
	int made = 0;

	(void)state;
	g->fail_at = -1;
	assert_int_equal(pmt_sample_pipe_new(take, g, &p), 0);
	assert_int_equal(feed(p, &made), 0);
	assert_int_equal(pmt_sample_pipe_free(p), 0);
	assert_int_equal(g->n, N);
	for (int i = 0, start = 0; i < N; i++) {
		/* the put that made sample i started at `start` */
		while (start + 1 + start % 4 <= i)
			start += 1 + start % 4;
		assert_int_equal(g->time[i], (uint64_t)i);
		assert_int_equal(g->rec_off[i], (start % 3) ? 1000u + (uint64_t)start : UINT64_MAX);
		if (i > 0 && start != i && (start % 3))
			assert_ptr_equal(g->rec[i], g->rec[i - 1]); /* one copy per put */
		assert_int_equal(g->br_from[i], i % 5 ? UINT64_MAX : 7u * (uint64_t)start);
		assert_int_equal(g->chain_nr[i], i % 7 ? (uint64_t)(i % 7) : UINT64_MAX);
		if (i % 7)
			assert_int_equal(g->chain_sum[i], chain_sum_of((uint64_t)i, (uint64_t)(i % 7)));
	}
	free(g);
}

static void error_stops(void **state)
{
	struct got *g = calloc(1, sizeof(*g));
	struct pmt_sample_pipe *p;
	int made = 0;

	(void)state;
	g->fail_at = 5000;
	assert_int_equal(pmt_sample_pipe_new(take, g, &p), 0);
	assert_int_equal(feed(p, &made), -PMT_EIO);
	assert_true(made < N); /* put said so before everything was made */
	assert_int_equal(pmt_sample_pipe_free(p), -PMT_EIO);
	assert_int_equal(g->n, 5000); /* nothing after the failing sample */
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_order),
		cmocka_unit_test(error_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
