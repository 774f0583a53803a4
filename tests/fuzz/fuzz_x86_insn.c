/* bytes -> pmt_x86_insn_len() in both modes, at every offset: the length never passes
 * the bytes given nor perf's 15 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "pmutrace/output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t at = 0; at < size; at++) {
		size_t n = size - at < 15 ? size - at : 15;

		for (int mode = 0; mode < 2; mode++) {
			int len = pmt_x86_insn_len(data + at, n, mode);

			if (len > (int)n || len < PMT_X86_INSN_REFUSED)
				abort();
		}
	}
	return 0;
}
