#!/bin/sh
# The SPE decode window is sized from the recording (decode/spe/src/spe_session.c): a
# 4-CPU trace whose AUX chunks (1.6 MiB, as a large AUX buffer gives them) make one pass
# over the rings larger than the smallest window still prints its samples in whole-file
# time order, as perf does: the time column line for line and the same samples as perf 6.1
# and perf 7.3 (`perf script -i -` of the pipe-mode file; samples of equal time may come in
# another order, so those are compared as sets), without the window's "ran out" warning,
# from the perf.data and its container, at -j 1 and -j 2. A fixed 8 MiB window merges
# before the other CPUs' chunks of a pass are read: a CPU's queue runs dry and the times go
# back, which this test sees.
# Usage: spe_window.sh PMUTRACE SPE_CPUS [PERF73]
set -u
pmt=$1
gen=$2
p73=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
perfs=""
command -v perf >/dev/null 2>&1 && perfs=perf
[ -n "$p73" ] && [ -x "$p73" ] && perfs="$perfs $p73"

"$gen" "$tmp/l.data" whole 3 25000 || fail "spe_cpus"
"$pmt" convert "$tmp/l.data" --container -o "$tmp/l.pmt" || fail "convert"
# perf's lines as pmutrace's CSV columns: tid,cpu,time(ns),ip
for p in $perfs; do
	# (perf reads a pipe-mode file reliably only from a pipe)
	cat "$tmp/l.data" | "$p" script -i - --itrace=i1i --ns -F tid,cpu,time,ip 2>"$tmp/perr" |
		awk '{ t = $3; sub(/:$/, "", t); sub(/\./, "", t); c = $2; gsub(/[][]/, "", c)
		       printf "%s,%d,%s,0x%s\n", $1, c, t, $4 }' >"$tmp/want"
	[ "$(wc -l <"$tmp/want")" = 300000 ] || fail "$p script: $(wc -l <"$tmp/want") samples: $(head -3 "$tmp/perr")"
	cut -d, -f3 "$tmp/want" >"$tmp/want.t"
	sort "$tmp/want" >"$tmp/want.s"
	mv "$tmp/want.t" "$tmp/$(basename "$p").t"
	mv "$tmp/want.s" "$tmp/$(basename "$p").s"
done
n=0
for f in "$tmp/l.data" "$tmp/l.pmt"; do
	for j in 1 2; do
		rc=0
		"$pmt" script --itrace=i1i --csv -j $j "$f" >"$tmp/o" 2>"$tmp/e" || rc=$?
		[ $rc = 0 ] && [ ! -s "$tmp/e" ] || fail "$f -j $j: exit $rc: $(head -3 "$tmp/e")"
		awk -F, 'NR > 1 { print $4 "," $2 "," $5 "," $6 }' "$tmp/o" >"$tmp/got"
		[ "$(wc -l <"$tmp/got")" = 300000 ] || fail "$f -j $j: $(wc -l <"$tmp/got") samples"
		awk -F, 'NR > 1 && $3 < t { print "line " NR ": time " $3 " after " t; exit 1 } { t = $3 }' \
			"$tmp/got" >"$tmp/back" || fail "$f -j $j: not in time order: $(cat "$tmp/back")"
		for p in $perfs; do
			b=$(basename "$p")
			cut -d, -f3 "$tmp/got" | cmp -s - "$tmp/$b.t" || fail "$f -j $j: times differ from $p's"
			sort "$tmp/got" | cmp -s - "$tmp/$b.s" || fail "$f -j $j: samples differ from $p's"
		done
		n=$((n + 1))
	done
done
[ -n "$perfs" ] || echo "note: no perf: time order checked, not compared with perf"
echo "PASS: $n runs in whole-file order (compared with:${perfs:- nothing})"
