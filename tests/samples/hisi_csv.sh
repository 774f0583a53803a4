#!/bin/sh
# pmutrace synth --mix hip12 -> convert --midr 0x480fd060 (HiSilicon HIP12) -> script --csv:
# the load data sources are the HIP12 table's values (hand-derived in
# tests/unit/test_spe_hisi.c) with the TLB bits of the synthetic records, which always
# carry TLB-ACCESS: dtlb WK|HIT = 0x22 << 26 = 0x88000000 on top of the table value.
#   hisi_csv.sh PMUTRACE
set -eu
PMUTRACE=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$PMUTRACE" synth --records 20000 --seed 3 --mix hip12 -o "$T/a.spe"
"$PMUTRACE" convert --raw "$T/a.spe" --midr 0x480fd060 -o "$T/a.data"
"$PMUTRACE" script "$T/a.data" --itrace=M --csv >"$T/new.csv"
"$PMUTRACE" script "$T/a.data" --itrace=M --csv --perf-compat=6.13 >"$T/old.csv"
# column 13 is data_src, 14..17 its decoded words
cut -d, -f13-15 "$T/new.csv" | sort -u >"$T/new.dsrc"
fail=0
# code: table value + 0x88000000, mem_lvl word
for want in \
	"0|0x8488080442,LOAD,L2 hit" "1|0x8488800442,LOAD,L2 hit" \
	"2|0x688200842,LOAD,L3 hit" "3|0x688800842,LOAD,L3 hit" \
	"4|0x8688088042,LOAD,L3 hit" "5|0x8688808042,LOAD,L3 hit" \
	"6|0xb688090002,LOAD,Remote Any cache " "7|0xb688810002,LOAD,Remote Any cache " \
	"8|0x1a88101042,LOAD,RAM hit" "9|0x3a88082042,LOAD,Remote RAM hit" \
	"13|0x1488120042,LOAD,I/O hit" "16|0x488100442,LOAD,L2 hit" \
	"17|0x488800442,LOAD,L2 hit" "18|0x288100142,LOAD,L1 hit" \
	"store|0x1e88080024,STORE,N/A"; do
	code=${want%%|*}
	line=${want#*|}
	if ! grep -qxF "$line" "$T/new.dsrc"; then
		echo "FAIL: HIP12 code $code: no '$line' row"
		fail=1
	fi
done
# perf 6.13 has no HIP12 table: the peer-CPU value (SNOOPX PEER) cannot appear
if grep -q ",0x8488080442," "$T/old.csv"; then
	echo "FAIL: --perf-compat=6.13 used the HIP12 table"
	fail=1
fi
[ "$fail" = 0 ] && echo "OK: all 14 HIP12 codes and the store rule"
exit "$fail"
