#!/bin/sh
# Attr oracle for PEBS sampling (issue 11 item 4): `pmutrace record --dry-run -v` prints the
# perf_event_attrs that x86 perf 7.3's `perf record -vv` prints for the same command line on
# a fake Granite Rapids sysfs tree (tests/oracles/fake_intel_sysfs.sh gnr, PERF_CPUID
# GenuineIntel-6-AD-0): precise_ip from :p/:pp/:ppp, -W's WEIGHT_STRUCT on every evsel,
# fixed periods (-c, period=), frequencies, per CPU (-a, -C) and per task (workload, -p, -t,
# --per-thread). perf's feature probes and the cpu PMU's opens are answered by
# tests/pmusim/probe_ok.c (PROBE_OK_TYPES=4), so perf keeps every event. The
# annotations in parentheses (perf names the event from its tables) are left out.
#   pebs_attrs.sh PMUTRACE ORACLES_DIR
set -eu
P=$1 ORC=$2
. "$(dirname "$0")/x86_perf73_setup.sh"
# a live process for -p/-t
sleep 120 &
LIVE=$!
trap 'kill $LIVE 2>/dev/null; rm -rf "$T"' EXIT

# the attr blocks of perf -vv (or of pmutrace's sampled events: its counted ones follow a
# "counting events" line), one "--" line after each, annotations cut
blocks() {
	awk '/^counting events/ { exit } /^perf_event_attr:/ { p = 1; next }
	     /^-----/ { if (p) print "--"; p = 0 } p' "$1" | sed 's/ (.*)$//'
}
# the counting attrs of perf stat -vv (or pmutrace's after that line) and their opens:
# pid, cpu and leader or member, in order
counted() {
	awk -v all="$2" '/^counting events/ { all = 1; next } !all { next }
	     /^perf_event_attr:/ { p = 1; next } /^-----/ { if (p) print "--"; p = 0; next }
	     /^sys_perf_event_open:/ { print $3, $5, ($7 == "-1" ? "leader" : "member") } p' "$1" |
		sed 's/ (.*)$//'
}
n=0 fail=0
check() { # ARGS...: the same command line for both
	check_pair "$*" "$*"
}
check_pair() { # PERF_ARGS PMUTRACE_ARGS
	args=$(echo "$2" | sed "s/@PID/$LIVE/g")
	n=$((n + 1))
	# shellcheck disable=SC2046
	SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 PROBE_OK_TYPES=4 LD_PRELOAD=$T/probe.so timeout 60 \
		"$X86" record -vv -o "$T/perf.data" $(echo "$1" | sed "s/@PID/$LIVE/g") \
		>"$T/perf.out" 2>&1 || true
	# perf's side-band dummy for BPF events (watermark) is not part of a recording's data
	blocks "$T/perf.out" | awk 'BEGIN { RS = "--\n"; ORS = "" }
		!/watermark/ && NF { print $0 "--\n" }' >"$T/perf.attrs"
	# shellcheck disable=SC2086
	rc=0
	SYSFS_PATH=$T/gnr "$P" record --dry-run -v $args >"$T/pmt.out" 2>"$T/pmt.err" || rc=$?
	if [ $rc != 0 ]; then
		echo "FAIL $args: pmutrace refused it:"; cat "$T/pmt.err"
		fail=$((fail + 1))
		return
	fi
	blocks "$T/pmt.out" | grep -v '^  config[34] ' >"$T/pmt.attrs"
	if [ ! -s "$T/perf.attrs" ]; then
		echo "FAIL $args: perf printed no attrs:"; tail -5 "$T/perf.out"
		fail=$((fail + 1))
	elif ! cmp -s "$T/perf.attrs" "$T/pmt.attrs"; then
		echo "FAIL $args: attrs differ (perf < > pmutrace)"
		diff "$T/perf.attrs" "$T/pmt.attrs" | head -20
		fail=$((fail + 1))
	fi
}

# precise levels, with and without the weight
check -e cpu/event=0xc2,umask=0x2/p -- true
check -e cpu/event=0xc2,umask=0x2/pp -W -c 1000003 -- true
check -e cpu/event=0xd0,umask=0x81/ppp -W -a
check -e cpu/event=0xc2,umask=0x2/ppu -W -- true
check -e cpu/event=0xc4/pp -W -F 999 -- true
# SampleAfterValue as a period= term (what jevents makes of it), config1 terms
check -e cpu/event=0xd0,umask=0x21,period=100007/p -W -a
check -e cpu/event=0xd1,umask=0x4,period=100021/pp -W -C 0-3
check -e cpu/event=0xc6,umask=0x3,frontend=0x13/p -W -a
check -e cpu/event=0xcd,umask=0x1,ldlat=30/pp -W -- true
check -e cpu/event=0xc2,umask=0x2/pp -W -c 1000003 -C 1
# the memory-sampling fields (perf mem record's): data address and source, period,
# physical address, page sizes, CPU
check -e cpu/event=0xcd,umask=0x1,ldlat=30/pp -W -d -- true
check -e cpu/event=0xcd,umask=0x1,ldlat=30/pp -W -d -a
check -e cpu/event=0xd0,umask=0x81/pp -W -P -c 1000 -- true
check -e cpu/event=0xd0,umask=0x81/pp -W -d --phys-data --data-page-size --code-page-size -C 2
check -e cpu/event=0xd0,umask=0x81/pp --sample-cpu -- true
check -e cpu/event=0xcd,umask=0x1,ldlat=30/pp -e cpu/event=0xd0,umask=0x82/pp -W -d -- true
# several events: ids on every sample (IDENTIFIER where the sample types differ)
check -W -e cpu/event=0xc2,umask=0x2/pp -e cpu/event=0xd0,umask=0x81/p -c 10007 -a
check -W -e cpu/event=0xc2,umask=0x2/pp -e cpu/event=0xd0,umask=0x81,period=2003/p -- true
check -e cpu/event=0xd0,umask=0x81/pp -e cpu-clock -W -- true
# --sample-identifier: IDENTIFIER with one event too
check -e cpu/event=0xc2,umask=0x2/pp --sample-identifier -- true
check -e cpu/event=0xc2,umask=0x2/pp -e cpu/event=0xd0,umask=0x81/p --sample-identifier -a
# groups with the weight (leader sampling reads the members), and :R (perf >= 6.16 gives
# the weight to an :R event without -W)
check -W -e {cpu/event=0xd0,umask=0x21/pp,cpu/event=0x3c/}:S -- true
check -W -e {cpu/event=0xd0,umask=0x21/pp,cpu/event=0x3c/} -a
check -e cpu/event=0xd0,umask=0x21/R -- true
check -e cpu/event=0xd0,umask=0x21/ppR -a
# per task
check -e cpu/event=0xc4,umask=0x0/ppp -W -p @PID
check -e cpu/event=0xc4/pp -W -t @PID
check -e cpu/event=0xc2,umask=0x2/pp -W --per-thread -- true
check -e cpu/event=0xc2,umask=0x2/pp -W --no-inherit -- true
# generic events and the weight alone
check -e cycles:pp -W -- true
check -e cpu-clock -W -a
# record --tpebs: the record child of perf stat --record-tpebs (intel-tpebs.c) runs
# `perf record -W -e EV/name=tpebs_event_PTR/p ...` with no workload (system-wide) or with
# -C; pmutrace opens the same for the metrics' :R events (named by the event, not a pointer)
M=$HERE/../../fixtures/metrics/tpebs-raw-metrics.json
# The metrics' other events are counted in the same recording: the attrs and opens x86 perf
# 7.3's `perf stat -vv` prints for them on the same CPUs (perf stat's counting half of
# --record-tpebs, without its metric grouping). Run after check_pair, on its output.
check_counted() { # PERF_STAT_ARGS
	n=$((n + 1))
	# shellcheck disable=SC2086
	SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 PROBE_OK_TYPES=4 LD_PRELOAD=$T/probe.so \
		timeout 60 "$X86" stat -vv $1 -- sleep 0.1 >"$T/perf.out" 2>&1 || true
	counted "$T/perf.out" 1 >"$T/perf.counted"
	counted "$T/pmt.out" 0 | grep -v '^  config[34] ' >"$T/pmt.counted"
	if [ ! -s "$T/perf.counted" ] || ! cmp -s "$T/perf.counted" "$T/pmt.counted"; then
		echo "FAIL counted events, perf stat -vv $1: attrs or opens differ (perf < > pmutrace)"
		diff "$T/perf.counted" "$T/pmt.counted" | head -20
		fail=$((fail + 1))
	fi
}
LOCK=cpu/event=0xd0,umask=0x21,period=100007/ L3=cpu/event=0xd1,umask=0x4,period=100021/
CLKS=cpu/event=0x3c/
check_pair "-W -e cpu/event=0xd0,umask=0x21,period=100007/p -a" \
	"--tpebs -M tma_lock_latency --metrics $M -a"
check_counted "-e $LOCK -e $CLKS -a"
check_pair "-W -e cpu/event=0xd0,umask=0x21,period=100007/p -e cpu/event=0xd1,umask=0x4,period=100021/p -C 0-3" \
	"--tpebs -M tma_L4_group --metrics $M -C 0-3"
check_counted "-e $LOCK -e $CLKS -e $L3 -C 0-3"
check_pair "-W -e cpu/event=0xd1,umask=0x4,period=100021/p -e cpu/event=0xd0,umask=0x21,period=100007/p -a" \
	"--tpebs -M tma_l3_hit_latency,tma_lock_latency --metrics $M -a"
check_counted "-e $L3 -e $CLKS -e $LOCK -a"
# record --count-events: counting groups beside any sampled events
check_pair "-W -e cpu/event=0xd0,umask=0x21/pp -a" \
	"-W -e cpu/event=0xd0,umask=0x21/pp -a --count-events {cpu/event=0x3c/,cpu/event=0xc0/},cpu/event=0xc4/"
check_counted "-e {cpu/event=0x3c/,cpu/event=0xc0/},cpu/event=0xc4/ -a"

refuse() { # PATTERN ARGS...
	pat=$1
	shift
	n=$((n + 1))
	if SYSFS_PATH=${RFS:-$T/gnr} "$P" record --dry-run -v "$@" >/dev/null 2>"$T/err"; then
		echo "FAIL: pmutrace record $* was accepted"; fail=$((fail + 1))
	elif ! grep -q -- "$pat" "$T/err"; then
		echo "FAIL: pmutrace record $*: no '$pat' in:"; cat "$T/err"; fail=$((fail + 1))
	fi
}
refuse "no metric of -M tma_info_thread_clks uses a retire latency" --tpebs -M tma_info_thread_clks --metrics "$M" -a
refuse "no metric or metric group named 'tma_lock_latncy'; near names: tma_lock_latency" --tpebs -M tma_lock_latncy --metrics "$M" -a
refuse "the metric table does not load" --tpebs -M tma_lock_latency --metrics "$HERE/pebs_attrs.sh" -a
refuse "takes -M METRIC" --tpebs --metrics "$M" -a
# a machine without a core PMU (this VM's /sys, an Arm tree)
sh "$HERE/../pmusim/fake_sysfs.sh" "$T/arm" 2 arm_spe_0:8:0-1:1024
RFS=$T/arm refuse "no CPU core PMU (cpu, cpu_core)" --tpebs -M tma_lock_latency --metrics "$M" -a
[ "$fail" = 0 ] || { echo "FAIL: $fail of $n cases"; exit 1; }
echo "OK: $n PEBS command lines (and --tpebs against perf's tpebs record arguments): the same attrs as x86 perf 7.3 on a fake GNR tree; --tpebs refusals named"
