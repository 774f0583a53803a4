#!/bin/sh
# pmutrace annotate on the AArch64 fixtures against binutils: every instruction it shows
# is at an address objdump -d decodes an instruction at, with the same mnemonic (capstone
# and binutils spell movz differently), and each instruction's
# sample count equals the samples script -F shows at that address.
#   annotate_vs_objdump.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
command -v aarch64-linux-gnu-objdump >/dev/null || { echo "SKIP: binutils-aarch64-linux-gnu missing"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/tools/symbols_fixture.sh"
fixture_build "$T/fx"
text_trace "$T/fx" 61 12000 "$T/t.data"
APP=$FIX_APP LIB=$FIX_LIB
"$P" annotate "$T/t.data" --symfs "$T/fx/fs" --top 10000 >"$T/ann"
# "DSO ADDR MNEMONIC SAMPLES" of every instruction line
awk '/Disassembly of / { for (i = NF; i >= 1; i--) if ($i == "Disassembly") d = $(i + 2) }
     / : +[0-9a-f]+:  [a-z]/ {
	split($0, f, ":"); a = f[3]; gsub(/ /, "", a)
	split(f[4], m, " "); s = substr(f[2], 1, 9); gsub(/ /, "", s); if (s == "") s = 0
	print d, a, m[1], s }' "$T/ann" >"$T/ours"
[ "$(wc -l <"$T/ours")" -gt 500 ] || { echo "FAIL: annotate showed $(wc -l <"$T/ours") instructions"; exit 1; }
for dso in app libfix.so; do
	f=$T/fx/app
	[ $dso = libfix.so ] && f=$T/fx/libfix.so
	aarch64-linux-gnu-objdump -d --no-show-raw-insn "$f" |
		awk -F'\t' '/^ +[0-9a-f]+:\t/ { a = $1; gsub(/[ :]/, "", a); split($2, m, " "); print a, m[1] }' \
		>"$T/obj.$dso"
	# the one alias they spell differently here: capstone's movz is binutils' mov
	awk -v d=$dso 'NR == FNR { obj[$1] = $2; next }
		$1 != d { next }
		{ n++
		  if (!($2 in obj)) { print "no instruction at " $2 " in objdump (" d ")"; bad = 1; next }
		  m = $3; o = obj[$2]
		  if (m == "movz" && o == "mov") next
		  if (m != o) { print d " " $2 ": " m " vs objdump " o; bad = 1 } }
		END { exit bad }' "$T/obj.$dso" "$T/ours" >"$T/err" ||
		{ echo "FAIL: $dso:"; head "$T/err"; exit 1; }
done
# sample counts per instruction against script: instructions samples per ip
"$P" script "$T/t.data" --symfs "$T/fx/fs" -F event,ip,dso | awk '$1 == "instructions:" {
	ip = 0; s = tolower($2)
	for (i = 1; i <= length(s); i++) ip = ip * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	d = $3; gsub(/[()]/, "", d); sub(/.*\//, "", d)
	base = d == "app" ? '$((APP))' : '$((LIB))'
	c[d " " sprintf("%x", ip - base)]++ }
	END { for (k in c) print k, c[k] }' | sort >"$T/script_counts"
awk '$4 > 0 { print $1, $2, $4 }' "$T/ours" | sort >"$T/ann_counts"
# every annotated count is script's (script's other addresses are in symbols' non-code
# tails, a zero-size symbol stretched to the next, which annotate cannot disassemble)
awk 'NR == FNR { c[$1 " " $2] = $3; next }
     !(($1 " " $2) in c) { print "annotate counts " $3 " at " $1 " " $2 ", script none"; bad = 1; next }
     c[$1 " " $2] != $3 { print "count at " $1 " " $2 ": annotate " $3 ", script " c[$1 " " $2]; bad = 1 }
     END { exit bad }' "$T/script_counts" "$T/ann_counts" >"$T/err" || { echo "FAIL:"; head "$T/err"; exit 1; }
echo "OK: $(wc -l <"$T/ours") instructions agree with objdump, $(wc -l <"$T/ann_counts") sample counts with script"
