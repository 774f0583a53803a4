/* The capture's output side: the container and its perf.data header records, draining
 * every ring into it, the poll loop, the status line. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture_priv.h"
#include "pmutrace/container.h"
#include "pmutrace/counting.h"

/* PERF_RECORD_* the drain looks at */
enum { REC_LOST = 2, REC_SAMPLE = 9, REC_MMAP2 = 10, REC_AUX = 11, REC_LOST_SAMPLES = 13 };
enum { AUX_TRUNCATED = 1, AUX_PARTIAL = 4, AUX_COLLISION = 8 };
/* a frame at least every second: a killed recording keeps all but its last second */
#define FRAME_FLUSH_NS 1000000000ull

static int open_file(struct cap *c, struct pmt_diag *diag)
{
	const char *out = c->ro->out;

	if (!strcmp(out, "-")) {
		c->fp = stdout;
		return 0;
	}
	/* written in place, so a killed recording leaves a file readable to its last frame;
	 * an existing recording is kept as FILE.old, as perf record keeps perf.data.old */
	if (access(out, F_OK) == 0) {
		char old[4200];

		snprintf(old, sizeof(old), "%s.old", out);
		if (rename(out, old))
			return pmt_diag_set(diag, -PMT_EIO, out, PMT_DIAG_NO_OFFSET,
					    "cannot keep the existing file as %s: %s", old,
					    strerror(errno));
	}
	c->fp = fopen(out, "wb");
	if (!c->fp)
		return pmt_diag_set(diag, -PMT_EIO, out, PMT_DIAG_NO_OFFSET, "%s",
				    strerror(errno));
	return 0;
}

/* record__init_clock(): the time of day and the events' clock read back to back (perf's
 * order: gettimeofday first), and the clock's resolution (HEADER_CLOCKID), so that perf
 * script -F tod can date every sample */
static int write_clock_data(struct pmt_perf_writer *w, int32_t clockid)
{
	struct timeval tod;
	struct timespec ref, res = { 0, 0 };

	if (gettimeofday(&tod, NULL) || clock_gettime((clockid_t)clockid, &ref))
		return -PMT_EINVAL;
	clock_getres((clockid_t)clockid, &res);
	return pmt_perf_writer_set_clock_data(w, (uint32_t)clockid,
					      (uint64_t)tod.tv_sec * 1000000000u +
						      (uint64_t)tod.tv_usec * 1000u,
					      (uint64_t)ref.tv_sec * 1000000000u +
						      (uint64_t)ref.tv_nsec,
					      (uint64_t)res.tv_sec * 1000000000u +
						      (uint64_t)res.tv_nsec);
}

static int write_features(struct cap *c)
{
	struct utsname u;
	long online = sysconf(_SC_NPROCESSORS_ONLN), avail = sysconf(_SC_NPROCESSORS_CONF);
	int rc = 0;

	if (uname(&u) == 0) {
		rc = pmt_perf_writer_set_feature_str(c->w, PMT_FEAT_HOSTNAME, u.nodename);
		if (rc >= 0)
			rc = pmt_perf_writer_set_feature_str(c->w, PMT_FEAT_OSRELEASE, u.release);
		if (rc >= 0)
			rc = pmt_perf_writer_set_feature_str(c->w, PMT_FEAT_ARCH, u.machine);
	}
	if (rc >= 0)
		rc = pmt_perf_writer_set_feature_str(c->w, PMT_FEAT_VERSION, pmt_version());
	/* the CPUs opened come from the sysfs tree ($SYSFS_PATH), which may list more than
	 * this host's; perf clamps a sample's CPU at or above NRCPUS' available count */
	if (c->plan->per_cpu) {
		long count = (long)pmt_cpumask_count(&c->plan->cpus), hi = -1;
		int cpu = -1;

		while ((cpu = pmt_cpumask_next(&c->plan->cpus, (unsigned)(cpu + 1))) >= 0)
			hi = cpu;
		if (count > online)
			online = count;
		if (hi + 1 > avail)
			avail = hi + 1;
	}
	if (rc >= 0)
		rc = pmt_stat_set_topology(c->w, (uint32_t)online, (uint32_t)avail);
	if (rc >= 0 && c->ro->argv_cmdline)
		rc = pmt_perf_writer_set_cmdline(c->w, c->ro->argc_cmdline, c->ro->argv_cmdline);
	if (rc >= 0 && PMT_OPTS_HAS(c->o, clockid) && c->o->use_clockid)
		rc = write_clock_data(c->w, c->o->clockid);
	return rc;
}

/* A CPU's MIDR as perf's get_cpuid_allow_env_override(): $PERF_CPUID for every CPU,
 * else the CPU's midr_el1 in the sysfs tree; 0 when neither says */
static uint64_t cpu_midr(uint32_t cpu)
{
	const char *env = getenv("PERF_CPUID");
	unsigned long long v = 0;
	char path[160];
	FILE *f;

	if (env && *env)
		return strtoull(env, NULL, 16);
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%u/regs/identification/midr_el1",
		 pmt_sysfs_root(), cpu);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llx", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* perf's arm_spe_find_cpus(): the CPUs asked for, or for a task every online CPU */
static int spe_info_cpus(const struct cap *c, struct pmt_cpumask *m)
{
	char path[160], line[4096];
	FILE *f;

	if (c->plan->per_cpu) {
		*m = c->plan->cpus;
		return 0;
	}
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", pmt_sysfs_root());
	f = fopen(path, "r");
	if (f && fgets(line, sizeof(line), f) && pmt_cpumask_parse(line, m) == 0) {
		fclose(f);
		return 0;
	}
	if (f)
		fclose(f);
	memset(m, 0, sizeof(*m));
	for (long i = 0, n = sysconf(_SC_NPROCESSORS_ONLN); i < n && i < PMT_CPUS_MAX; i++)
		m->bits[i / 64] |= 1ull << (i % 64);
	return 0;
}

/* AUXTRACE_INFO v2 as arm64 perf 7.3 writes it, per task too: one block per CPU with its
 * MIDR and the SPE PMU's caps where that PMU covers the CPU */
static int write_spe_info(struct cap *c)
{
	const struct pmt_evsel *ev = &c->plan->ev.ev[0];
	const struct pmt_pmu *pmu = ev->pmu;
	struct pmt_spe_cpu_meta *m;
	struct pmt_cpumask cpus;
	uint64_t min_interval = 0, event_filter = 0;
	uint32_t n = 0;
	int cpu = -1, rc;

	spe_info_cpus(c, &cpus);
	m = calloc(pmt_cpumask_count(&cpus) + 1, sizeof(*m));
	if (!m)
		return -PMT_ENOMEM;
	if (pmu && pmt_pmu_cap_u64(pmu, "min_interval", &min_interval) < 0)
		min_interval = 0;
	if (pmu && pmt_pmu_cap_u64(pmu, "event_filter", &event_filter) < 0)
		event_filter = 0;
	while ((cpu = pmt_cpumask_next(&cpus, (unsigned)(cpu + 1))) >= 0) {
		bool covered = pmu && (!pmu->has_cpus || pmt_cpumask_has(&pmu->cpus, (unsigned)cpu));

		m[n].cpu = (uint32_t)cpu;
		m[n].midr = cpu_midr((uint32_t)cpu);
		m[n].pmu_type = covered ? ev->attr.type : UINT64_MAX;
		m[n].min_interval = covered ? min_interval : 0;
		m[n].event_filter = covered ? event_filter : 0;
		n++;
	}
	rc = pmt_perf_writer_write_auxtrace_info_spe_cpus(c->w, ev->attr.type, n, m);
	free(m);
	return rc;
}

/* End the container's current frame with every record written so far: what a SIGKILL
 * can lose is bounded by the time between two of these */
static int flush_frame(struct cap *c)
{
	int rc;

	if (fflush(c->stream))
		return -PMT_EIO;
	c->last_flush = cap_now_ns();
	rc = pmt_ctr_flush(c->ctr);
	/* a pipe has no position: no ratio on the status line */
	c->flushed_in = c->st->bytes + c->st->aux_bytes;
	c->flushed_out = c->fp ? ftell(c->fp) : -1;
	return rc;
}

int cap_output_open(struct cap *c, struct pmt_diag *diag)
{
	const struct pmt_record_plan *p = c->plan;
	struct pmt_ctr_writer_opts co = { .sz = sizeof(co), .level = c->ro->level,
					  .backlog = c->ro->writer_policy,
					  .backlog_max = c->ro->writer_backlog };
	struct pmt_perf_writer_opts wo = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = 1);
	struct pmt_ring_clock clk;
	int rc = open_file(c, diag);

	if (rc < 0)
		return rc;
	rc = pmt_ctr_writer_new(c->fp, &co, &c->ctr, diag);
	if (rc < 0)
		return rc;
	c->stream = pmt_perf_container_stream(c->ctr);
	if (!c->stream)
		return -PMT_ENOMEM;
	rc = pmt_perf_writer_new(c->stream, &wo, &c->w);
	for (uint32_t e = 0; rc >= 0 && e < p->ev.nr; e++)
		rc = pmt_perf_writer_add_attr(c->w, &p->ev.ev[e].attr, PMT_ATTR_SIZE_MAX,
					      c->ids[e], c->nids[e], p->ev.ev[e].name);
	if (rc >= 0)
		rc = cap_counts_add_attrs(c);
	if (rc >= 0)
		rc = write_features(c);
	pmt_ring_clock(&c->rings[0], &clk);
	if (rc >= 0 && clk.valid) {
		struct pmt_time_conv tc = {
			.time_shift = clk.time_shift, .time_mult = clk.time_mult,
			.time_zero = clk.time_zero, .time_cycles = clk.time_cycles,
			.time_mask = clk.time_mask, .cap_user_time_zero = 1,
			.cap_user_time_short = clk.cap_user_time_short,
		};

		rc = pmt_perf_writer_write_time_conv(c->w, &tc);
	}
	if (rc >= 0 && p->full_auxtrace && p->aux_pages)
		rc = write_spe_info(c);
	c->st->lost_per_slot = calloc(c->nslots, sizeof(*c->st->lost_per_slot));
	if (!c->st->lost_per_slot)
		rc = -PMT_ENOMEM;
	if (rc >= 0)
		rc = cap_synthesize(c);
	if (rc >= 0)
		rc = cap_counts_header(c);
	if (rc >= 0)
		rc = flush_frame(c); /* the header and task records get a frame of their own */
	if (rc < 0)
		return pmt_diag_set(diag, rc, c->ro->out, PMT_DIAG_NO_OFFSET,
				    "writing the recording's header: %s", pmt_errstr(rc));
	return 0;
}

int cap_output_close(struct cap *c, int rc, struct pmt_diag *diag)
{
	int rc2 = 0;

	(void)rc;
	if (c->w)
		rc2 = pmt_perf_writer_close(c->w);
	c->w = NULL;
	if (c->stream && fclose(c->stream) && rc2 >= 0)
		rc2 = -PMT_EIO;
	c->stream = NULL;
	/* the carried files go after the records, before the index */
	if (c->ctr && rc2 >= 0)
		rc2 = cap_counts_write_clock(c);
	if (c->ctr && rc2 >= 0)
		rc2 = cap_bundle_write(c);
	cap_bundle_free(c);
	if (c->ctr) {
		struct pmt_ctr_writer_stats ws;
		int rc3;

		pmt_ctr_writer_stats(c->ctr, &ws);
		c->st->writer_waits = ws.waits;
		c->st->writer_wait_ns = ws.wait_ns;
		c->st->writer_dropped = ws.dropped;
		c->st->writer_dropped_bytes = ws.dropped_bytes;
		c->st->writer_lowered_frames = ws.lowered_frames;
		c->st->writer_raised = ws.raised;
		c->st->writer_level = ws.level;
		c->st->writer_level_min = ws.level_min;
		rc3 = pmt_ctr_writer_close(c->ctr, diag);

		if (rc2 >= 0)
			rc2 = rc3;
	}
	c->ctr = NULL;
	if (c->fp) {
		if (c->fp != stdout) {
			struct stat sb;

			if (fflush(c->fp) || fsync(fileno(c->fp)))
				rc2 = rc2 < 0 ? rc2 : -PMT_EIO;
			if (fstat(fileno(c->fp), &sb) == 0)
				c->st->out_bytes = (uint64_t)sb.st_size;
			fclose(c->fp);
		} else {
			fflush(stdout);
		}
	}
	c->fp = NULL;
	if (rc2 < 0 && !diag->code)
		pmt_diag_set(diag, rc2, c->ro->out, PMT_DIAG_NO_OFFSET, "writing failed: %s",
			     pmt_errstr(rc2));
	return rc2;
}

static int on_record(void *ctx, const void *rec, size_t size)
{
	struct cap *c = ctx;
	const uint8_t *r = rec;
	uint32_t type;

	memcpy(&type, r, 4);
	switch (type) {
	case REC_SAMPLE:
		c->st->samples++;
		break;
	case REC_LOST: {
		uint64_t lost;

		memcpy(&lost, r + 16, 8);
		c->st->lost += lost;
		c->st->lost_per_slot[c->cur_slot] += lost;
		break;
	}
	case REC_LOST_SAMPLES: {
		uint64_t lost;

		memcpy(&lost, r + 8, 8);
		c->st->lost_samples += lost;
		c->st->lost_per_slot[c->cur_slot] += lost;
		break;
	}
	case REC_AUX: {
		uint64_t flags;

		memcpy(&flags, r + 24, 8);
		if (flags & AUX_TRUNCATED) {
			c->st->aux_truncated++;
			c->st->lost_per_slot[c->cur_slot]++;
			c->reenable[c->cur_slot] = 1;
		}
		if (flags & AUX_PARTIAL)
			c->st->aux_partial++;
		if (flags & AUX_COLLISION)
			c->st->aux_collision++;
		break;
	}
	default:
		break;
	}
	c->st->records++;
	c->st->bytes += size;
	cap_bundle_note_record(c, r, size);
	if (type == REC_MMAP2) {
		uint8_t buf[256]; /* once per exec: a [vdso] MMAP2 and its sample_id fields */

		return pmt_perf_writer_write_record(c->w, cap_vdso_record(c, r, size, buf,
									  sizeof(buf)), size);
	}
	return pmt_perf_writer_write_record(c->w, rec, size);
}

static int on_aux(void *ctx, const void *a, size_t alen, const void *b, size_t blen,
		  uint64_t offset)
{
	struct cap *c = ctx;
	const int32_t cpu = c->slot_cpu[c->cur_slot];
	struct timespec ts;

	/* perf's arm_spe_reference(): CLOCK_MONOTONIC_RAW sec ^ nsec */
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	c->st->aux_bytes += alen + blen;
	/* the ring's bytes go to zstd's window as they lie, wrapped or not: the one copy
	 * before the ring's pages are handed back by moving aux_tail */
	return pmt_perf_writer_write_auxtrace_ctr(c->w, c->ctr, a, alen, b, blen, offset,
						  (uint64_t)ts.tv_sec ^ (uint64_t)ts.tv_nsec,
						  c->cur_slot,
						  cpu < 0 ? (uint32_t)c->threads[c->cur_slot]
							  : UINT32_MAX,
						  (uint32_t)cpu);
}

int cap_drain_all(struct cap *c, struct pmt_diag *diag)
{
	uint64_t before = c->st->records + c->st->aux_bytes;

	for (uint32_t s = 0; s < c->nslots; s++) {
		int rc;
		int64_t arc;

		c->cur_slot = s;
		/* records first: the kernel writes PERF_RECORD_AUX before moving aux_head */
		rc = pmt_ring_drain(&c->rings[s], on_record, c);
		if (rc < 0)
			return pmt_diag_set(diag, rc, NULL, PMT_DIAG_NO_OFFSET,
					    "ring of %s %d: %s", c->slot_cpu[s] < 0 ? "thread" : "CPU",
					    c->slot_cpu[s] < 0 ? c->threads[s] : c->slot_cpu[s],
					    pmt_errstr(rc));
		arc = pmt_ring_drain_aux(&c->rings[s], on_aux, c);
		if (arc < 0)
			return pmt_diag_set(diag, (int)arc, NULL, PMT_DIAG_NO_OFFSET,
					    "AUX area of slot %u: %s", s, pmt_errstr((int)arc));
		/* TRUNCATED, or an area drained from (nearly) full: its TRUNCATED record may be
		 * among those a full data ring dropped, and the driver stays stopped until
		 * enabled; enabling a running event changes nothing */
		if (c->reenable[s] || (c->rings[s].aux && (uint64_t)arc >= c->rings[s].aux_size / 2)) {
			c->reenable[s] = 0;
			cap_reenable_slot(c, s);
		}
	}
	if (c->st->records + c->st->aux_bytes != before) {
		/* FINISHED_ROUND: everything before it may be sorted and flushed */
		static const uint8_t round[8] = { 68, 0, 0, 0, 0, 0, 8, 0 };

		return pmt_perf_writer_write_record(c->w, round, sizeof(round));
	}
	return 0;
}

/* One snapshot of every AUX area: each stopped while it is copied, as perf does */
int cap_snapshot(struct cap *c, struct pmt_diag *diag)
{
	bool any = false;

	for (uint32_t s = 0; s < c->nslots; s++) {
		int64_t n;

		c->cur_slot = s;
		cap_slot_aux_enable(c, s, false);
		n = pmt_ring_aux_snapshot(&c->rings[s], &c->snap_head[s], &c->snap_wrapped[s],
					  c->plan->snapshot_size, on_aux, c);
		cap_slot_aux_enable(c, s, true);
		if (n < 0)
			return pmt_diag_set(diag, (int)n, NULL, PMT_DIAG_NO_OFFSET,
					    "snapshot of slot %u: %s", s, pmt_errstr((int)n));
		any |= n > 0;
	}
	if (any)
		c->st->snapshots++;
	return cap_drain_all(c, diag);
}

static void progress(struct cap *c, bool last)
{
	uint64_t now = cap_now_ns(), el = now - c->t0;
	double mb = (double)(c->st->bytes + c->st->aux_bytes) / 1e6;
	char ratio[32] = "";

	if (!c->ro->progress || (!last && now - c->last_progress < 500000000ull))
		return;
	c->last_progress = now;
	/* the ratio of the frames finished so far (the current one is still in zstd) */
	if (c->flushed_in && c->flushed_out > 0)
		snprintf(ratio, sizeof(ratio), ", ratio %.2f",
			 (double)c->flushed_in / (double)c->flushed_out);
	fprintf(stderr, "\r[ %6.1f s ] %9.1f MB captured, %7.1f MB/s%s, %llu samples, %llu lost%s",
		(double)el / 1e9, mb, el ? mb / ((double)el / 1e9) : 0.0, ratio,
		(unsigned long long)c->st->samples,
		(unsigned long long)(c->st->lost + c->st->lost_samples + c->st->aux_truncated),
		last ? "\n" : "  ");
	c->progress_shown = 1;
}

int cap_loop(struct cap *c, struct pmt_diag *diag)
{
	struct pollfd *pfd = calloc(c->nslots, sizeof(*pfd));
	int rc = 0;

	if (!pfd)
		return -PMT_ENOMEM;
	for (uint32_t s = 0; s < c->nslots; s++) {
		pfd[s].fd = c->ring_fd[s];
		pfd[s].events = POLLIN;
	}
	for (;;) {
		int status;

		if (c->ro->stop && *c->ro->stop)
			break;
		if (c->ro->duration_ns && cap_now_ns() - c->t0 >= c->ro->duration_ns)
			break;
		if (c->child > 0 && waitpid(c->child, &status, WNOHANG) == c->child) {
			c->st->workload_status = status;
			c->child = -1;
			break;
		}
		if (poll(pfd, c->nslots, 100) < 0 && errno != EINTR) {
			rc = pmt_diag_set(diag, -PMT_EIO, NULL, PMT_DIAG_NO_OFFSET, "poll: %s",
					  strerror(errno));
			break;
		}
		rc = cap_drain_all(c, diag);
		if (rc >= 0 && (rc = cap_counts_round(c, false)) < 0)
			pmt_diag_set(diag, rc, c->ro->out, PMT_DIAG_NO_OFFSET, "reading or "
				     "writing the counts: %s", pmt_errstr(rc));
		if (rc >= 0 && c->ro->snapshot && *c->ro->snapshot) {
			*c->ro->snapshot = 0;
			if (c->plan->snapshot_size)
				rc = cap_snapshot(c, diag);
		}
		if (rc >= 0 && cap_now_ns() - c->last_flush >= FRAME_FLUSH_NS)
			rc = flush_frame(c);
		if (rc < 0)
			break;
		progress(c, false);
	}
	if (c->progress_shown)
		progress(c, true);
	free(pfd);
	return rc;
}
