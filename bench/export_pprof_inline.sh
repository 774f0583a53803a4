#!/bin/sh
# export pprof with inline chains on a large optimised binary (not a test; prints figures):
# SPE PCs spread over the .text of pmutrace's own executable (a RelWithDebInfo build: -O2
# -g, so much of it is inlined code), mapped at a fixed address. Times `pmutrace export
# pprof` (one libdw lookup of the inline chain per distinct address) against perf 7.3's
# `script -F ip,sym,srcline --inline` (perf's own inline lookup of each address) on the same
# perf.data and --symfs.
#   bench/export_pprof_inline.sh [PMUTRACE] [RECORDS] [PERF]
#   (defaults: build/cli/pmutrace, 1000000, the perf 7.3 oracle)
set -eu
P=${1:-build/cli/pmutrace}
N=${2:-1000000}
PERF=${3:-/var/cache/pmutrace-oracles/bin/perf-7.3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
BASE=0x555555554000
mkdir -p "$T/fs/usr/bin"
cp "$P" "$T/fs/usr/bin/target"
set -- $(readelf -SW "$P" | awk '{ sub(/^ *\[ *[0-9]+\] */, "") } $1 == ".text" { print "0x" $3, "0x" $5 }')
"$P" synth --records "$N" --seed 7 --kernel-pct 0 --text $((BASE + $1)),$(($2)) -o "$T/p.spe"
"$P" convert --raw "$T/p.spe" --midr 0x410fd0c0 --pid 4242 --comm target \
	--mmap $BASE,0x1000000,0,/usr/bin/target -o "$T/p.data"
/usr/bin/time -f "pmutrace export pprof: %e s wall, %U+%S s CPU, %M KB" \
	"$P" export pprof "$T/p.data" --symfs "$T/fs" -o "$T/p.pb.gz"
if command -v protoc >/dev/null 2>&1; then
	gunzip -c "$T/p.pb.gz" | protoc --decode=perftools.profiles.Profile \
		-I"$(dirname "$0")/../decode/export/proto" profile.proto |
		awk '/^sample \{/ { s++ } /^location \{/ { l++; n = 0 } /^  line \{/ { n++ }
		     /^\}/ && n > 1 { inl++; n = 0 }
		     END { print s " Sample messages, " l " locations, " inl " with inlined frames" }'
fi
if "$PERF" version >/dev/null 2>&1; then
	/usr/bin/time -f "perf script -F ip,sym,srcline --inline: %e s wall, %U+%S s CPU, %M KB" \
		"$PERF" script -i "$T/p.data" --symfs "$T/fs" -F ip,sym,srcline --inline \
		>/dev/null 2>"$T/perf.err" || { tail -3 "$T/perf.err"; exit 1; }
	tail -1 "$T/perf.err"
fi
