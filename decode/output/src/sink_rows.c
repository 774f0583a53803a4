/* Sample sinks' CSV and JSON-lines rows (the hot path: a row's tail formatted once and
 * copied by the samples that repeat it). The text rows: sink_samples.c. */
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"
#include "sink_priv.h"
#include "sink_put.h"

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

	/* out_blocks() may read past the entry's text: still inside the sink */
	if (c->valid && c->key == s->data_src) {
		out_blocks(dst, c->text, c->len);
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
	out_blocks(dst, c->text, c->len);
}

/* ",cpu,pid,tid,time": consecutive records mostly differ only in the time's last digits */
static char *csv_pre(struct pmt_spe_sink *k, char *p, const struct pmt_spe_sample *s)
{
	uint64_t hi = s->time >= 100000000 ? s->time / 100000000 : 0;

	if (!k->pre_valid || k->pre_cpu != s->cpu || k->pre_pid != s->pid ||
	    k->pre_tid != s->tid || k->pre_hi != hi) {
		char *q = k->pre;

		*q++ = ',';
		q = pmt_fmt_i64(q, (int32_t)s->cpu); /* -1: the sample has no CPU */
		*q++ = ',';
		q = pmt_fmt_i64(q, s->pid);
		*q++ = ',';
		q = pmt_fmt_i64(q, s->tid);
		*q++ = ',';
		if (hi)
			q = pmt_fmt_u64(q, hi);
		k->pre_len = (uint8_t)(q - k->pre);
		k->pre_valid = 1;
		k->pre_cpu = s->cpu;
		k->pre_pid = s->pid;
		k->pre_tid = s->tid;
		k->pre_hi = hi;
	}
	p = put_blocks(p, k->pre, k->pre_len);
	if (!hi)
		return pmt_fmt_u64(p, s->time);
	pmt_fmt_8digits(p, (uint32_t)(s->time % 100000000));
	return p + 8;
}

static void csv_tail(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, struct pmt_out *o)
{
	char *p;

	/* 11 numbers of <= 20 chars and 4 hex of <= 18 with separators: < 320 bytes; the
	 * position stays in a register (o->len written once) */
	pmt_out_reserve(o, 320);
	p = o->buf + o->len;
	p = csv_pre(k, p, s);
	*p++ = ',';
	p = pmt_fmt_0x(p, s->ip);
	*p++ = ',';
	k->addr_at = (uint16_t)(p - o->buf);
	p = pmt_fmt_0x(p, s->addr);
	k->addr_end = (uint16_t)(p - o->buf);
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
	pmt_out_reserve(o, 48);
	p = o->buf + o->len;
	memcpy(p, op_col(s)->s, 8);
	p += op_col(s)->len;
	*p++ = ',';
	p = pmt_fmt_0x(p, s->flags);
	*p++ = ',';
	p = pmt_fmt_0x(p, s->rec ? s->rec->offset : 0);
	if (k->lat_cols) {
		*p++ = ',';
		p = pmt_fmt_u64(p, s->ins_lat);
		*p++ = ',';
		p = pmt_fmt_u64(p, s->retire_lat);
	}
	o->len = (size_t)(p - o->buf);
	if (k->brstack) {
		char bs[2 * 96];
		int n = s->brstack ? pmt_spe_brstack_str(s->brstack, " ", bs, sizeof(bs)) : 0;

		pmt_out_char(o, ',');
		pmt_out_mem(o, bs, (size_t)n);
	}
	/* the callchain column, empty here: a chain is written after the tail (sink_write_row) */
	if (k->callchain_col)
		pmt_out_char(o, ',');
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

/* a literal at p, its size known at compile time */
#define PUT_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static char *put_json_hex(char *p, uint64_t v)
{
	*p++ = '"';
	p = pmt_fmt_0x(p, v);
	*p++ = '"';
	return p;
}

static void json_tail(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, struct pmt_out *o)
{
	char *p;

	/* 12 keys (< 160 bytes) and their values (< 24 bytes each): < 450 bytes; the
	 * position stays in a register (o->len written once) */
	pmt_out_reserve(o, 450);
	p = o->buf + o->len;
	p = PUT_LIT(p, ",\"cpu\":");
	p = pmt_fmt_i64(p, (int32_t)s->cpu);
	p = PUT_LIT(p, ",\"pid\":");
	p = pmt_fmt_i64(p, s->pid);
	p = PUT_LIT(p, ",\"tid\":");
	p = pmt_fmt_i64(p, s->tid);
	p = PUT_LIT(p, ",\"time\":");
	p = pmt_fmt_u64(p, s->time);
	p = PUT_LIT(p, ",\"ip\":");
	p = put_json_hex(p, s->ip);
	p = PUT_LIT(p, ",\"addr\":");
	k->addr_at = (uint16_t)(p - o->buf);
	p = put_json_hex(p, s->addr);
	k->addr_end = (uint16_t)(p - o->buf);
	p = PUT_LIT(p, ",\"phys_addr\":");
	p = put_json_hex(p, s->phys_addr);
	p = PUT_LIT(p, ",\"period\":");
	p = pmt_fmt_u64(p, s->period);
	p = PUT_LIT(p, ",\"weight\":");
	p = pmt_fmt_u64(p, s->weight);
	p = PUT_LIT(p, ",\"issue_lat\":");
	p = pmt_fmt_u64(p, s->issue_lat);
	p = PUT_LIT(p, ",\"xlat_lat\":");
	p = pmt_fmt_u64(p, s->xlat_lat);
	p = PUT_LIT(p, ",\"data_src\":");
	p = put_json_hex(p, s->data_src);
	o->len = (size_t)(p - o->buf);
	mem_fields(k, o, s, 1);
	pmt_out_str(o, ",\"op\":\"");
	pmt_out_str(o, op_col(s)->s);
	pmt_out_reserve(o, 64);
	p = o->buf + o->len;
	p = PUT_LIT(p, "\",\"flags\":");
	p = put_json_hex(p, s->flags);
	p = PUT_LIT(p, ",\"offset\":");
	p = put_json_hex(p, s->rec ? s->rec->offset : 0);
	if (k->lat_cols) {
		p = PUT_LIT(p, ",\"ins_lat\":");
		p = pmt_fmt_u64(p, s->ins_lat);
		p = PUT_LIT(p, ",\"retire_lat\":");
		p = pmt_fmt_u64(p, s->retire_lat);
	}
	o->len = (size_t)(p - o->buf);
	if (k->brstack && s->brstack)
		json_brstack(o, s->brstack);
	pmt_out_str(o, "}\n");
}

/* everything of the tail but addr */
static int same_tail(const struct pmt_spe_sample *a, const struct pmt_spe_sample *b)
{
	return a->cpu == b->cpu && a->pid == b->pid && a->tid == b->tid &&
	       a->flags == b->flags && a->op == b->op && a->time == b->time &&
	       a->ip == b->ip && a->phys_addr == b->phys_addr &&
	       a->period == b->period && a->weight == b->weight &&
	       a->data_src == b->data_src && a->issue_lat == b->issue_lat &&
	       a->xlat_lat == b->xlat_lat && a->brstack == b->brstack &&
	       a->ins_lat == b->ins_lat && a->retire_lat == b->retire_lat;
}

/* CSV and JSONL: the event's precomputed head, then the columns after the event name,
 * formatted once per distinct consecutive sample tail straight into the output (a
 * never-flushed pmt_out over it: a tail is < 1000 bytes) and copied from there by the
 * rows that repeat it, until the buffer is flushed. The samples of a load or store record
 * differ only in addr (the instructions sample has the branch target there): that one is
 * spliced into the copy. */
void sink_write_row(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, int json)
{
	static const char unknown_csv[32] = "unknown";
	static const char unknown_json[32] = "{\"event\":\"unknown\"";
	uint64_t off = s->rec ? s->rec->offset : 0;
	struct pmt_out *o = k->out;
	const char *head, *src;
	size_t hl;
	char *p;

	if (s->event < k->nev) {
		head = k->head[s->event];
		hl = k->head_len[s->event];
	} else {
		head = json ? unknown_json : unknown_csv;
		hl = strlen(head);
	}
	/* one reserve for the row: head, a fresh tail or a copy with a spliced addr, and
	 * block slack */
	pmt_out_reserve(o, hl + sizeof(k->tail) + 224u);
	p = put_blocks(o->buf + o->len, head, hl);
	/* rows only append: a shorter buffer than where the cached tail ends was flushed */
	if (!k->tail_valid || k->last_offset != off || o->len < k->tail_pos + k->tail_len ||
	    !same_tail(&k->last, s) || (s->callchain && k->callchain_col)) {
		struct pmt_out t = { .buf = p, .cap = sizeof(k->tail) };

		if (json)
			json_tail(k, s, &t);
		else
			csv_tail(k, s, &t);
		k->tail_pos = (size_t)(p - o->buf);
		k->tail_len = (uint16_t)t.len;
		k->tail_valid = 1;
		k->last = *s;
		k->last_offset = off;
		o->len = k->tail_pos + t.len;
		if (s->callchain && k->callchain_col)
			sink_callchain_row_end(k, s, json);
		return;
	}
	/* the source is an earlier row: at least a row (> 32 bytes) before p, so the
	 * 32-byte blocks never overlap, and bytes past the tail read back are slack */
	src = o->buf + k->tail_pos;
	if (k->last.addr == s->addr) {
		p = put_tail(p, src, k->tail_len);
	} else {
		p = put_tail(p, src, k->addr_at);
		p = json ? put_json_hex(p, s->addr) : pmt_fmt_0x(p, s->addr);
		p = put_tail(p, src + k->addr_end, (size_t)(k->tail_len - k->addr_end));
	}
	o->len = (size_t)(p - o->buf);
}
