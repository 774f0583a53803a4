/* pmutrace/dynlib.h: optional libraries loaded on first use */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "pmutrace/dynlib.h"

/* one lock for every library: loads are rare (once per library and process) and parallel
 * decoders may reach the same one at once */
static pthread_mutex_t dynlib_lock = PTHREAD_MUTEX_INITIALIZER;

static int load(struct pmt_dynlib *lib)
{
	/* RTLD_LOCAL: the symbols are reached through dlsym only, never by the executable's
	 * own references */
	void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(lib->why, sizeof(lib->why), "%s", dlerror());
		return -PMT_EUNSUPPORTED;
	}
	for (size_t i = 0; i < lib->nsyms; i++) {
		void *p = dlsym(h, lib->syms[i].name);

		if (!p) {
			/* an older library without a function this build was compiled against */
			snprintf(lib->why, sizeof(lib->why), "no %s in it", lib->syms[i].name);
			dlclose(h);
			return -PMT_EUNSUPPORTED;
		}
		*lib->syms[i].slot = p;
	}
	/* the handle is never closed: the pointers stay valid until the process ends */
	return 1;
}

int pmt_dynlib_load(struct pmt_dynlib *lib, const char *who, struct pmt_diag *diag)
{
	int state;

	pthread_mutex_lock(&dynlib_lock);
	if (!lib->state)
		lib->state = load(lib);
	state = lib->state;
	pthread_mutex_unlock(&dynlib_lock);
	if (state > 0)
		return 0;
	return pmt_diag_set(diag, state, NULL, PMT_DIAG_NO_OFFSET, "%s: cannot load %s: %s", who,
			    lib->soname, lib->why);
}
