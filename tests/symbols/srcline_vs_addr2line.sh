#!/bin/sh
# script -F ip,srcline against binutils' addr2line on the AArch64 fixtures: every sample
# whose address has a row in the line table prints the row's file (last part) and line as
# addr2line does; every other one prints DSO[ADDR] and addr2line has no line for it
# either. Lines come from the file the symbols came from: the binary itself (built with
# -g), or the debug file a stripped binary names (.gnu_debuglink).
#   srcline_vs_addr2line.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
command -v aarch64-linux-gnu-addr2line >/dev/null || { echo "SKIP: binutils-aarch64-linux-gnu missing"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
sh "$SRC/fixtures/symbols/build.sh" aarch64 "$T/fx" >/dev/null || exit $?
RE=aarch64-linux-gnu-readelf
# the PCs: .text (code; binutils also answers data addresses with a variable's line)
text() { $RE -SW "$1" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".text" { print "0x" $3, "0x" $5 }'; }
APP=0xaaaad0000000 LIB=0xffff80000000
set -- $(text "$T/fx/app")
"$P" synth --records 6000 --seed 51 --kernel-pct 0 --text $((APP + $1)),$(($2)) -o "$T/a.spe"
set -- $(text "$T/fx/libfix.so")
"$P" synth --records 3000 --seed 52 --kernel-pct 0 --text $((LIB + $1)),$(($2)) -o "$T/l.spe"
cat "$T/a.spe" "$T/l.spe" >"$T/all.spe"
"$P" convert --raw "$T/all.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
	--mmap $APP,0x10000,0,/usr/bin/app --mmap $LIB,0x10000,0,/usr/lib/libfix.so -o "$T/t.data"
checked=0
for layout in plain debuglink; do
	fs=$T/fs-$layout
	mkdir -p "$fs/usr/bin" "$fs/usr/lib"
	cp "$T/fx/libfix.so" "$fs/usr/lib/libfix.so"
	if [ $layout = plain ]; then
		cp "$T/fx/app" "$fs/usr/bin/app"
	else
		cp "$T/fx/app.stripped" "$fs/usr/bin/app"
		cp "$T/fx/app.debug" "$fs/usr/bin/app.debug"
	fi
	"$P" script "$T/t.data" --symfs "$fs" -F ip,srcline >"$T/out"
	# "ADDR FILE-OR-DSO ELF" for each sample: the ELF address is ip - the map's start
	paste - - <"$T/out" | awk -v app=$((APP)) -v lib=$((LIB)) '{
		ip = 0; s = tolower($1)
		for (i = 1; i <= length(s); i++) ip = ip * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		if (ip >= lib) printf "%x %s lib\n", ip - lib, $2; else printf "%x %s app\n", ip - app, $2 }' \
		| sort -u >"$T/pairs"
	[ -s "$T/pairs" ] || { echo "FAIL: $layout: no srcline output"; exit 1; }
	for elf in app lib; do
		f=$T/fx/app
		[ $elf = lib ] && f=$T/fx/libfix.so
		awk -v e=$elf '$3 == e { print $1 }' "$T/pairs" >"$T/addrs"
		aarch64-linux-gnu-addr2line -e "$f" $(sed 's/^/0x/' "$T/addrs") |
			sed 's/ (discriminator [0-9]*)//; s|.*/||' >"$T/a2l"
		awk -v e=$elf '$3 == e { print $2 }' "$T/pairs" | paste - "$T/a2l" | awk -v L=$layout -v e=$elf '
			{ ours = $1; theirs = $2
			  if (ours ~ /\[[0-9a-f]+\]$/) {
				  # no row: addr2line must not have a line either
				  if (theirs ~ /:[1-9][0-9]*$/) { print L ": " e " " ours ": addr2line says " theirs; bad = 1 }
			  } else if (ours != theirs) { print L ": " e ": " ours " vs addr2line " theirs; bad = 1 }
			  n++ }
			END { exit bad }' >"$T/err" || { echo "FAIL:"; head "$T/err"; exit 1; }
		checked=$((checked + $(wc -l <"$T/addrs")))
	done
	grep -q 'app\.c:[1-9]' "$T/out" || { echo "FAIL: $layout: no app.c line"; exit 1; }
	grep -q 'lib\.c:[1-9]' "$T/out" || { echo "FAIL: $layout: no lib.c line"; exit 1; }
done
echo "OK: $checked distinct addresses agree with addr2line (binary with -g, stripped + debuglink)"
