#!/bin/sh
# SPE's synthetic samples and a cpu-clock event's samples of one file (tests/perfdata/
# spe_mix.c: rounds of samples, AUX chunk, FINISHED_ROUND) merged in time order as perf
# prints them (issue 12 item 7): script's default layout (both kinds, one event column
# width) and -F, and report --sort comm,cpu per event, against perf 6.1 (--perf-compat=6.1)
# and perf 7.3. Usage: spe_mix_vs_perf.sh PMUTRACE SPE_MIX [PERF73]
set -u
pmt=$1
gen=$2
p73=${3:-}
. "$(dirname "$0")/own_samples_lib.sh"
"$gen" "$tmp/m.data" || fail "spe_mix"
check() { # PERF ITRACE COMPAT-ARGS...
	perf=$1 it=$2
	shift 2
	$perf script -i "$tmp/m.data" --itrace=$it 2>/dev/null >"$tmp/want"
	"$pmt" script "$tmp/m.data" --itrace=$it "$@" >"$tmp/got" 2>"$tmp/err" || fail "script: $(cat "$tmp/err")"
	same "script --itrace=$it $* vs $perf"
	grep -q 'cpu-clock:' "$tmp/got" || fail "no cpu-clock samples"
	F=comm,tid,cpu,time,period,event,ip
	$perf script -i "$tmp/m.data" --itrace=$it -F $F 2>/dev/null >"$tmp/want"
	"$pmt" script "$tmp/m.data" --itrace=$it -F $F "$@" >"$tmp/got" 2>/dev/null
	same "script --itrace=$it -F $F $* vs $perf"
	$perf report -i "$tmp/m.data" --itrace=$it --stdio --sort comm,cpu 2>/dev/null | grep -v -e Tip -e '^#$' >"$tmp/want"
	"$pmt" report "$tmp/m.data" --itrace=$it --stdio --sort comm,cpu "$@" 2>/dev/null | grep -v -e Tip -e '^#$' >"$tmp/got"
	same "report --itrace=$it --sort comm,cpu $* vs $perf"
}
check perf bM --perf-compat=6.1
n=1
if [ -n "$p73" ] && [ -x "$p73" ]; then
	check "$p73" i1ibM --perf-compat=7.3
	n=2
fi
echo "OK: SPE and cpu-clock samples merged as perf $n version(s) merge them"
