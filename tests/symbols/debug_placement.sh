#!/bin/sh
# A separate debug file whose program headers have their offsets zeroed (objcopy
# --only-keep-debug on a binary whose code starts past offset 0: every x86-64 one, and
# Debian's /usr/lib/debug files) places its symbols by the mapped file's program headers,
# as perf does: the stripped file plus its debug file by build-id decode exactly as the
# unstripped file (symbols and source lines), and as perf 7.3 and 6.1 print them; without
# the mapped file, the usual layout is assumed and the code's symbols still land.
#   debug_placement.sh PMUTRACE SOURCE_DIR [PERF73]
set -eu
P=$1 SRC=$2 PERF73=${3:-}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
sh "$SRC/fixtures/symbols/build.sh" x86_64 "$T/fx" >/dev/null || exit $?
off=$(readelf -lW "$T/fx/app.debug" 2>/dev/null | awk '$1 == "LOAD" && / E / { print $2; exit }')
[ "$off" = 0x000000 ] || { echo "SKIP: this objcopy keeps the debug file's offsets ($off)"; exit 77; }
bid=$(readelf -nW "$T/fx/app" | sed -n 's/.*Build ID: //p')
set -- $(readelf -SW "$T/fx/app" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".text" { print "0x" $3, "0x" $5 }')
BASE=0x555500000000
"$P" synth --records 3000 --seed 31 --kernel-pct 0 --text $((BASE + $1)),$(($2)) -o "$T/a.spe"
"$P" convert --raw "$T/a.spe" --midr 0x410fd0c0 --pid 77 --comm app \
	--mmap "$BASE,0x10000,0,/usr/bin/app,$bid" -o "$T/a.data"
mkdir -p "$T/full/usr/bin" "$T/split/usr/bin" "$T/split/usr/lib/debug/.build-id/${bid%"${bid#??}"}" \
	"$T/debugonly/usr/lib/debug/.build-id/${bid%"${bid#??}"}"
cp "$T/fx/app" "$T/full/usr/bin/app"
cp "$T/fx/app.stripped" "$T/split/usr/bin/app"
cp "$T/fx/app.debug" "$T/split/usr/lib/debug/.build-id/${bid%"${bid#??}"}/${bid#??}.debug"
cp "$T/fx/app.debug" "$T/debugonly/usr/lib/debug/.build-id/${bid%"${bid#??}"}/${bid#??}.debug"
export HOME="$T/nohome"
F=ip,sym,symoff,dso,srcline
"$P" script "$T/a.data" --symfs "$T/full" -F $F >"$T/want"
grep -q ' work_[0-9]*+0x' "$T/want" || fail "no symbols even from the unstripped file"
"$P" script "$T/a.data" --symfs "$T/split" -F $F >"$T/got"
cmp -s "$T/want" "$T/got" || { echo "FAIL: stripped file + debug file decode differently:"; diff "$T/want" "$T/got" | head -6; exit 1; }
F=ip,sym,symoff,dso
"$P" script "$T/a.data" --symfs "$T/full" -F $F >"$T/want"
"$P" script "$T/a.data" --symfs "$T/debugonly" -F $F >"$T/got"
cmp -s "$T/want" "$T/got" || { echo "FAIL: the debug file alone places its symbols elsewhere:"; diff "$T/want" "$T/got" | head -6; exit 1; }
checked=
if [ -n "$PERF73" ] && "$PERF73" version >/dev/null 2>&1; then
	"$PERF73" script -i "$T/a.data" --symfs "$T/split" -F $F 2>/dev/null >"$T/perf"
	"$P" script "$T/a.data" --symfs "$T/split" -F $F >"$T/got"
	cmp -s "$T/perf" "$T/got" || { echo "FAIL: differs from perf 7.3:"; diff "$T/perf" "$T/got" | head -6; exit 1; }
	checked=" and perf 7.3"
fi
echo "ok: a debug file with zeroed offsets places $(wc -l <"$T/want") samples as the unstripped file$checked"
