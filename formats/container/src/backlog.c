/* When compression cannot keep up. zstd's workers compress a frame in 1 MiB jobs while the
 * writer goes on; the bytes handed over and not compressed yet are the backlog. Past the
 * bound the policy acts: wait for the workers, drop the AUXTRACE record, or lower the level
 * of the next frames. Every action is counted: in the writer's stats, in the frame info of
 * the frame a record was dropped from, and in a stats frame at the end of the file. */
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_getFrameProgression: how far the workers are */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backlog.h"

#define DEFAULT_MAX (2u << 20)

void backlog_init(struct ctr_backlog *b, uint8_t policy, uint32_t max, int level)
{
	const char *rate = getenv("PMT_CTR_TEST_COMPRESS_RATE");

	memset(b, 0, sizeof(*b));
	b->max = max ? max : DEFAULT_MAX;
	b->test_rate = rate ? strtoull(rate, NULL, 0) : 0;
	b->level = level;
	b->st.policy = policy <= PMT_CTR_BACKLOG_LOWER ? policy : PMT_CTR_BACKLOG_BLOCK;
	b->st.level = b->st.level_min = level;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t backlog(const struct ctr_backlog *b, ZSTD_CCtx *cctx, int *active)
{
	ZSTD_frameProgression fp;

	if (b->test_rate) {
		*active = b->test_pending > 0;
		return b->test_pending;
	}
	fp = ZSTD_getFrameProgression(cctx);
	*active = (int)fp.nbActiveWorkers;
	return fp.ingested > fp.consumed ? fp.ingested - fp.consumed : 0;
}

/* Until the record fits. Only jobs a worker runs make room: the input of a job not yet
 * started (less than a job's size) waits for more input, so waiting stops there. */
static void wait_room(struct ctr_backlog *b, ZSTD_CCtx *cctx, size_t len)
{
	uint64_t t0 = now_ns();
	int active;

	b->st.waits++;
	while (backlog(b, cctx, &active) + len > b->max && active) {
		if (b->test_rate) {
			b->test_pending -= b->test_pending < b->test_rate ? b->test_pending
									  : b->test_rate;
			continue;
		}
		nanosleep(&(struct timespec){ 0, 50000 }, NULL);
	}
	b->st.wait_ns += b->test_rate ? 0 : now_ns() - t0;
}

bool backlog_admit(struct ctr_backlog *b, ZSTD_CCtx *cctx, size_t len, bool auxtrace)
{
	int active;

	if (b->test_rate) /* the model compressor's progress since the last record */
		b->test_pending -= b->test_pending < b->test_rate ? b->test_pending : b->test_rate;
	/* behind only while a worker runs: the input of a job not yet started is bytes
	 * waiting for more input, not for the compressor */
	if (backlog(b, cctx, &active) + len > b->max && active) {
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
			wait_room(b, cctx, len);
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

int backlog_frame_end(struct ctr_backlog *b)
{
	/* zstd ended the frame: everything handed over is compressed */
	b->test_pending = 0;
	b->frame_started = false;
	if (b->st.policy == PMT_CTR_BACKLOG_LOWER && b->over_in_frame && b->level > 1)
		b->level--;
	b->over_in_frame = false;
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
	return 0;
}
