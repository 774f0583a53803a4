#!/bin/sh
# Branch stacks with symbols and files (--itrace=l, perf >= 6.15) against perf on the same
# file: branch-heavy SPE traces whose PCs fall in the project's AArch64 fixtures (a PIE
# executable and a shared library, build-id MMAP2 records) and in an unmapped kernel;
# -F brstacksym, brstackoff and brstack with sym/symoff/dso/dsoff, byte for byte, with the
# files under --symfs (their symbols read: brstackoff keeps the addresses, as perf's
# dso__adjust_symbols() says) and without them (brstackoff prints file offsets).
#   [PERF=CMD] brstack_sym_vs_perf.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
PERF=${PERF:-perf}
$PERF version >/dev/null 2>&1 || { echo "SKIP: $PERF does not run"; exit 77; }
$PERF version | grep -q 'version [7-9]\|version 6\.1[5-9]' ||
	{ echo "SKIP: $($PERF version) has no SPE branch stacks (perf >= 6.15)"; exit 77; }
. "$SRC/tests/tools/symbols_fixture.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fixture_build "$T/fx"
APP=0xaaaad0000000 LIB=0xffff80000000
set -- $(text_load "$T/fx/app")
"$P" synth --records 3000 --seed 41 --mix branches --kernel-pct 4 --text $((APP)),$(($3)) \
	-o "$T/app.spe"
set -- $(text_load "$T/fx/libfix.so")
"$P" synth --records 2000 --seed 42 --mix branches --kernel-pct 4 --text $((LIB)),$(($3)) \
	-o "$T/lib.spe"
cat "$T/app.spe" "$T/lib.spe" >"$T/all.spe"
"$P" convert --raw "$T/all.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
	--mmap "$APP,0x10000,0,/usr/bin/app,$(bid "$T/fx/app")" \
	--mmap "$LIB,0x10000,0,/usr/lib/libfix.so,$(bid "$T/fx/libfix.so")" -o "$T/a.data"
mkdir -p "$T/symfs/usr/bin" "$T/symfs/usr/lib" "$T/home"
cp "$T/fx/app" "$T/symfs/usr/bin/app"
cp "$T/fx/libfix.so" "$T/symfs/usr/lib/libfix.so"
FIELDS="event,ip,brstacksym ip,sym,brstacksym ip,sym,symoff,dso,brstacksym
ip,sym,dso,dsoff,brstacksym event,ip,brstackoff ip,dso,brstackoff ip,dso,dsoff,brstackoff
ip,dso,brstack ip,dso,dsoff,brstack ip,brstack,brstacksym,brstackoff ip,brstacksym,brstackoff"
n=0
# HOME: perf's build-id cache is empty, so without --symfs neither tool finds the files
for symfs in "--symfs $T/symfs" ""; do
	for f in $FIELDS; do
		# shellcheck disable=SC2086
		HOME=$T/home $PERF script -i "$T/a.data" $symfs --itrace=bi1il -F "$f" \
			>"$T/perf.txt" 2>/dev/null
		# shellcheck disable=SC2086
		HOME=$T/home "$P" script "$T/a.data" $symfs --itrace=bi1il -F "$f" >"$T/pmt.txt"
		[ -s "$T/perf.txt" ] || { echo "FAIL: perf printed nothing for -F $f"; exit 1; }
		if ! cmp -s "$T/perf.txt" "$T/pmt.txt"; then
			echo "FAIL: -F $f ${symfs:+with --symfs }differs (perf < > pmutrace)"
			diff "$T/perf.txt" "$T/pmt.txt" | head -6
			exit 1
		fi
		n=$((n + $(wc -l <"$T/perf.txt")))
	done
done
HOME=$T/home "$P" script "$T/a.data" --symfs "$T/symfs" --itrace=bi1il -F ip,brstacksym |
	grep -q '[a-z_]+0x[0-9a-f]*/' || { echo "FAIL: no branch resolved to a symbol"; exit 1; }
HOME=$T/home "$P" script "$T/a.data" --itrace=bi1il -F ip,dso,brstackoff |
	grep -q ' 0x[0-9a-f]\{1,4\} (/usr/lib/libfix.so)' || { echo "FAIL: no file offset printed"; exit 1; }
echo "OK: $n lines identical to $($PERF version) over $(echo $FIELDS | wc -w) field lists, with and without --symfs"
