/* What perf record synthesizes for tasks that exist before the recording starts (-a, -p,
 * -t): a COMM per thread and an MMAP2 per executable mapping, from /proc, so samples of
 * those tasks get names and binaries (perf's perf_event__synthesize_threads). */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_priv.h"

static int tracking_event(const struct cap *c)
{
	for (uint32_t e = 0; e < c->plan->ev.nr; e++)
		if (c->plan->ev.ev[e].tracking)
			return (int)e;
	return 0;
}

static int synth_maps(struct cap *c, int pid, const struct pmt_sample_id *sid)
{
	char path[64], line[4096 + 256];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return 0; /* the task ended meanwhile */
	while (rc >= 0 && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff;
		char perms[8], file[4096];
		uint8_t bid[20];
		size_t bid_size;
		uint32_t prot, flags;
		int n = 0;

		file[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &pgoff,
			   &n) < 4 || !n)
			continue;
		if (perms[2] != 'x')
			continue; /* perf synthesizes executable mappings only (without --data) */
		snprintf(file, sizeof(file), "%s", line + n);
		file[strcspn(file, "\n")] = 0;
		if (!file[0])
			snprintf(file, sizeof(file), "//anon");
		cap_bundle_note(c, file);
		prot = (perms[0] == 'r' ? 1u : 0u) | (perms[1] == 'w' ? 2u : 0u) | 4u;
		flags = perms[3] == 's' ? 1u : 2u;
		/* the file's build-id in the record (perf's --buildid-mmap form), so a decoder
		 * elsewhere finds the right file and refuses another */
		bid_size = strcmp(file, "[vdso]") ? cap_build_id(c, file, bid)
						  : cap_vdso_build_id(c, start, bid);
		rc = bid_size ? pmt_perf_writer_write_mmap2_build_id(c->w, (uint32_t)pid,
								     (uint32_t)pid, start, end - start,
								     pgoff, prot, flags, bid, bid_size,
								     file, sid)
			      : pmt_perf_writer_write_mmap2(c->w, (uint32_t)pid, (uint32_t)pid,
							    start, end - start, pgoff, prot, flags,
							    file, sid);
	}
	fclose(f);
	return rc;
}

static int synth_process(struct cap *c, int pid, uint64_t id)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (rc >= 0 && (de = readdir(d))) {
		char cpath[96], comm[64] = "";
		int tid = atoi(de->d_name);
		FILE *f;
		struct pmt_sample_id sid = { .valid = 1, .pid = (uint32_t)pid,
					     .tid = (uint32_t)tid, .id = id };

		if (tid <= 0)
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%d/comm", pid, tid);
		f = fopen(cpath, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
		rc = pmt_perf_writer_write_comm(c->w, (uint32_t)pid, (uint32_t)tid, comm, false,
						&sid);
	}
	closedir(d);
	if (rc >= 0) {
		struct pmt_sample_id sid = { .valid = 1, .pid = (uint32_t)pid,
					     .tid = (uint32_t)pid, .id = id };

		rc = synth_maps(c, pid, &sid);
	}
	return rc;
}

/* the process a thread belongs to (Tgid in /proc/TID/status) */
static int tgid_of(int tid)
{
	char path[64], line[128];
	FILE *f;
	int tgid = tid;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

int cap_synthesize(struct cap *c)
{
	const int ev = tracking_event(c);
	const uint64_t id = c->nids[ev] ? c->ids[ev][0] : 0;
	DIR *d;
	struct dirent *de;
	int rc = 0;

	switch (c->o->target) {
	case PMT_TARGET_WORKLOAD:
		return 0; /* the kernel reports its exec and mmaps */
	case PMT_TARGET_PID:
		return synth_process(c, c->ro->pid, id);
	case PMT_TARGET_TID:
		return synth_process(c, tgid_of(c->ro->pid), id);
	default:
		break;
	}
	d = opendir("/proc");
	if (!d)
		return 0;
	while (rc >= 0 && (de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			rc = synth_process(c, atoi(de->d_name), id);
	closedir(d);
	return rc;
}
