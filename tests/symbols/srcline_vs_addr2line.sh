#!/bin/sh
# script -F ip,srcline against binutils' addr2line on the AArch64 fixtures: every sample
# prints the file (last part) and line addr2line gives, as perf reads them (a "?" line
# is 0: rows of the line table, and without one the symbol table's STT_FILE, see
# srcline_fallback.sh); a sample prints DSO[ADDR] only where addr2line finds nothing. Lines come from the file the symbols came from: the binary itself (built with
# -g), or the debug file a stripped binary names (.gnu_debuglink).
#   srcline_vs_addr2line.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
# the addr2line perf runs, on PATH (it reads AArch64 files as generic ELF on another host)
addr2line -h | grep -q 'elf64-little' || [ "$(uname -m)" = aarch64 ] ||
	{ echo "SKIP: the addr2line on PATH reads no AArch64 file"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/tools/symbols_fixture.sh"
fixture_build "$T/fx"
# the PCs: .text (code; binutils also answers data addresses with a variable's line)
text_trace "$T/fx" 51 9000 "$T/t.data"
APP=$FIX_APP LIB=$FIX_LIB
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
		# perf reads addr2line's unknown line "?" as 0 (its strtoul)
		addr2line -e "$f" $(sed 's/^/0x/' "$T/addrs") |
			sed 's/ (discriminator [0-9]*)//; s|.*/||; s/:?$/:0/' >"$T/a2l"
		awk -v e=$elf '$3 == e { print $2 }' "$T/pairs" | paste - "$T/a2l" | awk -v L=$layout -v e=$elf '
			{ ours = $1; theirs = $2
			  if (ours ~ /\[[0-9a-f]+\]$/) {
				  # perf has no srcline only where addr2line found nothing
				  if (theirs != "??:0") { print L ": " e " " ours ": addr2line says " theirs; bad = 1 }
			  } else if (ours != theirs) { print L ": " e ": " ours " vs addr2line " theirs; bad = 1 }
			  n++ }
			END { exit bad }' >"$T/err" || { echo "FAIL:"; head "$T/err"; exit 1; }
		checked=$((checked + $(wc -l <"$T/addrs")))
	done
	grep -q 'app\.c:[1-9]' "$T/out" || { echo "FAIL: $layout: no app.c line"; exit 1; }
	grep -q 'lib\.c:[1-9]' "$T/out" || { echo "FAIL: $layout: no lib.c line"; exit 1; }
done
echo "OK: $checked distinct addresses agree with addr2line (binary with -g, stripped + debuglink)"
