/* A counting run's own container (stat -o FILE): pipe-mode perf.data records in container
 * frames, so `zstd -dc FILE | perf stat report -i -` reads it. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "pmutrace/container.h"
#include "pmutrace/counting.h"

struct pmt_stat_file {
	struct pmt_out_file of;
	struct pmt_ctr_writer *ctr;
	FILE *stream;
	struct pmt_perf_writer *w;
	const struct pmt_count_plan *plan;
	const struct pmt_counter *c;
	int err;
};

int pmt_stat_file_open(const char *path, const struct pmt_count_plan *plan,
		       const struct pmt_counter *c, const int32_t *threads, enum pmt_aggr aggr,
		       uint64_t interval_ms, int argc, const char *const *argv,
		       struct pmt_stat_file **out, struct pmt_diag *diag)
{
	struct pmt_stat_file *f = calloc(1, sizeof(*f));
	struct pmt_ctr_writer_opts co = { .sz = sizeof(co), .threads = 1 };
	struct pmt_perf_writer_opts wo = PMT_OPTS_INIT(pmt_perf_writer_opts, .pipe = 1);
	struct utsname u;
	int rc;

	*out = NULL;
	if (!f)
		return -PMT_ENOMEM;
	f->plan = plan;
	f->c = c;
	rc = pmt_out_file_open(&f->of, path, NULL, 0, diag);
	if (rc < 0) {
		free(f);
		return rc;
	}
	rc = pmt_ctr_writer_new(f->of.fp, &co, &f->ctr, diag);
	if (rc >= 0) {
		f->stream = pmt_perf_container_stream(f->ctr);
		rc = f->stream ? pmt_perf_writer_new(f->stream, &wo, &f->w) : -PMT_ENOMEM;
	}
	if (rc >= 0)
		rc = pmt_stat_add_attrs(f->w, plan, c);
	if (rc >= 0 && uname(&u) == 0) {
		rc = pmt_perf_writer_set_feature_str(f->w, PMT_FEAT_HOSTNAME, u.nodename);
		if (rc >= 0)
			rc = pmt_perf_writer_set_feature_str(f->w, PMT_FEAT_OSRELEASE, u.release);
		if (rc >= 0)
			rc = pmt_perf_writer_set_feature_str(f->w, PMT_FEAT_ARCH, u.machine);
	}
	if (rc >= 0)
		rc = pmt_perf_writer_set_feature_str(f->w, PMT_FEAT_VERSION, pmt_version());
	if (rc >= 0) {
		long online = sysconf(_SC_NPROCESSORS_ONLN), avail = sysconf(_SC_NPROCESSORS_CONF);

		for (uint32_t k = 0; k < plan->nr_cpus; k++)
			if (plan->cpu[k] >= avail)
				avail = plan->cpu[k] + 1;
		rc = pmt_stat_set_topology(f->w, (uint32_t)online, (uint32_t)avail);
	}
	if (rc >= 0 && argv)
		rc = pmt_perf_writer_set_cmdline(f->w, argc, argv);
	if (rc >= 0)
		rc = pmt_stat_write_header(f->w, plan, c, threads, aggr, interval_ms);
	if (rc < 0) {
		if (!diag || !diag->code)
			pmt_diag_set(diag, rc, path, PMT_DIAG_NO_OFFSET,
				     "writing the counts' header: %s", pmt_errstr(rc));
		pmt_stat_file_close(f, false, NULL);
		return rc;
	}
	*out = f;
	return 0;
}

int pmt_stat_file_round(struct pmt_stat_file *f, uint64_t time_ns, bool final)
{
	int rc = pmt_stat_write_round(f->w, f->plan, f->c, time_ns, final);

	/* a round per frame at most every few: the container flushes by size; a killed run
	 * keeps what reached a frame */
	if (rc < 0 && !f->err)
		f->err = rc;
	return rc;
}

int pmt_stat_file_close(struct pmt_stat_file *f, bool commit, struct pmt_diag *diag)
{
	int rc = f->err;

	if (f->w) {
		int r = pmt_perf_writer_close(f->w);

		rc = rc < 0 ? rc : r;
	}
	if (f->stream && fclose(f->stream) && rc >= 0)
		rc = -PMT_EIO;
	if (f->ctr) {
		int r = pmt_ctr_writer_close(f->ctr, diag);

		rc = rc < 0 ? rc : r;
	}
	if (commit && rc >= 0)
		rc = pmt_out_file_commit(&f->of, diag);
	else
		pmt_out_file_abort(&f->of);
	free(f);
	return rc;
}

/* append the tasks of /proc/PID/task to *t (readdir's order, as perf's scandir without a
 * sort); -PMT_ENOT_FOUND when the process is gone */
static int add_tasks(int32_t pid, int32_t **t, int *n, int *cap)
{
	char path[64];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -PMT_ENOT_FOUND;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (*n == *cap) {
			int32_t *nt = realloc(*t, (size_t)(*cap = *cap ? 2 * *cap : 16) * sizeof(**t));

			if (!nt) {
				closedir(d);
				return -PMT_ENOMEM;
			}
			*t = nt;
		}
		(*t)[(*n)++] = atoi(de->d_name);
	}
	closedir(d);
	return 0;
}

int pmt_count_task_threads(int32_t pid, int32_t **out, struct pmt_diag *diag)
{
	int32_t *t = NULL;
	int n = 0, cap = 0, rc = add_tasks(pid, &t, &n, &cap);

	*out = NULL;
	if (rc < 0) {
		free(t);
		if (rc == -PMT_ENOT_FOUND)
			return pmt_diag_set(diag, rc, NULL, PMT_DIAG_NO_OFFSET,
					    "-p %d: no such process", (int)pid);
		return rc;
	}
	*out = t;
	return n;
}

int pmt_count_all_threads(int32_t **out, struct pmt_diag *diag)
{
	int32_t *t = NULL;
	int n = 0, cap = 0, rc = 0;
	DIR *d = opendir("/proc");
	struct dirent *de;

	*out = NULL;
	if (!d)
		return pmt_diag_set(diag, -PMT_EIO, "/proc", PMT_DIAG_NO_OFFSET,
				    "--per-thread -a lists the threads of /proc: %s",
				    strerror(errno));
	while (rc >= 0 && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name || pid <= 0 || pid > INT32_MAX)
			continue;
		rc = add_tasks((int32_t)pid, &t, &n, &cap);
		if (rc == -PMT_ENOT_FOUND)
			rc = 0;
	}
	closedir(d);
	if (rc < 0) {
		free(t);
		return rc;
	}
	*out = t;
	return n;
}
