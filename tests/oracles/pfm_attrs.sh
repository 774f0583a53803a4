#!/bin/sh
# Attr oracle for --pfm-events (issue 11 d): perf 7.3 has no libpfm4 here, so what it can
# check is the rest of the way: `pmutrace record --dry-run -v --pfm-events S` (libpfm4 as
# the knl model) prints the attrs x86 perf 7.3's `perf record -vv` prints for the same
# encoding written as a raw event, `-e cpu/config=C,config1=C1/`, with the same options, on
# the fake GNR sysfs tree. The encodings are the hand-derived ones of
# tests/unit/session/test_pfm_events.c; :mg:mh clears libpfm4's default exclude_guest,
# which perf does not set for a raw event. A period= or freq= of libpfm4 meets perf's
# period=/freq= terms: both win over -c and -F.
#   pfm_attrs.sh PMUTRACE ORACLES_DIR
set -eu
P=$1 ORC=$2
. "$(dirname "$0")/x86_perf73_setup.sh"
attrs() { awk '/^perf_event_attr:/ { p = 1; next } /^-----/ { if (p) print "--"; p = 0 } p { sub(/ +\(.*\)$/, ""); print }' "$1"; }
n=0 fail=0
check() { # "PMUTRACE ARGS" "PERF ARGS"
	n=$((n + 1))
	# shellcheck disable=SC2086
	SYSFS_PATH=$T/gnr PERF_CPUID=GenuineIntel-6-AD-0 PROBE_OK_TYPES=4 LD_PRELOAD=$T/probe.so \
		timeout 60 "$X86" record -vv -o "$T/perf.data" $2 >"$T/perf.out" 2>&1 || true
	attrs "$T/perf.out" >"$T/perf.attrs"
	# shellcheck disable=SC2086
	if ! SYSFS_PATH=$T/gnr LIBPFM_FORCE_PMU=knl "$P" record --dry-run -v $1 >"$T/pmt.out" 2>"$T/pmt.err"; then
		echo "FAIL $1: pmutrace refused it: $(cat "$T/pmt.err")"
		fail=$((fail + 1))
		return
	fi
	attrs "$T/pmt.out" | grep -v '^  config[34] ' >"$T/pmt.attrs"
	if [ ! -s "$T/perf.attrs" ]; then
		echo "FAIL $2: perf printed no attrs: $(tail -3 "$T/perf.out")"
		fail=$((fail + 1))
	elif ! cmp -s "$T/perf.attrs" "$T/pmt.attrs"; then
		echo "FAIL $1 (perf: $2): attrs differ (perf < > pmutrace)"
		diff "$T/perf.attrs" "$T/pmt.attrs" | head -20
		fail=$((fail + 1))
	fi
}

check "--pfm-events INST_RETIRED:mg:mh -- true" "-e cpu/config=0xc0/ -- true"
check "--pfm-events OFFCORE_RESPONSE_0:ANY_RFO:DDR_NEAR:mg:mh -- true" "-e cpu/config=0x1b7,config1=0x80800022/ -- true"
check "-c 10007 --pfm-events INST_RETIRED:period=5000:mg:mh -- true" "-c 10007 -e cpu/config=0xc0,period=5000/ -- true"
check "-F 999 --pfm-events INST_RETIRED:i:e:c=3:mg:mh -a" "-F 999 -e cpu/config=0x38400c0/ -a"
check "-c 4001 --pfm-events INST_RETIRED:freq=77:mg:mh -C 1" "-c 4001 -e cpu/config=0xc0,freq=77/ -C 1"
check "--pfm-events INST_RETIRED:precise=2:mg:mh -- true" "-e cpu/config=0xc0/pp -- true"
check "--pfm-events UNHALTED_CORE_CYCLES:t:mg:mh --per-thread -- true" "-e cpu/config=0x20003c/ --per-thread -- true"
check "--pfm-events {INST_RETIRED:mg:mh,UNHALTED_CORE_CYCLES:mg:mh} -- true" "-e {cpu/config=0xc0/,cpu/config=0x3c/} -- true"
check "-e cycles --pfm-events OFFCORE_RESPONSE_1:DMND_DATA_RD:ANY_RESPONSE:mg:mh -- true" "-e cycles -e cpu/config=0x2b7,config1=0x10001/ -- true"
check "--pfm-events OFFCORE_RESPONSE_0:DMND_DATA_RD:OUTSTANDING:mg:mh,OFFCORE_RESPONSE_1:DMND_DATA_RD:ANY_RESPONSE:mg:mh -a" "-e cpu/config=0x1b7,config1=0x4000000001/,cpu/config=0x2b7,config1=0x10001/ -a"
echo "pfm_attrs: $((n - fail)) of $n command lines print perf 7.3's attrs"
[ $fail = 0 ]
