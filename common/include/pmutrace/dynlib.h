/* Optional libraries loaded when a command first needs them (dlopen of the Debian runtime
 * soname), so that commands which never call them do not pay for mapping and relocating
 * them and their own dependencies at start-up (libpq and libdebuginfod alone bring curl,
 * gnutls, OpenSSL and Kerberos: ~25 more libraries).
 *
 * A part lists the functions it calls and defines its table with PMT_DYNLIB_DEFINE: a
 * struct of function pointers declared with the library's own prototypes (typeof of the
 * header's declaration), so calls stay type-checked, and the library's loader state:
 *
 *	#define PQ_FUNCS(X, api) X(api, PQexec) X(api, PQclear)
 *	PMT_DYNLIB_DEFINE(pq, "libpq.so.5", PQ_FUNCS);
 *	if (pmt_dynlib_load(&pq_lib, "export postgresql", diag) < 0) ...
 *	r = pq.PQexec(conn, sql);
 */
#ifndef PMUTRACE_DYNLIB_H
#define PMUTRACE_DYNLIB_H

#include <stddef.h>

#include "pmutrace/errors.h"

struct pmt_dynsym {
	const char *name;
	void **slot; /* where dlsym's address goes: a member of the part's pointer struct */
};
/* dlsym's result goes through void ** as POSIX's dlsym(3) example does: ISO C has no
 * conversion from void * to a function pointer */
#define PMT_DYNSYM(api, fn) { #fn, (void **)&(api).fn }

struct pmt_dynlib {
	const char *soname;
	const struct pmt_dynsym *syms;
	size_t nsyms;
	/* filled by the first load, under a lock: later calls give the same answer */
	int state;         /* 0: not tried, 1: loaded, < 0: -PMT_E* of the failure */
	char why[512];     /* dlerror() of the failure */
};
#define PMT_DYNLIB_INIT(so, syms) { (so), (syms), sizeof(syms) / sizeof((syms)[0]), 0, { 0 } }

/* Load lib and every one of its symbols once per process. 0 when they are all there;
 * else -PMT_EUNSUPPORTED with "WHO: cannot load SONAME: <dlerror>" in diag (WHO names the
 * command or option that needed it), and the same answer on every later call. */
PMT_API int pmt_dynlib_load(struct pmt_dynlib *lib, const char *who, struct pmt_diag *diag);

/* static struct { ... } API (a pointer per function FUNCS lists) and static struct
 * pmt_dynlib API_lib for SONAME */
#define PMT_DYNLIB_POINTER_(api, fn) __typeof__(fn) *fn;
#define PMT_DYNLIB_SYM_(api, fn) PMT_DYNSYM(api, fn),
#define PMT_DYNLIB_DEFINE(api, soname, FUNCS)                                              \
	static struct {                                                                    \
		FUNCS(PMT_DYNLIB_POINTER_, api)                                            \
	} api;                                                                             \
	static const struct pmt_dynsym api##_syms_[] = { FUNCS(PMT_DYNLIB_SYM_, api) };    \
	static struct pmt_dynlib api##_lib = PMT_DYNLIB_INIT(soname, api##_syms_)

#endif
