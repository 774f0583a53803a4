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
}

static const char csv_cols[] =
	"event,cpu,pid,tid,time,ip,addr,phys_addr,period,weight,issue_lat,xlat_lat,data_src,"
	"mem_op,mem_lvl,mem_snoop,mem_tlb,op,flags,offset\n";

void pmt_spe_sink_header(struct pmt_spe_sink *k)
{
	if (k->fmt == PMT_SINK_CSV)
		pmt_out_str(k->out, csv_cols);
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

/* Tails are formatted into a local buffer with these pointer-based writers: pmt_out_u64
 * and pmt_out_hex store o->len per character (the char stores may alias it), which made
 * number formatting a third of `script --csv`. */
static char *put_dec(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_dec(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_dec(p, (uint64_t)v);
}

static char *put_0x(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;

	*p++ = '0';
	*p++ = 'x';
	for (int i = n - 1; i >= 0; i--)
		p[i] = digits[v & 0xf], v >>= 4;
	return p + n;
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

static void csv_tail(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, struct pmt_out *o)
{
	/* 11 numbers of <= 20 chars and 4 hex of <= 18 with separators: < 320 bytes */
	char *p = o->buf + o->len;

	*p++ = ',';
	p = put_dec(p, s->cpu);
	*p++ = ',';
	p = put_i64(p, s->pid);
	*p++ = ',';
	p = put_i64(p, s->tid);
	*p++ = ',';
	p = put_dec(p, s->time);
	*p++ = ',';
	p = put_0x(p, s->ip);
	*p++ = ',';
	p = put_0x(p, s->addr);
	*p++ = ',';
	p = put_0x(p, s->phys_addr);
	*p++ = ',';
	p = put_dec(p, s->period);
	*p++ = ',';
	p = put_dec(p, s->weight);
	*p++ = ',';
	p = put_dec(p, s->issue_lat);
	*p++ = ',';
	p = put_dec(p, s->xlat_lat);
	*p++ = ',';
	p = put_0x(p, s->data_src);
	*p++ = ',';
	o->len = (size_t)(p - o->buf);
	mem_fields(k, o, s, 0);
	p = o->buf + o->len;
	p = put_str(p, op_str(s));
	*p++ = ',';
	p = put_0x(p, s->flags);
	*p++ = ',';
	p = put_0x(p, s->rec ? s->rec->offset : 0);
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
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
	pmt_out_str(o, "}\n");
}

static int same_tail(const struct pmt_spe_sample *a, const struct pmt_spe_sample *b)
{
	return a->cpu == b->cpu && a->pid == b->pid && a->tid == b->tid &&
	       a->flags == b->flags && a->op == b->op && a->time == b->time &&
	       a->ip == b->ip && a->addr == b->addr && a->phys_addr == b->phys_addr &&
	       a->period == b->period && a->weight == b->weight &&
	       a->data_src == b->data_src && a->issue_lat == b->issue_lat &&
	       a->xlat_lat == b->xlat_lat;
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
	pmt_out_mem(k->out, k->tail, k->tail_len);
}

static void write_csv(struct pmt_spe_sink *k, const struct pmt_spe_sample *s)
{
	pmt_out_str(k->out, pmt_spe_event_name(s->event, k->compat));
	write_tail(k, s, 0);
}

static void write_jsonl(struct pmt_spe_sink *k, const struct pmt_spe_sample *s)
{
	pmt_out_str(k->out, "{\"event\":");
	pmt_out_json_str(k->out, pmt_spe_event_name(s->event, k->compat));
	write_tail(k, s, 1);
}

void pmt_spe_sink_write(struct pmt_spe_sink *k, const struct pmt_spe_sample *s)
{
	k->nsamples++;
	switch (k->fmt) {
	case PMT_SINK_TEXT: write_text(k, s); break;
	case PMT_SINK_CSV: write_csv(k, s); break;
	case PMT_SINK_JSONL: write_jsonl(k, s); break;
	}
}
