#!/bin/sh
# script --perf-compat=6.1 -F ip,srcline names each row's file as binutils 2.40's addr2line
# (the one perf 6.1 runs) does: a DWARF 5 sequence's rows before its first DW_LNS_set_file
# are in file entry 1, which binutils names after entry 0, the unit's file (ld.so's
# dl-cacheinfo.h:333 as dl-get-cpu-features.c:333). Every distinct sampled address of this
# machine's ld.so and libc (their debug files from /usr/lib/debug/.build-id) against
# addr2line on the debug file; the default (perf 7.3, libdw) must name some of them
# otherwise, or the case was not in the sample.
#   srcline_bfd240.sh PMUTRACE
set -eu
P=$1
addr2line --version 2>/dev/null | grep -q ' 2\.40' ||
	{ echo "SKIP: the addr2line on PATH is not binutils 2.40 (perf 6.1's)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
checked=0 renamed=0
for lib in ld-linux-x86-64.so.2 libc.so.6; do
	f=$(readlink -f "/lib/x86_64-linux-gnu/$lib" 2>/dev/null) || true
	[ -f "$f" ] || { echo "SKIP: no /lib/x86_64-linux-gnu/$lib"; exit 77; }
	bid=$(readelf -n "$f" | awk '/Build ID/ { print $3 }')
	dbg=/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug
	[ -f "$dbg" ] || { echo "SKIP: no debug file for $lib ($dbg)"; exit 77; }
	# shellcheck disable=SC2046
	set -- $(readelf -SW "$f" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".text" { print "0x" $3, "0x" $5 }')
	base=0x7f0000000000
	"$P" synth --records 20000 --seed 5 --kernel-pct 0 --text $((base + $1)),$(($2)) \
		-o "$T/t.spe"
	"$P" convert --raw "$T/t.spe" --midr 0x410fd0c0 --pid 4242 --comm app \
		--mmap $base,$(($1 + $2)),0,"$f" -o "$T/t.data"
	for c in 6.1 7.3; do
		"$P" script --perf-compat=$c "$T/t.data" -F ip,srcline >"$T/out.$c"
		# "ELF-ADDRESS FILE:LINE" per distinct address (perf 6.1 prints no line for
		# "??:0": "??:0" here)
		awk -v b=$((base)) 'function out() { if (have) printf "%x %s\n", ip - b, src }
			/^ *[0-9a-f]+$/ { out(); ip = 0; s = tolower($1); src = "??:0"; have = 1
				for (i = 1; i <= length(s); i++)
					ip = ip * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
				next }
			{ src = $1 } END { out() }' "$T/out.$c" | LC_ALL=C sort -u >"$T/pairs.$c"
	done
	[ -s "$T/pairs.6.1" ] || { echo "FAIL: $lib: no srcline output"; exit 1; }
	cut -d' ' -f1 "$T/pairs.6.1" >"$T/addrs"
	sed 's/^/0x/' "$T/addrs" | addr2line -e "$dbg" |
		sed 's/ (discriminator [0-9]*)//; s|.*/||; s/:?$/:0/' >"$T/a2l"
	# an address without a row prints DSO[ADDR] (perf 6.1: nothing), and one where
	# addr2line finds no line (":?", seen in a sequence of libc's loadmsgcat.c that libdw
	# reads a line in): not compared here
	cut -d' ' -f2 "$T/pairs.6.1" | paste -d' ' "$T/addrs" - "$T/a2l" | awk -v l=$lib '
		$2 !~ /\[[0-9a-f]+\]$/ && $3 !~ /:0$/ && $2 != $3 {
			print l " 0x" $1 ": " $2 " vs addr2line " $3; bad = 1 }
		END { exit bad }' >"$T/err" || { echo "FAIL:"; head "$T/err"; exit 1; }
	checked=$((checked + $(wc -l <"$T/addrs")))
	renamed=$((renamed + $(LC_ALL=C join "$T/pairs.6.1" "$T/pairs.7.3" |
		awk '$2 != $3 && $2 ~ /:[1-9][0-9]*$/ && $3 ~ /:[1-9][0-9]*$/' | wc -l)))
done
[ "$renamed" -gt 0 ] || { echo "FAIL: no address named otherwise by libdw: the case is not tested"; exit 1; }
echo "OK: $checked addresses of ld.so and libc as addr2line 2.40 names them ($renamed by unit's file)"
