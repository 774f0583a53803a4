/* Reading PMUs from sysfs (bus/event_source/devices/NAME) under $SYSFS_PATH */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmutrace/pmu.h"

const char *pmt_sysfs_root(void)
{
	const char *r = getenv("SYSFS_PATH");

	return r && *r ? r : "/sys";
}

/* the first line of a small file, newline removed; -1 when unreadable */
static int read_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

unsigned pmt_sysfs_cpus_online(const char *root)
{
	char path[1200], text[4096];
	struct pmt_cpumask m;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", root ? root : pmt_sysfs_root());
	if (read_line(path, text, sizeof(text)) < 0 || pmt_cpumask_parse(text, &m) < 0)
		return 0;
	return pmt_cpumask_count(&m);
}

/* dir/name into out; false when it does not fit */
static bool join(char *out, size_t cap, const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);

	if (dl + 1 + nl >= cap)
		return false;
	memcpy(out, dir, dl);
	out[dl] = '/';
	memcpy(out + dl + 1, name, nl + 1);
	return true;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* the entries of a folder, sorted (readdir order differs between file systems) */
static char **list_dir(const char *path, size_t *n)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			char **nv = realloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		if (!(v[*n] = strdup(e->d_name)))
			break;
		(*n)++;
	}
	closedir(d);
	if (v)
		qsort(v, *n, sizeof(*v), cmp_name);
	return v;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int load_formats(struct pmt_pmu *pmu, const char *dir, struct pmt_diag *diag)
{
	char path[4096], text[256];
	size_t n;
	char **names = list_dir(dir, &n);

	if (!n) {
		free(names);
		return 0;
	}
	pmu->formats = calloc(n, sizeof(*pmu->formats));
	if (!pmu->formats) {
		free_list(names, n);
		return -PMT_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct pmt_pmu_format *f = &pmu->formats[pmu->nr_formats];

		if (!join(path, sizeof(path), dir, names[i]) ||
		    read_line(path, text, sizeof(text)) < 0 || strlen(names[i]) >= sizeof(f->name))
			continue;
		if (pmt_pmu_format_parse(text, f) < 0) {
			int rc = pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
					      "%s: format '%s' does not parse (want e.g. "
					      "config1:0-3,8)", path, text);
			free_list(names, n);
			return rc;
		}
		strcpy(f->name, names[i]);
		pmu->nr_formats++;
	}
	free_list(names, n);
	return 0;
}

/* Every file of dir as a (name, first line) entry of an array of structs that start with
 * char name[name_cap] and hold the line at value_off (caps/ and events/). Names with a dot
 * are skipped when asked: events/NAME.scale, .unit and the like describe NAME for counting. */
static int load_named_lines(const char *dir, size_t elem, size_t name_cap, size_t value_off,
			    size_t value_cap, bool skip_dotted, void **out, uint32_t *nr)
{
	char path[4096];
	size_t n;
	char **names = list_dir(dir, &n), *arr;

	*nr = 0;
	if (!n) {
		free(names);
		return 0;
	}
	arr = calloc(n, elem);
	if (!arr) {
		free_list(names, n);
		return -PMT_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		char *entry = arr + *nr * elem;

		if ((skip_dotted && strchr(names[i], '.')) || strlen(names[i]) >= name_cap ||
		    !join(path, sizeof(path), dir, names[i]) ||
		    read_line(path, entry + value_off, value_cap) < 0)
			continue;
		strcpy(entry, names[i]);
		(*nr)++;
	}
	free_list(names, n);
	*out = arr;
	return 0;
}

static int load_pmu(struct pmt_pmu *pmu, const char *dir, const char *name,
		    struct pmt_diag *diag)
{
	char path[4096], text[4096];
	char *end;
	int rc;

	memset(pmu, 0, sizeof(*pmu));
	join(path, sizeof(path), dir, "type");
	if (read_line(path, text, sizeof(text)) < 0)
		return 1; /* not a PMU */
	pmu->type = (uint32_t)strtoul(text, &end, 0);
	if (end == text || *end)
		return 1;
	snprintf(pmu->name, sizeof(pmu->name), "%s", name);
	join(path, sizeof(path), dir, "cpumask");
	if (read_line(path, text, sizeof(text)) < 0) {
		join(path, sizeof(path), dir, "cpus");
		if (read_line(path, text, sizeof(text)) < 0)
			text[0] = 0;
		else
			pmu->core = true;
	}
	if (!strcmp(name, "cpu"))
		pmu->core = true;
	if (text[0]) {
		if (pmt_cpumask_parse(text, &pmu->cpus) < 0)
			return pmt_diag_set(diag, -PMT_EPARSE, NULL, PMT_DIAG_NO_OFFSET,
					    "%s: CPU list '%s' does not parse", path, text);
		pmu->has_cpus = true;
	}
	join(path, sizeof(path), dir, "format");
	rc = load_formats(pmu, path, diag);
	if (rc < 0)
		return rc;
	join(path, sizeof(path), dir, "caps");
	rc = load_named_lines(path, sizeof(*pmu->caps), sizeof(pmu->caps->name),
			      offsetof(struct pmt_pmu_cap, value), sizeof(pmu->caps->value), false,
			      (void **)&pmu->caps, &pmu->nr_caps);
	if (rc < 0)
		return rc;
	join(path, sizeof(path), dir, "events");
	return load_named_lines(path, sizeof(*pmu->aliases), sizeof(pmu->aliases->name),
				offsetof(struct pmt_pmu_alias, terms), sizeof(pmu->aliases->terms),
				true, (void **)&pmu->aliases, &pmu->nr_aliases);
}

static void pmu_fini(struct pmt_pmu *pmu)
{
	free(pmu->formats);
	free(pmu->caps);
	free(pmu->aliases);
}

int pmt_pmus_load(struct pmt_pmus *set, const char *root, struct pmt_diag *diag)
{
	char dir[2048], path[4096], text[4096];
	size_t n;
	char **names;
	int rc = 0;

	memset(set, 0, sizeof(*set));
	snprintf(set->root, sizeof(set->root), "%s", root ? root : pmt_sysfs_root());
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", set->root);
	if (read_line(path, text, sizeof(text)) < 0 || pmt_cpumask_parse(text, &set->online) < 0)
		set->online.bits[0] = 1; /* perf also assumes CPU 0 when it cannot tell */
	snprintf(dir, sizeof(dir), "%s/bus/event_source/devices", set->root);
	names = list_dir(dir, &n);
	if (!names)
		return n ? -PMT_ENOMEM
			 : pmt_diag_set(diag, -PMT_ENO_PMU, NULL, PMT_DIAG_NO_OFFSET,
					"%s: no PMUs (%s)", dir,
					errno ? strerror(errno) : "empty");
	set->pmu = calloc(n, sizeof(*set->pmu));
	if (!set->pmu) {
		free_list(names, n);
		return -PMT_ENOMEM;
	}
	for (size_t i = 0; i < n && rc >= 0; i++) {
		if (!join(path, sizeof(path), dir, names[i]))
			continue;
		rc = load_pmu(&set->pmu[set->nr], path, names[i], diag);
		if (rc == 0)
			set->nr++;
		else
			pmu_fini(&set->pmu[set->nr]);
	}
	free_list(names, n);
	if (rc < 0) {
		pmt_pmus_fini(set);
		return rc;
	}
	return 0;
}

void pmt_pmus_fini(struct pmt_pmus *set)
{
	for (uint32_t i = 0; i < set->nr; i++)
		pmu_fini(&set->pmu[i]);
	free(set->pmu);
	set->pmu = NULL;
	set->nr = 0;
}

const struct pmt_pmu *pmt_pmus_find(const struct pmt_pmus *set, const char *name)
{
	for (uint32_t i = 0; i < set->nr; i++)
		if (!strcmp(set->pmu[i].name, name))
			return &set->pmu[i];
	return NULL;
}

const struct pmt_pmu_format *pmt_pmu_format_find(const struct pmt_pmu *pmu, const char *name)
{
	for (uint32_t i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

int pmt_pmu_cap_u64(const struct pmt_pmu *pmu, const char *name, uint64_t *v)
{
	for (uint32_t i = 0; i < pmu->nr_caps; i++) {
		if (!strcmp(pmu->caps[i].name, name)) {
			char *end;

			*v = strtoull(pmu->caps[i].value, &end, 0);
			return end == pmu->caps[i].value ? -PMT_EPARSE : 0;
		}
	}
	return -PMT_ENOT_FOUND;
}

const struct pmt_pmu_alias *pmt_pmu_alias_find(const struct pmt_pmu *pmu, const char *name,
					       size_t len)
{
	for (uint32_t i = 0; i < pmu->nr_aliases; i++)
		if (strlen(pmu->aliases[i].name) == len &&
		    !strncasecmp(pmu->aliases[i].name, name, len))
			return &pmu->aliases[i];
	return NULL;
}

uint32_t pmt_pmus_nr_core(const struct pmt_pmus *set)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < set->nr; i++)
		n += set->pmu[i].core;
	return n;
}
