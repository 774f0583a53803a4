#!/bin/sh
# Issue 10, item 6: the locked-memory limit on the real kernel. perf_mmap() lets a user
# lock kernel.perf_event_mlock_kb per online CPU of ring pages, then RLIMIT_MEMLOCK more,
# and refuses the rest with EPERM (CAP_IPC_LOCK lifts it, so root runs the recorders as
# nobody through setpriv). With RLIMIT_MEMLOCK at 0 (prlimit), -m 1024 rings do not fit:
# perf 7.3 and 6.1 say "Permission error mapping pages" (the independent check that the
# kernel refused for this reason), and pmutrace must exit 1 naming both limits with their
# values, the -m pages asked for and the fixes, leaving no output file; -m 8 fits.
#   mlock_limit.sh PMUTRACE [PERF73]
set -u
P=$1 P73=${2:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
chmod 777 "$T"
skip() { echo "SKIP: $*"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
command -v prlimit >/dev/null || skip "no prlimit (util-linux)"
kb=$(cat /proc/sys/kernel/perf_event_mlock_kb 2>/dev/null) || skip "no perf_event_mlock_kb"
[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 2 ] ||
	skip "sampling one's own task needs kernel.perf_event_paranoid <= 2"
if [ "$(id -u)" = 0 ]; then
	command -v setpriv >/dev/null || skip "root, and no setpriv to drop CAP_IPC_LOCK"
	as_user() { prlimit --memlock=0:0 setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
else
	as_user() { prlimit --memlock=0:0 "$@"; }
fi
as_user test -x "$P" || skip "$P cannot be run as the unprivileged user"
# (user space only: the kernel is not ours to sample at paranoid 2)
as_user "$P" record -e cpu-clock:u -m 1024 -o "$T/x.pmt" -- true >/dev/null 2>"$T/err"
rc=$?
[ $rc = 1 ] || bad "pmutrace -m 1024: exit $rc, want 1: $(cat "$T/err")"
for want in "permission error mapping pages" "locked-memory limit" \
	"perf_event_mlock_kb: $kb kB per online CPU" "RLIMIT_MEMLOCK: 0 kB" \
	"smaller -m/--mmap-pages value (current value: 1024,0)" "ulimit -l" "CAP_IPC_LOCK"; do
	grep -qF -- "$want" "$T/err" || bad "no '$want' in: $(cat "$T/err")"
done
[ ! -e "$T/x.pmt" ] || bad "the failed recording left $T/x.pmt"
mv "$T/err" "$T/err1"
as_user "$P" record -q -e cpu-clock:u -m 8 -o "$T/y.pmt" -- true 2>"$T/err" ||
	bad "pmutrace -m 8 (under the limit): $(cat "$T/err")"
for perf in perf "$P73"; do
	[ -n "$perf" ] && command -v "$perf" >/dev/null || continue
	as_user "$perf" record -e cpu-clock:u -m 1024 -o "$T/p.data" -- true >/dev/null 2>"$T/perr"
	grep -q "^Permission error mapping pages" "$T/perr" &&
		grep -qF "(current value: 1024,0)" "$T/perr" ||
		bad "$perf does not see the limit: $(cat "$T/perr")"
	echo "$perf: $(head -1 "$T/perr")"
done
cat "$T/err1"
exit $fail
