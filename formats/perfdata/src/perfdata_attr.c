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
		{ PMT_ATTR_TYPE, 4 }, { PMT_ATTR_SIZE, 4 }, { PMT_ATTR_CONFIG, 8 }, { PMT_ATTR_PERIOD, 8 },
		{ PMT_ATTR_SAMPLE_TYPE, 8 }, { PMT_ATTR_READ_FORMAT, 8 }, { PMT_ATTR_WAKEUP, 4 },
		{ PMT_ATTR_BP_TYPE, 4 }, { PMT_ATTR_CONFIG1, 8 }, { PMT_ATTR_CONFIG2, 8 },
		{ PMT_ATTR_BRANCH_SAMPLE_TYPE, 8 }, { PMT_ATTR_REGS_USER, 8 }, { PMT_ATTR_STACK_USER, 4 },
		{ PMT_ATTR_CLOCKID, 4 }, { PMT_ATTR_REGS_INTR, 8 }, { PMT_ATTR_AUX_WATERMARK, 4 },
		{ PMT_ATTR_MAX_STACK, 2 }, { PMT_ATTR_RESERVED2, 2 }, { PMT_ATTR_AUX_SAMPLE_SIZE, 4 },
		{ PMT_ATTR_RESERVED3, 4 }, { PMT_ATTR_SIG_DATA, 8 }, { PMT_ATTR_CONFIG3, 8 },
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
	if (size >= PMT_ATTR_FLAGS + 8) {
		/* a big-endian compiler numbers the bitfield from the top bit of the big-endian
		 * u64, so bit n lands in the same byte, mirrored: reverse the bits of each byte
		 * (perf's swap_bitfield) */
		for (int i = 0; i < 8; i++) {
			uint8_t b = a[PMT_ATTR_FLAGS + i], r = 0;

			for (int k = 0; k < 8; k++)
				if (b & (1u << k))
					r |= (uint8_t)(0x80u >> k);
			a[PMT_ATTR_FLAGS + i] = r;
		}
	}
}

void pmt_attr_init_spe(uint8_t *attr, uint32_t pmu_type, bool timed)
{
	uint64_t st = PMT_SAMPLE_IDENTIFIER | PMT_SAMPLE_IP | PMT_SAMPLE_TID | PMT_SAMPLE_CPU |
		      PMT_SAMPLE_DATA_SRC | PMT_SAMPLE_ADDR | PMT_SAMPLE_PERIOD |
		      PMT_SAMPLE_WEIGHT | PMT_SAMPLE_PHYS_ADDR | (timed ? PMT_SAMPLE_TIME : 0);
	uint64_t flags = PMT_ATTR_FLAG_SAMPLE_ID_ALL;
	uint64_t period = 4096, config = timed; /* config bit 0: ts_enable */

	memset(attr, 0, PMT_ATTR_SIZE_MAX);
	memcpy(attr + PMT_ATTR_TYPE, &pmu_type, 4);
	memcpy(attr + PMT_ATTR_CONFIG, &config, 8);
	memcpy(attr + PMT_ATTR_PERIOD, &period, 8);
	memcpy(attr + PMT_ATTR_SAMPLE_TYPE, &st, 8);
	memcpy(attr + PMT_ATTR_FLAGS, &flags, 8);
}
