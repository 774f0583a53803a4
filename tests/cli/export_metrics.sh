#!/bin/sh
# Metric rows of a recording in export's metrics table and report --html's metric tree:
#  1. a counting recording (pmutrace stat -o, software events per CPU and per interval):
#     the rows `pmutrace metrics TRACE --csv` prints for the same tables and -M, row for
#     row (interval, CPU, metric, value, unit, threshold);
#  2. a TPEBS recording of the simulated PEBS PMU (tests/pmusim, record --tpebs) with perf
#     stat -x counts: tma_lock_latency as `pmutrace metrics` gives it, its retire latency
#     measured (rint of the samples' mean, which `pmutrace calibrate` prints) beside the
#     default (rint of the event JSON's RetirementLatencyMean, read here with python);
#     report --html shows the same row; a metric of two :R events has both latencies of
#     each (table metric_retire_latencies, lines under the metric on the page);
#  3. perf's TMA tables (the shared folder's gnr-metrics.json): the tree, each metric under
#     the selected metric whose group ("NAME_group") it is in, parent first;
#  4. PostgreSQL (when a server can be started): the same rows as SQLite.
#   export_metrics.sh PMUTRACE SOURCE_DIR [SHARED_DIR]
set -u
pmt=$1 src=$2 shared=${3:-}
fail() { echo "FAIL: $*"; exit 1; }
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: the sqlite3 CLI is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
T=$(mktemp -d)
. "$src/tests/tools/pg_server.sh"
stop() { pg_stop "$T"; rm -rf "$T"; }
trap stop EXIT
sq() { sqlite3 -batch -noheader -list -separator , "$@"; }
TM=$src/fixtures/metrics/tiny-metrics.json
# the metrics table as `pmutrace metrics --csv` prints a row (values >= 1e6 with one
# decimal, smaller ones with six; <not counted> for a metric that lacks an event)
ROWS="SELECT interval, aggr, pmu, name, CASE WHEN missing_event IS NOT NULL THEN '<not counted>'
	WHEN value IS NULL THEN 'nan' WHEN abs(value) >= 1e6 THEN printf('%.1f', value)
	ELSE printf('%.6f', value) END, unit, CASE threshold WHEN 1 THEN 'yes' WHEN 0 THEN 'no'
	ELSE '' END FROM metrics ORDER BY id"

# 1. counting, per CPU and per 100 ms interval
if ! "$pmt" stat -a -A -I 100 -e task-clock,context-switches -o "$T/s.pmt" -- sleep 0.35 \
	>/dev/null 2>"$T/stat.err"; then
	grep -q "no permission" "$T/stat.err" &&
		{ echo "SKIP: perf_event_open not allowed: $(cat "$T/stat.err")"; exit 77; }
	fail "stat -o: $(cat "$T/stat.err")"
fi
"$pmt" metrics "$T/s.pmt" --metrics "$TM" -M Software --csv 2>"$T/m.err" | tail -n +2 >"$T/s.want"
"$pmt" export sqlite "$T/s.pmt" --metrics "$TM" -M Software -o "$T/s.db" 2>"$T/s.err"
rc=$?
[ $rc = 2 ] || fail "export of a counting recording: exit $rc, want 2 (cpus_utilized lacks duration_time): $(cat "$T/s.err")"
cmp -s "$T/m.err" "$T/s.err" || fail "export's warnings differ from metrics': $(diff "$T/m.err" "$T/s.err")"
sq "$T/s.db" "$ROWS" >"$T/s.got"
[ "$(grep -c cs_per_msec "$T/s.want")" -gt 2 ] || fail "metrics TRACE printed too few rows: $(cat "$T/s.want")"
cmp -s "$T/s.want" "$T/s.got" || fail "counting: rows differ from pmutrace metrics: $(diff "$T/s.want" "$T/s.got" | head -5)"
echo "counting: $(wc -l <"$T/s.got") rows equal pmutrace metrics"
# the page's tree: the same rows, each with its interval and CPU
"$pmt" report "$T/s.pmt" --html "$T/s.html" --metrics "$TM" -M Software 2>/dev/null
sq "$T/s.db" "SELECT trim(interval || ' ' || aggr), name, CASE WHEN value IS NULL THEN 'nan'
	ELSE printf('%.6g', value) END FROM metrics ORDER BY id" >"$T/s.hw"
python3 - "$T/s.html" >"$T/s.hg" <<'PY'
import re, sys
for m in re.finditer(r'<g class="mnode" data-name="([^"]*)" data-value="([^"]*)"[^>]* data-where="([^"]*)"',
                     open(sys.argv[1]).read()):
    print(f"{m.group(3)},{m.group(1)},{m.group(2)}")
PY
cmp -s "$T/s.hw" "$T/s.hg" || fail "report --html's metric rows differ: $(diff "$T/s.hw" "$T/s.hg" | head -5)"
# the metric options without tables are a usage error; so is the tree without --html
"$pmt" export sqlite "$T/s.pmt" -M Software -o "$T/x.db" >/dev/null 2>&1
[ $? = 129 ] || fail "-M without --metrics: not a usage error"
"$pmt" report "$T/s.pmt" --metrics "$TM" >/dev/null 2>&1
[ $? = 129 ] || fail "report --metrics without --html: not a usage error"

# 2. TPEBS on the simulated PEBS PMU
if command -v cc >/dev/null; then
	EVJ=$src/fixtures/events/gnr_tpebs.json
	cc -shared -fPIC -O2 -o "$T/sim.so" "$src/tests/pmusim/pmusim.c" -ldl -lpthread || fail "pmusim"
	sh "$src/tests/oracles/fake_intel_sysfs.sh" "$T/gnr" gnr >/dev/null
	env SYSFS_PATH="$T/gnr" PERF_CPUID=GenuineIntel-6-AD-0 PMUSIM_PEBS_TYPE=4 \
		PMUSIM_PEBS_SAMPLES=2000 PMUSIM_PEBS_SEED=11 PMUSIM_LOG="$T/t.log" \
		PMUSIM_DONE_SIGNAL=2 LD_PRELOAD="$T/sim.so" "$pmt" record -q --tpebs \
		-M tma_lock_latency --metrics "$TM" --events "$EVJ" -a --duration 30 \
		-o "$T/t.pmt" 2>/dev/null
	"$pmt" info "$T/t.pmt" | grep -q "LOCK_LOADS:p: 2000 samples" || fail "the TPEBS recording"
	printf '%s\n' "1000000,,MEM_INST_RETIRED.LOCK_LOADS,1000000,100.00,," \
		"2000000000,,CPU_CLK_UNHALTED.THREAD,1000000,100.00,," >"$T/c.csv"
	opts="--metrics $TM --events $EVJ --counts $T/c.csv -M tma_lock_latency"
	# shellcheck disable=SC2086 # opts split on purpose
	"$pmt" metrics "$T/t.pmt" $opts --csv 2>/dev/null | tail -n +2 >"$T/t.want"
	# shellcheck disable=SC2086
	"$pmt" export sqlite "$T/t.pmt" $opts -o "$T/t.db" 2>"$T/t.err" ||
		fail "export of the TPEBS recording: $(cat "$T/t.err")"
	sq "$T/t.db" "$ROWS" >"$T/t.got"
	cmp -s "$T/t.want" "$T/t.got" || fail "TPEBS: rows differ from pmutrace metrics: $(diff "$T/t.want" "$T/t.got")"
	"$pmt" calibrate "$T/t.pmt" -o "$T/cal.json" >/dev/null 2>&1 || fail calibrate
	want=$(python3 - "$T/cal.json" "$EVJ" <<'PY'
import json, sys
cal = json.load(open(sys.argv[1]))["Data"]["MEM_INST_RETIRED.LOCK_LOADS"]["MEAN"]
evs = json.load(open(sys.argv[2]))
evs = evs["Events"] if isinstance(evs, dict) else evs
dflt = [e["RetirementLatencyMean"] for e in evs if e.get("EventName") == "MEM_INST_RETIRED.LOCK_LOADS"][0]
print(f"{round(float(cal)):.1f},{round(float(dflt)):.1f}")
PY
)
	got=$(sq "$T/t.db" "SELECT printf('%.1f,%.1f', retlat_measured, retlat_default) FROM metrics WHERE name = 'tma_lock_latency'")
	[ -n "$want" ] && [ "$got" = "$want" ] || fail "retire latency measured,default: $got, want $want"
	# the page's row: the value and both latencies
	# shellcheck disable=SC2086
	"$pmt" report "$T/t.pmt" --html "$T/t.html" $opts 2>/dev/null
	v=$(awk -F, '$4 == "tma_lock_latency" { print $5 }' "$T/t.want")
	python3 - "$T/t.html" "$v" "$want" <<'PY' || fail "report --html: the metric row"
import re, sys
page, value, want = open(sys.argv[1]).read(), float(sys.argv[2]), sys.argv[3].split(',')
m = re.search(r'<g class="mnode" data-name="tma_lock_latency" data-value="([^"]*)"[^>]*>'
              r'.*?<text class="mval"[^>]*>[^<]* %</text></g>\n<g class="mretlat" '
              r'data-metric="tma_lock_latency".*?<text class="mrl"[^>]*>measured ([^ ]*) / '
              r'default ([^<]*)</text>', page)
if not m or abs(float(m.group(1)) - value) > 1e-6 * abs(value) or [m.group(2), m.group(3)] != want:
    sys.exit(f'page: {m.groups() if m else "no row"}, want {value} {want}')
PY
	echo "TPEBS: tma_lock_latency $v %, retire latency measured,default $got (SQLite and HTML)"
	# a metric of two :R events: each has its measured and default latency (the table
	# metric_retire_latencies, the page's lines under the metric); L3_HIT has no samples,
	# so its measured one is NULL and the value takes its default
	printf '%s\n' '[{"MetricName": "two_r", "MetricExpr":' \
		'"MEM_INST_RETIRED.LOCK_LOADS:R + MEM_LOAD_RETIRED.L3_HIT:R"}]' >"$T/two.json"
	opts2="--metrics $T/two.json --events $EVJ --counts $T/c.csv"
	# shellcheck disable=SC2086
	"$pmt" metrics "$T/t.pmt" $opts2 --csv 2>/dev/null | tail -n +2 >"$T/r.want"
	# shellcheck disable=SC2086
	"$pmt" export sqlite "$T/t.pmt" $opts2 -o "$T/r.db" 2>/dev/null
	sq "$T/r.db" "$ROWS" >"$T/r.got"
	cmp -s "$T/r.want" "$T/r.got" || fail "two :R: rows differ from pmutrace metrics: $(diff "$T/r.want" "$T/r.got")"
	sq "$T/r.db" "SELECT m.name, r.event, CASE WHEN r.retlat_measured IS NULL THEN 'NULL'
		ELSE printf('%.1f', r.retlat_measured) END,
		printf('%.1f', r.retlat_default) FROM metric_retire_latencies r JOIN metrics m
		ON m.id = r.metric_id ORDER BY r.rowid" >"$T/r.lat"
	python3 - "$T/cal.json" "$EVJ" >"$T/r.latwant" <<'PY'
import json, sys
cal = json.load(open(sys.argv[1]))["Data"]
evs = json.load(open(sys.argv[2]))
evs = evs["Events"] if isinstance(evs, dict) else evs
for ev in ("MEM_INST_RETIRED.LOCK_LOADS", "MEM_LOAD_RETIRED.L3_HIT"):
    m = f"{round(float(cal[ev]['MEAN'])):.1f}" if ev in cal else "NULL"
    d = [e["RetirementLatencyMean"] for e in evs if e.get("EventName") == ev][0]
    print(f"two_r,{ev}:R,{m},{round(float(d)):.1f}")
PY
	cmp -s "$T/r.latwant" "$T/r.lat" || fail "two :R: latencies $(cat "$T/r.lat"), want $(cat "$T/r.latwant")"
	# shellcheck disable=SC2086
	"$pmt" report "$T/t.pmt" --html "$T/r.html" $opts2 2>/dev/null
	python3 - "$T/r.html" "$T/r.latwant" <<'PY' || fail "report --html: the :R lines"
import re, sys
page = open(sys.argv[1]).read()
for line in open(sys.argv[2]):
    metric, ev, m, d = line.strip().split(",")
    mm = f' data-retlat-measured="{float(m):g}"' if m != "NULL" else ""
    if f'<g class="mretlat" data-metric="{metric}" data-event="{ev}"{mm} data-retlat-default="{float(d):g}">' not in page:
        sys.exit(f"no line for {ev}")
PY
	echo "TPEBS: two :R events, each with its latencies: $(tr '\n' ' ' <"$T/r.lat")"
else
	echo "note: no C compiler: the TPEBS recording is not checked"
fi

# 3. the tree of perf's TMA tables
G=$shared/data/tpebs/gnr-metrics.json
if [ -n "$shared" ] && [ -f "$G" ]; then
	"$pmt" export sqlite "$T/s.pmt" --metrics "$G" -M TopdownL1 -M TopdownL2 -o "$T/g.db" 2>/dev/null
	sq "$T/g.db" "SELECT name, depth FROM metrics WHERE aggr = 'CPU0' AND interval =
		(SELECT min(interval) FROM metrics)" >"$T/g.got"
	python3 - "$G" "$T/g.got" <<'PY' || fail "the TMA tree"
import json, sys
table = {m["MetricName"]: m.get("MetricGroup", "").split(";") for m in json.load(open(sys.argv[1]))}
rows = [l.strip().split(",") for l in open(sys.argv[2])]
names = [n for n, _ in rows]
if len(rows) < 8:
    sys.exit(f"{len(rows)} rows")
seen = {}
for n, d in rows:
    parents = [p for p in names if p + "_group" in table[n]]
    want = seen[parents[0]] + 1 if parents else 0
    if parents and parents[0] not in seen:
        sys.exit(f"{n} comes before its parent {parents[0]}")
    if int(d) != want:
        sys.exit(f"{n}: depth {d}, want {want}")
    seen[n] = int(d)
if max(seen.values()) < 1:
    sys.exit("no metric under another")
PY
	echo "tree: $(wc -l <"$T/g.got") TopdownL1/L2 metrics, each under its parent"
else
	echo "note: the shared folder's gnr-metrics.json is missing: the tree is not checked"
fi

# 4. PostgreSQL: the counting recording's rows as SQLite's
if pg_start "$T" >"$T/why" 2>&1; then
	"$pmt" export postgresql "$T/s.pmt" --metrics "$TM" -M Software --db "$PMT_PG" 2>/dev/null
	[ $? = 2 ] || fail "export postgresql with metrics"
	c="id, interval, aggr, pmu, name, depth, round(value::numeric, 9), unit, threshold,
		missing_event, retlat_measured, retlat_default"
	psql -X -q -A -t -F, -v ON_ERROR_STOP=1 "$PMT_PG" -c "SELECT $c FROM metrics
		WHERE run_id = 1 ORDER BY id" >"$T/s.pg"
	sq "$T/s.db" "SELECT id, interval, aggr, pmu, name, depth, CASE WHEN value IS NOT NULL
		THEN printf('%.9f', value) END, unit, threshold, missing_event, retlat_measured,
		retlat_default FROM metrics ORDER BY id" >"$T/s.sq"
	cmp -s "$T/s.sq" "$T/s.pg" || fail "PostgreSQL's metrics differ from SQLite's: $(diff "$T/s.sq" "$T/s.pg" | head -5)"
	echo "PostgreSQL: $(wc -l <"$T/s.pg") metric rows equal SQLite's"
	if [ -f "$T/r.db" ]; then
		# shellcheck disable=SC2086
		"$pmt" export postgresql "$T/t.pmt" $opts2 --db "$PMT_PG" 2>"$T/r.pgerr"
		rc=$? # 2: L3_HIT's default stands in for samples, said as a warning
		[ $rc = 2 ] || fail "export postgresql of the two :R metric: exit $rc: $(cat "$T/r.pgerr")"
		psql -X -q -A -t -F, -v ON_ERROR_STOP=1 "$PMT_PG" -c "SELECT metric_id, event,
			retlat_measured, retlat_default FROM metric_retire_latencies WHERE run_id =
			(SELECT max(run_id) FROM metric_retire_latencies) ORDER BY event" >"$T/r.pg"
		# the latencies are whole cycles (rint): %.15g prints them as PostgreSQL does
		sq "$T/r.db" "SELECT metric_id, event, CASE WHEN retlat_measured IS NOT NULL THEN
			printf('%.15g', retlat_measured) END, printf('%.15g', retlat_default) FROM
			metric_retire_latencies ORDER BY event" >"$T/r.sq"
		cmp -s "$T/r.sq" "$T/r.pg" || fail "PostgreSQL's :R latencies differ: $(diff "$T/r.sq" "$T/r.pg" | tr "\n" " ")"
		echo "PostgreSQL: $(wc -l <"$T/r.pg") :R latencies equal SQLite's"
	fi
else
	echo "note: no PostgreSQL server ($(tail -1 "$T/why")): its table is not checked"
fi
