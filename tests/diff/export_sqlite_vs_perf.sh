#!/bin/sh
# pmutrace export sqlite against perf 6.1's own exporter (export-to-sqlite.py, which needs
# PySide2's QtSql for Debian's python3): on the same perf.data, with perf 6.1's rules and
# samples, every sample's event name, cpu, pid, tid, time, ip, period, weight, data_src
# and address (perf's to_ip) are equal, row by row in perf's order. perf's placeholder
# row (id 0, all zero) is left out.   export_sqlite_vs_perf.sh PMUTRACE
set -u
pmt=$1
fail() { echo "FAIL: $*"; exit 1; }
. "$(dirname "$0")/../tools/perf_export_script.sh"
perf_export_script
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$pmt" synth --records 20000 --mix n1 --context --seed 11 -o "$T/a.spe" &&
	"$pmt" convert --raw "$T/a.spe" --midr 0x410fd0c0 -o "$T/a.perf.data" || fail "making the trace"
perf script -i "$T/a.perf.data" --itrace=bfmtaM -s "$script" "$T/perf.db" >"$T/perf.out" 2>&1 ||
	fail "perf's export: $(tail -3 "$T/perf.out")"
"$pmt" export sqlite "$T/a.perf.data" --itrace=bfmtaM --perf-compat=6.1 -o "$T/pmt.db" ||
	fail "pmutrace export"
q() { sqlite3 -batch -noheader -list -separator , "$@"; }
q "$T/perf.db" "SELECT e.name, s.cpu, t.pid, t.tid, s.time, s.ip, s.period, s.weight,
	s.data_src, s.to_ip FROM samples s JOIN selected_events e ON e.id = s.evsel_id
	JOIN threads t ON t.id = s.thread_id WHERE s.id > 0 ORDER BY s.id" >"$T/perf.rows"
q "$T/pmt.db" "SELECT e.name, s.cpu, s.pid, s.tid, s.time, s.ip, s.period, s.weight,
	s.data_src, s.addr FROM samples s JOIN events e ON e.id = s.event_id ORDER BY s.id" \
	>"$T/pmt.rows"
[ -s "$T/perf.rows" ] || fail "perf exported no samples"
cmp -s "$T/perf.rows" "$T/pmt.rows" ||
	fail "rows differ from perf's export: $(diff "$T/perf.rows" "$T/pmt.rows" | head -5)"
echo "OK: $(wc -l <"$T/pmt.rows") samples equal to perf 6.1's export-to-sqlite.py, row by row"
