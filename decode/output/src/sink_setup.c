/* The sample writer's set-up: the events' heads and default fields, perf script's -F
 * field list and its checks against the trace's attrs, the CSV header row. */
#include <stdlib.h>

#include "pmutrace/common.h"
#include "pmutrace/spe_decode.h"
#include "pmutrace/output.h"
#include "sink_priv.h"

/* perf script's default fields for an attr's samples (builtin-script.c output[]: every
 * type prints comm tid cpu time event ip sym symoff dso period; PERF_TYPE_RAW, which
 * Intel's core PMU has, adds the memory and latency fields), less those the attr does not
 * sample, as perf drops them (evsel__check_attr) */
static uint32_t default_fields(const struct pmt_trace_attr *a, int compat)
{
	const uint64_t st = a->sample_type;
	uint32_t f = PMT_FIELD_COMM | PMT_FIELD_EVENT | PMT_FIELD_PERIOD;

	if (st & PMT_SAMPLE_TID)
		f |= PMT_FIELD_TID;
	if (st & PMT_SAMPLE_CPU)
		f |= PMT_FIELD_CPU;
	if (st & PMT_SAMPLE_TIME)
		f |= PMT_FIELD_TIME;
	if (st & PMT_SAMPLE_IP)
		f |= PMT_FIELD_IP | PMT_FIELD_SYM | PMT_FIELD_SYMOFF | PMT_FIELD_DSO;
	if (a->type != PMT_TYPE_RAW)
		return f;
	if (st & PMT_SAMPLE_ADDR)
		f |= PMT_FIELD_ADDR;
	if (st & PMT_SAMPLE_DATA_SRC)
		f |= PMT_FIELD_DATA_SRC;
	if (st & (PMT_SAMPLE_WEIGHT | PMT_SAMPLE_WEIGHT_STRUCT))
		f |= PMT_FIELD_WEIGHT;
	if (st & PMT_SAMPLE_PHYS_ADDR)
		f |= PMT_FIELD_PHYS_ADDR;
	/* perf 6.1 has no retire_lat field (checked: 6.1 prints ins_lat only, 7.3 both) */
	if (st & PMT_SAMPLE_WEIGHT_STRUCT)
		f |= PMT_FIELD_INS_LAT | (compat >= 700 ? PMT_FIELD_RETIRE_LAT : 0);
	return f;
}

/* each event's name (CSV: quoted when it needs it; JSONL: '{"event":NAME') and fields */
static int make_heads(struct pmt_spe_sink *k, const struct pmt_trace_meta *m)
{
	k->nev = pmt_trace_nr_events(m);
	/* perf's defaults for the synthetic events' type (PERF_TYPE_HARDWARE), which no
	 * event of the trace narrows (checked with perf 6.1 and 7.3) */
	if (pmt_trace_has_own_samples(m))
		k->spe_fields = PMT_FIELD_COMM | PMT_FIELD_TID | PMT_FIELD_CPU | PMT_FIELD_TIME |
				PMT_FIELD_PERIOD | PMT_FIELD_EVENT | PMT_FIELD_IP | PMT_FIELD_SYM |
				PMT_FIELD_SYMOFF | PMT_FIELD_DSO;
	k->head_len = calloc(k->nev, sizeof(*k->head_len));
	k->head = calloc(k->nev, sizeof(*k->head));
	k->ev_fields = calloc(k->nev, sizeof(*k->ev_fields));
	if (!k->head_len || !k->head || !k->ev_fields)
		return -PMT_ENOMEM;
	for (unsigned ev = 0; ev < k->nev; ev++) {
		const size_t cap = sizeof(k->head[ev]) - 32;
		const struct pmt_trace_attr *a = pmt_trace_event_attr(m, ev);
		char name[PMT_SINK_HEAD_MAX - 48], scratch[8 * PMT_SINK_HEAD_MAX];
		size_t nl;
		struct pmt_out o;

		pmt_trace_event_name(m, ev, k->compat, name, sizeof(name));
		/* escaped (up to 6 bytes a byte in JSON) the head must still fit its slot: a
		 * trace's odd name is shortened, never written past it */
		for (nl = strlen(name);; name[--nl] = 0) {
			o = (struct pmt_out){ .buf = scratch, .cap = sizeof(scratch) };
			if (k->fmt == PMT_SINK_JSONL) {
				pmt_out_str(&o, "{\"event\":");
				pmt_out_json_str(&o, name);
			} else if (k->fmt == PMT_SINK_CSV && a) {
				pmt_out_csv_str(&o, name);
			} else {
				pmt_out_str(&o, name);
			}
			if (o.len <= cap || !nl)
				break;
		}
		memcpy(k->head[ev], scratch, o.len <= cap ? o.len : cap);
		k->head_len[ev] = (uint8_t)(o.len <= cap ? o.len : cap);
		if (a) {
			k->ev_fields[ev] = default_fields(a, k->compat);
			if (a->sample_type & PMT_SAMPLE_WEIGHT_STRUCT)
				k->lat_cols = 1;
			if ((a->sample_type & PMT_SAMPLE_CALLCHAIN) && !k->hide_callchain)
				k->callchain_col = 1;
		}
	}
	return 0;
}

int pmt_spe_sink_new(struct pmt_out *out, const struct pmt_spe_sink_opts *opts,
		     struct pmt_spe_sink **sink)
{
	struct pmt_spe_sink *k;
	enum pmt_sink_format fmt;
	int compat;

	if (!out || !sink || !PMT_OPTS_HAS(opts, name_width))
		return -PMT_EINVAL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -PMT_ENOMEM;
	k->out = out;
	k->fmt = fmt = opts->fmt;
	k->compat = compat = opts->compat;
	k->show_time = opts->show_time;
	k->brstack = opts->brstack;
	k->name_width = opts->name_width ? opts->name_width : 20;
	k->fields = PMT_OPTS_HAS(opts, fields) ? opts->fields : 0;
	k->symbols = PMT_OPTS_HAS(opts, symbols) ? opts->symbols : NULL;
	k->hide_callchain = PMT_OPTS_HAS(opts, hide_callchain) && opts->hide_callchain;
	k->no_inline = PMT_OPTS_HAS(opts, no_inline) && opts->no_inline;
	if ((k->fields & PMT_FIELDS_SYMBOLS) && !k->symbols) {
		free(k);
		return -PMT_EINVAL;
	}
	(void)fmt;
	(void)compat;
	k->insn_native = sink_insn_native(PMT_OPTS_HAS(opts, meta) ? opts->meta : NULL);
	if (PMT_OPTS_HAS(opts, meta) && opts->meta && opts->meta->has_clock_data) {
		k->has_clock = 1;
		k->clock_tod_ns = opts->meta->clock_tod_ns;
		k->clock_ref_ns = opts->meta->clock_ref_ns;
	}
	if (make_heads(k, PMT_OPTS_HAS(opts, meta) ? opts->meta : NULL) < 0) {
		pmt_spe_sink_free(k);
		return -PMT_ENOMEM;
	}
	*sink = k;
	return 0;
}

static const char csv_cols[] =
	"event,cpu,pid,tid,time,ip,addr,phys_addr,period,weight,issue_lat,xlat_lat,data_src,"
	"mem_op,mem_lvl,mem_snoop,mem_tlb,op,flags,offset\n";

void pmt_spe_sink_free(struct pmt_spe_sink *k)
{
	if (!k)
		return;
	free(k->head_len);
	free(k->head);
	free(k->ev_fields);
	sink_srccode_free(k->srccode);
	free(k->bb_buf);
	free(k);
}

void pmt_spe_sink_header(struct pmt_spe_sink *k)
{
	if (k->fmt != PMT_SINK_CSV)
		return;
	/* the brstack column exists only when branch stacks are made */
	pmt_out_mem(k->out, csv_cols, sizeof(csv_cols) - 2);
	if (k->lat_cols)
		pmt_out_str(k->out, ",ins_lat,retire_lat");
	if (k->brstack)
		pmt_out_str(k->out, ",brstack");
	pmt_out_str(k->out, k->callchain_col ? ",callchain\n" : "\n");
}

static const struct {
	const char *name;
	uint32_t bit;
} field_names[] = {
	{ "pid", PMT_FIELD_PID }, { "tid", PMT_FIELD_TID }, { "cpu", PMT_FIELD_CPU },
	{ "time", PMT_FIELD_TIME }, { "period", PMT_FIELD_PERIOD }, { "event", PMT_FIELD_EVENT },
	{ "addr", PMT_FIELD_ADDR }, { "data_src", PMT_FIELD_DATA_SRC },
	{ "weight", PMT_FIELD_WEIGHT }, { "ip", PMT_FIELD_IP }, { "phys_addr", PMT_FIELD_PHYS_ADDR },
	{ "brstack", PMT_FIELD_BRSTACK }, { "comm", PMT_FIELD_COMM }, { "sym", PMT_FIELD_SYM },
	{ "symoff", PMT_FIELD_SYMOFF }, { "dso", PMT_FIELD_DSO }, { "srcline", PMT_FIELD_SRCLINE },
	{ "ins_lat", PMT_FIELD_INS_LAT }, { "retire_lat", PMT_FIELD_RETIRE_LAT },
	{ "misc", PMT_FIELD_MISC }, { "flags", PMT_FIELD_FLAGS }, { "insnlen", PMT_FIELD_INSNLEN },
	{ "tod", PMT_FIELD_TOD }, { "dsoff", PMT_FIELD_DSOFF },
	{ "brstacksym", PMT_FIELD_BRSTACKSYM }, { "brstackoff", PMT_FIELD_BRSTACKOFF },
	{ "srccode", PMT_FIELD_SRCCODE }, { "brstackinsn", PMT_FIELD_BRSTACKINSN },
	{ "brstackinsnlen", PMT_FIELD_BRSTACKINSNLEN }, { "insn", PMT_FIELD_INSN },
	/* perf 7.3 without capstone (the oracle) prints it as brstackinsn */
	{ "brstackdisasm", PMT_FIELD_BRSTACKINSN },
	/* perf takes these and prints nothing for them on SPE's synthesized samples (no
	 * call depth, registers, guests or IPC counts): no bit */
	{ "callindent", 0 }, { "ipc", 0 }, { "machine_pid", 0 }, { "vcpu", 0 },
	{ "iregs", 0 }, { "synth", 0 }, { "trace", 0 }, /* perf: "not valid for hardware events" */
};

/* -F problems are about the option, not a file */
#define field_err(diag, code, ...) \
	pmt_diag_set(diag, code, NULL, PMT_DIAG_NO_OFFSET, __VA_ARGS__)

int pmt_spe_fields_parse(const char *list, uint32_t *fields, struct pmt_diag *diag)
{
	/* perf refuses these on SPE traces: their attrs never sample them (perf 7.3 has no
	 * "ipsym" or "sym_size": "Invalid field requested.", as for any unknown name) */
	static const char *const refused[] = { "data_page_size", "code_page_size", "cgroup",
					       "uregs" };
	bool any = false;
	const char *p = list;

	*fields = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		bool found = false;

		for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]); i++) {
			if (strlen(field_names[i].name) == n && !strncmp(p, field_names[i].name, n)) {
				*fields |= field_names[i].bit;
				found = any = true;
			}
		}
		for (size_t i = 0; !found && i < sizeof(refused) / sizeof(refused[0]); i++) {
			if (strlen(refused[i]) == n && !strncmp(p, refused[i], n)) {
				field_err(diag, -PMT_EPARSE, "-F %.*s: SPE's synthesized samples "
					  "have no %.*s (perf 7.3 refuses it on these traces too)", (int)n, p,
					 (int)n, p);
				return -PMT_EPARSE;
			}
		}
		if (!found) {
			field_err(diag, -PMT_EPARSE, "-F: unknown field '%.*s' (fields: comm pid "
				  "tid cpu misc tod time period event flags addr data_src weight ins_lat "
				 "retire_lat ip sym symoff dso dsoff srcline insnlen phys_addr brstack "
				 "brstacksym brstackoff brstackinsn brstackinsnlen brstackdisasm insn "
				 "srccode)",
				 (int)n, p);
			return -PMT_EPARSE;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	if (*fields)
		return 0;
	return field_err(diag, -PMT_EPARSE,
			 any ? "-F %s: perf prints nothing for these fields on SPE samples"
			     : "-F '%s': no fields", list);
}

int pmt_spe_fields_check(const struct pmt_trace_meta *m, uint32_t fields, struct pmt_diag *diag)
{
	/* builtin-script.c evsel__check_attr(), in its order */
	static const struct {
		uint32_t field;
		uint64_t need;
		const char *attr, *name;
		bool aux_ok;
	} rules[] = {
		{ PMT_FIELD_IP, PMT_SAMPLE_IP, "IP", "ip", false },
		{ PMT_FIELD_ADDR, PMT_SAMPLE_ADDR, "ADDR", "addr", true },
		{ PMT_FIELD_DATA_SRC, PMT_SAMPLE_DATA_SRC, "DATA_SRC", "data_src", true },
		{ PMT_FIELD_WEIGHT, PMT_SAMPLE_WEIGHT | PMT_SAMPLE_WEIGHT_STRUCT, "WEIGHT", "weight",
		  true },
		{ PMT_FIELD_PID | PMT_FIELD_TID, PMT_SAMPLE_TID, "TID", "tid", false },
		{ PMT_FIELD_TIME, PMT_SAMPLE_TIME, "TIME", "time", false },
		{ PMT_FIELD_CPU, PMT_SAMPLE_CPU, "CPU", "cpu", true },
		{ PMT_FIELD_PHYS_ADDR, PMT_SAMPLE_PHYS_ADDR, "PHYS_ADDR", "phys_addr", true },
		{ PMT_FIELD_INS_LAT, PMT_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT", "ins_lat", false },
		{ PMT_FIELD_RETIRE_LAT, PMT_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT", "retire_lat",
		  false },
	};

	if ((fields & (PMT_FIELD_SRCLINE | PMT_FIELD_SRCCODE)) && !(fields & PMT_FIELD_IP)) {
		/* perf_session__check_output_opt(), in its words */
		field_err(diag, -PMT_EINVAL, "Display of source line number requested but sample "
			 "IP is not\nselected. Hence, no address to lookup the source line number.");
		return -PMT_EINVAL;
	}
	if ((fields & PMT_FIELD_TOD) && !(m && m->has_clock_data)) {
		/* perf's words: only perf record -k/--clockid writes HEADER_CLOCK_DATA */
		field_err(diag, -PMT_EINVAL, "Can't provide 'tod' time, missing clock data. Please "
			 "record with -k/--clockid option.");
		return -PMT_EINVAL;
	}
	for (uint32_t i = 0; m && i < m->nr_attrs; i++) {
		const struct pmt_trace_attr *a = &m->attrs[i];
		char name[128];

		if ((m->has_auxtrace_info && a->type == m->spe_pmu_type) ||
		    (a->type == PMT_TYPE_SOFTWARE && a->config == PMT_SW_DUMMY))
			continue;
		for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
			if (!(fields & rules[r].field) || (a->sample_type & rules[r].need) ||
			    (rules[r].aux_ok && m->has_auxtrace_index))
				continue;
			pmt_trace_event_name(m, PMT_EV_ATTR(i), PMT_PERF_NEWEST, name, sizeof(name));
			field_err(diag, -PMT_EINVAL, "Samples for '%s' event do not have %s attribute set. "
				 "Cannot print '%s' field.", name, rules[r].attr, rules[r].name);
			return -PMT_EINVAL;
		}
	}
	return 0;
}
