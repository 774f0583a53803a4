/* Sample sinks' rows: perf-script-like text (the hot path: caches shared by a record's
 * samples); CSV and JSON lines: sink_rows.c. Set-up and -F fields: sink_setup.c. */
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"
#include "sink_priv.h"
#include "sink_put.h"

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
	case PMT_SINK_CSV: sink_write_row(k, s, 0); break;
	case PMT_SINK_JSONL: sink_write_row(k, s, 1); break;
	}
}
