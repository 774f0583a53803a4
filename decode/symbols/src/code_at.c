/* The bytes of a mapped file at a sample's address, as perf's thread__memcpy() reads the
 * instruction it decodes for script -F insnlen: each file mapped once, on first use. */
#include <string.h>

#include "symbols_state.h"
#include "pmutrace/symbols.h"

int pmt_symbols_code_at(struct pmt_symbols *s, const struct pmt_sym_loc *loc, uint8_t *buf,
			size_t cap, bool *is64)
{
	struct dso *d = (struct dso *)loc->dso_id;
	size_t n;

	(void)s;
	*is64 = false;
	/* perf reads nothing for [kernel.kallsyms] (no vmlinux given): the same 0 */
	if (!d || d->kernel || !d->code_path)
		return 0;
	if (!d->code_map_state)
		d->code_map_state = pmt_file_map(d->code_path, &d->code_map, NULL) == 0 ? 1 : -1;
	if (d->code_map_state < 0 || loc->map_ip >= d->code_map.size)
		return 0;
	n = d->code_map.size - loc->map_ip;
	if (n > cap)
		n = cap;
	memcpy(buf, d->code_map.data + loc->map_ip, n);
	/* e_ident[EI_CLASS]: ELFCLASS64 = 2 */
	*is64 = d->code_map.size > 4 && d->code_map.data[4] == 2;
	return (int)n;
}

int pmt_symbols_code_machine(struct pmt_symbols *s, const struct pmt_sym_loc *loc)
{
	struct dso *d = (struct dso *)loc->dso_id;
	const uint8_t *h;

	(void)s;
	if (!d || d->kernel || !d->code_path)
		return 0;
	if (!d->code_map_state)
		d->code_map_state = pmt_file_map(d->code_path, &d->code_map, NULL) == 0 ? 1 : -1;
	if (d->code_map_state < 0 || d->code_map.size < 20)
		return 0;
	h = d->code_map.data;
	/* e_machine in the file's byte order (e_ident[EI_DATA]: 1 little, 2 big endian) */
	return h[5] == 2 ? (h[18] << 8 | h[19]) : (h[19] << 8 | h[18]);
}
