/* Near names for "did you mean" hints: the candidates closest to a name that was not found */
#define _GNU_SOURCE /* strcasestr */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pmutrace/cli_util.h"

unsigned pmt_name_distance(const char *a, const char *b)
{
	unsigned row[128], la = (unsigned)strlen(a), lb = (unsigned)strlen(b);

	/* Names this long are never typos of each other worth offering; the row stays on the stack */
	if (la > 127 || lb > 127)
		return PMT_NAME_FAR;
	for (unsigned j = 0; j <= lb; j++)
		row[j] = j;
	for (unsigned i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = i;
		for (unsigned j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned best = diag + (tolower((unsigned char)a[i - 1]) !=
						tolower((unsigned char)b[j - 1]));

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

void pmt_near_init(struct pmt_near *nr, const char *want, unsigned limit, bool holding_is_near)
{
	memset(nr, 0, sizeof(*nr));
	nr->want = want;
	nr->limit = limit;
	nr->holding_is_near = holding_is_near;
}

void pmt_near_consider(struct pmt_near *nr, const char *name)
{
	unsigned d = pmt_name_distance(nr->want, name);

	/* "lock" finds tma_lock_latency: a name holding the text typed is as near as can be */
	if (nr->holding_is_near && *nr->want && strcasestr(name, nr->want))
		d = 0;
	/* otherwise a name is near when it keeps more of the typed one than it changes */
	else if (d > nr->limit || d >= strlen(nr->want))
		return;
	for (int i = 0; i < PMT_NEAR_MAX; i++) {
		if (nr->names[i][0] && !strcasecmp(nr->names[i], name))
			return;
	}
	for (int i = 0; i < PMT_NEAR_MAX; i++) {
		if (!nr->names[i][0] || d < nr->dist[i]) {
			for (int k = PMT_NEAR_MAX - 1; k > i; k--) {
				memcpy(nr->names[k], nr->names[k - 1], sizeof(nr->names[k]));
				nr->dist[k] = nr->dist[k - 1];
			}
			snprintf(nr->names[i], sizeof(nr->names[i]), "%s", name);
			nr->dist[i] = d;
			return;
		}
	}
}

size_t pmt_near_list(const struct pmt_near *nr, char *out, size_t cap)
{
	size_t len = 0;

	if (cap)
		out[0] = 0;
	for (int i = 0; i < PMT_NEAR_MAX && nr->names[i][0]; i++)
		len += (size_t)snprintf(out + len, cap > len ? cap - len : 0, "%s%s", i ? ", " : "",
					nr->names[i]);
	return len;
}
