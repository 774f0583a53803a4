#!/bin/sh
# Issue 15 item 9: counts files as perf stat -x, writes them on this machine, perf 6.1 and
# x86 perf 7.3, plain, -I, -A and --per-core (with their "# started on" comment, blank
# line, <not counted> intervals): every one is read without a complaint, every count line
# gives a row, and the metric context-switches / task-clock equals the same quotient
# computed by awk from perf's own count columns (perf's own metric column is computed from
# the unrounded task-clock, so it is no check of the printed one).
#   counts_perf_stat.sh PMUTRACE SOURCE_DIR [ORACLES_DIR]
set -u
P=$1 SRC=$2 X=${3:-}/bin/perf-7.3
command -v perf >/dev/null || { echo "SKIP: no perf 6.1"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0 n=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
M=$SRC/fixtures/metrics/tiny-metrics.json
EV=task-clock,context-switches,page-faults
check() { # NAME FILE LAYOUT (I: -I, A: -A, C: --per-core): pmutrace's rows against perf's
	name=$1 f=$2
	[ -s "$f" ] || { bad "$name: perf wrote nothing"; return; }
	"$P" metrics --metrics "$M" --counts "$f" -M cs_per_msec --csv >"$T/out" 2>"$T/err"
	rc=$?
	# <not counted> intervals make the metric not counted, said on stderr: exit 2
	if grep -q '<not counted>' "$f"; then want=2; else want=0; fi
	[ $rc = $want ] || { bad "$name: exit $rc (want $want): $(head -2 "$T/err")"; return; }
	grep -v 'not counted; the metric is not computed' "$T/err" | grep -q . &&
		bad "$name: stderr: $(head -2 "$T/err")"
	# perf's lines: [time,][aggr,[nr,]]value,unit,event,...; the layout from the options
	awk -F, -v lay="$3" '
		/^#/ || NF < 5 { next }
		{ i = 1; t = ""; a = "" }
		lay ~ /I/ { t = $i; sub(/^ */, "", t); i++ }
		lay ~ /A|C/ { a = $i; i++ }
		lay ~ /C/ { i++ }
		{ k = t "," a }
		$(i + 2) == "task-clock" { tc[k] = $i; keys[k] = 1 }
		$(i + 2) == "context-switches" { cs[k] = $i }
		END { for (k in keys) {
			if (tc[k] ~ /^</ || cs[k] ~ /^</) printf "%s,<not counted>\n", k
			else printf "%s,%.9g\n", k, cs[k] / tc[k] } }' "$f" | sort >"$T/want"
	awk -F, 'NR > 1 { printf "%s,%s,%s\n", $1, $2, $5 }' "$T/out" | sort >"$T/got"
	# the same keys in the same order; values equal to pmutrace's six decimals: half a unit
	# of the sixth decimal, plus the want's own rounding to 9 digits (1.1505985 against a
	# printed 1.150598 is a true 1.15059849..., 5e-7 apart on paper)
	paste -d, "$T/want" "$T/got" | awk -F, -v nw="$(wc -l <"$T/want")" '
		{ n++; if ($1 != $4 || $2 != $5) exit 1
		  if ($3 ~ /^</ || $6 ~ /^</) { if ($3 != $6) exit 1; next }
		  d = $3 - $6; if (d < 0) d = -d; if (d > 5.1e-7) exit 1 }
		END { exit !(n && n == nw) }' &&
		[ "$(wc -l <"$T/want")" = "$(wc -l <"$T/got")" ] ||
		bad "$name: pmutrace $(tr '\n' ';' <"$T/got") perf's counts $(tr '\n' ';' <"$T/want")"
	n=$((n + 1))
}
run() { # NAME LAYOUT PERF ARGS...: perf stat -x, -o FILE ARGS
	name=$1 lay=$2 perf=$3
	shift 3
	"$perf" stat -x, -o "$T/$name.csv" -e $EV "$@" >/dev/null 2>&1
	check "$name" "$T/$name.csv" "$lay"
}
for p in perf "$X"; do
	[ -x "$(command -v "$p")" ] || continue
	v=61
	[ "$p" = perf ] || v=73
	run p$v - "$p" -- sleep 0.05
	run p${v}_I I "$p" -I 100 -- sleep 0.35
	run p${v}_A A "$p" -a -A -- sleep 0.05
	run p${v}_core C "$p" -a --per-core -- sleep 0.05
	run p${v}_AI IA "$p" -a -A -I 100 -- sleep 0.25
done
[ $fail = 0 ] || exit 1
echo "OK: $n perf stat -x, outputs read, each row as perf's counts give it"
