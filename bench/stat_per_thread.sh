#!/bin/sh
# Measure (issue 11): `stat --per-thread -a` with three software events, pmutrace against
# x86 perf 7.3 in the same session, alternated: list every thread of /proc, open one counter
# per event and thread, read, print. The window is `-- true` (the counting itself costs
# nothing), so the figure is the tool's own cost at this machine's thread count (printed),
# with EXTRA idle threads added by a helper process to see how it grows. The median of RUNS
# by wall time; CPU = user + sys of that run (bench/rusage.py: the command's own times).
#   sh bench/stat_per_thread.sh PMUTRACE [PERF73] [RUNS] [EXTRA]
set -eu
P=$1 X=${2:-/var/cache/pmutrace-oracles/bin/perf-7.3} R=${3:-7} EXTRA=${4:-0}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
H=
trap '[ -n "$H" ] && kill $H 2>/dev/null; rm -rf "$T"' EXIT
if [ "$EXTRA" -gt 0 ]; then
	# EXTRA threads that sleep: each is one more row of /proc and three more counters
	python3 -c '
import sys, threading, time
for _ in range(int(sys.argv[1])):
    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
print("ready", flush=True)
time.sleep(3600)' "$EXTRA" >"$T/ready" &
	H=$!
	for i in $(seq 100); do grep -qs ready "$T/ready" && break; sleep 0.1; done
fi
echo "threads in /proc: $(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)"
EV=task-clock,page-faults,context-switches
for i in $(seq "$R"); do
	for tool in pmutrace perf; do
		cmd=$P
		[ $tool = perf ] && cmd=$X
		python3 "$HERE/rusage.py" "$T/r" "$cmd" stat --per-thread -a -e $EV -- true 2>"$T/out"
		echo "$tool $(cat "$T/r") $(grep -c . "$T/out")" >>"$T/all"
	done
done
for tool in pmutrace perf; do
	grep "^$tool " "$T/all" | sort -k2,2n | awk -v n="$R" -v t=$tool '
		NR == int((n + 1) / 2) { printf "%-8s wall %.3f s, CPU %.3f s, max RSS %d KiB, %d lines (median of %d)\n", t, $2, $3 + $4, $5, $6, n }'
done
