#include "perfdata_priv.h"

static void sw32(uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

static void sw64(uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	v = __builtin_bswap64(v);
	memcpy(p, &v, 8);
}

static void sw16(uint8_t *p)
{
	uint8_t t = p[0];

	p[0] = p[1];
	p[1] = t;
}

void pd_attr_swap(uint8_t *a, size_t size)
{
	static const struct { uint8_t off, width; } fields[] = {
		{ ATTR_TYPE, 4 }, { ATTR_SIZE, 4 }, { ATTR_CONFIG, 8 }, { ATTR_PERIOD, 8 },
		{ ATTR_SAMPLE_TYPE, 8 }, { ATTR_READ_FORMAT, 8 }, { ATTR_WAKEUP, 4 },
		{ ATTR_BP_TYPE, 4 }, { ATTR_CONFIG1, 8 }, { ATTR_CONFIG2, 8 },
		{ ATTR_BRANCH_SAMPLE_TYPE, 8 }, { ATTR_REGS_USER, 8 }, { ATTR_STACK_USER, 4 },
		{ ATTR_CLOCKID, 4 }, { ATTR_REGS_INTR, 8 }, { ATTR_AUX_WATERMARK, 4 },
		{ ATTR_MAX_STACK, 2 }, { ATTR_RESERVED2, 2 }, { ATTR_AUX_SAMPLE_SIZE, 4 },
		{ ATTR_RESERVED3, 4 }, { ATTR_SIG_DATA, 8 }, { ATTR_CONFIG3, 8 },
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		uint8_t *p = a + fields[i].off;

		if (fields[i].off + fields[i].width > size)
			continue;
		if (fields[i].width == 8)
			sw64(p);
		else if (fields[i].width == 4)
			sw32(p);
		else
			sw16(p);
	}
	if (size >= ATTR_FLAGS + 8) {
		/* a big-endian compiler numbers the bitfield from the top bit of the big-endian
		 * u64, so bit n lands in the same byte, mirrored: reverse the bits of each byte
		 * (perf's swap_bitfield) */
		for (int i = 0; i < 8; i++) {
			uint8_t b = a[ATTR_FLAGS + i], r = 0;

			for (int k = 0; k < 8; k++)
				if (b & (1u << k))
					r |= (uint8_t)(0x80u >> k);
			a[ATTR_FLAGS + i] = r;
		}
	}
}
