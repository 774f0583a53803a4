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
static void mem_fields(struct pmt_spe_sink *k, const struct pmt_spe_sample *s, int json)
{
	static const char *const keys[4] = { ",\"mem_op\":", ",\"mem_lvl\":",
					      ",\"mem_snoop\":", ",\"mem_tlb\":" };
	struct pmt_out o;
	char buf[96];

	if (k->dsrc_valid && k->dsrc_key == s->data_src) {
		pmt_out_mem(k->out, k->dsrc_text, k->dsrc_len);
		return;
	}
	/* a tiny pmt_out over the cache buffer: never flushed (fp NULL), 4 short fields */
	memset(&o, 0, sizeof(o));
	o.buf = k->dsrc_text;
	o.cap = sizeof(k->dsrc_text);
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
	k->dsrc_key = s->data_src;
	k->dsrc_len = (uint16_t)o.len;
	k->dsrc_valid = 1;
	pmt_out_mem(k->out, k->dsrc_text, k->dsrc_len);
}

static void write_csv(struct pmt_spe_sink *k, const struct pmt_spe_sample *s)
{
	struct pmt_out *o = k->out;

	pmt_out_str(o, pmt_spe_event_name(s->event, k->compat));
	pmt_out_char(o, ',');
	pmt_out_u64(o, s->cpu);
	pmt_out_char(o, ',');
	pmt_out_i64(o, s->pid);
	pmt_out_char(o, ',');
	pmt_out_i64(o, s->tid);
	pmt_out_char(o, ',');
	pmt_out_u64(o, s->time);
	pmt_out_char(o, ',');
	pmt_out_0x(o, s->ip);
	pmt_out_char(o, ',');
	pmt_out_0x(o, s->addr);
	pmt_out_char(o, ',');
	pmt_out_0x(o, s->phys_addr);
	pmt_out_char(o, ',');
	pmt_out_u64(o, s->period);
	pmt_out_char(o, ',');
	pmt_out_u64(o, s->weight);
	pmt_out_char(o, ',');
	pmt_out_u64(o, s->issue_lat);
	pmt_out_char(o, ',');
	pmt_out_u64(o, s->xlat_lat);
	pmt_out_char(o, ',');
	pmt_out_0x(o, s->data_src);
	pmt_out_char(o, ',');
	mem_fields(k, s, 0);
	pmt_out_str(o, op_str(s));
	pmt_out_char(o, ',');
	pmt_out_0x(o, s->flags);
	pmt_out_char(o, ',');
	pmt_out_0x(o, s->rec ? s->rec->offset : 0);
	pmt_out_char(o, '\n');
}

static void json_hex(struct pmt_out *o, const char *key, uint64_t v)
{
	pmt_out_str(o, key);
	pmt_out_str(o, "\"0x");
	pmt_out_hex(o, v);
	pmt_out_char(o, '"');
}

static void write_jsonl(struct pmt_spe_sink *k, const struct pmt_spe_sample *s)
{
	struct pmt_out *o = k->out;

	pmt_out_str(o, "{\"event\":");
	pmt_out_json_str(o, pmt_spe_event_name(s->event, k->compat));
	pmt_out_str(o, ",\"cpu\":");
	pmt_out_u64(o, s->cpu);
	pmt_out_str(o, ",\"pid\":");
	pmt_out_i64(o, s->pid);
	pmt_out_str(o, ",\"tid\":");
	pmt_out_i64(o, s->tid);
	pmt_out_str(o, ",\"time\":");
	pmt_out_u64(o, s->time);
	json_hex(o, ",\"ip\":", s->ip);
	json_hex(o, ",\"addr\":", s->addr);
	json_hex(o, ",\"phys_addr\":", s->phys_addr);
	pmt_out_str(o, ",\"period\":");
	pmt_out_u64(o, s->period);
	pmt_out_str(o, ",\"weight\":");
	pmt_out_u64(o, s->weight);
	pmt_out_str(o, ",\"issue_lat\":");
	pmt_out_u64(o, s->issue_lat);
	pmt_out_str(o, ",\"xlat_lat\":");
	pmt_out_u64(o, s->xlat_lat);
	json_hex(o, ",\"data_src\":", s->data_src);
	mem_fields(k, s, 1);
	pmt_out_str(o, ",\"op\":\"");
	pmt_out_str(o, op_str(s));
	pmt_out_char(o, '"');
	json_hex(o, ",\"flags\":", s->flags);
	json_hex(o, ",\"offset\":", s->rec ? s->rec->offset : 0);
	pmt_out_str(o, "}\n");
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
