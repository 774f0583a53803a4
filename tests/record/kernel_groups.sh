#!/bin/sh
# Issue 11: groups on the real kernel with software events. A leader-sampling group
# ({cpu-clock,task-clock}:S) is opened with the members' group_fd on their leader, so
# each leader sample reads the whole group (PERF_FORMAT_GROUP): perf script shows a
# task-clock entry for every cpu-clock sample. Members opened on their own would read
# only the leader. Read by perf 6.1 and perf 7.3 (when built) from the container.
#   kernel_groups.sh PMUTRACE [PERF73]
set -u
P=$1 P73=${2:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
loop='i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'

"$P" record -q -e '{cpu-clock,task-clock}:S' -c 100000 -o "$T/g.data" -- sh -c "$loop" \
	2>"$T/err"
rc=$?
if [ $rc != 0 ]; then
	if grep -q "no permission\|not supported\|Function not implemented" "$T/err"; then
		echo "SKIP: perf_event_open is not allowed here: $(cat "$T/err")"
		exit 77
	fi
	bad "record of a group exited $rc: $(cat "$T/err")"
fi
for perf in perf "$P73"; do
	[ -n "$perf" ] && [ -x "$(command -v "$perf")" ] || continue
	zstd -dc "$T/g.data" | "$perf" script -i - -F event,period 2>/dev/null >"$T/script"
	lead=$(grep -c ' cpu-clock:' "$T/script")
	memb=$(grep -c ' task-clock:' "$T/script")
	[ "$lead" -gt 50 ] || bad "$perf: only $lead cpu-clock samples"
	[ "$lead" = "$memb" ] || bad "$perf: $lead leader samples but $memb member values"
	# the member's values are its own counts, not copies of the leader's
	awk '$2 == "task-clock:" && $1 > 0 { n++ } END { exit !(n > 0) }' "$T/script" ||
		bad "$perf: no task-clock value above 0"
done
# a plain group samples every member and the sideband comes once
"$P" record -q -e '{cpu-clock,task-clock}' -c 100000 -o "$T/p.data" -- sh -c "$loop" \
	2>"$T/err" || bad "record of a plain group: $(cat "$T/err")"
zstd -dc "$T/p.data" | perf script -i - -F event 2>/dev/null | sort | uniq -c >"$T/ev"
grep -q "cpu-clock" "$T/ev" && grep -q "task-clock" "$T/ev" ||
	bad "plain group: not both events sampled: $(cat "$T/ev")"
[ "$fail" = 0 ] || exit 1
echo "OK: groups on the kernel: leader sampling reads the group, a plain group samples each event"
