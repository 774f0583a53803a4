/* report --c2c: perf c2c report's cache-to-cache tables from memory samples. Each sample's
 * data source (perf_mem_data_src, as perf's arm-spe.c fills it per MIDR) is classified as
 * perf's c2c_decode_stats() does (util/mem-events.c), the counts are summed per 64-byte
 * cache line of the data address, and a line is "shared" when it has HITM or peer loads.
 * The text is perf c2c report --stdio's, byte for byte, up to its Pareto section. */
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "pmutrace/output.h"
#include "pmutrace/perf_abi.h"

#define DISPLAY_LINE_LIMIT 0.001

#include "c2c_priv.h"

#define C2C_NAME(f) #f,
static const char *const stat_names[] = { C2C_FIELDS(C2C_NAME) };
#define C2C_NFIELDS (sizeof(stat_names) / sizeof(stat_names[0]))

void c2c_stats_add(struct c2c_stats *a, const struct c2c_stats *b)
{
	uint32_t *x = (uint32_t *)a;
	const uint32_t *y = (const uint32_t *)b;

	for (size_t i = 0; i < C2C_NFIELDS; i++)
		x[i] += y[i];
}

/* perf's c2c_decode_stats(): which counts one sample adds */
static void decode_stats(struct c2c_stats *st, uint64_t dsrc, uint64_t daddr, bool mapped,
			 int compat)
{
	uint64_t op = dsrc >> PMT_MEM_OP_SHIFT & 0x1f, lvl = dsrc >> PMT_MEM_LVL_SHIFT & 0x3fff;
	uint64_t snoop = dsrc >> PMT_MEM_SNOOP_SHIFT & 0x1f, lock = dsrc >> PMT_MEM_LOCK_SHIFT & 3;
	uint64_t remote = dsrc >> PMT_MEM_REMOTE_SHIFT & 1, snoopx = dsrc >> PMT_MEM_SNOOPX_SHIFT & 3;
	uint64_t blk = dsrc >> PMT_MEM_BLK_SHIFT & 7, hops = dsrc >> PMT_MEM_HOPS_SHIFT & 7;
	/* Power sets the remote bit for another core of the same node: remote only without
	 * hops, as perf reads it */
	bool mrem = remote && !hops;

	st->nr_entries++;
	if (lock & PMT_MEM_LOCK_LOCKED)
		st->locks++;
	if (blk & PMT_MEM_BLK_DATA)
		st->blk_data++;
	if (blk & PMT_MEM_BLK_ADDR)
		st->blk_addr++;
	if (op & PMT_MEM_OP_LOAD) {
		st->load++;
		if (!daddr) {
			st->ld_noadrs++;
			return;
		}
		if (lvl & PMT_MEM_LVL_HIT) {
			if (lvl & PMT_MEM_LVL_UNC)
				st->ld_uncache++;
			if (lvl & PMT_MEM_LVL_IO)
				st->ld_io++;
			if (lvl & PMT_MEM_LVL_LFB)
				st->ld_fbhit++;
			if (lvl & PMT_MEM_LVL_L1)
				st->ld_l1hit++;
			if (lvl & PMT_MEM_LVL_L2) {
				/* perf 7.3 (not 6.1) counts a modified line in a peer's L2 as a
				 * local HITM, as HiSilicon HIP12 reports it; the release between
				 * is not pinned: taken as 6.19, with HIP12's table */
				if ((snoop & PMT_MEM_SNOOP_HITM) && compat >= PMT_PERF_6_19)
					st->lcl_hitm++, st->tot_hitm++;
				else
					st->ld_l2hit++;
				if (snoopx & PMT_MEM_SNOOPX_PEER)
					st->lcl_peer++, st->tot_peer++;
			}
			if (lvl & PMT_MEM_LVL_L3) {
				if (snoop & PMT_MEM_SNOOP_HITM)
					st->lcl_hitm++, st->tot_hitm++;
				else
					st->ld_llchit++;
				if (snoopx & PMT_MEM_SNOOPX_PEER)
					st->lcl_peer++, st->tot_peer++;
			}
			if (lvl & PMT_MEM_LVL_LOC_RAM) {
				st->lcl_dram++;
				if (snoop & PMT_MEM_SNOOP_HIT)
					st->ld_shared++;
				else
					st->ld_excl++;
			}
			if ((lvl & (PMT_MEM_LVL_REM_RAM1 | PMT_MEM_LVL_REM_RAM2)) || mrem) {
				st->rmt_dram++;
				if (snoop & PMT_MEM_SNOOP_HIT)
					st->ld_shared++;
				else
					st->ld_excl++;
			}
		}
		if ((lvl & (PMT_MEM_LVL_REM_CCE1 | PMT_MEM_LVL_REM_CCE2)) || mrem) {
			if (snoop & PMT_MEM_SNOOP_HIT) {
				st->rmt_hit++;
			} else if (snoop & PMT_MEM_SNOOP_HITM) {
				st->rmt_hitm++, st->tot_hitm++;
			} else if (snoopx & PMT_MEM_SNOOPX_PEER) {
				st->rmt_hit++;
				st->rmt_peer++, st->tot_peer++;
			}
		}
		if (lvl & PMT_MEM_LVL_MISS)
			st->ld_miss++;
	} else if (op & PMT_MEM_OP_STORE) {
		st->store++;
		if (!daddr) {
			st->st_noadrs++;
			return;
		}
		if (lvl & PMT_MEM_LVL_HIT) {
			if (lvl & PMT_MEM_LVL_UNC)
				st->st_uncache++;
			if (lvl & PMT_MEM_LVL_L1)
				st->st_l1hit++;
		}
		if ((lvl & PMT_MEM_LVL_MISS) && (lvl & PMT_MEM_LVL_L1))
			st->st_l1miss++;
		if (lvl & PMT_MEM_LVL_NA)
			st->st_na++;
	} else {
		st->noparse++;
		return;
	}
	if (!mapped)
		st->nomap++;
}

int pmt_c2c_display_parse(const char *s)
{
	static const char *const names[] = { "tot", "lcl", "rmt", "peer" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -PMT_EPARSE;
}

/* perf's default: peer snoops on arm64 (its cores report no HITM), total HITMs elsewhere;
 * the recording's arch, or as perf this machine's when the trace does not say */
static int default_display(const struct pmt_trace_meta *m)
{
	struct utsname u;
	const char *arch = m ? m->arch : NULL;

	if (!arch && uname(&u) == 0)
		return strcmp(u.machine, "aarch64") && strcmp(u.machine, "arm64")
			       ? PMT_C2C_DISPLAY_TOT : PMT_C2C_DISPLAY_PEER;
	return arch && (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64"))
		       ? PMT_C2C_DISPLAY_PEER : PMT_C2C_DISPLAY_TOT;
}

int pmt_c2c_new(struct pmt_symbols *syms, const struct pmt_c2c_opts *o, struct pmt_c2c **out)
{
	struct pmt_c2c *c;

	*out = NULL;
	if (!o || !PMT_OPTS_HAS(o, display) || o->display > PMT_C2C_DISPLAY_PEER)
		return -PMT_EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -PMT_ENOMEM;
	c->syms = syms;
	c->compat = o->compat;
	c->meta = PMT_OPTS_HAS(o, meta) ? o->meta : NULL;
	c->display = o->display < 0 ? default_display(c->meta) : o->display;
	c->flags = PMT_OPTS_HAS(o, flags) ? o->flags : 0;
	c->node_info = PMT_OPTS_HAS(o, node_info) ? o->node_info : 0;
	if (c->node_info > 2) /* perf's -NNN prints what -NN does */
		c->node_info = 2;
	/* perf's cacheline_size() default, what Neoverse and x86 cores use; --double-cl for
	 * cores whose adjacent-line prefetch makes pairs of lines behave as one */
	c->cl_shift = c->flags & PMT_C2C_DOUBLE_CL ? 7 : 6;
	if (c2c_set_coalesce(c, PMT_OPTS_HAS(o, coalesce) && o->coalesce ? o->coalesce : "iaddr") < 0) {
		free(c);
		return -PMT_EPARSE;
	}
	if (c2c_set_nodes(c) < 0) {
		free(c);
		return -PMT_ENOMEM;
	}
	*out = c;
	return 0;
}

void pmt_c2c_free(struct pmt_c2c *c)
{
	if (!c)
		return;
	free(c->lines);
	free(c->slot);
	free(c->ents);
	free(c->eslot);
	free(c->node_cpus);
	free(c->node_cnt);
	free(c);
}

/* murmur3's finalizer: keys that differ in a few middle bits (code addresses, line
 * numbers) still spread over the table's low bits */
uint32_t c2c_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (uint32_t)k;
}

int c2c_grow_slots(const struct pmt_c2c *c, uint32_t **slot, uint32_t *nslot, uint32_t count,
		   uint64_t (*key)(const struct pmt_c2c *c, uint32_t i))
{
	uint32_t n = *nslot ? *nslot * 2 : 1024;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -PMT_ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t h = c2c_hash(key(c, i)) & (n - 1);

		while (s[h])
			h = (h + 1) & (n - 1);
		s[h] = i + 1;
	}
	free(*slot);
	*slot = s;
	*nslot = n;
	return 0;
}

static uint64_t key_hash(const struct c2c_line_key *k)
{
	return k->cl ^ (uint64_t)(uint32_t)k->pid << 40 ^ k->id.ino * 0x9e3779b97f4a7c15ULL ^
	       ((uint64_t)k->id.maj << 32 | k->id.min) ^ k->id.ino_generation ^
	       (uint64_t)k->kernel << 63 ^ (uint64_t)k->mapped << 62;
}

static bool key_eq(const struct c2c_line_key *a, const struct c2c_line_key *b)
{
	return a->cl == b->cl && a->pid == b->pid && a->kernel == b->kernel &&
	       a->mapped == b->mapped && a->id.maj == b->id.maj && a->id.min == b->id.min &&
	       a->id.ino == b->id.ino && a->id.ino_generation == b->id.ino_generation;
}

static uint64_t line_key(const struct pmt_c2c *c, uint32_t i)
{
	return key_hash(&c->lines[i].key);
}

static struct c2c_line *find_line(struct pmt_c2c *c, const struct c2c_line_key *k, uint64_t addr)
{
	uint32_t h;

	if ((c->nlines + 1) * 2 > c->nslot &&
	    c2c_grow_slots(c, &c->slot, &c->nslot, c->nlines, line_key) < 0)
		return NULL;
	for (h = c2c_hash(key_hash(k)) & (c->nslot - 1); c->slot[h]; h = (h + 1) & (c->nslot - 1))
		if (key_eq(&c->lines[c->slot[h] - 1].key, k))
			return &c->lines[c->slot[h] - 1];
	if (c->nlines == c->cap) {
		uint32_t cap = c->cap ? c->cap * 2 : 1024;
		struct c2c_line *l = realloc(c->lines, cap * sizeof(*l));

		if (!l)
			return NULL;
		c->lines = l;
		c->cap = cap;
	}
	c->slot[h] = c->nlines + 1;
	memset(&c->lines[c->nlines], 0, sizeof(c->lines[0]));
	c->lines[c->nlines].addr = addr >> c->cl_shift << c->cl_shift;
	c->lines[c->nlines].key = *k;
	return &c->lines[c->nlines++];
}

/* The sample's line key; *mapped: perf's nomap test, the data address and the code
 * address must both fall in a map */
static void line_key_of(struct pmt_c2c *c, const struct pmt_spe_sample *s,
			struct c2c_line_key *k, bool *mapped)
{
	struct pmt_sym_loc code, data;
	uint64_t al = s->addr;

	memset(k, 0, sizeof(*k));
	*mapped = false;
	/* perf's arm_spe_cpumode(): the instruction's address says kernel or user */
	k->kernel = s->ip >> 63;
	if (c->syms && pmt_symbols_resolve(c->syms, s->pid, s->addr, s->time, &data) >= 0 &&
	    data.dso) {
		k->mapped = 1;
		k->id = data.map_id;
		k->id.anon = 0;
		al = data.map_ip;
		if (!k->kernel && data.map_id.anon)
			k->pid = s->pid;
		*mapped = pmt_symbols_resolve(c->syms, s->pid, s->ip, s->time, &code) >= 0 &&
			  code.dso;
	}
	k->cl = al >> c->cl_shift << c->cl_shift;
}

int pmt_c2c_add(struct pmt_c2c *c, const struct pmt_spe_sample *s)
{
	struct c2c_stats st = { 0 };
	struct c2c_line_key key;
	struct c2c_line *l;
	struct c2c_ent *e;
	bool mapped;

	/* perf c2c synthesizes only SPE's memory samples (itrace_synth_opts.mem) */
	if (s->event != PMT_SPE_SE_MEMORY)
		return 0;
	line_key_of(c, s, &key, &mapped);
	decode_stats(&st, s->data_src, s->addr, mapped, c->compat);
	l = find_line(c, &key, s->addr);
	e = l ? c2c_find_ent(c, (uint32_t)(l - c->lines), s) : NULL;
	if (!e)
		return -PMT_ENOMEM;
	c2c_stats_add(&l->st, &st);
	c2c_stats_add(&c->total, &st);
	c2c_ent_add(c, e, &st, s);
	return 1;
}

/* ---- the tables --------------------------------------------------------------------- */
static uint32_t llc_misses(const struct c2c_stats *s)
{
	return s->lcl_dram + s->rmt_dram + s->rmt_hitm + s->rmt_hit;
}

static uint32_t cache_hits(const struct c2c_stats *s)
{
	return s->ld_fbhit + s->ld_l1hit + s->ld_l2hit + s->ld_llchit + s->lcl_hitm;
}

uint32_t c2c_records(const struct c2c_stats *s)
{
	return llc_misses(s) + cache_hits(s) + s->st_l1hit + s->st_l1miss + s->st_na;
}

/* the count the lines are sorted and filtered on */
uint32_t c2c_display_count(const struct c2c_stats *s, int display)
{
	switch (display) {
	case PMT_C2C_DISPLAY_LCL: return s->lcl_hitm;
	case PMT_C2C_DISPLAY_RMT: return s->rmt_hitm;
	case PMT_C2C_DISPLAY_PEER: return s->tot_peer;
	default: return s->tot_hitm;
	}
}

static const char *const display_names[] = { "Total HITMs", "Local HITMs", "Remote HITMs",
					      "Peer Snoop" };

static int display_g; /* qsort has no context: the display of the table being sorted */

#define CMP(a, b) do { if ((a) != (b)) return (a) < (b) ? -1 : 1; } while (0)
/* perf's output order: the display count, largest first; equal counts in the order of
 * its line tree (sort__dcacheline_cmp): kernel code first, unmapped data last, by device
 * and inode, process, then the line's address in the map */
static int line_cmp(const void *a, const void *b)
{
	const struct c2c_line *x = *(const struct c2c_line *const *)a;
	const struct c2c_line *y = *(const struct c2c_line *const *)b;
	const struct c2c_line_key *kx = &x->key, *ky = &y->key;
	uint32_t cx = c2c_display_count(&x->st, display_g), cy = c2c_display_count(&y->st, display_g);

	CMP(cy, cx);
	CMP(ky->kernel, kx->kernel);
	CMP(ky->mapped, kx->mapped);
	CMP(kx->id.maj, ky->id.maj);
	CMP(kx->id.min, ky->id.min);
	CMP(kx->id.ino, ky->id.ino);
	CMP(kx->id.ino_generation, ky->id.ino_generation);
	CMP(kx->pid, ky->pid);
	CMP(kx->cl, ky->cl);
	return 0;
}
#undef CMP

/* The shared lines (HITM or peer loads) and their summed counts, and the lines shown
 * (perf's he__display: at least 0.1% of the shared lines' display count), in order. */
static struct c2c_line **shown_lines(struct pmt_c2c *c, struct c2c_stats *shared,
				     uint32_t *nshared, uint32_t *nshown)
{
	struct c2c_line **v = malloc((c->nlines ? c->nlines : 1) * sizeof(*v));
	uint32_t n = 0, sum;

	memset(shared, 0, sizeof(*shared));
	*nshared = *nshown = 0;
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < c->nlines; i++) {
		const struct c2c_stats *s = &c->lines[i].st;

		if (s->lcl_hitm || s->rmt_hitm || s->lcl_peer || s->rmt_peer) {
			(*nshared)++;
			c2c_stats_add(shared, s);
		}
	}
	sum = c2c_display_count(shared, c->display);
	for (uint32_t i = 0; i < c->nlines; i++) {
		uint32_t val = c2c_display_count(&c->lines[i].st, c->display);

		if ((c->flags & PMT_C2C_SHOW_ALL) ||
		    (sum && (double)val / sum >= DISPLAY_LINE_LIMIT))
			v[n++] = &c->lines[i];
	}
	display_g = c->display;
	qsort(v, n, sizeof(*v), line_cmp);
	for (uint32_t i = 0; i < n; i++)
		v[i]->idx = i;
	*nshown = n;
	return v;
}

static void print_trace_info(struct pmt_out *o, const struct c2c_stats *s)
{
	static const char rule[] = "=================================================\n";
	int miss = (int)llc_misses(s);

	pmt_out_str(o, rule);
	pmt_out_str(o, "            Trace Event Information              \n");
	pmt_out_str(o, rule);
	pmt_out_printf(o, "  Total records                     : %10d\n", s->nr_entries);
	pmt_out_printf(o, "  Locked Load/Store Operations      : %10d\n", s->locks);
	pmt_out_printf(o, "  Load Operations                   : %10d\n", s->load);
	pmt_out_printf(o, "  Loads - uncacheable               : %10d\n", s->ld_uncache);
	pmt_out_printf(o, "  Loads - IO                        : %10d\n", s->ld_io);
	pmt_out_printf(o, "  Loads - Miss                      : %10d\n", s->ld_miss);
	pmt_out_printf(o, "  Loads - no mapping                : %10d\n", s->ld_noadrs);
	pmt_out_printf(o, "  Load Fill Buffer Hit              : %10d\n", s->ld_fbhit);
	pmt_out_printf(o, "  Load L1D hit                      : %10d\n", s->ld_l1hit);
	pmt_out_printf(o, "  Load L2D hit                      : %10d\n", s->ld_l2hit);
	pmt_out_printf(o, "  Load LLC hit                      : %10d\n", s->ld_llchit + s->lcl_hitm);
	pmt_out_printf(o, "  Load Local HITM                   : %10d\n", s->lcl_hitm);
	pmt_out_printf(o, "  Load Remote HITM                  : %10d\n", s->rmt_hitm);
	pmt_out_printf(o, "  Load Remote HIT                   : %10d\n", s->rmt_hit);
	pmt_out_printf(o, "  Load Local DRAM                   : %10d\n", s->lcl_dram);
	pmt_out_printf(o, "  Load Remote DRAM                  : %10d\n", s->rmt_dram);
	pmt_out_printf(o, "  Load MESI State Exclusive         : %10d\n", s->ld_excl);
	pmt_out_printf(o, "  Load MESI State Shared            : %10d\n", s->ld_shared);
	pmt_out_printf(o, "  Load LLC Misses                   : %10d\n", miss);
	pmt_out_printf(o, "  Load access blocked by data       : %10d\n", s->blk_data);
	pmt_out_printf(o, "  Load access blocked by address    : %10d\n", s->blk_addr);
	pmt_out_printf(o, "  Load HIT Local Peer               : %10d\n", s->lcl_peer);
	pmt_out_printf(o, "  Load HIT Remote Peer              : %10d\n", s->rmt_peer);
	/* perf divides by zero here when nothing missed: the same NaN text ("-nan" on x86) */
	pmt_out_printf(o, "  LLC Misses to Local DRAM          : %10.1f%%\n",
		       (double)s->lcl_dram / (double)miss * 100.);
	pmt_out_printf(o, "  LLC Misses to Remote DRAM         : %10.1f%%\n",
		       (double)s->rmt_dram / (double)miss * 100.);
	pmt_out_printf(o, "  LLC Misses to Remote cache (HIT)  : %10.1f%%\n",
		       (double)s->rmt_hit / (double)miss * 100.);
	pmt_out_printf(o, "  LLC Misses to Remote cache (HITM) : %10.1f%%\n",
		       (double)s->rmt_hitm / (double)miss * 100.);
	pmt_out_printf(o, "  Store Operations                  : %10d\n", s->store);
	pmt_out_printf(o, "  Store - uncacheable               : %10d\n", s->st_uncache);
	pmt_out_printf(o, "  Store - no mapping                : %10d\n", s->st_noadrs);
	pmt_out_printf(o, "  Store L1D Hit                     : %10d\n", s->st_l1hit);
	pmt_out_printf(o, "  Store L1D Miss                    : %10d\n", s->st_l1miss);
	pmt_out_printf(o, "  Store No available memory level   : %10d\n", s->st_na);
	pmt_out_printf(o, "  No Page Map Rejects               : %10d\n", s->nomap);
	pmt_out_printf(o, "  Unable to parse data source       : %10d\n", s->noparse);
}

static void print_shared_info(struct pmt_out *o, const struct c2c_stats *s, uint32_t nshared)
{
	static const char rule[] = "=================================================\n";

	pmt_out_str(o, rule);
	pmt_out_str(o, "    Global Shared Cache Line Event Information   \n");
	pmt_out_str(o, rule);
	pmt_out_printf(o, "  Total Shared Cache Lines          : %10d\n", nshared);
	pmt_out_printf(o, "  Load HITs on shared lines         : %10d\n", s->load);
	pmt_out_printf(o, "  Fill Buffer Hits on shared lines  : %10d\n", s->ld_fbhit);
	pmt_out_printf(o, "  L1D hits on shared lines          : %10d\n", s->ld_l1hit);
	pmt_out_printf(o, "  L2D hits on shared lines          : %10d\n", s->ld_l2hit);
	pmt_out_printf(o, "  LLC hits on shared lines          : %10d\n", s->ld_llchit + s->lcl_hitm);
	pmt_out_printf(o, "  Load hits on peer cache or nodes  : %10d\n", s->lcl_peer + s->rmt_peer);
	pmt_out_printf(o, "  Locked Access on shared lines     : %10d\n", s->locks);
	pmt_out_printf(o, "  Blocked Access on shared lines    : %10d\n", s->blk_data + s->blk_addr);
	pmt_out_printf(o, "  Store HITs on shared lines        : %10d\n", s->store);
	pmt_out_printf(o, "  Store L1D hits on shared lines    : %10d\n", s->st_l1hit);
	pmt_out_printf(o, "  Store No available memory level   : %10d\n", s->st_na);
	pmt_out_printf(o, "  Total Merged records              : %10d\n",
		       s->lcl_hitm + s->rmt_hitm + s->store);
}

/* perf's evsel names: the trace's events, then the memory event it synthesizes */
static void print_details(struct pmt_c2c *c, struct pmt_out *o)
{
	static const char rule[] = "=================================================\n";
	const char *first = "  Events";
	char name[256];

	pmt_out_str(o, rule);
	pmt_out_str(o, "                 c2c details                     \n");
	pmt_out_str(o, rule);
	for (uint32_t i = 0; c->meta && i < c->meta->nr_attrs; i++) {
		pmt_trace_event_name(c->meta, PMT_EV_ATTR(i), c->compat, name, sizeof(name));
		pmt_out_printf(o, "%-36s: %s\n", first, name);
		first = "";
	}
	pmt_out_printf(o, "%-36s: %s\n", first, pmt_spe_event_name(PMT_SPE_SE_MEMORY, c->compat));
	pmt_out_printf(o, "  Cachelines sort on                : %s\n", display_names[c->display]);
	pmt_out_printf(o, "  Cacheline data grouping           : offset,%s\n", c->coalesce);
}

/* perf's "%.2F%%" in the column's width */
static void put_pct(struct pmt_out *o, int width, uint32_t st, uint32_t tot)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%.2F%%", tot ? 100. * st / tot : 0.);
	pmt_out_printf(o, "  %*s", width, buf);
}

static void print_line_table(struct pmt_c2c *c, struct pmt_out *o, struct c2c_line **v,
			     uint32_t n)
{
	bool peer = c->display == PMT_C2C_DISPLAY_PEER;
	static const char *const pct_head[] = { "      Tot", "      Lcl", "      Rmt", "     Peer" };

	pmt_out_str(o, "#\n");
	pmt_out_printf(o, "#        %s%s  %s    Total    Total    Total"
		       "  --------- Stores --------  ----- Core Load Hit -----  - LLC Load Hit --"
		       "  - RMT Load Hit --  --- Load Dram ----\n",
		       c->cl_shift == 7 ? "------- Double-Cacheline -------" : "----------- Cacheline ----------",
		       pct_head[c->display],
		       peer ? "------- Load Peer -------" : "------- Load Hitm -------");
	pmt_out_printf(o, "# Index             Address  Node  PA cnt  %s  records    Loads"
		       "   Stores    L1Hit   L1Miss      N/A       FB       L1       L2    LclHit"
		       "  LclHitm    RmtHit  RmtHitm       Lcl       Rmt\n",
		       peer ? "  Snoop    Total    Local   Remote" : "   Hitm    Total  LclHitm  RmtHitm");
	pmt_out_str(o, "# .....  ..................  ....  ......  .......  .......  .......  ......."
		       "  .......  .......  .......  .......  .......  .......  .......  .......  ......."
		       "  ........  .......  ........  .......  ........  ........\n");
	pmt_out_str(o, "#\n");
	for (uint32_t i = 0; i < n; i++) {
		const struct c2c_stats *s = &v[i]->st;
		char addr[24];

		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)v[i]->addr);
		/* Node and PA cnt come from physical addresses placed by the recording's
		 * memory topology, which neither perf nor pmutrace finds in an SPE trace */
		pmt_out_printf(o, "  %5u  %18s  %4s  %6u", v[i]->idx, addr, "N/A", 0);
		put_pct(o, 7, c2c_display_count(s, c->display), c2c_display_count(&c->total, c->display));
		if (peer)
			pmt_out_printf(o, "  %7u  %7u  %7u", s->tot_peer, s->lcl_peer, s->rmt_peer);
		else
			pmt_out_printf(o, "  %7u  %7u  %7u", s->lcl_hitm + s->rmt_hitm, s->lcl_hitm,
				       s->rmt_hitm);
		pmt_out_printf(o, "  %7u  %7u  %7u  %7u  %7u  %7u  %7u  %7u  %7u  %8u  %7u  %8u"
			       "  %7u  %8u  %8u\n", c2c_records(s), llc_misses(s) + cache_hits(s),
			       s->store, s->st_l1hit, s->st_l1miss, s->st_na, s->ld_fbhit,
			       s->ld_l1hit, s->ld_l2hit, s->ld_llchit, s->lcl_hitm, s->rmt_hit,
			       s->rmt_hitm, s->lcl_dram, s->rmt_dram);
	}
}

static void print_text(struct pmt_c2c *c, struct pmt_out *o, struct c2c_line **v, uint32_t n,
		       const struct c2c_stats *shared, uint32_t nshared)
{
	static const char rule[] = "=================================================\n";

	print_trace_info(o, &c->total);
	pmt_out_char(o, '\n');
	print_shared_info(o, shared, nshared);
	pmt_out_char(o, '\n');
	print_details(c, o);
	if (c->flags & PMT_C2C_STATS_ONLY)
		return;
	pmt_out_char(o, '\n');
	pmt_out_str(o, rule);
	pmt_out_str(o, "           Shared Data Cache Line Table          \n");
	pmt_out_str(o, rule);
	print_line_table(c, o, v, n);
	pmt_out_char(o, '\n');
	pmt_out_str(o, rule);
	pmt_out_str(o, "      Shared Cache Line Distribution Pareto      \n");
	pmt_out_str(o, rule);
	pmt_out_str(o, "#\n");
	c2c_print_pareto(c, o, v, n);
}

/* the columns of a line, for CSV and JSON (perf's table, by its dimension names) */
#define LINE_COLS(X)                                                                     \
	X("tot_hitm", s->lcl_hitm + s->rmt_hitm) X("lcl_hitm", s->lcl_hitm)               \
	X("rmt_hitm", s->rmt_hitm) X("tot_peer", s->tot_peer) X("lcl_peer", s->lcl_peer)  \
	X("rmt_peer", s->rmt_peer) X("tot_recs", c2c_records(s))                              \
	X("tot_loads", llc_misses(s) + cache_hits(s)) X("tot_stores", s->store)           \
	X("stores_l1hit", s->st_l1hit) X("stores_l1miss", s->st_l1miss)                   \
	X("stores_na", s->st_na) X("ld_fbhit", s->ld_fbhit) X("ld_l1hit", s->ld_l1hit)    \
	X("ld_l2hit", s->ld_l2hit) X("ld_lclhit", s->ld_llchit) X("ld_rmthit", s->rmt_hit) \
	X("dram_lcl", s->lcl_dram) X("dram_rmt", s->rmt_dram)

static void print_csv(struct pmt_c2c *c, struct pmt_out *o, struct c2c_line **v, uint32_t n)
{
#define CSV_HEAD(name, val) pmt_out_str(o, "," name);
#define CSV_VAL(name, val) pmt_out_char(o, ','), pmt_out_u64(o, val);
	const struct c2c_stats *s;

	pmt_out_str(o, "index,cacheline,percent");
	LINE_COLS(CSV_HEAD)
	pmt_out_char(o, '\n');
	for (uint32_t i = 0; i < n; i++) {
		s = &v[i]->st;
		pmt_out_u64(o, v[i]->idx);
		pmt_out_str(o, ",0x");
		pmt_out_hex(o, v[i]->addr);
		pmt_out_char(o, ',');
		pmt_out_double(o, 100. * c2c_display_count(s, c->display) /
				  (c2c_display_count(&c->total, c->display) ? c2c_display_count(&c->total, c->display) : 1), 2);
		LINE_COLS(CSV_VAL)
		pmt_out_char(o, '\n');
	}
}

static void json_stats(struct pmt_out *o, const char *key, const struct c2c_stats *s)
{
	const uint32_t *x = (const uint32_t *)s;

	pmt_out_printf(o, "\"%s\":{", key);
	for (size_t i = 0; i < C2C_NFIELDS; i++)
		pmt_out_printf(o, "%s\"%s\":%u", i ? "," : "", stat_names[i], x[i]);
	pmt_out_char(o, '}');
}

static void print_json(struct pmt_c2c *c, struct pmt_out *o, struct c2c_line **v, uint32_t n,
		       const struct c2c_stats *shared, uint32_t nshared)
{
#define JSON_VAL(name, val) pmt_out_str(o, ",\"" name "\":"), pmt_out_u64(o, val);
	static const char *const keys[] = { "tot", "lcl", "rmt", "peer" };
	const struct c2c_stats *s;

	pmt_out_printf(o, "{\"display\":\"%s\",", keys[c->display]);
	json_stats(o, "total", &c->total);
	pmt_out_printf(o, ",\"shared_lines\":%u,", nshared);
	json_stats(o, "shared", shared);
	pmt_out_str(o, ",\"cachelines\":[");
	for (uint32_t i = 0; i < n; i++) {
		s = &v[i]->st;
		pmt_out_printf(o, "%s{\"index\":%u,\"cacheline\":\"0x%llx\",\"percent\":", i ? "," : "",
			       v[i]->idx, (unsigned long long)v[i]->addr);
		pmt_out_double(o, 100. * c2c_display_count(s, c->display) /
				  (c2c_display_count(&c->total, c->display) ? c2c_display_count(&c->total, c->display) : 1), 2);
		LINE_COLS(JSON_VAL)
		pmt_out_char(o, '}');
	}
	pmt_out_str(o, "]}\n");
}

int pmt_c2c_print(struct pmt_c2c *c, struct pmt_out *out, enum pmt_sink_format fmt)
{
	struct c2c_stats shared;
	uint32_t nshared, n;
	struct c2c_line **v = shown_lines(c, &shared, &nshared, &n);

	if (!v)
		return -PMT_ENOMEM;
	if (fmt == PMT_SINK_CSV)
		print_csv(c, out, v, n);
	else if (fmt == PMT_SINK_JSONL)
		print_json(c, out, v, n, &shared, nshared);
	else
		print_text(c, out, v, n, &shared, nshared);
	free(v);
	return 0;
}
