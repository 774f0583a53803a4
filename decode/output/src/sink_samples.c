/* Sample sinks' rows: perf-script-like text, CSV, JSON lines (the hot path: caches shared by a
 * record's samples). Set-up and -F fields: sink_setup.c. */
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"
#include "sink_priv.h"

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

/* the op column, padded so that it is copied as one 8-byte word */
struct op_col {
	char s[8];
	size_t len;
};

static const struct op_col *op_col(const struct pmt_spe_sample *s)
{
	static const struct op_col cols[5] = {
		{ "LD", 2 }, { "ST", 2 }, { "BR", 2 }, { "OTHER", 5 }, { "", 0 },
	};
	uint32_t op = s->op;

	if (op & PMT_SPE_OP_F_LDST)
		return &cols[(op & PMT_SPE_OP_F_ST) ? 1 : 0];
	if (op & PMT_SPE_OP_F_BRANCH)
		return &cols[2];
	return &cols[(op & PMT_SPE_OP_F_OTHER) ? 3 : 4];
}

/* Short variable-length copies and fills in 32-byte blocks (they may write up to 31
 * bytes past n, and read src that far): gcc turns a variable memcpy or memset into rep
 * movs/stos, whose start-up cost was a fifth of the text sink. */
static char *put_blocks(char *p, const char *src, size_t n)
{
	for (size_t i = 0; i < n; i += 32)
		memcpy(p + i, src + i, 32);
	return p + n;
}

/* put_blocks() for the cached row tails: their length straddles 96 and 128 bytes from one
 * sample to the next, so the block count mispredicted; most fit five fixed 32-byte copies
 * (writes up to 160 bytes past p, reads src that far). */
static char *put_tail(char *p, const char *src, size_t n)
{
	if (n > 160)
		return put_blocks(p, src, n);
	/* five block copies in order, not one of 160 bytes: src may lie less than 160
	 * bytes before p (see write_row()) */
	for (size_t i = 0; i < 160; i += 32)
		memcpy(p + i, src + i, 32);
	return p + n;
}

static char *put_spaces(char *p, size_t n)
{
	static const char spaces[32] = "                                ";

	for (size_t i = 0; i < n; i += 32)
		memcpy(p + i, spaces, 32);
	return p + n;
}

/* v right-aligned in w columns at p; returns the end (writes up to w + 24 bytes) */
static char *put_dec_w(char *p, uint64_t v, size_t w)
{
	char t[24];
	size_t n = (size_t)(pmt_fmt_u64(t, v) - t);

	if (n < w)
		p = put_spaces(p, w - n);
	memcpy(p, t, sizeof(t));
	return p + n;
}

static char *put_hex_w(char *p, uint64_t v, size_t w)
{
	char t[24];
	size_t n = (size_t)(pmt_fmt_hex(t, v) - t);

	if (n < w)
		p = put_spaces(p, w - n);
	memcpy(p, t, sizeof(t));
	return p + n;
}

/* perf script's meminfo text of a data_src, decoded once per distinct value */
static const struct pmt_spe_dsrc_text *dsrc_text(struct pmt_spe_sink *k, uint64_t data_src)
{
	struct pmt_spe_dsrc_text *c = &k->dsrc[(data_src * 0x9e3779b97f4a7c15ULL) >> 60];
	char t[160];
	int n;

	if (c->valid && c->key == data_src)
		return c;
	n = pmt_mem_data_src_str(data_src, k->compat, t, sizeof(t));
	c->key = data_src;
	c->len = (uint16_t)n;
	c->valid = 1;
	memcpy(c->text, t, (size_t)n);
	return c;
}

/* text columns up to the period: tid "%5d ", cpu "[%03d] ", time "%12s: " (< 100 bytes) */
/* perf 6.5 widened pid and tid from 5 to 7 columns (patch of May 2023; 6.1 and 7.3 are
 * what runs here) */
static size_t id_width(const struct pmt_spe_sink *k)
{
	return k->compat >= 605 ? 7 : 5;
}

static char *text_prefix(const struct pmt_spe_sink *k, char *p, const struct pmt_spe_sample *s)
{
	if (s->tid < 0) {
		p = put_spaces(p, id_width(k) - 2);
		memcpy(p, "-1", 2);
		p += 2;
	} else {
		p = put_dec_w(p, (uint64_t)s->tid, id_width(k));
	}
	memcpy(p, " [", 2);
	p += 2;
	if (s->cpu < 10) {
		*p++ = '0';
		*p++ = '0';
	} else if (s->cpu < 100) {
		*p++ = '0';
	}
	p = pmt_fmt_u64(p, s->cpu);
	memcpy(p, "] ", 2);
	p += 2;
	if (k->show_time) {
		/* perf: "%12s: " of secs.usecs (truncated) */
		uint64_t us = s->time / 1000;
		char t[48], *e = pmt_fmt_u64(t, us / 1000000);
		size_t tl;

		/* six digits with leading zeros: 10^6 + usecs with its '1' made the '.' */
		pmt_fmt_u64(e, 1000000 + us % 1000000);
		*e = '.';
		e += 7;
		tl = (size_t)(e - t);
		if (tl < 12)
			p = put_spaces(p, 12 - tl);
		memcpy(p, t, tl);
		p += tl;
		memcpy(p, ": ", 2);
		p += 2;
	}
	return p;
}

/* the line's end: perf_sample__fprintf_brstack() prints " 0x..." per entry, each flags
 * part ending in a space */
static void text_line_end(struct pmt_out *o, const struct pmt_spe_brstack *bs)
{
	if (bs && bs->nr) {
		char buf[PMT_SPE_BRSTACK_MAX * 96];
		int n = pmt_spe_brstack_str(bs, "  ", buf, sizeof(buf));

		pmt_out_char(o, ' ');
		pmt_out_mem(o, buf, (size_t)n);
		pmt_out_char(o, ' ');
	}
	pmt_out_char(o, '\n');
}

/* s in w columns at p, right-aligned ("%*s") or left-aligned; returns the end */
static char *put_str_w(char *p, const char *s, size_t w, bool left)
{
	size_t n = strlen(s);

	if (!left && n < w)
		p = put_spaces(p, w - n);
	memcpy(p, s, n);
	p += n;
	if (left && n < w)
		p = put_spaces(p, w - n);
	return p;
}

/* "%*d" (or "%-*d" when left) of v at p; returns the end */
static char *put_int_w(char *p, int32_t v, size_t w, bool left)
{
	char t[24];
	size_t n = (size_t)(pmt_fmt_i64(t, v) - t);

	t[n] = 0;
	return put_str_w(p, t, w, left);
}

/* perf script -F: the chosen fields f, each in perf's format and perf's order */
static void write_fields(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, uint32_t f)
{
	struct pmt_out *o = k->out;
	const struct pmt_spe_dsrc_text *ds = NULL;
	uint32_t dl = 0;
	char *p;

	if (f & PMT_FIELD_DATA_SRC) {
		ds = dsrc_text(k, s->data_src);
		dl = ds->len + 17u;
		if (dl > k->dsrc_maxlen)
			k->dsrc_maxlen = dl;
	}
	struct pmt_sym_loc loc;
	const char *comm = NULL;
	char tidname[16];
	size_t extra = 0;

	char srcline[4200];
	/* perf script shows a sample's call chain with its ip field unless -G */
	const int chain = s->callchain && (f & PMT_FIELD_IP) && !k->hide_callchain;

	srcline[0] = 0;
	memset(&loc, 0, sizeof(loc));
	/* (insnlen prints 0 without the trace's maps) */
	if (!k->symbols)
		f &= ~(uint32_t)(PMT_FIELDS_SYMBOLS & ~PMT_FIELD_INSNLEN);
	if (((f & (PMT_FIELD_SYM | PMT_FIELD_DSO | PMT_FIELD_SRCLINE)) && (f & PMT_FIELD_IP)) ||
	    (f & (PMT_FIELD_INSNLEN | PMT_FIELD_INSN | PMT_FIELD_SRCCODE))) {
		pmt_symbols_resolve(k->symbols, s->pid, s->ip, s->time, &loc);
		extra += (loc.sym ? strlen(loc.sym) : 0) + (loc.dso ? strlen(loc.dso) : 0);
		/* above a call chain each entry has its own, printed by the chain */
		if ((f & PMT_FIELD_SRCLINE) && !chain) {
			sink_srcline_text(k->symbols, &loc, srcline, sizeof(srcline), k->compat);
			extra += strlen(srcline);
		}
	}
	if (f & PMT_FIELD_COMM) {
		/* perf names a thread without a COMM ":TID" */
		comm = pmt_symbols_comm(k->symbols, s->tid, s->time);
		if (!comm) {
			snprintf(tidname, sizeof(tidname), ":%d", (int)s->tid);
			comm = tidname;
		}
		extra += strlen(comm);
	}
	pmt_out_reserve(o, k->name_width + k->dsrc_maxlen + 640 + extra);
	p = o->buf + o->len;
	if (f & PMT_FIELD_COMM) {
		/* perf: "%s " above a call chain, "%16s " else */
		p = put_str_w(p, comm, chain ? 0 : 16, false);
		*p++ = ' ';
	}
	const int idw = (int)id_width(k);

	if ((f & PMT_FIELD_PID) && (f & PMT_FIELD_TID)) {
		p = put_int_w(p, s->pid, (size_t)idw, false);
		*p++ = '/';
		p = put_int_w(p, s->tid, (size_t)idw, true);
		*p++ = ' ';
	} else if (f & (PMT_FIELD_PID | PMT_FIELD_TID)) {
		p = put_int_w(p, f & PMT_FIELD_PID ? s->pid : s->tid, (size_t)idw, false);
		*p++ = ' ';
	}
	if (f & PMT_FIELD_CPU) {
		/* "[%03u] " */
		char t[24], *e = pmt_fmt_u64(t, s->cpu);
		size_t n = (size_t)(e - t);

		*p++ = '[';
		for (; n < 3; n++)
			*p++ = '0';
		memcpy(p, t, (size_t)(e - t));
		p += e - t;
		memcpy(p, "] ", 2);
		p += 2;
	}
	if (f & PMT_FIELD_MISC)
		p = sink_put_misc(p, s->misc);
	if (f & PMT_FIELD_TOD)
		p = sink_put_tod(k, p, s->time);
	if ((f & PMT_FIELD_TIME) && k->show_time) {
		/* "%5llu.%06llu: " of seconds and microseconds */
		uint64_t us = s->time / 1000;

		p = put_dec_w(p, us / 1000000, 5);
		/* six digits with leading zeros: 10^6 + usecs with its '1' made the '.' */
		pmt_fmt_u64(p, 1000000 + us % 1000000);
		*p = '.';
		p += 7;
		memcpy(p, ": ", 2);
		p += 2;
	}
	if (f & PMT_FIELD_PERIOD) {
		p = put_dec_w(p, s->period, 10);
		*p++ = ' ';
	}
	if (f & PMT_FIELD_EVENT) {
		static const char unknown[32] = "unknown";
		const char *name = s->event < k->nev ? k->head[s->event] : unknown;
		size_t nl = s->event < k->nev ? k->head_len[s->event] : 7;

		if (nl < k->name_width)
			p = put_spaces(p, k->name_width - nl);
		p = put_blocks(p, name, nl);
		memcpy(p, ": ", 2);
		p += 2;
	}
	if (f & PMT_FIELD_FLAGS) {
		char fl[PMT_SAMPLE_FLAGS_MAX];
		size_t fn = pmt_sample_flags_str(s->flags, fl, sizeof(fl));

		/* perf_sample__fprintf_flags(): "  %-21s " */
		p = put_spaces(p, 2);
		memcpy(p, fl, fn);
		p = put_spaces(p + fn, fn < 21 ? 21 - fn + 1 : 1);
	}
	if (f & PMT_FIELD_ADDR)
		p = put_hex_w(p, s->addr, 16);
	if (f & PMT_FIELD_DATA_SRC) {
		p = put_hex_w(p, s->data_src, 16);
		*p++ = ' ';
		p = put_blocks(p, ds->text, ds->len);
		p = put_spaces(p, k->dsrc_maxlen - dl);
	}
	if (f & PMT_FIELD_WEIGHT)
		p = put_dec_w(p, s->weight, 16);
	if (f & PMT_FIELD_INS_LAT)
		p = put_dec_w(p, s->ins_lat, 16);
	if (f & PMT_FIELD_RETIRE_LAT)
		p = put_dec_w(p, s->retire_lat, 16);
	if (chain) {
		/* perf: the chain's lines instead of the ip's, after a line break */
		*p++ = '\n';
		o->len = (size_t)(p - o->buf);
		sink_callchain_text(k, s, f);
		pmt_out_reserve(o, 640);
		p = o->buf + o->len;
	} else if (f & PMT_FIELD_IP) {
		*p++ = ' ';
		p = put_hex_w(p, s->ip, 16);
		/* perf prints sym and dso with the ip only */
		if (f & PMT_FIELD_SYM) {
			*p++ = ' ';
			if (loc.sym) {
				p = put_str_w(p, loc.sym, 0, false);
				if (f & PMT_FIELD_SYMOFF) {
					memcpy(p, "+0x", 3);
					p = pmt_fmt_hex(p + 3, loc.symoff);
				}
			} else {
				p = put_str_w(p, "[unknown]", 0, false);
			}
		}
		if (f & PMT_FIELD_DSO) {
			memcpy(p, " (", 2);
			p = put_str_w(p + 2, loc.dso ? loc.dso : "[unknown]", 0, false);
			/* perf 7.3's map__fprintf_dsoname_dsoff(): the file offset, not for the
			 * kernel's maps */
			if ((f & PMT_FIELD_DSOFF) && loc.dso && !loc.kernel) {
				memcpy(p, "+0x", 3);
				p = pmt_fmt_hex(p + 3, loc.map_ip);
			}
			*p++ = ')';
		}
		if (f & PMT_FIELD_SRCLINE) {
			size_t sl = strlen(srcline);

			memcpy(p, srcline, sl);
			p += sl;
		}
	}
	/* perf prints the branch stack after the ip's columns, before insnlen and phys_addr */
	if (f & (PMT_FIELD_BRSTACK | PMT_FIELD_BRSTACKSYM | PMT_FIELD_BRSTACKOFF)) {
		o->len = (size_t)(p - o->buf);
		sink_brstack_fields(k, s, f);
		pmt_out_reserve(o, 128); /* insnlen, phys_addr and the newline */
		p = o->buf + o->len;
	}
	if (f & (PMT_FIELD_INSNLEN | PMT_FIELD_INSN)) {
		uint8_t code[16];
		uint32_t ilen = sink_insn_len(k, s, &loc, code);

		if (f & PMT_FIELD_INSNLEN) {
			memcpy(p, " ilen: ", 7);
			p = pmt_fmt_u64(p + 7, ilen);
		}
		/* sample__fprintf_insn_raw(): the bytes, space-separated */
		if ((f & PMT_FIELD_INSN) && ilen) {
			memcpy(p, " insn:", 6);
			p += 6;
			for (uint32_t i = 0; i < ilen; i++) {
				*p++ = ' ';
				*p++ = "0123456789abcdef"[code[i] >> 4];
				*p++ = "0123456789abcdef"[code[i] & 15];
			}
		}
	}
	if (f & (PMT_FIELD_BRSTACKINSN | PMT_FIELD_BRSTACKINSNLEN)) {
		o->len = (size_t)(p - o->buf);
		sink_brstackinsn(k, s, f);
		pmt_out_reserve(o, 64); /* phys_addr and the newline */
		p = o->buf + o->len;
	}
	if (f & PMT_FIELD_PHYS_ADDR)
		p = put_hex_w(p, s->phys_addr, 16);
	*p++ = '\n';
	o->len = (size_t)(p - o->buf);
	if (f & PMT_FIELD_SRCCODE)
		sink_srccode(k, s, &loc);
}

/* text mode: k->tail holds the tid/cpu/time columns at 0, those from addr on here */
#define TEXT_SFX 512

static void write_text(struct pmt_spe_sink *k, const struct pmt_spe_sample *s)
{
	struct pmt_out *o = k->out;
	static const char unknown[32] = "unknown";
	const char *name = s->event < k->nev ? k->head[s->event] : unknown;
	size_t nl = s->event < k->nev ? k->head_len[s->event] : 7;
	const struct pmt_spe_dsrc_text *ds = dsrc_text(k, s->data_src);
	uint32_t dl = ds->len + 17u;
	char *p;

	if (dl > k->dsrc_maxlen)
		k->dsrc_maxlen = dl;
	/* every field has a bound: tid 11, cpu 14, time 40, period 20, addr/data_src 16
	 * (+24 slack of the number writers), the meminfo padded to dsrc_maxlen, ... */
	pmt_out_reserve(o, k->name_width + k->dsrc_maxlen + 640);
	p = o->buf + o->len;
	/* the samples of a record share tid, cpu and time: their columns are formatted once
	 * (k->tail and k->last are the CSV/JSONL tail cache, free in text mode) */
	if (!k->tail_valid || k->last.tid != s->tid || k->last.cpu != s->cpu ||
	    k->last.time != s->time) {
		k->tail_len = (uint16_t)(text_prefix(k, k->tail, s) - k->tail);
		k->tail_valid = 1;
		k->last.tid = s->tid;
		k->last.cpu = s->cpu;
		k->last.time = s->time;
	}
	p = put_blocks(p, k->tail, k->tail_len);
	p = put_dec_w(p, s->period, 10);
	*p++ = ' ';
	if (nl < k->name_width)
		p = put_spaces(p, k->name_width - nl);
	p = put_blocks(p, name, nl);
	memcpy(p, ": ", 2);
	p += 2;
	/* addr to phys_addr (< 300 bytes): the same for most samples of a record */
	if (k->sfx_valid && k->last.addr == s->addr && k->last.data_src == s->data_src &&
	    k->last.weight == s->weight && k->last.ip == s->ip &&
	    k->last.phys_addr == s->phys_addr && k->sfx_dsrc_maxlen == k->dsrc_maxlen) {
		p = put_blocks(p, k->tail + TEXT_SFX, k->sfx_len);
	} else {
		char *start = p;

		p = put_hex_w(p, s->addr, 16);
		/* perf 6.1 data_src__fprintf(): "%16llx %s" padded to the longest seen so far */
		p = put_hex_w(p, s->data_src, 16);
		*p++ = ' ';
		p = put_blocks(p, ds->text, ds->len);
		p = put_spaces(p, k->dsrc_maxlen - dl);
		p = put_dec_w(p, s->weight, 16);
		*p++ = ' ';
		p = put_hex_w(p, s->ip, 16);
		p = put_hex_w(p, s->phys_addr, 16);
		k->sfx_len = (uint16_t)(p - start);
		memcpy(k->tail + TEXT_SFX, start, k->sfx_len);
		k->sfx_valid = 1;
		k->sfx_dsrc_maxlen = k->dsrc_maxlen;
		k->last.addr = s->addr;
		k->last.data_src = s->data_src;
		k->last.weight = s->weight;
		k->last.ip = s->ip;
		k->last.phys_addr = s->phys_addr;
	}
	o->len = (size_t)(p - o->buf);
	text_line_end(o, k->brstack ? s->brstack : NULL);
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
	/* the callchain column, empty here: a chain is written after the tail (write_row) */
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
static void write_row(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, int json)
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

void pmt_spe_sink_write(struct pmt_spe_sink *k, const struct pmt_spe_sample *s)
{
	k->nsamples++;
	switch (k->fmt) {
	case PMT_SINK_TEXT:
		if (k->fields)
			write_fields(k, s, k->fields);
		else if (s->event >= PMT_SPE_SE_COUNT && s->event < k->nev)
			write_fields(k, s, k->ev_fields[s->event]);
		else if (k->spe_fields)
			write_fields(k, s, k->spe_fields);
		else
			write_text(k, s);
		break;
	case PMT_SINK_CSV: write_row(k, s, 0); break;
	case PMT_SINK_JSONL: write_row(k, s, 1); break;
	}
}
