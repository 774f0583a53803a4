#!/bin/sh
# C++ names: a trace whose PCs fall in a C++ library (fixtures/symbols/cxx.cc, built here
# with clang++) prints the symbols perf prints: perf 7.3's whole signatures by default,
# perf 6.1's bare names with --perf-compat=6.1; the names are binutils' (nm -C) and with
# --no-demangle the file's own (nm).
#   demangle.sh PMUTRACE SOURCE_DIR [PERF73]
set -eu
pmt=$1 SRC=$2 PERF73=${3:-}
command -v clang++ >/dev/null || { echo "SKIP: clang++ not installed"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
clang++ -O1 -g -fPIC -shared -nostdlib -fno-exceptions -fno-rtti -Wl,--build-id \
	-o "$T/libcxx.so" "$SRC/fixtures/symbols/cxx.cc"
set -- $(readelf -SW "$T/libcxx.so" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".text" { print "0x" $3, "0x" $5 }')
BASE=0x7f0000000000
"$pmt" synth --records 3000 --seed 9 --kernel-pct 0 --text $((BASE + $1)),$(($2)) -o "$T/c.spe"
"$pmt" convert --raw "$T/c.spe" --midr 0x410fd0c0 --pid 77 --comm cx \
	--mmap $BASE,0x10000,0,/usr/lib/libcxx.so -o "$T/c.data"
mkdir -p "$T/fs/usr/lib"
cp "$T/libcxx.so" "$T/fs/usr/lib/"
F=ip,sym,symoff,dso
names() { sed 's/^ *[0-9a-f]* //; s/+0x[0-9a-f]* (.*//' "$1" | grep -v '^\[unknown\]' | sort -u; }
"$pmt" script "$T/c.data" --symfs "$T/fs" -F $F >"$T/new"
"$pmt" script "$T/c.data" --symfs "$T/fs" -F $F --no-demangle >"$T/raw"
# every function of the library was hit, and its name is binutils' demangling
nm -C --defined-only "$T/libcxx.so" | awk '$2 ~ /^[TtWw]$/ { $1 = ""; $2 = ""; sub(/^  /, ""); print }' | sort -u >"$T/nm-C"
nm --defined-only "$T/libcxx.so" | awk '$2 ~ /^[TtWw]$/ { print $3 }' | sort -u >"$T/nm"
names "$T/new" >"$T/got"
cmp -s "$T/nm-C" "$T/got" || { echo "FAIL: demangled names differ from nm -C (< nm -C > pmutrace)"; diff "$T/nm-C" "$T/got"; exit 1; }
names "$T/raw" >"$T/got"
cmp -s "$T/nm" "$T/got" || { echo "FAIL: --no-demangle names differ from nm"; diff "$T/nm" "$T/got"; exit 1; }
grep -q 'fix::Worker::run(int) const+0x' "$T/new" || fail "no signature with its qualifier"
# the perfs themselves on the same file
checked=
if [ -n "$PERF73" ] && "$PERF73" version >/dev/null 2>&1; then
	"$PERF73" script -i "$T/c.data" --symfs "$T/fs" -F $F 2>/dev/null >"$T/perf73"
	cmp -s "$T/perf73" "$T/new" || { echo "FAIL: differs from perf 7.3:"; diff "$T/perf73" "$T/new" | head -6; exit 1; }
	checked="$checked 7.3"
fi
if perf version 2>/dev/null | grep -q 'version 6\.1\.'; then
	perf script -i "$T/c.data" --symfs "$T/fs" -F $F 2>/dev/null >"$T/perf61"
	"$pmt" script "$T/c.data" --symfs "$T/fs" -F $F --perf-compat=6.1 >"$T/old"
	cmp -s "$T/perf61" "$T/old" || { echo "FAIL: differs from perf 6.1:"; diff "$T/perf61" "$T/old" | head -6; exit 1; }
	grep -q ' fix::scale<double>+0x' "$T/old" || fail "6.1: no bare template name"
	checked="$checked 6.1"
fi
echo "ok: $(wc -l <"$T/nm-C") C++ functions named as nm -C, --no-demangle as nm; identical to perf${checked:- (no perf to compare)}"
