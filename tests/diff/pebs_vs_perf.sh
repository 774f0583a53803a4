#!/bin/sh
# PEBS-shaped samples (tests/perfdata/pebs_like.c: PERF_TYPE_RAW events with WEIGHT_STRUCT,
# ADDR, DATA_SRC, CPU, PERIOD, a cpu-clock beside them, two CPUs out of time order across
# FINISHED_ROUND rounds) printed and counted as perf prints them (issue 12 item 7): script's
# default layout and -F with ins_lat (and retire_lat, perf 7.3), --csv/--jsonl values, and
# report --sort sym,dso / comm,cpu, against perf 6.1 (--perf-compat=6.1) and perf 7.3.
# Usage: pebs_vs_perf.sh PMUTRACE PEBS_LIKE [PERF73]
set -u
pmt=$1
gen=$2
p73=${3:-}
. "$(dirname "$0")/own_samples_lib.sh"
"$gen" "$tmp/p.data" || fail "pebs_like"
"$gen" "$tmp/only.data" pebs-only || fail "pebs_like pebs-only"
check() { # PERF FIELDS COMPAT-ARGS...
	perf=$1 F=$2
	shift 2
	$perf script -i "$tmp/p.data" 2>/dev/null >"$tmp/want"
	"$pmt" script "$tmp/p.data" "$@" >"$tmp/got" 2>"$tmp/err" || fail "script: $(cat "$tmp/err")"
	same "script $* vs $perf"
	# perf refuses -F fields an event does not sample (cpu-clock has no addr)
	$perf script -i "$tmp/only.data" -F "$F" 2>/dev/null >"$tmp/want"
	"$pmt" script "$tmp/only.data" -F "$F" "$@" >"$tmp/got" 2>/dev/null
	same "script -F $F $* vs $perf"
	for keys in sym,dso comm,cpu; do
		$perf report -i "$tmp/p.data" --stdio --sort $keys 2>/dev/null | grep -v -e Tip -e '^#$' >"$tmp/want"
		"$pmt" report "$tmp/p.data" --stdio --sort $keys "$@" 2>/dev/null | grep -v -e Tip -e '^#$' >"$tmp/got"
		same "report --sort $keys $* vs $perf"
	done
}
check perf comm,tid,cpu,time,period,event,addr,weight,ins_lat,ip,sym,dso --perf-compat=6.1
n=1
if [ -n "$p73" ] && [ -x "$p73" ]; then
	check "$p73" comm,pid,tid,cpu,time,period,event,addr,weight,ins_lat,retire_lat,ip,sym,symoff,dso
	n=2
fi
# JSONL and CSV carry the same values: weight, ins_lat, retire_lat of every sample
if [ -n "$p73" ] && [ -x "$p73" ]; then
	$p73 script -i "$tmp/only.data" -F weight,ins_lat,retire_lat 2>/dev/null |
		awk '{print $1, $2, $3}' >"$tmp/want"
	"$pmt" script "$tmp/only.data" --jsonl |
		sed -E 's/.*"weight":([0-9]+).*"ins_lat":([0-9]+),"retire_lat":([0-9]+).*/\1 \2 \3/' >"$tmp/got"
	same "--jsonl weight, ins_lat, retire_lat vs $p73"
	# the last two CSV columns (the event names hold commas, so count from the end)
	awk '{print $2, $3}' "$tmp/want" >"$tmp/lat"
	"$pmt" script "$tmp/only.data" --csv | awk -F, 'NR > 1 {print $(NF-1), $NF}' >"$tmp/got"
	mv "$tmp/lat" "$tmp/want"
	same "--csv ins_lat, retire_lat vs $p73"
fi
"$pmt" script "$tmp/p.data" --csv | head -1 | grep -q ',ins_lat,retire_lat$' || fail "--csv header"
# -F fields an event does not sample: refused as perf refuses them (exit 1, perf's words)
rc=0
"$pmt" script "$tmp/p.data" -F ip,addr >/dev/null 2>"$tmp/err" || rc=$?
[ $rc = 1 ] || fail "-F addr with cpu-clock: exit $rc, want 1"
perf script -i "$tmp/p.data" -F ip,addr 2>&1 >/dev/null | grep -o "Samples for 'cpu-clock'.*field." >"$tmp/want"
grep -o "Samples for 'cpu-clock'.*field." "$tmp/err" >"$tmp/got"
same "-F addr refusal vs perf"
echo "OK: PEBS-shaped samples as perf $n version(s) print and count them"
