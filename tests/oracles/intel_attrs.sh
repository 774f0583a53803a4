#!/bin/sh
# Attr oracle for Intel (issue 11 test a): `pmutrace record --dry-run -v` prints the
# perf_event_attrs that x86 perf 7.3's `perf record -vv` prints for the same command line on
# fake Intel sysfs trees (tests/oracles/fake_intel_sysfs.sh): a Granite Rapids "cpu" PMU
# (PERF_CPUID GenuineIntel-6-AD-0) and a hybrid cpu_core + cpu_atom pair (GenuineIntel-6-97-0).
# perf's feature probes and the fake PMUs' opens are answered by tests/pmusim/probe_ok.c
# (PROBE_OK_TYPES), so perf opens every event and prints every attr. perf's parenthesised
# annotations are dropped; the extended-type probes (pid 0, cpu -1) are not events.
# With SHARED_DIR, Intel's perfmon GNR excerpt (data/tpebs) is read with --events and each of
# its events compared with perf 7.3's built-in GNR table.
#   intel_attrs.sh PMUTRACE ORACLES_DIR [SHARED_DIR]
set -eu
P=$1 ORC=$2 SHARED=${3:-}
. "$(dirname "$0")/x86_perf73_setup.sh"
sh "$HERE/fake_intel_sysfs.sh" "$T/hybrid" hybrid
sh "$HERE/fake_intel_sysfs.sh" "$T/arlh" hybrid arrowlake_h_hybrid lowpower
TABLE=$HERE/../../fixtures/events/gnr_small.json
PERFMON=$SHARED/data/tpebs/GNR_events_graniterapids_core.EXCERPT.json

# attr blocks without annotations, "--" after each; blocks whose open is perf's probe
# (pid 0, cpu -1) dropped. perf may probe while it prints an attr (the annotation of a
# hybrid raw event asks for extended types): the probe's blocks then sit inside the
# event's, right after its first dashed line, and the event's lines go on after them.
blocks() {
	awk '/^perf_event_attr:/ {
		if (closed) { saved = b; have = 0 }   # a probe inside an attr
		else if (have) printf "%s", pend
		have = 0; p = 1; b = ""; closed = 0; next }
	     /^-----/ { closed = 0; if (p) { pend = b "--\n"; have = 1; closed = 1 } p = 0; next }
	     p { sub(/ +\(.*\)$/, ""); b = b $0 "\n"; next }
	     /^  / && saved != "" { sub(/ +\(.*\)$/, ""); b = saved $0 "\n"; saved = ""; p = 1; next }
	     /^sys_perf_event_open: pid 0  cpu -1 / { have = 0; closed = 0; next }
	     { if (have) printf "%s", pend; have = 0; closed = 0 }
	     END { if (have) printf "%s", pend }' "$1"
}
n=0 fail=0
check() { # FS ARGS...   (FS: gnr, hybrid or arlh; @TABLE is the fixture table)
	fs=$1
	shift
	cpuid=GenuineIntel-6-AD-0
	[ "$fs" = hybrid ] && cpuid=GenuineIntel-6-97-0
	[ "$fs" = arlh ] && cpuid=GenuineIntel-6-C5-0
	n=$((n + 1))
	perfargs=$(echo "$*" | sed -e 's/--events @[A-Z]*//' -e 's/--cputype \([a-z]*\)//')
	pmtargs=$(echo "$*" | sed -e "s|@TABLE|$TABLE|" -e "s|@PERFMONDIR|$T/perfmon|" \
		-e "s|@PERFMON|$PERFMON|")
	# perf record has no --cputype: cpu_core/EVENT/ is what it means
	case "$*" in
	*"--cputype core"*) perfargs=$(echo "$perfargs" | sed 's|-e \([a-z-]*\)|-e cpu_core/\1/|g') ;;
	*"--cputype atom"*) perfargs=$(echo "$perfargs" | sed 's|-e \([a-z-]*\)|-e cpu_atom/\1/|g') ;;
	*"--cputype lowpower"*) perfargs=$(echo "$perfargs" | sed 's|-e \([a-z-]*\)|-e cpu_lowpower/\1/|g') ;;
	esac
	# shellcheck disable=SC2086
	SYSFS_PATH=$T/$fs PERF_CPUID=$cpuid PROBE_OK_TYPES=3,4,10,11 LD_PRELOAD=$T/probe.so \
		timeout 60 "$X86" record -vv -o "$T/perf.data" $perfargs >"$T/perf.out" 2>&1 || true
	blocks "$T/perf.out" >"$T/perf.attrs"
	# shellcheck disable=SC2086
	if ! SYSFS_PATH=$T/$fs PERF_CPUID=$cpuid PMUTRACE_EVENTS_PATH=/nonexistent \
		LD_PRELOAD=$T/probe.so \
		"$P" record --dry-run -v $pmtargs >"$T/pmt.out" 2>"$T/pmt.err"; then
		echo "FAIL [$fs] $*: pmutrace refused it:"; cat "$T/pmt.err"
		fail=$((fail + 1))
		return
	fi
	blocks "$T/pmt.out" | grep -v '^  config[34] ' >"$T/pmt.attrs"
	if [ ! -s "$T/perf.attrs" ]; then
		echo "FAIL [$fs] $perfargs: perf printed no attrs:"; tail -5 "$T/perf.out"
		fail=$((fail + 1))
	elif ! cmp -s "$T/perf.attrs" "$T/pmt.attrs"; then
		echo "FAIL [$fs] $*: attrs differ (perf < > pmutrace)"
		diff "$T/perf.attrs" "$T/pmt.attrs" | head -20
		fail=$((fail + 1))
	fi
}

# generic, cache and raw events; sysfs aliases win over the built-in names, as in perf 7.3
check gnr -e cycles -- true
check gnr -e instructions -- true
check gnr -e cpu-cycles -a
check gnr -e branches,branch-misses -- true
check gnr -e cache-misses -C 1-2
check gnr -e ref-cycles -- true
check gnr -e stalled-cycles-frontend -- true
check gnr -e L1-dcache-load-misses -- true
check gnr -e LLC-loads,LLC-store-misses -- true
check gnr -e dTLB-load-misses -a
check gnr -e branch-loads -- true
check gnr -e l1d-loads -- true
check gnr -e L1-dcache-prefetch-misses -- true
check gnr -e node-loads -- true
check gnr -e r1c2 -- true
check gnr -e rc2:u -- true
# PMU terms through the format files, aliases inside PMU events
check gnr -e cpu/event=0xc2,umask=0x2/pp -- true
check gnr -e cpu/event=0xc2,umask=0x2,inv,cmask=2,edge/ -- true
check gnr -e cpu/frontend=0x11,event=0xc6,umask=1/ppp -- true
check gnr -e cpu/config=0x1234,period=1000/ -- true
check gnr -e cpu/cycles,period=1000/ -- true
check gnr -e cpu/cycles/ -- true
check gnr -e cpu/instructions/k -- true
check gnr -e mem-loads -- true
check gnr -e cpu/mem-loads,ldlat=30/P -- true
check gnr -e cpu/event=0xd0,umask=0x81,freq=1000/ -c 5000 -- true
# named events from a JSON table (perf: its built-in GNR table)
check gnr --events @TABLE -e inst_retired.any -- true
check gnr --events @TABLE -e mem_trans_retired.load_latency_gt_128:p -- true
check gnr --events @TABLE -e br_misp_retired.all_branches:pp -- true
check gnr --events @TABLE -e ocr.demand_data_rd.l3_miss -- true
check gnr --events @TABLE -e frontend_retired.dsb_miss -- true
check gnr --events @TABLE -e uops_retired.heavy,int_misc.recovery_cycles -- true
# modifiers
check gnr -e cycles:u -- true
check gnr -e cycles:k -a
check gnr -e cycles:pp -e instructions:P -- true
check gnr -e cycles:G -- true
check gnr -e cycles:H -- true
check gnr -e cycles:I -- true
check gnr -e cycles:D -- true
check gnr -e cycles:e -- true
check gnr -e cycles:S -- true
check gnr -e cycles:R -- true
check gnr -e cycles:R,instructions:R -- true
check gnr -e cycles:b -- true
# groups, leader sampling, topdown
check gnr -e '{cycles,instructions}' -- true
check gnr -e '{cycles,instructions}:S' -- true
check gnr -e '{cycles:S,instructions}' -- true
check gnr -e '{cycles,instructions}:Su' -a
check gnr -e '{cycles,instructions}:W' -- true
check gnr -e '{cycles,cpu/event=0xc2,umask=0x2/,branch-misses}:S' -p 1
check gnr -e '{cycles:pp,instructions}' -e cache-misses -- true
check gnr -e topdown-retiring -- true
check gnr -e topdown-retiring,topdown-bad-spec -- true
check gnr -e topdown-retiring:u -- true
check gnr -e '{instructions,topdown-retiring}' -- true
check gnr -e '{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound}' -a
check gnr -e slots -- true
# hybrid: one event per core PMU, config[63:32] the PMU type, groups split per PMU
check hybrid -e cycles -- true
check hybrid -e cycles -a
check hybrid -e instructions -- true
check hybrid -e LLC-loads -- true
check hybrid -e cycles:u -- true
check hybrid -e cpu_atom/cycles/ -- true
check hybrid -e cpu_core/instructions/ -- true
check hybrid -e r1c2 -- true
check hybrid -e r1c2 -a
check arlh -e r1c2:u -C 0,8,12
check hybrid -e '{cycles,instructions}' -- true
check hybrid -e '{cycles,instructions}:S' -- true
check hybrid -e '{cycles,cpu-clock}' -- true
check hybrid -e '{cpu_core/cycles/,cpu_atom/instructions/}' -- true
check hybrid -e topdown-retiring -- true
check hybrid --cputype core -e cycles -- true
check hybrid --cputype atom -e cycles -- true
# options with groups and :R; the :R event goes after the others of its group (perf 7.3);
# a software event stays with its group
check gnr -e '{cycles,instructions}:S' -a
check gnr -e '{cycles,instructions}:S' -c 10000 -- true
check gnr -e '{cycles,instructions}' -F 999 -- true
check gnr -e '{cycles,instructions}:S' --per-thread -- true
check gnr -e '{cycles,instructions}:S' --no-inherit -- true
check gnr -e '{cycles}:S' -- true
check gnr -e cpu/event=0xc2,umask=0x2/R -- true
check gnr -e cpu/event=0xc2,umask=0x2/ppR -c 1000 -- true
check gnr -e cycles:R -a
check gnr -e '{cycles:R,instructions}:S' -- true
check gnr -e 'cycles,cpu-clock' -- true
check gnr -e '{cpu-clock,cycles}:S' -- true
check gnr -e 'cpu/cycles/u,cpu/branch-misses/k' -- true
check gnr -e 'cpu/L1-dcache-load-misses/' -- true
check gnr -e 'cpu/cycles,name=foo/' -- true
check gnr -e 'cycles:uk' -- true
check gnr -e 'cycles:ukpp' -p 1
check gnr -e 'ref-cycles:S' -t 1
check hybrid -e cycles -C 8
check hybrid -e cycles -C 0,8
check hybrid -e cycles --per-thread -- true
check hybrid -e '{cycles,instructions}:S' -a
check hybrid -e 'cpu_core/topdown-retiring/' -- true
check hybrid -e 'topdown-retiring,cpu_atom/cycles/' -- true
check hybrid -e 'L1-dcache-load-misses:u' -p 1
check hybrid -e 'cpu_core/event=0xc2,umask=0x2/pp,cpu_atom/event=0xc2,umask=0x0/p' -- true
check hybrid -e mem-loads -- true
check hybrid -e '{cpu_core/slots/,cpu_core/topdown-retiring/,cpu_core/topdown-bad-spec/}' -a

# Intel's own perfmon JSON (fixed counters rewritten as perf's converter does)
if [ -r "$PERFMON" ]; then
	for ev in $(sed -n 's/.*"EventName": *"\([^"]*\)".*/\1/p' "$PERFMON"); do
		check gnr --events @PERFMON -e "$ev:p" -- true
	done
	# a perfmon tree: mapfile.csv picks the GNR file for PERF_CPUID GenuineIntel-6-AD-0
	mkdir -p "$T/perfmon/GNR/events"
	cp "$SHARED/data/tpebs/mapfile.csv" "$T/perfmon/"
	cp "$PERFMON" "$T/perfmon/GNR/events/graniterapids_core.json"
	check gnr --events @PERFMONDIR -e cpu_clk_unhalted.thread,frontend_retired.l2_miss:pp -- true
	check gnr --events @PERFMONDIR -e '{topdown.slots,mem_load_retired.l3_hit}:S' -a
else
	echo "note: no $PERFMON: the perfmon table cases are left out"
fi
check gnr -e '{cycles:u,instructions:k}' --per-thread -- true
check gnr -e '{cycles,cycles}' -c 1000 -- true
check gnr -e '{dummy,cycles}:S' -- true
check gnr -e '{cycles,instructions}:D' -- true
check gnr -e '{cycles,instructions}:e' -- true
check gnr -e '{cycles,instructions:D}' -- true
check gnr -e '{cpu/cycles,period=100/,instructions}:S' -c 1000 -- true
check gnr -e '{cycles,instructions}:H' -a
check hybrid -e '{cpu_core/cycles/,cpu_core/instructions/}:S' -C 0-3
check hybrid -e '{slots,topdown-retiring}' -- true
# Arrow Lake-H: a third core PMU, cpu_lowpower (type 11, CPUs 12-13), opened as the others
check arlh -e cycles -- true
check arlh -e cycles -a
check arlh -e LLC-loads -C 11-13
check arlh -e cpu_lowpower/cycles/ -- true
check arlh --cputype lowpower -e cycles -- true
check arlh -e '{cycles,instructions}' -- true
check arlh -e '{cpu_core/cycles/,cpu_lowpower/instructions/}' -- true

# refusals and hints
refuse() { # FS PATTERN ARGS...
	fs=$1 pat=$2
	shift 2
	n=$((n + 1))
	# shellcheck disable=SC2046
	if SYSFS_PATH=$T/$fs PMUTRACE_EVENTS_PATH=/nonexistent "$P" record --dry-run -v \
		$(echo "$*" | sed "s|@TABLE|$TABLE|") \
		>/dev/null 2>"$T/err"; then
		echo "FAIL: pmutrace record $* was accepted"; fail=$((fail + 1))
	elif ! grep -q -- "$pat" "$T/err"; then
		echo "FAIL: pmutrace record $*: no '$pat' in:"; cat "$T/err"; fail=$((fail + 1))
	fi
}
refuse gnr "did you mean cycles" -e cylces -- true
refuse gnr "did you mean.*L1-dcache-load-misses" -e L1-dcache-load-mises -- true
refuse gnr "did you mean.*topdown-retiring" -e topdown-retirng -- true
refuse gnr "no PMU 'cpux'.*did you mean cpu" -e cpux/event=1/ -- true
refuse gnr "valid terms: .*cmask" -e cpu/cmsk=1/ -- true
refuse gnr "W (weak group) is a modifier of groups" -e cycles:W -- true
refuse gnr "unknown modifier 'x'" -e cycles:x -- true
refuse gnr "not in the event tables" --events @TABLE -e inst_retired.anyy -- true
refuse gnr "groups do not nest" -e '{cycles,{instructions}}' -- true
refuse gnr "closing '}'" -e '{cycles,instructions' -- true
refuse gnr "--cputype core is not supported" --cputype core -e cycles -- true
refuse gnr "named events need an event table" -e inst_retired.any -- true
# a group of two PMUs is split, and said as perf says it
n=$((n + 1))
SYSFS_PATH=$T/hybrid "$P" record --dry-run -e '{cpu_core/cycles/,cpu_atom/instructions/}' \
	-- true >/dev/null 2>"$T/err" && grep -q "regrouped to match PMUs" "$T/err" ||
	{ echo "FAIL: no regrouping note for a group of two PMUs: $(cat "$T/err")"; fail=$((fail + 1)); }
[ "$fail" = 0 ] || { echo "FAIL: $fail of $n cases"; exit 1; }
echo "OK: $n command lines: the same attrs as x86 perf 7.3 on GNR and hybrid trees, refusals named"
