/* C++ symbol names as perf prints them. perf 7.3 demangles with abi::__cxa_demangle (the
 * whole signature: return type of templates, parameters, cv-qualifiers); perf 6.1, built
 * with libiberty, called cplus_demangle without DMGL_PARAMS (the bare qualified name).
 * libiberty's demangler is the code __cxa_demangle is built from, so both come from it. */
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols_int.h"

const char *elf_demangle(const char *name, unsigned flags, char *buf, size_t cap)
{
	char *d;

	/* only Itanium C++ ABI names: a C function called "i" is no type named int */
	if (!(flags & ELF_LOAD_DEMANGLE) || strncmp(name, "_Z", 2))
		return name;
	d = flags & ELF_LOAD_DEMANGLE_PARAMS
		    ? cplus_demangle_v3(name, DMGL_PARAMS | DMGL_TYPES)
		    : cplus_demangle(name, DMGL_NO_OPTS);
	if (!d)
		return name;
	snprintf(buf, cap, "%s", d);
	free(d);
	return buf;
}
