#!/bin/sh
# pmutrace report --json sample counts per group vs perf report --stdio ("# Samples: N of
# event 'X'") on one synthetic perf.data, with perf's default --itrace (all but
# instructions) and --perf-compat=6.1 (6.1 names the branch group "branch-miss").
#   [PERF=CMD] [COMPAT=VER] spe_report_vs_perf.sh PMUTRACE SEED MIX RECORDS MIDR [synth options...]
# PERF: the perf to compare with (default perf, Debian's 6.1); COMPAT: pmutrace's
# --perf-compat (default 6.1; newest = pmutrace's default model).
set -eu
PMUTRACE=$1 SEED=$2 MIX=$3 RECORDS=$4 MIDR=$5
shift 5
PERF=${PERF:-perf}
COMPAT=${COMPAT:-6.1}
$PERF version >/dev/null 2>&1 || { echo "SKIP: $PERF does not run (tests/oracles/setup builds perf 7.3)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PMUTRACE" synth --records "$RECORDS" --seed "$SEED" --mix "$MIX" "$@" -o "$T/a.spe"
CONV=""
[ "$MIDR" != 0 ] && CONV="--midr $MIDR"
# shellcheck disable=SC2086
"$PMUTRACE" convert --raw "$T/a.spe" $CONV -o "$T/a.perf.data"
$PERF report -i "$T/a.perf.data" --stdio >"$T/perf.txt" 2>"$T/perf.err" ||
	{ cat "$T/perf.err"; exit 1; }
"$PMUTRACE" report "$T/a.perf.data" --json --perf-compat="$COMPAT" >"$T/pmt.json"
# "# Samples: 1K of event 'x'" rounds; the next line's event count is exact (period 1)
awk -F"'" '/^# Samples: .* of event / { ev = $2 }
	/^# Event count \(approx.\): / && ev != "" { n = $0; sub(/.*: /, "", n); print ev, n; ev = "" }' \
	"$T/perf.txt" | sort >"$T/perf.cnt"
tr '{' '\n' <"$T/pmt.json" |
	sed -n 's/^"event":"\([^"]*\)","samples":\([0-9]*\).*/\1 \2/p' |
	awk '$2 > 0' | sort >"$T/pmt.cnt"
if ! cmp -s "$T/perf.cnt" "$T/pmt.cnt"; then
	echo "FAIL: per-group counts differ (perf < > pmutrace)"
	diff "$T/perf.cnt" "$T/pmt.cnt"
	exit 1
fi
[ -s "$T/perf.cnt" ] || { echo "FAIL: perf reported no samples"; exit 1; }
echo "OK: $(wc -l <"$T/perf.cnt") groups with equal counts: $(tr '\n' ' ' <"$T/perf.cnt")"
