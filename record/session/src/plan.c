/* The attrs perf 7.3's `perf record` opens for the same command line: evsel__config() and
 * evlist__config() for every event, arm64's arm_spe_recording_options() for SPE, checked
 * against arm64 and x86 perf 7.3 (tests/oracles/record_attrs.sh). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#include <sys/syscall.h>
#endif

#include "pmutrace/perfdata.h"
#include "pmutrace/record.h"

#define KIB(x) ((uint64_t)(x) * 1024)
#define MIB(x) ((uint64_t)(x) * 1024 * 1024)
#define PERF_DEFAULT_FREQ 4000 /* perf record's -F default */

static bool is_spe(const struct pmt_evsel *e)
{
	return e->pmu && !strncmp(e->pmu->name, "arm_spe", 7);
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static uint64_t roundup_pow2(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/* arm_spe_recording_options(): AUX buffer and snapshot sizes */
static int spe_sizes(struct pmt_record_plan *p, const struct pmt_record_opts *o, uint64_t page,
		     struct pmt_diag *diag)
{
	uint64_t aux = o->aux_pages, snap = o->snapshot_size;

	p->mmap_pages = o->mmap_pages;
	if (o->snapshot && (!snap || !aux)) {
		if (!snap && !aux) {
			aux = (o->privileged ? MIB(4) : KIB(128)) / page;
			if (!o->privileged && !p->mmap_pages)
				p->mmap_pages = (uint32_t)(KIB(256) / page);
		} else if (!aux && !o->privileged && !p->mmap_pages) {
			p->mmap_pages = (uint32_t)(KIB(256) / page);
		}
		if (!snap)
			snap = aux * page;
		if (!aux)
			aux = roundup_pow2((snap + page - 1) / page);
	}
	if (o->snapshot && snap > aux * page)
		return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
				    "snapshot size %llu must not be greater than the AUX area "
				    "(%llu bytes): give -m ,PAGES a bigger AUX area",
				    (unsigned long long)snap, (unsigned long long)(aux * page));
	if (!aux) {
		aux = (o->privileged ? MIB(4) : KIB(128)) / page;
		if (!o->privileged && !p->mmap_pages)
			p->mmap_pages = (uint32_t)(KIB(256) / page);
	}
	if (aux * page < KIB(8) || !pow2(aux * page))
		return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
				    "-m ,%llu: the SPE AUX area must be at least 8 KiB and a "
				    "power of 2 pages", (unsigned long long)aux);
	p->aux_pages = (uint32_t)aux;
	p->snapshot_size = o->snapshot ? snap : 0;
	return 0;
}

/* arm_spe_setup_evsel() */
static void spe_setup(struct pmt_evsel *e, bool per_cpu)
{
	uint64_t min;

	e->attr.flags &= ~PMT_ATTR_FLAG_FREQ;
	/* perf caches the first SPE PMU's value for all; each PMU's own is what its
	 * driver accepts, so pmutrace takes that (README, "Recording") */
	if (!e->period_set)
		e->attr.sample_period =
			pmt_pmu_cap_u64(e->pmu, "min_interval", &min) == 0 ? min : 4096;
	if (per_cpu) {
		e->attr.sample_type |= PMT_SAMPLE_CPU;
		pmt_evsel_set_config_if_unset(e, "ts_enable", 1);
	}
	e->attr.sample_type |= PMT_SAMPLE_DATA_SRC;
	if (pmt_evsel_term_set(e, "pa_enable"))
		e->attr.sample_type |= PMT_SAMPLE_PHYS_ADDR;
}

static struct pmt_evsel *add_dummy(struct pmt_evlist *l, const char *name, uint64_t excl)
{
	struct pmt_evsel *d = pmt_evlist_add(l);

	if (!d)
		return NULL;
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->attr.type = PMT_TYPE_SOFTWARE;
	d->attr.config = PMT_SW_DUMMY;
	d->attr.sample_period = 1;
	d->attr.flags = excl;
	d->tracking = true;
	d->added = true;
	return d;
}

/* arch_evsel__set_sample_weight(): x86 perf asks for the struct form, since the kernel
 * puts PEBS's retire latency (var3_w) and instruction latency (var2_w) there and nowhere
 * else; other architectures keep the plain u64 weight */
static uint64_t weight_bit(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return PMT_SAMPLE_WEIGHT_STRUCT;
#else
	return PMT_SAMPLE_WEIGHT;
#endif
}

/* options that add one sample field to every evsel (-P, --phys-data, ...) */
static const struct {
	size_t opt;   /* offset of the bool in pmt_record_opts */
	uint64_t bit;
} sample_opts[] = {
	{ offsetof(struct pmt_record_opts, sample_period), PMT_SAMPLE_PERIOD },
	{ offsetof(struct pmt_record_opts, sample_phys_addr), PMT_SAMPLE_PHYS_ADDR },
	{ offsetof(struct pmt_record_opts, sample_data_page_size), PMT_SAMPLE_DATA_PAGE_SIZE },
	{ offsetof(struct pmt_record_opts, sample_code_page_size), PMT_SAMPLE_CODE_PAGE_SIZE },
	{ offsetof(struct pmt_record_opts, sample_cpu), PMT_SAMPLE_CPU },
};

static const uint64_t tracking_flags = PMT_ATTR_FLAG_MMAP | PMT_ATTR_FLAG_COMM |
				       PMT_ATTR_FLAG_TASK | PMT_ATTR_FLAG_MMAP2 |
				       PMT_ATTR_FLAG_COMM_EXEC | PMT_ATTR_FLAG_KSYMBOL |
				       PMT_ATTR_FLAG_BPF_EVENT | PMT_ATTR_FLAG_BUILD_ID;

/* perf's arch PERF_REGS_MASK, the registers a dwarf call graph samples: x86-64's
 * PERF_REG_X86_64_MAX registers less DS, ES, FS and GS; arm64's x0..x30, sp and pc */
static uint64_t user_regs_mask(void)
{
#if defined(__aarch64__)
	/* arm64 perf's arch__user_reg_mask(): VG (46) too where the CPU has SVE and the
	 * kernel takes it in a sample (checked: arm64 perf 7.3 under qemu, whose CPU has
	 * SVE, prints 0x4001ffffffff) */
	struct pmt_perf_attr a = { .type = PMT_TYPE_HARDWARE, .size = PMT_ATTR_SIZE_VER9,
				   .sample_period = 1, .sample_type = PMT_SAMPLE_REGS_USER,
				   .sample_regs_user = ((1ULL << 33) - 1) | 1ULL << 46,
				   .flags = PMT_ATTR_FLAG_DISABLED | PMT_ATTR_FLAG_EXCLUDE_KERNEL };
	long fd;

	if (getauxval(AT_HWCAP) & (1UL << 22)) { /* HWCAP_SVE */
		fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0x8 /* CLOEXEC */);
		if (fd >= 0) {
			close((int)fd);
			return ((1ULL << 33) - 1) | 1ULL << 46;
		}
	}
	return (1ULL << 33) - 1;
#elif defined(__x86_64__)
	return ((1ULL << 24) - 1) & ~(0xfULL << 12);
#else
	return 0;
#endif
}

int pmt_record_plan_build(struct pmt_record_plan *p, struct pmt_evlist *events,
			  const struct pmt_pmus *pmus, const struct pmt_record_opts *o,
			  struct pmt_diag *diag)
{
	const bool dwarf = o->callchain && PMT_OPTS_HAS(o, dwarf_stack_size) &&
			   o->dwarf_stack_size;
	const bool has_cpu = o->target == PMT_TARGET_SYSTEM || o->target == PMT_TARGET_CPUS;
	uint64_t page = o->page_size ? o->page_size : (uint64_t)sysconf(_SC_PAGESIZE);
	uint32_t naux = 0;
	int rc = 0;
	struct pmt_evsel *spe_dummy = NULL;
	const bool sample_identifier = PMT_OPTS_HAS(o, sample_identifier) && o->sample_identifier;

	if (!PMT_OPTS_HAS(o, sample_cpu))
		return -PMT_EINVAL;
	memset(p, 0, sizeof(*p));
	p->ev = *events;
	memset(events, 0, sizeof(*events));
	if (!p->ev.nr)
		return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
				    "no events to record (-e EVENT)");
	if (o->per_thread && has_cpu)
		return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
				    "--per-thread records threads, -a and -C record CPUs: "
				    "choose one");
	p->per_cpu = !o->per_thread;
	if (p->per_cpu) {
		p->cpus = pmus->online;
		if (o->target == PMT_TARGET_CPUS) {
			for (unsigned i = 0; i < PMT_CPUS_MAX / 64; i++)
				p->cpus.bits[i] &= o->cpus.bits[i];
			if (!pmt_cpumask_count(&p->cpus))
				return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
						    "-C: none of those CPUs is online");
		}
	}
	/* -C on a hybrid machine: a core PMU's event without one of those CPUs is not opened
	 * (perf's evlist__create_maps leaves it no CPU) */
	for (uint32_t i = p->ev.nr; o->target == PMT_TARGET_CPUS && i-- > 0;) {
		const struct pmt_pmu *pmu = p->ev.ev[i].pmu;
		bool any = false;

		if (!pmu || !pmu->core || !pmu->has_cpus)
			continue;
		for (int c = -1; !any && (c = pmt_cpumask_next(&p->cpus, (unsigned)(c + 1))) >= 0;)
			any = pmt_cpumask_has(&pmu->cpus, (unsigned)c);
		if (!any)
			pmt_evlist_remove(&p->ev, i);
	}
	if (!p->ev.nr)
		return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
				    "-C: no event's PMU covers those CPUs");
	for (uint32_t i = 0; i < p->ev.nr; i++) {
		const struct pmt_evsel *e = &p->ev.ev[i];

		if (!is_spe(e))
			continue;
		naux++;
		if (o->freq_set || e->freq_set)
			return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
					    "Arm SPE: frequency is not supported: set the period "
					    "with -c or the PMU term (-e %s/period=NUM/)",
					    e->pmu->name);
		/* the kernel refuses a CPU outside the PMU's mask (ENOENT): say which */
		if (p->per_cpu && e->pmu->has_cpus && o->target == PMT_TARGET_CPUS) {
			int c = -1;

			while ((c = pmt_cpumask_next(&p->cpus, (unsigned)(c + 1))) >= 0)
				if (!pmt_cpumask_has(&e->pmu->cpus, (unsigned)c))
					return pmt_diag_set(diag, -PMT_EINVAL, NULL,
							    PMT_DIAG_NO_OFFSET,
							    "-C: CPU %d is not covered by %s "
							    "(its CPUs are listed in %s/bus/"
							    "event_source/devices/%s/cpumask)",
							    c, e->pmu->name, pmus->root,
							    e->pmu->name);
		}
	}
	if (naux) {
		bool discard = false;

		p->full_auxtrace = true;
		/* evlist__to_front() of each AUX event in turn: the last comes first */
		for (uint32_t i = 0; i < p->ev.nr; i++) {
			if (!is_spe(&p->ev.ev[i]))
				continue;
			spe_setup(&p->ev.ev[i], p->per_cpu);
			discard |= pmt_evsel_term_set(&p->ev.ev[i], "discard");
			pmt_evlist_to_front(&p->ev, i);
		}
		/* discard: records are dropped in hardware, so there is no AUX area and no
		 * SPE tracking dummy (perf >= 6.15); the sideband goes as without SPE */
		if (!discard)
			rc = spe_sizes(p, o, page, diag);
		if (rc < 0)
			return rc;
		if (!discard) {
			spe_dummy = add_dummy(&p->ev, "dummy:u", PMT_ATTR_FLAG_EXCLUDE_KERNEL |
								 PMT_ATTR_FLAG_EXCLUDE_HV);
			if (!spe_dummy)
				return -PMT_ENOMEM;
			if (p->per_cpu) {
				spe_dummy->attr.sample_type |= PMT_SAMPLE_TIME | PMT_SAMPLE_CPU;
				spe_dummy->attr.flags |= PMT_ATTR_FLAG_CONTEXT_SWITCH;
			}
		}
	}
	if (spe_dummy) {
		/* the SPE dummy tracks */
	} else if (has_cpu || pmt_pmus_nr_core(pmus) > 1) {
		/* record__config: also on a hybrid machine, whose events cover only their
		 * PMU's CPUs: the sideband comes from a dummy of its own */
		/* evlist__add_aux_dummy(system_wide): sideband of every CPU, on at once */
		if (!add_dummy(&p->ev, "dummy:u",
			       PMT_ATTR_FLAG_EXCLUDE_KERNEL | PMT_ATTR_FLAG_EXCLUDE_HV |
				       PMT_ATTR_FLAG_EXCLUDE_GUEST))
			return -PMT_ENOMEM;
	} else {
		p->ev.ev[0].tracking = true;
		p->mmap_pages = o->mmap_pages;
	}
	if (!p->mmap_pages)
		p->mmap_pages = o->mmap_pages ? o->mmap_pages : (uint32_t)(KIB(512) / page);

	/* evsel__config() */
	for (uint32_t i = 0; i < p->ev.nr; i++) {
		struct pmt_evsel *e = &p->ev.ev[i];
		struct pmt_perf_attr *a = &e->attr;
		const struct pmt_evsel *leader = &p->ev.ev[e->leader];
		const bool immediate = e->added && (has_cpu || pmt_pmus_nr_core(pmus) > 1);

		a->size = PMT_ATTR_SIZE_VER9;
		a->sample_type |= PMT_SAMPLE_IP | PMT_SAMPLE_TID;
		/* a period= or freq= term wins over -c and -F (evsel__apply_config_terms) */
		if (o->period_set && !e->period_set && !e->freq_set) {
			a->sample_period = o->period;
			a->flags &= ~PMT_ATTR_FLAG_FREQ;
		} else if (!e->period_set && !e->freq_set && !is_spe(e) &&
			   (!e->added || o->freq_set)) {
			a->sample_period = o->freq_set ? o->freq : PERF_DEFAULT_FREQ;
			a->flags |= PMT_ATTR_FLAG_FREQ;
		}
		if (e->sample_read) {
			/* the ID even of a single event: the values read are per event */
			a->sample_type |= PMT_SAMPLE_READ | PMT_SAMPLE_ID;
			a->read_format |= PMT_READ_ID;
			if (leader->nr_members > 1)
				a->read_format |= PMT_READ_GROUP;
		}
		/* :R: the PEBS retire latency arrives in WEIGHT_STRUCT's var3_w (perf >= 6.16
		 * calls arch_evsel__set_sample_weight() for it, as for -W) */
		if (e->retire_lat)
			a->sample_type |= weight_bit();
		if (a->flags & PMT_ATTR_FLAG_FREQ)
			a->sample_type |= PMT_SAMPLE_PERIOD;
		if (e->leader != i && leader->sample_read) {
			/* leader sampling: members are read into the leader's samples; a
			 * member's own period= or freq= term still applies, as perf applies
			 * config terms after this (evsel__apply_config_terms) */
			bool keep = e->period_set || e->freq_set;

			a->flags &= ~(PMT_ATTR_FLAG_WRITE_BACKWARD |
				      (keep ? 0 : PMT_ATTR_FLAG_FREQ));
			if (!keep)
				a->sample_period = 0;
			a->sample_type = leader->attr.sample_type;
		}
		if (p->per_cpu)
			a->sample_type |= PMT_SAMPLE_TIME;
		if (has_cpu)
			a->sample_type |= PMT_SAMPLE_CPU;
		/* perf sets these on every evsel, the sideband dummy too */
		if (o->sample_weight)
			a->sample_type |= weight_bit();
		if (o->sample_addr) {
			a->sample_type |= PMT_SAMPLE_ADDR | PMT_SAMPLE_DATA_SRC;
			if (e->tracking)
				a->flags |= PMT_ATTR_FLAG_MMAP_DATA;
		}
		/* perf's evsel__config_callchain(): every event but the sideband dummy perf
		 * adds itself (its no_aux_samples), a dummy the user named too */
		if (o->callchain && !e->added) {
			a->sample_type |= PMT_SAMPLE_CALLCHAIN;
			if (dwarf) {
				/* the kernel's chain stops at the user boundary: the user
				 * part is unwound from these registers and stack bytes */
				a->sample_type |= PMT_SAMPLE_REGS_USER | PMT_SAMPLE_STACK_USER;
				a->flags |= PMT_ATTR_FLAG_EXCLUDE_CALLCHAIN_USER;
				a->sample_regs_user = user_regs_mask();
				a->sample_stack_user = o->dwarf_stack_size;
			}
		}
		/* perf record turns on data mmaps for dwarf unwinding (a stack may hold
		 * pointers into any mapping, and perf reads them from the tracking event) */
		if (dwarf && e->tracking)
			a->flags |= PMT_ATTR_FLAG_MMAP_DATA;
		for (size_t k = 0; k < sizeof(sample_opts) / sizeof(sample_opts[0]); k++)
			if (*(const bool *)((const char *)o + sample_opts[k].opt))
				a->sample_type |= sample_opts[k].bit;
		a->read_format |= PMT_READ_ID | PMT_READ_LOST;
		a->flags |= PMT_ATTR_FLAG_SAMPLE_ID_ALL;
		if (PMT_OPTS_HAS(o, clockid) && o->use_clockid) {
			a->flags |= PMT_ATTR_FLAG_USE_CLOCKID;
			a->clockid = o->clockid;
		}
		if (e->tracking)
			a->flags |= tracking_flags;
		if (!o->no_inherit && !has_cpu && !o->per_thread && o->target != PMT_TARGET_TID)
			a->flags |= PMT_ATTR_FLAG_INHERIT;
		/* a group is enabled through its leader */
		if (!immediate && e->leader == i)
			a->flags |= PMT_ATTR_FLAG_DISABLED;
		if (o->target == PMT_TARGET_WORKLOAD && !immediate && e->leader == i)
			a->flags |= PMT_ATTR_FLAG_ENABLE_ON_EXEC;
	}
	/* evlist__config(): an AUX recording, --sample-identifier, or several events, give
	 * every sample an id; at a fixed place (IDENTIFIER) for AUX recordings, when asked and
	 * when sample types differ */
	if (p->full_auxtrace || sample_identifier || p->ev.nr > 1 ||
	    (PMT_OPTS_HAS(o, sample_id) && o->sample_id)) {
		bool identifier = p->full_auxtrace || sample_identifier;

		for (uint32_t i = 1; i < p->ev.nr; i++)
			if (p->ev.ev[i].attr.sample_type != p->ev.ev[0].attr.sample_type)
				identifier = true;
		/* evsel__set_sample_id: IDENTIFIER replaces ID (set by :S) */
		for (uint32_t i = 0; i < p->ev.nr; i++) {
			uint64_t *st = &p->ev.ev[i].attr.sample_type;

			*st = identifier ? (*st & ~(uint64_t)PMT_SAMPLE_ID) | PMT_SAMPLE_IDENTIFIER
					 : *st | PMT_SAMPLE_ID;
		}
	}
	return 0;
}

void pmt_record_plan_fini(struct pmt_record_plan *p)
{
	pmt_evlist_fini(&p->ev);
}

void pmt_record_plan_print(FILE *fp, const struct pmt_record_plan *p)
{
	static const char dashes[] =
		"------------------------------------------------------------\n";

	for (uint32_t i = 0; i < p->ev.nr; i++) {
		fputs(dashes, fp);
		fputs("perf_event_attr:\n", fp);
		pmt_perf_attr_print(fp, &p->ev.ev[i].attr,
				    p->ev.ev[i].pmu ? p->ev.ev[i].pmu->name : NULL);
		fputs(dashes, fp);
	}
}

int pmt_record_parse_clockid(const char *s, int32_t *clockid, struct pmt_diag *diag)
{
	/* builtin-record.c clockids[] */
	static const struct {
		const char *name;
		int32_t id;
	} names[] = {
		{ "monotonic", CLOCK_MONOTONIC }, { "monotonic_raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME }, { "boottime", CLOCK_BOOTTIME }, { "tai", CLOCK_TAI },
		{ "mono", CLOCK_MONOTONIC }, { "raw", CLOCK_MONOTONIC_RAW },
		{ "real", CLOCK_REALTIME }, { "boot", CLOCK_BOOTTIME },
	};
	const char *name = s;
	char *end;
	long v;

	/* perf takes a number first (sscanf "%d") */
	v = strtol(s, &end, 10);
	if (end != s && !*end && v >= INT32_MIN && v <= INT32_MAX) {
		*clockid = (int32_t)v;
		return 0;
	}
	if (!strncasecmp(name, "CLOCK_", 6))
		name += 6;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcasecmp(name, names[i].name)) {
			*clockid = names[i].id;
			return 0;
		}
	}
	return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
			    "unknown clockid %s, check man page (mono, monotonic, raw, "
			    "monotonic_raw, real, realtime, boot, boottime, tai or a number)", s);
}

int pmt_record_parse_call_graph(const char *s, uint32_t *dwarf_size, struct pmt_diag *diag)
{
	/* util/callchain.c parse_callchain_record(): the max is USHRT_MAX rounded down to
	 * a multiple of 8, what the kernel takes in sample_stack_user */
	const unsigned long max = 65535 & ~7UL;
	const char *size;
	char *end;
	unsigned long v;

	if (!strcmp(s, "fp")) {
		*dwarf_size = 0;
		return 0;
	}
	if (strncmp(s, "dwarf", 5) || (s[5] && s[5] != ','))
		return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
				    "callchain: Unknown --call-graph option value: %s (fp or "
				    "dwarf[,SIZE]; lbr is not supported yet)", s);
	*dwarf_size = 8192;
	if (!s[5])
		return 0;
	size = s + 6;
	v = strtoul(size, &end, 0);
	if (v < 65536) /* perf rounds before it checks the bounds */
		v = (v + 7) & ~7UL;
	if (end == size || *end || *size == '-' || !v || v > max)
		return pmt_diag_set(diag, -PMT_EINVAL, NULL, PMT_DIAG_NO_OFFSET,
				    "callchain: Incorrect stack dump size (max %lu): %s", max,
				    size);
	*dwarf_size = (uint32_t)v;
	return 0;
}
