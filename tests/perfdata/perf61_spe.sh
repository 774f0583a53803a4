#!/bin/sh
# Key independent check: every shared SPE buffer wrapped by `pmutrace convert --raw` must
# make Debian's perf 6.1 print exactly what it printed for the reference perf.data files
# (perf61_expected/, produced by perf itself), both `perf script` (with and without an N1
# MIDR) and the SPE lines of `perf report -D`.
# usage: perf61_spe.sh PMUTRACE SHARED_DIR    (exit 77 = skipped)
PMUTRACE=$1
DATA=$2/data/spe
EXP=$DATA/perf61_expected
[ -d "$EXP" ] || { echo "SKIP: $EXP absent"; exit 77; }
command -v perf >/dev/null 2>&1 || { echo "SKIP: perf missing"; exit 77; }
perf version 2>/dev/null | grep -q '^perf version 6\.1\.' || { echo "SKIP: references are for perf 6.1"; exit 77; }
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
FIELDS=tid,cpu,period,event,addr,data_src,weight,ip,phys_addr
fail=0
n=0
for buf in "$DATA"/*.bin "$DATA"/*.data; do
	[ -f "$buf" ] || continue
	name=$(basename "$buf"); name=${name%.*}
	[ -f "$EXP/$name.script-N1midr.txt" ] || continue
	n=$((n + 1))
	for v in N1midr nomidr; do
		midr=; [ $v = N1midr ] && midr="--midr 0x410fd0c0"
		out=$TMP/$name.$v.perf.data
		# shellcheck disable=SC2086
		"$PMUTRACE" convert --raw "$buf" --tid 1234 --cpu 0 --timeless $midr -o "$out" ||
			{ echo "FAIL: convert $name"; fail=1; continue; }
		perf script -i "$out" --itrace=bfmtaMi1i -F $FIELDS 2>/dev/null > "$TMP/$name.$v.txt"
		if ! cmp -s "$TMP/$name.$v.txt" "$EXP/$name.script-$v.txt"; then
			echo "FAIL: perf script $name ($v) differs:"
			diff "$EXP/$name.script-$v.txt" "$TMP/$name.$v.txt" | head -10
			fail=1
		fi
	done
	# re-written by pmutrace (reader + writer round trip), perf must print the same
	"$PMUTRACE" convert "$TMP/$name.N1midr.perf.data" -o "$TMP/$name.copy" &&
		perf script -i "$TMP/$name.copy" --itrace=bfmtaMi1i -F $FIELDS 2>/dev/null |
		cmp -s - "$EXP/$name.script-N1midr.txt" ||
		{ echo "FAIL: perf script $name (perf.data re-written by convert) differs"; fail=1; }
	# perf must read the other byte order and pipe mode the same way
	"$PMUTRACE" convert --raw "$buf" --timeless --midr 0x410fd0c0 --swap -o "$TMP/$name.swap" &&
		perf script -i "$TMP/$name.swap" --itrace=bfmtaMi1i -F $FIELDS 2>/dev/null |
		cmp -s - "$EXP/$name.script-N1midr.txt" ||
		{ echo "FAIL: perf script $name (byte-swapped file) differs"; fail=1; }
	"$PMUTRACE" convert --raw "$buf" --timeless --midr 0x410fd0c0 -o - |
		perf script -i - --itrace=bfmtaMi1i -F $FIELDS 2>/dev/null |
		cmp -s - "$EXP/$name.script-N1midr.txt" ||
		{ echo "FAIL: perf script $name (pipe mode) differs"; fail=1; }
	perf report -D -i "$TMP/$name.N1midr.perf.data" 2>/dev/null |
		grep -E '^\. \.\.\. ARM SPE data|^\.  [0-9a-f]{8}:' > "$TMP/$name.D.txt"
	grep -v '^$' "$EXP/$name.report-D.txt" > "$TMP/$name.D.exp"
	if ! cmp -s "$TMP/$name.D.txt" "$TMP/$name.D.exp"; then
		echo "FAIL: perf report -D $name differs:"
		diff "$TMP/$name.D.exp" "$TMP/$name.D.txt" | head -10
		fail=1
	fi
done
[ $n -gt 0 ] || { echo "SKIP: no buffers"; exit 77; }
# Timed conversion with sideband: the ts=1 buffer's one record has PC 0x7ffdbf2143e0 (see
# its report-D reference), which lies in the MMAP2 we add, so perf must name the DSO and
# take the COMM; TIME_CONV is written because the trace has timestamps.
ts1=$DATA/wperf_spe-b1-ts1.data
if [ -f "$ts1" ]; then
	"$PMUTRACE" convert --raw "$ts1" --comm loop --mmap 0x7ffdbf200000,0x100000,0,/usr/bin/loop \
		-o "$TMP/timed.data" || { echo "FAIL: timed convert"; fail=1; }
	got=$(perf script -i "$TMP/timed.data" --itrace=i1i -F comm,tid,ip,dso 2>/dev/null | tr -s ' ')
	if [ "$got" != " loop 1234 7ffdbf2143e0 (/usr/bin/loop)" ]; then
		echo "FAIL: timed conversion with COMM/MMAP2: got '$got'"
		fail=1
	fi
fi
[ $fail = 0 ] && echo "OK: $n buffers match perf 6.1 byte for byte"
exit $fail
