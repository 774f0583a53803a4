/* "N" or "N-M" at *p, as sysfs CPU lists and format files write them */
#ifndef PMT_DISCOVERY_RANGE_H
#define PMT_DISCOVERY_RANGE_H
#include <stdlib.h>

/* 0 with *p past the range and lo <= hi <= max, or -1 */
static inline int parse_range(const char **p, unsigned long max, unsigned long *lo,
			      unsigned long *hi)
{
	char *end;

	*lo = *hi = strtoul(*p, &end, 10);
	if (end == *p || **p == '-')
		return -1;
	if (*end == '-') {
		const char *q = end + 1;

		*hi = strtoul(q, &end, 10);
		if (end == q || *q == '-')
			return -1;
	}
	*p = end;
	return *lo <= *hi && *hi <= max ? 0 : -1;
}
#endif
