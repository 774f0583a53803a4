/* x86 instruction lengths as perf measures them: the kernel's instruction decoder
 * (tools/arch/x86/lib/insn.c, through intel-pt's dump_insn() and arch_fetch_insn()), which
 * perf on an x86 host also runs over another arch's bytes. Zydis decodes valid code the
 * same; where they part (bytes that are not valid x86, as an arm64 file's are) the
 * kernel's decoder is permissive: it takes one REX byte and then any byte as the opcode,
 * and measures an opcode it has no entry for, or one invalid in 64-bit mode, by its
 * opcode map's operands (no ModRM, no immediate when the map has no entry). Those rules
 * are kept here, around Zydis. */
#include <string.h>
#include <Zydis/Zydis.h>

#include "sink_priv.h"

enum {
	M = 0x10,  /* has a ModRM byte */
	IB = 1,    /* imm8 */
	IW = 2,    /* imm16 */
	IZ = 3,    /* imm16/32 by operand size */
	IV = 4,    /* imm16/32/64 by operand size */
	IA = 5,    /* far pointer: imm16/32 + selector */
	IO = 6,    /* memory offset: address size */
	IWB = 7,   /* imm16 + imm8 (enter) */
	IG3 = 8,   /* imm by operand size for ModRM.reg 0 and 1 (group 3 test) */
};

/* the one-byte opcode map's operands (x86-opcode-map.txt), opcodes invalid in 64-bit mode
 * included, as the kernel's decoder measures them */
static const uint8_t one_byte[256] = {
	/* 00 */ M, M, M, M, IB, IZ, 0, 0, M, M, M, M, IB, IZ, 0, 0,
	/* 10 */ M, M, M, M, IB, IZ, 0, 0, M, M, M, M, IB, IZ, 0, 0,
	/* 20 */ M, M, M, M, IB, IZ, 0, 0, M, M, M, M, IB, IZ, 0, 0,
	/* 30 */ M, M, M, M, IB, IZ, 0, 0, M, M, M, M, IB, IZ, 0, 0,
	/* 40 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 50 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 60 */ 0, 0, M, M, 0, 0, 0, 0, IZ, M | IZ, IB, M | IB, 0, 0, 0, 0,
	/* 70 */ IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB, IB,
	/* 80 */ M | IB, M | IZ, M | IB, M | IB, M, M, M, M, M, M, M, M, M, M, M, M,
	/* 90 */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, IA, 0, 0, 0, 0, 0,
	/* a0 */ IO, IO, IO, IO, 0, 0, 0, 0, IB, IZ, 0, 0, 0, 0, 0, 0,
	/* b0 */ IB, IB, IB, IB, IB, IB, IB, IB, IV, IV, IV, IV, IV, IV, IV, IV,
	/* c0 */ M | IB, M | IB, IW, 0, M, M, M | IB, M | IZ, IWB, 0, IW, 0, 0, IB, 0, 0,
	/* d0 */ M, M, M, M, IB, IB, 0, 0, M, M, M, M, M, M, M, M,
	/* e0 */ IB, IB, IB, IB, IB, IB, IB, IB, IZ, IZ, IA, IB, 0, 0, 0, 0,
	/* f0 */ 0, 0, 0, 0, 0, 0, M | IG3, M | IG3, 0, 0, 0, 0, 0, 0, M, M,
};

static bool legacy_prefix(uint8_t b)
{
	return b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x64 || b == 0x65 ||
	       b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3;
}

/* opcodes the map marks (i64): the kernel's decoder drops their operands in 64-bit mode */
static bool invalid64(uint8_t op)
{
	static const uint8_t ops[] = { 0x06, 0x07, 0x0e, 0x16, 0x17, 0x1e, 0x1f, 0x27, 0x2f,
				       0x37, 0x3f, 0x60, 0x61, 0x82, 0x9a, 0xce, 0xd4, 0xea };

	return memchr(ops, op, sizeof(ops)) != NULL;
}

/* the 0F map's opcodes that take a VEX or EVEX prefix (SSE and mask register forms) */
static bool vex_0f(uint8_t op)
{
	return (op >= 0x10 && op <= 0x17) || (op >= 0x28 && op <= 0x2f) ||
	       (op >= 0x41 && op <= 0x4b) || (op >= 0x50 && op <= 0x7f) ||
	       (op >= 0x90 && op <= 0x93) || op == 0x98 || op == 0x99 || op == 0xae ||
	       op == 0xc2 || (op >= 0xc4 && op <= 0xc6) || op >= 0xd0;
}

/* EVEX map 4 (APX): the legacy opcodes it promotes, with their operands; 0xff: no entry */
static uint8_t map4(uint8_t op)
{
	static const uint8_t modrm_only[] = { 0x60, 0x61, 0x65, 0x66, 0x88, 0x8f, 0xa5, 0xad,
					      0xaf, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xf8, 0xf9 };
	static const uint8_t as_map0[] = { 0x80, 0x81, 0x83, 0xc0, 0xc1, 0xd0, 0xd1, 0xd2,
					   0xd3, 0xf6, 0xf7, 0xfe, 0xff };

	if (op < 0x34 && (op & 7) < 4)
		return M; /* ADD, OR, ADC, SBB, AND, SUB, XOR: the ModRM forms */
	if (op == 0x24 || op == 0x2c || op == 0x6b)
		return M | IB; /* SHLD, SHRD, IMUL Ib */
	if (op == 0x69)
		return M | IZ;
	if (memchr(modrm_only, op, sizeof(modrm_only)))
		return M;
	if (memchr(as_map0, op, sizeof(as_map0)))
		return one_byte[op];
	return 0xff;
}

/* 0F xx: no ModRM (system and branch opcodes, and those the map has no entry for) */
static uint8_t two_byte(uint8_t op)
{
	switch (op) {
	case 0x04: case 0x05: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0a:
	case 0x0b: case 0x0c: case 0x0e: case 0x30: case 0x31: case 0x32: case 0x33:
	case 0x34: case 0x35: case 0x36: case 0x37: case 0x39: case 0x3b: case 0x3c:
	case 0x3d: case 0x3e: case 0x3f: case 0x77: case 0xa0: case 0xa1: case 0xa2:
	case 0xa6: case 0xa7: case 0xa8: case 0xa9: case 0xaa:
	/* no entry without a 66, F3 or F2 prefix (Zydis refused it, so there was none) */
	case 0x24: case 0x25: case 0x26: case 0x27: case 0x6c: case 0x6d: case 0x7c:
	case 0x7d: case 0xd0: case 0xd6: case 0xe6: case 0xf0:
		return 0;
	case 0x70: case 0x71: case 0x72: case 0x73: case 0xa4: case 0xac: case 0xba:
	case 0xc2: case 0xc4: case 0xc5: case 0xc6:
		return M | IB;
	default:
		if (op >= 0x80 && op <= 0x8f)
			return IZ;
		if (op >= 0xc8 && op <= 0xcf)
			return 0;
		return M;
	}
}

/* ModRM, SIB and displacement bytes at b (n left); 0 when they do not fit */
static unsigned modrm_len(const uint8_t *b, size_t n, unsigned addr_bytes)
{
	unsigned mod, rm, len = 1;

	if (n < 1)
		return 0;
	mod = b[0] >> 6;
	rm = b[0] & 7;
	if (addr_bytes == 2) {
		len += mod == 1 ? 1 : mod == 2 ? 2 : (mod == 0 && rm == 6) ? 2 : 0;
		return len <= n ? len : 0;
	}
	if (mod != 3 && rm == 4) {
		if (n < 2)
			return 0;
		len++;
		if (mod == 0 && (b[1] & 7) == 5)
			len += 4;
	}
	len += mod == 1 ? 1 : mod == 2 ? 4 : (mod == 0 && rm == 5) ? 4 : 0;
	return len <= n ? len : 0;
}

/* The kernel decoder's length from its opcode map, for what Zydis refuses; 0: bad */
static int map_len(const uint8_t *b, size_t n, unsigned at, bool is64, unsigned opnd,
			unsigned addr, bool rex_w)
{
	unsigned attr, len, imm = 0;
	uint8_t op = b[at];
	const bool after_rex = is64 && at && (b[at - 1] & 0xf0) == 0x40;

	/* EVEX map 4 (APX: the one-byte map's opcodes promoted), measured by that map */
	if (op == 0x62 && is64 && !after_rex && at + 4 < n && (b[at + 1] & 7) == 4) {
		/* the Ev,Gv forms have a 66 variant and none for F3 or F2 */
		if ((b[at + 2] & 2) && b[at + 4] < 0x34 && (b[at + 4] & 1))
			return PMT_X86_INSN_REFUSED;
		at += 4;
		op = b[at];
		attr = map4(op);
		if (attr == 0xff)
			return PMT_X86_INSN_REFUSED;
		goto operands;
	}
	/* VEX, EVEX and XOP that Zydis refused: the kernel's decoder refuses them too;
	 * after a REX byte C4/C5/62 are LES/LDS/BOUND again, with their ModRM */
	if ((op == 0xc4 || op == 0xc5 || op == 0x62) && !after_rex &&
	    (is64 || (at + 1 < n && (b[at + 1] & 0xc0) == 0xc0)))
		return PMT_X86_INSN_REFUSED;
	if (op == 0x8f && at + 1 < n && (b[at + 1] & 0x38))
		return PMT_X86_INSN_REFUSED;
	if (op == 0x0f) {
		if (++at >= n)
			return 0;
		op = b[at];
		if (op == 0x38 || op == 0x3a) {
			/* three-byte maps: what Zydis refuses has no entry here either */
			return at + 2 <= n ? at + 2 : 0;
		}
		attr = two_byte(op);
	} else if (is64 && invalid64(op)) {
		attr = 0; /* measured as the opcode alone */
	} else {
		attr = one_byte[op];
	}
operands:
	len = at + 1;
	if (attr & M) {
		unsigned m = modrm_len(b + len, n - len, addr);

		if (!m)
			return 0;
		if ((attr & 0xf) == IG3 && ((b[len] >> 3) & 7) > 1)
			attr &= ~0xfu;
		len += m;
	}
	switch (attr & 0xf) {
	case IB: imm = 1; break;
	case IW: imm = 2; break;
	case IZ: case IG3: imm = opnd == 2 ? 2 : 4; break;
	case IV: imm = rex_w ? 8 : opnd; break;
	case IA: imm = (opnd == 2 ? 2 : 4) + 2; break;
	case IO: imm = addr; break;
	case IWB: imm = 3; break;
	}
	len += imm;
	return len <= n ? (int)len : 0;
}

int pmt_x86_insn_len(const uint8_t *b, size_t n, bool is64)
{
	uint8_t copy[16];
	unsigned at = 0, distinct = 0, opnd = 4, addr = is64 ? 8 : 4;
	uint8_t seen[4];
	bool rex_w = false, lock = false;
	ZydisDecoder dec;
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction insn;

	if (n > 15)
		n = 15; /* MAX_INSN_SIZE */
	/* legacy prefixes: a repeated one is skipped, a fifth distinct one ends them */
	while (at < n && legacy_prefix(b[at])) {
		bool again = memchr(seen, b[at], distinct) != NULL;

		/* the kernel's decoder then takes that fifth prefix as the opcode */
		if (!again && distinct == 4)
			return at + 1;
		if (!again)
			seen[distinct++] = b[at];
		opnd = b[at] == 0x66 ? 2 : opnd;
		addr = b[at] == 0x67 ? (is64 ? 4 : 2) : addr;
		lock |= b[at] == 0xf0;
		at++;
	}
	if (at >= n)
		return 0;
	if (is64 && b[at] == 0xd5 && at + 2 < n) {
		/* REX2 (APX): two bytes, then an opcode of map 0 or, with M0, map 1 (0F) */
		unsigned lead = 0;
		int got;

		/* a prefix as map 0's opcode: the opcode alone, as after REX */
		if (!(b[at + 1] & 0x80) &&
		    ((b[at + 2] & 0xf0) == 0x40 || legacy_prefix(b[at + 2])))
			return (int)at + 3;
		if (b[at + 1] & 0x08)
			copy[lead++] = 0x48; /* REX2.W as REX.W, for Zydis */
		if (b[at + 1] & 0x80)
			copy[lead++] = 0x0f;
		memcpy(copy + lead, b + at + 2, n - at - 2);
		got = pmt_x86_insn_len(copy, n - at - 2 + lead, true);
		if (got == PMT_X86_INSN_REFUSED)
			return got;
		return got > (int)lead ? (int)(at + 2 + (unsigned)got - lead) : 0;
	}
	if (is64 && (b[at] & 0xf0) == 0x40) {
		rex_w = b[at] & 8;
		if (rex_w)
			opnd = 8;
		/* one REX byte; a prefix or REX after it is the opcode (no operands) */
		if (++at >= n)
			return 0;
		if ((b[at] & 0xf0) == 0x40 || legacy_prefix(b[at]))
			return (int)at + 1;
	}
	/* 0F FF (UD0), 0F 7A and 0F 7B (AMD's old SSE5): the kernel's map gives them no
	 * ModRM (no entry for the last two), Zydis does */
	if (at + 1 < n && b[at] == 0x0f && (b[at + 1] == 0xff || b[at + 1] == 0x7a ||
					   b[at + 1] == 0x7b))
		return (int)at + 2;
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, is64 ? ZYDIS_MACHINE_MODE_LONG_64
						     : ZYDIS_MACHINE_MODE_LEGACY_32,
					   is64 ? ZYDIS_STACK_WIDTH_64 : ZYDIS_STACK_WIDTH_32)))
		return 0;
	if (ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, &ctx, b, n, &insn)))
		return (int)insn.length;
	/* the kernel's decoder does not check where a lock prefix may go: measure the
	 * instruction without it (a DS override has the same length and no rule) */
	if (lock) {
		memcpy(copy, b, n);
		for (unsigned i = 0; i < at; i++)
			copy[i] = copy[i] == 0xf0 ? 0x3e : copy[i];
		if (ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, &ctx, copy, n, &insn)))
			return (int)insn.length;
	}
	/* nor does it check VEX and EVEX fields that select no length: the unused register
	 * (vvvv), the vector length, EVEX's fixed bits, register-only ModRM forms */
	if (at + 3 < n && (is64 || (b[at + 1] & 0xc0) == 0xc0) &&
	    (b[at] == 0xc4 || b[at] == 0xc5 || b[at] == 0x62)) {
		const unsigned vex = b[at] == 0xc5 ? at + 1 : at + 2;
		const unsigned op = b[at] == 0xc5 ? at + 2 : b[at] == 0xc4 ? at + 3 : at + 4;
		const unsigned map = b[at] == 0xc5 ? 1 : b[at] == 0xc4 ? (b[at + 1] & 0x1f)
							: (b[at + 1] & 7);

		if (op >= n || (map == 1 && !vex_0f(b[op])))
			return map_len(b, n, at, is64, opnd, addr, rex_w);

		/* pass bit 0: vector length 0; bit 1: the register form of ModRM, measured
		 * with the real ModRM's bytes */
		for (int pass = 0; pass < 4 && op + 1 < n; pass++) {
			unsigned m;

			memcpy(copy, b, n);
			copy[vex] |= 0x78;
			if (b[at] == 0x62) {
				copy[at + 1] &= ~0x08;
				copy[at + 2] |= 0x04;
				copy[at + 3] |= 0x08;
			}
			if (pass & 1) {
				if (b[at] == 0x62)
					copy[at + 3] &= 0x9f;
				else
					copy[vex] &= ~0x04;
			}
			if (pass & 2)
				copy[op + 1] |= 0xc0;
			if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, &ctx, copy, n, &insn)))
				continue;
			if (!(pass & 2))
				return (int)insn.length;
			m = modrm_len(b + op + 1, n - op - 1, addr);
			return m && insn.length - 1 + m <= n ? (int)(insn.length - 1 + m) : 0;
		}
	}
	return map_len(b, n, at, is64, opnd, addr, rex_w);
}
