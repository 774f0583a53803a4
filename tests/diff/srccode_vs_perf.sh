#!/bin/sh
# -F srccode against perf on the same file: SPE traces whose PCs fall in the .text of the
# project's AArch64 fixtures (their DWARF names the sources in fixtures/symbols, which both
# tools read), byte for byte: "|LINE     TEXT" under a sample whose line differs from its
# thread's last printed one. Also perf's refusal of srccode and srcline without ip, in its
# words. With perf >= 7 also PCs in app's read-only data, around a variable: at a variable's address perf's binutils gives its declaration line (fix_consts,
# "|10 const long fix_consts[32] = ..."), which pmutrace reads from the DWARF variable.
#   [PERF=CMD] [COMPAT=VER] srccode_vs_perf.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
fail() { echo "FAIL: $*"; exit 1; }
. "$SRC/tests/tools/symbols_fixture.sh"
perf_oracle
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fixture_build "$T/fx"
text_trace "$T/fx" 71 6000 "$T/t.data"
n=0
for f in ip,srccode ip,sym,srccode event,ip,sym,symoff,dso,srccode tid,time,ip,srccode; do
	$PERF script -i "$T/t.data" --symfs "$T/fx/fs" -F "$f" >"$T/perf.txt" 2>/dev/null
	"$P" script "$T/t.data" --symfs "$T/fx/fs" --perf-compat="$COMPAT" -F "$f" >"$T/pmt.txt"
	grep -q '^|[0-9]' "$T/perf.txt" || { echo "FAIL: perf printed no source line for -F $f"; exit 1; }
	if ! cmp -s "$T/perf.txt" "$T/pmt.txt"; then
		echo "FAIL: -F $f differs (perf < > pmutrace)"
		diff "$T/perf.txt" "$T/pmt.txt" | head -6
		exit 1
	fi
	n=$((n + $(grep -c '^|' "$T/perf.txt")))
done
if $PERF version | grep -q 'version [7-9]'; then
	# PCs over libfix.so's text and app's read-only data around fix_consts
	mkdir -p "$T/seg/symfs/usr/bin" "$T/seg/symfs/usr/lib"
	cp "$T/fx/app" "$T/seg/symfs/usr/bin/app"
	cp "$T/fx/libfix.so" "$T/seg/symfs/usr/lib/libfix.so"
	fc=$($RE -sW "$T/fx/app" | awk '$8 == "fix_consts" { print "0x" $2 }')
	[ -n "$fc" ] || fail "no fix_consts in the fixture"
	"$P" synth --records 1500 --seed 5 --kernel-pct 0 --text $((FIX_APP + fc - 0x40)),0x180 \
		-o "$T/seg/d.spe"
	set -- $(text_section "$T/fx/libfix.so")
	"$P" synth --records 1500 --seed 6 --kernel-pct 0 --text $((FIX_LIB + $1)),$(($2)) \
		-o "$T/seg/l.spe"
	cat "$T/seg/d.spe" "$T/seg/l.spe" >"$T/seg/all.spe"
	"$P" convert --raw "$T/seg/all.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
		--mmap $FIX_APP,0x10000,0,/usr/bin/app --mmap $FIX_LIB,0x10000,0,/usr/lib/libfix.so \
		-o "$T/seg/a.data"
	for f in ip,sym,srccode ip,sym,srcline,srccode; do
		$PERF script -i "$T/seg/a.data" --symfs "$T/seg/symfs" --itrace=i1i -F "$f" \
			>"$T/perf.txt" 2>/dev/null
		"$P" script "$T/seg/a.data" --symfs "$T/seg/symfs" --itrace=i1i --perf-compat="$COMPAT" \
			-F "$f" >"$T/pmt.txt"
		grep -q '^|10 *const long fix_consts' "$T/perf.txt" ||
			{ echo "FAIL: perf printed no declaration of fix_consts: data not tested"; exit 1; }
		# srcline without a line row (next to the variable, .init) is addr2line's answer,
		# the STT_FILE before the symbol with line 0, on both sides (srcline_fallback.sh)
		if cmp -s "$T/perf.txt" "$T/pmt.txt"; then
			n=$((n + $(grep -c '^|' "$T/perf.txt")))
			continue
		fi
		echo "FAIL: -F $f on data differs (perf < > pmutrace)"
		diff "$T/perf.txt" "$T/pmt.txt" | head -6
		exit 1
	done
fi
for f in tid,srccode event,srcline; do
	want=$($PERF script -i "$T/t.data" -F "$f" 2>&1 >/dev/null | head -2)
	"$P" script "$T/t.data" -F "$f" >/dev/null 2>"$T/err" && { echo "FAIL: -F $f accepted"; exit 1; }
	grep -qF "$(echo "$want" | head -1)" "$T/err" ||
		{ echo "FAIL: -F $f: not perf's words '$want': $(cat "$T/err")"; exit 1; }
done
echo "OK: $n source lines identical to $($PERF version)"
