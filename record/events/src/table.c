/* Named-event tables: perf's pmu-events JSON (the .json files under tools/perf/pmu-events/arch, an
 * array of events) and Intel's perfmon JSON ({"Header": ..., "Events": [...]}), turned into
 * format terms the way perf's jevents.py does */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events_priv.h"

struct pmt_event_table {
	struct pmt_table_event *ev;
	uint32_t nr, cap;
};

uint32_t pmt_event_table_size(const struct pmt_event_table *t)
{
	return t ? t->nr : 0;
}

const char *pmt_event_table_name(const struct pmt_event_table *t, uint32_t i)
{
	return t->ev[i].name;
}

const struct pmt_table_event *pmt_event_table_find(const struct pmt_event_table *t,
						   const char *name, size_t n,
						   const struct pmt_pmu *pmu)
{
	/* the last file given wins, as a later definition overrides */
	for (uint32_t i = t ? t->nr : 0; i-- > 0;) {
		const struct pmt_table_event *te = &t->ev[i];

		if (strlen(te->name) == n && !strncasecmp(te->name, name, n) &&
		    (te->pmu ? !strcmp(te->pmu, pmu->name) : pmu->core))
			return te;
	}
	return NULL;
}

void pmt_event_table_free(struct pmt_event_table *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nr; i++) {
		free((char *)t->ev[i].name);
		free((char *)t->ev[i].pmu);
		free((char *)t->ev[i].terms);
	}
	free(t->ev);
	free(t);
}

static const char *field(json_t *ev, const char *key)
{
	json_t *v = json_object_get(ev, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* jevents.py's event_fields: JSON field, format term; "0" means unset */
static const char *const fields[][2] = {
	{ "AnyThread", "any" },      { "PortMask", "ch_mask" },  { "CounterMask", "cmask" },
	{ "EdgeDetect", "edge" },    { "FCMask", "fc_mask" },    { "Invert", "inv" },
	{ "SampleAfterValue", "period" }, { "UMask", "umask" }, { "NodeType", "type" },
	{ "RdWrMask", "rdwrmask" },  { "EnAllCores", "enallcores" },
	{ "EnAllSlices", "enallslices" }, { "SliceId", "sliceid" },
	{ "ThreadMask", "threadmask" },
};
/* jevents.py's msrs: the MSR an event programs, as the format term that carries it */
static const char *const msrs[][2] = {
	{ "0x3F6", "ldlat" }, { "0x1A6", "offcore_rsp" }, { "0x1A7", "offcore_rsp" },
	{ "0x3F7", "frontend" },
};

/* Intel perfmon writes fixed-counter events with the pseudo encodings event 0 umask 1
 * (instructions) and 2 (core cycles); perf's converter (perfmon's create_perf_json.py)
 * gives them the general-counter codes the kernel schedules on the fixed counters */
static void perfmon_fixed(json_t *ev, unsigned long long *code, const char **umask)
{
	const char *counter = field(ev, "Counter");
	unsigned long long u = *umask ? strtoull(*umask, NULL, 0) : 0;

	if (!counter || strncasecmp(counter, "Fixed counter", 13) || *code)
		return;
	if (u == 1 || u == 2) {
		*code = u == 1 ? 0xc0 : 0x3c;
		*umask = NULL;
	}
}

static int add_event(struct pmt_event_table *t, json_t *ev, const char *path, size_t at,
		     bool perfmon, const char *default_pmu, struct pmt_diag *diag)
{
	const char *name = field(ev, "EventName"), *code = field(ev, "EventCode");
	const char *cfg = field(ev, "ConfigCode"), *unit = field(ev, "Unit");
	const char *msr = field(ev, "MSRIndex"), *msrval = field(ev, "MSRValue");
	const char *ext = field(ev, "ExtSel"), *filter = field(ev, "Filter"), *umask;
	char terms[512], *lname;
	size_t len;
	unsigned long long evcode = 0;
	struct pmt_table_event *te;

	if (!name)
		return 0; /* a metric or a header: no event */
	if (code) {
		char *end;

		evcode = strtoull(code, &end, 0);
		if (end == code || (*end && *end != ','))
			return pmt_diag_set(diag, -PMT_EPARSE, path, PMT_DIAG_NO_OFFSET,
					    "event %zu (%s): EventCode '%s' is not a number", at,
					    name, code);
	}
	if (ext)
		evcode |= strtoull(ext, NULL, 0) << 8;
	umask = field(ev, "UMask");
	if (perfmon)
		perfmon_fixed(ev, &evcode, &umask);
	len = cfg ? (size_t)snprintf(terms, sizeof(terms), "config=%s", cfg)
		  : (size_t)snprintf(terms, sizeof(terms), "event=%#llx", evcode);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const char *v = strcmp(fields[i][0], "UMask") ? field(ev, fields[i][0]) : umask;

		if (v && strcmp(v, "0") && len < sizeof(terms))
			len += (size_t)snprintf(terms + len, sizeof(terms) - len, ",%s=%s",
						fields[i][1], v);
	}
	if (filter && len < sizeof(terms))
		len += (size_t)snprintf(terms + len, sizeof(terms) - len, ",%s", filter);
	for (size_t i = 0; msr && msrval && i < sizeof(msrs) / sizeof(msrs[0]); i++) {
		if (!strncasecmp(msr, msrs[i][0], strlen(msrs[i][0])) &&
		    (!msr[strlen(msrs[i][0])] || msr[strlen(msrs[i][0])] == ',') &&
		    len < sizeof(terms)) {
			len += (size_t)snprintf(terms + len, sizeof(terms) - len, ",%s=%s",
						msrs[i][1], msrval);
			break;
		}
	}
	if (len >= sizeof(terms))
		return pmt_diag_set(diag, -PMT_EPARSE, path, PMT_DIAG_NO_OFFSET,
				    "event %zu (%s): its terms are too long", at, name);
	if (t->nr == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		struct pmt_table_event *n = realloc(t->ev, cap * sizeof(*n));

		if (!n)
			return -PMT_ENOMEM;
		t->ev = n;
		t->cap = cap;
	}
	te = &t->ev[t->nr];
	lname = strdup(name);
	te->terms = strdup(terms);
	/* no Unit: every core PMU (jevents' default_core), or the mapfile's core type */
	if (!unit)
		unit = default_pmu;
	te->pmu = unit && strcasecmp(unit, "cpu") ? strdup(unit) : NULL;
	if (!lname || !te->terms || (unit && strcasecmp(unit, "cpu") && !te->pmu)) {
		free(lname);
		free((char *)te->terms);
		free((char *)te->pmu);
		return -PMT_ENOMEM;
	}
	for (char *p = lname; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	te->name = lname;
	t->nr++;
	return 0;
}

int pmt_event_table_load_json(struct pmt_event_table *t, const char *path,
			      const char *default_pmu, struct pmt_diag *diag)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err), *events;
	size_t i;
	json_t *ev;
	int rc = 0;

	if (!root && err.line < 0)
		return pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET, "%s", err.text);
	if (!root)
		return pmt_diag_set(diag, -PMT_EPARSE, path, (uint64_t)err.line,
				    "not a JSON event table: %s (line %d, column %d)", err.text,
				    err.line, err.column);
	events = json_is_object(root) ? json_object_get(root, "Events") : root;
	if (!json_is_array(events)) {
		json_decref(root);
		return pmt_diag_set(diag, -PMT_EFORMAT, path, PMT_DIAG_NO_OFFSET,
				    "an event table is a JSON array of events (perf) or an "
				    "object with \"Events\" (Intel perfmon)");
	}
	json_array_foreach(events, i, ev) {
		if (!json_is_object(ev)) {
			rc = pmt_diag_set(diag, -PMT_EPARSE, path, PMT_DIAG_NO_OFFSET,
					  "event %zu is not a JSON object", i);
			break;
		}
		if ((rc = add_event(t, ev, path, i, events != root, default_pmu, diag)) < 0)
			break;
	}
	json_decref(root);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* every *.json of a folder, in name order */
static int load_dir(struct pmt_event_table *t, const char *dir, int *files, struct pmt_diag *diag)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **nn;

		if (l < 6 || strcmp(de->d_name + l - 5, ".json"))
			continue;
		if (n == cap) {
			nn = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*names));
			if (!nn) {
				rc = -PMT_ENOMEM;
				break;
			}
			names = nn;
		}
		if (!(names[n] = strdup(de->d_name))) {
			rc = -PMT_ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n && rc >= 0; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		rc = pmt_event_table_load_json(t, path, NULL, diag);
		*files += rc >= 0;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

int pmt_event_table_load(struct pmt_event_table **tp, const char *path, struct pmt_diag *diag)
{
	struct stat st;
	int files = 0, rc;

	if (stat(path, &st) < 0)
		return pmt_diag_set(diag, -PMT_EIO, path, PMT_DIAG_NO_OFFSET,
				    "event table: %s", strerror(errno));
	if (!*tp && !(*tp = calloc(1, sizeof(**tp))))
		return -PMT_ENOMEM;
	if (S_ISDIR(st.st_mode)) {
		char map[4096];

		snprintf(map, sizeof(map), "%s/mapfile.csv", path);
		if (access(map, R_OK) == 0)
			return pmt_event_table_load_mapfile(*tp, path, diag);
		rc = load_dir(*tp, path, &files, diag);
		if (rc >= 0 && !files)
			return pmt_diag_set(diag, -PMT_ENOT_FOUND, path, PMT_DIAG_NO_OFFSET,
					    "no *.json event tables in the folder");
		return rc < 0 ? rc : files;
	}
	rc = pmt_event_table_load_json(*tp, path, NULL, diag);
	return rc < 0 ? rc : 1;
}

int pmt_event_table_load_default(struct pmt_event_table **tp, struct pmt_diag *diag)
{
	const char *env = getenv("PMUTRACE_EVENTS_PATH"), *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	char dir[4096];
	int files = 0, rc = 0;

	if (!*tp && !(*tp = calloc(1, sizeof(**tp))))
		return -PMT_ENOMEM;
	if (env && *env) {
		const char *p = env;

		while (*p && rc >= 0) {
			size_t l = strcspn(p, ":");

			snprintf(dir, sizeof(dir), "%.*s", (int)l, p);
			if (l)
				rc = load_dir(*tp, dir, &files, diag);
			p += l + (p[l] == ':');
		}
		return rc < 0 ? rc : files;
	}
	if (xdg && *xdg)
		snprintf(dir, sizeof(dir), "%s/pmutrace/events", xdg);
	else if (home && *home)
		snprintf(dir, sizeof(dir), "%s/.local/share/pmutrace/events", home);
	else
		return 0;
	rc = load_dir(*tp, dir, &files, diag);
	return rc < 0 ? rc : files;
}
