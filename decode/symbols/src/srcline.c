/* Source lines of addresses (libdw): the file and line of the DWARF line table row that
 * holds an address, as addr2line gives it. One Dwfl per file, opened when first asked. */
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

void srcline_close(struct srcline *sl)
{
	if (sl->dwfl)
		dwfl_end(sl->dwfl);
	memset(sl, 0, sizeof(*sl));
}
