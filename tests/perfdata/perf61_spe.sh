#!/bin/sh
# Key independent check: every shared SPE buffer wrapped by `pmutrace convert --raw` must
# make Debian's perf 6.1 print exactly what it printed for the reference perf.data files
# (perf61_expected/, produced by perf itself), both `perf script` (with and without an N1
# MIDR) and the SPE lines of `perf report -D`.
# usage: perf61_spe.sh PMUTRACE SHARED_DIR    (exit 77 = skipped)
PMUTRACE=$1
. "$(dirname "$0")/../diff/spe_refs.sh"
spe_refs_open "$2"
DATA=$SPE_DATA
command -v perf >/dev/null 2>&1 || { echo "SKIP: perf missing"; exit 77; }
perf version 2>/dev/null | grep -q '^perf version 6\.1\.' || { echo "SKIP: references are for perf 6.1"; exit 77; }
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
FIELDS=tid,cpu,period,event,addr,data_src,weight,ip,phys_addr

check() { # NAME BUFFER KIND MIDR EXPECTED
	name=$1 buf=$2 v=$3 exp=$5
	midr=; [ "$4" != 0 ] && midr="--midr $4"
	out=$TMP/$name.$v.perf.data
	# shellcheck disable=SC2086
	"$PMUTRACE" convert --raw "$buf" --tid 1234 --cpu 0 --timeless $midr -o "$out" ||
		{ echo "FAIL: convert $name"; fail=1; return; }
	perf script -i "$out" --itrace=bfmtaMi1i -F $FIELDS 2>/dev/null > "$TMP/$name.$v.txt"
	spe_refs_same "$exp" "$TMP/$name.$v.txt" "perf script $name ($v)"
	[ "$v" = N1midr ] || return 0
	# re-written by pmutrace (reader + writer round trip), perf must print the same
	"$PMUTRACE" convert "$out" -o "$TMP/$name.copy" &&
		perf script -i "$TMP/$name.copy" --itrace=bfmtaMi1i -F $FIELDS 2>/dev/null |
		cmp -s - "$exp" ||
		{ echo "FAIL: perf script $name (perf.data re-written by convert) differs"; fail=1; }
	# perf must read the other byte order and pipe mode the same way
	"$PMUTRACE" convert --raw "$buf" --timeless --midr 0x410fd0c0 --swap -o "$TMP/$name.swap" &&
		perf script -i "$TMP/$name.swap" --itrace=bfmtaMi1i -F $FIELDS 2>/dev/null |
		cmp -s - "$exp" ||
		{ echo "FAIL: perf script $name (byte-swapped file) differs"; fail=1; }
	"$PMUTRACE" convert --raw "$buf" --timeless --midr 0x410fd0c0 -o - |
		perf script -i - --itrace=bfmtaMi1i -F $FIELDS 2>/dev/null |
		cmp -s - "$exp" ||
		{ echo "FAIL: perf script $name (pipe mode) differs"; fail=1; }
	perf report -D -i "$out" 2>/dev/null |
		grep -E '^\. \.\.\. ARM SPE data|^\.  [0-9a-f]{8}:' > "$TMP/$name.D.txt"
	grep -v '^$' "$SPE_EXP/$name.report-D.txt" > "$TMP/$name.D.exp"
	spe_refs_same "$TMP/$name.D.exp" "$TMP/$name.D.txt" "perf report -D $name"
}
spe_refs_each check
[ $spe_refs_n -gt 0 ] || { echo "SKIP: no buffers"; exit 77; }
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
[ $fail = 0 ] && echo "OK: $spe_refs_n references match perf 6.1 byte for byte"
exit $fail
