/* pmutrace record/discovery: the PMUs of a machine as sysfs describes them
 * (bus/event_source/devices/NAME/{type, cpumask or cpus, format/, caps/}), read from the
 * root in $SYSFS_PATH as perf does, so tests and oracles can hand in a fake tree. */
#ifndef PMUTRACE_PMU_H
#define PMUTRACE_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "pmutrace/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PMT_CPUS_MAX 4096
struct pmt_cpumask {
	uint64_t bits[PMT_CPUS_MAX / 64];
};
/* "0-3,8,10-11" into m (cleared first); 0 or -PMT_EPARSE (a CPU >= PMT_CPUS_MAX too) */
PMT_API int pmt_cpumask_parse(const char *list, struct pmt_cpumask *m);
PMT_API bool pmt_cpumask_has(const struct pmt_cpumask *m, unsigned cpu);
PMT_API unsigned pmt_cpumask_count(const struct pmt_cpumask *m);
/* the next CPU at or after `from`, or -1 */
PMT_API int pmt_cpumask_next(const struct pmt_cpumask *m, unsigned from);

#define PMT_FORMAT_MAX_RANGES 8
/* A format file ("config1:0-3,8"): the bits of config..config4 a term's value fills,
 * lowest value bit into the first bit listed. */
struct pmt_pmu_format {
	char name[48];
	uint8_t word;       /* 0 = config, 1..4 = config1..config4 */
	uint8_t nr;         /* bit ranges */
	uint8_t lo[PMT_FORMAT_MAX_RANGES], hi[PMT_FORMAT_MAX_RANGES];
};
struct pmt_pmu_cap {
	char name[48];
	char value[80];
};
/* events/NAME: a named event of the PMU, its terms as the kernel writes them
 * ("event=0xcd,umask=0x1,ldlat=3"); perf's sysfs aliases */
struct pmt_pmu_alias {
	char name[64];
	char terms[192];
};
struct pmt_pmu {
	char name[64];
	uint32_t type;
	bool has_cpus;              /* a cpumask or cpus file: the PMU covers only those */
	bool core;                  /* a CPU's own PMU: "cpu", or one with a cpus file (hybrid
	                             * cpu_core/cpu_atom, Arm's PMUs), as perf's is_pmu_core */
	struct pmt_cpumask cpus;
	struct pmt_pmu_format *formats;
	uint32_t nr_formats;
	struct pmt_pmu_cap *caps;
	uint32_t nr_caps;
	struct pmt_pmu_alias *aliases; /* sorted by name */
	uint32_t nr_aliases;
};
struct pmt_pmus {
	char root[1024];            /* the sysfs root read */
	struct pmt_pmu *pmu;        /* sorted by name */
	uint32_t nr;
	struct pmt_cpumask online;  /* devices/system/cpu/online */
	/* Hybrid machines (more than one core PMU): the kernel takes the PMU type in
	 * config[63:32] of HARDWARE and HW_CACHE events. pmt_pmus_probe_extended_type
	 * (events.h) sets it as perf does. */
	bool extended_type;
};

/* $SYSFS_PATH, else "/sys" */
PMT_API const char *pmt_sysfs_root(void);
/* how many CPUs devices/system/cpu/online under root (NULL: pmt_sysfs_root()) lists, as
 * perf's #num_cpus_online counts them (a fake tree's, not the host's); 0 when unreadable */
PMT_API unsigned pmt_sysfs_cpus_online(const char *root);
/* Read every PMU under root (NULL: pmt_sysfs_root()). A PMU whose type file is unreadable
 * is skipped; a format file that does not parse is an error naming file and text. */
PMT_API int pmt_pmus_load(struct pmt_pmus *set, const char *root, struct pmt_diag *diag);
PMT_API void pmt_pmus_fini(struct pmt_pmus *set);
PMT_API const struct pmt_pmu *pmt_pmus_find(const struct pmt_pmus *set, const char *name);

PMT_API uint32_t pmt_pmus_nr_core(const struct pmt_pmus *set);
/* events/NAME of the PMU, compared without case as perf does; NULL when absent */
PMT_API const struct pmt_pmu_alias *pmt_pmu_alias_find(const struct pmt_pmu *pmu,
							 const char *name, size_t len);

/* Parse a format file's text into f (name left as is): 0 or -PMT_EPARSE */
PMT_API int pmt_pmu_format_parse(const char *text, struct pmt_pmu_format *f);
PMT_API const struct pmt_pmu_format *pmt_pmu_format_find(const struct pmt_pmu *pmu,
							   const char *name);
/* the mask of the format's bits inside its config word */
PMT_API uint64_t pmt_pmu_format_mask(const struct pmt_pmu_format *f);
/* Place value into config[f->word] through the format's bits (other bits kept).
 * -PMT_ERANGE when the value has more bits than the format: max gets the largest value. */
PMT_API int pmt_pmu_format_apply(const struct pmt_pmu_format *f, uint64_t value,
				 uint64_t config[5], uint64_t *max);
/* caps/NAME as a number (decimal or 0x hex): 0, or -PMT_ENOT_FOUND when absent */
PMT_API int pmt_pmu_cap_u64(const struct pmt_pmu *pmu, const char *name, uint64_t *v);

#ifdef __cplusplus
}
#endif
#endif
