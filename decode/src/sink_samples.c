/* Sample sinks: perf-script-like text, CSV with a header row, JSON lines. */
#include "pmutrace/decode.h"

void pmt_spe_sink_init(struct pmt_spe_sink *k, struct pmt_out *out, enum pmt_sink_format fmt,
		       int compat, int show_time)
{
	memset(k, 0, sizeof(*k));
	k->out = out;
	k->fmt = fmt;
	k->compat = compat;
	k->show_time = (uint8_t)show_time;
	k->name_width = 20;
	for (unsigned ev = 0; ev < PMT_SPE_SE_COUNT; ev++) {
		struct pmt_out o = { .buf = k->head[ev], .cap = sizeof(k->head[ev]) };

		if (fmt == PMT_SINK_JSONL)
			pmt_out_str(&o, "{\"event\":");
		if (fmt == PMT_SINK_JSONL)
			pmt_out_json_str(&o, pmt_spe_event_name(ev, compat));
		else
			pmt_out_str(&o, pmt_spe_event_name(ev, compat));
		k->head_len[ev] = (uint8_t)o.len;
	}
}

/* n bytes from src in 32-byte blocks: the tails are ~100 bytes, and a fixed-size memcpy
 * compiles to a few vector moves where a variable one is a libc call */
static void out_blocks(struct pmt_out *o, const char *src, size_t n)
{
	char *dst;

	pmt_out_reserve(o, n + 32);
	dst = o->buf + o->len;
	for (size_t i = 0; i < n; i += 32)
		memcpy(dst + i, src + i, 32);
	o->len += n;
}

static const char csv_cols[] =
	"event,cpu,pid,tid,time,ip,addr,phys_addr,period,weight,issue_lat,xlat_lat,data_src,"
	"mem_op,mem_lvl,mem_snoop,mem_tlb,op,flags,offset\n";

void pmt_spe_sink_header(struct pmt_spe_sink *k)
{
	if (k->fmt != PMT_SINK_CSV)
		return;
	/* the brstack column exists only when branch stacks are made */
	pmt_out_mem(k->out, csv_cols, sizeof(csv_cols) - 2);
	pmt_out_str(k->out, k->brstack ? ",brstack\n" : "\n");
}

/* right-aligned field of width w */
static void pad_left(struct pmt_out *o, size_t len, size_t w)
{
	while (len < w) {
		pmt_out_char(o, ' ');
		len++;
	}
}

static size_t hexlen(uint64_t v)
{
	size_t n = 1;

	while (v >>= 4)
		n++;
	return n;
}

static size_t declen(uint64_t v)
{
	size_t n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void hex_w(struct pmt_out *o, uint64_t v, size_t w)
{
	pad_left(o, hexlen(v), w);
	pmt_out_hex(o, v);
}

static void dec_w(struct pmt_out *o, uint64_t v, size_t w)
{
	pad_left(o, declen(v), w);
	pmt_out_u64(o, v);
}

static const char *op_str(const struct pmt_spe_sample *s)
{
	uint32_t op = s->op;

	if (op & PMT_SPE_OP_F_LDST)
		return (op & PMT_SPE_OP_F_ST) ? "ST" : "LD";
	if (op & PMT_SPE_OP_F_BRANCH)
		return "BR";
	return (op & PMT_SPE_OP_F_OTHER) ? "OTHER" : "";
}

static void write_text(struct pmt_spe_sink *k, const struct pmt_spe_sample *s)
{
	struct pmt_out *o = k->out;
	const char *name = pmt_spe_event_name(s->event, k->compat);
	size_t nl = strlen(name);
	char dsrc[160];
	int dl;

	/* tid "%5d ", cpu "[%03d] " */
	if (s->tid < 0) {
		pmt_out_str(o, "   -1");
	} else {
		dec_w(o, (uint64_t)s->tid, 5);
	}
	pmt_out_str(o, " [");
	if (s->cpu < 10)
		pmt_out_str(o, "00");
	else if (s->cpu < 100)
		pmt_out_char(o, '0');
	pmt_out_u64(o, s->cpu);
	pmt_out_str(o, "] ");
	if (k->show_time) {
		/* perf: "%12s: " of secs.usecs (truncated) */
		uint64_t us = s->time / 1000;
		char t[40];
		int tl = snprintf(t, sizeof(t), "%llu.%06llu",
				  (unsigned long long)(us / 1000000),
				  (unsigned long long)(us % 1000000));

		pad_left(o, (size_t)tl, 12);
		pmt_out_str(o, t);
		pmt_out_str(o, ": ");
	}
	dec_w(o, s->period, 10);
	pmt_out_char(o, ' ');
	pad_left(o, nl, k->name_width);
	pmt_out_str(o, name);
	pmt_out_str(o, ": ");
	hex_w(o, s->addr, 16);
	/* perf 6.1 data_src__fprintf(): "%16llx %s" padded to the longest seen so far */
	pad_left(o, hexlen(s->data_src), 16);
	pmt_out_hex(o, s->data_src);
	pmt_out_char(o, ' ');
	dl = pmt_mem_data_src_str(s->data_src, k->compat, dsrc, sizeof(dsrc));
	pmt_out_mem(o, dsrc, (size_t)dl);
	dl += 17;
	if ((uint32_t)dl > k->dsrc_maxlen)
		k->dsrc_maxlen = (uint32_t)dl;
	while ((uint32_t)dl++ < k->dsrc_maxlen)
		pmt_out_char(o, ' ');
	dec_w(o, s->weight, 16);
	pmt_out_char(o, ' ');
	hex_w(o, s->ip, 16);
	hex_w(o, s->phys_addr, 16);
	if (k->brstack && s->brstack && s->brstack->nr) {
		/* perf_sample__fprintf_brstack(): " 0x..." per entry, each flags part ends
		 * in a space */
		char bs[PMT_SPE_BRSTACK_MAX * 96];
		int n = pmt_spe_brstack_str(s->brstack, "  ", bs, sizeof(bs));

		pmt_out_char(o, ' ');
		pmt_out_mem(o, bs, (size_t)n);
		pmt_out_char(o, ' ');
	}
	pmt_out_char(o, '\n');
}

/* The decoded data_src parts as CSV columns (empty when data_src is 0) or JSON keys,
 * formatted once per distinct consecutive value. */
static void mem_fields(struct pmt_spe_sink *k, struct pmt_out *dst, const struct pmt_spe_sample *s,
		       int json)
{
	static const char *const keys[4] = { ",\"mem_op\":", ",\"mem_lvl\":",
					      ",\"mem_snoop\":", ",\"mem_tlb\":" };
	struct pmt_out o;
	char buf[96];
	struct pmt_spe_dsrc_text *c = &k->dsrc[(s->data_src * 0x9e3779b97f4a7c15ULL) >> 60];

	if (c->valid && c->key == s->data_src) {
		pmt_out_mem(dst, c->text, c->len);
		return;
	}
	/* a tiny pmt_out over the cache entry: never flushed (fp NULL), 4 short fields */
	memset(&o, 0, sizeof(o));
	o.buf = c->text;
	o.cap = sizeof(c->text);
	for (int i = 0; i < 4; i++) {
		if (s->data_src) {
			switch (i) {
			case 0: pmt_mem_op_str(s->data_src, buf, 40); break;
			case 1: pmt_mem_lvl_str(s->data_src, k->compat, buf, 40); break;
			case 2: pmt_mem_snoop_str(s->data_src, buf, 40); break;
			default: pmt_mem_tlb_str(s->data_src, buf, 40); break;
			}
		}
		if (json) {
			if (!s->data_src)
				continue;
			pmt_out_str(&o, keys[i]);
			pmt_out_json_str(&o, buf);
		} else {
			if (s->data_src)
				pmt_out_csv_str(&o, buf);
			pmt_out_char(&o, ',');
		}
	}
	c->key = s->data_src;
	c->len = (uint16_t)o.len;
	c->valid = 1;
	pmt_out_mem(dst, c->text, c->len);
}

const char *pmt_branch_type_name(unsigned type)
{
	/* tools/perf/util/branch.c branch_type_name(), PERF_BR_* order */
	static const char *const names[16] = {
		"N/A", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL", "SYSRET",
		"COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "",
	};

	if (type == PMT_BR_UNKNOWN || type >= 16)
		return "";
	return names[type];
}

int pmt_spe_brstack_str(const struct pmt_spe_brstack *b, const char *sep, char *out,
			size_t cap)
{
	/* a never-flushed pmt_out over a local buffer: one entry is < 90 bytes */
	char tmp[PMT_SPE_BRSTACK_MAX * 128];
	struct pmt_out o;
	int len;

	if (!cap)
		return 0;
	memset(&o, 0, sizeof(o));
	o.buf = tmp;
	o.cap = sizeof(tmp);
	for (uint32_t i = 0; i < b->nr && i < PMT_SPE_BRSTACK_MAX; i++) {
		const struct pmt_branch_entry *e = &b->e[i];
		unsigned f = e->flags;

		if (i)
			pmt_out_str(&o, sep);
		pmt_out_0x(&o, e->from);
		pmt_out_char(&o, '/');
		pmt_out_0x(&o, e->to);
		pmt_out_char(&o, '/');
		/* bstack_event_str(): "-" without any of the three, else P or M, then N */
		if (!(f & (PMT_BRF_MISPRED | PMT_BRF_PREDICTED | PMT_BRF_NOT_TAKEN))) {
			pmt_out_char(&o, '-');
		} else {
			pmt_out_char(&o, (f & PMT_BRF_PREDICTED) ? 'P' : 'M');
			if (f & PMT_BRF_NOT_TAKEN)
				pmt_out_char(&o, 'N');
		}
		/* in_tx, abort (never set by SPE), cycles, type, spec (never set by SPE) */
		pmt_out_str(&o, (f & PMT_BRF_IN_TX) ? "/X/-/" : "/-/-/");
		pmt_out_u64(&o, e->cycles);
		pmt_out_char(&o, '/');
		pmt_out_str(&o, pmt_branch_type_name(e->type));
		pmt_out_str(&o, "/-");
	}
	len = (int)(o.len < cap ? o.len : cap - 1);
	memcpy(out, tmp, (size_t)len);
	out[len] = 0;
	return len;
}

static void csv_tail(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, struct pmt_out *o)
{
	char *p;

	/* 11 numbers of <= 20 chars and 4 hex of <= 18 with separators: < 320 bytes; the
	 * position stays in a register (o->len written once) */
	pmt_out_reserve(o, 320);
	p = o->buf + o->len;
	*p++ = ',';
	p = pmt_fmt_u64(p, s->cpu);
	*p++ = ',';
	p = pmt_fmt_i64(p, s->pid);
	*p++ = ',';
	p = pmt_fmt_i64(p, s->tid);
	*p++ = ',';
	p = pmt_fmt_u64(p, s->time);
	*p++ = ',';
	p = pmt_fmt_0x(p, s->ip);
	*p++ = ',';
	p = pmt_fmt_0x(p, s->addr);
	*p++ = ',';
	p = pmt_fmt_0x(p, s->phys_addr);
	*p++ = ',';
	p = pmt_fmt_u64(p, s->period);
	*p++ = ',';
	p = pmt_fmt_u64(p, s->weight);
	*p++ = ',';
	p = pmt_fmt_u64(p, s->issue_lat);
	*p++ = ',';
	p = pmt_fmt_u64(p, s->xlat_lat);
	*p++ = ',';
	p = pmt_fmt_0x(p, s->data_src);
	*p++ = ',';
	o->len = (size_t)(p - o->buf);
	mem_fields(k, o, s, 0);
	pmt_out_str(o, op_str(s));
	pmt_out_reserve(o, 40);
	p = o->buf + o->len;
	*p++ = ',';
	p = pmt_fmt_0x(p, s->flags);
	*p++ = ',';
	p = pmt_fmt_0x(p, s->rec ? s->rec->offset : 0);
	o->len = (size_t)(p - o->buf);
	if (k->brstack) {
		char bs[2 * 96];
		int n = s->brstack ? pmt_spe_brstack_str(s->brstack, " ", bs, sizeof(bs)) : 0;

		pmt_out_char(o, ',');
		pmt_out_mem(o, bs, (size_t)n);
	}
	pmt_out_char(o, '\n');
}

static void json_hex(struct pmt_out *o, const char *key, uint64_t v)
{
	pmt_out_str(o, key);
	pmt_out_str(o, "\"0x");
	pmt_out_hex(o, v);
	pmt_out_char(o, '"');
}

static void json_u64(struct pmt_out *o, const char *key, uint64_t v)
{
	pmt_out_str(o, key);
	pmt_out_u64(o, v);
}

static void json_i64(struct pmt_out *o, const char *key, int64_t v)
{
	pmt_out_str(o, key);
	pmt_out_i64(o, v);
}

static void json_brstack(struct pmt_out *o, const struct pmt_spe_brstack *b)
{
	pmt_out_str(o, ",\"brstack\":[");
	for (uint32_t i = 0; i < b->nr && i < PMT_SPE_BRSTACK_MAX; i++) {
		const struct pmt_branch_entry *e = &b->e[i];

		pmt_out_str(o, i ? ",{" : "{");
		json_hex(o, "\"from\":", e->from);
		json_hex(o, ",\"to\":", e->to);
		pmt_out_str(o, (e->flags & PMT_BRF_MISPRED) ? ",\"mispred\":true" :
							      ",\"mispred\":false");
		pmt_out_str(o, (e->flags & PMT_BRF_PREDICTED) ? ",\"predicted\":true" :
								",\"predicted\":false");
		pmt_out_str(o, (e->flags & PMT_BRF_NOT_TAKEN) ? ",\"not_taken\":true" :
								",\"not_taken\":false");
		pmt_out_str(o, (e->flags & PMT_BRF_IN_TX) ? ",\"in_tx\":true" :
							    ",\"in_tx\":false");
		json_u64(o, ",\"cycles\":", e->cycles);
		pmt_out_str(o, ",\"type\":");
		pmt_out_json_str(o, e->type == PMT_BR_UNKNOWN ? "N/A" : pmt_branch_type_name(e->type));
		pmt_out_char(o, '}');
	}
	pmt_out_char(o, ']');
}

static void json_tail(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, struct pmt_out *o)
{
	json_u64(o, ",\"cpu\":", s->cpu);
	json_i64(o, ",\"pid\":", s->pid);
	json_i64(o, ",\"tid\":", s->tid);
	json_u64(o, ",\"time\":", s->time);
	json_hex(o, ",\"ip\":", s->ip);
	json_hex(o, ",\"addr\":", s->addr);
	json_hex(o, ",\"phys_addr\":", s->phys_addr);
	json_u64(o, ",\"period\":", s->period);
	json_u64(o, ",\"weight\":", s->weight);
	json_u64(o, ",\"issue_lat\":", s->issue_lat);
	json_u64(o, ",\"xlat_lat\":", s->xlat_lat);
	json_hex(o, ",\"data_src\":", s->data_src);
	mem_fields(k, o, s, 1);
	pmt_out_str(o, ",\"op\":\"");
	pmt_out_str(o, op_str(s));
	pmt_out_char(o, '"');
	json_hex(o, ",\"flags\":", s->flags);
	json_hex(o, ",\"offset\":", s->rec ? s->rec->offset : 0);
	if (k->brstack && s->brstack)
		json_brstack(o, s->brstack);
	pmt_out_str(o, "}\n");
}

static int same_tail(const struct pmt_spe_sample *a, const struct pmt_spe_sample *b)
{
	return a->cpu == b->cpu && a->pid == b->pid && a->tid == b->tid &&
	       a->flags == b->flags && a->op == b->op && a->time == b->time &&
	       a->ip == b->ip && a->addr == b->addr && a->phys_addr == b->phys_addr &&
	       a->period == b->period && a->weight == b->weight &&
	       a->data_src == b->data_src && a->issue_lat == b->issue_lat &&
	       a->xlat_lat == b->xlat_lat && a->brstack == b->brstack;
}

/* The columns after the event name, formatted once per distinct consecutive sample tail
 * into k->tail (a never-flushed pmt_out over it: a tail is < 600 bytes). */
static void write_tail(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, int json)
{
	uint64_t off = s->rec ? s->rec->offset : 0;

	if (!k->tail_valid || k->last_offset != off || !same_tail(&k->last, s)) {
		struct pmt_out t;

		memset(&t, 0, sizeof(t));
		t.buf = k->tail;
		t.cap = sizeof(k->tail);
		if (json)
			json_tail(k, s, &t);
		else
			csv_tail(k, s, &t);
		k->tail_len = (uint16_t)t.len;
		k->tail_valid = 1;
		k->last = *s;
		k->last_offset = off;
	}
	out_blocks(k->out, k->tail, k->tail_len);
}

/* CSV and JSONL: the event's precomputed head, then the tail */
static void write_row(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, int json)
{
	if (s->event < PMT_SPE_SE_COUNT) {
		out_blocks(k->out, k->head[s->event], k->head_len[s->event]);
	} else if (json) {
		pmt_out_str(k->out, "{\"event\":\"unknown\"");
	} else {
		pmt_out_str(k->out, "unknown");
	}
	write_tail(k, s, json);
}

void pmt_spe_sink_write(struct pmt_spe_sink *k, const struct pmt_spe_sample *s)
{
	k->nsamples++;
	switch (k->fmt) {
	case PMT_SINK_TEXT: write_text(k, s); break;
	case PMT_SINK_CSV: write_row(k, s, 0); break;
	case PMT_SINK_JSONL: write_row(k, s, 1); break;
	}
}
