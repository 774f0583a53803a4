/* The CPU topology from sysfs ($SYSFS_PATH as perf reads it) for HEADER_CPU_TOPOLOGY, by
 * perf's rules (util/cputopo.c build_cpu_topology, util/env.c read_cpu_topology_map): the
 * distinct lists of the online CPUs in CPU order, and every CPU's ids, -1 where sysfs has
 * none (an offline CPU has no topology folder). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/counting.h"

/* the first line of root/devices/system/cpu/cpuN/topology/NAME (cpu < 0: .../cpu/NAME) */
static bool read_cpu_file(const char *root, int cpu, const char *name, char *buf, size_t cap)
{
	char path[512];
	FILE *f;
	size_t n;

	if (cpu < 0)
		snprintf(path, sizeof(path), "%s/devices/system/cpu/%s", root, name);
	else
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/%s", root, cpu,
			 name);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return n > 0;
}

static int32_t read_id(const char *root, int cpu, const char *name)
{
	char buf[32], *end;
	long v;

	if (!read_cpu_file(root, cpu, name, buf, sizeof(buf)))
		return -1;
	v = strtol(buf, &end, 10);
	return end != buf ? (int32_t)v : -1;
}

/* add the CPU's list of `name` (else of `old`, the name before Linux 5.x) when new */
static int add_list(const char *root, int cpu, const char *name, const char *old,
		    char ***v, uint32_t *nr, uint32_t cap)
{
	char buf[4096];

	if (!read_cpu_file(root, cpu, name, buf, sizeof(buf)) &&
	    (!old || !read_cpu_file(root, cpu, old, buf, sizeof(buf))))
		return 0;
	for (uint32_t i = 0; i < *nr; i++)
		if (!strcmp((*v)[i], buf))
			return 0;
	if (*nr >= cap)
		return 0;
	if (!*v && !(*v = calloc(cap + 1, sizeof(char *))))
		return -PMT_ENOMEM;
	if (!((*v)[*nr] = strdup(buf)))
		return -PMT_ENOMEM;
	++*nr;
	return 0;
}

int pmt_stat_set_topology(struct pmt_perf_writer *w, uint32_t online, uint32_t avail)
{
	struct pmt_cpu_topology t;
	int rc = pmt_perf_writer_set_nrcpus(w, online, avail);

	/* no topology is not a failure: the recording lacks only the per-core views */
	if (rc < 0 || pmt_cpu_topology_read(pmt_sysfs_root(), avail, &t) < 0)
		return rc;
	rc = pmt_perf_writer_set_cpu_topology(w, &t);
	pmt_cpu_topology_fini(&t);
	return rc;
}

int pmt_cpu_topology_read(const char *root, uint32_t nr_cpus, struct pmt_cpu_topology *t)
{
	struct pmt_cpumask online;
	char buf[4096];
	bool has_die;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (!nr_cpus || nr_cpus > PMT_CPUS_MAX)
		return -PMT_EINVAL;
	if (!read_cpu_file(root, -1, "online", buf, sizeof(buf)) ||
	    pmt_cpumask_parse(buf, &online) < 0) {
		memset(&online, 0, sizeof(online));
		for (uint32_t c = 0; c < nr_cpus; c++)
			online.bits[c / 64] |= 1ull << (c % 64);
	}
	/* perf writes die lists only when CPU 0 has one */
	has_die = read_cpu_file(root, 0, "die_cpus_list", buf, sizeof(buf));
	for (int cpu = pmt_cpumask_next(&online, 0); cpu >= 0 && rc >= 0 && (uint32_t)cpu < nr_cpus;
	     cpu = pmt_cpumask_next(&online, (unsigned)cpu + 1)) {
		rc = add_list(root, cpu, "package_cpus_list", "core_siblings_list", &t->packages,
			      &t->nr_packages, nr_cpus);
		if (rc >= 0 && has_die)
			rc = add_list(root, cpu, "die_cpus_list", NULL, &t->dies, &t->nr_dies,
				      nr_cpus);
		if (rc >= 0)
			rc = add_list(root, cpu, "core_cpus_list", "thread_siblings_list",
				      &t->cores, &t->nr_cores, nr_cpus);
	}
	/* perf writes no feature when no CPU has topology files (cputopo.c fails) */
	if (rc >= 0 && !t->nr_packages && !t->nr_cores)
		rc = -PMT_ENOT_FOUND;
	t->nr_cpus = nr_cpus;
	t->core_id = calloc(nr_cpus, sizeof(int32_t));
	t->socket_id = calloc(nr_cpus, sizeof(int32_t));
	t->die_id = has_die ? calloc(nr_cpus, sizeof(int32_t)) : NULL;
	if (rc >= 0 && (!t->core_id || !t->socket_id || (has_die && !t->die_id)))
		rc = -PMT_ENOMEM;
	for (uint32_t c = 0; rc >= 0 && c < nr_cpus; c++) {
		t->core_id[c] = read_id(root, (int)c, "core_id");
		t->socket_id[c] = read_id(root, (int)c, "physical_package_id");
		if (t->die_id)
			t->die_id[c] = read_id(root, (int)c, "die_id");
	}
	if (rc < 0)
		pmt_cpu_topology_fini(t);
	return rc;
}
