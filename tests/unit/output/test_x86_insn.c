/* pmt_x86_insn_len(): x86 instruction lengths as perf 7.3 on x86 measures them (the
 * kernel's decoder, through intel-pt's dump_insn() and arch_fetch_insn()), mostly on bytes
 * that are no x86 code: an AArch64 file read as x86, as perf does for a trace without an
 * arch header. Every expected value is what x86 perf 7.3.4 printed ("insn: ..." bytes or
 * "<bad>" in -F brstackinsn, "ilen: N" in -F insnlen) for those bytes in the AArch64 and
 * x86-64 symbol fixtures and in random bytes mapped as code (diff.brstackinsn73's traces). */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pmutrace/output.h"

struct vec {
	const char *why;
	uint8_t b[15];
	uint8_t n;
	int len;
};

static void check(const struct vec *v, size_t nv)
{
	for (size_t i = 0; i < nv; i++) {
		int got = pmt_x86_insn_len(v[i].b, v[i].n, true);

		if (got != v[i].len)
			fail_msg("%s: %d, perf 7.3 measures %d", v[i].why, got, v[i].len);
	}
}

static void test_valid_code(void **state)
{
	static const struct vec v[] = {
		{ "mov eax,[rip+disp32]", { 0x8b, 0x05, 0xfa, 0x34, 0, 0, 0x48 }, 7, 6 },
		{ "add esi,eax", { 0x01, 0xc6, 0x48 }, 3, 2 },
		{ "add [rax],al", { 0x00, 0x00, 0x48 }, 3, 2 },
		{ "rol [rbx],imm8", { 0xc0, 0x03, 0x5f, 0xd6 }, 4, 3 },
		{ "insb", { 0x6c, 0x03, 0x00, 0x00 }, 4, 1 },
	};

	(void)state;
	check(v, sizeof(v) / sizeof(v[0]));
}

static void test_kernel_decoder_rules(void **state)
{
	static const struct vec v[] = {
		/* opcodes invalid in 64-bit mode: the opcode alone, whatever the map's operands */
		{ "push es (i64)", { 0x06, 0, 0, 0, 0x04 }, 5, 1 },
		{ "grp1 82 (i64)", { 0x82, 0x04, 0x02, 0x8b }, 4, 1 },
		{ "call far (i64)", { 0x9a, 0, 0, 0, 0x12, 0, 0x09, 0 }, 8, 1 },
		{ "aam (i64)", { 0xd4, 0x04, 0, 0 }, 4, 1 },
		{ "REX then aam", { 0x46, 0xd4, 0x40, 0xf9 }, 4, 2 },
		/* one REX byte; a REX or prefix after it is the opcode */
		{ "REX REX", { 0x45, 0x44, 0x40, 0xf9 }, 4, 2 },
		{ "REX REX push", { 0x47, 0x4e, 0x55, 0x00 }, 4, 2 },
		/* after REX, C4 is LES with its ModRM, not VEX */
		{ "REX les", { 0x48, 0xc4, 0x40, 0xf9, 0xa5 }, 5, 4 },
		/* REX2 (APX): two bytes, then map 0 or 1 */
		{ "REX2 add", { 0xd5, 0x00, 0x00, 0x00, 0x00, 0x48 }, 6, 4 },
		{ "REX2 map1 UD0, no ModRM", { 0xd5, 0xff, 0xff, 0x97, 0xe4 }, 5, 3 },
		{ "REX2 map1 0F 7B, no entry", { 0xd5, 0xfd, 0x7b, 0xbf, 0xa9, 0xfd }, 6, 3 },
		{ "REX2 then a prefix", { 0xd5, 0x05, 0x65, 0x88, 0x4d, 0x47 }, 6, 3 },
		/* EVEX map 4 (APX's promoted legacy opcodes) */
		{ "EVEX map 4 add", { 0x62, 0x64, 0x40, 0xf9, 0x00, 0x00, 0x02 }, 7, 6 },
		{ "EVEX map 4 grp2 Ib, F2", { 0x62, 0x1c, 0xe3, 0x58, 0xc1, 0xc3, 0x36, 0x53 }, 8, 7 },
		/* 0F opcodes with no entry without a mandatory prefix: no ModRM */
		{ "0F 6C without 66", { 0x0f, 0x6c, 0x84, 0x59 }, 4, 2 },
		{ "0F 26", { 0x0f, 0x26, 0xef }, 3, 2 },
		/* VEX fields the kernel's decoder does not check */
		{ "VEX vvvv unused", { 0xc5, 0x59, 0x10, 0x9b, 0x0f, 0x9f, 0x94, 0xb3, 0xdb }, 9, 8 },
		{ "x87 reserved form", { 0xd9, 0x4c, 0x89, 0x0d, 0x24 }, 5, 4 },
	};

	(void)state;
	check(v, sizeof(v) / sizeof(v[0]));
}

static void test_refused_and_bad(void **state)
{
	static const struct vec v[] = {
		{ "VEX, 0F 85 takes none", { 0xc5, 0x04, 0x85, 0x8b, 0x46, 0x20 }, 6,
		  PMT_X86_INSN_REFUSED },
		{ "VEX3 map 5", { 0xc4, 0xc5, 0xff, 0xff, 0x70, 0x01 }, 6, PMT_X86_INSN_REFUSED },
		{ "EVEX map 4 40-4F", { 0x62, 0x04, 0x02, 0xca, 0x42, 0x00 }, 6,
		  PMT_X86_INSN_REFUSED },
		{ "EVEX map 4 Ev,Gv with F3", { 0x62, 0x5c, 0x2e, 0xc8, 0x21, 0x14, 0x34 }, 7,
		  PMT_X86_INSN_REFUSED },
		{ "XOP", { 0x8f, 0xfc, 0xff, 0x97, 0x73 }, 5, PMT_X86_INSN_REFUSED },
		{ "cut short", { 0x8b, 0x05, 0xfa }, 3, 0 },
		{ "nothing", { 0 }, 0, 0 },
	};

	(void)state;
	check(v, sizeof(v) / sizeof(v[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_code),
		cmocka_unit_test(test_kernel_decoder_rules),
		cmocka_unit_test(test_refused_and_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
