#!/bin/sh
# Issue 15, "Done when": a perf user's usual invocations print what x86 perf 7.3 prints on
# the same file, a perf 6.1 cpu-clock recording of a shell loop made here (per task, with
# the CPU sampled: a system-wide one would take in whatever else runs on the machine):
#   pmutrace script -i X                                     (perf script's default layout)
#   pmutrace report -i X --stdio                             (perf report's default sort)
#   pmutrace report -i X --stdio --cpu 0 --time A%-B%,C%-D%  (its filters and header)
#   pmutrace script -F time,ip,sym --cpu 0 --time 10%-20%    (fields, CPU and time slices)
#   --cpu on a recording without CPUs                         (perf's refusal)
# A process's samples before its exec are named as perf names them, by the comm of their
# time ("sh" for a subshell that later runs true; "perf-exec" for a workload recorded
# system-wide, cut in report to the column width of its later name). Kernel symbols come,
# as perf's, from this machine's /proc/kallsyms, which runs the recorded kernel (by
# build-id): no --kallsyms is given. perf 7.3's script forgets a thread at its
# EXIT record and names its later samples ":TID" (perf 6.1 and pmutrace keep the name):
# on those lines, and only those, the comm is left out of the script comparison.
#   perf_habits73.sh PMUTRACE ORACLES_DIR
set -u
P=$1 X=${2:-}/bin/perf-7.3
[ -x "$X" ] || { echo "SKIP: x86 perf 7.3 oracle not built (tests/oracles/setup)"; exit 77; }
command -v perf >/dev/null && command -v taskset >/dev/null ||
	{ echo "SKIP: no perf 6.1 or taskset to record with"; exit 77; }
[ -r /proc/kallsyms ] || { echo "SKIP: no /proc/kallsyms"; exit 77; }
T=$(mktemp -d); [ -n "${KEEP:-}" ] && echo "kept in $T"
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
# the subshell's loop runs as "sh" until it execs true: its samples are named "sh"
taskset -c 0 perf record -q --sample-cpu -e cpu-clock -c 100000 -o "$T/x.data" -- sh -c \
	'i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done
	(j=0; while [ $j -lt 60000 ]; do j=$((j+1)); done; exec true)' >/dev/null 2>"$T/rec.err" ||
	{ echo "SKIP: perf record does not run here: $(head -1 "$T/rec.err")"; exit 77; }
cd "$T" || exit 1

# 1. script: the default layout, and ./perf.data when no file is given
noplt() { sed 's/[^ ]*@plt/@plt/'; }
"$X" script -i x.data 2>/dev/null | noplt >perf.txt
"$P" script -i x.data 2>pmt.err | noplt >pmt.txt
[ -s pmt.txt ] && [ ! -s pmt.err ] || bad "script: $(head -2 pmt.err)"
[ -s perf.txt ] && [ "$(wc -l <perf.txt)" = "$(wc -l <pmt.txt)" ] ||
	bad "script: $(wc -l <pmt.txt) lines, perf 7.3 $(wc -l <perf.txt)"
paste -d '\n' perf.txt pmt.txt | awk 'NR % 2 { p = $0; next }
	p ~ /^ *:[0-9]+ / { sub(/^ *[^ ]+ /, "", p); q = $0; sub(/^ *[^ ]+ /, "", q)
		if (p == q) next }
	p != $0 { print "perf 7.3: " p; print "pmutrace: " $0; if (++n == 3) exit 1 }' >diff.txt ||
	bad "script differs from perf 7.3: $(cat diff.txt)"
[ "$(awk '$1 == "sh" { print $2 }' perf.txt | sort -u | wc -l)" = 2 ] ||
	bad "perf 7.3 names no sample of the subshell sh: the case is not tested"
cp x.data perf.data
"$P" script 2>/dev/null | noplt >def.txt && cmp -s def.txt pmt.txt || bad "script without FILE is not script -i ./perf.data"

# 2. report -i X --stdio (perf's random "Tip" block aside)
# .plt entries and unresolved user addresses are left out on both sides: perf 7.3's report
# leaves a sample in libc's .plt.got stub unresolved ("[.] 0x0000000000026368") where its
# script (and pmutrace) name it as a .plt entry; seen once in CI (2026-11-25), not yet
# explained. The script comparison above still checks every sample's symbol.
noplt_r() { grep -v -e '@plt *$' -e '\[\.\] 0x[0-9a-f]* *$'; }
"$X" report -i x.data --stdio 2>/dev/null | sed '/^# (Tip:/,$d' | sed '${/^#$/d}' |
	noplt_r >perf_r.txt
"$P" report -i x.data --stdio 2>/dev/null | sed '${/^#$/d}' | noplt_r >pmt_r.txt
grep -q '%' perf_r.txt && diff perf_r.txt pmt_r.txt >rdiff.txt ||
	bad "report --stdio differs from perf 7.3: $(head -6 rdiff.txt)"

# 2b. report with perf's filters: the header names the time slices as perf's does
"$X" report -i x.data --stdio --cpu 0 --time 10%-20%,50%-60% 2>/dev/null | sed '/^# (Tip:/,$d' |
	sed '${/^#$/d}' | noplt_r >perf_rt.txt
"$P" report -i x.data --stdio --cpu 0 --time 10%-20%,50%-60% 2>/dev/null | sed '${/^#$/d}' |
	noplt_r >pmt_rt.txt
grep -q 'time slices: 10%-20%,50%-60%' perf_rt.txt && diff perf_rt.txt pmt_rt.txt >rdiff.txt ||
	bad "report --cpu 0 --time 10%-20%,50%-60% differs from perf 7.3: $(head -6 rdiff.txt)"

# 3. script -F time,ip,sym --cpu 0 --time 10%-20%
"$X" script -i x.data -F time,ip,sym --cpu 0 --time 10%-20% 2>/dev/null | noplt >perf_f.txt
"$P" script -i x.data -F time,ip,sym --cpu 0 --time 10%-20% 2>/dev/null | noplt >pmt_f.txt
n=$(wc -l <perf_f.txt)
[ "$n" -gt 5 ] && cmp -s perf_f.txt pmt_f.txt ||
	bad "script -F time,ip,sym --cpu 0 --time 10%-20%: $(wc -l <pmt_f.txt) lines, perf 7.3 $n: $(diff perf_f.txt pmt_f.txt | head -4)"
# 4. --cpu on a recording whose samples carry no CPU (per task, no --sample-cpu): perf
# refuses rather than print nothing
perf record -q -e cpu-clock -c 100000 -o y.data -- sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' \
	>/dev/null 2>&1
"$X" script -i y.data --cpu 0 >/dev/null 2>perf_c.txt && bad "perf 7.3 takes --cpu on y.data"
for c in script report; do
	"$P" $c -i y.data --cpu 0 >/dev/null 2>pmt_c.txt && bad "$c --cpu on a file without CPUs: exit 0"
	grep -q "y.data: $(head -1 perf_c.txt)" pmt_c.txt ||
		bad "$c --cpu without CPUs: '$(cat pmt_c.txt)', perf 7.3: '$(cat perf_c.txt)'"
done
[ $fail = 0 ] || exit 1
echo "OK: script, report --stdio and script -F time,ip,sym --cpu 0 --time 10%-20% as perf 7.3 ($n lines)"
