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
#include "pmutrace/dynlib.h"

#include "debuginfod.h"

/* libdebuginfod (with curl, gnutls and Kerberos behind it) is loaded by the first file no
 * local place has, not at start-up: most runs never ask a server */
#define DBGD_FUNCS(X, api)                                                                 \
	X(api, debuginfod_begin) X(api, debuginfod_end) X(api, debuginfod_set_user_data)   \
	X(api, debuginfod_get_user_data) X(api, debuginfod_get_url)                        \
	X(api, debuginfod_set_progressfn) X(api, debuginfod_find_debuginfo)                \
	X(api, debuginfod_find_executable)
PMT_DYNLIB_DEFINE(dbgd_api, "libdebuginfod.so.1", DBGD_FUNCS);

struct dbgd {
	debuginfod_client *client; /* NULL until the first query */
	int progress_shown;    /* a progress line is on the terminal: end it */
	int unreachable;       /* -errno of a failure that is no "not there": ask no more */
	char why[1024];        /* the client could not be made: why (a pmt_diag message) */
};

/* Downloads can take minutes: say what is fetched and how far, on a terminal only */
static int progress(debuginfod_client *c, long done, long total)
{
	struct dbgd *d = dbgd_api.debuginfod_get_user_data(c);
	const char *url = dbgd_api.debuginfod_get_url(c);

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
	const char *env;

	if (urls && !*urls)
		return NULL;
	/* libdebuginfod reads its servers from the environment when it queries */
	if (urls && setenv("DEBUGINFOD_URLS", urls, 1) < 0)
		return NULL;
	env = getenv("DEBUGINFOD_URLS");
	if (!env || !*env)
		return NULL;
	return calloc(1, sizeof(struct dbgd));
}

/* the client, made by the first query; NULL with d->why said once as a warning */
static debuginfod_client *client(struct dbgd *d)
{
	struct pmt_diag diag = PMT_DIAG_INIT;

	if (d->client || d->why[0])
		return d->client;
	if (pmt_dynlib_load(&dbgd_api_lib, "debuginfod", &diag) < 0) {
		snprintf(d->why, sizeof(d->why), "%s", diag.msg);
	} else {
		d->client = dbgd_api.debuginfod_begin();
		if (!d->client)
			snprintf(d->why, sizeof(d->why), "debuginfod: no client (out of memory)");
	}
	if (!d->client) {
		pmt_warn("%s; files found nowhere else have no symbols", d->why);
		return NULL;
	}
	dbgd_api.debuginfod_set_user_data(d->client, d);
	if (isatty(STDERR_FILENO))
		dbgd_api.debuginfod_set_progressfn(d->client, progress);
	return d->client;
}

void dbgd_free(struct dbgd *d)
{
	if (!d)
		return;
	if (d->client)
		dbgd_api.debuginfod_end(d->client);
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
	if (!client(d)) {
		snprintf(why, why_size, "%s", d->why);
		return 0;
	}
	fd = kind == DBGD_DEBUGINFO
		     ? dbgd_api.debuginfod_find_debuginfo(d->client, build_id, (int)n, &got)
		     : dbgd_api.debuginfod_find_executable(d->client, build_id, (int)n, &got);
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
