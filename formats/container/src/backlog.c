/* When compression cannot keep up. The writer's threads compress whole frames while the
 * writer fills the next (writer_pool.c); the bytes handed over and not compressed yet are
 * the backlog. Past the
 * bound the policy acts: wait for the workers, drop the AUXTRACE record, or lower the level
 * of the next frames. Every action is counted: in the writer's stats, in the frame info of
 * the frame a record was dropped from, and in a stats frame at the end of the file. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backlog.h"
#include "writer_pool.h"

#define DEFAULT_MAX (2u << 20)

void backlog_init(struct ctr_backlog *b, uint8_t policy, uint32_t max, uint64_t pool_max,
		  int level)
{
	const char *rate = getenv("PMT_CTR_TEST_COMPRESS_RATE");

	memset(b, 0, sizeof(*b));
	b->test_rate = rate ? strtoull(rate, NULL, 0) : 0;
	/* the model compressor's figures in the tests were worked out with the old bound */
	b->max = max ? max : pool_max && !b->test_rate ? pool_max : DEFAULT_MAX;
	b->level = level;
	b->st.policy = policy <= PMT_CTR_BACKLOG_LOWER ? policy : PMT_CTR_BACKLOG_BLOCK;
	b->st.level = b->st.level_min = level;
}

uint64_t backlog_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t backlog(const struct ctr_backlog *b, struct ctr_pool *pool, int *active)
{
	if (b->test_rate) {
		*active = b->test_pending > 0;
		return b->test_pending;
	}
	*active = 0;
	return pool ? ctr_pool_backlog(pool, active) : 0;
}

/* Until the record fits, or nothing is left to compress. */
static void wait_room(struct ctr_backlog *b, struct ctr_pool *pool, size_t len)
{
	uint64_t t0 = backlog_clock();
	int active;

	b->st.waits++;
	while (backlog(b, pool, &active) + len > b->max && active) {
		if (b->test_rate) {
			b->test_pending -= b->test_pending < b->test_rate ? b->test_pending
									  : b->test_rate;
			continue;
		}
		ctr_pool_wait_progress(pool);
	}
	b->st.wait_ns += b->test_rate ? 0 : backlog_clock() - t0;
}

bool backlog_admit(struct ctr_backlog *b, struct ctr_pool *pool, size_t len, bool auxtrace)
{
	int active;

	if (b->test_rate) /* the model compressor's progress since the last record */
		b->test_pending -= b->test_pending < b->test_rate ? b->test_pending : b->test_rate;
	/* behind only while frames wait for the threads or are on them */
	uint64_t now = backlog(b, pool, &active) + len;

	if (now > b->peak)
		b->peak = now;
	if (now > b->max && active) {
		b->over_in_frame = true;
		if (b->st.policy == PMT_CTR_BACKLOG_DROP && auxtrace) {
			b->st.dropped++;
			b->st.dropped_bytes += len;
			return false;
		}
		/* LOWER: the level steps down at the frame's end; until it can go no lower,
		 * zstd takes the record as it can (its own input buffers bound the memory) */
		if (b->st.policy == PMT_CTR_BACKLOG_BLOCK ||
		    (b->st.policy == PMT_CTR_BACKLOG_LOWER && b->level <= 1))
			wait_room(b, pool, len);
	}
	if (b->test_rate)
		b->test_pending += len;
	if (!b->frame_started) {
		/* a frame is counted when its first record goes in: the stats are whole
		 * before the writer closes */
		b->frame_started = true;
		if (b->level < b->st.level) {
			b->st.lowered_frames++;
			if (b->level < b->st.level_min)
				b->st.level_min = b->level;
		}
	}
	return true;
}

void backlog_count_wait(struct ctr_backlog *b, uint64_t ns)
{
	b->st.waits++;
	b->st.wait_ns += ns;
}

int backlog_frame_end(struct ctr_backlog *b)
{
	/* zstd ended the frame: everything handed over is compressed */
	b->test_pending = 0;
	b->frame_started = false;
	if (b->st.policy == PMT_CTR_BACKLOG_LOWER && b->over_in_frame && b->level > 1)
		b->level--;
	/* hysteresis: lowered past the bound, raised only after frames well under it, so a
	 * backlog near the bound does not swing the level frame by frame */
	b->calm_frames = b->over_in_frame || 2 * b->peak > b->max ? 0 : b->calm_frames + 1;
	if (b->st.policy == PMT_CTR_BACKLOG_LOWER && b->level < b->st.level &&
	    b->calm_frames >= PMT_CTR_RAISE_AFTER) {
		b->level++;
		b->st.raised++;
		b->calm_frames = 0;
	}
	b->over_in_frame = false;
	b->peak = 0;
	return b->level;
}

void backlog_encode(const struct pmt_ctr_writer_stats *st, uint8_t *out)
{
	memset(out, 0, WSTATS_SIZE);
	memcpy(out, "PMTWSTAT", 8);
	pmt_put_le32(out + 8, 1);
	pmt_put_le32(out + 12, st->policy);
	pmt_put_le32(out + 16, (uint32_t)st->level);
	pmt_put_le32(out + 20, (uint32_t)st->level_min);
	pmt_put_le64(out + 24, st->waits);
	pmt_put_le64(out + 32, st->wait_ns);
	pmt_put_le64(out + 40, st->dropped);
	pmt_put_le64(out + 48, st->dropped_bytes);
	pmt_put_le32(out + 56, st->lowered_frames);
	pmt_put_le32(out + 60, st->raised); /* 0 in files from before it */
}

int backlog_decode(const uint8_t *p, size_t n, struct pmt_ctr_writer_stats *st)
{
	if (n < WSTATS_SIZE || memcmp(p, "PMTWSTAT", 8) || pmt_le32(p + 8) != 1)
		return -1;
	st->policy = pmt_le32(p + 12);
	st->level = (int)pmt_le32(p + 16);
	st->level_min = (int)pmt_le32(p + 20);
	st->waits = pmt_le64(p + 24);
	st->wait_ns = pmt_le64(p + 32);
	st->dropped = pmt_le64(p + 40);
	st->dropped_bytes = pmt_le64(p + 48);
	st->lowered_frames = pmt_le32(p + 56);
	st->raised = pmt_le32(p + 60);
	return 0;
}
