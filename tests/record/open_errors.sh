#!/bin/sh
# Issue 11, item 7 at open time: what `pmutrace record` says when the kernel refuses an
# event, and when it multiplexes one. tests/pmusim/fail_open.c (LD_PRELOAD) makes perf_event_open fail with a chosen
# errno (and uname report a chosen release); each message must name the event and the
# reason, and the recording must end (exit 1) with no workload left waiting.
#   open_errors.sh PMUTRACE
set -u
P=$1
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
command -v cc >/dev/null || { echo "SKIP: no C compiler for the preload"; exit 77; }
cc -shared -fPIC -O2 -o "$T/fail.so" "$HERE/../pmusim/fail_open.c" -ldl || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
# ERRNO "EXPECTED TEXT" [ENV=VALUE...] -- pmutrace record ARGS
expect() {
	errno=$1 want=$2
	shift 2
	env=
	while [ "$1" != -- ]; do env="$env $1"; shift; done
	shift
	# shellcheck disable=SC2086
	env PMT_FAIL_OPEN_ERRNO="$errno" LD_PRELOAD="$T/fail.so" $env timeout 20 \
		"$P" record -q -o "$T/x.data" "$@" >/dev/null 2>"$T/err"
	rc=$?
	[ $rc = 1 ] || bad "errno $errno ($*): exit $rc, want 1: $(cat "$T/err")"
	grep -qF -- "$want" "$T/err" || bad "errno $errno ($*): no '$want' in: $(cat "$T/err")"
}
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)

# SPE's privileged terms (a fake arm_spe_0, tests/pmusim/fake_sysfs.sh): the refusal names
# the term that needs CAP_PERFMON
sh "$HERE/../pmusim/fake_sysfs.sh" "$T/fs" 2 arm_spe_0:8:0-1:1024
expect 13 "pct_enable needs CAP_PERFMON too" SYSFS_PATH="$T/fs" -- -e arm_spe_0/pct_enable=1/ -- true
expect 1 "pa_enable needs CAP_PERFMON too" SYSFS_PATH="$T/fs" -- -e arm_spe_0/pa_enable=1/ -a --duration 0.1
expect 13 "pa_enable and pct_enable need CAP_PERFMON" SYSFS_PATH="$T/fs" -- -e arm_spe_0/pa_enable=1,pct_enable=1/ -- true

expect 13 "cpu-clock on CPU 0: no permission (kernel.perf_event_paranoid is $paranoid)" -- -e cpu-clock -- true
expect 13 "CAP_PERFMON" -- -e cpu-clock -- true
if [ "$paranoid" != unknown ] && [ "$paranoid" -ge 3 ]; then
	expect 1 "disabled altogether" -- -e cpu-clock:u -a --duration 0.1
elif [ "$paranoid" != unknown ] && [ "$paranoid" -ge 1 ]; then
	expect 1 "CPU-wide recording (-a, -C) needs level 0" -- -e cpu-clock:u -a --duration 0.1
fi
if [ "$paranoid" = 2 ]; then
	expect 13 "counting the kernel needs level 1" -- -e cpu-clock -- true
fi
expect 2 "cycles on CPU 0: PMU or event not supported on this CPU" -- -e cycles -- true
expect 2 "no hardware PMU here" -- -e cycles -- true
expect 19 "cpu-clock on CPU 0: no such device" -- -e cpu-clock -C 0 --duration 0.1
expect 95 "INST_RETIRED:precise=2 on CPU 0: PEBS/precise sampling not supported for this event" LIBPFM_FORCE_PMU=knl -- --pfm-events INST_RETIRED:precise=2 -- true
expect 22 "cpu-clock on CPU 0: invalid argument (EINVAL): read_format LOST needs Linux 6.0 or later and this kernel is 5.10" PMT_FAKE_KERNEL=5.10.0 -- -e cpu-clock -- true
expect 22 "read_format LOST needs Linux 6.0 or later and this kernel is 4.19" PMT_FAKE_KERNEL=4.19.0-27-amd64 -- -e cpu-clock -- true
expect 22 "set: precise_ip=2 exclude_guest" LIBPFM_FORCE_PMU=knl PMT_FAKE_KERNEL=6.18.0 -- --pfm-events INST_RETIRED:precise=2 -- true
expect 22 "in per-thread mode, try -a" PMT_FAKE_KERNEL=6.18.0 -- --per-thread -e cpu-clock -- true
expect 16 "cpu-clock on CPU 0: the PMU's counters are busy (EBUSY)" -- -e cpu-clock -- true
expect 16 "nmi_watchdog" -- -e cpu-clock:D -- true
# the limit the recorder runs under, as ulimit -n sets it
(ulimit -n 64 && expect 24 "too many open files: the limit is 64 (ulimit -n)" -- -e cpu-clock -- true; exit $fail) || fail=$((fail + 1))
expect 3 "no process or thread" -- -e cpu-clock -p 1 --duration 0.1
expect 14 "perf_event_open: Bad address" -- -e cpu-clock -- true

# multiplexing: the kernel's user page says the ring owner ran 40% of its enabled time
# (tests/pmusim/pmusim.c plays the kernel); on the real kernel software events never are
cc -shared -fPIC -O2 -o "$T/sim.so" "$HERE/../pmusim/pmusim.c" -ldl -lpthread || exit 1
PMUSIM_RUNNING_PCT=40 LD_PRELOAD="$T/sim.so" timeout 20 "$P" record -e cpu-clock -C 0 --duration 0.2 -o "$T/m.data" >/dev/null 2>"$T/err"
rc=$?
[ $rc = 0 ] || bad "multiplexed: exit $rc, want 0 (a note, nothing lost): $(cat "$T/err")"
grep -qF "[ multiplexed: cpu-clock ran 40.0% of its enabled time on CPU 0 (1 of 1 rings)" "$T/err" ||
	bad "multiplexed: no note: $(cat "$T/err")"
if timeout 20 "$P" record -e cpu-clock -C 0 --duration 0.2 -o "$T/k.data" >/dev/null 2>"$T/err"; then
	grep -q "multiplexed" "$T/err" && bad "real kernel: cpu-clock said to be multiplexed: $(cat "$T/err")"
fi

[ $fail = 0 ] && echo "open_errors: all checks passed"
exit $((fail != 0))
