/* debuginfod: the last place a file is looked for, by build-id, after every local one;
 * libdebuginfod keeps what it fetched in its cache ($DEBUGINFOD_CACHE_PATH or
 * ~/.cache/debuginfod_client), so a second run costs nothing. */
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmutrace/common.h"

#include "debuginfod.h"

struct dbgd {
	debuginfod_client *client;
	int progress_shown;    /* a progress line is on the terminal: end it */
	int unreachable;       /* -errno of a failure that is no "not there": ask no more */
};

/* Downloads can take minutes: say what is fetched and how far, on a terminal only */
static int progress(debuginfod_client *c, long done, long total)
{
	struct dbgd *d = debuginfod_get_user_data(c);
	const char *url = debuginfod_get_url(c);

	if (total > 0)
		fprintf(stderr, "\rdebuginfod: %s: %ld of %ld kB ", url ? url : "", done / 1024,
			total / 1024);
	else
		fprintf(stderr, "\rdebuginfod: %s: %ld kB ", url ? url : "", done / 1024);
	d->progress_shown = 1;
	return 0;
}

struct dbgd *dbgd_new(const char *urls)
{
	struct dbgd *d;
	const char *env;

	if (urls && !*urls)
		return NULL;
	/* libdebuginfod reads its servers from the environment when it queries */
	if (urls && setenv("DEBUGINFOD_URLS", urls, 1) < 0)
		return NULL;
	env = getenv("DEBUGINFOD_URLS");
	if (!env || !*env)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->client = debuginfod_begin();
	if (!d->client) {
		free(d);
		return NULL;
	}
	debuginfod_set_user_data(d->client, d);
	if (isatty(STDERR_FILENO))
		debuginfod_set_progressfn(d->client, progress);
	return d;
}

void dbgd_free(struct dbgd *d)
{
	if (!d)
		return;
	debuginfod_end(d->client);
	free(d);
}

int dbgd_fetch(struct dbgd *d, const uint8_t *build_id, size_t n, enum dbgd_kind kind,
	       char *path, size_t path_size, char *why, size_t why_size)
{
	char *got = NULL;
	int fd;

	if (!d || !n)
		return 0;
	if (d->unreachable) {
		/* each query would wait for the same dead server again */
		snprintf(why, why_size, "debuginfod (%s): %s", getenv("DEBUGINFOD_URLS"),
			 strerror(-d->unreachable));
		return 0;
	}
	fd = kind == DBGD_DEBUGINFO
		     ? debuginfod_find_debuginfo(d->client, build_id, (int)n, &got)
		     : debuginfod_find_executable(d->client, build_id, (int)n, &got);
	if (d->progress_shown) {
		fputs("\r\033[K", stderr);
		d->progress_shown = 0;
	}
	if (fd < 0) {
		snprintf(why, why_size, "debuginfod (%s): %s", getenv("DEBUGINFOD_URLS"),
			 fd == -ENOENT ? "no server has it" : strerror(-fd));
		if (fd != -ENOENT) {
			d->unreachable = fd;
			pmt_warn("debuginfod (%s): %s; files found nowhere else have no symbols",
				 getenv("DEBUGINFOD_URLS"), strerror(-fd));
		}
		free(got);
		return 0;
	}
	close(fd);
	snprintf(path, path_size, "%s", got);
	free(got);
	return 1;
}
