/* sysfs format files, parsed as perf's pmu.l/pmu.y grammar: WORD[:BITS[,BITS]...] where
 * WORD is config, config1..config4 and BITS is N or N-M. */
#include <stdlib.h>
#include <string.h>

#include "pmutrace/pmu.h"
#include "range.h"

int pmt_pmu_format_parse(const char *text, struct pmt_pmu_format *f)
{
	const char *p = text;

	f->nr = 0;
	if (strncmp(p, "config", 6))
		return -PMT_EPARSE;
	p += 6;
	f->word = 0;
	if (*p >= '1' && *p <= '4')
		f->word = (uint8_t)(*p++ - '0');
	if (*p == '\n' || !*p) {
		/* the whole word */
		f->lo[0] = 0;
		f->hi[0] = 63;
		f->nr = 1;
		return 0;
	}
	if (*p++ != ':')
		return -PMT_EPARSE;
	for (;;) {
		unsigned long lo, hi;

		if (f->nr == PMT_FORMAT_MAX_RANGES || parse_range(&p, 63, &lo, &hi) < 0)
			return -PMT_EPARSE;
		f->lo[f->nr] = (uint8_t)lo;
		f->hi[f->nr] = (uint8_t)hi;
		f->nr++;
		if (*p != ',')
			break;
		p++;
	}
	while (*p == '\n' || *p == ' ')
		p++;
	return *p ? -PMT_EPARSE : 0;
}

uint64_t pmt_pmu_format_mask(const struct pmt_pmu_format *f)
{
	uint64_t m = 0;

	for (unsigned r = 0; r < f->nr; r++)
		for (unsigned b = f->lo[r]; b <= f->hi[r]; b++)
			m |= 1ULL << b;
	return m;
}

int pmt_pmu_format_apply(const struct pmt_pmu_format *f, uint64_t value, uint64_t config[5],
			 uint64_t *max)
{
	uint64_t out = config[f->word];
	unsigned vbit = 0;

	/* perf's pmu_format_value(): value bits go to the listed bits in order */
	for (unsigned r = 0; r < f->nr; r++)
		for (unsigned b = f->lo[r]; b <= f->hi[r]; b++, vbit++) {
			out &= ~(1ULL << b);
			if (vbit < 64 && (value >> vbit & 1))
				out |= 1ULL << b;
		}
	if (vbit < 64 && value >> vbit) {
		if (max)
			*max = (1ULL << vbit) - 1;
		return -PMT_ERANGE;
	}
	config[f->word] = out;
	return 0;
}
