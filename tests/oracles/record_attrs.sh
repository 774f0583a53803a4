#!/bin/sh
# Attr oracle (issue 10 d): `pmutrace record --dry-run -v` prints the perf_event_attrs that
# perf 7.3's `perf record -vv` prints for the same command line and the same fake sysfs
# PMUs: arm64 perf 7.3 under qemu-user for SPE (only the arm64 build applies arm-spe.c's
# rules), x86 perf 7.3 natively for software events. perf's feature probes are answered by
# tests/pmusim/probe_ok.c (LD_PRELOAD), so perf prints what a current kernel gets.
#   record_attrs.sh PMUTRACE ORACLES_DIR
set -eu
P=$1 ORC=$2
HERE=$(cd "$(dirname "$0")" && pwd)
ARM=$ORC/bin/perf-7.3-arm64 X86=$ORC/bin/perf-7.3
[ -x "$ARM" ] && [ -x "$X86" ] || { echo "SKIP: perf 7.3 oracles not built (tests/oracles/setup)"; exit 77; }
command -v aarch64-linux-gnu-gcc >/dev/null || { echo "SKIP: no aarch64-linux-gnu-gcc for the probe preload"; exit 77; }
T=$(mktemp -d)
# the -p/-t cases' target: alive for the whole run (under load the qemu cases before them
# took over 120 s, and perf then found no such process); killed at exit
sleep 900 &
LIVE=$!
trap 'kill $LIVE 2>/dev/null; rm -rf "$T"' EXIT
aarch64-linux-gnu-gcc -shared -fPIC -O2 -o "$T/probe_arm64.so" "$HERE/../pmusim/probe_ok.c" -ldl
cc -shared -fPIC -O2 -o "$T/probe_x86.so" "$HERE/../pmusim/probe_ok.c" -ldl
FAKE=$HERE/../pmusim/fake_sysfs.sh
sh "$FAKE" "$T/one" 2 arm_spe_0:8:0-1:1024
sh "$FAKE" "$T/two" 4 arm_spe_0:8:0-1:1024 arm_spe_1:9:2-3:1024
sh "$FAKE" "$T/nocap" 4 arm_spe_0:8:0-3:-

# the attr blocks of perf -vv (or of pmutrace), one "--" line after each
blocks() {
	awk '/^perf_event_attr:/ { p = 1; next } /^-----/ { if (p) print "--"; p = 0 } p' "$1"
}
n=0 fail=0
check() { # ORACLE FS ARGS...
	oracle=$1 fs=$2
	shift 2
	args=$(echo "$*" | sed "s/@PID/$LIVE/g")
	n=$((n + 1))
	if [ "$oracle" = arm ]; then
		# shellcheck disable=SC2086
		SYSFS_PATH=$T/$fs PERF_CPUID=0x410fd0c0 QEMU_SET_ENV=LD_PRELOAD=$T/probe_arm64.so \
			timeout 60 "$ARM" record -vv -o "$T/perf.data" $args >"$T/perf.out" 2>&1 || true
	else
		# x86 perf needs the host's core PMUs: the real sysfs ("host")
		# shellcheck disable=SC2086
		LD_PRELOAD=$T/probe_x86.so timeout 60 "$X86" record -vv \
			-o "$T/perf.data" $args >"$T/perf.out" 2>&1 || true
	fi
	sysfs=$T/$fs
	[ "$fs" = host ] && sysfs=/sys
	# perf's side-band dummy for BPF events (watermark, wakeup 1) is not part of a
	# recording's data; pmutrace has none
	blocks "$T/perf.out" | awk 'BEGIN { RS = "--\n"; ORS = "" }
		!/watermark/ && NF { print $0 "--\n" }' >"$T/perf.attrs"
	# shellcheck disable=SC2086
	if ! SYSFS_PATH=$sysfs "$P" record --dry-run -v $args >"$T/pmt.out" 2>"$T/pmt.err"; then
		echo "FAIL [$oracle $fs] $args: pmutrace refused it:"; cat "$T/pmt.err"
		fail=$((fail + 1))
		return
	fi
	# perf 7.3 does not print config3/config4; pmutrace does (checked on their own below)
	blocks "$T/pmt.out" | grep -v '^  config[34] ' >"$T/pmt.attrs"
	if [ ! -s "$T/perf.attrs" ]; then
		echo "FAIL [$oracle $fs] $args: perf printed no attrs:"; tail -5 "$T/perf.out"
		fail=$((fail + 1))
	elif ! cmp -s "$T/perf.attrs" "$T/pmt.attrs"; then
		echo "FAIL [$oracle $fs] $args: attrs differ (perf < > pmutrace)"
		diff "$T/perf.attrs" "$T/pmt.attrs" | head -20
		fail=$((fail + 1))
	fi
}

# SPE: every target, every format term, periods, modifiers, buffer options, two PMUs
check arm one -e arm_spe_0// -- true
check arm one -e arm_spe_0// -a
check arm one -e arm_spe_0// -C 1
check arm one -e arm_spe_0// -p @PID
check arm one -e arm_spe_0// -t @PID
check arm one -e arm_spe_0// --per-thread -- true
check arm one -e arm_spe_0// --no-inherit -- true
check arm one -e arm_spe_0/ts_enable=0/ -- true
check arm one -e arm_spe_0/pa_enable=1/ -- true
check arm one -e arm_spe_0/pct_enable=1/ -a
check arm one -e arm_spe_0/jitter=1/ -- true
check arm one -e arm_spe_0/branch_filter=1/ -- true
check arm one -e arm_spe_0/load_filter=1/ -- true
check arm one -e arm_spe_0/store_filter/ -- true
check arm one -e arm_spe_0/discard=1/ -- true
check arm one -e arm_spe_0/discard=1/ -a
check arm one -e arm_spe_0// -e cpu-clock -- true
check arm one -e arm_spe_0/load_filter=1/,dummy -a
check arm one -e arm_spe_0/event_filter=0x22/ -- true
check arm one -e arm_spe_0/min_latency=20/ -- true
check arm one -e arm_spe_0/inv_event_filter=0x4/ -- true
check arm one -e arm_spe_0/load_filter=1,store_filter=1,branch_filter=1,min_latency=100,jitter=1/ -a
check arm one -e arm_spe_0/ts_enable=1,pa_enable=1,event_filter=0x10002/u -c 100 -- true
check arm one -e arm_spe_0/period=2048/ -- true
check arm one -e arm_spe_0// -c 5000 -a
check arm one -e arm_spe_0//u -- true
check arm one -e arm_spe_0//k -a
check arm one -e arm_spe_0/config=0x3,config1=0x2,config2=0x7/ -- true
check arm one -e arm_spe_0// --snapshot -- true
check arm one -e arm_spe_0// --snapshot=65536 -m 8,16 -- true
check arm one -e arm_spe_0// -m 16,64 -- true
check arm two -e arm_spe// -- true
check arm two -e arm_spe// -a
check arm two -e arm_spe_1// -C 2-3
check arm two -e arm_spe_0/load_filter=1/,arm_spe_1/store_filter=1/ -- true
check arm nocap -e arm_spe_0// -- true
# software events (x86 perf 7.3 natively; also what the real-kernel tests record)
check x86 host -e cpu-clock -- true
check x86 host -e cpu-clock -c 10000 -- true
check x86 host -e cpu-clock -F 999 -a
check x86 host -e cpu-clock,dummy -- true
check x86 host -e task-clock:u -C 0
check x86 host -e cpu-clock --per-thread -- true
check x86 host -e context-switches -p @PID
check x86 host -e page-faults:k -t @PID
check x86 host -e cpu-clock -e cs -c 3 -- true
# -g: the frame-pointer call chain on every event but perf's own sideband dummy
check x86 host -e cpu-clock -g -- true
check x86 host -e cpu-clock,dummy -g -c 100000 -- true
check x86 host -e cpu-clock --call-graph fp -a
check x86 host -e task-clock:u -g --per-thread -- true
# --call-graph dwarf: user registers and stack copy, data mmaps on the tracking event,
# perf's rounding of the size; -g does not turn it back into fp
check x86 host -e cpu-clock --call-graph dwarf -- true
check x86 host -e cpu-clock --call-graph dwarf,100 -- true
check x86 host -e cpu-clock,task-clock --call-graph dwarf,4096 -- true
check x86 host -e cpu-clock,dummy --call-graph dwarf -a
check x86 host -e cpu-clock --call-graph dwarf -g -- true
check x86 host -e cpu-clock -g --call-graph dwarf,65521 -- true
check x86 host -e cpu-clock -k mono -- true
check x86 host -e cpu-clock,dummy -k CLOCK_TAI -c 1000 -- true
check x86 host -e cpu-clock -k 7 -a

# the inverted filters, which perf does not print
SYSFS_PATH=$T/one "$P" record --dry-run -v -e arm_spe_0/inv_event_filter=0x4/ -- true |
	grep -q '^  config3  *0x4$' || { echo "FAIL: inv_event_filter does not set config3"; fail=$((fail + 1)); }

# refusals, named as perf names them
refuse() { # PATTERN ARGS...
	pat=$1
	shift
	n=$((n + 1))
	# shellcheck disable=SC2086
	fs=one
	case "$*" in *"-C 0,3"*) fs=two ;; esac
	if SYSFS_PATH=$T/$fs "$P" record --dry-run -v "$@" >/dev/null 2>"$T/err"; then
		echo "FAIL: pmutrace record $* was accepted"; fail=$((fail + 1))
	elif ! grep -q -- "$pat" "$T/err"; then
		echo "FAIL: pmutrace record $*: no '$pat' in:"; cat "$T/err"; fail=$((fail + 1))
	fi
}
refuse "frequency is not supported" -e arm_spe_0// -F 1000 -- true
refuse "lbr is not supported yet" -e cpu-clock --call-graph lbr -- true
refuse "Incorrect stack dump size (max 65528): 0" -e cpu-clock --call-graph dwarf,0 -- true
refuse "Incorrect stack dump size (max 65528): 65536" -e cpu-clock --call-graph dwarf,65536 -- true
refuse "valid terms: .*load_filter.*config1" -e arm_spe_0/foo=1/ -- true
refuse "value too big for format (min_latency), maximum is 4095" -e arm_spe_0/min_latency=5000/ -- true
refuse "no PMU 'arm_spx'" -e arm_spx// -- true
refuse "CPU 3 is not covered by arm_spe_0" -e arm_spe_0// -C 0,3
refuse "power of 2" -e arm_spe_0// -m 8,3 -- true
refuse "unknown modifier 'x'" -e arm_spe_0//x -- true
[ "$fail" = 0 ] || { echo "FAIL: $fail of $n cases"; exit 1; }
echo "OK: $n command lines: the same attrs as perf 7.3 (arm64 and x86), refusals named"
