#!/bin/sh
# Issue 10 a: the real kernel path with software events. pmutrace record opens, maps and
# drains cpu-clock / context-switch events per task, per CPU and system-wide into a
# container; what it holds is what the kernel gave, read three ways: pmutrace info, and
# perf 6.1 and perf 7.3 (when built) through `zstd -dc FILE | perf script -i -`.
#   kernel_sw.sh PMUTRACE [PERF73]
set -u
P=$1 P73=${2:-}
T=$(mktemp -d)
trap 'kill $BUSY 2>/dev/null; rm -rf "$T"' EXIT
BUSY=
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
loop='i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done'

"$P" record -q -e cpu-clock -c 100000 -o "$T/w.data" -- sh -c "$loop" 2>"$T/err"
rc=$?
if [ $rc != 0 ]; then
	if grep -q "no permission\|not supported\|Function not implemented" "$T/err"; then
		echo "SKIP: perf_event_open is not allowed here: $(cat "$T/err")"
		exit 77
	fi
	bad "record of a workload exited $rc: $(cat "$T/err")"
fi
# samples as pmutrace counts them, and as perf reads them
count_info() { "$P" info "$1" | sed -n "s/.*$2: \([0-9]*\) samples.*/\1/p"; }
count_perf() { zstd -dc "$1" | ${3:-perf} script -i - -F event 2>/dev/null | grep -c "$2"; }
n=$(count_info "$T/w.data" cpu-clock)
[ "${n:-0}" -gt 100 ] || bad "workload: only '${n:-}' cpu-clock samples"
[ "$(count_perf "$T/w.data" cpu-clock)" = "$n" ] || bad "workload: perf 6.1 reads $(count_perf "$T/w.data" cpu-clock) samples, pmutrace info $n"
if [ -n "$P73" ] && [ -x "$P73" ]; then
	zstd -dc "$T/w.data" >"$T/w.pipe"
	m=$("$P73" script -i - -F event <"$T/w.pipe" 2>/dev/null | grep -c cpu-clock)
	[ "$m" = "$n" ] || bad "workload: perf 7.3 reads $m samples, pmutrace info $n"
fi
# the workload's samples carry its name (COMM from the exec) and a period of -c
zstd -dc "$T/w.data" | perf script -i - -F comm,period 2>/dev/null | sort | uniq -c >"$T/comm"
grep -q " sh  *100000 *$" "$T/comm" || bad "workload samples are not 'sh' with period 100000: $(head -3 "$T/comm")"
"$P" info "$T/w.data" | grep -q "finished: yes" || bad "workload: container not finished"

# per CPU: every sample on CPU 0
"$P" record -q -e cpu-clock,cs -c 20000 -C 0 --duration 0.5 -o "$T/c.data" 2>"$T/err" || bad "-C 0: $(cat "$T/err")"
zstd -dc "$T/c.data" | perf script -i - -F cpu 2>/dev/null | sort -u >"$T/cpus"
[ "$(tr -d " \n" <"$T/cpus")" = "[000]" ] || bad "-C 0 recorded CPUs $(tr '\n' ' ' <"$T/cpus")"

# system-wide: tasks that existed before are named (COMM synthesized from /proc)
sh -c "while :; do :; done" &
BUSY=$!
sleep 0.2
"$P" record -q -e cpu-clock -a --duration 0.6 -o "$T/a.data" 2>"$T/err" || bad "-a: $(cat "$T/err")"
zstd -dc "$T/a.data" | perf script -i - -F comm,pid 2>/dev/null | awk -v p="$BUSY" '$2 == p { print $1 }' | sort -u >"$T/busy"
[ "$(cat "$T/busy")" = sh ] || bad "-a: the busy loop's samples are named '$(cat "$T/busy")'"
"$P" info "$T/a.data" | grep -q "dummy:u" || bad "-a: no tracking dummy event"
# system-wide while a workload runs (perf's -a -- CMD): the recording ends with the
# workload, which is named, and the busy loop that was there before is recorded too
"$P" record -q -e cpu-clock -a -o "$T/aw.data" -- sh -c "$loop" 2>"$T/err"
rc=$?
zstd -dc "$T/aw.data" | perf script -i - -F comm,pid 2>/dev/null | awk '{ print $1, ($2 == '"$BUSY"') }' |
	sort -u >"$T/aw"
[ $rc = 0 ] && grep -q "^sh 0$" "$T/aw" && grep -q "^sh 1$" "$T/aw" &&
	"$P" info "$T/aw.data" | grep -q "finished: yes" ||
	bad "-a -- CMD: exit $rc, samples by comm and busy: $(tr '\n' ' ' <"$T/aw") $(cat "$T/err")"

# an existing process: only its samples
"$P" record -q -e cpu-clock -p "$BUSY" --duration 0.4 -o "$T/p.data" 2>"$T/err" || bad "-p: $(cat "$T/err")"
zstd -dc "$T/p.data" | perf script -i - -F pid 2>/dev/null | sort -u >"$T/pids"
[ "$(tr -d ' ' <"$T/pids")" = "$BUSY" ] || bad "-p $BUSY recorded pids $(tr '\n' ' ' <"$T/pids")"
[ -s "$T/pids" ] || bad "-p: no samples of a busy process"
# its mappings, synthesized from /proc, carry their files' build-ids (perf reads them)
exe=$(readlink -f "/proc/$BUSY/exe")
want=$(readelf -nW "$exe" | sed -n 's/.*Build ID: //p')
zstd -dc "$T/p.data" | perf script -i - --show-mmap-events 2>/dev/null | grep "PERF_RECORD_MMAP2 $BUSY/" >"$T/mmaps"
[ -z "$want" ] || grep -q "<$want>\]: r-xp $exe\$" "$T/mmaps" ||
	bad "-p: the MMAP2 of $exe does not carry build-id $want: $(head -2 "$T/mmaps")"

# per thread: no CPU rings; perf reads it
"$P" record -q -e cpu-clock --per-thread -c 100000 -o "$T/t.data" -- sh -c "$loop" 2>"$T/err" || bad "--per-thread: $(cat "$T/err")"
[ "$(count_perf "$T/t.data" cpu-clock)" = "$(count_info "$T/t.data" cpu-clock)" ] || bad "--per-thread: counts differ"

# SIGINT: a finished container; SIGKILL: readable up to its last frame
"$P" record -q -e cpu-clock -a -c 50000 -o "$T/i.data" 2>/dev/null &
R=$!
sleep 1.5
kill -INT $R
wait $R
"$P" info "$T/i.data" | grep -q "finished: yes" || bad "SIGINT: container not finished"
"$P" record -q -e cpu-clock -a -c 50000 -o "$T/k.data" 2>/dev/null &
R=$!
sleep 2.5
kill -KILL $R
wait $R 2>/dev/null
"$P" info "$T/k.data" >"$T/kinfo" 2>&1
grep -q "finished: no" "$T/kinfo" || bad "SIGKILL: $(cat "$T/kinfo")"
k=$(count_info "$T/k.data" cpu-clock)
[ "${k:-0}" -gt 0 ] || bad "SIGKILL: nothing readable"
[ "$(count_perf "$T/k.data" cpu-clock)" = "$k" ] || bad "SIGKILL: perf reads $(count_perf "$T/k.data" cpu-clock), pmutrace $k"

# an existing recording is kept as FILE.old, as perf keeps perf.data.old
cp "$T/w.data" "$T/keep.data"
"$P" record -q -e cpu-clock -o "$T/keep.data" -- true 2>/dev/null
cmp -s "$T/w.data" "$T/keep.data.old" || bad "the previous recording was not kept as .old"

# --bundle=full: the workload's mapped files (by their build-ids) and kallsyms ride along;
# perf still reads the records through zstd -dc (the default, symbols only: symbols.bundle_symbols)
"$P" record -q -e cpu-clock -c 100000 --bundle=full -o "$T/b.pmt" -- sh -c "$loop" 2>/dev/null
"$P" info "$T/b.pmt" >"$T/binfo"
sh_path=$(readlink -f "$(command -v sh)")
want=$(readelf -nW "$sh_path" | sed -n 's/.*Build ID: //p')
grep -q "^embedded: ELF $sh_path, [0-9]* bytes ([0-9]* compressed), build-id $want\$" "$T/binfo" ||
	bad "--bundle: $sh_path (build-id $want) not carried: $(grep embedded "$T/binfo")"
libc=$(grep -o 'embedded: ELF [^,]*libc\.so\.6' "$T/binfo" | sed 's/embedded: ELF //')
[ -n "$libc" ] && grep -q "build-id $(readelf -nW "$libc" | sed -n 's/.*Build ID: //p')\$" "$T/binfo" ||
	bad "--bundle: libc not carried with its build-id"
if [ "$(id -u)" = 0 ]; then
	grep -q '^embedded: kallsyms /proc/kallsyms' "$T/binfo" || bad "--bundle: kallsyms not carried"
fi
[ "$(count_perf "$T/b.pmt" cpu-clock)" = "$(count_info "$T/b.pmt" cpu-clock)" ] ||
	bad "--bundle: perf reads $(count_perf "$T/b.pmt" cpu-clock) samples, pmutrace $(count_info "$T/b.pmt" cpu-clock)"
rc=0
"$P" record -e cpu-clock --bundle=everything -o "$T/x.pmt" -- true 2>"$T/err" || rc=$?
[ $rc = 129 ] && grep -q "want symbols or full" "$T/err" || bad "--bundle=everything: $(cat "$T/err")"
"$P" record -q -e cpu-clock --no-bundle -o "$T/x.pmt" -- true 2>/dev/null
"$P" info "$T/x.pmt" | grep -q '^embedded:' && bad "--no-bundle carried files"

# errors that name the cause
"$P" record -e cpu-clock -o "$T/x.data" -- /nonexistent/cmd 2>"$T/err"
[ $? = 1 ] && grep -qxF "Failed to collect 'cpu-clock' for the '/nonexistent/cmd' workload: No such file or directory" "$T/err" || bad "missing workload: $(cat "$T/err")"
"$P" record -e cpu-clock -p 2147483 --duration 0.1 -o "$T/x.data" 2>"$T/err"
grep -q "no such process\|no process" "$T/err" || bad "missing pid: $(cat "$T/err")"
"$P" record -e nosuchpmu// -- true 2>"$T/err"
[ $? = 129 ] && grep -q "no PMU 'nosuchpmu'" "$T/err" || bad "missing PMU: $(cat "$T/err")"
[ "$fail" = 0 ] || exit 1
echo "OK: workload ($n samples), -C, -a, -p, --per-thread, SIGINT, SIGKILL, .old, --bundle and errors; perf reads the same"
