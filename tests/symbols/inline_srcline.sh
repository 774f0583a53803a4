#!/bin/sh
# Inlined code (fixtures/symbols/inline.c, -O2: leaf inlined into middle, both into outer),
# for AArch64 and x86-64:
#  - script -F ip,sym,srcline equals perf 7.3's on the same trace, byte for byte: a sample
#    without a callchain names the function that holds the code (outer) and the line of
#    the innermost inlined call (leaf's), as perf prints it;
#  - annotate's source places: at every instruction, the chain of inlined calls it shows
#    ("FILE:LINE (FUNC)" then "inlined by FILE:LINE (FUNC)") is the one binutils'
#    addr2line -i -f gives for that address (a place that is not inlined: its FILE:LINE);
#  - x86-64 only, when perf can record here: a real cpu-clock recording of the fixture
#    running (perf 7.3 record, no -g), script -F ip,sym,srcline against perf 7.3's.
# The trace is a synthetic SPE trace whose PCs fall in outer, mapped at /usr/bin/inline.
#   inline_srcline.sh PMUTRACE SOURCE_DIR [PERF73]
set -eu
P=$1
SRC=$2
PERF=${3:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$SRC/tests/tools/symbols_fixture.sh"
BASE=0xaaaad0000000
checked=0 archs=
for arch in aarch64 x86_64; do
	arch_fixture $arch "$T/$arch" || continue
	elf=$T/$arch/inline
	# outer's address and size (symbol table)
	set -- $(${X}readelf -sW "$elf" | awk '$8 == "outer" { print "0x" $2, $3 }')
	[ $# = 2 ] || fail "$arch: no symbol outer in the fixture"
	# the fixture must really inline: addr2line -i has more than one frame somewhere
	${X}addr2line -i -f -e "$elf" $(seq $(($1)) 2 $(($1 + $2 - 1)) | awk '{ printf "%x\n", $1 }') | grep -qx leaf ||
		fail "$arch: the compiler inlined nothing; the fixture tests nothing"
	"$P" synth --records 400 --seed 7 --kernel-pct 0 --text $((BASE + $1)),$2 -o "$T/$arch.spe"
	"$P" convert --raw "$T/$arch.spe" --midr 0x410fd0c0 --pid 4242 --comm inline \
		--mmap $BASE,0x10000,0,/usr/bin/inline -o "$T/$arch.data"
	mkdir -p "$T/fs-$arch/usr/bin"
	cp "$elf" "$T/fs-$arch/usr/bin/inline"
	"$P" script "$T/$arch.data" --symfs "$T/fs-$arch" -F ip,sym,srcline >"$T/pmt.txt"
	grep -q 'inline\.c:' "$T/pmt.txt" || fail "$arch: script printed no source line"
	if [ -n "$PERF" ] && "$PERF" version >/dev/null 2>&1; then
		"$PERF" script -i "$T/$arch.data" --symfs "$T/fs-$arch" -F ip,sym,srcline \
			>"$T/perf.txt" 2>/dev/null
		[ -s "$T/perf.txt" ] || fail "$arch: perf printed nothing"
		cmp -s "$T/perf.txt" "$T/pmt.txt" || {
			echo "FAIL: $arch: script -F ip,sym,srcline differs (perf < > pmutrace)"
			diff "$T/perf.txt" "$T/pmt.txt" | head -8; exit 1; }
	else
		echo "note: perf 7.3 missing, $arch script not compared"
	fi
	# annotate: "ADDR|PLACE" per instruction, PLACE the lines shown above it joined by "|"
	"$P" annotate "$T/$arch.data" --symfs "$T/fs-$arch" --symbol outer >"$T/ann.txt"
	awk '/^         :                                 [^ ]/ && NR > 3 {
		sub(/^ +: +/, ""); if (!cont) place = ""; place = place (place == "" ? "" : "|") $0
		cont = 1; next }
	     / : +[0-9a-f]+:  / { cont = 0; split($0, f, ":"); a = f[3]; gsub(/ /, "", a)
		if (place != "") print a "\t" place }' "$T/ann.txt" >"$T/ours"
	[ -s "$T/ours" ] || fail "$arch: annotate showed no source places"
	grep -q 'inlined by' "$T/ours" || fail "$arch: annotate showed no inlined call"
	cut -f1 "$T/ours" | sed 's/^/0x/' >"$T/addrs"
	# addr2line -i -f: per address, FUNC and FILE:LINE pairs, innermost first; the end of an
	# address's frames is found by asking again with a marker address that has no line
	{ while read -r a; do echo "$a"; echo 0; done <"$T/addrs"; } |
		${X}addr2line -i -f -e "$elf" |
		sed 's/ (discriminator [0-9]*)//; s|^/.*/||' |
		awk 'BEGIN { n = 0 }
		     { fn = $0; getline loc
		       if (fn == "??" && loc ~ /^\?\?:/) { # the marker: one address done
			 if (n == 1) print line[0]
			 else { s = line[0] " (" func[0] ")"
				for (i = 1; i < n; i++) s = s "|inlined by " line[i] " (" func[i] ")"
				print s }
			 n = 0; next }
		       func[n] = fn; line[n] = loc; n++ }' >"$T/theirs"
	cut -f2 "$T/ours" >"$T/ours.place"
	[ $(wc -l <"$T/theirs") = $(wc -l <"$T/ours.place") ] ||
		fail "$arch: $(wc -l <"$T/ours.place") instructions, addr2line answered for $(wc -l <"$T/theirs")"
	paste "$T/addrs" "$T/ours.place" "$T/theirs" | awk -F'\t' -v A=$arch '
		$2 != $3 { print A ": " $1 ": annotate " $2 " vs addr2line -i " $3; bad = 1 }
		END { exit bad }' >"$T/err" || { echo "FAIL: annotate's inline chains:"; head "$T/err"; exit 1; }
	checked=$((checked + $(wc -l <"$T/addrs")))
	archs="$archs $arch"
done
[ -n "$archs" ] || { echo "SKIP: no fixture could be built"; exit 77; }
# a real recording of the x86-64 fixture (no callchains: perf prints one line per sample;
# user space only: perf would symbolize the kernel from this machine's /proc/kallsyms)
real=
if [ -n "$PERF" ] && [ -x "$T/x86_64/inline" ] &&
	"$PERF" record -q -e cpu-clock:u -c 100000 -o "$T/real.data" "$T/x86_64/inline" 100000000 \
		>/dev/null 2>&1; then
	"$PERF" script -i "$T/real.data" -F ip,sym,srcline >"$T/perf.txt" 2>/dev/null
	"$P" script "$T/real.data" -F ip,sym,srcline >"$T/pmt.txt"
	grep -q 'inline\.c:' "$T/perf.txt" || fail "real recording: perf saw no sample in the fixture"
	# a start-up sample in ld.so's _dl_find_object_from_map: its row named by either file
	# (tests/tools/known_line_pairs.awk; seen once in a loaded run)
	paste -d '\n' "$T/perf.txt" "$T/pmt.txt" | awk -f "$SRC/tests/tools/known_line_pairs.awk" \
		>"$T/pmt.known"
	cmp -s "$T/perf.txt" "$T/pmt.known" || {
		echo "FAIL: real recording: script -F ip,sym,srcline differs (perf < > pmutrace)"
		diff "$T/perf.txt" "$T/pmt.txt" | head -8; exit 1; }
	real=", a perf 7.3 cpu-clock recording of the x86-64 fixture"
fi
echo "OK: inlined code on$archs: $checked instructions' inline chains agree with addr2line -i; script matches perf 7.3$real"
