/* HEADER_CPU_TOPOLOGY's owned form: release and deep copy (the reader's meta and the
 * writer each keep their own; the byte layout is in source_features.c and writer_file.c). */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/perfdata.h"

static void free_lists(char **v, uint32_t n)
{
	for (uint32_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void pmt_cpu_topology_fini(struct pmt_cpu_topology *t)
{
	if (!t)
		return;
	free_lists(t->packages, t->nr_packages);
	free_lists(t->cores, t->nr_cores);
	free_lists(t->dies, t->nr_dies);
	free(t->core_id);
	free(t->socket_id);
	free(t->die_id);
	memset(t, 0, sizeof(*t));
}

static int dup_lists(char ***out, char *const *in, uint32_t n)
{
	*out = calloc(n + 1, sizeof(char *));
	if (!*out)
		return -PMT_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		if (!((*out)[i] = strdup(in[i])))
			return -PMT_ENOMEM;
	return 0;
}

static int dup_ids(int32_t **out, const int32_t *in, uint32_t n)
{
	if (!in)
		return 0;
	*out = malloc((n ? n : 1) * sizeof(int32_t));
	if (!*out)
		return -PMT_ENOMEM;
	memcpy(*out, in, n * sizeof(int32_t));
	return 0;
}

int pd_cpu_topology_copy(struct pmt_cpu_topology *dst, const struct pmt_cpu_topology *src)
{
	int rc;

	memset(dst, 0, sizeof(*dst));
	dst->nr_cpus = src->nr_cpus;
	dst->nr_packages = src->nr_packages;
	dst->nr_cores = src->nr_cores;
	dst->nr_dies = src->nr_dies;
	rc = dup_lists(&dst->packages, src->packages, src->nr_packages);
	if (rc >= 0)
		rc = dup_lists(&dst->cores, src->cores, src->nr_cores);
	if (rc >= 0)
		rc = dup_lists(&dst->dies, src->dies, src->nr_dies);
	if (rc >= 0)
		rc = dup_ids(&dst->core_id, src->core_id, src->nr_cpus);
	if (rc >= 0)
		rc = dup_ids(&dst->socket_id, src->socket_id, src->nr_cpus);
	if (rc >= 0)
		rc = dup_ids(&dst->die_id, src->die_id, src->nr_cpus);
	if (rc < 0)
		pmt_cpu_topology_fini(dst);
	return rc;
}
