/* --pfm-events through libpfm4 with LIBPFM_FORCE_PMU=knl (libpfm4's variable to pick a PMU
 * model the host does not have). The expected values are worked out by hand, not asked of
 * libpfm4:
 *  - the libpfm_intel_knl(3) page (../shared/seeds/libpfm_intel_knl.txt): modifiers u k i e
 *    c t and their rules (e needs c >= 1, c in [0:255], t only on the fixed-counter
 *    events), the OFFCORE_RESPONSE_0/1 examples and the illegal one, the average latency
 *    mode (OUTSTANDING on _0 with request types only), ANY_RESPONSE as the default;
 *  - Intel's IA32_PERFEVTSELx layout (SDM vol. 3B, architectural performance
 *    monitoring): event 7:0, umask 15:8, USR 16,
 *    OS 17, E 18, INT 20, ANY 21, EN 22, INV 23, CMASK 31:24. pfm_get_perf_event_encoding(3)
 *    leaves USR/OS/EN/INT to perf_event (exclude_* and the kernel), so config holds the
 *    rest, and PERF_TYPE_RAW (4) is the type on a core PMU;
 *  - Knights Landing's event codes and offcore bits as Intel documents them (the seed page
 *    has none; libpfm4's intel_knl_events.h tabulates the same): INST_RETIRED.ANY_P 0xC0/0x00,
 *    UNHALTED_CORE_CYCLES 0x3C/0x00, UNHALTED_REFERENCE_CYCLES 0x00/0x03 (the fixed
 *    counter's pseudo-encoding), OFFCORE_RESPONSE_0 0xB7/0x01 and _1 0xB7/0x02 with the
 *    MSR_OFFCORE_RSP_x value in config1: request bits DMND_DATA_RD 0, DMND_RFO 1,
 *    PF_L2_RFO 5 (ANY_RFO = 1|5), ANY_REQUEST 15; response ANY_RESPONSE 16, DDR_NEAR 23+31,
 *    MCDRAM_NEAR 21+31; OUTSTANDING 38;
 *  - perf_event defaults of libpfm4: exclude_guest set unless mg is given.
 * Errors are libpfm4's own strings (pfmlib.h's PFM_ERR_* list), named with the event. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/events.h"

#define RAW 4 /* PERF_TYPE_RAW */
#define EXCL_U PMT_ATTR_FLAG_EXCLUDE_USER
#define EXCL_K PMT_ATTR_FLAG_EXCLUDE_KERNEL
#define EXCL_G PMT_ATTR_FLAG_EXCLUDE_GUEST
#define PRIV_MASK (EXCL_U | EXCL_K | PMT_ATTR_FLAG_EXCLUDE_HV | EXCL_G | \
		   PMT_ATTR_FLAG_EXCLUDE_HOST | PMT_ATTR_FLAG_PINNED | PMT_ATTR_FLAG_EXCLUSIVE | \
		   PMT_ATTR_FLAG_FREQ | (3ULL << PMT_ATTR_PRECISE_SHIFT))

static int setup(void **state)
{
	(void)state;
	/* read by libpfm4's pfm_initialize(), once per process */
	setenv("LIBPFM_FORCE_PMU", "knl", 1);
	return 0;
}

static void one(const char *s, uint64_t config, uint64_t config1, uint64_t flags)
{
	struct pmt_evlist l = { 0 };
	struct pmt_diag d = PMT_DIAG_INIT;
	int rc = pmt_events_parse_pfm(&l, NULL, s, &d);

	if (rc != 1)
		fail_msg("%s: rc %d: %s", s, rc, d.msg);
	assert_int_equal(l.ev[0].attr.type, RAW);
	if (l.ev[0].attr.config != config || l.ev[0].attr.config1 != config1 ||
	    (l.ev[0].attr.flags & PRIV_MASK) != flags)
		fail_msg("%s: config %#llx config1 %#llx flags %#llx, want %#llx %#llx %#llx", s,
			 (unsigned long long)l.ev[0].attr.config,
			 (unsigned long long)l.ev[0].attr.config1,
			 (unsigned long long)(l.ev[0].attr.flags & PRIV_MASK),
			 (unsigned long long)config, (unsigned long long)config1,
			 (unsigned long long)flags);
	assert_string_equal(l.ev[0].name, s);
	pmt_evlist_fini(&l);
}

static void modifiers_of_the_knl_page(void **state)
{
	(void)state;
	one("INST_RETIRED", 0xc0, 0, EXCL_G);
	one("knl::INST_RETIRED:ANY_P", 0xc0, 0, EXCL_G);
	/* u: PFM_PLM3 only, so the kernel is excluded; k the other way round */
	one("INST_RETIRED:u", 0xc0, 0, EXCL_K | EXCL_G);
	one("INST_RETIRED:k", 0xc0, 0, EXCL_U | EXCL_G);
	one("INST_RETIRED:u:k", 0xc0, 0, EXCL_G);
	one("INST_RETIRED:u=0:k=1", 0xc0, 0, EXCL_U | EXCL_G);
	/* i: INV bit 23 */
	one("INST_RETIRED:i", 0x8000c0, 0, EXCL_G);
	/* e with c=1: E bit 18, CMASK 1 << 24 */
	one("INST_RETIRED:e:c=1", 0x10400c0, 0, EXCL_G);
	/* c at the top of its range [0:255] */
	one("INST_RETIRED:c=255", 0xff0000c0, 0, EXCL_G);
	/* all of them: 0xc0 | E 0x40000 | INV 0x800000 | CMASK 3 << 24 */
	one("INST_RETIRED:i:e:c=3:u", 0x38400c0, 0, EXCL_K | EXCL_G);
	/* t: ANY bit 21, on the three fixed-counter events */
	one("UNHALTED_CORE_CYCLES:t", 0x20003c, 0, EXCL_G);
	one("INSTRUCTIONS_RETIRED:t", 0x2000c0, 0, EXCL_G);
	one("UNHALTED_REFERENCE_CYCLES:t", 0x200300, 0, EXCL_G);
	/* perf_event's own modifiers (pfm_get_perf_event_encoding(3)) */
	one("INST_RETIRED:precise=2", 0xc0, 0, EXCL_G | 2ULL << PMT_ATTR_PRECISE_SHIFT);
	one("INST_RETIRED:mg", 0xc0, 0, PMT_ATTR_FLAG_EXCLUDE_HOST);
	one("INST_RETIRED:pinned", 0xc0, 0, EXCL_G | PMT_ATTR_FLAG_PINNED);
	one("INST_RETIRED:excl", 0xc0, 0, EXCL_G | PMT_ATTR_FLAG_EXCLUSIVE);
}

static void offcore_response_rules(void **state)
{
	(void)state;
	/* the page's three valid examples */
	one("OFFCORE_RESPONSE_0:DMND_DATA_RD:ANY_RESPONSE", 0x1b7, 0x10001, EXCL_G);
	one("OFFCORE_RESPONSE_0:ANY_REQUEST", 0x1b7, 0x18000, EXCL_G); /* + ANY_RESPONSE */
	one("OFFCORE_RESPONSE_0:ANY_RFO:DDR_NEAR", 0x1b7, 0x80800022, EXCL_G);
	/* no supplier or snoop: ANY_RESPONSE; suppliers combine */
	one("OFFCORE_RESPONSE_0:DMND_RFO", 0x1b7, 0x10002, EXCL_G);
	one("OFFCORE_RESPONSE_0:ANY_RFO:DDR_NEAR:MCDRAM_NEAR", 0x1b7, 0x80a00022, EXCL_G);
	/* average latency mode: the page's two pairs */
	one("OFFCORE_RESPONSE_0:DMND_DATA_RD:OUTSTANDING", 0x1b7, 0x4000000001, EXCL_G);
	one("OFFCORE_RESPONSE_1:DMND_DATA_RD:ANY_RESPONSE", 0x2b7, 0x10001, EXCL_G);
	one("OFFCORE_RESPONSE_0:ANY_REQUEST:OUTSTANDING", 0x1b7, 0x4000008000, EXCL_G);
	one("OFFCORE_RESPONSE_1:ANY_REQUEST:ANY_RESPONSE", 0x2b7, 0x18000, EXCL_G);
	one("OFFCORE_RESPONSE_1:DMND_RFO:DDR_NEAR:u", 0x2b7, 0x80800002, EXCL_K | EXCL_G);
}

static void refused(const char *s, const char *bad_event, const char *libpfm_msg)
{
	struct pmt_evlist l = { 0 };
	struct pmt_diag d = PMT_DIAG_INIT;
	char want[256];

	if (pmt_events_parse_pfm(&l, NULL, s, &d) >= 0)
		fail_msg("%s was accepted", s);
	snprintf(want, sizeof(want), "event '%s'", bad_event);
	if (!strstr(d.msg, want) || !strstr(d.msg, libpfm_msg))
		fail_msg("%s: message '%s' lacks \"%s\" or \"%s\"", s, d.msg, want, libpfm_msg);
	pmt_evlist_fini(&l);
}

static void invalid_combinations_fail_with_libpfm4s_message(void **state)
{
	(void)state;
	/* the page's illegal example: ANY_RESPONSE with a supplier */
	refused("OFFCORE_RESPONSE_0:ANY_RFO:DDR_NEAR:ANY_RESPONSE",
		"OFFCORE_RESPONSE_0:ANY_RFO:DDR_NEAR:ANY_RESPONSE",
		"invalid combination of model specific features");
	/* OUTSTANDING takes request types and no others */
	refused("OFFCORE_RESPONSE_0:DMND_DATA_RD:OUTSTANDING:DDR_NEAR",
		"OFFCORE_RESPONSE_0:DMND_DATA_RD:OUTSTANDING:DDR_NEAR",
		"invalid combination of model specific features");
	/* ... and only on OFFCORE_RESPONSE_0 */
	refused("OFFCORE_RESPONSE_1:DMND_DATA_RD:OUTSTANDING",
		"OFFCORE_RESPONSE_1:DMND_DATA_RD:OUTSTANDING", "invalid event attribute");
	/* e without a counter mask >= 1 */
	refused("INST_RETIRED:e", "INST_RETIRED:e", "invalid event attribute");
	/* c outside [0:255], or without a value */
	refused("INST_RETIRED:c=256", "INST_RETIRED:c=256", "invalid event attribute value");
	refused("INST_RETIRED:c", "INST_RETIRED:c", "invalid event attribute value");
	refused("INST_RETIRED:c=1:c=2", "INST_RETIRED:c=1:c=2", "attribute value already set");
	/* t only on the fixed-counter events */
	refused("INST_RETIRED:t", "INST_RETIRED:t", "invalid event attribute");
	/* unknown umask, unknown event, other PMU model */
	refused("OFFCORE_RESPONSE_0:NO_SUCH_UMASK", "OFFCORE_RESPONSE_0:NO_SUCH_UMASK",
		"invalid event attribute");
	refused("NO_SUCH_EVENT", "NO_SUCH_EVENT", "event not found");
	refused("snb::INST_RETIRED", "snb::INST_RETIRED", "event not found");
	/* no h on Intel; precise only on PEBS events, at most 3 */
	refused("INST_RETIRED:h", "INST_RETIRED:h", "invalid event attribute");
	refused("UNHALTED_CORE_CYCLES:precise=1", "UNHALTED_CORE_CYCLES:precise=1",
		"invalid event attribute");
	refused("INST_RETIRED:precise=4", "INST_RETIRED:precise=4",
		"invalid event attribute value");
	refused("INST_RETIRED:period=10:freq=10", "INST_RETIRED:period=10:freq=10",
		"invalid event attribute value");
	/* the bad event is named inside a list */
	refused("INST_RETIRED:u,INST_RETIRED:c=256,UNHALTED_CORE_CYCLES", "INST_RETIRED:c=256",
		"invalid event attribute value");
}

static void names(const struct pmt_evlist *l, const char *const *want, const uint32_t *leader,
		  const uint32_t *members, uint32_t n)
{
	assert_int_equal(l->nr, n);
	for (uint32_t i = 0; i < n; i++) {
		assert_string_equal(l->ev[i].name, want[i]);
		assert_int_equal(l->ev[i].leader, leader[i]);
		if (l->ev[i].leader == i)
			assert_int_equal(l->ev[i].nr_members, members[i]);
	}
}

/* perf's strsep(",{}") walk: groups, what "a{b}" means, the errors */
static void groups_as_perf_splits_them(void **state)
{
	struct pmt_evlist l = { 0 };
	struct pmt_diag d = PMT_DIAG_INIT;
	(void)state;

	assert_int_equal(pmt_events_parse_pfm(&l, NULL,
					      "{INST_RETIRED:u,OFFCORE_RESPONSE_0:ANY_REQUEST},"
					      "UNHALTED_CORE_CYCLES,{INST_RETIRED:k}", &d), 4);
	names(&l, (const char *const[]){ "INST_RETIRED:u", "OFFCORE_RESPONSE_0:ANY_REQUEST",
					 "UNHALTED_CORE_CYCLES", "INST_RETIRED:k" },
	      (const uint32_t[]){ 0, 0, 2, 3 }, (const uint32_t[]){ 2, 0, 1, 1 }, 4);
	/* a second call appends; indices are the list's */
	assert_int_equal(pmt_events_parse_pfm(&l, NULL, "INST_RETIRED{UNHALTED_CORE_CYCLES,"
					      "INSTRUCTIONS_RETIRED}", &d), 3);
	assert_int_equal(l.nr, 7);
	assert_int_equal(l.ev[4].leader, 4);
	assert_int_equal(l.ev[4].nr_members, 3);
	assert_int_equal(l.ev[5].leader, 4);
	assert_int_equal(l.ev[6].leader, 4);
	pmt_evlist_fini(&l);
	/* empty items are skipped; an unclosed group ends with the string */
	assert_int_equal(pmt_events_parse_pfm(&l, NULL, ",,{INST_RETIRED,,UNHALTED_CORE_CYCLES",
					      &d), 2);
	assert_int_equal(l.ev[1].leader, 0);
	assert_int_equal(l.ev[0].nr_members, 2);
	pmt_evlist_fini(&l);
	assert_int_equal(pmt_events_parse_pfm(&l, NULL, "{INST_RETIRED,{UNHALTED_CORE_CYCLES}}",
					      &d), -PMT_EPARSE);
	assert_non_null(strstr(d.msg, "nested event groups not supported"));
	pmt_evlist_fini(&l);
	assert_int_equal(pmt_events_parse_pfm(&l, NULL, "INST_RETIRED}", &d), -PMT_EPARSE);
	assert_non_null(strstr(d.msg, "cannot close a non-existing event group"));
	pmt_evlist_fini(&l);
	assert_int_equal(pmt_events_parse_pfm(&l, NULL, "{INST_RETIRED},}", &d), -PMT_EPARSE);
	pmt_evlist_fini(&l);
	assert_int_equal(pmt_events_parse_pfm(&l, NULL, "", &d), 0);
	assert_int_equal(l.nr, 0);
	pmt_evlist_fini(&l);
}

/* a period or frequency from libpfm4 is the event's own (perf's is_libpfm_event) */
static void period_and_freq_modifiers_stick(void **state)
{
	struct pmt_evlist l = { 0 };
	struct pmt_diag d = PMT_DIAG_INIT;
	(void)state;

	assert_int_equal(pmt_events_parse_pfm(&l, NULL, "INST_RETIRED:period=1000,"
					      "INST_RETIRED:freq=99,INST_RETIRED", &d), 3);
	assert_true(l.ev[0].period_set);
	assert_false(l.ev[0].freq_set);
	assert_int_equal(l.ev[0].attr.sample_period, 1000);
	assert_true(l.ev[1].freq_set);
	assert_true(l.ev[1].attr.flags & PMT_ATTR_FLAG_FREQ);
	assert_int_equal(l.ev[1].attr.sample_period, 99);
	assert_false(l.ev[2].period_set || l.ev[2].freq_set);
	pmt_evlist_fini(&l);
}

/* the PMU is the sysfs one of the attr's type, as perf_pmus__find_by_type() */
static void pmu_found_by_type(void **state)
{
	struct pmt_pmu pmu[2] = { { .name = "cpu", .type = RAW }, { .name = "msr", .type = 9 } };
	struct pmt_pmus set = { .pmu = pmu, .nr = 2 };
	struct pmt_evlist l = { 0 };
	struct pmt_diag d = PMT_DIAG_INIT;
	(void)state;

	assert_int_equal(pmt_events_parse_pfm(&l, &set, "INST_RETIRED", &d), 1);
	assert_ptr_equal(l.ev[0].pmu, &pmu[0]);
	pmt_evlist_fini(&l);
	set.nr = 0;
	assert_int_equal(pmt_events_parse_pfm(&l, &set, "INST_RETIRED", &d), 1);
	assert_null(l.ev[0].pmu);
	pmt_evlist_fini(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(modifiers_of_the_knl_page),
		cmocka_unit_test(offcore_response_rules),
		cmocka_unit_test(invalid_combinations_fail_with_libpfm4s_message),
		cmocka_unit_test(groups_as_perf_splits_them),
		cmocka_unit_test(period_and_freq_modifiers_stick),
		cmocka_unit_test(pmu_found_by_type),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
