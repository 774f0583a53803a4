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
# add_pbt IN OUT: synth's 64-byte records with a PBT packet (the previous branch target)
# in their padding, 4 to 160 bytes before the PC (the block up to the branch, or up to
# a sample that is no branch), in some after it (a negative block), in some none
add_pbt() {
	python3 - "$1" "$2" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
def pad_run(r):
    """where the record at r has 9 PAD packets in a row (its packets walked: a short
    header's payload is 1 << bits 5:4 bytes), or -1"""
    p = r
    while p < r + 64:
        if d[p] == 0:
            if d[p:p + 9] == bytes(9) and p + 9 <= r + 64:
                return p
            p += 1
        else:
            p += 1 + (1 << ((d[p] >> 4) & 3))
    return -1
for r in range(0, len(d) - 63, 64):
    i = r // 64
    p = pad_run(r)
    if d[r] != 0xb0 or p < 0 or i % 6 == 5:
        continue
    pc = int.from_bytes(d[r + 1:r + 9], 'little')
    top, pc = pc >> 56, pc & ((1 << 56) - 1)
    pbt = pc + 4 * (1 + i % 5) if i % 6 == 4 else pc - 4 * (1 + (i * 7) % 40)
    d[p:p + 9] = bytes([0xb4]) + ((pbt & ((1 << 56) - 1)) | (top << 56)).to_bytes(8, 'little')
open(sys.argv[2], 'wb').write(d)
PY
}
# trace DIR FX APP LIB READELF MIX [pbt]: DIR/a.data over FX's app and libfix.so, DIR/symfs
trace() {
	_d=$1 _fx=$2 _app=$3 _lib=$4 _re=$5 _mix=$6 _pbt=${7:-}
	mkdir -p "$_d/symfs/usr/bin" "$_d/symfs/usr/lib"
	# PCs in the executable segment; with PBT entries (blocks reaching up to 160 bytes
	# before a PC) in .text only: the segment also holds the build-id note, whose bytes
	# change with the folder the fixtures were built in (DW_AT_comp_dir is in the hashed
	# debug info), and on such random bytes --perf-compat's x86 lengths still differ from
	# perf's at a few addresses (README): the test's result depended on its folder
	seg() { $_re -lW "$1" | awk '$1 == "LOAD" && / E / { print $2, $5; exit }'; }
	[ -z "$_pbt" ] || seg() { set -- $(text_section "$1"); echo "$1 $2"; }
	set -- $(seg "$_fx/app")
	"$P" synth --records 3000 --seed 41 --mix "$_mix" --kernel-pct 4 \
		--text $((_app + $1)),$(($2)) -o "$_d/app.spe"
	set -- $(seg "$_fx/libfix.so")
	"$P" synth --records 2000 --seed 42 --mix "$_mix" --kernel-pct 4 \
		--text $((_lib + $1)),$(($2)) -o "$_d/lib.spe"
	cat "$_d/app.spe" "$_d/lib.spe" >"$_d/all.spe"
	[ -z "$_pbt" ] || add_pbt "$_d/all.spe" "$_d/all.spe"
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
trace "$T/a64" "$T/fa" 0xaaaad0000000 0xffff80000000 $RE branches
compare "$T/a64" --perf-compat=7.3
# srccode: each instruction's source line under it, with the thread's state the sample's
# own srccode shares (not on the PBT traces below: there perf's addr2line stops answering
# after a block through .rela.dyn, and perf prints no source line from then on)
all=$FIELDS
FIELDS="ip,brstackinsn,srccode ip,sym,brstackinsnlen,srccode"
compare "$T/a64" --perf-compat=7.3
HOME=$T/home $PERF script -i "$T/a64/a.data" --symfs "$T/a64/symfs" --itrace=bi1il \
	-F ip,brstackinsn,srccode 2>/dev/null | grep -q '^|[0-9]' ||
	{ echo "FAIL: perf printed no source line: srccode not tested"; exit 1; }
FIELDS=$all
# with PBT entries: the blocks from the previous target to the branch (IPC, "mismatch of
# LBR data and executable") and, on v2's samples that are no branch, up to the sample
for mix in branches v2; do
	trace "$T/pbt_$mix" "$T/fa" 0xaaaad0000000 0xffff80000000 $RE $mix pbt
	compare "$T/pbt_$mix" --perf-compat=7.3
done
HOME=$T/home "$P" script "$T/pbt_branches/a.data" --symfs "$T/pbt_branches/symfs" --itrace=bi1il \
	--perf-compat=7.3 -F ip,brstackinsn >"$T/pmt.txt"
for want in ' IPC$' '	mismatch of LBR data and executable$'; do
	grep -q "$want" "$T/pmt.txt" || { echo "FAIL: no line matches '$want': PBT not tested"; exit 1; }
done
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
	trace "$T/x86" "$T/fx" 0x555550000000 0x7f0000000000 readelf branches
	compare "$T/x86"
	compare "$T/x86" --perf-compat=7.3
	trace "$T/x86p" "$T/fx" 0x555550000000 0x7f0000000000 readelf v2 pbt
	compare "$T/x86p"
	echo "OK: $a64 lines (AArch64, --perf-compat) and $((n - a64)) (x86-64) identical to $($PERF version)"
else
	echo "OK: $a64 lines (AArch64, --perf-compat) identical to $($PERF version); no x86-64 fixtures"
fi
