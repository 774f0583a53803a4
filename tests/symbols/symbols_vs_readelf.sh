#!/bin/sh
# pmutrace symbols against binutils' readelf on the project's fixtures (fixtures/symbols),
# for AArch64 and x86-64: PIE, ET_EXEC, shared library, and a stripped file with its
# debug file. Every FUNC and OBJECT symbol readelf lists (defined, not ABS) is in the table
# at its file offset (st_value moved by its PT_LOAD's p_vaddr - p_offset, a debug file's by
# the binary's PT_LOADs, which pmutrace has to reconstruct from the debug file alone) with its size,
# or an alias at the same place stands for it; every entry of the table but the synthesized
# .plt ones is a symbol readelf lists there.
#   symbols_vs_readelf.sh PMUTRACE SOURCE_DIR
set -eu
P=$1
SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
checked=0
for arch in aarch64 x86_64; do
	case $arch in
	aarch64) RE=aarch64-linux-gnu-readelf ;;
	*) RE=readelf ;;
	esac
	if ! sh "$SRC/fixtures/symbols/build.sh" $arch "$T/$arch" >/dev/null; then
		echo "note: $arch fixtures not built (compiler missing)"
		continue
	fi
	for f in app app.nopie libfix.so app.debug; do
		F=$T/$arch/$f
		"$P" symbols "$F" >"$T/ours" || { echo "FAIL: pmutrace symbols $F"; exit 1; }
		# readelf's view: "offset size name" of each FUNC/OBJECT, placed like perf: by the
		# mapped file's program headers (a debug file's have their offsets zeroed: its
		# symbols belong where the binary it was split from has them)
		L=$F
		[ "$f" = app.debug ] && L=$T/$arch/app
		$RE -lW "$L" 2>/dev/null | awk '$1 == "LOAD" { print "L", $2, $3, $6 }' >"$T/loads"
		# (labels, NOTYPE, are marked: perf takes those in text and data sections, so they
		# may be in the table but need not)
		$RE -sW "$F" 2>/dev/null | awk '$4 == "FUNC" || $4 == "OBJECT" || $4 == "IFUNC" || $4 == "NOTYPE" {
			if ($7 == "UND" || $7 == "ABS" || $8 == "") next
			print ($4 == "NOTYPE" ? "N" : "S"), $2, $3, $8 }' | sed 's/@.*//' >"$T/syms"
		cat "$T/loads" "$T/syms" | awk '
			function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
				for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
				return v }
			$1 == "L" { n++; off[n] = hex($2); va[n] = hex($3); sz[n] = hex($4); next }
			{ v = hex($2); b = 0
			  for (i = 1; i <= n; i++) if (v >= va[i] && v < va[i] + sz[i]) { b = va[i] - off[i]; break }
			  s = $3 ~ /^0x/ ? hex($3) : $3 + 0
			  printf "%x %d %s %s\n", v - b, s, $4, $1 }' | sort -u >"$T/want"
		awk '{ s = $1; sub(/^0*/, "", s); if (s == "") s = "0"; printf "%s %s %s\n", s, $2, $3 }' \
			"$T/ours" >"$T/have"
		# 1: every readelf symbol has an entry at its place (its own name, or an alias)
		awk 'NR == FNR { at[$1] = 1; name[$1 " " $3] = $2; next }
		     $4 == "N" { next }
		     !($1 in at) { print "missing: " $0; bad = 1 }
		     ($1 " " $3) in name && $2 > 0 {
			 e = name[$1 " " $3]; s = $1
			 # end - start of ours against st_size
			 cmd = "printf %d 0x" e; cmd | getline ev; close(cmd)
			 cmd = "printf %d 0x" s; cmd | getline sv; close(cmd)
			 if (ev - sv != $2) { print "size of " $3 ": " ev - sv " vs " $2; bad = 1 } }
		     END { exit bad }' "$T/have" "$T/want" >"$T/err1" ||
			{ echo "FAIL: $arch/$f: readelf symbols the table lacks or sizes differ:"; head "$T/err1"; exit 1; }
		# 2: every entry (but .plt ones) is a readelf symbol at that place
		awk 'NR == FNR { ok[$1 " " $3] = 1; next }
		     $3 ~ /@plt$/ || $3 == ".plt" { next }
		     !(($1 " " $3) in ok) { print "extra: " $0; bad = 1 }
		     END { exit bad }' "$T/want" "$T/have" >"$T/err2" ||
			{ echo "FAIL: $arch/$f: entries readelf does not have:"; head "$T/err2"; exit 1; }
		checked=$((checked + $(wc -l <"$T/have")))
	done
	# a stripped file has no symbols of its own (the decoder follows its debuglink)
	"$P" symbols "$T/$arch/app.stripped" | grep -v '@plt$\|\.plt$' >"$T/stripped" || true
	[ ! -s "$T/stripped" ] || { echo "FAIL: $arch app.stripped lists symbols:"; head -3 "$T/stripped"; exit 1; }
done
[ "$checked" -gt 0 ] || { echo "SKIP: no fixtures built"; exit 77; }
# bad input: a clear error naming the file, exit 1
printf 'not an elf' >"$T/junk"
if "$P" symbols "$T/junk" 2>"$T/err"; then echo "FAIL: junk accepted"; exit 1; fi
grep -q "junk: not an ELF file" "$T/err" || { echo "FAIL: junk error: $(cat "$T/err")"; exit 1; }
echo "OK: $checked symbols agree with readelf"
