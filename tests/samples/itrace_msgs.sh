#!/bin/sh
# perf's --itrace messages and defaults per compat level (texts from arm-spe.c:
# arm_spe_process_auxtrace_info() of perf >= 6.18, arm_spe_synth_events() before).
#   itrace_msgs.sh PMUTRACE
set -u
PMUTRACE=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$PMUTRACE" synth --records 300 --seed 5 -o "$T/a.spe" || fail synth
"$PMUTRACE" convert --raw "$T/a.spe" --midr 0x410fd0c0 -o "$T/a.data" || fail convert
# newest: a time period is refused
if "$PMUTRACE" script "$T/a.data" --itrace=i >/dev/null 2>"$T/err"; then
	fail "--itrace=i accepted"
fi
grep -qF "You must only use i (instructions) --itrace period with Arm SPE. e.g --itrace=i1i" \
	"$T/err" || fail "no refusal text"
# newest: a period > 1 warns, and decodes
"$PMUTRACE" script "$T/a.data" --itrace=i3i >/dev/null 2>"$T/err" || fail "i3i refused"
grep -qF -- "--itrace periods > 1i downsample by an interval of n SPE samples" "$T/err" ||
	fail "no period warning"
# 6.13: the old warning, instructions dropped
"$PMUTRACE" script "$T/a.data" --itrace=i --perf-compat=6.13 >"$T/out" 2>"$T/err" ||
	fail "6.13 refused"
grep -qF "Only instruction-based sampling period is currently supported by Arm SPE." \
	"$T/err" || fail "no 6.13 warning"
# defaults: instructions (one per record, 300) at newest, none at 6.13
n=$("$PMUTRACE" script "$T/a.data" --csv | grep -c '^instructions,')
[ "$n" = 300 ] || fail "newest default: $n instructions samples, want 300"
n=$("$PMUTRACE" script "$T/a.data" --csv --perf-compat=6.13 | grep -c '^instructions,')
[ "$n" = 0 ] || fail "6.13 default: $n instructions samples, want 0"
echo "OK"
