#!/bin/sh
# Issue 10: a recording with a workload that ends by a signal, on the real kernel
# (cpu-clock). perf record's rule, checked against x86 perf 7.3 in the same run when it is
# built: SIGINT or SIGTERM to the recorder sends the workload a SIGTERM, the file is
# finished, and the recorder dies of its own signal (the shell sees 128+N); a workload
# killed by a signal kills the recorder with the same signal once the file is written; a
# workload's exit status is the recorder's; a workload that cannot exec gets perf's message.
# SIGHUP: pmutrace does as for SIGTERM (perf 7.3 does not catch it: it dies, the workload
# runs on and perf.data is left unfinished), so only the status is compared.
#   workload_signals.sh PMUTRACE [PERF73]
set -u
P=$1 P73=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
command -v cc >/dev/null || { echo "SKIP: no C compiler for the workload"; exit 77; }
cc -O2 -o "$T/w" "$HERE/sig_workload.c" || exit 1
if ! "$P" record -q -e cpu-clock -o "$T/probe.data" -- true 2>"$T/err"; then
	echo "SKIP: perf_event_open is not allowed here: $(cat "$T/err")"
	exit 77
fi
[ -n "$P73" ] && [ -x "$P73" ] || P73=

# wait for PID (a child of this shell) for up to 20 s, then kill it (status 137: it waited
# for its workload); its status in $st. A poll, not a watchdog process: the pid cannot be
# reused before the wait reaps it.
reap() {
	n=0
	while kill -0 "$1" 2>/dev/null && [ $n -lt 200 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	kill -KILL "$1" 2>/dev/null
	wait "$1"
	st=$?
}

# wait until FILE says ready (at most 10 s)
ready() {
	n=0
	while ! grep -q ready "$1" 2>/dev/null && [ $n -lt 100 ]; do
		sleep 0.1
		n=$((n + 1))
	done
}

# run RECORDER ARGS... in the background until LOG says ready, send SIG; status in $st
signalled() {
	sig=$1 log=$2
	shift 2
	rm -f "$log"
	"$@" >/dev/null 2>"$T/serr" &
	pid=$!
	ready "$log"
	sleep 0.3 # a few cpu-clock ticks of the recording
	kill -"$sig" $pid
	reap $pid
}

for s in INT:130 TERM:143 HUP:129; do
	sig=${s%:*} want=${s#*:}
	signalled "$sig" "$T/log" "$P" record -e cpu-clock -o "$T/$sig.data" -- "$T/w" "$T/log"
	[ "$st" = "$want" ] || bad "SIG$sig: pmutrace exited $st, want $want (128+SIG$sig): $(cat "$T/serr")"
	grep -q "^signal 15$" "$T/log" || bad "SIG$sig: the workload got '$(tail -1 "$T/log")', want SIGTERM (15)"
	"$P" info "$T/$sig.data" >"$T/info" 2>&1
	grep -q "finished: yes" "$T/info" || bad "SIG$sig: container not finished: $(cat "$T/info")"
	# the workload's end is in the file: its EXIT came before the last drain
	zstd -dc "$T/$sig.data" | perf script -i - --show-task-events 2>/dev/null >"$T/tasks"
	grep -q "PERF_RECORD_EXIT" "$T/tasks" || bad "SIG$sig: no EXIT of the workload in the file"
	if [ -n "$P73" ] && [ "$sig" != HUP ]; then
		signalled "$sig" "$T/log" "$P73" record -e cpu-clock -o "$T/$sig.perf" -- "$T/w" "$T/log"
		st73=$st st=$want
		[ "$st73" = "$st" ] || bad "SIG$sig: perf 7.3 exited $st73, pmutrace $st"
		grep -q "^signal 15$" "$T/log" || bad "SIG$sig: under perf 7.3 the workload got '$(tail -1 "$T/log")'"
	elif [ -n "$P73" ]; then
		rm -f "$T/log"
		"$P73" record -e cpu-clock -o "$T/hup.perf" -- "$T/w" "$T/log" >/dev/null 2>&1 &
		pid=$!
		ready "$T/log"
		kill -HUP $pid
		reap $pid
		st73=$st st=$want
		[ "$st73" = "$st" ] || bad "SIGHUP: perf 7.3 exited $st73, pmutrace $st"
		kill -TERM "$(sed -n 's/^ready //p' "$T/log")" # the workload perf left behind
	fi
done

# a workload that dies of the SIGTERM (sleep): the recorder dies of it too, as perf
for r in "$P" ${P73:+"$P73"}; do
	rm -f "$T/slog"
	"$r" record -e cpu-clock -o "$T/sl.data" -- sh -c "echo ready >'$T/slog'; exec sleep 100" \
		>/dev/null 2>&1 &
	pid=$!
	ready "$T/slog"
	kill -INT $pid
	reap $pid
	[ "$st" = 143 ] || bad "$r: SIGINT with 'sleep 100': exited $st, want 143 (the workload's SIGTERM)"
done

# the workload's own end: its exit status, or the signal that killed it
for r in "$P" ${P73:+"$P73"}; do
	"$r" record -e cpu-clock -o "$T/e.data" -- sh -c 'exit 3' >/dev/null 2>&1
	st=$?
	[ "$st" = 3 ] || bad "$r: a workload's 'exit 3': exited $st"
	"$r" record -e cpu-clock -o "$T/k.$(basename "$r")" -- sh -c 'kill -USR1 $$' >/dev/null 2>&1
	st=$?
	[ "$st" = 138 ] || bad "$r: a workload killed by SIGUSR1: exited $st, want 138"
done
"$P" info "$T/k.$(basename "$P")" | grep -q "finished: yes" || bad "a workload killed by SIGUSR1: container not finished"

# --duration ends the recording: the workload gets its SIGTERM, the status is the
# recording's own (0), within the duration rather than the workload's 100 s
start=$(date +%s)
"$P" record -e cpu-clock --duration 0.5 -o "$T/d.data" -- sleep 100 >/dev/null 2>"$T/derr"
st=$?
[ "$st" = 0 ] || bad "--duration 0.5 -- sleep 100: exited $st: $(cat "$T/derr")"
[ $(($(date +%s) - start)) -lt 10 ] || bad "--duration 0.5 -- sleep 100 took $(($(date +%s) - start)) s"

# a workload that ignores SIGTERM: a second SIGINT kills it and the file is finished
rm -f "$T/log"
"$P" record -e cpu-clock -o "$T/i.data" -- "$T/w" "$T/log" ignore >/dev/null 2>"$T/ierr" &
pid=$!
ready "$T/log"
kill -INT $pid
sleep 1
kill -INT $pid
reap $pid
[ "$st" = 137 ] || bad "a workload ignoring SIGTERM, two SIGINTs: exited $st, want 137 (its SIGKILL)"
"$P" info "$T/i.data" | grep -q "finished: yes" || bad "a workload ignoring SIGTERM: container not finished"

# without a workload a stop signal is the normal end: status 0, the file finished (perf
# 7.3 exits 130 here; pmutrace keeps its own statuses, see its man page)
"$P" record -e cpu-clock -a -o "$T/a.data" >/dev/null 2>"$T/aerr" &
pid=$!
sleep 1
kill -INT $pid
reap $pid
[ "$st" = 0 ] || bad "-a, SIGINT: exited $st, want 0: $(cat "$T/aerr")"
"$P" info "$T/a.data" | grep -q "finished: yes" || bad "-a, SIGINT: container not finished"

# a workload that cannot exec: perf's message, word for word
"$P" record -e cpu-clock -e task-clock -o "$T/n.data" -- "$T/nonexistent" a >/dev/null 2>"$T/nerr"
st=$?
[ "$st" = 1 ] || bad "no such workload: exited $st, want 1"
want="Failed to collect 'cpu-clock,task-clock' for the '$T/nonexistent' workload: No such file or directory"
if [ -n "$P73" ]; then
	"$P73" record -e cpu-clock -e task-clock -o "$T/n.perf" -- "$T/nonexistent" a >/dev/null \
		2>"$T/n73"
	want=$(grep "^Failed" "$T/n73")
fi
grep -qxF "$want" "$T/nerr" || bad "no such workload: '$(cat "$T/nerr")', want '$want'"

[ $fail = 0 ] && echo "PASS: workload signals" || exit 1
