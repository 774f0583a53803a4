#!/bin/sh
# -F brstackinsn, brstackinsnlen, brstackdisasm, insn and insnlen against perf 7.3 (x86,
# built without capstone: brstackdisasm prints as brstackinsn), byte for byte, on
# branch-heavy SPE traces whose PCs fall in the project's symbol fixtures:
# - AArch64 fixtures under --perf-compat: perf on x86 measures every file's bytes with
#   the kernel's x86 decoder ("insn: 6c", "<bad>", insnlen 15 for a refused VEX prefix);
# - x86-64 fixtures (when gcc builds them), where pmutrace's default decodes x86 too.
# pmutrace's default on the AArch64 files decodes AArch64 (4 bytes, the file's own word),
# in brstackinsn, insn and insnlen.
#   [PERF=CMD] brstackinsn_vs_perf.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
PERF=${PERF:-perf}
$PERF version >/dev/null 2>&1 || { echo "SKIP: $PERF does not run"; exit 77; }
$PERF version | grep -q 'version [7-9]' || { echo "SKIP: $($PERF version) is not perf >= 7"; exit 77; }
. "$SRC/tests/tools/symbols_fixture.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/home"
# trace DIR FX APP LIB READELF: DIR/a.data over FX's app and libfix.so, DIR/symfs
trace() {
	_d=$1 _fx=$2 _app=$3 _lib=$4 _re=$5
	mkdir -p "$_d/symfs/usr/bin" "$_d/symfs/usr/lib"
	set -- $($_re -lW "$_fx/app" | awk '$1 == "LOAD" && / E / { print $2, $5; exit }')
	"$P" synth --records 3000 --seed 41 --mix branches --kernel-pct 4 \
		--text $((_app + $1)),$(($2)) -o "$_d/app.spe"
	set -- $($_re -lW "$_fx/libfix.so" | awk '$1 == "LOAD" && / E / { print $2, $5; exit }')
	"$P" synth --records 2000 --seed 42 --mix branches --kernel-pct 4 \
		--text $((_lib + $1)),$(($2)) -o "$_d/lib.spe"
	cat "$_d/app.spe" "$_d/lib.spe" >"$_d/all.spe"
	"$P" convert --raw "$_d/all.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
		--mmap "$_app,0x10000,0,/usr/bin/app" --mmap "$_lib,0x10000,0,/usr/lib/libfix.so" \
		-o "$_d/a.data"
	cp "$_fx/app" "$_d/symfs/usr/bin/app"
	cp "$_fx/libfix.so" "$_d/symfs/usr/lib/libfix.so"
}
FIELDS="ip,brstackinsn ip,brstackinsnlen ip,brstackdisasm event,ip,sym,dso,brstackinsn,phys_addr
ip,insn,insnlen,brstackinsn,brstackinsnlen ip,insn insnlen,ip tid,ip,sym,symoff,brstackinsn"
n=0
# compare DIR FLAGS...: each field list, with and without --symfs (no code: no blocks)
compare() {
	_d=$1
	shift
	for symfs in "--symfs $_d/symfs" ""; do
		for f in $FIELDS; do
			# shellcheck disable=SC2086
			HOME=$T/home $PERF script -i "$_d/a.data" $symfs --itrace=bi1il -F "$f" \
				>"$T/perf.txt" 2>/dev/null
			# shellcheck disable=SC2086
			HOME=$T/home "$P" script "$_d/a.data" $symfs --itrace=bi1il -F "$f" "$@" \
				>"$T/pmt.txt"
			[ -s "$T/perf.txt" ] || { echo "FAIL: perf printed nothing for -F $f"; exit 1; }
			if ! cmp -s "$T/perf.txt" "$T/pmt.txt"; then
				echo "FAIL: -F $f on $_d ${symfs:+with --symfs }$* differs (perf < > pmutrace)"
				diff "$T/perf.txt" "$T/pmt.txt" | head -6
				exit 1
			fi
			n=$((n + $(wc -l <"$T/perf.txt")))
		done
	done
}
fixture_build "$T/fa"
trace "$T/a64" "$T/fa" 0xaaaad0000000 0xffff80000000 $RE
compare "$T/a64" --perf-compat=7.3
# the blocks are real: jumps with their cycles, symbols entered, refused prefixes
HOME=$T/home "$P" script "$T/a64/a.data" --symfs "$T/a64/symfs" --itrace=bi1il --perf-compat=7.3 \
	-F ip,insnlen,brstackinsn >"$T/pmt.txt"
for want in '	<bad> ' 'ilen: 15' '# MISPRED [0-9]* cycles' '^	work_[0-9]*+[0-9]*:$'; do
	grep -q "$want" "$T/pmt.txt" || { echo "FAIL: no line matches '$want'"; exit 1; }
done
# pmutrace's default: the AArch64 file's own 4-byte words, as the file holds them
HOME=$T/home "$P" script "$T/a64/a.data" --symfs "$T/a64/symfs" --itrace=bi1il \
	-F ip,brstackinsnlen >"$T/def.txt"
if grep '	insn: ' "$T/def.txt" | grep -v '	insn: \(.. \)\{4\} *	ilen: 4	'; then
	echo "FAIL: the default decoded an AArch64 instruction to other than 4 bytes"
	exit 1
fi
set -- $(awk '/^	0000aaaad/ { print $1, $3, $4, $5, $6; exit }' "$T/def.txt")
off=$(($(printf '%d' 0x$1) - 0xaaaad0000000))
want=$(od -An -tx1 -j $off -N 4 "$T/a64/symfs/usr/bin/app" | tr -d '\n' | sed 's/^ //')
[ "$want" = "$2 $3 $4 $5" ] || { echo "FAIL: 0x$1: '$2 $3 $4 $5', the file has '$want'"; exit 1; }
# and insnlen/insn at the ip: 4 and the file's word on every sample in a mapped file (perf,
# and pmutrace's --perf-compat, decode those as x86: "ilen: 1", "ilen: 2", ...)
HOME=$T/home "$P" script "$T/a64/a.data" --symfs "$T/a64/symfs" --itrace=bi1i -F ip,insnlen,insn \
	>"$T/def.txt"
if grep -v '^ *ffff' "$T/def.txt" | grep -v ' ilen: 4 insn: .. .. .. ..$'; then
	echo "FAIL: the default's insnlen/insn at an AArch64 ip is not its 4-byte word"
	exit 1
fi
set -- $(awk '$1 ~ /^aaaad/ { print $1, $5, $6, $7, $8; exit }' "$T/def.txt")
off=$(($(printf '%d' 0x$1) - 0xaaaad0000000))
want=$(od -An -tx1 -j $off -N 4 "$T/a64/symfs/usr/bin/app" | tr -d '\n' | sed 's/^ //')
[ "$want" = "$2 $3 $4 $5" ] || { echo "FAIL: insn at 0x$1: '$2 $3 $4 $5', the file has '$want'"; exit 1; }
a64=$n
if sh "$SRC/fixtures/symbols/build.sh" x86_64 "$T/fx" >/dev/null 2>&1; then
	trace "$T/x86" "$T/fx" 0x555550000000 0x7f0000000000 readelf
	compare "$T/x86"
	compare "$T/x86" --perf-compat=7.3
	echo "OK: $a64 lines (AArch64, --perf-compat) and $((n - a64)) (x86-64) identical to $($PERF version)"
else
	echo "OK: $a64 lines (AArch64, --perf-compat) identical to $($PERF version); no x86-64 fixtures"
fi
