#!/bin/sh
# Files written by `pmutrace convert` carry HEADER_AUXTRACE (the AUXTRACE record index) the
# way `perf record` writes it, so Debian's perf 6.1 treats them as AUX-area traces:
# - `perf report --header-only` says "contains AUX area data";
# - `perf script` takes plain -F fields (no hw: prefix) and prints the same number of
#   samples per event as pmutrace (--perf-compat=$COMPAT) for a timed, chunked file;
# - `perf inject` re-writes the file with its own index; pmutrace reads that copy without a
#   warning and decodes it to the same samples; an index entry that points at no AUXTRACE
#   record is reported.
# usage: auxtrace_feature.sh PMUTRACE    (exit 77 = skipped: no perf)
set -eu
PMUTRACE=$1
PERF=${PERF:-perf}   # the perf to check against (perf 6.1, or perf 7.3's wrapper)
COMPAT=${COMPAT:-6.1}
command -v "$PERF" >/dev/null 2>&1 || { echo "SKIP: perf missing"; exit 77; }
$PERF version >/dev/null 2>&1 || { echo "SKIP: perf does not run"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
"$PMUTRACE" synth --records 2000 --seed 5 --mix n1 --context -o "$T/a.spe"
"$PMUTRACE" convert --raw "$T/a.spe" --midr 0x410fd0c0 --chunk 8192 -o "$T/a.data"

$PERF report --header-only -i "$T/a.data" 2>/dev/null | grep -q '^# contains AUX area data' ||
	{ echo "FAIL: perf sees no HEADER_AUXTRACE"; fail=1; }

$PERF script -i "$T/a.data" --itrace=bfmtaMi1i \
	-F tid,cpu,period,event,addr,data_src,weight,ip,phys_addr >"$T/perf.txt" 2>"$T/perf.err" ||
	{ echo "FAIL: $PERF script with plain -F:"; cat "$T/perf.err"; exit 1; }
awk '{ ev = $4; sub(/:$/, "", ev); n[ev]++ } END { for (e in n) print e, n[e] }' \
	"$T/perf.txt" | sort >"$T/perf.cnt"
"$PMUTRACE" script "$T/a.data" --itrace=bfmtaMi1i --perf-compat=$COMPAT --csv >"$T/pmt.csv"
awk -F, 'NR > 1 { n[$1]++ } END { for (e in n) print e, n[e] }' "$T/pmt.csv" | sort >"$T/pmt.cnt"
if [ ! -s "$T/perf.cnt" ] || ! cmp -s "$T/perf.cnt" "$T/pmt.cnt"; then
	echo "FAIL: samples per event differ (perf < > pmutrace)"
	diff "$T/perf.cnt" "$T/pmt.cnt" || true
	fail=1
fi

if $PERF inject -i "$T/a.data" -o "$T/inj.data" 2>/dev/null; then
	$PERF report --header-only -i "$T/inj.data" 2>/dev/null | grep -q '^# contains AUX area data' ||
		{ echo "FAIL: $PERF inject dropped HEADER_AUXTRACE"; fail=1; }
	"$PMUTRACE" script "$T/inj.data" --itrace=bfmtaMi1i --perf-compat=$COMPAT --csv \
		>"$T/inj.csv" 2>"$T/inj.err"
	if [ -s "$T/inj.err" ] || ! cmp -s "$T/pmt.csv" "$T/inj.csv"; then
		echo "FAIL: $PERF inject's copy reads differently:"
		head -3 "$T/inj.err"
		fail=1
	fi
else
	echo "note: $PERF inject failed; its copy is not checked"
fi

# Point the first index entry at the file header (offset 0): the reader must say so.
python3 - "$T/a.data" "$T/bad.data" <<'PY' || { echo "SKIP: python3 missing"; exit 77; }
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
doff, dsz = struct.unpack_from('<2Q', d, 40)
bits = struct.unpack_from('<4Q', d, 72)
k = sum(1 for f in range(18) if bits[f // 64] >> (f % 64) & 1)
foff, _ = struct.unpack_from('<2Q', d, doff + dsz + 16 * k)
struct.pack_into('<Q', d, foff + 8, 0)
open(sys.argv[2], 'wb').write(d)
PY
"$PMUTRACE" script "$T/bad.data" --itrace=i1i --csv >"$T/bad.csv" 2>"$T/bad.err" || true
grep -q 'AUXTRACE index entries point at no AUXTRACE record (first: 0x0)' "$T/bad.err" ||
	{ echo "FAIL: a bad index entry is not reported:"; cat "$T/bad.err"; fail=1; }
[ "$(wc -l <"$T/bad.csv")" -gt 1 ] || { echo "FAIL: bad index lost the samples"; fail=1; }
[ $fail = 0 ] && echo "OK: HEADER_AUXTRACE written and read as $($PERF version) does ($(tr '\n' ' ' <"$T/perf.cnt"))"
exit $fail
