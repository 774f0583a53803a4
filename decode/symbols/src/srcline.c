/* Source lines of addresses (libdw): the file and line of the DWARF line table row that
 * holds an address, as addr2line gives it, and the inlined calls the address sits in (as
 * addr2line -i). One Dwfl per file, opened when first asked. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srcline.h"

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

int srcline_open(struct srcline *sl, const char *path)
{
	memset(sl, 0, sizeof(*sl));
	sl->dwfl = dwfl_begin(&offline_callbacks);
	if (!sl->dwfl)
		return -PMT_ENOMEM;
	/* "" as the module name: offline modules are placed from address 0 on, their base
	 * is what dwfl_module_info says */
	sl->mod = dwfl_report_offline(sl->dwfl, "", path, -1);
	dwfl_report_end(sl->dwfl, NULL, NULL);
	if (!sl->mod) {
		dwfl_end(sl->dwfl);
		sl->dwfl = NULL;
		return -PMT_EFORMAT;
	}
	dwfl_module_info(sl->mod, NULL, &sl->base, NULL, NULL, NULL, NULL, NULL);
	return 0;
}

int srcline_find(struct srcline *sl, uint64_t vaddr, const char **file, unsigned *line)
{
	Dwfl_Line *l;
	int ln = 0;
	const char *f;

	if (!sl->dwfl)
		return 0;
	/* the module's ELF addresses start at its first PT_LOAD's p_vaddr, placed at base */
	l = dwfl_module_getsrc(sl->mod, sl->base + vaddr - sl->first_vaddr);
	if (!l)
		return 0;
	f = dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL);
	if (!f)
		return 0;
	*file = f;
	*line = (unsigned)ln;
	return 1;
}

/* A function's name as the source spells it: an inlined instance has none of its own, its
 * abstract origin (DW_AT_abstract_origin, through DW_AT_specification) does */
static const char *scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute at;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &at));
}

int srcline_inlines(struct srcline *sl, uint64_t vaddr, struct pmt_inline_frame *fr,
		    unsigned max)
{
	Dwarf_Addr bias = 0, addr;
	Dwarf_Die *cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	const char *file = NULL;
	unsigned line = 0, n = 0;
	int nscopes;

	if (!sl->dwfl || !max || !srcline_find(sl, vaddr, &file, &line))
		return 0;
	addr = sl->base + vaddr - sl->first_vaddr;
	cu = dwfl_module_addrdie(sl->mod, addr, &bias);
	if (!cu)
		return 0;
	/* dwarf_getscopes gives the innermost function-like scope holding the address, but
	 * above an inlined instance it goes on in the abstract tree (its definition), so the
	 * calls around it are the concrete parents of that DIE (dwarf_getscopes_die, as
	 * eu-addr2line -i). Each inlined instance is called from the scope around it at its
	 * DW_AT_call_file:DW_AT_call_line; the DW_TAG_subprogram that holds them ends the
	 * chain. */
	nscopes = dwarf_getscopes(cu, addr - bias, &scopes);
	for (int i = 0; i < nscopes; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram) {
			Dwarf_Die inner = scopes[i];

			free(scopes);
			scopes = NULL;
			nscopes = dwarf_getscopes_die(&inner, &scopes);
			break;
		}
		if (i == nscopes - 1)
			nscopes = 0;
	}
	dwarf_getsrcfiles(cu, &files, NULL);
	for (int i = 0; i < nscopes && n < max; i++) {
		Dwarf_Attribute at;
		Dwarf_Word v;
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		fr[n].func = scope_name(&scopes[i]);
		fr[n].file = file;
		fr[n].line = line;
		n++;
		if (tag == DW_TAG_subprogram)
			break;
		file = NULL;
		line = 0;
		if (files && dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &at), &v) == 0)
			file = dwarf_filesrc(files, v, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &at), &v) == 0)
			line = (unsigned)v;
	}
	free(scopes);
	return (int)n;
}

void srcline_close(struct srcline *sl)
{
	if (sl->dwfl)
		dwfl_end(sl->dwfl);
	memset(sl, 0, sizeof(*sl));
}
