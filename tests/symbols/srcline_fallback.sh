#!/bin/sh
# script -F ip,sym,srcline where the line table has no row (crtstuff's functions, _start,
# .init/.fini, the padding after a function, .plt): perf runs binutils' addr2line there
# and prints its answer, so pmutrace must print what addr2line answers, read as perf reads
# it (perf's read_addr2line_record/filename_split/srcline_from_fileline: "??:0" means no
# answer and gives DSO[ADDR]; otherwise FILE:LINE, the file's last part, a "?" line is 0).
#  - every sampled address of the executable sections of app, libfix.so and inline,
#    AArch64 and x86-64 fixtures, against `addr2line -f -e` for that address: the one on
#    PATH, which perf runs (Debian's binutils reads another machine's file as generic ELF:
#    on x86, AArch64's mapping symbols count as functions);
#  - the whole output byte for byte against perf 7.3 (default), and -F ip,srcline against
#    perf 6.1 (--perf-compat=6.1: it prints no line where the srcline is "??:0",
#    addr2line's "??:?").
#   srcline_fallback.sh PMUTRACE SOURCE_DIR [PERF73]
set -eu
P=$1
SRC=$2
PERF73=${3:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
. "$SRC/tests/tools/symbols_fixture.sh"
BASE=0xaaaad0000000
checked=0 archs= fallbacks=0 perfs=
for arch in aarch64 x86_64; do
	arch_fixture $arch "$T/$arch" || continue
	addr2line -h | grep -q 'elf64-little' || [ "$arch" = "$(uname -m)" ] ||
		{ echo "note: the addr2line on PATH reads no $arch file, $arch skipped"; continue; }
	for f in app libfix.so inline; do
		elf=$T/$arch/$f
		# the executable sections' span: .init to .fini, .plt and .text between them
		lo= hi=0
		for sec in $(${X}readelf -SW "$elf" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") }
			$0 ~ / AX / { print "0x" $3 ":0x" $5 }'); do
			a=$((${sec%:*})) e=$((${sec%:*} + ${sec#*:}))
			[ -z "$lo" ] || [ $a -lt $lo ] && lo=$a
			[ $e -gt $hi ] && hi=$e
		done
		[ -n "$lo" ] && set -- $lo $((hi - lo)) || set --
		[ $# = 2 ] || fail "$arch/$f: no executable section"
		"$P" synth --records 6000 --seed 17 --kernel-pct 0 --text $((BASE + $1)),$2 -o "$T/t.spe"
		"$P" convert --raw "$T/t.spe" --midr 0x410fd0c0 --pid 4242 --comm $f \
			--mmap $BASE,0x100000,0,/usr/bin/$f -o "$T/$arch-$f.data"
		mkdir -p "$T/fs-$arch/usr/bin"
		cp "$elf" "$T/fs-$arch/usr/bin/$f"
		"$P" script "$T/$arch-$f.data" --symfs "$T/fs-$arch" -F ip,sym,srcline >"$T/pmt.txt"
		# "ELFADDR SRCLINE" per distinct address
		paste - - <"$T/pmt.txt" | awk -v base=$((BASE)) '{
			ip = 0; s = tolower($1)
			for (i = 1; i <= length(s); i++) ip = ip * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			printf "%x\t%s\n", ip - base, $NF }' | sort -u >"$T/pairs"
		[ -s "$T/pairs" ] || fail "$arch/$f: no srcline output"
		cut -f1 "$T/pairs" | sed 's/^/0x/' | addr2line -f -e "$elf" | paste - - |
			awk -F'\t' -v dso=$f '{ loc = $2
				if (loc == "??:0") { print "NONE"; next }
				i = index(loc, ":"); file = substr(loc, 1, i - 1); n = substr(loc, i + 1) + 0
				sub(/.*\//, "", file); print file ":" n }' >"$T/theirs"
		paste "$T/pairs" "$T/theirs" | awk -F'\t' -v A=$arch/$f -v dso=$f '
			{ want = $3 == "NONE" ? dso "[" $1 "]" : $3
			  if ($2 != want) { print A ": 0x" $1 ": pmutrace " $2 ", addr2line (as perf reads it) " want; bad = 1 } }
			END { exit bad }' >"$T/err" || { echo "FAIL:"; head "$T/err"; exit 1; }
		checked=$((checked + $(wc -l <"$T/pairs")))
		fallbacks=$((fallbacks + $(grep -c ':0$' "$T/pairs" || true)))
		grep -q 'crtstuff\.c:0$' "$T/pairs" || fail "$arch/$f: no address in crtstuff's code sampled"
		if [ -n "$PERF73" ] && "$PERF73" version >/dev/null 2>&1; then
			"$PERF73" script -i "$T/$arch-$f.data" --symfs "$T/fs-$arch" -F ip,sym,srcline \
				>"$T/perf.txt" 2>/dev/null
			cmp -s "$T/perf.txt" "$T/pmt.txt" || {
				echo "FAIL: $f: script -F ip,sym,srcline differs (perf 7.3 < > pmutrace)"
				diff "$T/perf.txt" "$T/pmt.txt" | head -8; exit 1; }
			perfs=" perf 7.3"
		fi
		if perf version >/dev/null 2>&1; then
			# -F ip,srcline: perf 6.1 names some .plt addresses otherwise (not this test's)
			perf script -i "$T/$arch-$f.data" --symfs "$T/fs-$arch" -F ip,srcline \
				2>/dev/null >"$T/perf61.txt"
			"$P" script "$T/$arch-$f.data" --symfs "$T/fs-$arch" -F ip,srcline \
				--perf-compat=6.1 >"$T/pmt61.txt"
			[ -s "$T/perf61.txt" ] || fail "$f: perf 6.1 printed nothing"
			cmp -s "$T/perf61.txt" "$T/pmt61.txt" || {
				echo "FAIL: $f: srclines differ (perf 6.1 < > pmutrace --perf-compat=6.1)"
				diff "$T/perf61.txt" "$T/pmt61.txt" | head -8; exit 1; }
			perfs="$perfs perf 6.1"
		fi
	done
	archs="$archs $arch"
done
[ -n "$archs" ] || { echo "SKIP: no fixture could be built"; exit 77; }
echo "OK:$archs: $checked addresses ($fallbacks without a line row) agree with addr2line${perfs:+; equal to$perfs}"
