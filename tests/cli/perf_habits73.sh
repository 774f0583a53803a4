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
"$X" script -i x.data 2>/dev/null >perf.txt
"$P" script -i x.data 2>pmt.err >pmt.txt
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
"$P" script 2>/dev/null >def.txt && cmp -s def.txt pmt.txt || bad "script without FILE is not script -i ./perf.data"

# 2. report -i X --stdio (perf's random "Tip" block aside); .plt and .plt.got entries are
# named as perf 7.3 names them (2c, 2d)
noblank() { grep -v -e '^$'; }
"$X" report -i x.data --stdio 2>/dev/null | sed '/^# (Tip:/,$d' | sed '${/^#$/d}' |
	noblank >perf_r.txt
"$P" report -i x.data --stdio 2>/dev/null | sed '${/^#$/d}' | noblank >pmt_r.txt
grep -q '%' perf_r.txt && diff perf_r.txt pmt_r.txt >rdiff.txt ||
	bad "report --stdio differs from perf 7.3: $(head -6 rdiff.txt)"

# 2b. report with perf's filters: the header names the time slices as perf's does
"$X" report -i x.data --stdio --cpu 0 --time 10%-20%,50%-60% 2>/dev/null | sed '/^# (Tip:/,$d' |
	sed '${/^#$/d}' | noblank >perf_rt.txt
"$P" report -i x.data --stdio --cpu 0 --time 10%-20%,50%-60% 2>/dev/null | sed '${/^#$/d}' |
	noblank >pmt_rt.txt
grep -q 'time slices: 10%-20%,50%-60%' perf_rt.txt && diff perf_rt.txt pmt_rt.txt >rdiff.txt ||
	bad "report --cpu 0 --time 10%-20%,50%-60% differs from perf 7.3: $(head -6 rdiff.txt)"

# move_onto OFF STEP COUNT OUT: x.data with every fifth of its libc samples (libc_ips.txt)
# moved onto libc's file offset OFF + STEP * i, i cycling through COUNT entries, into OUT
move_onto() {
	python3 - x.data "$4" "$1" "$2" "$3" libc_ips.txt <<'PY'
import struct, sys
src, dst, pg, step, count, ips = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
base = {}
for line in open(ips):
    ip = int(line.split()[0], 16)
    base[ip] = ip - int(line.rsplit("+0x", 1)[1].rstrip(")\n"), 16)
d = bytearray(open(src, "rb").read())
off, size = struct.unpack_from("<QQ", d, 40)
pos, n, k = off, 0, 0
# PERF_RECORD_SAMPLE of cpu-clock without PERF_SAMPLE_IDENTIFIER: the ip comes first
while pos + 8 <= off + size:
    typ, _, sz = struct.unpack_from("<IHH", d, pos)
    if sz < 8:
        break
    if typ == 9:
        ip = struct.unpack_from("<Q", d, pos + 8)[0]
        if ip in base:
            k += 1
            if k % 5 == 0:
                struct.pack_into("<Q", d, pos + 8, base[ip] + pg + step * (k // 5 % count))
                n += 1
    pos += sz
open(dst, "wb").write(d)
sys.exit(0 if n else 1)
PY
}
# 2c. samples in libc's .plt.got stubs: the recording's libc samples, every fifth moved
# onto the stub (a real run lands there about once in ten runs); script and report name
# them as perf 7.3 does (pmutrace before: "[unknown]", "[.] 0x0000000000026368")
libc=$("$X" script -i x.data -F ip,dso 2>/dev/null | grep -o '/[^ ]*libc\.so\.6' | sort -u | head -1)
[ -n "$libc" ] || bad "no sample in libc.so.6: 2c has nothing to move"
pg=$(readelf -SW "$libc" 2>/dev/null | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".plt.got" { print $4 }')
"$X" script -i x.data -F ip,dso,dsoff 2>/dev/null | grep 'libc\.so\.6+0x' >libc_ips.txt
if [ -n "$pg" ]; then
	move_onto "$((0x$pg))" 8 2 g.data || bad "cannot move samples onto .plt.got"
	"$X" script -i g.data -F ip,sym,dso,dsoff 2>/dev/null >perf_g.txt
	"$P" script -i g.data -F ip,sym,dso,dsoff 2>/dev/null >pmt_g.txt
	# the names perf gives the .plt.got stubs (free@plt, malloc@plt)
	awk -v a=$((0x$pg)) '{ o = $NF; sub(/.*\+0x/, "", o); sub(/\)$/, "", o)
		if ($NF ~ /libc\.so\.6\+0x/ && ("0x" o) + 0 >= a && ("0x" o) + 0 < a + 16) print $2 }' \
		perf_g.txt | sort -u >got_names.txt
	grep -q '@plt$' got_names.txt || bad "perf 7.3 names no .plt.got sample: the case is not tested"
	cmp -s perf_g.txt pmt_g.txt || bad ".plt.got: script differs from perf 7.3: $(diff perf_g.txt pmt_g.txt | head -4)"
	"$X" report -i g.data --stdio --sort dso,sym 2>/dev/null | sed '/^# (Tip:/,$d' | grep -v -e '^#' -e '^$' >perf_g.txt
	"$P" report -i g.data --stdio --sort dso,sym 2>/dev/null | grep -v -e '^#' -e '^$' >pmt_g.txt
	grep -q -F -f got_names.txt perf_g.txt || bad "perf 7.3's report names no .plt.got entry"
	cmp -s perf_g.txt pmt_g.txt ||
		bad ".plt.got: report --sort dso,sym differs from perf 7.3: $(diff perf_g.txt pmt_g.txt | head -4)"
else
	echo "note: no .plt.got in $libc, 2c not run"
fi

# 2d. samples in libc's .plt entries, most of them its IFUNCs' (R_X86_64_IRELATIVE, no
# symbol): perf 7.3 names those after the IFUNC the relocation's addend points at
# (get_ifunc_name(): "strlen@plt"; pmutrace before: "offset_0x26110@plt")
set -- $(readelf -SW "$libc" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".plt" { print "0x" $4, "0x" $5 }')
if [ $# = 2 ] && readelf -rW "$libc" | grep -q IRELATIVE; then
	move_onto $(($1 + 16)) 16 $(($2 / 16 - 1)) i.data || bad "cannot move samples onto .plt"
	"$X" script -i i.data -F ip,sym,dso,dsoff 2>/dev/null >perf_i.txt
	"$P" script -i i.data -F ip,sym,dso,dsoff 2>/dev/null >pmt_i.txt
	grep -q ' [a-z_0-9]*@plt (/[^ ]*libc\.so\.6+0x' perf_i.txt && ! grep -q 'offset_0x[0-9a-f]*@plt' perf_i.txt ||
		bad "perf 7.3 names no libc .plt entry after its IFUNC: the case is not tested"
	cmp -s perf_i.txt pmt_i.txt || bad ".plt: script differs from perf 7.3: $(diff perf_i.txt pmt_i.txt | head -4)"
	# perf 6.1: relocations in file order, and "@plt" for those without a symbol
	perf script -i i.data -F ip,sym,dso 2>/dev/null >perf_i.txt
	"$P" script -i i.data -F ip,sym,dso --perf-compat=6.1 2>/dev/null >pmt_i.txt
	grep -q ' @plt (' perf_i.txt && cmp -s perf_i.txt pmt_i.txt ||
		bad ".plt: script differs from perf 6.1: $(diff perf_i.txt pmt_i.txt | head -4)"
	"$X" report -i i.data --stdio --sort dso,sym 2>/dev/null | sed '/^# (Tip:/,$d' | grep -v -e '^#' -e '^$' >perf_i.txt
	"$P" report -i i.data --stdio --sort dso,sym 2>/dev/null | grep -v -e '^#' -e '^$' >pmt_i.txt
	cmp -s perf_i.txt pmt_i.txt ||
		bad ".plt: report --sort dso,sym differs from perf 7.3: $(diff perf_i.txt pmt_i.txt | head -4)"
else
	echo "note: no IFUNC .plt entries in $libc, 2d not run"
fi

# 3. script -F time,ip,sym --cpu 0 --time 10%-20%
"$X" script -i x.data -F time,ip,sym --cpu 0 --time 10%-20% 2>/dev/null >perf_f.txt
"$P" script -i x.data -F time,ip,sym --cpu 0 --time 10%-20% 2>/dev/null >pmt_f.txt
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
