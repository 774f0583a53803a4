#!/bin/sh
# pmutrace vs Linux perf on one synthetic SPE perf.data (not a test; prints figures).
#   bench/compare_perf.sh [PMUTRACE] [RECORDS]   (default: build/cli/pmutrace, 1048576 = 64 MB)
# Times `pmutrace script --csv` vs `perf script --itrace=bfmtaMi1i -F ...` and
# `pmutrace report` vs `perf report --stdio`, output to /dev/null, same file, same run;
# prints wall time, the ratio and peak RSS (/usr/bin/time -v when present), and the peak
# RSS of `cat pipe-mode.data | pmutrace report -`.
set -eu
PMUTRACE=${1:-build/cli/pmutrace}
RECORDS=${2:-1048576}
command -v perf >/dev/null 2>&1 || { echo "perf not installed"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PMUTRACE" synth --records "$RECORDS" --seed 1 --mix n1 --context -o "$T/a.spe"
"$PMUTRACE" convert --raw "$T/a.spe" --midr 0x410fd0c0 -o "$T/a.perf.data"
# the same trace in pipe mode, AUX data in 4 MiB AUXTRACE records as perf record writes them
"$PMUTRACE" convert --raw "$T/a.spe" --midr 0x410fd0c0 --pipe --chunk 4194304 -o "$T/a.pipe.data"
echo "input: $(wc -c <"$T/a.spe") bytes of SPE, $RECORDS records"
FIELDS=tid,cpu,period,event,addr,data_src,weight,ip,phys_addr

# run NAME CMD... : wall seconds into $T/NAME.sec, peak RSS KB into $T/NAME.rss
run() {
	name=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -v -o "$T/$name.tv" "$@" >/dev/null 2>"$T/$name.err"
		awk -F': ' '/Elapsed \(wall clock\)/ {
			n = split($2, p, ":"); s = 0
			for (i = 1; i <= n; i++) s = s * 60 + p[i]
			print s }' "$T/$name.tv" >"$T/$name.sec"
		awk -F': ' '/Maximum resident/ { print $2 }' "$T/$name.tv" >"$T/$name.rss"
		awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$T/$name.tv" \
			>"$T/$name.cpu"
	else
		s=$(date +%s.%N)
		"$@" >/dev/null 2>"$T/$name.err"
		e=$(date +%s.%N)
		echo "$e - $s" | bc >"$T/$name.sec"
		echo "?" >"$T/$name.rss"
		cp "$T/$name.sec" "$T/$name.cpu"
	fi
	printf "%-16s %8.2f s wall %8.2f s cpu  peak RSS %s KB\n" "$name" "$(cat "$T/$name.sec")" \
		"$(cat "$T/$name.cpu")" "$(cat "$T/$name.rss")"
}

run pmt_script "$PMUTRACE" script "$T/a.perf.data" --itrace=bfmtaMi1i --csv
run perf_script perf script -i "$T/a.perf.data" --itrace=bfmtaMi1i -F "$FIELDS"
run pmt_report "$PMUTRACE" report "$T/a.perf.data" --stdio
run perf_report perf report -i "$T/a.perf.data" --stdio
# peak RSS of a streamed report (the aggregation grows with distinct ips, not trace size)
run pmt_report_pipe sh -c 'cat "$1" | "$2" report - --stdio' sh "$T/a.pipe.data" "$PMUTRACE"
# ratio A B KIND: B's time over A's (KIND sec = wall, cpu = user+sys, steadier on a busy box)
ratio() { awk -v a="$(cat "$T/$1.$3")" -v b="$(cat "$T/$2.$3")" 'BEGIN {
	if (a <= 0) a = 0.005; printf "%.1fx", b / a }'; }
echo "script: pmutrace is $(ratio pmt_script perf_script sec) faster than perf script in wall time," \
	"$(ratio pmt_script perf_script cpu) in CPU time (goal >= 10x)"
echo "report: pmutrace is $(ratio pmt_report perf_report sec) faster than perf report in wall time," \
	"$(ratio pmt_report perf_report cpu) in CPU time (goal >= 20x)"
